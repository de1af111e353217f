/* Quantization and integer products on the CPU. */
#include "ops/quant.h"
#include "cpu/conv_run.h"
#include "cpu/cpu_elem.h"
#include "cpu/cpu_kernels.h"
#include "cpu/matprod.h"

#include <math.h>
#include <stdlib.h>

/* x / scale as ONNX computes it: in the precision attribute's type, else the scale's,
 * for float x (float16 and bfloat16 quotients rounded to that type); double for int32 x. */
static double quotient(vkml_dtype x_type, double x, vkml_dtype s_type, double s)
{
    if (x_type == VKML_DTYPE_INT32)
        return x / s;
    float q = (float)x / (float)s;
    if (s_type == VKML_DTYPE_FLOAT16)
        return vkml_half_to_float(vkml_half_from_float(q));
    if (s_type == VKML_DTYPE_BFLOAT16)
        return vkml_bfloat16_to_float(vkml_bfloat16_from_float(q));
    return q;
}

/* rint (ties to even), plus zero point, saturated to the dtype. */
static int64_t saturate(vkml_dtype t, double v)
{
    int64_t lo = cpu_int_min(t), hi = cpu_int_max(t);
    if (v != v)
        return 0;
    return v <= (double)lo ? lo : v >= (double)hi ? hi : (int64_t)v;
}

typedef struct quant_job {
    const op_cpu_args *args;
    quant_layout l;
    vkml_dtype x_type, s_type, z_type, y_type;
    vkml_dtype div_type; /* x / scale is computed in (precision, else the scale's type) */
    bool quantize;
    bool float_out, saturate; /* quantizing to float8/float4, Cast's saturate rule */
} quant_job;

/* The common forms in float32 arithmetic, with the same results as quant_range's doubles:
 * the quotient is float32 there too and its rounded value plus a zero point is exact (or
 * saturates whatever its rounding); (x - zero) * scale is exact in double and rounded once
 * to float32, as the float32 product is. Per tensor, float32 x and scale (and division),
 * int8 or uint8 y; or back. */
static bool bytes_form(const quant_job *j)
{
    const quant_layout *l = &j->l;
    vkml_dtype q = j->quantize ? j->y_type : j->x_type, f = j->quantize ? j->x_type : j->y_type;
    return !l->outer_stride && !l->axis_stride && !l->inner_stride && f == VKML_DTYPE_FLOAT &&
           j->s_type == VKML_DTYPE_FLOAT && j->div_type == VKML_DTYPE_FLOAT &&
           (q == VKML_DTYPE_UINT8 || q == VKML_DTYPE_INT8);
}

static void bytes_range(const quant_job *j, int64_t begin, int64_t end)
{
    const void *z = j->args->in[2];
    float scale = *(const float *)j->args->in[1];
    float zero = z ? (float)cpu_load_i64(z, j->z_type, 0) : 0.0f;
    bool is_signed = (j->quantize ? j->y_type : j->x_type) == VKML_DTYPE_INT8;
    if (!j->quantize) {
        const void *x = j->args->in[0];
        float *y = j->args->out[0];
        for (int64_t i = begin; i < end; i++)
            y[i] = ((is_signed ? (float)((const int8_t *)x)[i] : (float)((const uint8_t *)x)[i]) -
                    zero) *
                   scale;
        return;
    }
    const float *x = j->args->in[0];
    float lo = is_signed ? -128.0f : 0.0f, hi = is_signed ? 127.0f : 255.0f;
    for (int64_t i = begin; i < end; i++) {
        float v = nearbyintf(x[i] / scale) + zero;
        v = v != v ? 0.0f : v < lo ? lo : v > hi ? hi : v;
        if (is_signed)
            ((int8_t *)j->args->out[0])[i] = (int8_t)v;
        else
            ((uint8_t *)j->args->out[0])[i] = (uint8_t)v;
    }
}

static void quant_range(void *ctx, int64_t begin, int64_t end)
{
    const quant_job *j = ctx;
    if (bytes_form(j)) {
        bytes_range(j, begin, end);
        return;
    }
    const void *x = j->args->in[0], *s = j->args->in[1], *z = j->args->in[2];
    void *y = j->args->out[0];
    for (int64_t i = begin; i < end; i++) {
        int64_t si = quant_scale_index(&j->l, i);
        double scale = cpu_load_f64(s, j->s_type, si);
        double zero = z ? cpu_load_f64(z, j->z_type, si) : 0.0;
        if (j->quantize) {
            double q = quotient(j->x_type, cpu_load_f64(x, j->x_type, i), j->div_type, scale);
            if (j->float_out) /* float8, float4: no integer rounding */
                cpu_store_small_float(y, j->y_type, i, q + zero, j->saturate);
            else
                cpu_store_i64(y, j->y_type, i, saturate(j->y_type, nearbyint(q) + zero));
        } else {
            cpu_store_f64(y, j->y_type, i, (cpu_load_f64(x, j->x_type, i) - zero) * scale);
        }
    }
}

static vkml_status quant_run(const op_cpu_args *args, bool quantize, vkml_error *err)
{
    const graph_node *node = args->node;
    quant_job job = {.args = args, .quantize = quantize};
    vkml_status st = quant_layout_parse(args->values, node, &job.l, err);
    if (st)
        return st;
    job.x_type = args->values[node->inputs[0]].dtype;
    job.s_type = args->values[node->inputs[1]].dtype;
    const quant_params *qp = node->params;
    job.div_type = qp->precision ? qp->precision : job.s_type;
    job.z_type = args->in[2] ? args->values[node->inputs[2]].dtype : VKML_DTYPE_UNDEFINED;
    job.y_type = args->values[node->outputs[0]].dtype;
    job.float_out = vkml_dtype_is_small_float(job.y_type);
    job.saturate = !qp->no_saturate;
    if (vkml_dtype_size(job.y_type) == 0) /* packed: neighbours share bytes, one thread */
        quant_range(&job, 0, job.l.count);
    else
        sched_parallel_for(job.l.count, 8.0, quant_range, &job);
    return VKML_OK;
}

vkml_status cpu_quantize(const op_cpu_args *args, vkml_error *err)
{
    return quant_run(args, true, err);
}

vkml_status cpu_dequantize(const op_cpu_args *args, vkml_error *err)
{
    return quant_run(args, false, err);
}

vkml_status cpu_dynamic_quantize(const op_cpu_args *args, vkml_error *err)
{
    (void)err;
    const graph_value *xv = &args->values[args->node->inputs[0]];
    int64_t count = (int64_t)vkml_tensor_element_count(xv->rank, xv->dims);
    const float *x = args->in[0];
    float lo = 0.0f, hi = 0.0f; /* the range always holds 0 */
    for (int64_t i = 0; i < count; i++) {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    float scale = (hi > lo ? hi - lo : 1.0f) / 255.0f;
    float zero = nearbyintf(fminf(fmaxf(0.0f - lo / scale, 0.0f), 255.0f));
    uint8_t *y = args->out[0];
    for (int64_t i = 0; i < count; i++)
        y[i] = (uint8_t)saturate(VKML_DTYPE_UINT8, nearbyintf(x[i] / scale) + zero);
    if (args->out[1])
        *(float *)args->out[1] = scale;
    if (args->out[2])
        *(uint8_t *)args->out[2] = (uint8_t)zero;
    return VKML_OK;
}

/* Integer products. */

/* int32 copy of an operand minus its zero point (absent: 0). */
static int32_t *widen_operand(const op_cpu_args *args, int data, int zero, int64_t count,
                              const quant_vec *zv)
{
    const graph_node *node = args->node;
    vkml_dtype t = args->values[node->inputs[data]].dtype;
    const void *z = zero >= 0 && zero < node->n_inputs ? args->in[zero] : NULL;
    int32_t *w = malloc(sizeof(int32_t) * (size_t)(count ? count : 1));
    for (int64_t i = 0; w && i < count; i++)
        w[i] = (int32_t)(cpu_load_i64(args->in[data], t, i) -
                         (z ? cpu_load_i64(z, t, quant_vec_index(zv, i)) : 0));
    return w;
}

static void matrix_product(const qprod_params *p, const int32_t *a, const int32_t *b, int32_t *y)
{
    const matmul_params *mm = &p->mm;
    for (int64_t i = 0; i < mm->batch_count; i++) {
        int64_t a_off, b_off;
        matmul_batch_offsets(mm, i, &a_off, &b_off);
        cpu_matprod_args g = {.dtype = VKML_DTYPE_INT32,
                              .m = mm->m,
                              .n = mm->n,
                              .k = mm->k,
                              .a = a + a_off,
                              .a_row = mm->k,
                              .a_col = 1,
                              .b = b + b_off,
                              .b_row = mm->n,
                              .b_col = 1,
                              .y = y + i * mm->m * mm->n};
        cpu_matprod(&g);
    }
}

/* The requantization scale of output element i (qprod_multiplier of its three scales). */
static double out_scale(const op_cpu_args *args, const qprod_params *p, int64_t i)
{
    const qprod_inputs *in = p->in;
    vkml_dtype t = args->values[args->node->inputs[in->a_scale]].dtype;
    float sa = (float)cpu_load_f64(args->in[in->a_scale], t, quant_vec_index(&p->a_scale, i));
    float sb = (float)cpu_load_f64(args->in[in->b_scale], t, quant_vec_index(&p->b_scale, i));
    float sy = (float)cpu_load_f64(args->in[in->y_scale], t, quant_vec_index(&p->y_scale, i));
    return qprod_multiplier(t, sa, sb, sy);
}

static void requantize(const op_cpu_args *args, const qprod_params *p, int32_t *acc)
{
    const qprod_inputs *in = p->in;
    const void *bias = in->bias >= 0 && in->bias < args->node->n_inputs ? args->in[in->bias] : NULL;
    const void *yz = args->in[in->y_zero];
    int64_t osize = p->is_conv ? window_out_size(&p->conv.win) : 1;
    for (int64_t i = 0; i < p->y_count; i++) {
        int64_t v = acc[i];
        if (bias) /* int32 per output channel */
            v += ((const int32_t *)bias)[(i / osize) % p->conv.out_channels];
        double q = nearbyint((double)v * out_scale(args, p, i));
        if (yz)
            q += (double)cpu_load_i64(yz, p->y_dtype, quant_vec_index(&p->y_zero, i));
        cpu_store_i64(args->out[0], p->y_dtype, i, saturate(p->y_dtype, q));
    }
}

vkml_status cpu_qproduct(const op_cpu_args *args, vkml_error *err)
{
    qprod_params p;
    vkml_status st = qprod_params_parse(args->values, args->node, &p, err);
    if (st)
        return st;
    const qprod_inputs *in = p.in;
    bool qlinear = in->y_scale >= 0;
    int32_t *a = widen_operand(args, in->a, in->a_zero, p.a_count, &p.a_zero);
    int32_t *b = widen_operand(args, in->b, in->b_zero, p.b_count, &p.b_zero);
    int32_t *y =
        qlinear ? malloc(sizeof(int32_t) * (size_t)(p.y_count ? p.y_count : 1)) : args->out[0];
    if (!a || !b || !y) {
        st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "%s: no memory for int32 operands",
                       args->node->op_type);
    } else if (p.is_conv) {
        st = cpu_conv_run(&p.conv, VKML_DTYPE_INT32, a, b, y, err);
    } else {
        matrix_product(&p, a, b, y);
    }
    if (!st && qlinear)
        requantize(args, &p, y);
    free(a);
    free(b);
    if (qlinear)
        free(y);
    return st;
}
