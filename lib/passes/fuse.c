/* Load-time fusion passes over a model's graph (shape-independent rewrites). */
#include "passes/fuse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int *fuse_count_readers(const graph *g)
{
    int *readers = calloc((size_t)g->n_values + 1, sizeof(int));
    for (int i = 0; readers && i < g->n_nodes; i++)
        for (int k = 0; k < g->nodes[i].n_inputs; k++)
            if (g->nodes[i].inputs[k] >= 0)
                readers[g->nodes[i].inputs[k]]++;
    return readers;
}

/* A float32 constant of rank 1 with n elements, or NULL. */
static const float *const_vector(const graph *g, int v, int64_t n)
{
    if (v < 0)
        return NULL;
    const graph_value *val = &g->values[v];
    if (val->kind != GRAPH_VALUE_CONSTANT || !val->data || val->dtype != VKML_DTYPE_FLOAT ||
        val->rank != 1 || val->dims[0] != n || val->data_size < (size_t)n * sizeof(float))
        return NULL;
    return val->data;
}

bool fuse_is_op(const graph_node *n, const char *op)
{
    return !n->domain[0] && strcmp(n->op_type, op) == 0;
}

bool fuse_scalar_value(const graph_value *v, float *out)
{
    bool half = v->dtype == VKML_DTYPE_FLOAT16;
    if (!v->data || (v->dtype != VKML_DTYPE_FLOAT && !half) ||
        vkml_tensor_element_count(v->rank, v->dims) != 1 ||
        v->data_size < (half ? sizeof(uint16_t) : sizeof(float)))
        return false;
    if (half) /* exact in float32 */
        *out = vkml_half_to_float(*(const uint16_t *)v->data);
    else
        memcpy(out, v->data, sizeof(float));
    return true;
}

int fuse_new_constant(graph *g, const char *base, const char *suffix, int rank, const int64_t *dims,
                      float **data)
{
    char name[512];
    snprintf(name, sizeof(name), "%s%s", base, suffix);
    size_t n = vkml_tensor_element_count(rank, dims);
    *data = vkml_arena_calloc(g->arena, n ? n : 1, sizeof(float));
    int v = *data ? graph_add_value(g, name) : -1;
    if (v < 0)
        return -1;
    graph_value *val = &g->values[v];
    val->kind = GRAPH_VALUE_CONSTANT;
    val->dtype = VKML_DTYPE_FLOAT;
    val->rank = rank;
    memcpy(val->dims, dims, sizeof(int64_t) * (size_t)rank);
    val->data = *data;
    val->data_size = n * sizeof(float);
    return v;
}

/* Folds BatchNormalization node `bn` into the Conv `conv` producing its input:
 * W'[c] = W[c] * k[c], b'[c] = (b[c] - mean[c]) * k[c] + beta[c], k = scale / sqrt(var+eps).
 * Returns whether it did (false: the pattern does not hold; nothing changed). */
static bool fold_one(graph *g, int conv, int bn, const int *readers)
{
    graph_node *c = &g->nodes[conv], *b = &g->nodes[bn];
    if (c->n_outputs != 1 || readers[c->outputs[0]] != 1 || g->values[c->outputs[0]].is_output)
        return false;
    for (int o = 1; o < b->n_outputs; o++)
        if (b->outputs[o] >= 0)
            return false; /* training outputs */
    const graph_attr *tm = graph_node_attr(b, "training_mode");
    if (b->n_inputs != 5 || (tm && tm->i != 0) || c->n_inputs < 2)
        return false;
    const graph_value *w = &g->values[c->inputs[1]];
    if (w->kind != GRAPH_VALUE_CONSTANT || !w->data || w->dtype != VKML_DTYPE_FLOAT ||
        w->rank < 3 || w->dims[0] <= 0)
        return false;
    int64_t ch = w->dims[0];
    size_t per = vkml_tensor_element_count(w->rank, w->dims) / (size_t)ch;
    if (w->data_size < per * (size_t)ch * sizeof(float))
        return false;
    const float *scale = const_vector(g, b->inputs[1], ch),
                *beta = const_vector(g, b->inputs[2], ch),
                *mean = const_vector(g, b->inputs[3], ch), *var = const_vector(g, b->inputs[4], ch);
    const float *bias = c->n_inputs > 2 ? const_vector(g, c->inputs[2], ch) : NULL;
    if (!scale || !beta || !mean || !var || (c->n_inputs > 2 && c->inputs[2] >= 0 && !bias))
        return false;
    float eps = graph_attr_float(b, "epsilon", 1e-5f);
    float *wd, *bd;
    int64_t bdims[1] = {ch};
    const float *src = w->data; /* read before adding values: the array may move */
    int64_t wdims[VKML_MAX_RANK];
    int wrank = w->rank;
    memcpy(wdims, w->dims, sizeof(wdims));
    const char *wname = w->name;
    int nw = fuse_new_constant(g, wname, "_bnfold", wrank, wdims, &wd);
    int nb = nw >= 0 ? fuse_new_constant(g, wname, "_bnfold_bias", 1, bdims, &bd) : -1;
    if (nb < 0)
        return false;
    for (int64_t k = 0; k < ch; k++) {
        float f = scale[k] / sqrtf(var[k] + eps);
        for (size_t j = 0; j < per; j++)
            wd[(size_t)k * per + j] = src[(size_t)k * per + j] * f;
        bd[k] = ((bias ? bias[k] : 0.0f) - mean[k]) * f + beta[k];
    }
    int *inputs = vkml_arena_calloc(g->arena, 3, sizeof(int));
    if (!inputs)
        return false;
    inputs[0] = c->inputs[0];
    inputs[1] = nw;
    inputs[2] = nb;
    c->inputs = inputs;
    c->n_inputs = 3;
    c->outputs[0] = b->outputs[0];
    b->n_inputs = 0; /* marked for removal */
    b->n_outputs = 0;
    b->op_type = "";
    return true;
}

void fuse_compact(graph *g)
{
    int kept = 0;
    for (int i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].op_type[0])
            g->nodes[kept++] = g->nodes[i];
    g->n_nodes = kept;
}

vkml_status fuse_finish(graph *g, int fused, int *n_fused, vkml_error *err)
{
    if (n_fused)
        *n_fused = fused;
    if (!fused)
        return VKML_OK;
    fuse_compact(g);
    return graph_sort(g, err);
}

vkml_status graph_fuse_conv_batchnorm(graph *g, int *n_fused, vkml_error *err)
{
    int fused = 0;
    int *readers = fuse_count_readers(g);
    if (!readers)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory fusing BatchNormalization");
    for (int i = 0; i < g->n_nodes; i++) {
        graph_node *n = &g->nodes[i];
        if (!fuse_is_op(n, "BatchNormalization") || n->n_inputs < 1 || n->inputs[0] < 0)
            continue;
        int producer = g->values[n->inputs[0]].producer;
        if (producer >= 0 && fuse_is_op(&g->nodes[producer], "Conv") &&
            fold_one(g, producer, i, readers))
            fused++;
    }
    free(readers);
    return fuse_finish(g, fused, n_fused, err);
}
