/* Attention: attributes and shapes. */
#include "ops/attention.h"
#include "ops/op_decls.h"

#include <math.h>
#include <string.h>

vkml_status attention_parse(const graph_node *node, void *params, vkml_error *err)
{
    attention_params *p = params;
    static const op_attr_spec specs[] = {
        {"is_causal", GRAPH_ATTR_INT},        {"kv_num_heads", GRAPH_ATTR_INT},
        {"q_num_heads", GRAPH_ATTR_INT},      {"qk_matmul_output_mode", GRAPH_ATTR_INT},
        {"scale", GRAPH_ATTR_FLOAT},          {"softcap", GRAPH_ATTR_FLOAT},
        {"softmax_precision", GRAPH_ATTR_INT}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    if (st)
        return st;
    p->is_causal = graph_attr_int(node, "is_causal", 0) != 0;
    p->q_num_heads = graph_attr_int(node, "q_num_heads", 0);
    p->kv_num_heads = graph_attr_int(node, "kv_num_heads", 0);
    int64_t mode = graph_attr_int(node, "qk_matmul_output_mode", 0);
    p->scale = graph_attr_float(node, "scale", 0.0f);
    p->softcap = graph_attr_float(node, "softcap", 0.0f);
    if (mode < 0 || mode > 3)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Attention: qk_matmul_output_mode %lld is not 0 to 3", (long long)mode);
    if (p->q_num_heads < 0 || p->kv_num_heads < 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Attention: negative head count");
    if (!isfinite(p->scale) || !isfinite(p->softcap) || p->softcap < 0.0f)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Attention: scale %g or softcap %g",
                         (double)p->scale, (double)p->softcap);
    p->qk_output_mode = (int)mode;
    return VKML_OK;
}

static const graph_value *input(const graph_value *values, const graph_node *node, int i)
{
    return i < node->n_inputs && node->inputs[i] >= 0 ? &values[node->inputs[i]] : NULL;
}

/* heads, seq, head size of a 3-D [b, s, heads * size] or 4-D [b, heads, s, size] tensor. */
static vkml_status split_heads(const graph_node *node, const graph_value *v, int64_t heads_attr,
                               int64_t *heads, int64_t *seq, int64_t *size, vkml_error *err)
{
    if (v->rank == 4) {
        *heads = v->dims[1];
        *seq = v->dims[2];
        *size = v->dims[3];
        return VKML_OK;
    }
    if (heads_attr <= 0 || v->dims[2] % heads_attr)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: 3-D input '%s' needs a head count dividing %lld (got %lld)",
                         node->op_type, v->name, (long long)v->dims[2], (long long)heads_attr);
    *heads = heads_attr;
    *seq = v->dims[1];
    *size = v->dims[2] / heads_attr;
    return VKML_OK;
}

static vkml_status check_past(const graph_node *node, const graph_value *past, vkml_dtype dtype,
                              int64_t batch, int64_t heads, int64_t size, int64_t *len,
                              vkml_error *err)
{
    if (!past) {
        *len = 0;
        return VKML_OK;
    }
    if (past->dtype != dtype)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: past '%s' is %s, Q is %s",
                         node->op_type, past->name, vkml_dtype_name(past->dtype),
                         vkml_dtype_name(dtype));
    if (past->rank != 4 || past->dims[0] != batch || past->dims[1] != heads ||
        past->dims[3] != size)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: past '%s' must be [%lld, %lld, past, %lld]", node->op_type,
                         past->name, (long long)batch, (long long)heads, (long long)size);
    *len = past->dims[2];
    return VKML_OK;
}

static vkml_status mask_layout(const graph_node *node, const graph_value *m, attention_plan *p,
                               vkml_error *err)
{
    const int64_t full[4] = {p->batch, p->q_heads, p->q_len, p->total_len};
    if (m->rank < 2 || m->rank > 4 || m->dims[m->rank - 1] > p->total_len)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: attn_mask '%s' of rank %d does not fit [%lld, %lld, %lld, %lld]",
                         node->op_type, m->name, m->rank, (long long)full[0], (long long)full[1],
                         (long long)full[2], (long long)full[3]);
    p->mask_len = m->dims[m->rank - 1];
    int64_t stride = 1;
    for (int d = 3; d >= 0; d--) {
        int md = d - (4 - m->rank);
        int64_t n = md >= 0 ? m->dims[md] : 1, want = d == 3 ? p->mask_len : full[d];
        if (n != want && n != 1)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "%s: attn_mask '%s' dim %d is %lld, not %lld or 1", node->op_type,
                             m->name, md, (long long)n, (long long)want);
        p->mask_strides[d] = n == 1 ? 0 : stride;
        stride *= n;
    }
    p->has_mask = true;
    p->mask_is_bool = m->dtype == VKML_DTYPE_BOOL;
    return VKML_OK;
}

vkml_status attention_plan_build(const graph_value *values, const graph_node *node,
                                 attention_plan *p, vkml_error *err)
{
    const attention_params *a = node->params;
    vkml_status st;
    if ((st = op_require_counts(node, 3, 7, 1, err)))
        return st;
    for (int i = 0; i < node->n_inputs; i++)
        if ((i < 3 || node->inputs[i] >= 0) && (st = op_require_input(values, node, i, err)))
            return st;
    const graph_value *q = input(values, node, ATT_Q), *k = input(values, node, ATT_K),
                      *v = input(values, node, ATT_V);
    memset(p, 0, sizeof(*p));
    if ((q->rank != 3 && q->rank != 4) || k->rank != q->rank || v->rank != q->rank)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Attention: Q, K, V must all be 3-D or all 4-D (ranks %d, %d, %d)",
                         q->rank, k->rank, v->rank);
    if (k->dtype != q->dtype || v->dtype != q->dtype)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Attention: Q, K, V differ in dtype");
    p->is_3d = q->rank == 3;
    p->batch = q->dims[0];
    int64_t k_seq, kv_heads_v, v_seq, k_size;
    if ((st = split_heads(node, q, a->q_num_heads, &p->q_heads, &p->q_len, &p->qk_size, err)) ||
        (st = split_heads(node, k, a->kv_num_heads, &p->kv_heads, &k_seq, &k_size, err)) ||
        (st = split_heads(node, v, a->kv_num_heads, &kv_heads_v, &v_seq, &p->v_size, err)))
        return st;
    if (k->dims[0] != p->batch || v->dims[0] != p->batch || k_size != p->qk_size ||
        kv_heads_v != p->kv_heads || v_seq != k_seq || p->kv_heads < 1 || p->q_heads % p->kv_heads)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Attention: K/V shapes do not fit Q (q heads %lld, kv heads %lld, "
                         "head sizes %lld and %lld)",
                         (long long)p->q_heads, (long long)p->kv_heads, (long long)p->qk_size,
                         (long long)k_size);
    p->kv_len = k_seq;
    int64_t past_v = 0;
    if ((st = check_past(node, input(values, node, ATT_PAST_K), q->dtype, p->batch, p->kv_heads,
                         p->qk_size, &p->past_len, err)) ||
        (st = check_past(node, input(values, node, ATT_PAST_V), q->dtype, p->batch, p->kv_heads,
                         p->v_size, &past_v, err)))
        return st;
    if (past_v != p->past_len)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Attention: past_key and past_value differ in length");
    p->total_len = p->past_len + p->kv_len;
    p->scale = a->scale != 0.0f ? a->scale : 1.0f / sqrtf((float)(p->qk_size ? p->qk_size : 1));
    const graph_value *mask = input(values, node, ATT_MASK),
                      *nonpad = input(values, node, ATT_NONPAD);
    if (mask && mask->dtype != VKML_DTYPE_BOOL && mask->dtype != q->dtype)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Attention: attn_mask '%s' is %s",
                         mask->name, vkml_dtype_name(mask->dtype));
    if (mask && (st = mask_layout(node, mask, p, err)))
        return st;
    if (nonpad &&
        (nonpad->dtype != VKML_DTYPE_INT64 || nonpad->rank != 1 || nonpad->dims[0] != p->batch))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Attention: nonpad_kv_seqlen must be int64 [%lld]", (long long)p->batch);
    p->has_nonpad = nonpad != NULL;
    return VKML_OK;
}

vkml_status attention_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    attention_plan p;
    vkml_status st = attention_plan_build(values, node, &p, err);
    if (st)
        return st;
    vkml_dtype t = values[node->inputs[ATT_Q]].dtype;
    static const vkml_dtype types[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16, VKML_DTYPE_BFLOAT16};
    if ((st = op_require_dtype(values, node, ATT_Q, types, VKML_ARRAY_SIZE(types), err)))
        return st;
    int64_t y3[3] = {p.batch, p.q_len, p.q_heads * p.v_size};
    int64_t y4[4] = {p.batch, p.q_heads, p.q_len, p.v_size};
    op_set_output(values, node, ATT_Y, t, p.is_3d ? 3 : 4, p.is_3d ? y3 : y4);
    int64_t pk[4] = {p.batch, p.kv_heads, p.total_len, p.qk_size};
    int64_t pv[4] = {p.batch, p.kv_heads, p.total_len, p.v_size};
    int64_t qk[4] = {p.batch, p.q_heads, p.q_len, p.total_len};
    if (node->n_outputs > ATT_PRESENT_K && node->outputs[ATT_PRESENT_K] >= 0)
        op_set_output(values, node, ATT_PRESENT_K, t, 4, pk);
    if (node->n_outputs > ATT_PRESENT_V && node->outputs[ATT_PRESENT_V] >= 0)
        op_set_output(values, node, ATT_PRESENT_V, t, 4, pv);
    if (node->n_outputs > ATT_QK && node->outputs[ATT_QK] >= 0)
        op_set_output(values, node, ATT_QK, t, 4, qk);
    return VKML_OK;
}
