/* Small remaining ops: BitCast, ReverseSequence, RotaryEmbedding, Det, TensorScatter (see
 * misc.h). */
#include "ops/misc.h"
#include "ops/op_decls.h"
#include "ops/reduce.h" /* reduce_axis */

#include <string.h>

/* BitCast */

vkml_status bitcast_parse(const graph_node *node, void *params, vkml_error *err)
{
    bitcast_params *p = params;
    static const op_attr_spec specs[] = {{"to", GRAPH_ATTR_INT}};
    vkml_status st = op_check_attr_types(node, specs, 1, err);
    if (st)
        return st;
    int64_t to = graph_attr_int(node, "to", 0);
    if (!graph_node_attr(node, "to") || to <= 0 || to > 64 ||
        vkml_dtype_size((vkml_dtype)to) == 0 || to == VKML_DTYPE_STRING)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "BitCast: 'to' (%lld) is not a known "
                         "fixed-size type",
                         (long long)to);
    p->to = (vkml_dtype)to;
    return VKML_OK;
}

vkml_status bitcast_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    const bitcast_params *p = node->params;
    vkml_status st;
    if ((st = op_require_counts(node, 1, 1, 1, err)) ||
        (st = op_require_input(values, node, 0, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]];
    if (vkml_dtype_size(x->dtype) != vkml_dtype_size(p->to))
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "BitCast: %s to %s changes the element size (not supported)",
                         vkml_dtype_name(x->dtype), vkml_dtype_name(p->to));
    op_set_output(values, node, 0, p->to, x->rank, x->dims);
    return VKML_OK;
}

/* ReverseSequence */

vkml_status revseq_parse(const graph_node *node, void *params, vkml_error *err)
{
    revseq_params *p = params;
    static const op_attr_spec specs[] = {{"batch_axis", GRAPH_ATTR_INT},
                                         {"time_axis", GRAPH_ATTR_INT}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    p->batch_axis = graph_attr_int(node, "batch_axis", 1);
    p->time_axis = graph_attr_int(node, "time_axis", 0);
    if (!st &&
        !((p->batch_axis == 0 && p->time_axis == 1) || (p->batch_axis == 1 && p->time_axis == 0)))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "ReverseSequence: batch_axis %lld and time_axis %lld must be 0 and 1",
                         (long long)p->batch_axis, (long long)p->time_axis);
    return st;
}

vkml_status revseq_resolve(const graph_value *values, const graph_node *node, revseq_geom *g,
                           vkml_error *err)
{
    const revseq_params *p = node->params;
    vkml_status st;
    if ((st = op_require_counts(node, 2, 2, 1, err)) ||
        (st = op_require_input(values, node, 0, err)) ||
        (st = op_require_input(values, node, 1, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]], *lens = &values[node->inputs[1]];
    if (x->rank < 2)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "ReverseSequence: input '%s' needs "
                         "rank >= 2",
                         x->name);
    g->batch_axis = (int)p->batch_axis;
    g->time_axis = (int)p->time_axis;
    g->batch = x->dims[g->batch_axis];
    g->time = x->dims[g->time_axis];
    if (lens->dtype != VKML_DTYPE_INT64 || lens->rank != 1 || lens->dims[0] != g->batch)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "ReverseSequence: sequence_lens '%s' must be int64 [%lld]", lens->name,
                         (long long)g->batch);
    return VKML_OK;
}

vkml_status revseq_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    revseq_geom g;
    vkml_status st = revseq_resolve(values, node, &g, err);
    if (st)
        return st;
    const graph_value *x = &values[node->inputs[0]];
    op_set_output(values, node, 0, x->dtype, x->rank, x->dims);
    return VKML_OK;
}

/* RotaryEmbedding */

vkml_status rotary_parse(const graph_node *node, void *params, vkml_error *err)
{
    rotary_params *p = params;
    static const op_attr_spec specs[] = {{"interleaved", GRAPH_ATTR_INT},
                                         {"rotary_embedding_dim", GRAPH_ATTR_INT},
                                         {"num_heads", GRAPH_ATTR_INT}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    p->interleaved = graph_attr_int(node, "interleaved", 0) != 0;
    p->rotary_dim = graph_attr_int(node, "rotary_embedding_dim", 0);
    p->num_heads = graph_attr_int(node, "num_heads", 0);
    if (!st && (p->rotary_dim < 0 || p->num_heads < 0))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "RotaryEmbedding: rotary_embedding_dim and num_heads must be >= 0");
    return st;
}

/* Checks cos/sin (inputs 1, 2) are [rows, rot / 2] with position_ids, else
 * [batch, seq, rot / 2]. */
static vkml_status rotary_caches(const graph_value *values, const graph_node *node, rotary_geom *g,
                                 vkml_error *err)
{
    bool has_pos = node->n_inputs > 3 && node->inputs[3] >= 0;
    for (int i = 1; i <= 2; i++) {
        const graph_value *c = &values[node->inputs[i]];
        bool ok = c->rank >= 2 && c->dtype == values[node->inputs[0]].dtype &&
                  c->dims[c->rank - 1] == g->rot / 2;
        ok = ok && (has_pos ? c->rank == 2
                            : c->rank == 3 && c->dims[0] == g->batch && c->dims[1] == g->seq);
        if (!ok)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "RotaryEmbedding: cache '%s' must be %s x %lld of the input's type",
                             c->name, has_pos ? "[positions]" : "[batch, seq]",
                             (long long)(g->rot / 2));
        g->cache_rows = has_pos ? c->dims[0] : 0;
    }
    if (has_pos) {
        const graph_value *pos = &values[node->inputs[3]];
        if (pos->dtype != VKML_DTYPE_INT64 || pos->rank != 2 || pos->dims[0] != g->batch ||
            pos->dims[1] != g->seq)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "RotaryEmbedding: position_ids '%s' must be int64 [batch, seq]",
                             pos->name);
    }
    return VKML_OK;
}

vkml_status rotary_resolve(const graph_value *values, const graph_node *node, rotary_geom *g,
                           vkml_error *err)
{
    const rotary_params *p = node->params;
    vkml_status st;
    if ((st = op_require_counts(node, 3, 4, 1, err)))
        return st;
    for (int i = 0; i < node->n_inputs; i++)
        if (node->inputs[i] >= 0 && (st = op_require_input(values, node, i, err)))
            return st;
    const graph_value *x = &values[node->inputs[0]];
    if (x->rank == 4) {
        g->batch = x->dims[0], g->heads = x->dims[1], g->seq = x->dims[2], g->head = x->dims[3];
        g->s_stride = g->head;
        g->h_stride = g->seq * g->head;
    } else if (x->rank == 3 && p->num_heads > 0 && x->dims[2] % p->num_heads == 0) {
        g->batch = x->dims[0], g->seq = x->dims[1], g->heads = p->num_heads;
        g->head = x->dims[2] / p->num_heads;
        g->h_stride = g->head;
        g->s_stride = x->dims[2];
    } else {
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "RotaryEmbedding: input '%s' must be 4-D, or 3-D with num_heads "
                         "dividing its last dim",
                         x->name);
    }
    g->b_stride = g->heads * g->seq * g->head;
    g->rot = p->rotary_dim ? p->rotary_dim : g->head;
    if (g->rot > g->head || g->rot % 2)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "RotaryEmbedding: rotary_embedding_dim %lld must be even and at most "
                         "the head size %lld",
                         (long long)g->rot, (long long)g->head);
    return rotary_caches(values, node, g, err);
}

vkml_status rotary_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    rotary_geom g;
    vkml_status st = rotary_resolve(values, node, &g, err);
    if (st)
        return st;
    const graph_value *x = &values[node->inputs[0]];
    op_set_output(values, node, 0, x->dtype, x->rank, x->dims);
    return VKML_OK;
}

/* Det */

vkml_status det_resolve(const graph_value *values, const graph_node *node, int64_t *count,
                        int64_t *m, vkml_error *err)
{
    vkml_status st;
    if ((st = op_require_counts(node, 1, 1, 1, err)) ||
        (st = op_require_input(values, node, 0, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]];
    if (x->rank < 2 || x->dims[x->rank - 1] != x->dims[x->rank - 2])
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Det: input '%s' must be [..., M, M]",
                         x->name);
    *m = x->dims[x->rank - 1];
    *count = (int64_t)vkml_tensor_element_count(x->rank - 2, x->dims);
    return VKML_OK;
}

vkml_status det_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    int64_t count, m;
    vkml_status st = det_resolve(values, node, &count, &m, err);
    if (st)
        return st;
    const graph_value *x = &values[node->inputs[0]];
    op_set_output(values, node, 0, x->dtype, x->rank - 2, x->dims);
    return VKML_OK;
}

/* TensorScatter */

vkml_status tscatter_parse(const graph_node *node, void *params, vkml_error *err)
{
    tscatter_params *p = params;
    static const op_attr_spec specs[] = {{"axis", GRAPH_ATTR_INT}, {"mode", GRAPH_ATTR_STRING}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    if (st)
        return st;
    p->axis = graph_attr_int(node, "axis", -2);
    const char *mode = graph_attr_string(node, "mode", "linear");
    p->circular = strcmp(mode, "circular") == 0;
    if (!p->circular && strcmp(mode, "linear"))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "TensorScatter: mode '%s' is not linear or circular", mode);
    return VKML_OK;
}

vkml_status tscatter_resolve(const graph_value *values, const graph_node *node, tscatter_geom *g,
                             vkml_error *err)
{
    const tscatter_params *p = node->params;
    vkml_status st;
    if ((st = op_require_counts(node, 2, 3, 1, err)) ||
        (st = op_require_input(values, node, 0, err)) ||
        (st = op_require_input(values, node, 1, err)))
        return st;
    const graph_value *cache = &values[node->inputs[0]], *up = &values[node->inputs[1]];
    int a = 0;
    if ((st = reduce_axis(node, "axis", p->axis, cache->rank, &a, err)))
        return st;
    if (a == 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "TensorScatter: axis is the batch axis");
    bool ok = up->rank == cache->rank && up->dtype == cache->dtype;
    for (int d = 0; ok && d < cache->rank; d++)
        ok = d == a ? up->dims[d] <= cache->dims[d] : up->dims[d] == cache->dims[d];
    if (!ok)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "TensorScatter: update '%s' must match the cache '%s' but along axis "
                         "%d, where it may be shorter",
                         up->name, cache->name, a);
    g->batch = cache->dims[0];
    g->outer = (int64_t)vkml_tensor_element_count(a - 1, cache->dims + 1);
    g->max_seq = cache->dims[a];
    g->seq = up->dims[a];
    g->inner = (int64_t)vkml_tensor_element_count(cache->rank - a - 1, cache->dims + a + 1);
    if (node->n_inputs > 2 && node->inputs[2] >= 0) {
        const graph_value *wi = &values[node->inputs[2]];
        if (wi->dtype != VKML_DTYPE_INT64 || wi->rank != 1 || wi->dims[0] != g->batch)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "TensorScatter: write_indices '%s' must be int64 [%lld]", wi->name,
                             (long long)g->batch);
    }
    return VKML_OK;
}

vkml_status tscatter_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    tscatter_geom g;
    vkml_status st = tscatter_resolve(values, node, &g, err);
    if (st)
        return st;
    const graph_value *cache = &values[node->inputs[0]];
    op_set_output(values, node, 0, cache->dtype, cache->rank, cache->dims);
    return VKML_OK;
}
