/* Quantization and integer products: attribute parsers, layouts and shape functions. */
#include "ops/quant.h"
#include "ops/op_decls.h"

#include <string.h>

static const char *onnx_type_name(int64_t t)
{
    return vkml_dtype_name((vkml_dtype)t);
}

/* The quantized types: 8- and 16-bit integers, the packed 4- and 2-bit ones, float8 and
 * float4e2m1 (float8e8m0 is a scale type, not a quantized one). */
static bool is_quant_int(vkml_dtype t)
{
    return t == VKML_DTYPE_INT8 || t == VKML_DTYPE_UINT8 || t == VKML_DTYPE_INT16 ||
           t == VKML_DTYPE_UINT16 || (t > 0 && t < 32 && ((DT_FLOAT8 | DT_PACKED) & (1u << t)));
}

static bool is_scale_float(vkml_dtype t)
{
    return t == VKML_DTYPE_FLOAT || t == VKML_DTYPE_FLOAT16 || t == VKML_DTYPE_BFLOAT16;
}

vkml_status quant_parse(const graph_node *node, void *params, vkml_error *err)
{
    quant_params *p = params;
    static const op_attr_spec specs[] = {{"axis", GRAPH_ATTR_INT},
                                         {"block_size", GRAPH_ATTR_INT},
                                         {"saturate", GRAPH_ATTR_INT},
                                         {"output_dtype", GRAPH_ATTR_INT},
                                         {"precision", GRAPH_ATTR_INT}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    if (st)
        return st;
    p->axis = graph_attr_int(node, "axis", 1);
    p->block_size = graph_attr_int(node, "block_size", 0);
    if (p->block_size < 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: block_size %lld is negative",
                         node->op_type, (long long)p->block_size);
    int64_t out = graph_attr_int(node, "output_dtype", 0);
    if (out != 0 && (out < 0 || out > VKML_DTYPE_INT2 || vkml_dtype_bits((vkml_dtype)out) == 0))
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s: output_dtype %s is not supported",
                         node->op_type, onnx_type_name(out));
    p->output_dtype = (vkml_dtype)out;
    int64_t saturate = graph_attr_int(node, "saturate", 1);
    if (saturate != 0 && saturate != 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: attribute 'saturate' must be 0 or 1, not %lld", node->op_type,
                         (long long)saturate);
    p->no_saturate = saturate == 0;
    int64_t precision = graph_attr_int(node, "precision", 0);
    if (precision != 0 && !is_scale_float((vkml_dtype)precision))
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s: precision %s is not supported",
                         node->op_type, onnx_type_name(precision));
    p->precision = (vkml_dtype)precision;
    return VKML_OK;
}

static bool same_shape(const graph_value *a, const graph_value *b)
{
    return a->rank == b->rank && !memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->rank);
}

static int64_t max1(int64_t v)
{
    return v > 1 ? v : 1;
}

/* Per axis or blocked: axis resolved, scale shape checked against x. */
static vkml_status layout_along_axis(const graph_node *node, const quant_params *p,
                                     const graph_value *x, const graph_value *s, quant_layout *l,
                                     vkml_error *err)
{
    char sx[160], ss[160];
    int64_t axis = p->axis < 0 ? p->axis + x->rank : p->axis;
    if (axis < 0 || axis >= x->rank)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: axis %lld is out of range for rank %d",
                         node->op_type, (long long)p->axis, x->rank);
    l->inner = 1;
    for (int d = (int)axis + 1; d < x->rank; d++)
        l->inner *= x->dims[d];
    l->inner = max1(l->inner);
    l->axis_dim = max1(x->dims[axis]);
    bool ok;
    if (p->block_size == 0) { /* per axis: 1-D scale of x's axis length */
        ok = s->rank == 1 && s->dims[0] == x->dims[axis];
        l->axis_stride = 1;
    } else {
        /* Blocks of at least the axis length are one block: the same index, and no
         * overflow from an absurd block_size. */
        int64_t block = p->block_size < l->axis_dim ? p->block_size : l->axis_dim;
        ok = s->rank == x->rank;
        for (int d = 0; ok && d < x->rank; d++)
            ok = d == axis ? s->dims[d] == (x->dims[d] + block - 1) / block
                           : s->dims[d] == x->dims[d];
        l->block = block;
        l->inner_stride = 1;
        l->axis_stride = l->inner;
        l->outer_stride = l->inner * (s->rank ? max1(s->dims[axis]) : 1);
    }
    if (!ok)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: scale %s does not fit input %s along axis %lld (block_size %lld)",
                         node->op_type, graph_shape_string(s->rank, s->dims, ss, sizeof(ss)),
                         graph_shape_string(x->rank, x->dims, sx, sizeof(sx)), (long long)axis,
                         (long long)p->block_size);
    return VKML_OK;
}

vkml_status quant_layout_parse(const graph_value *values, const graph_node *node, quant_layout *l,
                               vkml_error *err)
{
    const quant_params *p = node->params;
    vkml_status st;
    if ((st = op_require_counts(node, 2, 3, 1, err)) ||
        (st = op_require_input(values, node, 0, err)) ||
        (st = op_require_input(values, node, 1, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]], *s = &values[node->inputs[1]];
    bool has_zero = node->n_inputs > 2 && node->inputs[2] >= 0;
    if (has_zero) {
        if ((st = op_require_input(values, node, 2, err)))
            return st;
        const graph_value *z = &values[node->inputs[2]];
        /* One element each is per tensor whatever the ranks ([] and [1], as ONNX's tests). */
        bool both_scalar = vkml_tensor_element_count(z->rank, z->dims) == 1 &&
                           vkml_tensor_element_count(s->rank, s->dims) == 1;
        if (!same_shape(z, s) && !both_scalar)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "%s: zero point '%s' and scale '%s' differ in shape", node->op_type,
                             z->name, s->name);
    }
    memset(l, 0, sizeof(*l));
    l->count = (int64_t)vkml_tensor_element_count(x->rank, x->dims);
    l->inner = l->axis_dim = l->block = 1;
    bool per_tensor = s->rank == 0 || (s->rank == 1 && s->dims[0] == 1 && p->block_size == 0);
    return per_tensor ? VKML_OK : layout_along_axis(node, p, x, s, l, err);
}

vkml_status quantize_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    const quant_params *p = node->params;
    quant_layout l;
    vkml_status st = quant_layout_parse(values, node, &l, err);
    if (st)
        return st;
    const graph_value *x = &values[node->inputs[0]], *s = &values[node->inputs[1]];
    const graph_value *z =
        node->n_inputs > 2 && node->inputs[2] >= 0 ? &values[node->inputs[2]] : NULL;
    static const vkml_dtype x_types[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16, VKML_DTYPE_BFLOAT16,
                                         VKML_DTYPE_INT32};
    if ((st = op_require_dtype(values, node, 0, x_types, VKML_ARRAY_SIZE(x_types), err)))
        return st;
    if (!is_scale_float(s->dtype))
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "QuantizeLinear: scale '%s' of dtype %s",
                         s->name, vkml_dtype_name(s->dtype));
    vkml_dtype y = z ? z->dtype : p->output_dtype ? p->output_dtype : VKML_DTYPE_UINT8;
    if (z && p->output_dtype && p->output_dtype != z->dtype)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "QuantizeLinear: output_dtype %s differs from the zero point's %s",
                         vkml_dtype_name(p->output_dtype), vkml_dtype_name(z->dtype));
    if (!is_quant_int(y))
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "QuantizeLinear: quantizing to %s is not supported", vkml_dtype_name(y));
    op_set_output(values, node, 0, y, x->rank, x->dims);
    return VKML_OK;
}

vkml_status dequantize_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    const quant_params *p = node->params;
    quant_layout l;
    vkml_status st = quant_layout_parse(values, node, &l, err);
    if (st)
        return st;
    const graph_value *x = &values[node->inputs[0]], *s = &values[node->inputs[1]];
    if (!is_quant_int(x->dtype) && x->dtype != VKML_DTYPE_INT32)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "DequantizeLinear: input '%s' of dtype %s is not supported", x->name,
                         vkml_dtype_name(x->dtype));
    if (node->n_inputs > 2 && node->inputs[2] >= 0 && values[node->inputs[2]].dtype != x->dtype)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "DequantizeLinear: zero point and input '%s' differ in dtype", x->name);
    if (!is_scale_float(s->dtype))
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "DequantizeLinear: scale '%s' of dtype %s",
                         s->name, vkml_dtype_name(s->dtype));
    vkml_dtype y = p->output_dtype ? p->output_dtype : s->dtype;
    if (!is_scale_float(y))
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "DequantizeLinear: output_dtype %s is not supported", vkml_dtype_name(y));
    op_set_output(values, node, 0, y, x->rank, x->dims);
    return VKML_OK;
}

vkml_status dynamic_quantize_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    static const vkml_dtype x_types[] = {VKML_DTYPE_FLOAT};
    vkml_status st;
    if ((st = op_require_counts(node, 1, 1, 1, err)) ||
        (st = op_require_input(values, node, 0, err)) ||
        (st = op_require_dtype(values, node, 0, x_types, 1, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]];
    op_set_output(values, node, 0, VKML_DTYPE_UINT8, x->rank, x->dims);
    if (node->n_outputs > 1)
        op_set_output(values, node, 1, VKML_DTYPE_FLOAT, 0, NULL);
    if (node->n_outputs > 2)
        op_set_output(values, node, 2, VKML_DTYPE_UINT8, 0, NULL);
    return VKML_OK;
}

/* Integer products: inputs by role, per op. */
static const qprod_inputs matmul_integer_inputs = {0, -1, 2, 1, -1, 3, -1, -1, -1};
static const qprod_inputs qlinear_matmul_inputs = {0, 1, 2, 3, 4, 5, 6, 7, -1};
static const qprod_inputs conv_integer_inputs = {0, -1, 2, 1, -1, 3, -1, -1, -1};
static const qprod_inputs qlinear_conv_inputs = {0, 1, 2, 3, 4, 5, 6, 7, 8};

static const graph_value *role(const graph_value *values, const graph_node *node, int i)
{
    return i >= 0 && i < node->n_inputs && node->inputs[i] >= 0 ? &values[node->inputs[i]] : NULL;
}

/* A scale or zero point: absent or one element (per tensor), else a vector of `len`
 * entries that steps every `period` elements of the tensor it applies to. */
static vkml_status vec_parse(const graph_node *node, const graph_value *v, int64_t len,
                             int64_t period, const char *what, quant_vec *out, vkml_error *err)
{
    char sv[160];
    out->period = 1;
    out->len = 1;
    if (!v || vkml_tensor_element_count(v->rank, v->dims) == 1)
        return VKML_OK;
    if (v->rank != 1 || v->dims[0] != len)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "%s: %s '%s' of shape %s (vkml takes a "
                         "scalar or %lld entries)",
                         node->op_type, what, v->name,
                         graph_shape_string(v->rank, v->dims, sv, sizeof(sv)), (long long)len);
    out->period = max1(period);
    out->len = max1(len);
    return VKML_OK;
}

static vkml_status check_types(const graph_value *values, const graph_node *node,
                               const qprod_inputs *in, vkml_error *err)
{
    const int operands[] = {in->a, in->b, in->y_zero}, zeros[] = {in->a_zero, in->b_zero, -1};
    for (int i = 0; i < 3; i++) {
        const graph_value *v = role(values, node, operands[i]), *z = role(values, node, zeros[i]);
        if (v && v->dtype != VKML_DTYPE_INT8 && v->dtype != VKML_DTYPE_UINT8)
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s: '%s' is %s; int8 or uint8 expected",
                             node->op_type, v->name, vkml_dtype_name(v->dtype));
        if (v && z && z->dtype != v->dtype)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: zero point '%s' is %s, '%s' %s",
                             node->op_type, z->name, vkml_dtype_name(z->dtype), v->name,
                             vkml_dtype_name(v->dtype));
    }
    const int scales[] = {in->a_scale, in->b_scale, in->y_scale};
    for (int i = 0; i < 3; i++) {
        const graph_value *s = role(values, node, scales[i]);
        if (s && !is_scale_float(s->dtype))
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s: scale '%s' of dtype %s",
                             node->op_type, s->name, vkml_dtype_name(s->dtype));
    }
    const graph_value *bias = role(values, node, in->bias);
    if (bias && bias->dtype != VKML_DTYPE_INT32)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: bias '%s' must be int32",
                         node->op_type, bias->name);
    return VKML_OK;
}

/* Shapes of a matrix or convolution product; M, N, K and the step of rows/columns. */
static vkml_status product_shape(const graph_value *values, const graph_node *node, qprod_params *p,
                                 vkml_error *err)
{
    const qprod_inputs *in = p->in;
    const graph_value *a = role(values, node, in->a), *b = role(values, node, in->b);
    vkml_status st;
    p->a_count = (int64_t)vkml_tensor_element_count(a->rank, a->dims);
    p->b_count = (int64_t)vkml_tensor_element_count(b->rank, b->dims);
    if (p->is_conv) {
        if ((st = conv_shape_parse(node, a, b, role(values, node, in->bias), &p->conv, err)))
            return st;
        int64_t m = p->conv.out_channels, per_m = p->b_count / max1(m);
        int64_t osize = window_out_size(&p->conv.win);
        p->y_count = p->conv.batch * m * osize;
        if ((st = vec_parse(node, role(values, node, in->a_zero), 1, 1, "zero point", &p->a_zero,
                            err)) ||
            (st = vec_parse(node, role(values, node, in->b_zero), m, per_m, "zero point",
                            &p->b_zero, err)) ||
            (st = vec_parse(node, role(values, node, in->a_scale), 1, 1, "scale", &p->a_scale,
                            err)) ||
            (st = vec_parse(node, role(values, node, in->b_scale), m, osize, "scale", &p->b_scale,
                            err)))
            return st;
        return vec_parse(node, role(values, node, in->y_scale), 1, 1, "scale", &p->y_scale, err);
    }
    if ((st = matmul_shape_parse(node, a, b, &p->mm, err)))
        return st;
    int64_t m = p->mm.m, n = p->mm.n, k = p->mm.k;
    p->y_count = p->mm.batch_count * m * n;
    if ((st = vec_parse(node, role(values, node, in->a_zero), m, k, "zero point", &p->a_zero,
                        err)) ||
        (st = vec_parse(node, role(values, node, in->b_zero), n, 1, "zero point", &p->b_zero,
                        err)) ||
        (st = vec_parse(node, role(values, node, in->a_scale), m, n, "scale", &p->a_scale, err)) ||
        (st = vec_parse(node, role(values, node, in->b_scale), n, 1, "scale", &p->b_scale, err)))
        return st;
    return vec_parse(node, role(values, node, in->y_scale), m, n, "scale", &p->y_scale, err);
}

vkml_status qprod_params_parse(const graph_value *values, const graph_node *node, qprod_params *p,
                               vkml_error *err)
{
    memset(p, 0, sizeof(*p));
    switch (node->op->id) {
    case OP_ID_MatMulInteger: p->in = &matmul_integer_inputs; break;
    case OP_ID_QLinearMatMul: p->in = &qlinear_matmul_inputs; break;
    case OP_ID_ConvInteger:
        p->in = &conv_integer_inputs;
        p->is_conv = true;
        break;
    default: p->in = &qlinear_conv_inputs; p->is_conv = true;
    }
    const qprod_inputs *in = p->in;
    bool qlinear = in->y_scale >= 0;
    vkml_status st;
    if ((st = op_require_counts(node, qlinear ? 8 : 2, qlinear ? (p->is_conv ? 9 : 8) : 4, 1, err)))
        return st;
    const int required[] = {in->a, in->b, in->a_scale, in->b_scale, in->y_scale};
    for (int i = 0; i < node->n_inputs; i++) {
        bool needed = false;
        for (size_t r = 0; r < VKML_ARRAY_SIZE(required); r++)
            needed |= required[r] == i;
        if ((needed || node->inputs[i] >= 0) && (st = op_require_input(values, node, i, err)))
            return st;
    }
    if ((st = check_types(values, node, in, err)))
        return st;
    const graph_value *yz = role(values, node, in->y_zero);
    p->y_dtype = !qlinear ? VKML_DTYPE_INT32 : yz ? yz->dtype : VKML_DTYPE_UINT8;
    if ((st = product_shape(values, node, p, err)))
        return st;
    quant_vec y_zero_axis = p->y_scale;
    p->y_zero.period = 1;
    p->y_zero.len = 1;
    if (yz && vkml_tensor_element_count(yz->rank, yz->dims) != 1)
        p->y_zero = y_zero_axis;
    return VKML_OK;
}

vkml_status qprod_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    qprod_params p;
    vkml_status st = qprod_params_parse(values, node, &p, err);
    if (st)
        return st;
    if (!p.is_conv) {
        matmul_set_output(values, node, &p.mm, role(values, node, p.in->a),
                          role(values, node, p.in->b), p.y_dtype);
        return VKML_OK;
    }
    conv_set_output(values, node, &p.conv, p.y_dtype);
    return VKML_OK;
}

double qprod_multiplier(vkml_dtype scale_type, float a_scale, float b_scale, float y_scale)
{
    if (scale_type != VKML_DTYPE_FLOAT16)
        return (double)((a_scale * b_scale) / y_scale);
    float ab = vkml_half_to_float(vkml_half_from_float(a_scale * b_scale));
    return vkml_half_to_float(vkml_half_from_float(ab / y_scale));
}

double quant_const_at(const graph_value *v, int64_t i)
{
    const void *d = v->data;
    switch (v->dtype) {
    case VKML_DTYPE_INT8: return ((const int8_t *)d)[i];
    case VKML_DTYPE_UINT8: return ((const uint8_t *)d)[i];
    case VKML_DTYPE_INT16: return ((const int16_t *)d)[i];
    case VKML_DTYPE_UINT16: return ((const uint16_t *)d)[i];
    case VKML_DTYPE_INT32: return ((const int32_t *)d)[i];
    case VKML_DTYPE_FLOAT: return ((const float *)d)[i];
    case VKML_DTYPE_FLOAT16: return vkml_half_to_float(((const uint16_t *)d)[i]);
    case VKML_DTYPE_BFLOAT16: return vkml_bfloat16_to_float(((const uint16_t *)d)[i]);
    default: return 0.0;
    }
}
