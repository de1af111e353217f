/* vkml_session_params.preprocess: the session's own graph, the model's with its input 0
 * produced by a com.vkml.ImagePreprocess node whose input is the frame's bytes. The model's
 * nodes, names and constants are shared (the session holds the model); only the value,
 * node and input arrays are the session's. */
#include "plan/session_preprocess.h"
#include "ops/preprocess.h"

#include <stdlib.h>
#include <string.h>

#define FRAME_VALUE_NAME "vkml_frame"
#define RECT_VALUE_NAME "vkml_source_rect"

/* The model input 0's shape the session binds: input_shapes[0] where given, the model's
 * fixed dims, `symbolic` for the rest. */
static void bound_shape(const graph_value *v, const vkml_tensor_info *given, int64_t symbolic,
                        int64_t dims[VKML_MAX_RANK])
{
    for (int d = 0; d < v->rank && d < VKML_MAX_RANK; d++) {
        dims[d] = v->dims[d];
        if (given && given->rank == v->rank && given->dims[d] >= 0)
            dims[d] = given->dims[d];
        if (dims[d] < 0)
            dims[d] = symbolic;
    }
}

/* Params for an image input of `dims` (rank 4, batch N, NCHW or NHWC, C 1 or 3; or rank
 * 3, one image CHW or HWC). */
static vkml_status image_params(const graph_value *v, const int64_t *given,
                                const vkml_preprocess *pp, preprocess_params *p, vkml_error *err)
{
    char shape[160];
    int64_t dims[4] = {1, 0, 0, 0};
    graph_shape_string(v->rank, given, shape, sizeof(shape));
    p->unbatched = v->rank == 3;
    memcpy(p->unbatched ? dims + 1 : dims, given, sizeof(int64_t) * (p->unbatched ? 3 : 4));
    if ((v->rank != 4 && v->rank != 3) || dims[0] < 1 || dims[0] > PREPROCESS_MAX_BATCH)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "pre-processing: input 0 '%s' is %s; an image input is [N,C,H,W] or "
                         "[N,H,W,C], N 1 .. %d, or one image [C,H,W] or [H,W,C] (bind "
                         "symbolic dims with input_shapes)",
                         v->name, shape, PREPROCESS_MAX_BATCH);
    p->batch = (int)dims[0];
    if (dims[1] == 1 || dims[1] == 3) {
        p->layout = PREPROCESS_NCHW;
        p->channels = (int)dims[1];
        p->height = dims[2] <= VKML_PREPROCESS_MAX_SIDE ? (int)dims[2] : 0;
        p->width = dims[3] <= VKML_PREPROCESS_MAX_SIDE ? (int)dims[3] : 0;
    } else if (dims[3] == 1 || dims[3] == 3) {
        p->layout = PREPROCESS_NHWC;
        p->channels = (int)dims[3];
        p->height = dims[1] <= VKML_PREPROCESS_MAX_SIDE ? (int)dims[1] : 0;
        p->width = dims[2] <= VKML_PREPROCESS_MAX_SIDE ? (int)dims[2] : 0;
    } else {
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "pre-processing: input 0 '%s' is %s: neither NCHW nor NHWC with 1 or 3 "
                         "channels",
                         v->name, shape);
    }
    p->frame = *pp;
    p->dtype = v->dtype;
    return preprocess_check(p, err);
}

vkml_status session_preprocess_graph(const graph *g, const vkml_preprocess *pp,
                                     const vkml_tensor_info *input_shapes, int64_t symbolic,
                                     graph **out, vkml_error *err)
{
    *out = NULL;
    if (g->n_inputs < 1)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "pre-processing: the model has no input to feed");
    int v0 = g->inputs[0];
    int64_t dims[VKML_MAX_RANK] = {0};
    bound_shape(&g->values[v0], input_shapes ? &input_shapes[0] : NULL, symbolic, dims);
    graph *s = graph_create();
    if (!s)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory for pre-processing");
    int extra = pp->rect_input ? 2 : 1; /* the frame, and the rectangle */
    preprocess_params *p = vkml_arena_calloc(s->arena, 1, sizeof(*p));
    int *node_io = vkml_arena_calloc(s->arena, 3, sizeof(int));
    s->inputs = vkml_arena_calloc(s->arena, (size_t)g->n_inputs + 1, sizeof(int));
    s->outputs = vkml_arena_calloc(s->arena, (size_t)g->n_outputs + 1, sizeof(int));
    s->values = calloc((size_t)g->n_values + (size_t)extra, sizeof(graph_value));
    s->nodes = calloc((size_t)g->n_nodes + 1, sizeof(graph_node));
    const char *frame_name = vkml_arena_strdup(s->arena, FRAME_VALUE_NAME);
    const char *rect_name = vkml_arena_strdup(s->arena, RECT_VALUE_NAME);
    if (!p || !node_io || !s->inputs || !s->outputs || !s->values || !s->nodes || !frame_name ||
        !rect_name) {
        graph_destroy(&s);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory for pre-processing");
    }
    vkml_status st = image_params(&g->values[v0], dims, pp, p, err);
    if (st) {
        graph_destroy(&s);
        return st;
    }
    /* values: the model's, input 0 now an intermediate, and the frame last */
    memcpy(s->values, g->values, (size_t)g->n_values * sizeof(graph_value));
    int frame = g->n_values, rect = g->n_values + 1;
    s->n_values = s->cap_values = g->n_values + extra;
    for (int v = 0; v < g->n_values; v++)
        if (s->values[v].producer >= 0)
            s->values[v].producer++;
    graph_value *x = &s->values[v0];
    x->kind = GRAPH_VALUE_INTERMEDIATE;
    x->producer = 0;
    graph_value *fv = &s->values[frame];
    fv->name = frame_name;
    fv->kind = GRAPH_VALUE_INPUT;
    fv->dtype = VKML_DTYPE_UINT8;
    /* batch 1: [bytes]; batch N: [N, bytes], each frame rounded up to 4 bytes */
    fv->rank = p->batch > 1 ? 2 : 1;
    fv->dims[0] = p->batch;
    fv->dims[fv->rank - 1] = (int64_t)preprocess_input_bytes(pp);
    fv->producer = -1;
    if (pp->rect_input) {
        graph_value *rv = &s->values[rect];
        rv->name = rect_name;
        rv->kind = GRAPH_VALUE_INPUT;
        rv->dtype = VKML_DTYPE_INT32;
        rv->rank = 1;
        rv->dims[0] = PREPROCESS_RECT_INTS;
        rv->producer = -1;
    }
    /* nodes: the pre-processing first (it reads only the frame), then the model's */
    memcpy(s->nodes + 1, g->nodes, (size_t)g->n_nodes * sizeof(graph_node));
    s->n_nodes = s->cap_nodes = g->n_nodes + 1;
    node_io[0] = frame;
    node_io[1] = rect;
    node_io[2] = v0;
    s->nodes[0] = (graph_node){.name = "vkml_preprocess",
                               .op_type = "ImagePreprocess",
                               .domain = "com.vkml",
                               .opset = 1,
                               .inputs = &node_io[0],
                               .n_inputs = extra,
                               .outputs = &node_io[2],
                               .n_outputs = 1,
                               .op = op_find("com.vkml", "ImagePreprocess"),
                               .params = p};
    memcpy(s->inputs, g->inputs, (size_t)g->n_inputs * sizeof(int));
    s->inputs[0] = frame;
    s->n_inputs = g->n_inputs;
    if (pp->rect_input)
        s->inputs[s->n_inputs++] = rect; /* last, after the model's other inputs */
    memcpy(s->outputs, g->outputs, (size_t)g->n_outputs * sizeof(int));
    s->n_outputs = g->n_outputs;
    s->opset = g->opset;
    *out = s;
    return VKML_OK;
}
