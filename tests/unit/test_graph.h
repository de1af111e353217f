#pragma once
/* Small graphs built in memory for the unit tests: values, random float constants, nodes,
 * and the model around them. Failures go through CHECK (testutil.h). */
#include "onnx/model.h"
#include "ops/op.h"
#include "testutil.h"

static inline int tg_value(graph *g, const char *name, vkml_dtype dtype, int rank,
                           const int64_t *dims)
{
    int v = graph_add_value(g, name);
    g->values[v].dtype = dtype;
    g->values[v].rank = rank;
    if (rank > 0) /* scalars may pass NULL dims */
        memcpy(g->values[v].dims, dims, sizeof(int64_t) * (size_t)rank);
    return v;
}

/* A float constant of the given values (rank 0: one). */
static inline int tg_const(graph *g, const char *name, const float *values, int rank,
                           const int64_t *dims)
{
    int v = tg_value(g, name, VKML_DTYPE_FLOAT, rank, dims);
    size_t n = vkml_tensor_element_count(rank, dims);
    float *data = vkml_arena_calloc(g->arena, n, sizeof(float));
    memcpy(data, values, n * sizeof(float));
    g->values[v].kind = GRAPH_VALUE_CONSTANT;
    g->values[v].data = data;
    g->values[v].data_size = n * sizeof(float);
    return v;
}

/* A float constant of random values in [lo, hi). */
static inline int tg_random_constant(graph *g, const char *name, int rank, const int64_t *dims,
                                     float lo, float hi, uint64_t *seed)
{
    int v = tg_value(g, name, VKML_DTYPE_FLOAT, rank, dims);
    size_t n = vkml_tensor_element_count(rank, dims);
    float *data = vkml_arena_calloc(g->arena, n, sizeof(float));
    for (size_t i = 0; i < n; i++)
        data[i] = test_randf(seed, lo, hi);
    g->values[v].kind = GRAPH_VALUE_CONSTANT;
    g->values[v].data = data;
    g->values[v].data_size = n * sizeof(float);
    return v;
}

/* A node of one or two inputs (in1 < 0: one) and one output. */
static inline int tg_node(graph *g, const char *name, const char *op, int in0, int in1, int out,
                          int opset)
{
    int n = graph_add_node(g, name, op, "", in1 >= 0 ? 2 : 1, 1, 0);
    g->nodes[n].inputs[0] = in0;
    if (in1 >= 0)
        g->nodes[n].inputs[1] = in1;
    g->nodes[n].outputs[0] = out;
    g->nodes[n].opset = opset;
    return n;
}

/* A node of n_in inputs and n_out outputs (value ids, -1 for an omitted one). */
static inline int tg_node_io(graph *g, const char *name, const char *op, const int *in, int n_in,
                             const int *out, int n_out, int opset)
{
    int n = graph_add_node(g, name, op, "", n_in, n_out, 0);
    memcpy(g->nodes[n].inputs, in, sizeof(int) * (size_t)n_in);
    memcpy(g->nodes[n].outputs, out, sizeof(int) * (size_t)n_out);
    g->nodes[n].opset = opset;
    return n;
}

/* Marks the graph's inputs and outputs, sorts it and wraps it in a model. */
static inline vkml_model *tg_model(graph *g, const int *inputs, int n_inputs, const int *outputs,
                                   int n_outputs, int opset)
{
    g->inputs = vkml_arena_calloc(g->arena, (size_t)n_inputs + 1, sizeof(int));
    for (int i = 0; i < n_inputs; i++) {
        g->values[inputs[i]].kind = GRAPH_VALUE_INPUT;
        g->inputs[g->n_inputs++] = inputs[i];
    }
    g->outputs = vkml_arena_calloc(g->arena, (size_t)n_outputs + 1, sizeof(int));
    for (int i = 0; i < n_outputs; i++) {
        g->values[outputs[i]].is_output = true;
        g->outputs[g->n_outputs++] = outputs[i];
    }
    g->opset = opset;
    vkml_error err = {0};
    CHECK_OK(graph_sort(g, &err), &err);
    vkml_model *model = NULL;
    CHECK_OK(model_from_graph(g, &model, &err), &err);
    return model;
}

/* Runs session s once on x (its one float input: n_x values, dims as the session says) and
 * returns its first output (malloc'ed, *n_y values; NULL when the run fails). */
static inline float *tg_run_session(vkml_session *s, const float *x, size_t n_x, size_t *n_y)
{
    vkml_error err = {0};
    const vkml_tensor_info *info = vkml_session_input(s, 0);
    vkml_tensor in = {.dtype = VKML_DTYPE_FLOAT,
                      .rank = info->rank,
                      .data = (void *)x,
                      .size = n_x * sizeof(float)};
    memcpy(in.dims, info->dims, sizeof(in.dims));
    vkml_tensor out = {0};
    CHECK_OK(vkml_session_alloc_output(s, 0, &out, &err), &err);
    CHECK_OK(vkml_session_run(s, &in, 1, &out, 1, &err), &err);
    *n_y = vkml_tensor_element_count(out.rank, out.dims);
    return out.data;
}
