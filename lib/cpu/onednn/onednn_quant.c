/* ConvInteger and QLinearConv through oneDNN's int8 convolution: x uint8 or int8 whose zero
 * point is one constant (or none), constant int8 or uint8 weights that, less their zero
 * points (per tensor or per output channel), fit in int8 (oneDNN 2.6's convolutions take no
 * weights zero point: the difference is packed), 1-3 spatial dims, every group form;
 * QLinearConv's scales (constants; w's one, or one per output channel) become oneDNN's
 * output scales, y's zero point its destination zero point, the int32 bias its bias.
 * Computes channels-last (qconv_claim).
 *
 * Rounding: oneDNN requantizes in float32, round((float)(acc + bias) * scale) + y_zero,
 * rounded half to even (a round post-op before the zero point: oneDNN would round the sum,
 * and an odd zero point would send every exact half the other way) and saturated; the C
 * kernel rounds the exact product acc * scale (a double). The two differ by 1 only where
 * the float32 product lands on the other side of a half than the exact one (rare;
 * cpu_library bounds it, and checks exact halves equal). ConvInteger (int32 out) is exact.
 *
 * Without VNNI (onednn_int8_exact false: AVX2) oneDNN multiplies uint8 by int8 with
 * vpmaddubsw, whose int16 sum of two products saturates (255 x 127 x 2 > 32767). Weights
 * (less their zero points) in -64 .. 64 cannot saturate (255 x 64 x 2 = 32640) and run as
 * they are. Other weights v (in int8) are split as v = 64 hi + lo, hi in -2 .. 1 and
 * lo in 0 .. 63, where no pair saturates (255 x 63 x 2 = 32130), and the node runs two
 * convolutions: hi's into a float32 buffer with its scales times 64, then lo's with the
 * bias, adding that buffer (a binary post-op) before rounding and the zero point. The sum
 * is formed in float32, so the result may differ by 1 from the exact one where it lands on
 * a half, as above. int8 x is first reordered to x + 128 in uint8 (shift_x_step). The grouped
 * forms oneDNN has only reference code for there (a few channels a group) keep their C
 * kernel. */
#include "cpu/onednn/onednn_geometry.h"
#include "cpu/onednn/onednn_node.h"
#include "ops/quant.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The value in role r of the node's inputs, or -1. */
static int role_value(const graph_node *node, int r)
{
    return r >= 0 && r < node->n_inputs ? node->inputs[r] : -1;
}

static double const_at(const graph_value *values, const device_value_plan *plans, int v, int64_t i)
{
    graph_value t = values[v];
    t.data = plans[v].constant;
    return quant_const_at(&t, i);
}

static int64_t entries(const graph_value *v)
{
    return (int64_t)vkml_tensor_element_count(v->rank, v->dims);
}

bool onednn_common_value(const graph_value *values, const device_value_plan *plans, int v,
                         int32_t *out)
{
    *out = 0;
    if (v < 0)
        return true;
    if (!plans[v].constant)
        return false;
    double first = entries(&values[v]) ? const_at(values, plans, v, 0) : 0.0;
    for (int64_t i = 1; i < entries(&values[v]); i++)
        if (const_at(values, plans, v, i) != first)
            return false;
    *out = (int32_t)first;
    return true;
}

int onednn_requant_scales(const graph_value *values, const graph_node *node,
                          const device_value_plan *plans, const qprod_params *q, float *scales,
                          int64_t room)
{
    int a = role_value(node, q->in->a_scale), b = role_value(node, q->in->b_scale),
        y = role_value(node, q->in->y_scale);
    if (a < 0 || b < 0 || y < 0 || !plans[a].constant || !plans[b].constant || !plans[y].constant ||
        entries(&values[a]) != 1 || entries(&values[y]) != 1 || entries(&values[b]) > room ||
        entries(&values[b]) < 1)
        return 0;
    float sa = (float)const_at(values, plans, a, 0), sy = (float)const_at(values, plans, y, 0);
    int64_t n = entries(&values[b]);
    for (int64_t i = 0; i < n; i++) {
        scales[i] =
            (float)qprod_multiplier(values[a].dtype, sa, (float)const_at(values, plans, b, i), sy);
        if (!isnormal(scales[i]) || scales[i] < 0.0f) /* oneDNN saturates inf and NaN products */
            return 0;                                 /* otherwise than the C kernel */
    }
    return (int)n;
}

/* Whether w less its zero points lies in lo .. hi everywhere; then also written to out. */
static bool weights_within(const graph_value *values, const device_value_plan *plans, int w, int wz,
                           const quant_vec *zv, int lo, int hi, int8_t *out)
{
    vkml_dtype t = values[w].dtype;
    if (!plans[w].constant || (t != VKML_DTYPE_INT8 && t != VKML_DTYPE_UINT8) ||
        (wz >= 0 && !plans[wz].constant))
        return false;
    const void *d = plans[w].constant, *z = wz >= 0 ? plans[wz].constant : NULL;
    bool u8 = t == VKML_DTYPE_UINT8;
    for (int64_t i = 0; i < entries(&values[w]); i++) {
        int v = u8 ? ((const uint8_t *)d)[i] : ((const int8_t *)d)[i];
        int64_t zi = z ? quant_vec_index(zv, i) : 0;
        if (z)
            v -= u8 ? ((const uint8_t *)z)[zi] : ((const int8_t *)z)[zi];
        if (v < lo || v > hi)
            return false;
        if (out)
            out[i] = (int8_t)v;
    }
    return true;
}

bool onednn_shifted_weights(const graph_value *values, const device_value_plan *plans, int w,
                            int wz, const quant_vec *zv, int8_t *out)
{
    return weights_within(values, plans, w, wz, zv, INT8_MIN, INT8_MAX, out);
}

void onednn_split_weights(int8_t *v, int8_t *hi, int64_t count)
{
    for (int64_t i = 0; i < count; i++) {
        int lo = ((v[i] % 64) + 64) % 64;
        hi[i] = (int8_t)((v[i] - lo) / 64);
        v[i] = (int8_t)lo;
    }
}

bool onednn_weights_pair_safe(const graph_value *values, const device_value_plan *plans, int w,
                              int wz, const quant_vec *zv)
{
    return weights_within(values, plans, w, wz, zv, -64, 64, NULL);
}

/* ---- ConvInteger, QLinearConv ------------------------------------------------------- */

typedef struct qconv {
    qprod_params q;
    bool qlinear;
    int rank, x, w, y, bias;
    int32_t x_zero, y_zero;
    bool shift_w; /* w minus its zero points is packed (onednn_shifted_weights) */
    bool split;   /* no VNNI: w as 64 hi + lo, two convolutions (above) */
    int n_scales; /* QLinearConv: 1 or out_channels */
    int64_t xd[VKML_MAX_RANK], wd[VKML_MAX_RANK + 1], yd[VKML_MAX_RANK], od[VKML_MAX_RANK];
    dnnl_memory_desc_t x_want, y_want, w_user, w_any, bias_md;
    dnnl_memory_desc_t hi_md;  /* split: the hi convolution's float32 output, y's layout */
    bool shift_x;              /* no VNNI, int8 x: the convolutions read x + 128 as uint8 */
    dnnl_memory_desc_t x_conv; /* what the convolutions read: x_want, or that uint8 */
} qconv;

/* Whether the library takes the node's form, and its descriptors with x and y in these
 * layouts. */
static bool qconv_setup(const graph_value *values, const graph_node *node,
                        const device_value_plan *plans, onednn_layout in, onednn_layout out,
                        qconv *c)
{
    vkml_error ignored;
    memset(c, 0, sizeof(*c));
    if (node->epilogue || qprod_params_parse(values, node, &c->q, &ignored) || !c->q.is_conv ||
        c->q.conv.win.spatial > 3)
        return false;
    const qprod_inputs *in_roles = c->q.in;
    c->qlinear = in_roles->y_scale >= 0;
    c->x = node->inputs[in_roles->a];
    c->w = node->inputs[in_roles->b];
    c->y = node->outputs[0];
    c->bias = role_value(node, in_roles->bias);
    vkml_dtype xt = values[c->x].dtype;
    int32_t w_zero;
    int wz = role_value(node, in_roles->b_zero);
    c->shift_w = values[c->w].dtype != VKML_DTYPE_INT8 ||
                 !onednn_common_value(values, plans, wz, &w_zero) || w_zero != 0;
    if ((xt != VKML_DTYPE_UINT8 && xt != VKML_DTYPE_INT8) || !plans[c->w].constant ||
        !onednn_common_value(values, plans, role_value(node, in_roles->a_zero), &c->x_zero) ||
        (c->shift_w && !onednn_shifted_weights(values, plans, c->w, wz, &c->q.b_zero, NULL)))
        return false;
    if (c->qlinear &&
        !onednn_common_value(values, plans, role_value(node, in_roles->y_zero), &c->y_zero))
        return false;
    const conv_params *p = &c->q.conv;
    c->rank = 2 + p->win.spatial;
    onednn_conv_dims(p, c->xd, c->wd, c->yd, c->od);
    onednn_md(&c->x_want, c->rank, c->xd, in);
    onednn_md_dtype(&c->x_want, xt);
    onednn_md(&c->y_want, c->rank, c->yd, out);
    onednn_md_dtype(&c->y_want, c->q.y_dtype);
    /* Without VNNI the weights split unless they already lie in -64 .. 64 (as ONNX
     * Runtime's reduce_range quantizes them), and x is read as uint8: oneDNN would run int8
     * x as x + 128 itself, its weights halved (inexact), so a reorder makes x + 128 (zero
     * point + 128) first. */
    bool no_vnni = !onednn_int8_exact();
    c->split = no_vnni && !onednn_weights_pair_safe(values, plans, c->w, wz, &c->q.b_zero);
    c->shift_x = no_vnni && xt == VKML_DTYPE_INT8;
    c->x_conv = c->x_want;
    if (c->shift_x) {
        onednn_md_dtype(&c->x_conv, VKML_DTYPE_UINT8);
        c->x_zero += 128;
    }
    onednn_md(&c->hi_md, c->rank, c->yd, out);
    onednn_md_dtype(&c->hi_md, VKML_DTYPE_FLOAT);
    int wrank = c->rank + (p->group > 1);
    onednn_md(&c->w_user, wrank, c->wd, ONEDNN_PLAIN);
    onednn_md_dtype(&c->w_user, VKML_DTYPE_INT8);
    dnnl_memory_desc_init_by_tag(&c->w_any, wrank, c->w_user.dims, dnnl_s8, dnnl_format_tag_any);
    dnnl_dims_t bdims = {p->out_channels};
    dnnl_memory_desc_init_by_tag(&c->bias_md, 1, bdims, dnnl_s32, dnnl_a);
    return true;
}

/* The convolution's primitive descriptor with its output scales (`scales`, room for
 * out_channels) and zero points; NULL when oneDNN has none, or only its reference one. hi:
 * the split's first convolution (hi's weights into hi_md, scales times 64); else the node's
 * (with split, lo's weights, adding hi_md's buffer). */
static vkml_status qconv_pd(qconv *c, const graph_value *values, const graph_node *node,
                            const device_value_plan *plans, float *scales, bool hi,
                            dnnl_primitive_desc_t *pd, vkml_error *err)
{
    *pd = NULL;
    dnnl_dims_t strides, dilates, pad_l, pad_r;
    bool extended;
    onednn_window(&c->q.conv.win, strides, dilates, pad_l, pad_r, &extended);
    dnnl_convolution_desc_t cd;
    if (extended || dnnl_dilated_convolution_forward_desc_init(
                        &cd, dnnl_forward_inference, dnnl_convolution_direct, &c->x_conv, &c->w_any,
                        c->bias >= 0 && !hi ? &c->bias_md : NULL, hi ? &c->hi_md : &c->y_want,
                        strides, dilates, pad_l, pad_r) != dnnl_success)
        return VKML_OK;
    if (c->qlinear && !(c->n_scales = onednn_requant_scales(values, node, plans, &c->q, scales,
                                                            c->q.conv.out_channels)))
        return VKML_OK;
    float sixty_four = 64.0f;
    for (int i = 0; hi && c->qlinear && i < c->n_scales; i++)
        scales[i] *= 64.0f;
    dnnl_primitive_attr_t attr;
    dnnl_post_ops_t po;
    vkml_status st = onednn_attr_create(&attr, &po, err);
    if (st)
        return st;
    const int32_t runtime = DNNL_RUNTIME_S32_VAL;
    bool ok =
        c->qlinear
            ? dnnl_primitive_attr_set_output_scales(attr, c->n_scales, c->n_scales > 1 ? 1 << 1 : 0,
                                                    scales) == dnnl_success
            : !hi || dnnl_primitive_attr_set_output_scales(attr, 1, 0, &sixty_four) == dnnl_success;
    ok = ok && (!c->x_zero || dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_SRC, 1, 0,
                                                                  &runtime) == dnnl_success);
    if (!hi) {
        ok = ok && (!c->y_zero || dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_DST, 1, 0,
                                                                      &runtime) == dnnl_success);
        ok = ok && (!c->split ||
                    dnnl_post_ops_append_binary(po, dnnl_binary_add, &c->hi_md) == dnnl_success);
        /* a round before the zero point (onednn_round_before_zero_point's) */
        ok = ok && (!c->y_zero || dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_round, 0.0f,
                                                               0.0f) == dnnl_success);
        ok = ok && dnnl_primitive_attr_set_post_ops(attr, po) == dnnl_success;
    }
    if (ok)
        st = onednn_pd(&cd, attr, pd, err);
    onednn_attr_destroy(attr, po);
    if (!st && *pd && onednn_pd_is_ref(*pd)) { /* the C kernel does better */
        dnnl_primitive_desc_destroy(*pd);
        *pd = NULL;
    }
    return st;
}

/* An integer conv oneDNN takes, channels-last in and out (its int8 kernels' layout). */
static bool qconv_claim(const graph_value *values, const graph_node *node,
                        const device_value_plan *plans, const onednn_layout *stored,
                        onednn_claim *claim)
{
    (void)stored;
    qconv c;
    if (!qconv_setup(values, node, plans, ONEDNN_NXC, ONEDNN_NXC, &c))
        return false;
    float *scales = malloc(sizeof(float) * (size_t)(c.q.conv.out_channels + 1));
    dnnl_primitive_desc_t pd = NULL, pd_hi = NULL;
    vkml_error ignored;
    if (scales)
        qconv_pd(&c, values, node, plans, scales, false, &pd, &ignored);
    if (scales && pd && c.split)
        qconv_pd(&c, values, node, plans, scales, true, &pd_hi, &ignored);
    free(scales);
    bool taken = pd && (!c.split || pd_hi);
    if (pd)
        dnnl_primitive_desc_destroy(pd);
    if (pd_hi)
        dnnl_primitive_desc_destroy(pd_hi);
    if (!taken)
        return false;
    *claim = (onednn_claim){
        .layout_inputs = 1u, .layout_output = true, .in = ONEDNN_NXC, .out = ONEDNN_NXC};
    return true;
}

/* The int8 x at *xm reordered into a uint8 buffer holding x + 128, which *xm then names. */
static vkml_status shift_x_step(onednn_node *n, const qconv *c, dnnl_memory_t *xm, vkml_error *err)
{
    void *buf = onednn_buffer(n, dnnl_memory_desc_get_size(&c->x_conv));
    dnnl_memory_t um = buf ? onednn_mem(n, &c->x_conv, buf) : NULL;
    if (!um)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory");
    vkml_status st = onednn_shift_step(n, *xm, &c->x_want, um, &c->x_conv, err);
    *xm = um;
    return st;
}

static vkml_status qconv_build(const onednn_build *b, onednn_node *n, bool *taken, vkml_error *err)
{
    qconv c;
    *taken = false;
    if (!qconv_setup(b->values, b->node, b->plans, b->claim.in, b->claim.out, &c))
        return VKML_OK;
    float *scales = onednn_buffer(n, sizeof(float) * (size_t)(c.q.conv.out_channels + 1));
    if (!scales)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory");
    dnnl_primitive_desc_t pd, pd_hi = NULL;
    vkml_status st = qconv_pd(&c, b->values, b->node, b->plans, scales, false, &pd, err);
    if (st || !pd)
        return st;
    if (c.split &&
        ((st = qconv_pd(&c, b->values, b->node, b->plans, scales, true, &pd_hi, err)) || !pd_hi)) {
        dnnl_primitive_desc_destroy(pd);
        return st;
    }
    onednn_note_impl(n, pd);
    if (c.split)
        onednn_note_split(n);
    dnnl_memory_desc_t x_have, y_have;
    onednn_md(&x_have, c.rank, c.xd, b->stored[c.x]);
    onednn_md_dtype(&x_have, b->values[c.x].dtype);
    onednn_md(&y_have, c.rank, c.yd, b->stored[c.y]);
    onednn_md_dtype(&y_have, c.q.y_dtype);
    dnnl_memory_t xm, wm, ym, bm = NULL, xzm = NULL, yzm = NULL, wm_hi = NULL, hm = NULL;
    onednn_pending pending = {0};
    const void *w_data = b->plans[c.w].constant, *w_hi = NULL;
    size_t w_count = (size_t)c.q.b_count;
    int8_t *shifted = c.shift_w || c.split ? onednn_buffer(n, w_count + 1) : NULL;
    int8_t *hi = c.split ? onednn_buffer(n, w_count + 1) : NULL;
    void *h_buf = c.split ? onednn_buffer(n, dnnl_memory_desc_get_size(&c.hi_md)) : NULL;
    if ((c.shift_w || c.split) && (!shifted || (c.split && (!hi || !h_buf)))) {
        dnnl_primitive_desc_destroy(pd);
        if (pd_hi)
            dnnl_primitive_desc_destroy(pd_hi);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory");
    }
    if (c.shift_w)
        onednn_shifted_weights(b->values, b->plans, c.w, role_value(b->node, c.q.in->b_zero),
                               &c.q.b_zero, shifted);
    else if (c.split)
        memcpy(shifted, w_data, w_count);
    if (c.split)
        onednn_split_weights(shifted, hi, (int64_t)w_count);
    if (shifted)
        w_data = shifted;
    w_hi = hi;
    st = onednn_pack(n, &c.w_user, w_data,
                     dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), &wm, err);
    if (!st && c.split)
        st =
            onednn_pack(n, &c.w_user, w_hi,
                        dnnl_primitive_desc_query_md(pd_hi, dnnl_query_weights_md, 0), &wm_hi, err);
    if (!st && c.split && !(hm = onednn_mem(n, &c.hi_md, h_buf)))
        st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory");
    if (!st)
        st = onednn_bind_input(n, &x_have, b->ptrs[c.x], &c.x_want, &xm, err);
    if (!st && c.shift_x)
        st = shift_x_step(n, &c, &xm, err);
    if (!st && ((c.bias >= 0 && !(bm = onednn_mem(n, &c.bias_md, b->ptrs[c.bias]))) ||
                (c.x_zero && !(xzm = onednn_zero_point_mem(n, c.x_zero))) ||
                (c.y_zero && !(yzm = onednn_zero_point_mem(n, c.y_zero)))))
        st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory");
    if (!st)
        st = onednn_bind_output(n, &y_have, b->ptrs[c.y], &c.y_want, &ym, &pending, err);
    if (st) {
        dnnl_primitive_desc_destroy(pd);
        if (pd_hi)
            dnnl_primitive_desc_destroy(pd_hi);
        return st;
    }
    if (c.split) { /* hi's convolution first, into the buffer lo's adds */
        dnnl_exec_arg_t hi_args[ONEDNN_MAX_ARGS] = {
            {DNNL_ARG_SRC, xm}, {DNNL_ARG_WEIGHTS, wm_hi}, {DNNL_ARG_DST, hm}};
        int n_hi = 3;
        if (xzm)
            hi_args[n_hi++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, xzm};
        if ((st = onednn_add_pd_step(n, pd_hi, n_hi, hi_args, err))) {
            dnnl_primitive_desc_destroy(pd);
            return st;
        }
    }
    dnnl_exec_arg_t args[ONEDNN_MAX_ARGS] = {
        {DNNL_ARG_SRC, xm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, ym}};
    int n_args = 3;
    if (bm)
        args[n_args++] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, bm};
    if (xzm)
        args[n_args++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, xzm};
    if (yzm)
        args[n_args++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, yzm};
    if (hm)
        args[n_args++] = (dnnl_exec_arg_t){onednn_post_op_src1(0), hm};
    if ((st = onednn_add_pd_step(n, pd, n_args, args, err)))
        return st;
    *taken = true;
    return onednn_bind_output_finish(n, &pending, err);
}

const onednn_op onednn_qconv_op = {.claim = qconv_claim, .build = qconv_build};
