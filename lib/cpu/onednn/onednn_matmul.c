/* MatMul and Gemm through oneDNN's matmul: float32, read and written in place through
 * their strides (absorbed transposes included), or float16, converted at the node's edges
 * into dense float32 buffers (this oneDNN has no float16 matmul on the CPU); a constant B
 * packed once; the scale, a MatMul's bias, Gemm's alpha and C, and the fused activation
 * and residual as post-ops. */
#include "cpu/onednn/onednn_node.h"
#include "ops/epilogue.h"
#include "ops/matmul.h"
#include "ops/op.h"
#include "ops/quant.h"

#include <stdlib.h>
#include <string.h>

/* Whether every value of the node is float32, or every one float16. */
static bool float_node(const graph_value *values, const graph_node *node)
{
    vkml_dtype t = values[node->outputs[0]].dtype;
    for (int i = 0; i < node->n_inputs; i++)
        if (node->inputs[i] >= 0 && values[node->inputs[i]].dtype != t)
            return false;
    return t == VKML_DTYPE_FLOAT || t == VKML_DTYPE_FLOAT16;
}

static bool matmul_claim(const graph_value *values, const graph_node *node,
                         const device_value_plan *plans, const onednn_layout *stored,
                         onednn_claim *claim)
{
    (void)plans;
    (void)stored;
    *claim = (onednn_claim){0}; /* plain */
    return float_node(values, node);
}

/* A float32 tensor of these dims and element strides; a dim of extent 1 gets the stride
 * of a dense layout (its stride is never used, and oneDNN's fast kernels want that). */
static void strided_md(dnnl_memory_desc_t *md, int nd, dnnl_dims_t dims, dnnl_dims_t strides)
{
    int64_t dense = 1;
    for (int d = nd - 1; d >= 0; d--) {
        if (dims[d] == 1)
            strides[d] = dense;
        dense = strides[d] * dims[d] > dense ? strides[d] * dims[d] : dense;
    }
    dnnl_memory_desc_init_by_strides(md, nd, dims, dnnl_f32, strides);
}

/* A matrix operand [batch..., rows, cols] of the product: its dims (1 where it broadcasts)
 * and element strides. */
static void operand_md(dnnl_memory_desc_t *md, const matmul_params *p, const int64_t *batch_strides,
                       int64_t rows, int64_t cols, int64_t s_row, int64_t s_col)
{
    dnnl_dims_t dims, strides;
    int nd = p->batch_rank + 2;
    for (int d = 0; d < p->batch_rank; d++) {
        dims[d] = batch_strides[d] ? p->batch_dims[d] : 1;
        strides[d] = batch_strides[d];
    }
    dims[nd - 2] = rows, dims[nd - 1] = cols;
    strides[nd - 2] = s_row, strides[nd - 1] = s_col;
    strided_md(md, nd, dims, strides);
}

/* What the two ops share once their operands are described. */
typedef struct product {
    bool half;           /* float16 values (the descriptors below say float32) */
    bool integer;        /* int8 operands, int32 or int8 output (the descriptors say so) */
    int32_t zero[3];     /* integer: A's, B's and Y's zero points */
    const float *scales; /* QLinearMatMul: output scales, per tensor or per column of Y */
    int n_scales;        /* 0: none */
    dnnl_memory_desc_t a, b, y;
    const void *a_ptr, *b_ptr;
    void *y_ptr;
    const void *b_constant; /* B's constant data: packed */
    float scale;            /* linear post-op first when not 1 */
    /* A second source added after the scale (MatMul's bias, Gemm's beta C): */
    dnnl_memory_desc_t add;
    const void *add_ptr; /* NULL: none */
} product;

/* The operand the product computes on for the value at ptr that `have` describes (strides,
 * float32): the value itself, or for float16 a dense float32 buffer that a reorder fills
 * (or, for the output, empties: *pending). */
typedef struct operand {
    dnnl_memory_desc_t want;
    dnnl_memory_t mem;
} operand;

static void operand_want(const product *pr, const dnnl_memory_desc_t *have, operand *o)
{
    static const dnnl_format_tag_t dense[] = {dnnl_a,     dnnl_ab,     dnnl_abc,    dnnl_abcd,
                                              dnnl_abcde, dnnl_abcdef, dnnl_abcdefg};
    o->want = *have;
    if (pr->half && have->ndims >= 1 && have->ndims <= 7)
        dnnl_memory_desc_init_by_tag(&o->want, have->ndims, have->dims, dnnl_f32,
                                     dense[have->ndims - 1]);
}

static vkml_status operand_bind(onednn_node *n, const product *pr, const dnnl_memory_desc_t *have,
                                const void *ptr, operand *o, onednn_pending *pending,
                                vkml_error *err)
{
    dnnl_memory_desc_t typed = *have;
    if (!pr->half)
        return (o->mem = onednn_mem(n, have, (void *)ptr))
                   ? VKML_OK
                   : vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory");
    onednn_md_dtype(&typed, VKML_DTYPE_FLOAT16);
    return pending ? onednn_bind_output(n, &typed, (void *)ptr, &o->want, &o->mem, pending, err)
                   : onednn_bind_input(n, &typed, ptr, &o->want, &o->mem, err);
}

static vkml_status product_build(const onednn_build *b, const product *pr, onednn_node *n,
                                 bool *taken, vkml_error *err)
{
    const graph_node *node = b->node;
    const graph_epilogue *e = node->epilogue;
    int residual = op_epilogue_residual(node);
    operand a, bo, y, add, res;
    operand_want(pr, &pr->a, &a);
    operand_want(pr, &pr->b, &bo);
    operand_want(pr, &pr->y, &y);
    operand_want(pr, &pr->add, &add);
    operand_want(pr, &pr->y, &res);
    dnnl_memory_desc_t b_want = bo.want, res_md = res.want;
    if (pr->b_constant)
        dnnl_memory_desc_init_by_tag(&b_want, pr->b.ndims, pr->b.dims, pr->b.data_type,
                                     dnnl_format_tag_any);
    dnnl_matmul_desc_t md;
    if (dnnl_matmul_desc_init(&md, &a.want, &b_want, NULL, &y.want) != dnnl_success)
        return VKML_OK;
    dnnl_primitive_attr_t attr;
    dnnl_post_ops_t po;
    vkml_status made = onednn_attr_create(&attr, &po, err);
    if (made)
        return made;
    int before = 0, add_index = -1;
    bool ok = true;
    if (pr->scale != 1.0f) {
        ok = dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_linear, pr->scale, 0) ==
             dnnl_success;
        before++;
    }
    if (ok && pr->add_ptr) {
        ok = dnnl_post_ops_append_binary(po, dnnl_binary_add, &add.want) == dnnl_success;
        add_index = before++;
    }
    ok = ok && onednn_epilogue_post_ops(e, po, residual >= 0 ? &res_md : NULL, false, false) &&
         dnnl_primitive_attr_set_post_ops(attr, po) == dnnl_success;
    if (ok && pr->n_scales && pr->zero[2]) /* last: no residual follows (integer_form) */
        ok = onednn_round_before_zero_point(attr, po);
    static const int zero_args[3] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};
    const int32_t runtime = DNNL_RUNTIME_S32_VAL;
    if (ok && pr->n_scales)
        ok = dnnl_primitive_attr_set_output_scales(attr, pr->n_scales,
                                                   pr->n_scales > 1 ? 1 << (pr->y.ndims - 1) : 0,
                                                   pr->scales) == dnnl_success;
    for (int i = 0; i < 3 && ok; i++)
        ok = !pr->zero[i] || dnnl_primitive_attr_set_zero_points(attr, zero_args[i], 1, 0,
                                                                 &runtime) == dnnl_success;
    dnnl_primitive_desc_t pd = NULL;
    vkml_status st = ok ? onednn_pd(&md, attr, &pd, err) : VKML_OK;
    onednn_attr_destroy(attr, po);
    if (st || !pd)
        return st;
    onednn_note_impl(n, pd);
    if (pr->integer && strncmp(n->impl, "ref", 3) == 0) { /* the C kernel does better */
        dnnl_primitive_desc_destroy(pd);
        return VKML_OK;
    }

    dnnl_exec_arg_t args[ONEDNN_MAX_ARGS];
    int n_args = 0;
    onednn_pending pending = {0};
    bo.mem = NULL;
    st = operand_bind(n, pr, &pr->a, pr->a_ptr, &a, NULL, err);
    if (!st && pr->b_constant) {
        dnnl_memory_desc_t b_have = pr->b;
        if (pr->half)
            onednn_md_dtype(&b_have, VKML_DTYPE_FLOAT16);
        st = onednn_pack(n, &b_have, pr->b_constant,
                         dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), &bo.mem, err);
    } else if (!st) {
        st = operand_bind(n, pr, &pr->b, pr->b_ptr, &bo, NULL, err);
    }
    if (!st && pr->add_ptr)
        st = operand_bind(n, pr, &pr->add, pr->add_ptr, &add, NULL, err);
    int ri = onednn_epilogue_residual_index(e, before);
    if (!st && residual >= 0 && ri >= 0)
        st = operand_bind(n, pr, &pr->y, b->ptrs[residual], &res, NULL, err);
    if (!st)
        st = operand_bind(n, pr, &pr->y, pr->y_ptr, &y, &pending, err);
    if (st) {
        dnnl_primitive_desc_destroy(pd);
        return st;
    }
    args[n_args++] = (dnnl_exec_arg_t){DNNL_ARG_SRC, a.mem};
    args[n_args++] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, bo.mem};
    args[n_args++] = (dnnl_exec_arg_t){DNNL_ARG_DST, y.mem};
    if (pr->add_ptr)
        args[n_args++] = (dnnl_exec_arg_t){onednn_post_op_src1(add_index), add.mem};
    if (residual >= 0 && ri >= 0)
        args[n_args++] = (dnnl_exec_arg_t){onednn_post_op_src1(ri), res.mem};
    for (int i = 0; i < 3 && !st; i++) { /* zero points, as oneDNN takes them: memory */
        if (!pr->zero[i])
            continue;
        dnnl_memory_t zm = onednn_zero_point_mem(n, pr->zero[i]);
        if (!zm)
            st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory");
        args[n_args++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_ZERO_POINTS | zero_args[i], zm};
    }
    if (st) {
        dnnl_primitive_desc_destroy(pd);
        return st;
    }
    if ((st = onednn_add_pd_step(n, pd, n_args, args, err)))
        return st;
    *taken = true;
    return onednn_bind_output_finish(n, &pending, err);
}

/* A batch of dense A matrices times one B is one product of batch * m rows: oneDNN's
 * kernels do far better with m of 128 than with 128 products of m 1 (a MatMul of [128, 1,
 * 768] by [768, 2304], as PyTorch exports attention's input projection). */
static void fold_batch(matmul_params *p)
{
    int64_t dense = p->m * p->k;
    bool fold = p->batch_rank > 0 && p->a_sk == 1 && p->a_sm == p->k;
    for (int d = p->batch_rank - 1; fold && d >= 0; d--) {
        fold =
            p->b_batch_strides[d] == 0 && (p->a_batch_strides[d] == dense || p->batch_dims[d] == 1);
        dense *= p->batch_dims[d];
    }
    if (!fold)
        return;
    p->m *= p->batch_count;
    p->batch_rank = 0;
    p->batch_count = 1;
}

/* product_build, then the node's fused LayerNormalization (if any: float32 alone) as a step
 * of its own; where that step cannot be made the node is not taken (the C kernel runs it
 * all). */
static vkml_status product_then_norm(const onednn_build *b, const product *pr, onednn_node *n,
                                     bool *taken, vkml_error *err)
{
    const graph_epilogue *e = b->node->epilogue;
    bool norm = e && e->norm;
    *taken = false;
    if (norm && b->values[b->node->outputs[0]].dtype != VKML_DTYPE_FLOAT)
        return VKML_OK;
    vkml_status st = product_build(b, pr, n, taken, err);
    if (st || !*taken || !norm)
        return st;
    return onednn_add_epilogue_norm(b, n, taken, err);
}

static vkml_status matmul_build(const onednn_build *b, onednn_node *n, bool *taken, vkml_error *err)
{
    const graph_node *node = b->node;
    const graph_epilogue *e = node->epilogue;
    *taken = false;
    matmul_params p;
    vkml_error ignored;
    if (matmul_params_parse(b->values, node, &p, &ignored) || p.batch_rank + 2 > DNNL_MAX_NDIMS)
        return VKML_OK;
    fold_batch(&p);
    product pr = {.half = b->values[node->outputs[0]].dtype == VKML_DTYPE_FLOAT16,
                  .a_ptr = b->ptrs[node->inputs[0]],
                  .b_ptr = b->ptrs[node->inputs[1]],
                  .y_ptr = b->ptrs[node->outputs[0]],
                  .scale = e && e->scaled ? e->scale : 1.0f};
    operand_md(&pr.a, &p, p.a_batch_strides, p.m, p.k, p.a_sm, p.a_sk);
    operand_md(&pr.b, &p, p.b_batch_strides, p.k, p.n, p.b_sk, p.b_sn);
    int64_t yd[VKML_MAX_RANK + 2];
    for (int d = 0; d < p.batch_rank; d++)
        yd[d] = p.batch_dims[d];
    yd[p.batch_rank] = p.m, yd[p.batch_rank + 1] = p.n;
    onednn_md(&pr.y, p.batch_rank + 2, yd, ONEDNN_PLAIN);
    int bv = node->inputs[1];
    if (b->plans[bv].constant)
        pr.b_constant = b->plans[bv].constant;
    if (e && e->bias >= 0 && e->bias < node->n_inputs && node->inputs[e->bias] >= 0) {
        dnnl_dims_t dims, strides;
        int nd = p.batch_rank + 2;
        for (int d = 0; d < nd; d++)
            dims[d] = 1, strides[d] = 0;
        dims[nd - 1] = p.n, strides[nd - 1] = 1;
        strided_md(&pr.add, nd, dims, strides);
        pr.add_ptr = b->ptrs[node->inputs[e->bias]];
    }
    return product_then_norm(b, &pr, n, taken, err);
}

static vkml_status gemm_build(const onednn_build *b, onednn_node *n, bool *taken, vkml_error *err)
{
    const graph_node *node = b->node;
    *taken = false;
    gemm_params g;
    vkml_error ignored;
    if (gemm_params_parse(b->values, node, &g, &ignored))
        return VKML_OK;
    matmul_params p = {.m = g.m, .n = g.n, .k = g.k};
    product pr = {.half = b->values[node->outputs[0]].dtype == VKML_DTYPE_FLOAT16,
                  .a_ptr = b->ptrs[node->inputs[0]],
                  .b_ptr = b->ptrs[node->inputs[1]],
                  .y_ptr = b->ptrs[node->outputs[0]],
                  .scale = g.alpha};
    operand_md(&pr.a, &p, NULL, g.m, g.k, g.trans_a ? 1 : g.k, g.trans_a ? g.m : 1);
    operand_md(&pr.b, &p, NULL, g.k, g.n, g.trans_b ? 1 : g.n, g.trans_b ? g.k : 1);
    operand_md(&pr.y, &p, NULL, g.m, g.n, g.n, 1);
    if (b->plans[node->inputs[1]].constant)
        pr.b_constant = b->plans[node->inputs[1]].constant;
    if (g.has_c && g.beta != 0.0f) {
        int c = node->inputs[2];
        const float *data = b->ptrs[c];
        if (g.beta != 1.0f) { /* beta C, once: a constant float32 C only */
            const float *cst = pr.half ? NULL : b->plans[c].constant;
            int64_t count = (g.c_stride_m ? g.m : 1) * (g.c_stride_n ? g.n : 1);
            float *scaled = cst ? onednn_buffer(n, sizeof(float) * (size_t)count) : NULL;
            if (!scaled)
                return VKML_OK;
            for (int64_t i = 0; i < count; i++)
                scaled[i] = g.beta * cst[i];
            data = scaled;
        }
        operand_md(&pr.add, &p, NULL, g.c_stride_m ? g.m : 1, g.c_stride_n ? g.n : 1, g.c_stride_m,
                   g.c_stride_n);
        pr.add_ptr = data;
    }
    return product_then_norm(b, &pr, n, taken, err);
}

/* MatMulInteger and QLinearMatMul: A int8 or uint8 and Y's zero point one constant value
 * each (or none); B int8 of one constant zero point, or a constant B of int8 or uint8 that,
 * less its zero points (per tensor or per column), fits in int8 (the difference is packed);
 * QLinearMatMul's scales constant, A's and Y's per tensor, B's per tensor or per column:
 * oneDNN's integer product. MatMulInteger is exact;
 * QLinearMatMul requantizes in float32 (onednn_quant.c says how that rounds). Without VNNI
 * (onednn_int8_exact) only a constant B, and as onednn_quant.c runs a convolution's
 * weights: as it is within -64 .. 64, else split, B = 64 hi + lo, two products, hi's in
 * float32 added to lo's; an int8 A is first reordered to A + 128 in uint8 (as a
 * convolution's x). */
typedef struct integer_product {
    qprod_params q;
    int32_t zero[3];
    bool shift_b;  /* B less its zero points is packed (onednn_shifted_weights) */
    bool no_vnni;  /* onednn_int8_exact false: int8 A shifted to uint8, B constant */
    bool split;    /* no VNNI and B beyond -64 .. 64: B as 64 hi + lo, two products */
    float *scales; /* QLinearMatMul: room for N */
    int n_scales;
} integer_product;

static bool integer_form(const graph_value *values, const graph_node *node,
                         const device_value_plan *plans, integer_product *ip)
{
    vkml_error ignored;
    qprod_params *q = &ip->q;
    if (qprod_params_parse(values, node, q, &ignored) || q->is_conv ||
        q->mm.batch_rank + 2 > DNNL_MAX_NDIMS || node->epilogue)
        return false;
    vkml_dtype a = values[node->inputs[q->in->a]].dtype, b = values[node->inputs[q->in->b]].dtype;
    int zeros[3];
    const int roles[3] = {q->in->a_zero, q->in->b_zero, q->in->y_zero};
    for (int i = 0; i < 3; i++)
        zeros[i] = roles[i] >= 0 && roles[i] < node->n_inputs ? node->inputs[roles[i]] : -1;
    ip->no_vnni = !onednn_int8_exact();
    /* without VNNI, B's zero point goes into the packed difference (each half has none) */
    ip->shift_b = b != VKML_DTYPE_INT8 ||
                  !onednn_common_value(values, plans, zeros[1], &ip->zero[1]) ||
                  (ip->no_vnni && ip->zero[1] != 0);
    if (ip->shift_b) {
        ip->zero[1] = 0;
        if (!onednn_shifted_weights(values, plans, node->inputs[q->in->b], zeros[1], &q->b_zero,
                                    NULL))
            return false;
    }
    if (!onednn_common_value(values, plans, zeros[0], &ip->zero[0]) ||
        !onednn_common_value(values, plans, zeros[2], &ip->zero[2]))
        return false;
    if (q->in->y_scale >= 0 && ip->scales &&
        !(ip->n_scales = onednn_requant_scales(values, node, plans, q, ip->scales, q->mm.n)))
        return false;
    if (ip->no_vnni && !plans[node->inputs[q->in->b]].constant)
        return false;
    ip->split = ip->no_vnni && !onednn_weights_pair_safe(values, plans, node->inputs[q->in->b],
                                                         zeros[1], &q->b_zero);
    return a == VKML_DTYPE_UINT8 || a == VKML_DTYPE_INT8;
}

static bool integer_claim(const graph_value *values, const graph_node *node,
                          const device_value_plan *plans, const onednn_layout *stored,
                          onednn_claim *claim)
{
    (void)stored;
    integer_product ip = {0};
    *claim = (onednn_claim){0}; /* plain */
    const graph_value *y = &values[node->outputs[0]];
    int64_t n = y->rank >= 1 ? y->dims[y->rank - 1] : 1;
    bool qlinear = node->op->id == OP_ID_QLinearMatMul;
    if (qlinear && !(ip.scales = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1))))
        return false;
    bool ok = integer_form(values, node, plans, &ip);
    free(ip.scales);
    return ok;
}

/* Without VNNI: splits pr's constant B (int8, count values) as 64 hi + lo (lo in 0 .. 63),
 * adds hi's product (its scales times 64, float32, into a buffer of n) as a step, and leaves
 * pr as lo's product adding that buffer; pr->add_ptr stays NULL where oneDNN declines. */
static vkml_status split_hi_build(const onednn_build *b, product *pr, int64_t count, onednn_node *n,
                                  vkml_error *err)
{
    static const float sixty_four = 64.0f;
    int8_t *lo = (int8_t *)pr->b_constant, *hi = onednn_buffer(n, (size_t)count + 1);
    float *scales = pr->n_scales ? onednn_buffer(n, sizeof(float) * (size_t)pr->n_scales) : NULL;
    if (!hi || (pr->n_scales && !scales))
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory");
    onednn_split_weights(lo, hi, count);
    for (int i = 0; i < pr->n_scales; i++)
        scales[i] = 64.0f * pr->scales[i];
    product h = *pr;
    h.b_constant = hi;
    h.zero[2] = 0;
    h.scales = pr->n_scales ? scales : &sixty_four;
    h.n_scales = pr->n_scales ? pr->n_scales : 1;
    onednn_md_dtype(&h.y, VKML_DTYPE_FLOAT);
    if (!(h.y_ptr = onednn_buffer(n, dnnl_memory_desc_get_size(&h.y))))
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory");
    bool taken = false;
    vkml_status st = product_build(b, &h, n, &taken, err);
    if (st || !taken)
        return st;
    pr->add = h.y;
    pr->add_ptr = h.y_ptr;
    return VKML_OK;
}

static vkml_status integer_build(const onednn_build *b, onednn_node *n, bool *taken,
                                 vkml_error *err)
{
    const graph_node *node = b->node;
    integer_product ip = {0};
    *taken = false;
    const graph_value *yv = &b->values[node->outputs[0]];
    int64_t cols = yv->rank >= 1 ? yv->dims[yv->rank - 1] : 1;
    if (node->op->id == OP_ID_QLinearMatMul &&
        !(ip.scales = onednn_buffer(n, sizeof(float) * (size_t)(cols > 0 ? cols : 1))))
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory");
    if (!integer_form(b->values, node, b->plans, &ip))
        return VKML_OK;
    const qprod_params *q = &ip.q;
    matmul_params p = q->mm;
    int av = node->inputs[q->in->a], bv = node->inputs[q->in->b];
    product pr = {.integer = true,
                  .a_ptr = b->ptrs[av],
                  .b_ptr = b->ptrs[bv],
                  .y_ptr = b->ptrs[node->outputs[0]],
                  .scale = 1.0f,
                  .b_constant = b->plans[bv].constant,
                  .zero = {ip.zero[0], ip.zero[1], ip.zero[2]},
                  .scales = ip.scales,
                  .n_scales = ip.n_scales};
    int8_t *shifted = ip.shift_b || ip.split ? onednn_buffer(n, (size_t)q->b_count + 1) : NULL;
    if ((ip.shift_b || ip.split) && !shifted)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory");
    if (ip.shift_b) {
        int bz = q->in->b_zero < node->n_inputs ? node->inputs[q->in->b_zero] : -1;
        onednn_shifted_weights(b->values, b->plans, bv, bz, &q->b_zero, shifted);
        pr.b_constant = shifted;
    } else if (ip.split) {
        memcpy(shifted, pr.b_constant, (size_t)q->b_count);
        pr.b_constant = shifted;
    }
    operand_md(&pr.a, &p, p.a_batch_strides, p.m, p.k, p.a_sm, p.a_sk);
    operand_md(&pr.b, &p, p.b_batch_strides, p.k, p.n, p.b_sk, p.b_sn);
    int64_t yd[VKML_MAX_RANK + 2];
    for (int d = 0; d < p.batch_rank; d++)
        yd[d] = p.batch_dims[d];
    yd[p.batch_rank] = p.m, yd[p.batch_rank + 1] = p.n;
    onednn_md(&pr.y, p.batch_rank + 2, yd, ONEDNN_PLAIN);
    pr.a.data_type = b->values[av].dtype == VKML_DTYPE_UINT8 ? dnnl_u8 : dnnl_s8;
    pr.b.data_type = dnnl_s8;
    onednn_md_dtype(&pr.y, q->y_dtype);
    if (ip.no_vnni && pr.a.data_type == dnnl_s8) { /* A + 128 in uint8, its zero point too */
        dnnl_memory_desc_t u8 = pr.a;
        u8.data_type = dnnl_u8;
        void *buf = onednn_buffer(n, dnnl_memory_desc_get_size(&u8));
        dnnl_memory_t from = onednn_mem(n, &pr.a, (void *)pr.a_ptr),
                      to = buf ? onednn_mem(n, &u8, buf) : NULL;
        if (!from || !to)
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory");
        vkml_status st = onednn_shift_step(n, from, &pr.a, to, &u8, err);
        if (st)
            return st;
        pr.a = u8;
        pr.a_ptr = buf;
        pr.zero[0] += 128;
    }
    if (ip.split) {
        vkml_status st = split_hi_build(b, &pr, q->b_count, n, err);
        if (st || !pr.add_ptr) /* hi's product declined: so does the node */
            return st;
    }
    vkml_status st = product_build(b, &pr, n, taken, err);
    if (!st && *taken && ip.split)
        onednn_note_split(n);
    return st;
}

const onednn_op onednn_matmul_op = {.claim = matmul_claim, .build = matmul_build};
const onednn_op onednn_matmul_integer_op = {.claim = integer_claim, .build = integer_build};
const onednn_op onednn_qlinear_matmul_op = {.claim = integer_claim, .build = integer_build};
const onednn_op onednn_gemm_op = {.claim = matmul_claim, .build = gemm_build};
