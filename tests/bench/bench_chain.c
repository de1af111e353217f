/* Benchmark (not a test): K dependent Adds (y = y + c over 1024 floats) as one model, for
 * K = 1 .. 3000, on one device: the median host-to-host latency per K and the slope of a
 * least-squares line through them (the cost of one more dependent op), fused (the chain is
 * one FusedElementwise node: one dispatch) and unfused (one dispatch per Add); then runs/s
 * of the K = 100 chain with 1, 2, 4 and 8 runs in flight.
 *   bench_chain [--no-fuse] [DEVICE] [RUNS]   DEVICE: cpu, 0, 1 ... (default 0); RUNS: per
 *                                             K (200); --no-fuse: the unfused figures only
 * The raw floor to compare with (the same chain as bare dispatches with barriers) is in
 * ../shared/device/README.md: 2.03 us per dispatch on an H200. */
#include "onnx/model.h"
#include "ops/op.h"
#include "testutil.h"

#include <time.h>

#define LEN 1024

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static vkml_model *chain(int k)
{
    graph *g = graph_create();
    int x = graph_add_value(g, "x");
    g->values[x].dtype = VKML_DTYPE_FLOAT;
    g->values[x].rank = 1;
    g->values[x].dims[0] = LEN;
    g->values[x].kind = GRAPH_VALUE_INPUT;
    int c = graph_add_value(g, "c");
    float *one = vkml_arena_calloc(g->arena, 1, sizeof(float));
    *one = 1.0f;
    g->values[c] = (graph_value){.name = g->values[c].name, .dtype = VKML_DTYPE_FLOAT, .rank = 0,
                                 .kind = GRAPH_VALUE_CONSTANT, .data = one,
                                 .data_size = sizeof(float), .producer = -1};
    int prev = x;
    char name[32];
    for (int i = 0; i < k; i++) {
        snprintf(name, sizeof(name), "y%d", i);
        int y = graph_add_value(g, name);
        g->values[y].dtype = VKML_DTYPE_FLOAT;
        g->values[y].rank = 1;
        g->values[y].dims[0] = LEN;
        int n = graph_add_node(g, name, "Add", "", 2, 1, 0);
        g->nodes[n].inputs[0] = prev;
        g->nodes[n].inputs[1] = c;
        g->nodes[n].outputs[0] = y;
        g->nodes[n].opset = 14;
        prev = y;
    }
    g->values[prev].is_output = true;
    g->inputs = vkml_arena_calloc(g->arena, 1, sizeof(int));
    g->inputs[g->n_inputs++] = x;
    g->outputs = vkml_arena_calloc(g->arena, 1, sizeof(int));
    g->outputs[g->n_outputs++] = prev;
    g->opset = 14;
    vkml_error err = {0};
    vkml_model *model = NULL;
    if (graph_sort(g, &err) != VKML_OK || model_from_graph(g, &model, &err) != VKML_OK) {
        fprintf(stderr, "bench_chain: %s\n", err.message);
        exit(1);
    }
    return model;
}

/* Median latency per K and the least-squares slope (us per op), fused or not. */
static int sweep(vkml_context *ctx, int device, int runs, bool no_fuse, double *slope_out)
{
    static const int ks[] = {1, 10, 100, 300, 1000, 3000};
    const int n_k = (int)(sizeof(ks) / sizeof(ks[0]));
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    static float in[LEN], out[LEN];
    vkml_tensor ti = {.dtype = VKML_DTYPE_FLOAT, .rank = 1, .dims = {LEN}, .data = in,
                      .size = sizeof(in)};
    vkml_tensor to = {.dtype = VKML_DTYPE_FLOAT, .rank = 1, .dims = {LEN}, .data = out,
                      .size = sizeof(out)};
    vkml_error err = {0};
    double *t = calloc((size_t)runs, sizeof(double));
    printf("%s:\n%8s %14s\n", no_fuse ? "unfused (one dispatch per Add)" : "fused (one dispatch)",
           "K", "median us");
    for (int i = 0; i < n_k; i++) {
        vkml_model *model = chain(ks[i]);
        vkml_session *s = NULL;
        vkml_session_params p = {.device = device, .no_fuse = no_fuse};
        if (vkml_session_create(ctx, model, &p, &s, &err) != VKML_OK) {
            fprintf(stderr, "bench_chain: K %d: %s\n", ks[i], err.message);
            return 1;
        }
        vkml_session_run(s, &ti, 1, &to, 1, &err);
        if (out[0] != (float)ks[i]) {
            fprintf(stderr, "bench_chain: K %d gave %g\n", ks[i], (double)out[0]);
            return 1;
        }
        for (int r = 0; r < runs; r++) {
            double t0 = now_us();
            vkml_session_run(s, &ti, 1, &to, 1, &err);
            t[r] = now_us() - t0;
        }
        qsort(t, (size_t)runs, sizeof(double), cmp_double);
        double med = t[runs / 2];
        printf("%8d %14.1f\n", ks[i], med);
        sx += ks[i];
        sy += med;
        sxx += (double)ks[i] * ks[i];
        sxy += (double)ks[i] * med;
        vkml_session_destroy(&s);
        vkml_model_destroy(&model);
    }
    double slope = (n_k * sxy - sx * sy) / (n_k * sxx - sx * sx);
    double intercept = (sy - slope * sx) / n_k;
    printf("per dependent op: %.3f us (least squares over K); fixed cost %.1f us\n", slope,
           intercept);
    *slope_out = slope;
    free(t);
    return 0;
}

/* runs/s of the K = 100 chain with 1, 2, 4 and 8 runs in flight. */
static int in_flight(vkml_context *ctx, int device, int runs, bool no_fuse)
{
    static float in[LEN];
    vkml_tensor ti = {.dtype = VKML_DTYPE_FLOAT, .rank = 1, .dims = {LEN}, .data = in,
                      .size = sizeof(in)};
    vkml_error err = {0};
    vkml_model *model = chain(100);
    for (int k = 1; k <= 8; k *= 2) {
        vkml_session *s = NULL;
        vkml_session_params p = {.device = device, .runs_in_flight = k, .no_fuse = no_fuse};
        vkml_run *inflight[8] = {0};
        static float outs[8][LEN];
        vkml_tensor o[8];
        if (vkml_session_create(ctx, model, &p, &s, &err) != VKML_OK)
            return 1;
        for (int j = 0; j < k; j++)
            o[j] = (vkml_tensor){.dtype = VKML_DTYPE_FLOAT, .rank = 1, .dims = {LEN},
                                 .data = outs[j], .size = sizeof(outs[j])};
        double t0 = now_us();
        for (int r = 0; r < runs * 4; r++) {
            if (inflight[r % k])
                vkml_run_wait(&inflight[r % k], &err);
            vkml_session_submit(s, &ti, 1, &o[r % k], 1, NULL, NULL, &inflight[r % k], &err);
        }
        for (int j = 0; j < k; j++)
            if (inflight[j])
                vkml_run_wait(&inflight[j], &err);
        double us = now_us() - t0;
        printf("K 100%s, %d in flight: %.0f runs/s\n", no_fuse ? " unfused" : "", k,
               runs * 4 / us * 1e6);
        vkml_session_destroy(&s);
    }
    vkml_model_destroy(&model);
    return 0;
}

int main(int argc, char **argv)
{
    bool no_fuse = argc > 1 && strcmp(argv[1], "--no-fuse") == 0;
    argc -= no_fuse, argv += no_fuse;
    const char *dev_text = argc > 1 ? argv[1] : "0";
    int runs = argc > 2 ? atoi(argv[2]) : 200;
    if (runs < 10)
        runs = 10;
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    int device;
    if (vkml_context_create(NULL, &ctx, &err) != VKML_OK ||
        vkml_context_parse_device(ctx, dev_text, &device, &err) != VKML_OK) {
        fprintf(stderr, "bench_chain: %s\n", err.message);
        return 1;
    }
    vkml_device_info info;
    vkml_context_device_info(ctx, device, &info, &err);
    printf("device %s (%s), %d runs per K, chains of Add over %d floats\n", dev_text, info.name,
           runs, LEN);
    double fused = 0, unfused = 0;
    if ((!no_fuse && sweep(ctx, device, runs, false, &fused)) ||
        sweep(ctx, device, runs, true, &unfused) || in_flight(ctx, device, runs, no_fuse))
        return 1;
    if (!no_fuse)
        printf("us per op: fused %.4f, unfused %.4f (%.1fx)\n", fused, unfused,
               fused > 0 ? unfused / fused : 0.0);
    vkml_context_destroy(&ctx);
    return 0;
}
