#pragma once
/* Shared by the benchmarks: a clock, medians, and the chained-Add model. */
#include "onnx/model.h"
#include "ops/op.h"
#include "testutil.h"

#include <time.h>

static inline double bench_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts t[0..n) and returns its median. */
static inline double bench_median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof(double), bench_cmp_double);
    return t[n / 2];
}

/* Least-squares slope and intercept of y over x. */
static inline void bench_fit(const double *x, const double *y, int n, double *slope,
                             double *intercept)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        sx += x[i];
        sy += y[i];
        sxx += x[i] * x[i];
        sxy += x[i] * y[i];
    }
    *slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    *intercept = (sy - *slope * sx) / n;
}

/* A new float32 value of the given shape (no data). */
static inline int bench_float_value(graph *g, const char *name, int rank, const int64_t *dims)
{
    int v = graph_add_value(g, name);
    g->values[v].dtype = VKML_DTYPE_FLOAT;
    g->values[v].rank = rank;
    memcpy(g->values[v].dims, dims, sizeof(int64_t) * (size_t)rank);
    return v;
}

/* The model of g with one input x and one output y at `opset` (exits on failure, naming
 * `what`). */
static inline vkml_model *bench_model(graph *g, int x, int y, int64_t opset, const char *what)
{
    g->values[y].is_output = true;
    g->inputs = vkml_arena_calloc(g->arena, 1, sizeof(int));
    g->inputs[g->n_inputs++] = x;
    g->outputs = vkml_arena_calloc(g->arena, 1, sizeof(int));
    g->outputs[g->n_outputs++] = y;
    g->opset = opset;
    vkml_error err = {0};
    vkml_model *model = NULL;
    if (graph_sort(g, &err) != VKML_OK || model_from_graph(g, &model, &err) != VKML_OK) {
        fprintf(stderr, "bench: %s: %s\n", what, err.message);
        exit(1);
    }
    return model;
}

/* K dependent nodes over `len` floats: op "Add" is y = y + 1 (a constant scalar: the
 * binary kernel, broadcasting), "Add:dense" the same with a constant of `len` ones (no
 * broadcast), "Add:self" y = y + y (one value bound twice, no constant); any other op a
 * unary one (y = Relu(y): the unary kernel); input x, output the last y. */
static inline vkml_model *bench_chain_model_of(int k, int len, const char *op)
{
    bool add = strncmp(op, "Add", 3) == 0, dense = strcmp(op, "Add:dense") == 0,
         self = strcmp(op, "Add:self") == 0;
    graph *g = graph_create();
    const int64_t dims[1] = {len};
    int x = bench_float_value(g, "x", 1, dims);
    g->values[x].kind = GRAPH_VALUE_INPUT;
    int c = graph_add_value(g, "c");
    size_t n_c = dense ? (size_t)len : 1;
    float *one = vkml_arena_calloc(g->arena, n_c, sizeof(float));
    for (size_t i = 0; i < n_c; i++)
        one[i] = 1.0f;
    g->values[c] = (graph_value){.name = g->values[c].name,
                                 .dtype = VKML_DTYPE_FLOAT,
                                 .rank = dense ? 1 : 0,
                                 .dims = {len},
                                 .kind = GRAPH_VALUE_CONSTANT,
                                 .data = one,
                                 .data_size = sizeof(float) * n_c,
                                 .producer = -1};
    int prev = x;
    char name[32];
    for (int i = 0; i < k; i++) {
        snprintf(name, sizeof(name), "y%d", i);
        int y = bench_float_value(g, name, 1, dims);
        int n = graph_add_node(g, name, add ? "Add" : op, "", add ? 2 : 1, 1, 0);
        g->nodes[n].inputs[0] = prev;
        if (add)
            g->nodes[n].inputs[1] = self ? prev : c;
        g->nodes[n].outputs[0] = y;
        g->nodes[n].opset = 14;
        prev = y;
    }
    return bench_model(g, x, prev, 14, "chain model");
}

/* K dependent Adds, y = y + 1. */
static inline vkml_model *bench_chain_model(int k, int len)
{
    return bench_chain_model_of(k, len, "Add");
}

/* Median host-to-host latency (us) of `runs` runs of the K-Add chain on `device`, after a
 * warm-up run that checks the answer; -1 on failure (printed). spin_us: the session's
 * wait_spin_us (0: default); no_fuse: one dispatch per Add instead of one fused node. */
static inline double bench_chain_latency_of(vkml_context *ctx, int device, int k, int len, int runs,
                                            int spin_us, bool no_fuse, const char *op)
{
    vkml_error err = {0};
    vkml_model *model = bench_chain_model_of(k, len, op);
    /* the input is zeros */
    float expect = strcmp(op, "Add") == 0 || strcmp(op, "Add:dense") == 0 ? (float)k : 0.0f;
    vkml_session *s = NULL;
    vkml_session_params p = {.device = device, .wait_spin_us = spin_us, .no_fuse = no_fuse};
    float *in = calloc((size_t)len, sizeof(float)), *out = calloc((size_t)len, sizeof(float));
    double *t = calloc((size_t)runs, sizeof(double));
    double median = -1;
    vkml_tensor ti = {.dtype = VKML_DTYPE_FLOAT,
                      .rank = 1,
                      .dims = {len},
                      .data = in,
                      .size = sizeof(float) * (size_t)len};
    vkml_tensor to = ti;
    to.data = out;
    if (!in || !out || !t || vkml_session_create(ctx, model, &p, &s, &err) != VKML_OK ||
        vkml_session_run(s, &ti, 1, &to, 1, &err) != VKML_OK) {
        fprintf(stderr, "bench: K %d: %s\n", k, err.message);
    } else if (out[0] != expect) {
        fprintf(stderr, "bench: K %d gave %g\n", k, (double)out[0]);
    } else {
        for (int r = 0; r < runs; r++) {
            double t0 = bench_now_us();
            vkml_session_run(s, &ti, 1, &to, 1, &err);
            t[r] = bench_now_us() - t0;
        }
        median = bench_median(t, runs);
    }
    vkml_session_destroy(&s);
    vkml_model_destroy(&model);
    free(in);
    free(out);
    free(t);
    return median;
}

/* The K-Add chain's (bench_chain_latency_of with "Add"). */
static inline double bench_chain_latency(vkml_context *ctx, int device, int k, int len, int runs,
                                         int spin_us, bool no_fuse)
{
    return bench_chain_latency_of(ctx, device, k, len, runs, spin_us, no_fuse, "Add");
}
