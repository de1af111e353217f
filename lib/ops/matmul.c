#include "ops/matmul.h"
#include "ops/epilogue.h"
#include "ops/op_decls.h"

#include <string.h>

/* MatMul (opset 9+) and Gemm (opset 11+; bfloat16 from 13) take these. */
static const vkml_dtype matmul_dtypes[] = {
    VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16, VKML_DTYPE_DOUBLE, VKML_DTYPE_BFLOAT16,
    VKML_DTYPE_INT32, VKML_DTYPE_INT64,   VKML_DTYPE_UINT32, VKML_DTYPE_UINT64,
};

/* Inputs [0, count) present, known, of one dtype the products take. */
static vkml_status check_inputs(const graph_value *values, const graph_node *node, int count,
                                vkml_error *err)
{
    vkml_status st;
    for (int i = 0; i < count; i++) {
        if ((st = op_require_input(values, node, i, err)) ||
            (st = op_require_dtype(values, node, i, matmul_dtypes, VKML_ARRAY_SIZE(matmul_dtypes),
                                   err)))
            return st;
        const graph_value *v = &values[node->inputs[i]], *a = &values[node->inputs[0]];
        if (v->dtype != a->dtype)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "%s: input %d '%s' is %s, input 0 '%s' %s", node->op_type, i, v->name,
                             vkml_dtype_name(v->dtype), a->name, vkml_dtype_name(a->dtype));
    }
    return VKML_OK;
}

/* Batch dims of an operand (all but the last two; none for 1-D or 2-D). */
static int batch_rank(const graph_value *v)
{
    return v->rank > 2 ? v->rank - 2 : 0;
}

/* Input k of MatMul node as its product reads it: the stored value, or the logical value of
 * its view (graph_epilogue.view: dims, into *logical) with each dim's element stride in the
 * stored value (strides; 0 for an added dim of size 1). NULL when the view does not fit the
 * stored value (a dim it drops is not of size 1). */
static const graph_value *operand_of(const graph_value *values, const graph_node *node, int k,
                                     graph_value *logical, int64_t *strides)
{
    const graph_value *v = &values[node->inputs[k]];
    const graph_epilogue *e = node->epilogue;
    int rank = e ? e->view_rank[k] : 0;
    int64_t step = 1, stored[VKML_MAX_RANK];
    for (int d = v->rank - 1; d >= 0; d--) {
        stored[d] = step;
        step *= v->dims[d];
    }
    if (!rank) {
        for (int d = 0; d < v->rank; d++)
            strides[d] = stored[d];
        return v;
    }
    bool used[VKML_MAX_RANK] = {false};
    *logical = *v;
    logical->rank = rank;
    for (int j = 0; j < rank; j++) {
        int src = e->view[k][j];
        if (src >= v->rank || (src >= 0 && used[src]))
            return NULL;
        logical->dims[j] = src < 0 ? 1 : v->dims[src];
        strides[j] = src < 0 ? 0 : stored[src];
        if (src >= 0)
            used[src] = true;
    }
    for (int d = 0; d < v->rank; d++)
        if (!used[d] && v->dims[d] != 1)
            return NULL;
    return logical;
}

/* The batch strides (elements) of an operand of `rank` dims with element strides `strides`
 * over the output's batch dims: 0 where it broadcasts. */
static void view_batch_strides(int rank, const int64_t *dims, const int64_t *strides,
                               const matmul_params *p, int64_t *out)
{
    int own = rank - 2 > 0 ? rank - 2 : 0;
    for (int d = p->batch_rank - 1; d >= 0; d--) {
        int src = d - (p->batch_rank - own);
        out[d] = src < 0 || (dims[src] == 1 && p->batch_dims[d] != 1) ? 0 : strides[src];
    }
}

vkml_status matmul_params_parse(const graph_value *values, const graph_node *node, matmul_params *p,
                                vkml_error *err)
{
    vkml_status st;
    if ((st = op_require_counts(node, 2, 2, 1, err)) || (st = check_inputs(values, node, 2, err)))
        return st;
    graph_value la, lb;
    int64_t sa[VKML_MAX_RANK], sb[VKML_MAX_RANK];
    const graph_value *a = operand_of(values, node, 0, &la, sa),
                      *b = operand_of(values, node, 1, &lb, sb);
    if (!a || !b)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: an absorbed transpose no longer fits its input's shape",
                         node->op_type);
    if ((st = matmul_shape_parse(node, a, b, p, err)))
        return st;
    const graph_epilogue *e = node->epilogue;
    if (e && e->view_rank[0] > 1) {
        p->a_sm = sa[a->rank - 2];
        p->a_sk = sa[a->rank - 1];
        view_batch_strides(a->rank, a->dims, sa, p, p->a_batch_strides);
    }
    if (e && e->view_rank[1] > 1) {
        p->b_sk = sb[b->rank - 2];
        p->b_sn = sb[b->rank - 1];
        view_batch_strides(b->rank, b->dims, sb, p, p->b_batch_strides);
    }
    return VKML_OK;
}

vkml_status matmul_shape_parse(const graph_node *node, const graph_value *a, const graph_value *b,
                               matmul_params *p, vkml_error *err)
{
    char sa[160], sb[160];
    vkml_status st;
    if (a->rank < 1 || b->rank < 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s operands must have rank >= 1",
                         node->op_type);
    memset(p, 0, sizeof(*p));
    p->m = a->rank == 1 ? 1 : a->dims[a->rank - 2];
    p->k = a->dims[a->rank - 1];
    int64_t kb = b->rank == 1 ? b->dims[0] : b->dims[b->rank - 2];
    p->n = b->rank == 1 ? 1 : b->dims[b->rank - 1];
    if (kb != p->k)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s inner dimensions differ: %s x %s",
                         node->op_type, graph_shape_string(a->rank, a->dims, sa, sizeof(sa)),
                         graph_shape_string(b->rank, b->dims, sb, sizeof(sb)));
    int ra = batch_rank(a), rb = batch_rank(b);
    if ((st = op_broadcast(node, ra, a->dims, rb, b->dims, &p->batch_rank, p->batch_dims, err)))
        return st;
    op_broadcast_strides(ra, a->dims, p->batch_rank, p->batch_dims, p->a_batch_strides);
    op_broadcast_strides(rb, b->dims, p->batch_rank, p->batch_dims, p->b_batch_strides);
    p->batch_count = 1;
    for (int d = 0; d < p->batch_rank; d++) {
        p->a_batch_strides[d] *= p->m * p->k;
        p->b_batch_strides[d] *= p->k * p->n;
        p->batch_count *= p->batch_dims[d];
    }
    p->a_sm = p->k;
    p->a_sk = 1;
    p->b_sk = b->rank == 1 ? 1 : p->n;
    p->b_sn = 1;
    return VKML_OK;
}

void matmul_batch_offsets(const matmul_params *p, int64_t index, int64_t *a_off, int64_t *b_off)
{
    int64_t ao = 0, bo = 0;
    for (int d = p->batch_rank - 1; d >= 0; d--) {
        int64_t i = index % p->batch_dims[d];
        index /= p->batch_dims[d];
        ao += i * p->a_batch_strides[d];
        bo += i * p->b_batch_strides[d];
    }
    *a_off = ao;
    *b_off = bo;
}

vkml_status matmul_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    matmul_params p;
    vkml_status st = matmul_params_parse(values, node, &p, err);
    if (st)
        return st;
    graph_value la, lb;
    int64_t strides[VKML_MAX_RANK];
    const graph_value *a = operand_of(values, node, 0, &la, strides),
                      *b = operand_of(values, node, 1, &lb, strides);
    matmul_set_output(values, node, &p, a, b, a->dtype);
    return op_epilogue_check(values, node, err);
}

void matmul_set_output(graph_value *values, const graph_node *node, const matmul_params *p,
                       const graph_value *a, const graph_value *b, vkml_dtype dtype)
{
    int64_t dims[VKML_MAX_RANK + 2];
    int rank = p->batch_rank;
    memcpy(dims, p->batch_dims, sizeof(int64_t) * (size_t)rank);
    if (a->rank > 1)
        dims[rank++] = p->m;
    if (b->rank > 1)
        dims[rank++] = p->n;
    op_set_output(values, node, 0, dtype, rank, dims);
}

/* C broadcasts unidirectionally to [m, n]. */
static vkml_status gemm_parse_c(const graph_value *c, gemm_params *p, vkml_error *err)
{
    char sc[160];
    int64_t out[2] = {p->m, p->n}, strides[2];
    bool ok = c->rank <= 2;
    for (int d = 0; ok && d < c->rank; d++) {
        int64_t have = c->dims[d], want = out[2 - c->rank + d];
        ok = have == want || have == 1;
    }
    if (!ok)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Gemm input C '%s' %s does not broadcast to [%lld,%lld]", c->name,
                         graph_shape_string(c->rank, c->dims, sc, sizeof(sc)), (long long)p->m,
                         (long long)p->n);
    op_broadcast_strides(c->rank, c->dims, 2, out, strides);
    p->c_stride_m = strides[0];
    p->c_stride_n = strides[1];
    return VKML_OK;
}

vkml_status gemm_params_parse(const graph_value *values, const graph_node *node, gemm_params *p,
                              vkml_error *err)
{
    char sa[160], sb[160];
    vkml_status st;
    /* C is optional from opset 11. */
    if ((st = op_require_counts(node, node->opset >= 11 ? 2 : 3, 3, 1, err)) ||
        (st = check_inputs(values, node, 2, err)))
        return st;
    memset(p, 0, sizeof(*p));
    p->has_c = node->n_inputs > 2 && node->inputs[2] >= 0;
    if (p->has_c && (st = check_inputs(values, node, 3, err)))
        return st;
    const graph_value *a = &values[node->inputs[0]], *b = &values[node->inputs[1]];
    if (a->rank != 2 || b->rank != 2)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Gemm inputs A and B must be 2-D, "
                         "not %s and %s",
                         graph_shape_string(a->rank, a->dims, sa, sizeof(sa)),
                         graph_shape_string(b->rank, b->dims, sb, sizeof(sb)));
    /* broadcast (opsets 1-6): C broadcasts unidirectionally either way here. */
    static const op_attr_spec specs[] = {{"broadcast", GRAPH_ATTR_INT},
                                         {"transA", GRAPH_ATTR_INT},
                                         {"transB", GRAPH_ATTR_INT},
                                         {"alpha", GRAPH_ATTR_FLOAT},
                                         {"beta", GRAPH_ATTR_FLOAT}};
    if ((st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err)))
        return st;
    p->trans_a = graph_attr_int(node, "transA", 0) != 0;
    p->trans_b = graph_attr_int(node, "transB", 0) != 0;
    p->alpha = graph_attr_float(node, "alpha", 1.0f);
    p->beta = graph_attr_float(node, "beta", 1.0f);
    p->m = a->dims[p->trans_a ? 1 : 0];
    p->k = a->dims[p->trans_a ? 0 : 1];
    int64_t kb = b->dims[p->trans_b ? 1 : 0];
    p->n = b->dims[p->trans_b ? 0 : 1];
    if (kb != p->k)
        return vkml_fail(
            err, VKML_ERROR_INVALID_MODEL, "Gemm inner dimensions differ: A %s%s x B %s%s",
            graph_shape_string(a->rank, a->dims, sa, sizeof(sa)), p->trans_a ? "^T" : "",
            graph_shape_string(b->rank, b->dims, sb, sizeof(sb)), p->trans_b ? "^T" : "");
    return p->has_c ? gemm_parse_c(&values[node->inputs[2]], p, err) : VKML_OK;
}

vkml_status gemm_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    gemm_params p;
    vkml_status st = gemm_params_parse(values, node, &p, err);
    if (st)
        return st;
    int64_t dims[2] = {p.m, p.n};
    op_set_output(values, node, 0, values[node->inputs[0]].dtype, 2, dims);
    return op_epilogue_check(values, node, err);
}
