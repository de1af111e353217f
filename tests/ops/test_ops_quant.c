/*
 * Quantization, integer products, Einsum, Attention and the matrix products in every dtype
 * (suite 'ops'): CPU kernels against known values (from the ONNX node tests), Vulkan
 * devices against the CPU on odd shapes, and bad input refused naming op and reason.
 */
#include "op_harness.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

static const int64_t odd4[] = {5, 7, 11, 13};

static const vkml_dtype quant_types[] = {VKML_DTYPE_UINT8, VKML_DTYPE_INT8, VKML_DTYPE_UINT16,
                                         VKML_DTYPE_INT16};

/* A per-tensor, per-axis (axis 1) or blocked (axis 2, block 4) scale for x of odd4. */
typedef enum { PER_TENSOR, PER_AXIS, BLOCKED } granularity;
static const char *const granularity_name[] = {"per tensor", "per axis", "blocked"};

static int scale_shape(granularity g, int64_t *dims)
{
    if (g == PER_TENSOR)
        return 0;
    if (g == PER_AXIS) {
        dims[0] = odd4[1];
        return 1;
    }
    for (int d = 0; d < 4; d++)
        dims[d] = odd4[d];
    dims[2] = (odd4[2] + 3) / 4;
    return 4;
}

static void set_granularity(oh_case *c, granularity g)
{
    if (g == PER_AXIS)
        oh_attr_int(c, "axis", 1);
    if (g == BLOCKED) {
        oh_attr_int(c, "axis", -2);
        oh_attr_int(c, "block_size", 4);
    }
}

static void test_quantize(void)
{
    /* Known values (test_quantizelinear): ties round to even, saturation. */
    oh_case *c = oh_new("QuantizeLinear", 21);
    const float x[] = {0, 2, 3, 1000, -254, -1000}, s = 2;
    const uint8_t z = 128, y[] = {128, 129, 130, 255, 1, 0};
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){6}, x);
    oh_const(c, VKML_DTYPE_FLOAT, 0, NULL, &s);
    oh_const(c, VKML_DTYPE_UINT8, 0, NULL, &z);
    oh_expect(c, 0, y);
    oh_run(c, "QuantizeLinear u8 known values", OH_BOUND_EXACT);

    /* NaN gives 0, infinities saturate (int8, zero point 3). */
    c = oh_new("QuantizeLinear", 21);
    const float special[] = {NAN, INFINITY, -INFINITY, 0.5f, -1e30f};
    const int8_t z8 = 3, y8[] = {0, 127, -128, 3, -128};
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){5}, special);
    oh_const(c, VKML_DTYPE_FLOAT, 0, NULL, &s);
    oh_const(c, VKML_DTYPE_INT8, 0, NULL, &z8);
    oh_expect(c, 0, y8);
    oh_run(c, "QuantizeLinear i8 NaN and infinities", OH_BOUND_EXACT);

    for (int g = PER_TENSOR; g <= BLOCKED; g++)
        for (size_t t = 0; t < sizeof(quant_types) / sizeof(quant_types[0]); t++) {
            int64_t sd[4];
            int sr = scale_shape((granularity)g, sd);
            c = oh_new("QuantizeLinear", 21);
            oh_input(c, VKML_DTYPE_FLOAT, 4, odd4, -300, 300);
            oh_const_random(c, VKML_DTYPE_FLOAT, sr, sd, 0.5, 3);
            oh_const_random(c, quant_types[t], sr, sd, 0, 100);
            set_granularity(c, (granularity)g);
            char label[96];
            snprintf(label, sizeof(label), "QuantizeLinear %s %s", vkml_dtype_name(quant_types[t]),
                     granularity_name[g]);
            oh_run(c, label, OH_BOUND_EXACT);
        }

    /* No zero point: output_dtype, else uint8. */
    c = oh_new("QuantizeLinear", 21);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){7, 9}, -100, 100);
    oh_const(c, VKML_DTYPE_FLOAT, 0, NULL, &s);
    oh_attr_int(c, "output_dtype", VKML_DTYPE_INT16);
    oh_run(c, "QuantizeLinear output_dtype int16, no zero", OH_BOUND_EXACT);

    /* float16 input: CPU only. */
    c = oh_new("QuantizeLinear", 21);
    oh_input(c, VKML_DTYPE_FLOAT16, 2, (int64_t[]){7, 9}, -100, 100);
    oh_const_random(c, VKML_DTYPE_FLOAT16, 1, (int64_t[]){9}, 1, 2);
    oh_const_random(c, VKML_DTYPE_INT8, 1, (int64_t[]){9}, -5, 5);
    oh_attr_int(c, "axis", -1);
    oh_run(c, "QuantizeLinear f16 -> i8 per axis", OH_BOUND_EXACT);

    /* precision float with float16 values: the quotient is not rounded to float16 (CPU). */
    c = oh_new("QuantizeLinear", 23);
    oh_input(c, VKML_DTYPE_FLOAT16, 2, (int64_t[]){7, 9}, -100, 100);
    oh_const_random(c, VKML_DTYPE_FLOAT16, 0, NULL, 1, 2);
    oh_attr_int(c, "precision", VKML_DTYPE_FLOAT);
    oh_expect_gpu(c, false);
    oh_run(c, "QuantizeLinear f16 precision float", OH_BOUND_EXACT);

    /* Older opsets: 10 (per tensor only), 13 (axis). */
    c = oh_new("QuantizeLinear", 10);
    oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){3, 5, 7}, -50, 50);
    oh_const(c, VKML_DTYPE_FLOAT, 0, NULL, &s);
    oh_const(c, VKML_DTYPE_UINT8, 0, NULL, &z);
    oh_run(c, "QuantizeLinear opset 10", OH_BOUND_EXACT);
    c = oh_new("DequantizeLinear", 13);
    oh_input(c, VKML_DTYPE_INT8, 3, (int64_t[]){3, 5, 7}, -128, 127);
    oh_const_random(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, 0.1, 1);
    oh_const_random(c, VKML_DTYPE_INT8, 1, (int64_t[]){3}, -5, 5);
    oh_attr_int(c, "axis", 0);
    oh_run(c, "DequantizeLinear opset 13 axis 0", OH_BOUND_EXACT);

    /* float x with a float16 scale: CPU only. */
    c = oh_new("QuantizeLinear", 21);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){7, 9}, -100, 100);
    oh_const_random(c, VKML_DTYPE_FLOAT16, 0, NULL, 1, 2);
    oh_expect_gpu(c, false);
    oh_run(c, "QuantizeLinear f32 with f16 scale", OH_BOUND_EXACT);
}

static void test_dequantize(void)
{
    oh_case *c = oh_new("DequantizeLinear", 21);
    const uint8_t x[] = {0, 3, 128, 255}, z = 128;
    const float s = 2, y[] = {-256, -250, 0, 254};
    oh_const(c, VKML_DTYPE_UINT8, 1, (int64_t[]){4}, x);
    oh_const(c, VKML_DTYPE_FLOAT, 0, NULL, &s);
    oh_const(c, VKML_DTYPE_UINT8, 0, NULL, &z);
    oh_expect(c, 0, y);
    oh_run(c, "DequantizeLinear u8 known values", OH_BOUND_EXACT);

    const vkml_dtype types[] = {VKML_DTYPE_UINT8, VKML_DTYPE_INT8, VKML_DTYPE_UINT16,
                                VKML_DTYPE_INT16, VKML_DTYPE_INT32};
    for (int g = PER_TENSOR; g <= BLOCKED; g++)
        for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
            int64_t sd[4];
            int sr = scale_shape((granularity)g, sd);
            c = oh_new("DequantizeLinear", 21);
            oh_input(c, types[t], 4, odd4, types[t] == VKML_DTYPE_INT8 ? -128 : 0, 127);
            oh_const_random(c, VKML_DTYPE_FLOAT, sr, sd, 0.01, 3);
            oh_const_random(c, types[t], sr, sd, 0, 100);
            set_granularity(c, (granularity)g);
            char label[96];
            snprintf(label, sizeof(label), "DequantizeLinear %s %s", vkml_dtype_name(types[t]),
                     granularity_name[g]);
            oh_run(c, label, OH_BOUND_EXACT);
        }

    /* float16 scale gives a float16 output: CPU only. */
    c = oh_new("DequantizeLinear", 21);
    oh_input(c, VKML_DTYPE_INT8, 2, (int64_t[]){7, 9}, -128, 127);
    oh_const_random(c, VKML_DTYPE_FLOAT16, 0, NULL, 0.01, 0.1);
    oh_run(c, "DequantizeLinear i8 -> f16", OH_BOUND_FP16);
}

static void test_dynamic_quantize(void)
{
    oh_case *c = oh_new("DynamicQuantizeLinear", 11);
    const float x[] = {0, 2, -3, -2.5f, 1.34f, 0.5f}, scale = 0.019607844f;
    const uint8_t y[] = {153, 255, 0, 26, 221, 179}, zero = 153;
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){6}, x);
    oh_outputs(c, 3);
    oh_expect(c, 0, y);
    oh_expect(c, 1, &scale);
    oh_expect(c, 2, &zero);
    oh_run(c, "DynamicQuantizeLinear known values", OH_BOUND_EXACT);

    /* Odd shape, all positive (the range still holds 0), and all zero. */
    const double ranges[][2] = {{-3, 7}, {0.5, 4}, {0, 0}};
    for (int r = 0; r < 3; r++) {
        c = oh_new("DynamicQuantizeLinear", 11);
        oh_input(c, VKML_DTYPE_FLOAT, 4, odd4, ranges[r][0], ranges[r][1]);
        oh_outputs(c, 3);
        char label[96];
        snprintf(label, sizeof(label), "DynamicQuantizeLinear [5,7,11,13] in [%g, %g]",
                 ranges[r][0], ranges[r][1]);
        oh_run(c, label, OH_BOUND_EXACT);
    }
}

/* A QLinearMatMul of int8 130 x 100 by 100 x 90: past one block of qmatmul.comp each way. */
static void qlinear_matmul_130(const char *label)
{
    oh_case *c = oh_new("QLinearMatMul", 21);
    oh_input(c, VKML_DTYPE_INT8, 2, (int64_t[]){130, 100}, -128, 127);
    oh_const_random(c, VKML_DTYPE_FLOAT, 0, NULL, 0.001, 0.01);
    oh_const_random(c, VKML_DTYPE_INT8, 0, NULL, -20, 20);
    oh_const_random(c, VKML_DTYPE_INT8, 2, (int64_t[]){100, 90}, -128, 127);
    oh_const_random(c, VKML_DTYPE_FLOAT, 0, NULL, 0.001, 0.01);
    oh_const_random(c, VKML_DTYPE_INT8, 0, NULL, -20, 20);
    oh_const_random(c, VKML_DTYPE_FLOAT, 0, NULL, 0.05, 0.2);
    oh_const_random(c, VKML_DTYPE_INT8, 0, NULL, -20, 20);
    oh_run(c, label, OH_BOUND_EXACT);
}

/* A QLinearConv of uint8 X (zero point xz) by int8 weights [m, c / group, k, k] of
 * per-channel scales (and zero points: wz_lo < wz_hi; symmetric: 0, 0), int32 bias, uint8
 * Y; pads of k / 2 on every side. */
static void qlinear_conv(const char *label, const int64_t x_dims[4], int64_t m, int64_t k,
                         int64_t group, int64_t stride, uint8_t xz, double wz_lo, double wz_hi)
{
    oh_case *c = oh_new("QLinearConv", 10);
    oh_input(c, VKML_DTYPE_UINT8, 4, x_dims, 0, 255);
    oh_const_random(c, VKML_DTYPE_FLOAT, 0, NULL, 0.01, 0.02);
    oh_const(c, VKML_DTYPE_UINT8, 0, NULL, &xz);
    oh_const_random(c, VKML_DTYPE_INT8, 4, (int64_t[]){m, x_dims[1] / group, k, k}, -127, 127);
    oh_const_random(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){m}, 0.0005, 0.004);
    oh_const_random(c, VKML_DTYPE_INT8, 1, (int64_t[]){m}, wz_lo, wz_hi);
    oh_const_random(c, VKML_DTYPE_FLOAT, 0, NULL, 0.05, 0.1);
    oh_const_random(c, VKML_DTYPE_UINT8, 0, NULL, 100, 150);
    oh_const_random(c, VKML_DTYPE_INT32, 1, (int64_t[]){m}, -5000, 5000);
    oh_attr_int(c, "group", group);
    oh_attr_ints(c, "strides", 2, (int64_t[]){stride, stride});
    oh_attr_ints(c, "pads", 4, (int64_t[]){k / 2, k / 2, k / 2, k / 2});
    oh_run(c, label, OH_BOUND_EXACT);
}

/* The convs as implicit GEMMs (qmatmul.comp, qmatmul_coop.comp with QCONV=1): rows (output
 * channels), columns (pixels) and K (channels by taps) past one block and ragged, K of whole
 * 16-byte runs, groups, and zero points that need the kernels' byte sums. */
static void qconv_blocks(void)
{
    qlinear_conv("QLinearConv 3x3, 72 channels, 2 images of 20x20", (int64_t[]){2, 32, 20, 20}, 72,
                 3, 1, 1, 128, 0, 0);
    qlinear_conv("QLinearConv 3x3, 256 blocks of 64 columns", (int64_t[]){4, 8, 64, 64}, 16, 3, 1,
                 1, 128, 0, 0);
    qlinear_conv("QLinearConv 1x1, K 64, X zero 3, weight zeros by channel",
                 (int64_t[]){1, 64, 14, 14}, 48, 1, 1, 1, 3, -9, 9);
    qlinear_conv("QLinearConv 3x3 stride 2, group 2, weight zeros by channel",
                 (int64_t[]){2, 40, 17, 15}, 70, 3, 2, 2, 77, -4, 4);
    qlinear_conv("QLinearConv depthwise 3x3 stride 2", (int64_t[]){1, 24, 15, 15}, 24, 3, 24, 2,
                 128, 0, 0);
    qlinear_conv("QLinearConv 5x5, 2 channels, X zero 0", (int64_t[]){3, 2, 23, 19}, 5, 5, 1, 1, 0,
                 0, 0);
    /* Many blocks (520 of 64 x 64), rows past two */
    qlinear_conv("QLinearConv 3x3, 130 channels, 128 x 130", (int64_t[]){1, 8, 128, 130}, 130, 3, 1,
                 1, 128, 0, 0);
    oh_case *c = oh_new("MatMulInteger", 10);
    oh_input(c, VKML_DTYPE_UINT8, 3, (int64_t[]){64, 130, 40}, 0, 255);
    oh_const_random(c, VKML_DTYPE_INT8, 3, (int64_t[]){64, 40, 130}, -128, 127);
    oh_input(c, VKML_DTYPE_UINT8, 0, NULL, 0, 255);
    oh_const_random(c, VKML_DTYPE_INT8, 0, NULL, -3, 3);
    oh_run(c, "MatMulInteger 64 x 130 x 40 x 130, weight zero", OH_BOUND_EXACT);
    /* ConvInteger of int8 X by uint8 weights, per-channel zero points, past a block */
    c = oh_new("ConvInteger", 10);
    oh_input(c, VKML_DTYPE_INT8, 4, (int64_t[]){2, 12, 21, 22}, -128, 127);
    oh_const_random(c, VKML_DTYPE_UINT8, 4, (int64_t[]){66, 12, 3, 3}, 0, 255);
    oh_const_random(c, VKML_DTYPE_INT8, 0, NULL, -9, 9);
    oh_const_random(c, VKML_DTYPE_UINT8, 1, (int64_t[]){66}, 120, 136);
    oh_attr_ints(c, "pads", 4, (int64_t[]){1, 0, 1, 2});
    oh_attr_ints(c, "dilations", 2, (int64_t[]){2, 1});
    oh_run(c, "ConvInteger i8 x u8, dilated, weight zeros by channel", OH_BOUND_EXACT);
}

/* Split-K of the integer products, forced (gpu_caps.splitk_force): slices of whole steps of
 * K (32), the last ragged, each slice's part summed by qprod_finish.comp. */
static void test_split_k(void)
{
    oh_splitk(3);
    oh_case *c = oh_new("MatMulInteger", 10);
    oh_input(c, VKML_DTYPE_UINT8, 3, (int64_t[]){2, 70, 75}, 0, 255);
    oh_const_random(c, VKML_DTYPE_INT8, 2, (int64_t[]){75, 133}, -128, 127);
    oh_input(c, VKML_DTYPE_UINT8, 0, NULL, 0, 255);
    oh_const_random(c, VKML_DTYPE_INT8, 0, NULL, -128, 127);
    oh_run(c, "MatMulInteger split-K 3, 2 x 70 x 75 x 133", OH_BOUND_EXACT);
    qlinear_matmul_130("QLinearMatMul split-K 3, i8, 130 x 100 x 90");
    c = oh_new("QLinearMatMul", 21);
    oh_input(c, VKML_DTYPE_UINT8, 2, (int64_t[]){70, 120}, 0, 255);
    oh_const_random(c, VKML_DTYPE_FLOAT, 0, NULL, 0.01, 0.02);
    oh_const_random(c, VKML_DTYPE_UINT8, 0, NULL, 120, 136);
    oh_const_random(c, VKML_DTYPE_INT8, 2, (int64_t[]){120, 75}, -128, 127);
    oh_const_random(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){75}, 0.0005, 0.004);
    oh_const_random(c, VKML_DTYPE_INT8, 1, (int64_t[]){75}, -6, 6);
    oh_const_random(c, VKML_DTYPE_FLOAT, 0, NULL, 0.05, 0.1);
    oh_const_random(c, VKML_DTYPE_UINT8, 0, NULL, 100, 150);
    oh_run(c, "QLinearMatMul split-K 3, scales and zeros by column", OH_BOUND_EXACT);
    qlinear_conv("QLinearConv split-K 3, 3x3 stride 2, group 2, weight zeros by channel",
                 (int64_t[]){2, 40, 17, 15}, 70, 3, 2, 2, 77, -4, 4);
    c = oh_new("ConvInteger", 10);
    oh_input(c, VKML_DTYPE_INT8, 4, (int64_t[]){2, 12, 21, 22}, -128, 127);
    oh_const_random(c, VKML_DTYPE_UINT8, 4, (int64_t[]){66, 12, 3, 3}, 0, 255);
    oh_input(c, VKML_DTYPE_INT8, 0, NULL, -9, 9);
    oh_const_random(c, VKML_DTYPE_UINT8, 1, (int64_t[]){66}, 120, 136);
    oh_attr_ints(c, "pads", 4, (int64_t[]){1, 1, 1, 1});
    oh_run(c, "ConvInteger split-K 3, run-time X zero, weight zeros by channel", OH_BOUND_EXACT);
    oh_splitk(0);
}

static void test_integer_products(void)
{
    /* test_matmulinteger */
    oh_case *c = oh_new("MatMulInteger", 10);
    const uint8_t a[] = {11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0}, b[] = {1, 4, 2, 5, 3, 6};
    const uint8_t az = 12, bz = 0;
    const int32_t y[] = {-38, -83, -44, -98, -50, -113, -56, -128};
    oh_const(c, VKML_DTYPE_UINT8, 2, (int64_t[]){4, 3}, a);
    oh_const(c, VKML_DTYPE_UINT8, 2, (int64_t[]){3, 2}, b);
    oh_const(c, VKML_DTYPE_UINT8, 1, (int64_t[]){1}, &az);
    oh_const(c, VKML_DTYPE_UINT8, 1, (int64_t[]){1}, &bz);
    oh_expect(c, 0, y);
    oh_run(c, "MatMulInteger known values", OH_BOUND_EXACT);

    /* A's zero point at run time (dynamic quantization), int8 B: on the GPU too. */
    c = oh_new("MatMulInteger", 10);
    oh_input(c, VKML_DTYPE_UINT8, 4, (int64_t[]){2, 3, 7, 11}, 0, 255);
    oh_const_random(c, VKML_DTYPE_INT8, 3, (int64_t[]){3, 11, 13}, -128, 127);
    oh_input(c, VKML_DTYPE_UINT8, 0, NULL, 0, 255);
    oh_const_random(c, VKML_DTYPE_INT8, 0, NULL, -128, 127);
    oh_run(c, "MatMulInteger u8 x i8, runtime zero", OH_BOUND_EXACT);

    /* Blocks of qmatmul.comp: rows, columns and K each past one block, ragged. */
    c = oh_new("MatMulInteger", 10);
    oh_input(c, VKML_DTYPE_UINT8, 3, (int64_t[]){2, 70, 75}, 0, 255);
    oh_const_random(c, VKML_DTYPE_INT8, 2, (int64_t[]){75, 133}, -128, 127);
    oh_input(c, VKML_DTYPE_UINT8, 0, NULL, 0, 255);
    oh_const_random(c, VKML_DTYPE_INT8, 0, NULL, -128, 127);
    oh_run(c, "MatMulInteger u8 x i8, 2 x 70 x 75 x 133", OH_BOUND_EXACT);
    /* uint8 A of zero point 128 by int8 B of zero point 0: in int8 terms (qmatmul_coop.comp)
     * both zero points 0, no sums; rows of whole 16-byte runs. */
    const uint8_t zero128 = 128;
    const int8_t zero0 = 0;
    c = oh_new("MatMulInteger", 10);
    oh_input(c, VKML_DTYPE_UINT8, 2, (int64_t[]){100, 64}, 0, 255);
    oh_const_random(c, VKML_DTYPE_INT8, 2, (int64_t[]){64, 80}, -128, 127);
    oh_const(c, VKML_DTYPE_UINT8, 0, NULL, &zero128);
    oh_const(c, VKML_DTYPE_INT8, 0, NULL, &zero0);
    oh_run(c, "MatMulInteger u8 (zero 128) x i8 (zero 0)", OH_BOUND_EXACT);
    /* Enough blocks for qmatmul.comp's 64 x 64 kernel (270), B broadcast over 18 batches. */
    c = oh_new("MatMulInteger", 10);
    oh_input(c, VKML_DTYPE_INT8, 3, (int64_t[]){18, 130, 33}, -128, 127);
    oh_const_random(c, VKML_DTYPE_UINT8, 2, (int64_t[]){33, 260}, 0, 255);
    oh_const_random(c, VKML_DTYPE_INT8, 0, NULL, -128, 127);
    oh_const_random(c, VKML_DTYPE_UINT8, 0, NULL, 0, 255);
    oh_run(c, "MatMulInteger i8 x u8, 18 x 130 x 33 x 260", OH_BOUND_EXACT);

    /* Batched, per-column zero points of B, int8 A. */
    c = oh_new("MatMulInteger", 10);
    oh_input(c, VKML_DTYPE_INT8, 3, (int64_t[]){3, 7, 11}, -128, 127);
    oh_const_random(c, VKML_DTYPE_UINT8, 2, (int64_t[]){11, 13}, 0, 255);
    oh_const_random(c, VKML_DTYPE_INT8, 0, NULL, -10, 10);
    oh_const_random(c, VKML_DTYPE_UINT8, 1, (int64_t[]){13}, 100, 150);
    oh_run(c, "MatMulInteger i8 x u8 per-column zero", OH_BOUND_EXACT);
    /* B's zero points per column at run time, past a block each way */
    c = oh_new("MatMulInteger", 10);
    oh_input(c, VKML_DTYPE_UINT8, 2, (int64_t[]){70, 96}, 0, 255);
    oh_input(c, VKML_DTYPE_INT8, 2, (int64_t[]){96, 133}, -128, 127);
    oh_const_random(c, VKML_DTYPE_UINT8, 0, NULL, 120, 136);
    oh_input(c, VKML_DTYPE_INT8, 1, (int64_t[]){133}, -9, 9);
    oh_run(c, "MatMulInteger u8 x i8, run-time zeros by column, 70 x 96 x 133", OH_BOUND_EXACT);
    /* QLinearMatMul of per-column scales and zero points (B as weights quantized per
     * channel), batched, past a block each way */
    for (int t = 0; t < 2; t++) {
        vkml_dtype bt = t ? VKML_DTYPE_UINT8 : VKML_DTYPE_INT8;
        double lo = t ? 0 : -128;
        c = oh_new("QLinearMatMul", 21);
        oh_input(c, VKML_DTYPE_UINT8, 3, (int64_t[]){2, 70, 80}, 0, 255);
        oh_const_random(c, VKML_DTYPE_FLOAT, 0, NULL, 0.01, 0.02);
        oh_const_random(c, VKML_DTYPE_UINT8, 0, NULL, 120, 136);
        oh_const_random(c, bt, 2, (int64_t[]){80, 130}, lo, lo + 255);
        oh_const_random(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){130}, 0.0005, 0.004);
        oh_const_random(c, bt, 1, (int64_t[]){130}, lo + 120, lo + 136);
        oh_const_random(c, VKML_DTYPE_FLOAT, 0, NULL, 0.05, 0.1);
        oh_const_random(c, VKML_DTYPE_UINT8, 0, NULL, 100, 150);
        oh_run(c,
               t ? "QLinearMatMul u8 B, scales and zeros by column"
                 : "QLinearMatMul i8 B, scales and zeros by column",
               OH_BOUND_EXACT);
    }

    /* QLinearMatMul: random, int8 and uint8, float scales. */
    const vkml_dtype t8[] = {VKML_DTYPE_UINT8, VKML_DTYPE_INT8};
    for (int t = 0; t < 2; t++) {
        c = oh_new("QLinearMatMul", 21);
        double lo = t8[t] == VKML_DTYPE_INT8 ? -128 : 0, hi = lo + 255;
        oh_input(c, t8[t], 3, (int64_t[]){2, 5, 7}, lo, hi);
        oh_const_random(c, VKML_DTYPE_FLOAT, 0, NULL, 0.001, 0.01);
        oh_const_random(c, t8[t], 0, NULL, lo + 100, lo + 150);
        oh_const_random(c, t8[t], 2, (int64_t[]){7, 3}, lo, hi);
        oh_const_random(c, VKML_DTYPE_FLOAT, 0, NULL, 0.001, 0.01);
        oh_const_random(c, t8[t], 0, NULL, lo + 100, lo + 150);
        oh_const_random(c, VKML_DTYPE_FLOAT, 0, NULL, 0.005, 0.02);
        oh_const_random(c, t8[t], 0, NULL, lo + 100, lo + 150);
        oh_run(c, t ? "QLinearMatMul i8" : "QLinearMatMul u8", OH_BOUND_EXACT);
    }
    /* QLinearMatMul past one block of qmatmul.comp each way, int8. */
    qlinear_matmul_130("QLinearMatMul i8, 130 x 100 x 90");
    /* float16 scales, per-column B scale: the CPU only (a vector scale). */
    c = oh_new("QLinearMatMul", 21);
    oh_input(c, VKML_DTYPE_INT8, 2, (int64_t[]){5, 7}, -128, 127);
    oh_const_random(c, VKML_DTYPE_FLOAT16, 0, NULL, 0.001, 0.01);
    oh_const_random(c, VKML_DTYPE_INT8, 0, NULL, -10, 10);
    oh_const_random(c, VKML_DTYPE_INT8, 2, (int64_t[]){7, 3}, -128, 127);
    oh_const_random(c, VKML_DTYPE_FLOAT16, 1, (int64_t[]){3}, 0.001, 0.01);
    oh_const_random(c, VKML_DTYPE_INT8, 1, (int64_t[]){3}, -10, 10);
    oh_const_random(c, VKML_DTYPE_FLOAT16, 0, NULL, 0.005, 0.02);
    oh_const_random(c, VKML_DTYPE_INT8, 0, NULL, -10, 10);
    oh_expect_gpu(c, false);
    oh_run(c, "QLinearMatMul f16 scales per column", OH_BOUND_EXACT);
    /* float16 per-tensor scales on the GPU. */
    c = oh_new("QLinearMatMul", 21);
    oh_input(c, VKML_DTYPE_UINT8, 3, (int64_t[]){3, 5, 7}, 0, 255);
    oh_const_random(c, VKML_DTYPE_FLOAT16, 0, NULL, 0.001, 0.01);
    oh_const_random(c, VKML_DTYPE_UINT8, 0, NULL, 120, 130);
    oh_const_random(c, VKML_DTYPE_UINT8, 2, (int64_t[]){7, 3}, 0, 255);
    oh_const_random(c, VKML_DTYPE_FLOAT16, 0, NULL, 0.001, 0.01);
    oh_const_random(c, VKML_DTYPE_UINT8, 0, NULL, 120, 130);
    oh_const_random(c, VKML_DTYPE_FLOAT16, 0, NULL, 0.005, 0.02);
    oh_const_random(c, VKML_DTYPE_UINT8, 0, NULL, 120, 130);
    oh_run(c, "QLinearMatMul f16 scales", OH_BOUND_EXACT);

    /* test_convinteger_with_padding: the padding is the zero point (contributes 0). */
    c = oh_new("ConvInteger", 10);
    const uint8_t x[] = {2, 3, 4, 5, 6, 7, 8, 9, 10}, w[] = {1, 1, 1, 1, 1, 1, 1, 1};
    const uint8_t xz = 1, wz[] = {0, 1};
    const int32_t cy[] = {1, 3, 5, 3, 5, 12, 16, 9, 11, 24, 28, 15, 7, 15, 17, 9,
                          0, 0, 0, 0, 0, 0,  0,  0, 0,  0,  0,  0,  0, 0,  0,  0};
    oh_const(c, VKML_DTYPE_UINT8, 4, (int64_t[]){1, 1, 3, 3}, x);
    oh_const(c, VKML_DTYPE_UINT8, 4, (int64_t[]){2, 1, 2, 2}, w);
    oh_const(c, VKML_DTYPE_UINT8, 0, NULL, &xz);
    oh_const(c, VKML_DTYPE_UINT8, 1, (int64_t[]){2}, wz);
    oh_attr_ints(c, "pads", 4, (int64_t[]){1, 1, 1, 1});
    oh_expect(c, 0, cy);
    oh_run(c, "ConvInteger padded, per-channel zero", OH_BOUND_EXACT);

    /* Run-time input zero point (dynamic quantization), int8 weights, 1-D, dilated. */
    c = oh_new("ConvInteger", 10);
    oh_input(c, VKML_DTYPE_UINT8, 3, (int64_t[]){2, 6, 23}, 0, 255);
    oh_const_random(c, VKML_DTYPE_INT8, 3, (int64_t[]){9, 2, 3}, -128, 127);
    oh_input(c, VKML_DTYPE_UINT8, 0, NULL, 0, 255);
    oh_const_random(c, VKML_DTYPE_INT8, 0, NULL, -3, 3);
    oh_attr_int(c, "group", 3);
    oh_attr_ints(c, "dilations", 1, (int64_t[]){2});
    oh_attr_ints(c, "pads", 2, (int64_t[]){2, 1});
    oh_run(c, "ConvInteger 1-D grouped dilated, run-time zero", OH_BOUND_EXACT);

    /* Both zero points at run time: the CPU only. */
    c = oh_new("ConvInteger", 10);
    oh_input(c, VKML_DTYPE_INT8, 4, (int64_t[]){1, 3, 7, 5}, -128, 127);
    oh_input(c, VKML_DTYPE_INT8, 4, (int64_t[]){4, 3, 3, 3}, -128, 127);
    oh_input(c, VKML_DTYPE_INT8, 0, NULL, -5, 5);
    oh_input(c, VKML_DTYPE_INT8, 1, (int64_t[]){4}, -5, 5);
    oh_run(c, "ConvInteger two run-time zero points", OH_BOUND_EXACT);

    /* QLinearConv with bias, grouped, strided. */
    c = oh_new("QLinearConv", 10);
    oh_input(c, VKML_DTYPE_UINT8, 4, (int64_t[]){2, 4, 9, 11}, 0, 255);
    oh_const_random(c, VKML_DTYPE_FLOAT, 0, NULL, 0.01, 0.02);
    oh_const_random(c, VKML_DTYPE_UINT8, 0, NULL, 120, 130);
    oh_const_random(c, VKML_DTYPE_INT8, 4, (int64_t[]){6, 2, 3, 3}, -127, 127);
    oh_const_random(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){6}, 0.001, 0.01);
    oh_const_random(c, VKML_DTYPE_INT8, 1, (int64_t[]){6}, 0, 0);
    oh_const_random(c, VKML_DTYPE_FLOAT, 0, NULL, 0.05, 0.1);
    oh_const_random(c, VKML_DTYPE_UINT8, 0, NULL, 120, 130);
    oh_const_random(c, VKML_DTYPE_INT32, 1, (int64_t[]){6}, -1000, 1000);
    oh_attr_int(c, "group", 2);
    oh_attr_ints(c, "strides", 2, (int64_t[]){2, 1});
    oh_attr_ints(c, "pads", 4, (int64_t[]){1, 0, 1, 2});
    oh_run(c, "QLinearConv grouped, strided, bias, per-channel scales", OH_BOUND_EXACT);

    /* Per-tensor constants: on the GPU too. */
    c = oh_new("QLinearConv", 10);
    oh_input(c, VKML_DTYPE_INT8, 4, (int64_t[]){2, 4, 9, 11}, -128, 127);
    oh_const_random(c, VKML_DTYPE_FLOAT, 0, NULL, 0.01, 0.02);
    oh_const_random(c, VKML_DTYPE_INT8, 0, NULL, -5, 5);
    oh_const_random(c, VKML_DTYPE_INT8, 4, (int64_t[]){6, 4, 3, 3}, -127, 127);
    oh_const_random(c, VKML_DTYPE_FLOAT, 0, NULL, 0.001, 0.01);
    oh_const_random(c, VKML_DTYPE_INT8, 0, NULL, 0, 0);
    oh_const_random(c, VKML_DTYPE_FLOAT, 0, NULL, 0.05, 0.1);
    oh_const_random(c, VKML_DTYPE_INT8, 0, NULL, -5, 5);
    oh_const_random(c, VKML_DTYPE_INT32, 1, (int64_t[]){6}, -1000, 1000);
    oh_attr_ints(c, "strides", 2, (int64_t[]){2, 2});
    oh_attr_ints(c, "pads", 4, (int64_t[]){1, 1, 1, 1});
    oh_run(c, "QLinearConv i8 per tensor, bias", OH_BOUND_EXACT);
    qconv_blocks();
}

/* MatMul and Gemm in every dtype they take. */
static void test_matrix_products(void)
{
    const vkml_dtype types[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16, VKML_DTYPE_DOUBLE,
                                VKML_DTYPE_INT32, VKML_DTYPE_UINT32,  VKML_DTYPE_INT64,
                                VKML_DTYPE_UINT64};
    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
        vkml_dtype dt = types[t];
        bool is_int = dt != VKML_DTYPE_FLOAT && dt != VKML_DTYPE_FLOAT16 && dt != VKML_DTYPE_DOUBLE;
        double lo = is_int ? (dt == VKML_DTYPE_UINT32 || dt == VKML_DTYPE_UINT64 ? 0 : -50) : -1;
        double hi = is_int ? 50 : 1,
               bound = dt == VKML_DTYPE_FLOAT16 ? OH_BOUND_FP16 : OH_BOUND_SUM;
        char label[96];
        oh_case *c = oh_new("MatMul", 13);
        oh_input(c, dt, 4, (int64_t[]){3, 1, 7, 11}, lo, hi);
        oh_input(c, dt, 3, (int64_t[]){5, 11, 13}, lo, hi);
        snprintf(label, sizeof(label), "MatMul %s [3,1,7,11]x[5,11,13]", vkml_dtype_name(dt));
        oh_run(c, label, bound);

        c = oh_new("MatMul", 13);
        oh_input(c, dt, 1, (int64_t[]){11}, lo, hi);
        oh_input(c, dt, 3, (int64_t[]){2, 11, 5}, lo, hi);
        snprintf(label, sizeof(label), "MatMul %s [11]x[2,11,5]", vkml_dtype_name(dt));
        oh_run(c, label, bound);

        c = oh_new("Gemm", 13);
        oh_input(c, dt, 2, (int64_t[]){11, 7}, lo, hi);
        oh_input(c, dt, 2, (int64_t[]){13, 11}, lo, hi);
        oh_input(c, dt, 1, (int64_t[]){13}, lo, hi);
        oh_attr_int(c, "transA", 1);
        oh_attr_int(c, "transB", 1);
        if (!is_int) {
            oh_attr_float(c, "alpha", 0.5f);
            oh_attr_float(c, "beta", -2.0f);
        }
        snprintf(label, sizeof(label), "Gemm %s transA transB, C [13]", vkml_dtype_name(dt));
        oh_run(c, label, bound);
    }
    /* Integer Gemm with alpha != 1: CPU only (through double, truncated). */
    oh_case *c = oh_new("Gemm", 13);
    oh_input(c, VKML_DTYPE_INT32, 2, (int64_t[]){3, 4}, -9, 9);
    oh_input(c, VKML_DTYPE_INT32, 2, (int64_t[]){4, 5}, -9, 9);
    oh_input(c, VKML_DTYPE_INT32, 2, (int64_t[]){3, 1}, -9, 9);
    oh_attr_float(c, "alpha", 2.0f);
    oh_expect_gpu(c, false);
    oh_run(c, "Gemm int32 alpha 2, C [3,1]", OH_BOUND_EXACT);
    /* bfloat16: CPU only. */
    c = oh_new("MatMul", 13);
    oh_input(c, VKML_DTYPE_BFLOAT16, 2, (int64_t[]){5, 7}, -1, 1);
    oh_input(c, VKML_DTYPE_BFLOAT16, 2, (int64_t[]){7, 3}, -1, 1);
    oh_expect_gpu(c, false);
    oh_run(c, "MatMul bfloat16", 1e-2);
}

typedef struct einsum_case {
    const char *equation;
    int n;
    int ranks[2];
    int64_t dims[2][4];
    bool gpu;
} einsum_case;

static void test_einsum(void)
{
    const double x[] = {1, 2, 3, 4, 5, 6}, xt[] = {1, 4, 2, 5, 3, 6};
    oh_case *c = oh_new("Einsum", 12);
    oh_const(c, VKML_DTYPE_DOUBLE, 2, (int64_t[]){2, 3}, x);
    oh_attr_string(c, "equation", "ij->ji");
    oh_expect(c, 0, xt);
    oh_run(c, "Einsum ij->ji known values", OH_BOUND_EXACT);

    static const einsum_case cases[] = {
        {"bij,bjk->bik", 2, {3, 3}, {{5, 7, 11}, {5, 11, 13}}, true},
        {"bhqd,bhkd->bhqk", 2, {4, 4}, {{2, 3, 7, 5}, {2, 3, 9, 5}}, true},
        {"...ij,...jk", 2, {4, 3}, {{2, 3, 5, 7}, {3, 7, 4}}, true},
        {"ij,kj->ki", 2, {2, 2}, {{7, 5}, {6, 5}}, true},
        {"i,i", 2, {1, 1}, {{11}, {11}}, true},
        {"ij,j->i", 2, {2, 1}, {{7, 11}, {11}}, true},
        {"i,j->ij", 2, {1, 1}, {{5}, {7}}, true},
        {"ii,ij->ij", 2, {2, 2}, {{5, 5}, {5, 7}}, true},
        {"...ii->...i", 1, {3}, {{3, 5, 5}}, true},
        {"ijk->", 1, {3}, {{3, 5, 7}}, true},
        {"ijk->kj", 1, {3}, {{3, 5, 7}}, true},
        {"bij,bij->b", 2, {3, 3}, {{4, 5, 7}, {4, 5, 7}}, true},
        {"ij,ij->ij", 2, {2, 2}, {{5, 7}, {5, 7}}, true},
        {"abcd->db", 1, {4}, {{2, 3, 2, 5}}, true},
        {"ij,jk,kl->il", 3, {2, 2}, {{3, 4}, {4, 5}}, false},
        /* labels of one operand only, summed out of it first on the CPU */
        {"ab,bc->", 2, {2, 2}, {{5, 7}, {7, 3}}, true},
        {"abc,dc->d", 2, {3, 2}, {{3, 4, 5}, {6, 5}}, true},
        {"abc,cd->ad", 2, {3, 2}, {{3, 4, 5}, {5, 6}}, true},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const einsum_case *e = &cases[i];
        c = oh_new("Einsum", 12);
        for (int t = 0; t < e->n; t++) {
            int r = t < 2 ? e->ranks[t] : 2;
            const int64_t *d = t < 2 ? e->dims[t] : (const int64_t[]){5, 2};
            oh_input(c, VKML_DTYPE_FLOAT, r, d, -1, 1);
        }
        oh_attr_string(c, "equation", e->equation);
        oh_expect_gpu(c, e->gpu);
        char label[96];
        snprintf(label, sizeof(label), "Einsum %s", e->equation);
        oh_run(c, label, OH_BOUND_SUM);
    }
    /* Matrix-product form against known values (the CPU's cpu_matprod path), float16. */
    const uint16_t h1 = 0x3c00, h2 = 0x4000, h3 = 0x4200, h4 = 0x4400;
    const uint16_t ha[] = {h1, h2, h3, h4}, hb[] = {h1, h1, h2, h2},
                   hy[] = {0x4200, 0x4600, 0x4700, 0x4b00};
    c = oh_new("Einsum", 12);
    oh_const(c, VKML_DTYPE_FLOAT16, 2, (int64_t[]){2, 2}, ha); /* [[1,2],[3,4]] */
    oh_const(c, VKML_DTYPE_FLOAT16, 2, (int64_t[]){2, 2}, hb); /* [[1,1],[2,2]] */
    oh_attr_string(c, "equation", "ij,kj->ik");                /* [[3,6],[7,14]] */
    oh_expect(c, 0, hy);
    oh_run(c, "Einsum ij,kj->ik float16 known values", OH_BOUND_FP16);

    c = oh_new("Einsum", 12);
    oh_input(c, VKML_DTYPE_INT32, 3, (int64_t[]){5, 7, 7}, -9, 9);
    oh_attr_string(c, "equation", "bii->b");
    oh_run(c, "Einsum int32 bii->b (trace)", OH_BOUND_EXACT);

    /* Too many terms per output for one GPU invocation: the CPU. */
    c = oh_new("Einsum", 12);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){2000}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){1000}, -1, 1);
    oh_attr_string(c, "equation", "i,j->");
    oh_expect_gpu(c, false);
    oh_run(c, "Einsum i,j-> (2e6 terms)", 1e-4);

    /* sum(A) x sum(B), not 8 x 8 products (and 2^30 of them at 32 x 32 x 32 each) */
    static const float ones_to_eight[] = {1, 2, 3, 4, 5, 6, 7, 8},
                       twos[] = {2, 2, 2, 2, 2, 2, 2, 2}, outer_sum[] = {576};
    c = oh_new("Einsum", 12);
    oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){2, 2, 2}, ones_to_eight);
    oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){2, 2, 2}, twos);
    oh_attr_string(c, "equation", "abc,def->");
    oh_expect(c, 0, outer_sum);
    oh_expect_gpu(c, false); /* six summed labels: the Vulkan kernel takes four */
    oh_run(c, "Einsum abc,def-> known value", OH_BOUND_EXACT);

    c = oh_new("Einsum", 12);
    oh_input(c, VKML_DTYPE_INT64, 3, (int64_t[]){2, 3, 4}, -9, 9);
    oh_input(c, VKML_DTYPE_INT64, 3, (int64_t[]){2, 4, 5}, -9, 9);
    oh_attr_string(c, "equation", "bij,bjk->bik");
    oh_run(c, "Einsum int64 bij,bjk->bik", OH_BOUND_EXACT);
}

static void test_attention(void)
{
    /* 4-D, GQA, float mask, causal, softcap, past key/value, every output. */
    oh_case *c = oh_new("Attention", 23);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){2, 6, 5, 8}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){2, 3, 7, 8}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){2, 3, 7, 9}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){5, 10}, -1, 0);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){2, 3, 4, 8}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){2, 3, 4, 9}, -1, 1);
    oh_outputs(c, 4);
    oh_attr_int(c, "is_causal", 1);
    oh_attr_float(c, "softcap", 3.0f);
    oh_attr_int(c, "qk_matmul_output_mode", 2);
    oh_expect_gpu(c, false);
    oh_run(c, "Attention 4-D GQA causal softcap past", OH_BOUND_SUM);

    /* 3-D with a bool mask and a scale. */
    c = oh_new("Attention", 23);
    oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){2, 5, 24}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){2, 7, 24}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){2, 7, 30}, -1, 1);
    oh_input(c, VKML_DTYPE_BOOL, 3, (int64_t[]){3, 5, 7}, 0, 1);
    oh_attr_int(c, "q_num_heads", 3);
    oh_attr_int(c, "kv_num_heads", 3);
    oh_attr_float(c, "scale", 0.25f);
    oh_expect_gpu(c, false);
    oh_run(c, "Attention 3-D bool mask scale", OH_BOUND_SUM);

    /* Q, K, V only: on the GPU (online softmax), 4-D and 3-D, GQA, causal, softcap. */
    c = oh_new("Attention", 23);
    oh_input(c, VKML_DTYPE_FLOAT16, 4, (int64_t[]){1, 2, 3, 4}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT16, 4, (int64_t[]){1, 2, 5, 4}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT16, 4, (int64_t[]){1, 2, 5, 4}, -1, 1);
    oh_run(c, "Attention float16", OH_BOUND_FP16);

    c = oh_new("Attention", 23);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){2, 6, 11, 8}, -2, 2);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){2, 2, 7, 8}, -2, 2);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){2, 2, 7, 13}, -2, 2);
    oh_attr_int(c, "is_causal", 1);
    oh_attr_float(c, "softcap", 2.0f);
    oh_run(c, "Attention 4-D GQA causal softcap (q 11 > kv 7)", OH_BOUND_SUM);

    c = oh_new("Attention", 23);
    oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){3, 5, 36}, -2, 2);
    oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){3, 9, 12}, -2, 2);
    oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){3, 9, 14}, -2, 2);
    oh_attr_int(c, "q_num_heads", 6);
    oh_attr_int(c, "kv_num_heads", 2);
    oh_attr_float(c, "scale", 0.3f);
    oh_run(c, "Attention 3-D GQA scale", OH_BOUND_SUM);
}

static void expect_error(oh_case *c, vkml_status st, const char *text, const char *label)
{
    oh_expect_error(c, st, text);
    oh_run(c, label, OH_BOUND_EXACT);
}

static void test_errors(void)
{
    oh_case *c = oh_new("QuantizeLinear", 21);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){3, 4}, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){4}, 1, 2);
    oh_attr_int(c, "axis", 5);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "axis 5 is out of range", "QuantizeLinear axis 5");

    c = oh_new("QuantizeLinear", 21);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){3, 4}, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){5}, 1, 2);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "does not fit", "QuantizeLinear scale of 5 on 4");

    c = oh_new("DequantizeLinear", 21);
    oh_input(c, VKML_DTYPE_UINT8, 2, (int64_t[]){3, 4}, 0, 9);
    oh_const_random(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){3, 3}, 1, 2);
    oh_attr_int(c, "block_size", 2);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "does not fit", "DequantizeLinear blocked wrong");

    c = oh_new("QuantizeLinear", 21);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){4}, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 0, NULL, 1, 2);
    oh_attr_int(c, "block_size", -1);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "block_size -1", "QuantizeLinear block_size -1");

    /* An absurd block size is one block along the axis (no overflow). */
    c = oh_new("DequantizeLinear", 21);
    oh_input(c, VKML_DTYPE_INT8, 2, (int64_t[]){3, 4}, -9, 9);
    oh_const_random(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){3, 1}, 1, 2);
    oh_attr_int(c, "axis", 1);
    oh_attr_int(c, "block_size", INT64_MAX);
    oh_run(c, "DequantizeLinear block_size INT64_MAX", OH_BOUND_EXACT);

    c = oh_new("QuantizeLinear", 21);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){4}, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 0, NULL, 1, 2);
    oh_attr_int(c, "output_dtype", VKML_DTYPE_FLOAT8E8M0); /* a scale type, not a quantized one */
    expect_error(c, VKML_ERROR_UNSUPPORTED, "float8e8m0", "QuantizeLinear to float8e8m0");

    c = oh_new("MatMulInteger", 10);
    oh_input(c, VKML_DTYPE_UINT8, 2, (int64_t[]){4, 3}, 0, 9);
    oh_input(c, VKML_DTYPE_UINT8, 2, (int64_t[]){3, 2}, 0, 9);
    oh_const_random(c, VKML_DTYPE_UINT8, 1, (int64_t[]){3}, 0, 9);
    expect_error(c, VKML_ERROR_UNSUPPORTED, "zero point", "MatMulInteger zero point of 3 rows");

    c = oh_new("MatMulInteger", 10);
    oh_input(c, VKML_DTYPE_UINT8, 2, (int64_t[]){4, 3}, 0, 9);
    oh_input(c, VKML_DTYPE_UINT8, 2, (int64_t[]){4, 2}, 0, 9);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "inner dimensions", "MatMulInteger K mismatch");

    c = oh_new("Einsum", 12);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){3, 4}, -1, 1);
    oh_attr_string(c, "equation", "ij->k");
    expect_error(c, VKML_ERROR_INVALID_MODEL, "appears in no input", "Einsum unknown label");

    c = oh_new("Einsum", 12);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){3, 4}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){5, 4}, -1, 1);
    oh_attr_string(c, "equation", "ij,jk");
    expect_error(c, VKML_ERROR_INVALID_MODEL, "label size", "Einsum sizes differ");

    c = oh_new("Einsum", 12);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){3, 4}, -1, 1);
    oh_attr_string(c, "equation", "i$->i");
    expect_error(c, VKML_ERROR_INVALID_MODEL, "unexpected '$'", "Einsum bad character");

    c = oh_new("Einsum", 12);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){100000}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){100000}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){100000}, -1, 1);
    oh_attr_string(c, "equation", "i,j,k->");
    expect_error(c, VKML_ERROR_UNSUPPORTED, "over 2^40", "Einsum absurd work");

    c = oh_new("Attention", 23);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 4, 3, 8}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 3, 3, 8}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 3, 3, 8}, -1, 1);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "K/V shapes", "Attention 4 q heads on 3 kv");

    c = oh_new("Attention", 23);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 2, 3, 8}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 2, 3, 8}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 2, 3, 8}, -1, 1);
    oh_attr_int(c, "qk_matmul_output_mode", 7);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "qk_matmul_output_mode 7", "Attention output mode 7");

    /* A past of another dtype than Q (a fuzzer found the CPU kernel reading past its end). */
    c = oh_new("Attention", 23);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 2, 3, 8}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 2, 3, 8}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 2, 3, 8}, -1, 1);
    oh_skip_input(c);
    oh_const_random(c, VKML_DTYPE_UINT8, 4, (int64_t[]){1, 2, 4, 8}, 0, 9);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 2, 4, 8}, -1, 1);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "past 'x4' is uint8", "Attention uint8 past");

    c = oh_new("Gemm", 13);
    oh_input(c, VKML_DTYPE_INT32, 2, (int64_t[]){3, 4}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){4, 5}, -1, 1);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "is float", "Gemm mixed dtypes");
}

int main(void)
{
    test_quantize();
    test_dequantize();
    test_dynamic_quantize();
    test_integer_products();
    test_split_k();
    test_matrix_products();
    test_einsum();
    test_attention();
    test_errors();
    return oh_finish();
}
