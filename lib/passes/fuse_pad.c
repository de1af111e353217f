/*
 * Pad folding at load: a Pad of zeros along the spatial axes read only by a Conv or an
 * AveragePool becomes that node's padding. PyTorch exports avg_pool2d(padding=p) (with
 * count_include_pad, its default) as Pad then AveragePool, and some exporters write a
 * convolution's asymmetric padding as a Pad: each is a pass over memory and a buffer
 * that the consumer's own padding does without.
 *
 * Exact: a Conv's padding is zeros; an AveragePool with count_include_pad counts padded
 * elements in its divisor, as the padded tensor's windows do (ceil_mode 0, so no window
 * reaches past the padding).
 */
#include "passes/fuse.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The int64 data of constant value v, or of the Constant node that makes it (its `value`
 * tensor or `value_ints`); NULL when v is neither. *count: its elements. */
static const int64_t *const_ints(const graph *g, int v, size_t *count)
{
    if (v < 0)
        return NULL;
    const graph_value *val = &g->values[v];
    if (val->kind == GRAPH_VALUE_CONSTANT) {
        if (val->dtype != VKML_DTYPE_INT64 || val->rank != 1 || !val->data ||
            val->data_size < (size_t)val->dims[0] * sizeof(int64_t))
            return NULL;
        *count = (size_t)val->dims[0];
        return val->data;
    }
    if (val->producer < 0 || !fuse_is_op(&g->nodes[val->producer], "Constant"))
        return NULL;
    const graph_node *c = &g->nodes[val->producer];
    const graph_attr *t = graph_node_attr(c, "value");
    if (t && t->type == GRAPH_ATTR_TENSOR && t->tensor && t->tensor->dtype == VKML_DTYPE_INT64 &&
        t->tensor->rank == 1 && t->tensor->size >= (size_t)t->tensor->dims[0] * sizeof(int64_t)) {
        *count = (size_t)t->tensor->dims[0];
        return t->tensor->data;
    }
    return graph_attr_ints(c, "value_ints", count);
}

/* Whether value v is a constant (or Constant node's tensor) whose bytes are all zero. */
static bool const_zero(const graph *g, int v)
{
    const graph_value *val = &g->values[v];
    const void *data = NULL;
    size_t size = 0;
    if (val->kind == GRAPH_VALUE_CONSTANT) {
        data = val->data, size = val->data_size;
    } else if (val->producer >= 0 && fuse_is_op(&g->nodes[val->producer], "Constant")) {
        const graph_attr *t = graph_node_attr(&g->nodes[val->producer], "value");
        if (t && t->type == GRAPH_ATTR_TENSOR && t->tensor)
            data = t->tensor->data, size = t->tensor->size;
    }
    if (!data || !size)
        return false;
    for (size_t i = 0; i < size; i++)
        if (((const unsigned char *)data)[i])
            return false;
    return true;
}

/* The pads of Pad node p (begins then ends, 2 x rank), with *rank; NULL unless it pads
 * with zeros in constant mode along every axis given. */
static const int64_t *zero_pads(const graph *g, const graph_node *p, int *rank)
{
    const char *mode = graph_attr_string(p, "mode", "constant");
    if (strcmp(mode, "constant") != 0 || p->n_outputs < 1 || p->n_inputs < 1)
        return NULL;
    size_t count = 0;
    const int64_t *pads;
    if (p->opset < 11) {
        if (graph_attr_float(p, "value", 0.0f) != 0.0f)
            return NULL;
        pads = graph_attr_ints(p, p->opset < 2 ? "paddings" : "pads", &count);
    } else {
        if (p->n_inputs < 2 ||
            (p->n_inputs > 2 && p->inputs[2] >= 0 && !const_zero(g, p->inputs[2])))
            return NULL;
        if (p->n_inputs > 3 && p->inputs[3] >= 0)
            return NULL; /* axes (opset 18): the pads of some axes only */
        pads = const_ints(g, p->inputs[1], &count);
    }
    if (!pads || count % 2 || count < 6 || count > 2 * VKML_MAX_RANK)
        return NULL;
    *rank = (int)(count / 2);
    return pads;
}

/* Folds Pad node `pi` into its one reader `ci` (Conv or AveragePool) when the pattern
 * holds; false (nothing changed) otherwise. */
static bool fold_one(graph *g, int pi, int ci, const int *readers)
{
    graph_node *p = &g->nodes[pi], *c = &g->nodes[ci];
    int rank;
    const int64_t *pads = zero_pads(g, p, &rank);
    bool pool = fuse_is_op(c, "AveragePool");
    if (!pads || c->n_inputs < 1 || c->inputs[0] != p->outputs[0] || (pool && c->opset < 7))
        return false;
    int s = rank - 2; /* spatial axes */
    for (int i = 0; i < rank; i++)
        if (pads[i] < 0 || pads[rank + i] < 0 || pads[i] > INT32_MAX ||
            pads[rank + i] > INT32_MAX || (i < 2 && (pads[i] || pads[rank + i])))
            return false;
    const char *auto_pad = graph_attr_string(c, "auto_pad", "NOTSET");
    if (strcmp(auto_pad, "NOTSET") != 0)
        return false;
    size_t n_old = 0;
    const int64_t *old = graph_attr_ints(c, "pads", &n_old);
    if (old && n_old != (size_t)(2 * s))
        return false;
    bool old_zero = true;
    for (size_t i = 0; old && i < n_old; i++) {
        if (old[i] < 0 || old[i] > INT32_MAX)
            return false; /* the op's own checks name it */
        old_zero = old_zero && old[i] == 0;
    }
    /* An AveragePool whose own padding is left out of its divisor would count the Pad's. */
    if (pool && ((!old_zero && !graph_attr_int(c, "count_include_pad", 0)) ||
                 graph_attr_int(c, "ceil_mode", 0)))
        return false;
    int64_t *merged = vkml_arena_calloc(g->arena, (size_t)(2 * s), sizeof(int64_t));
    graph_attr *attrs = vkml_arena_calloc(g->arena, (size_t)c->n_attrs + 2, sizeof(graph_attr));
    if (!merged || !attrs)
        return false;
    for (int i = 0; i < s; i++) {
        merged[i] = (old ? old[i] : 0) + pads[2 + i];
        merged[s + i] = (old ? old[s + i] : 0) + pads[rank + 2 + i];
    }
    int n = 0;
    for (int a = 0; a < c->n_attrs; a++)
        if (strcmp(c->attrs[a].name, "pads") != 0 &&
            strcmp(c->attrs[a].name, "count_include_pad") != 0)
            attrs[n++] = c->attrs[a];
    attrs[n++] = (graph_attr){
        .name = "pads", .type = GRAPH_ATTR_INTS, .ints = merged, .count = (size_t)(2 * s)};
    if (pool)
        attrs[n++] = (graph_attr){.name = "count_include_pad", .type = GRAPH_ATTR_INT, .i = 1};
    c->attrs = attrs;
    c->n_attrs = n;
    c->inputs[0] = p->inputs[0];
    /* The Constant nodes that gave only this Pad its pads and value go with it. */
    for (int k = 1; k < p->n_inputs && k < 3; k++) {
        int v = p->inputs[k], made = v >= 0 ? g->values[v].producer : -1;
        if (made >= 0 && readers[v] == 1 && !g->values[v].is_output &&
            fuse_is_op(&g->nodes[made], "Constant")) {
            g->nodes[made].n_outputs = 0;
            g->nodes[made].op_type = "";
        }
    }
    p->n_inputs = 0; /* marked for removal */
    p->n_outputs = 0;
    p->op_type = "";
    return true;
}

vkml_status graph_fuse_pads(graph *g, int *n_fused, vkml_error *err)
{
    int fused = 0;
    int *readers = fuse_count_readers(g);
    if (!readers)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory folding Pad nodes");
    for (int i = 0; i < g->n_nodes; i++) {
        graph_node *c = &g->nodes[i];
        if ((!fuse_is_op(c, "Conv") && !fuse_is_op(c, "AveragePool")) || c->n_inputs < 1 ||
            c->inputs[0] < 0)
            continue;
        int v = c->inputs[0], producer = g->values[v].producer;
        if (producer >= 0 && readers[v] == 1 && !g->values[v].is_output &&
            fuse_is_op(&g->nodes[producer], "Pad") && fold_one(g, producer, i, readers))
            fused++;
    }
    free(readers);
    return fuse_finish(g, fused, n_fused, err);
}
