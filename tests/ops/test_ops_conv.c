/*
 * Convolutions (lib/ops/conv.c) on the op harness (suite 'ops'): 1-D and 2-D, groups,
 * depthwise, strides, uneven pads and dilations, the window sizes conv_window.comp unrolls
 * (3, 5, 7) and the channel counts the implicit GEMM takes, each with the plain and the
 * tiled kernels, the direct kernels in float16 and 3-D, every Vulkan device against the
 * CPU kernel; a convolution over 4 spatial
 * dims is refused by the devices with its reason. tests/ops/test_ops_gemm.c covers the
 * matrix-product kernels and fused epilogues on convolutions.
 */
#include "op_harness.h"

#include <stdio.h>

typedef struct conv_case {
    const char *label;
    int rank;
    int64_t x[4], w[4];
    int64_t group;
    int64_t strides[2], pads[4], dilations[2];
    bool bias;
} conv_case;

/* One case a row. */
/* clang-format off */
static const conv_case cases[] = {
    {"Conv 2-D group 2 strides pads dilations", 4, {2, 6, 11, 13}, {8, 3, 3, 5}, 2, {2, 1}, {1, 2, 0, 1}, {1, 2}, true},
    {"Conv 2-D depthwise no bias", 4, {1, 6, 9, 9}, {6, 1, 3, 3}, 6, {1, 1}, {1, 1, 1, 1}, {1, 1}, false},
    {"Conv 2-D 5x5 mnist-like", 4, {1, 1, 28, 28}, {8, 1, 5, 5}, 1, {1, 1}, {2, 2, 2, 2}, {1, 1}, true},
    /* square 3, 5, 7 windows: conv_window.comp's unrolled variants (KSIZE) */
    {"Conv 2-D depthwise 5x5 stride 2 dilation 2 uneven pads", 4, {2, 4, 15, 12}, {4, 1, 5, 5}, 4, {2, 2}, {3, 1, 0, 4}, {2, 2}, true},
    {"Conv 2-D depthwise 3x3 stride 2", 4, {1, 5, 10, 7}, {5, 1, 3, 3}, 5, {2, 2}, {0, 1, 1, 0}, {1, 1}, true},
    {"Conv 2-D 3x3 5 channels (not a multiple of the unrolled 4)", 4, {2, 5, 9, 8}, {6, 5, 3, 3}, 1, {1, 1}, {1, 1, 1, 1}, {1, 1}, true},
    {"Conv 2-D 7x7 group 2 stride 2 pads 3", 4, {1, 4, 16, 13}, {6, 2, 7, 7}, 2, {2, 1}, {3, 3, 3, 2}, {1, 1}, false},
    {"Conv 1-D stride 2", 3, {3, 4, 17}, {5, 4, 3}, 1, {2}, {1, 1}, {1}, true},
    /* 8 or more output channels per group: the implicit GEMM, where tiles pay off. */
    {"Conv 2-D 24 channels strides pads dilations", 4, {2, 5, 13, 11}, {24, 5, 3, 3}, 1, {2, 1}, {1, 0, 2, 1}, {1, 2}, true},
    {"Conv 2-D 17 channels/group no bias", 4, {1, 6, 9, 10}, {34, 3, 3, 2}, 2, {1, 2}, {1, 1, 1, 1}, {1, 1}, false},
    {"Conv 1-D 9 channels", 3, {2, 7, 29}, {9, 7, 5}, 1, {1}, {2, 2}, {2}, true},
};
/* clang-format on */

static void run_conv(const conv_case *cc, const char *kernels)
{
    int s = cc->rank - 2;
    oh_case *c = oh_new("Conv", 11);
    oh_input(c, VKML_DTYPE_FLOAT, cc->rank, cc->x, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, cc->rank, cc->w, -1, 1);
    if (cc->bias)
        oh_const_random(c, VKML_DTYPE_FLOAT, 1, cc->w, -1, 1);
    oh_attr_int(c, "group", cc->group);
    oh_attr_ints(c, "strides", s, cc->strides);
    oh_attr_ints(c, "pads", 2 * s, cc->pads);
    oh_attr_ints(c, "dilations", s, cc->dilations);
    char label[96];
    snprintf(label, sizeof(label), "%s (%s)", cc->label, kernels);
    oh_run(c, label, OH_BOUND_SUM);
}

/* Conv of dtype t with a bias (the direct kernels' cases: 3-D, grouped, depthwise with a
 * channel multiplier; and a float16 one over taps). */
static void run_direct_conv(const char *label, vkml_dtype t, int rank, const int64_t *x_dims,
                            const int64_t *w_dims, int64_t group, const int64_t *strides,
                            const int64_t *pads, const int64_t *dilations)
{
    int s = rank - 2;
    oh_case *c = oh_new("Conv", 11);
    oh_input(c, t, rank, x_dims, -1, 1);
    oh_const_random(c, t, rank, w_dims, -1, 1);
    oh_const_random(c, t, 1, (int64_t[]){w_dims[0]}, -1, 1);
    oh_attr_int(c, "group", group);
    if (strides)
        oh_attr_ints(c, "strides", s, strides);
    if (pads)
        oh_attr_ints(c, "pads", 2 * s, pads);
    if (dilations)
        oh_attr_ints(c, "dilations", s, dilations);
    oh_run(c, label, oh_bound(t, OH_BOUND_SUM));
}

/* The direct kernels in float16 and float32 (rank 3 to 5). */
static void test_direct_conv(void)
{
    run_direct_conv("Conv depthwise 3x3 stride 2 f16", VKML_DTYPE_FLOAT16, 4,
                    (int64_t[]){1, 8, 9, 7}, (int64_t[]){8, 1, 3, 3}, 8, (int64_t[]){2, 2},
                    (int64_t[]){1, 1, 1, 1}, NULL);
    run_direct_conv("Conv 2-D f16", VKML_DTYPE_FLOAT16, 4, (int64_t[]){1, 5, 9, 7},
                    (int64_t[]){12, 5, 3, 3}, 1, NULL, (int64_t[]){1, 1, 1, 1}, NULL);
    run_direct_conv("Conv depthwise 3x3 stride 2", VKML_DTYPE_FLOAT, 4, (int64_t[]){2, 6, 11, 13},
                    (int64_t[]){6, 1, 3, 3}, 6, (int64_t[]){2, 2}, (int64_t[]){1, 1, 1, 1}, NULL);
    run_direct_conv("Conv depthwise multiplier 2 dilated", VKML_DTYPE_FLOAT, 4,
                    (int64_t[]){1, 3, 11, 13}, (int64_t[]){6, 1, 3, 2}, 3, NULL,
                    (int64_t[]){2, 0, 2, 1}, (int64_t[]){2, 3});
    run_direct_conv("Conv grouped 2-D", VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 4, 7, 5},
                    (int64_t[]){6, 2, 2, 3}, 2, (int64_t[]){1, 2}, NULL, NULL);
    run_direct_conv("Conv 3-D", VKML_DTYPE_FLOAT, 5, (int64_t[]){1, 3, 5, 7, 6},
                    (int64_t[]){4, 3, 3, 2, 3}, 1, (int64_t[]){1, 2, 1},
                    (int64_t[]){1, 0, 1, 1, 1, 0}, NULL);
    run_direct_conv("Conv 1-D dilated", VKML_DTYPE_FLOAT, 3, (int64_t[]){2, 3, 13},
                    (int64_t[]){5, 3, 3}, 1, NULL, (int64_t[]){2, 1}, (int64_t[]){3});
}

/* Convs the GEMM kernels suit (K of 64 or more, over 8,192 outputs): a 3x3, a grouped one
 * with uneven pads, a 1-D one (tune_cases), and a float16 3x3 of 32 input channels, which
 * runs over taps (weights packed) where cooperative matrices take float16. */
/* clang-format off */
static const conv_case tune_cases[] = {
    {"Conv 2-D 16 -> 32 3x3", 4, {1, 16, 20, 20}, {32, 16, 3, 3}, 1, {1, 1}, {1, 1, 1, 1}, {1, 1}, true},
    {"Conv 2-D group 2 16 -> 32 uneven pads", 4, {2, 16, 30, 18}, {32, 8, 3, 3}, 2, {1, 1}, {1, 0, 1, 2}, {1, 1}, false},
    {"Conv 1-D 16 -> 16 k5", 3, {4, 16, 200}, {16, 16, 5}, 1, {1}, {0, 0}, {1}, true},
};
/* clang-format on */

static void tune_shapes(void)
{
    for (size_t i = 0; i < sizeof(tune_cases) / sizeof(tune_cases[0]); i++)
        run_conv(&tune_cases[i], "tuned");
    run_direct_conv("Conv 2-D f16 32 -> 64 3x3 (tuned)", VKML_DTYPE_FLOAT16, 4,
                    (int64_t[]){2, 32, 13, 11}, (int64_t[]){64, 32, 3, 3}, 1, NULL,
                    (int64_t[]){1, 1, 1, 1}, NULL);
}

/* The kernel choice by measurement for convs (vk_gemm_tune.h, oh_tune_check), and each
 * kind of candidate forced by name (the coop and taps ones only where cooperative matrices
 * take the conv: not on lavapipe). */
static void tuned_convs(void)
{
    static const char *const forced[] = {"tiled3",      "tiled-split4",  "direct",        "coop1",
                                         "taps1",       "taps2",         "taps3",         "taps4",
                                         "taps-split8", "taps64-split4", "taps64-split16"};
    oh_tune_check("conv tune", tune_shapes, 4, forced, (int)(sizeof(forced) / sizeof(forced[0])));
}

/* The Vulkan kernels take 1 to 3 spatial dims. */
static void test_refusal(void)
{
    oh_case *c = oh_new("Conv", 11);
    oh_input(c, VKML_DTYPE_FLOAT, 6, (int64_t[]){1, 2, 3, 4, 5, 6}, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 6, (int64_t[]){3, 2, 2, 2, 2, 2}, -1, 1);
    oh_expect_refusal(c, "spatial dims");
    oh_run(c, "Conv over 4 spatial dims", OH_BOUND_SUM);
}

int main(void)
{
    /* A tiled (GPU) and a plain (CPU device) variant, chosen by caps: both, whatever the
     * device prefers. */
    for (int tiled = 0; tiled < 2; tiled++) {
        oh_gpu_kernels(tiled ? OH_KERNELS_TILED : OH_KERNELS_PLAIN, 0);
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
            run_conv(&cases[i], tiled ? "tiled" : "plain");
    }
    oh_gpu_kernels(OH_KERNELS_DEVICE, 0);
    test_direct_conv();
    tuned_convs();
    test_refusal();
    return oh_finish();
}
