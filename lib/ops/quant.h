#pragma once
/*
 * Quantization (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear) and the integer
 * products (MatMulInteger, QLinearMatMul, ConvInteger, QLinearConv): attributes parsed
 * once, and the layouts the shape functions, CPU kernels and Vulkan lowerings share.
 */
#include "ops/conv.h"
#include "ops/matmul.h"

/* QuantizeLinear / DequantizeLinear attributes. */
typedef struct quant_params {
    int64_t axis;            /* may be negative; only read for per-axis and blocked scales */
    int64_t block_size;      /* 0: per tensor or per axis */
    vkml_dtype output_dtype; /* attribute output_dtype; UNDEFINED when absent */
    bool no_saturate;        /* QuantizeLinear saturate=0: float8 overflow gives inf/NaN */
    vkml_dtype precision;    /* attribute precision (QuantizeLinear's division); UNDEFINED:
                              * the scale's type */
} quant_params;

/* Where element i of x finds its scale and zero point:
 *   in = i % inner, a = (i / inner) % axis_dim, outer = i / (inner * axis_dim)
 *   index = outer * outer_stride + (a / block) * axis_stride + in * inner_stride
 * Per tensor: every stride 0. Per axis: axis_stride 1. Blocked: the scale has x's shape
 * with the axis divided by block (rounded up). */
typedef struct quant_layout {
    int64_t count; /* elements of x */
    int64_t inner, axis_dim, block;
    int64_t outer_stride, axis_stride, inner_stride;
} quant_layout;

static inline int64_t quant_scale_index(const quant_layout *l, int64_t i)
{
    int64_t in = i % l->inner, rest = i / l->inner;
    return (rest / l->axis_dim) * l->outer_stride +
           ((rest % l->axis_dim) / l->block) * l->axis_stride + in * l->inner_stride;
}

/* The layout of a QuantizeLinear/DequantizeLinear node (x input 0, scale 1, zero point 2). */
vkml_status quant_layout_parse(const graph_value *values, const graph_node *node, quant_layout *l,
                               vkml_error *err);

/* A per-tensor or per-row/per-column vector (scale or zero point) read along a tensor:
 * element i uses entry (i / period) % len; len 1 for per tensor. */
typedef struct quant_vec {
    int64_t period, len;
} quant_vec;

static inline int64_t quant_vec_index(const quant_vec *v, int64_t i)
{
    return (i / v->period) % v->len;
}

/* The inputs of an integer product, by role (-1: the op has no such input). */
typedef struct qprod_inputs {
    int a, a_scale, a_zero, b, b_scale, b_zero, y_scale, y_zero, bias;
} qprod_inputs;

/* An integer product node (MatMulInteger, QLinearMatMul, ConvInteger, QLinearConv) with its
 * shapes resolved. Products run on (A - a_zero) and (B - b_zero) widened to int32; the
 * QLinear ops then requantize Y = saturate(rint(acc * a_scale * b_scale / y_scale) + y_zero). */
typedef struct qprod_params {
    const qprod_inputs *in;
    bool is_conv;
    matmul_params mm; /* !is_conv: A [.., M, K] x B [.., K, N] */
    conv_params conv; /* is_conv: A = x, B = w */
    int64_t a_count, b_count, y_count;
    quant_vec a_zero, b_zero;            /* over A's and B's elements */
    quant_vec a_scale, b_scale, y_scale; /* over Y's elements */
    quant_vec y_zero;                    /* over Y's elements */
    vkml_dtype y_dtype;                  /* int32, or y_zero's type */
} qprod_params;

vkml_status qprod_params_parse(const graph_value *values, const graph_node *node, qprod_params *p,
                               vkml_error *err);

/* a_scale * b_scale / y_scale in the scales' precision (float16 scales: each step rounded
 * to float16), as ONNX's reference requantizes: the CPU and Vulkan kernels share it. */
double qprod_multiplier(vkml_dtype scale_type, float a_scale, float b_scale, float y_scale);
/* Element i of a constant tensor of an integer or float dtype, as a double. */
double quant_const_at(const graph_value *v, int64_t i);
