/*
 * The matrix-product and convolution kernels (gemm_tiled.comp in each of its tiles, the
 * older matmul.comp / conv_window.comp, and the plain per-output kernels) against the CPU
 * kernels, on shapes that end mid-tile (1, primes, non-multiples of every tile), batched
 * and broadcast MatMul, Gemm's transposes, and convolutions with kernels 1 to 7, strides,
 * pads, dilations, groups and depthwise; then every fused epilogue (graph_epilogue) on
 * Conv, Gemm and MatMul, with and without a residual. The CPU applies the epilogue with
 * op_epilogue_apply; tests/unit/test_fuse.c checks that against the unfused ops.
 * Split-K (gemm_tiled.comp's slices, then gemm_splitk.comp): forced to 2 and 7 slices
 * over the same products, products it takes by shape (K >= 1024, few outputs), epilogues,
 * float16, and its plan for ResNet-50's 7x7 stage derived by hand.
 * Then the cooperative-matrix kernels (gemm_coop.comp): which products the picker gives them
 * (on any machine, from made-up device capabilities), that a device without them never gets
 * them and that VKML_NO_COOPMAT=1 turns them off; on a device with them (NVIDIA), every
 * tile over the shapes above in float16 and in float32 as under precision fp32-fast, within
 * OH_BOUND_FP16 (float16 inputs to the products, float32 sums).
 * Then the workgroup-scope kernel (gemm_cm2.comp): its choice from made-up capabilities and,
 * on a device with it, every tile forced over the float16 products and epilogues, within
 * OH_BOUND_FP16.
 * VKML_TEST_COOP_TILE=N runs gemm_coop.comp's tile N alone (0: by shape), =rest its split-K
 * and conv kernels alone: a new build of them checked on a GPU in parts side by side.
 */
#include "op_harness.h"
#include "ops/conv.h"
#include "plan/context.h"
#include "testutil.h"
#include "vulkan/ops_gemm.h"
#include "vulkan/ops_matmul.h"
#include "vulkan/vk_device.h"
#include "vulkan/vk_gemm_tune.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define F32 dtype

/* The element type of the cases (float32, float16 for a few epilogue cases). */
static vkml_dtype dtype = VKML_DTYPE_FLOAT;

/* The kernels round float32 inputs to float16 (gemm_coop.comp under fp32-fast). */
static bool rounds_to_half;

static double bound(void)
{
    return dtype == VKML_DTYPE_FLOAT && !rounds_to_half ? OH_BOUND_SUM : OH_BOUND_FP16;
}

static uint64_t shape_rng;

static int64_t rand_dim(int64_t lo, int64_t hi)
{
    return lo + (int64_t)test_randf(&shape_rng, 0.0f, (float)(hi - lo + 1) - 0.001f);
}

static void matmul(const char *tag, int ra, const int64_t *a, int rb, const int64_t *b,
                   const graph_epilogue *e, int64_t ry, const int64_t *ydims)
{
    char label[160];
    oh_case *c = oh_new("MatMul", 13);
    oh_input(c, F32, ra, a, -1, 1);
    oh_const_random(c, F32, rb, b, -1, 1);
    if (e && e->bias >= 0) /* a bias along the last dim */
        oh_const_random(c, F32, 1, ydims + ry - 1, -1, 1);
    if (e && e->residual >= 0)
        oh_input(c, F32, (int)ry, ydims, -1, 1);
    if (e)
        oh_epilogue(c, e);
    snprintf(label, sizeof(label), "MatMul %s%s", tag, dtype == VKML_DTYPE_FLOAT ? "" : " f16");
    oh_run(c, label, bound());
}

static void matmul_2d(int64_t m, int64_t k, int64_t n)
{
    char tag[64];
    snprintf(tag, sizeof(tag), "%lldx%lldx%lld", (long long)m, (long long)k, (long long)n);
    matmul(tag, 2, (int64_t[]){m, k}, 2, (int64_t[]){k, n}, NULL, 0, NULL);
}

static void gemm(int64_t m, int64_t k, int64_t n, int trans_a, int trans_b, int c_rank,
                 const graph_epilogue *e)
{
    char label[160];
    oh_case *c = oh_new("Gemm", 13);
    oh_input(c, F32, 2, trans_a ? (int64_t[]){k, m} : (int64_t[]){m, k}, -1, 1);
    oh_const_random(c, F32, 2, trans_b ? (int64_t[]){n, k} : (int64_t[]){k, n}, -1, 1);
    if (c_rank == 1)
        oh_const_random(c, F32, 1, (int64_t[]){n}, -1, 1);
    else if (c_rank == 2)
        oh_input(c, F32, 2, (int64_t[]){m, 1}, -1, 1);
    else if (e && e->residual >= 0)
        oh_skip_input(c);
    if (e && e->residual >= 0)
        oh_input(c, F32, 2, (int64_t[]){m, n}, -1, 1);
    if (e)
        oh_epilogue(c, e);
    oh_attr_int(c, "transA", trans_a);
    oh_attr_int(c, "transB", trans_b);
    oh_attr_float(c, "alpha", 0.75f);
    oh_attr_float(c, "beta", 1.25f);
    snprintf(label, sizeof(label), "Gemm %lldx%lldx%lld%s%s C%d%s%s", (long long)m, (long long)k,
             (long long)n, trans_a ? " A^T" : "", trans_b ? " B^T" : "", c_rank, e ? " +" : "",
             e ? e->absorbed : "");
    oh_run(c, label, bound());
}

typedef struct conv_shape {
    int64_t n, c, h, w, m, k, stride, pad, dil, group;
} conv_shape;

static void conv(const conv_shape *s, bool bias, const graph_epilogue *e)
{
    char label[200];
    oh_case *c = oh_new("Conv", 11);
    int64_t oh = (s->h + 2 * s->pad - s->dil * (s->k - 1) - 1) / s->stride + 1;
    int64_t ow = (s->w + 2 * s->pad - s->dil * (s->k - 1) - 1) / s->stride + 1;
    oh_input(c, F32, 4, (int64_t[]){s->n, s->c, s->h, s->w}, -1, 1);
    oh_const_random(c, F32, 4, (int64_t[]){s->m, s->c / s->group, s->k, s->k}, -1, 1);
    if (bias)
        oh_const_random(c, F32, 1, (int64_t[]){s->m}, -1, 1);
    else if (e && e->residual >= 0)
        oh_skip_input(c);
    if (e && e->residual >= 0)
        oh_input(c, F32, 4, (int64_t[]){s->n, s->m, oh, ow}, -1, 1);
    if (e)
        oh_epilogue(c, e);
    oh_attr_int(c, "group", s->group);
    oh_attr_ints(c, "strides", 2, (int64_t[]){s->stride, s->stride});
    oh_attr_ints(c, "pads", 4, (int64_t[]){s->pad, s->pad, s->pad, s->pad});
    oh_attr_ints(c, "dilations", 2, (int64_t[]){s->dil, s->dil});
    snprintf(label, sizeof(label),
             "Conv %lldx%lldx%lldx%lld M%lld k%lld s%lld p%lld d%lld g%lld%s%s", (long long)s->n,
             (long long)s->c, (long long)s->h, (long long)s->w, (long long)s->m, (long long)s->k,
             (long long)s->stride, (long long)s->pad, (long long)s->dil, (long long)s->group,
             e ? " +" : "", e ? e->absorbed : "");
    if (dtype != VKML_DTYPE_FLOAT)
        strncat(label, " f16", sizeof(label) - strlen(label) - 1);
    oh_run(c, label, bound());
}

static const conv_shape conv_shapes[] = {
    {1, 3, 17, 19, 16, 7, 2, 3, 1, 1},   /* a stem: 7x7 stride 2 */
    {2, 16, 9, 11, 24, 1, 1, 0, 1, 1},   /* pointwise: a plain GEMM */
    {1, 32, 8, 8, 40, 1, 2, 0, 1, 1},    /* 1x1 stride 2 (ResNet downsample) */
    {2, 12, 13, 7, 20, 3, 1, 1, 1, 1},   /* 3x3 */
    {1, 10, 15, 15, 9, 5, 2, 2, 1, 1},   /* 5x5 stride 2 */
    {1, 8, 12, 12, 16, 3, 1, 2, 2, 1},   /* dilation 2 */
    {2, 12, 9, 9, 24, 3, 2, 1, 1, 3},    /* groups of 4 -> 8 */
    {1, 16, 10, 10, 16, 3, 1, 1, 1, 16}, /* depthwise */
    {1, 24, 7, 9, 40, 1, 1, 0, 1, 1},    /* pointwise, one image: a plain product (vk_rec_matmul) */
    {2, 8, 16, 17, 12, 1, 1, 0, 1, 1},   /* pointwise, two images of 272 pixels: a product each */
    {1, 64, 12, 12, 128, 3, 1, 1, 1, 1}, /* 128 channels, K 576: split by shape on 128x64 */
    {1, 130, 6, 6, 131, 3, 1, 1, 1, 1},  /* channels past a 128 tile */
};

/* One pass over the shapes with the kernels chosen (oh_gpu_kernels); `large` adds the
 * shapes past a 128 tile in every dim (the slow ones on lavapipe). */
static void products(bool large)
{
    static const int64_t sizes[][3] = {
        {1, 1, 1},     {1, 7, 1},    {257, 3, 1},   {37, 41, 43},
        {129, 17, 65}, {64, 64, 64}, {1, 300, 257}, {131, 260, 129}, /* large */
    };
    size_t n_sizes = VKML_ARRAY_SIZE(sizes) - (large ? 0 : 2);
    for (size_t i = 0; i < n_sizes; i++)
        matmul_2d(sizes[i][0], sizes[i][1], sizes[i][2]);
    for (int i = 0; i < 3; i++)
        matmul_2d(rand_dim(1, 150), rand_dim(1, 150), rand_dim(1, 150));
    matmul("batched broadcast [3,1,35,19] x [4,19,33]", 4, (int64_t[]){3, 1, 35, 19}, 3,
           (int64_t[]){4, 19, 33}, NULL, 0, NULL);
    matmul("1-D x batched", 1, (int64_t[]){23}, 3, (int64_t[]){2, 23, 70}, NULL, 0, NULL);
    for (int t = 0; t < 4; t++)
        gemm(45, 67, 39, t & 1, t >> 1, t % 3, NULL);
    /* Whole 128x128 tiles: vector tile loads (K 40: the last K step of a BK 16 tile
     * partial, checked loads) in every transpose; K 42 leaves rows unaligned (checked
     * loads); a batch whose bases are multiples of 4; a conv whose W rows (K 16) are. */
    for (int t = 0; t < 4; t++) {
        gemm(128, 40, 128, t & 1, t >> 1, t % 3, NULL);
        gemm(128, 42, 128, t & 1, t >> 1, 1, NULL);
    }
    /* K in whole steps of every tile (48: 3 of 16, 6 of 8) and 256 rows and columns: every
     * gemm_tiled.comp block inside and aligned runs its K loop without tests (k_loop_fast),
     * in every transpose */
    for (int t = 0; t < 4; t++)
        gemm(256, 48, 256, t & 1, t >> 1, t % 3, NULL);
    /* the same with ragged edges: inner blocks walk K without tests, the edges' blocks
     * the general loop, in one dispatch */
    for (int t = 0; t < 4; t++)
        gemm(200, 48, 136, t & 1, t >> 1, 1, NULL);
    matmul("batched aligned [2,128,48] x [2,48,128]", 3, (int64_t[]){2, 128, 48}, 3,
           (int64_t[]){2, 48, 128}, NULL, 0, NULL);
    conv(&(conv_shape){1, 16, 8, 16, 128, 1, 1, 0, 1, 1}, true, NULL);
    conv(&(conv_shape){1, 16, 8, 8, 128, 3, 1, 1, 1, 4}, false, NULL); /* K 36, groups */
    /* small convs of 8 or more channels a group: by shape, the direct kernel's lanes form
     * (mnist-8's second conv; channels not a multiple of the 8 lanes; groups of 16 over two
     * images; a 1x1 stride 2 on the lanes form without unrolled taps) */
    conv(&(conv_shape){1, 8, 14, 14, 16, 5, 1, 2, 1, 1}, true, NULL);
    conv(&(conv_shape){1, 13, 9, 9, 7, 5, 1, 2, 1, 1}, false, NULL);
    conv(&(conv_shape){2, 32, 7, 7, 32, 3, 1, 1, 1, 2}, true, NULL);
    conv(&(conv_shape){1, 9, 6, 6, 12, 7, 1, 3, 1, 1}, true, NULL);
    for (size_t i = 0; i < VKML_ARRAY_SIZE(conv_shapes) - (large ? 0 : 1); i++)
        conv(&conv_shapes[i], i % 2 == 0, NULL);
}

/* Every activation, on Conv (residual before it), Gemm (residual after) and MatMul. */
/* MatMul + Add(bias) + Add(residual) + LayerNormalization over the last dim (graph_epilogue
 * norm; its scale and bias the node's last inputs), rows of n: unsplit (the normalization
 * after the product, in place) and split along K (split-K's second pass normalising its
 * rows where n allows: gemm_splitk.comp NORM=1). */
static void matmul_norm(int64_t m, int64_t k, int64_t n, bool with_bias)
{
    graph_epilogue e = {.act = ELT_IDENTITY,
                        .bias = 2,
                        .residual = 3,
                        .residual_first = true,
                        .norm = true,
                        .norm_epsilon = 1e-5f,
                        .norm_scale = 4,
                        .norm_bias = with_bias ? 5 : -1,
                        .absorbed = "Add+Add+LayerNormalization"};
    static const int splits[] = {-1, 2, 5};
    for (size_t i = 0; i < VKML_ARRAY_SIZE(splits); i++) {
        oh_splitk(splits[i]);
        char label[160];
        oh_case *c = oh_new("MatMul", 13);
        oh_input(c, F32, 3, (int64_t[]){2, m, k}, -1, 1);
        oh_const_random(c, F32, 2, (int64_t[]){k, n}, -1, 1);
        oh_const_random(c, F32, 1, (int64_t[]){n}, -1, 1);
        oh_input(c, F32, 3, (int64_t[]){2, m, n}, -1, 1);
        oh_const_random(c, F32, 1, (int64_t[]){n}, 0.5, 2);
        if (with_bias)
            oh_const_random(c, F32, 1, (int64_t[]){n}, -1, 1);
        oh_epilogue(c, &e);
        snprintf(label, sizeof(label), "MatMul 2x%lldx%lldx%lld +%s%s, split-K %d%s", (long long)m,
                 (long long)k, (long long)n, e.absorbed, with_bias ? "" : " (no bias)", splits[i],
                 dtype == VKML_DTYPE_FLOAT ? "" : " f16");
        oh_run(c, label, bound());
    }
    oh_splitk(0);
}

static void epilogues(void)
{
    static const struct {
        eltwise_op act;
        float alpha, beta;
        const char *name;
    } acts[] = {
        {ELT_RELU, 0, 0, "Relu"},
        {ELT_CLIP, 0, 6, "Clip"},
        {ELT_SIGMOID, 0, 0, "Sigmoid"},
        {ELT_HARD_SIGMOID, 0.2f, 0.5f, "HardSigmoid"},
        {ELT_HARD_SWISH, 0, 0, "HardSwish"},
        {ELT_LEAKY_RELU, 0.1f, 0, "LeakyRelu"},
        {ELT_SILU, 1, 0, "SiLU"},
        {ELT_GELU, 0, 0, "Gelu"},
        {ELT_GELU_TANH, 0, 0, "Gelu tanh"},
        {ELT_X_HARD_SIGMOID, 1.0f / 6, 0.5f, "HardSigmoid+Mul"},
    };
    const conv_shape cs = {2, 12, 9, 8, 20, 3, 1, 1, 1, 1};
    matmul_norm(17, 96, 64, true);   /* 16 of the second pass's 256 invocations a row */
    matmul_norm(9, 64, 1024, false); /* its longest rows: a quad each of the 256 */
    matmul_norm(5, 32, 1030, true);  /* past them (and not of whole quads): in place after */
    for (size_t i = 0; i < VKML_ARRAY_SIZE(acts); i++) {
        graph_epilogue e = {.act = acts[i].act,
                            .alpha = acts[i].alpha,
                            .beta = acts[i].beta,
                            .bias = -1,
                            .residual = -1,
                            .absorbed = acts[i].name};
        conv(&cs, true, &e);
        matmul(acts[i].name, 3, (int64_t[]){2, 33, 21}, 2, (int64_t[]){21, 40}, &e, 3,
               (int64_t[]){2, 33, 40});
        graph_epilogue with_bias = e; /* MatMul + Add(bias) + act + Add(residual) */
        char bname[64];
        snprintf(bname, sizeof(bname), "Add+%s+Add", acts[i].name);
        with_bias.bias = 2;
        with_bias.residual = 3; /* after the bias */
        with_bias.absorbed = bname;
        matmul(bname, 3, (int64_t[]){2, 33, 21}, 2, (int64_t[]){21, 40}, &with_bias, 3,
               (int64_t[]){2, 33, 40});
        char name[64];
        snprintf(name, sizeof(name), "Add+%s", acts[i].name);
        graph_epilogue r = e;
        r.residual = 3;
        r.residual_first = true;
        r.absorbed = name;
        conv(&cs, i % 2 == 0, &r);
        snprintf(name, sizeof(name), "%s+Add", acts[i].name);
        r.residual_first = false;
        gemm(29, 31, 37, 0, 1, i % 2, &r);
        r.residual = 2; /* MatMul's own inputs are 2 */
        matmul(name, 3, (int64_t[]){2, 33, 21}, 2, (int64_t[]){21, 40}, &r, 3,
               (int64_t[]){2, 33, 40});
    }
    graph_epilogue add = {
        .act = ELT_IDENTITY, .bias = -1, .residual = 3, .residual_first = true, .absorbed = "Add"};
    graph_epilogue relu_res = {
        .act = ELT_RELU, .bias = -1, .residual = 3, .residual_first = true, .absorbed = "Add+Relu"};
    conv(&conv_shapes[7], false, &add); /* depthwise: the direct kernel's epilogue */
    conv(&conv_shapes[0], true, &add);
    conv(&conv_shapes[8], true, &relu_res); /* pointwise as products: bias, residual, Relu */
    conv(&conv_shapes[9], false, &relu_res);
    /* float16: the CPU runs these on float copies, the GPU on its f16 variants */
    graph_epilogue relu = {
        .act = ELT_RELU, .bias = -1, .residual = 3, .residual_first = true, .absorbed = "Add+Relu"};
    dtype = VKML_DTYPE_FLOAT16;
    conv(&cs, true, &relu);
    conv(&conv_shapes[8], true, &relu);
    conv(&conv_shapes[9], true, &relu);
    /* pointwise over two images of 144 pixels, 128 channels: over taps on the tensor cores
     * where the device has them (vk_conv_runs_as_product), else the implicit GEMM */
    conv(&(conv_shape){2, 128, 12, 12, 128, 1, 1, 0, 1, 1}, true, &relu);
    relu.residual = 2;
    matmul("Add+Relu", 3, (int64_t[]){2, 33, 21}, 2, (int64_t[]){21, 40}, &relu, 3,
           (int64_t[]){2, 33, 40});
    dtype = VKML_DTYPE_FLOAT;
}

/* Which convs run as plain products (vk_conv_runs_as_product), by hand from the rule. */
static conv_params conv_of(const conv_shape *s)
{
    conv_params p = {.batch = s->n,
                     .in_channels = s->c,
                     .out_channels = s->m,
                     .group = s->group,
                     .has_bias = true};
    p.win.spatial = 2;
    int64_t in[2] = {s->h, s->w};
    for (int d = 0; d < 2; d++) {
        p.win.in[d] = in[d];
        p.win.kernel[d] = s->k;
        p.win.strides[d] = s->stride;
        p.win.dilations[d] = s->dil;
        p.win.pads_begin[d] = p.win.pads_end[d] = s->pad;
        p.win.out[d] = (in[d] + 2 * s->pad - s->dil * (s->k - 1) - 1) / s->stride + 1;
    }
    return p;
}

static void product_picks(void)
{
    struct gpu_caps caps = {.prefer_tiled = true, .max_workgroup_count = {65535, 65535, 65535}};
    static const struct {
        int shape;
        bool product;
        const char *why;
    } cases[] = {
        {8, true, "pointwise, one image"},
        {9, true, "pointwise, two images of 272 pixels"},
        {1, false, "pointwise, two images of 99 pixels (the implicit GEMM spans both)"},
        {2, false, "1x1 with stride 2"},
        {3, false, "3x3"},
        {7, false, "depthwise"},
    };
    for (size_t i = 0; i < VKML_ARRAY_SIZE(cases); i++) {
        conv_params p = conv_of(&conv_shapes[cases[i].shape]);
        CHECK(vk_conv_runs_as_product(&p, VKML_DTYPE_FLOAT, &caps, false) == cases[i].product,
              "conv as product: %s: expected %s", cases[i].why, cases[i].product ? "yes" : "no");
    }
    conv_params pw = conv_of(&conv_shapes[8]);
    CHECK(vk_conv_runs_as_product(&pw, VKML_DTYPE_FLOAT16, &caps, false),
          "conv as product: float16 pointwise");
    CHECK(!vk_conv_runs_as_product(&pw, VKML_DTYPE_DOUBLE, &caps, false),
          "conv as product: not for double");
    /* small images: per image where the tensor cores take each image's product (float16,
     * or float32 under fp32-fast) and not the whole conv over taps (144 input channels, not
     * a multiple of 32), else the implicit GEMM over the batch */
    conv_params small = conv_of(&(conv_shape){2, 144, 12, 12, 128, 1, 1, 0, 1, 1});
    CHECK(!vk_conv_runs_as_product(&small, VKML_DTYPE_FLOAT16, &caps, false),
          "conv as product: two images of 144 pixels without cooperative matrices");
    caps.cooperative_matrix = true;
    CHECK(vk_conv_runs_as_product(&small, VKML_DTYPE_FLOAT16, &caps, false),
          "conv as product: two images of 144 pixels, 144 channels, float16 on the tensor cores");
    CHECK(vk_conv_runs_as_product(&small, VKML_DTYPE_FLOAT, &caps, true) &&
              !vk_conv_runs_as_product(&small, VKML_DTYPE_FLOAT, &caps, false),
          "conv as product: float32 small images on the tensor cores under fp32-fast only");
    /* over taps instead wherever that kernel takes the conv (input channels a multiple of
     * 32, at least 64 output channels and pixels); products per image otherwise */
    static const struct {
        conv_shape s;
        bool product;
        const char *why;
    } taps[] = {
        {{2, 128, 12, 12, 128, 1, 1, 0, 1, 1}, false, "two images of 144 pixels, 128 channels"},
        {{1, 128, 28, 28, 512, 1, 1, 0, 1, 1}, false, "one image of 784 pixels, 128 channels"},
        {{1, 64, 56, 56, 256, 1, 1, 0, 1, 1}, false, "one image, 64 channels"},
        {{8, 256, 28, 28, 512, 1, 1, 0, 1, 1}, false, "eight images of 784 pixels"},
        {{8, 256, 20, 20, 64, 1, 1, 0, 1, 1},
         false,
         "eight images of 400 pixels, 64 output channels"},
        {{8, 48, 28, 28, 512, 1, 1, 0, 1, 1}, true, "48 input channels (not a multiple of 32)"},
        {{8, 256, 28, 28, 48, 1, 1, 0, 1, 1},
         true,
         "48 output channels (under VK_CONV_TAPS_MIN_M)"},
    };
    for (size_t i = 0; i < VKML_ARRAY_SIZE(taps); i++) {
        conv_params p = conv_of(&taps[i].s);
        CHECK(vk_conv_runs_as_product(&p, VKML_DTYPE_FLOAT16, &caps, false) == taps[i].product,
              "conv as product with cooperative matrices: %s: expected %s", taps[i].why,
              taps[i].product ? "a product" : "over taps");
    }
    conv_params narrow = conv_of(&(conv_shape){2, 128, 7, 7, 128, 1, 1, 0, 1, 1});
    CHECK(!vk_conv_runs_as_product(&narrow, VKML_DTYPE_FLOAT16, &caps, false),
          "conv as product: not images of 49 pixels (under VK_COOP_MIN_SIDE)");
    caps.cooperative_matrix = false;
    caps.gemm_force = -1;
    CHECK(!vk_conv_runs_as_product(&pw, VKML_DTYPE_FLOAT, &caps, false),
          "conv as product: not with the old tiled kernels forced");
    caps.gemm_force = 0;
    caps.prefer_tiled = false;
    CHECK(!vk_conv_runs_as_product(&pw, VKML_DTYPE_FLOAT, &caps, false),
          "conv as product: not on a device without tiled products (lavapipe)");
}

/* vk_gemv_pick's choices, derived by hand: few rows take gemv.comp, 32 columns (or 4 with
 * B^T) a workgroup; more rows, forcing, plain kernels or integers do not. */
static void gemv_picks(void)
{
    struct gpu_caps caps = {.prefer_tiled = true, .max_workgroup_count = {65535, 65535, 65535}};
    matmul_push mnist = {.m = 1, .n = 10, .k = 256, .b_sk = 10, .b_sn = 1};
    vk_kernel_id k = VK_KERNEL_COUNT;
    uint32_t g[3] = {0};
    CHECK(vk_gemv_pick(&caps, &mnist, true, 1, &k, g) && k == VK_KERNEL_GEMV_NARROW && g[0] == 2 &&
              g[1] == 1 && g[2] == 1,
          "gemv: mnist-8's [1,256] x [256,10], narrow");
    matmul_push wide = {.m = 1, .n = 17, .k = 256, .b_sk = 17, .b_sn = 1};
    CHECK(vk_gemv_pick(&caps, &wide, true, 1, &k, g) && k == VK_KERNEL_GEMV && g[0] == 1,
          "gemv: 17 columns, 32 a workgroup");
    matmul_push t = {.m = 4, .n = 1000, .k = 1280, .b_sk = 1, .b_sn = 1280};
    CHECK(vk_gemv_pick(&caps, &t, true, 3, &k, g) && k == VK_KERNEL_GEMV_K_CONTIG_ROWS &&
              g[0] == 250 && g[1] == 1 && g[2] == 3,
          "gemv: B^T, 4 rows, 3 batches");
    t.m = 8; /* ResNet-50 b8's classifier: one workgroup of 8 rows a column block */
    CHECK(vk_gemv_pick(&caps, &t, true, 1, &k, g) && k == VK_KERNEL_GEMV_K_CONTIG_ROWS &&
              g[0] == 250 && g[1] == 1 && g[2] == 1,
          "gemv: B^T, 8 rows");
    t.m = 1;
    CHECK(vk_gemv_pick(&caps, &t, true, 1, &k, g) && k == VK_KERNEL_GEMV_K_CONTIG && g[0] == 250 &&
              g[1] == 1,
          "gemv: B^T, one row");
    t.m = 9;
    CHECK(!vk_gemv_pick(&caps, &t, true, 1, &k, g), "gemv: 9 rows go to the tiles");
    matmul_push five = {.m = 5, .n = 10, .k = 256, .b_sk = 10, .b_sn = 1};
    CHECK(!vk_gemv_pick(&caps, &five, true, 1, &k, g), "gemv: 5 rows of B [K, N] go to the tiles");
    five.m = 4;
    CHECK(vk_gemv_pick(&caps, &five, true, 2, &k, g) && k == VK_KERNEL_GEMV_NARROW && g[1] == 4,
          "gemv: 4 rows of B [K, N], a workgroup each");
    CHECK(!vk_gemv_pick(&caps, &mnist, false, 1, &k, g), "gemv: integers");
    caps.splitk_force = 2;
    CHECK(!vk_gemv_pick(&caps, &mnist, true, 1, &k, g), "gemv: split-K forced");
    caps.splitk_force = 0;
    caps.gemm_force = 4;
    CHECK(!vk_gemv_pick(&caps, &mnist, true, 1, &k, g), "gemv: a tile forced");
    caps.gemm_force = 0;
    caps.prefer_tiled = false;
    CHECK(!vk_gemv_pick(&caps, &mnist, true, 1, &k, g), "gemv: plain kernels (lavapipe)");
}

/* Few-row products on gemv.comp (run with tiles by shape): ragged K and N around its 32
 * and 4 columns and its 8 and 64 slices, B^T, C, batches, a bias and an activation. */
static void gemv_products(void)
{
    static const int64_t sizes[][3] = {{1, 256, 10}, {2, 1000, 37},  {4, 33, 1},   {1, 1, 65},
                                       {3, 7, 33},   {1, 1280, 100}, {3, 300, 16}, {1, 31, 9},
                                       {8, 515, 12}, {6, 64, 40},    {5, 2, 3}};
    for (size_t i = 0; i < VKML_ARRAY_SIZE(sizes); i++)
        matmul_2d(sizes[i][0], sizes[i][1], sizes[i][2]);
    /* B^T: K in quads (K a multiple of 4: 4 steps of quads and a ragged last round; 8 rows),
     * and K not a multiple of 4 or A^T (scalar steps) */
    gemm(1, 300, 77, 0, 1, 1, NULL);
    gemm(8, 2048, 21, 0, 1, 1, NULL);
    gemm(7, 1292, 9, 0, 1, 0, NULL);
    gemm(5, 130, 6, 0, 1, 2, NULL);
    gemm(3, 129, 5, 1, 1, 2, NULL);
    gemm(8, 96, 13, 1, 1, 1, NULL);
    gemm(2, 65, 9, 1, 0, 0, NULL);
    matmul("gemv batched [2,3,1,70] x [3,70,35]", 4, (int64_t[]){2, 3, 1, 70}, 3,
           (int64_t[]){3, 70, 35}, NULL, 0, NULL);
    graph_epilogue relu = {.act = ELT_RELU, .bias = 2, .residual = -1, .absorbed = "Add+Relu"};
    matmul("gemv Add+Relu", 2, (int64_t[]){1, 256}, 2, (int64_t[]){256, 10}, &relu, 2,
           (int64_t[]){1, 10});
    /* 1x1 convs of 1x1 inputs (squeeze-excitation): EfficientNet's 48 -> 1152 + Sigmoid,
     * 3 images, a residual, and a 1x1 pad that keeps them off gemv.comp */
    const conv_shape se[] = {{1, 48, 1, 1, 1152, 1, 1, 0, 1, 1},
                             {3, 37, 1, 1, 9, 1, 1, 0, 1, 1},
                             {2, 20, 1, 1, 11, 1, 1, 1, 1, 1}};
    graph_epilogue sig = {.act = ELT_SIGMOID, .bias = -1, .residual = -1, .absorbed = "Sigmoid"};
    graph_epilogue res = {.act = ELT_SILU,
                          .alpha = 1,
                          .bias = -1,
                          .residual = 3,
                          .residual_first = true,
                          .absorbed = "Add+SiLU"};
    conv(&se[0], true, &sig);
    conv(&se[1], false, NULL);
    conv(&se[1], true, &res);
    conv(&se[2], true, NULL);
    dtype = VKML_DTYPE_FLOAT16;
    matmul("gemv", 2, (int64_t[]){2, 500}, 2, (int64_t[]){500, 45}, NULL, 0, NULL);
    gemm(8, 1024, 19, 0, 1, 1, NULL);
    conv(&se[0], true, &sig);
    dtype = VKML_DTYPE_FLOAT;
}

/* vk_gemm_pick_split's plans, derived by hand. */
static void split_picks(void)
{
    struct gpu_caps caps = {.prefer_tiled = true, .max_workgroup_count = {65535, 65535, 65535}};
    vk_gemm_split sp = {0};
    /* 512 x 49 x 4608 (3x3 conv, 512 channels at 7x7): a conv of at least 128 channels
     * splits on the 128x64 tile, 1 x 4 groups (<= 132); 528 / 4 -> 132 slices, capped by
     * 4608 / 64 = 72 and 32: ceil(4608 / 32) = 144 -> 160 (a multiple of 32): 29 slices. */
    CHECK(vk_gemm_pick_split(&caps, true, false, 512, 49, 4608, 1, &sp) && sp.splits == 29 &&
              sp.k_slice == 160 && sp.first == VK_KERNEL_CONV_GEMM_SPLITK_128X64 &&
              sp.sum == VK_KERNEL_CONV_GEMM_SPLITK_SUM && sp.groups[0] == 1 && sp.groups[1] == 4 &&
              sp.groups[2] == 29 && sp.sum_groups[0] == 1 && sp.sum_groups[1] == 512 &&
              sp.sum_groups[2] == 1 && sp.scratch_bytes == 29ull * 512 * 49 * 4,
          "split: r50 7x7 stage: %u slices of %u, groups %u x %u x %u", sp.splits, sp.k_slice,
          sp.groups[0], sp.groups[1], sp.groups[2]);
    /* the same over 8 images (a conv per image): 64 tiles of 64x64 -> 9 slices, of
     * ceil(4608 / 9) = 512 (few tiles of 64x64: not on the 128x64 tile, though 512 rows) */
    CHECK(vk_gemm_pick_split(&caps, false, false, 512, 49, 4608, 8, &sp) && sp.splits == 9 &&
              sp.k_slice == 512 && sp.groups[2] == 72 && sp.sum_groups[2] == 8 &&
              sp.first == VK_KERNEL_GEMM_SPLITK_64X64,
          "split: r50 7x7 stage, 8 images, as products: %u slices of %u on the 64x64 tile",
          sp.splits, sp.k_slice);
    /* 1024^3 and 256 x 4096 x 4096: 256 tiles of 64x64 (too many to split), 128 blocks of
     * 128x64: 396 / 128 -> 3 slices, of ceil(1024 / 3) = 342 -> 352 and ceil(4096 / 3) =
     * 1366 -> 1376 */
    CHECK(vk_gemm_pick_split(&caps, false, false, 1024, 1024, 1024, 1, &sp) && sp.splits == 3 &&
              sp.k_slice == 352 && sp.first == VK_KERNEL_GEMM_SPLITK_128X64 && sp.groups[0] == 16 &&
              sp.groups[1] == 8 && sp.groups[2] == 3,
          "split: 1024^3: %u slices of %u", sp.splits, sp.k_slice);
    CHECK(vk_gemm_pick_split(&caps, false, false, 256, 4096, 4096, 1, &sp) && sp.splits == 3 &&
              sp.k_slice == 1376 && sp.first == VK_KERNEL_GEMM_SPLITK_128X64,
          "split: 256x4096x4096: %u slices of %u", sp.splits, sp.k_slice);
    /* split_products' 1000 x 530 x 1100 */
    CHECK(vk_gemm_pick_split(&caps, false, false, 1000, 530, 1100, 1, &sp) && sp.splits == 5 &&
              sp.k_slice == 224 && sp.first == VK_KERNEL_GEMM_SPLITK_128X64 && sp.groups[0] == 9 &&
              sp.groups[1] == 8,
          "split: 1000x530x1100: %u slices of %u", sp.splits, sp.k_slice);
    /* ResNet-50 b8's pointwise convs as products, 512 -> 2048 at 7 x 7 and 1024 -> 512 at
     * 14 x 14: too many 64x64 tiles to split, and 49 and 196 columns would leave a quarter
     * of the 128x64 blocks' empty: unsplit; 512 -> 128 at 28 x 28: K under 1024 */
    CHECK(!vk_gemm_pick_split(&caps, false, false, 2048, 49, 512, 8, &sp) &&
              !vk_gemm_pick_split(&caps, false, false, 512, 196, 1024, 8, &sp),
          "split: not where a quarter of the columns would be empty");
    CHECK(!vk_gemm_pick_split(&caps, false, false, 128, 784, 512, 8, &sp),
          "split: not under K %d on the 128x64 tile", VK_SPLITK_WIDE_MIN_K);
    /* 8 x 512^3 as one product of 4096 rows: 256 blocks, a wave's 396 hold no second slice */
    CHECK(!vk_gemm_pick_split(&caps, false, false, 4096, 512, 512, 1, &sp),
          "split: 4096x512x512 fills the wave unsplit");
    /* forced slices: on the 64x64 tile, or with splitk_wide on 128x64, where 128-row
     * blocks would not leave a quarter empty (200 rows would 56 of 256) */
    caps.splitk_force = 2;
    CHECK(vk_gemm_pick_split(&caps, false, false, 4096, 512, 512, 1, &sp) && sp.splits == 2 &&
              sp.first == VK_KERNEL_GEMM_SPLITK_64X64,
          "split: forced, 4096 rows on the 64x64 tile");
    caps.splitk_wide = true;
    CHECK(vk_gemm_pick_split(&caps, false, false, 4096, 512, 512, 1, &sp) && sp.splits == 2 &&
              sp.first == VK_KERNEL_GEMM_SPLITK_128X64 && sp.groups[1] == 32,
          "split: forced wide, 4096 rows on the 128x64 tile");
    CHECK(vk_gemm_pick_split(&caps, false, false, 200, 512, 512, 1, &sp) &&
              sp.first == VK_KERNEL_GEMM_SPLITK_64X64,
          "split: forced wide, 200 rows on the 64x64 tile");
    caps.splitk_wide = false;
    caps.splitk_force = 0;
    /* 160 channels would leave 96 of 256 rows of two 128-row tiles empty: 64x64 (3 x 1) */
    CHECK(vk_gemm_pick_split(&caps, true, false, 160, 49, 960, 1, &sp) &&
              sp.first == VK_KERNEL_CONV_GEMM_SPLITK_64X64 && sp.groups[1] == 3,
          "split: a conv of 160 channels on the 64x64 tile");
    /* 64 channels: the 64x64 tile */
    CHECK(vk_gemm_pick_split(&caps, true, false, 64, 49, 4608, 1, &sp) &&
              sp.first == VK_KERNEL_CONV_GEMM_SPLITK_64X64,
          "split: a conv of 64 channels on the 64x64 tile");
    /* 70 x 40 x 1100 MatMul: 1 x 2 64x64 tiles, 264 slices capped by 1100 / 64 = 17:
     * ceil(1100 / 17) = 65 -> 96 a slice: 12 slices */
    CHECK(vk_gemm_pick_split(&caps, false, false, 70, 40, 1100, 1, &sp) && sp.splits == 12 &&
              sp.k_slice == 96 && sp.first == VK_KERNEL_GEMM_SPLITK_64X64 && sp.groups[0] == 1 &&
              sp.groups[1] == 2 && sp.groups[2] == 12,
          "split: 70x40x1100: %u slices of %u", sp.splits, sp.k_slice);
    CHECK(vk_gemm_pick_split(&caps, true, true, 512, 49, 4608, 1, &sp) && sp.splits == 29 &&
              sp.first == VK_KERNEL_CONV_GEMM_COOP_SPLITK_64X64 &&
              sp.sum == VK_KERNEL_CONV_GEMM_SPLITK_SUM,
          "split: on cooperative matrices, the coop first pass");
    CHECK(!vk_gemm_pick_split(&caps, false, false, 2048, 2048, 4096, 1, &sp),
          "split: not a product of many tiles");
    /* A product cooperative matrices take by shape runs on the coop split kernel whatever
     * its tiles, on 128 x 64 blocks: the Linear layer 256 x 4096 x 4096 gives 2 x 64 of
     * them, 264 / 128 -> 3 slices: ceil(4096 / 3) = 1366 -> 1408 (a multiple of 64). */
    CHECK(vk_gemm_pick_split(&caps, false, true, 256, 4096, 4096, 1, &sp) && sp.splits == 3 &&
              sp.k_slice == 1408 && sp.first == VK_KERNEL_GEMM_COOP_SPLITK_128X64 &&
              sp.groups[0] == 64 && sp.groups[1] == 2 && sp.groups[2] == 3,
          "split: coop by shape, 256x4096x4096: %u slices of %u", sp.splits, sp.k_slice);
    /* 64 x 768 x 200: 12 x 1 tiles want 22 slices; K 200 allows 3, of 67 -> 128: 2 */
    CHECK(vk_gemm_pick_split(&caps, false, true, 64, 768, 200, 1, &sp) && sp.splits == 2 &&
              sp.k_slice == 128,
          "split: coop by shape, 64x768x200: %u slices of %u", sp.splits, sp.k_slice);
    CHECK(!vk_gemm_pick_split(&caps, false, true, 256, 256, 100, 1, &sp),
          "split: coop by shape needs K of two slices of 64");
    CHECK(!vk_gemm_pick_split(&caps, false, false, 64, 64, VK_SPLITK_MIN_K - 1, 1, &sp),
          "split: not under K %d", VK_SPLITK_MIN_K);
    /* mnist-8's 8 -> 16 5x5 conv: 16 x 196 outputs, K 200: 4 tiles of 64x64, 3 slices of
     * 64 -> 67 -> 96: 3 */
    CHECK(vk_gemm_pick_split(&caps, true, false, 16, 196, 200, 1, &sp) && sp.splits == 3 &&
              sp.k_slice == 96 && sp.first == VK_KERNEL_CONV_GEMM_SPLITK_64X64,
          "split: mnist-8's K-200 conv: %u slices of %u", sp.splits, sp.k_slice);
    /* MobileNetV2's 960 -> 160 1x1 conv at 7x7: 32x32 tiles give 2 x 5 = 10 groups; the
     * 64x64 tile 1 x 3; 176 slices capped by 960 / 64 = 15: 15 slices of 64 */
    CHECK(vk_gemm_pick_split(&caps, true, false, 160, 49, 960, 1, &sp) && sp.splits == 15 &&
              sp.k_slice == 64 && sp.groups[0] == 1 && sp.groups[1] == 3 && sp.groups[2] == 15,
          "split: MobileNetV2 960 -> 160 at 7x7: %u slices of %u", sp.splits, sp.k_slice);
    caps.splitk_force = -1;
    CHECK(!vk_gemm_pick_split(&caps, true, false, 512, 49, 4608, 1, &sp), "split: splitk_force -1");
    caps.splitk_force = 3; /* K 41: ceil(41 / 3) = 14 -> 32: 2 slices */
    CHECK(vk_gemm_pick_split(&caps, false, false, 5, 5, 41, 1, &sp) && sp.splits == 2 &&
              sp.k_slice == 32,
          "split: forced 3 over K 41: %u slices of %u", sp.splits, sp.k_slice);
    CHECK(!vk_gemm_pick_split(&caps, false, false, 5, 5, 32, 1, &sp), "split: K 32 is one slice");
    caps.splitk_force = 0;
    caps.gemm_force = 2;
    CHECK(!vk_gemm_pick_split(&caps, true, false, 512, 49, 4608, 1, &sp),
          "split: not while a tile is forced");
    caps.gemm_force = 0;
    caps.prefer_tiled = false;
    CHECK(!vk_gemm_pick_split(&caps, true, false, 512, 49, 4608, 1, &sp),
          "split: not on the plain kernels' devices");
}

/* Products split-K takes by shape, with C, bias, epilogues, groups and float16. */
static void split_products(void)
{
    matmul_2d(70, 1100, 40);
    /* 1000 x 530 x 1100: 16 x 9 tiles of 64x64 are too many to split; 8 x 9 blocks of
     * 128x64 (the last 104 rows and 18 columns) take 396 / 72 -> 5 slices, of 220 -> 224 (the
     * last 204) */
    matmul_2d(1000, 1100, 530);
    matmul_2d(6, 2050, 5); /* more rows than gemv.comp takes */
    gemm(45, 1030, 39, 1, 1, 2, NULL);
    graph_epilogue e = {
        .act = ELT_SILU, .alpha = 1, .bias = 2, .residual = 3, .absorbed = "Add+SiLU+Add"};
    matmul("Add+SiLU+Add K 1300", 3, (int64_t[]){2, 17, 1300}, 2, (int64_t[]){1300, 30}, &e, 3,
           (int64_t[]){2, 17, 30});
    /* N 32: the sums 4 columns an invocation, stored as quads with the residual's quads */
    matmul("Add+SiLU+Add K 1300, N 32", 3, (int64_t[]){2, 17, 1300}, 2, (int64_t[]){1300, 32}, &e,
           3, (int64_t[]){2, 17, 32});
    graph_epilogue r = {
        .act = ELT_RELU, .bias = -1, .residual = 3, .residual_first = true, .absorbed = "Add+Relu"};
    const conv_shape cs[] = {
        {1, 128, 5, 5, 24, 3, 1, 1, 1, 1},  /* K 1152, one tile */
        {2, 256, 4, 4, 32, 3, 1, 1, 1, 2},  /* groups: K 1152 per group */
        {1, 1040, 3, 3, 20, 1, 1, 0, 1, 1}, /* 1x1, K 1040 */
        {1, 300, 7, 7, 37, 1, 1, 0, 1, 1},  /* 1x1, K 300: 4 slices of 96 (the last 12) */
        /* 4 images of 3x3: N 36 sums 4 columns an invocation, but a plane of 9 leaves no
         * quad whole in Y (gemm_store_each) */
        {4, 1040, 3, 3, 20, 1, 1, 0, 1, 1},
    };
    for (size_t i = 0; i < VKML_ARRAY_SIZE(cs); i++) {
        conv(&cs[i], i != 1, NULL);
        conv(&cs[i], true, &r);
    }
    dtype = VKML_DTYPE_FLOAT16;
    conv(&cs[0], true, &r);
    matmul_2d(70, 1100, 40);
    dtype = VKML_DTYPE_FLOAT;
}

static bool is_coop(vk_kernel_id k)
{
    return k == VK_KERNEL_GEMM_COOP_128X128 || k == VK_KERNEL_GEMM_COOP_128X64 ||
           k == VK_KERNEL_GEMM_COOP_64X64 || k == VK_KERNEL_CONV_GEMM_COOP_128X128 ||
           k == VK_KERNEL_CONV_GEMM_COOP_128X64 || k == VK_KERNEL_CONV_GEMM_COOP_64X64;
}

/* vk_gemm_pick_coop over made-up capabilities: what it takes and refuses. */
static void coop_picks(void)
{
    struct gpu_caps caps = {.cooperative_matrix = true,
                            .prefer_tiled = true,
                            .max_workgroup_count = {65535, 65535, 65535}};
    vk_kernel_id k = VK_KERNEL_COUNT;
    uint32_t g[3] = {0};
    const vkml_dtype f16 = VKML_DTYPE_FLOAT16, f32 = VKML_DTYPE_FLOAT;
    /* 128x128 unsplit where it alone gives VK_GEMM_MIN_GROUPS workgroups: 16 x 32 = 512;
     * then no split-K */
    vk_gemm_split sp;
    CHECK(vk_gemm_pick_coop(&caps, false, f16, false, 4096, 2048, 1024, 1, &k, g) &&
              k == VK_KERNEL_GEMM_COOP_128X128 && g[0] == 16 && g[1] == 32 && g[2] == 1 &&
              !vk_gemm_pick_split(&caps, false, true, 4096, 2048, 1024, 1, &sp),
          "coop: float16 4096x2048 takes the 128x128 tile unsplit (kernel %d, %u x %u x %u)",
          (int)k, g[0], g[1], g[2]);
    /* 2048 x 1024 gives 128 of them: the split kernel's 128x64 */
    CHECK(vk_gemm_pick_coop(&caps, false, f16, false, 2048, 1024, 1024, 1, &k, g) &&
              k == VK_KERNEL_GEMM_COOP_128X64 &&
              vk_gemm_pick_split(&caps, false, true, 2048, 1024, 1024, 1, &sp) &&
              sp.first == VK_KERNEL_GEMM_COOP_SPLITK_128X64,
          "coop: float16 2048x1024 on split-K's 128x64 tile (kernel %d)", (int)k);
    /* 1024^2: 128x64 gives 16 x 8 = 128 groups, VK_GEMM_TILE_MIN_GROUPS */
    CHECK(vk_gemm_pick_coop(&caps, false, f16, false, 1024, 1024, 1024, 1, &k, g) &&
              k == VK_KERNEL_GEMM_COOP_128X64 && g[0] == 16 && g[1] == 8,
          "coop: float16 1024^3 takes the 128x64 tile (kernel %d)", (int)k);
    /* 512 x 1024: 128x64 gives 16 x 4 = 64 groups, 64x64 128 */
    CHECK(vk_gemm_pick_coop(&caps, false, f16, false, 512, 1024, 1024, 1, &k, g) &&
              k == VK_KERNEL_GEMM_COOP_64X64 && g[0] == 16 && g[1] == 8,
          "coop: float16 512x1024 takes the 64x64 tile (kernel %d)", (int)k);
    /* convs (those taps refused) where the blocks fill a wave of 264: ResNet-50's stem, 64
     * x 112*112 x 147, at b8 on 1 x 1568 blocks of 64x64; at b1 196 blocks, refused; 32
     * output channels (half a 64-row block) refused */
    CHECK(vk_gemm_pick_coop(&caps, true, f16, false, 64, 8 * 12544, 147, 1, &k, g) &&
              k == VK_KERNEL_CONV_GEMM_COOP_64X64 && g[0] == 1568 && g[1] == 1,
          "coop: the b8 stem on the gather kernel's 64x64 blocks (kernel %d, %u)", (int)k, g[0]);
    CHECK(!vk_gemm_pick_coop(&caps, true, f16, false, 64, 12544, 147, 1, &k, g) &&
              !vk_gemm_pick_coop(&caps, true, f16, false, 32, 8 * 12544, 147, 1, &k, g) &&
              !vk_gemm_pick_coop(&caps, true, f16, false, 64, 8 * 12544, 27, 1, &k, g),
          "coop: convs of less than a wave of blocks, 32 channels or K 27 stay on gemm_tiled");
    CHECK(!vk_gemm_pick_coop(&caps, false, f16, false, 4096, 127, 1024, 1, &k, g) &&
              !vk_gemm_pick_coop(&caps, false, f16, false, 127, 4096, 1024, 1, &k, g),
          "coop: not with M or N under %d", VK_COOP_MIN_SIDE);
    /* 4096^2 (two slices of float32 sums would be 128 MiB, past VK_SPLITK_MAX_BYTES) runs
     * unsplit: 1,024 workgroups of 128x128; so do 32 batches of 1024 x 256 (512) */
    CHECK(vk_gemm_pick_coop(&caps, false, f16, false, 4096, 4096, 1024, 1, &k, g) &&
              k == VK_KERNEL_GEMM_COOP_128X128 &&
              vk_gemm_pick_coop(&caps, false, f16, false, 1024, 256, 1024, 32, &k, g) &&
              k == VK_KERNEL_GEMM_COOP_128X128 && g[2] == 32,
          "coop: 4096^2 and 32 x 1024 x 256 unsplit on the 128x128 tile (kernel %d)", (int)k);
    CHECK(!vk_gemm_pick_coop(&caps, false, f32, false, 1024, 1024, 1024, 1, &k, g),
          "coop: float32 under precision fp32 never");
    CHECK(vk_gemm_pick_coop(&caps, false, f32, true, 1024, 1024, 1024, 1, &k, g) &&
              k == VK_KERNEL_GEMM_COOP_128X64,
          "coop: float32 under fp32-fast by shape, as float16 (kernel %d)", (int)k);
    caps.coop_force = 2;
    CHECK(vk_gemm_pick_coop(&caps, false, f32, true, 1024, 1024, 1024, 1, &k, g) && is_coop(k),
          "coop: float32 under fp32-fast when forced");
    caps.coop_force = 0;
    CHECK(vk_gemm_coop_takes(&caps, f16, false) && !vk_gemm_coop_takes(&caps, f32, false) &&
              vk_gemm_coop_takes(&caps, f32, true),
          "coop: float16 always, float32 under fp32-fast only");
    CHECK(!vk_gemm_pick_coop(&caps, false, VKML_DTYPE_DOUBLE, true, 1024, 1024, 1024, 1, &k, g),
          "coop: not double");
    CHECK(!vk_gemm_pick_coop(&caps, false, f16, false, 63, 64, 1024, 1, &k, g),
          "coop: not under %d outputs", VK_COOP_MIN_OUTPUTS);
    CHECK(!vk_gemm_pick_coop(&caps, false, f16, false, 1024, 1024, VK_COOP_MIN_K - 1, 1, &k, g),
          "coop: not under K %d", VK_COOP_MIN_K);
    caps.coop_force = 3;
    CHECK(vk_gemm_pick_coop(&caps, false, f16, false, 1, 1, 1, 1, &k, g) &&
              k == VK_KERNEL_GEMM_COOP_64X64 && g[0] == 1 && g[1] == 1,
          "coop: coop_force 3 takes a 1x1x1 product on the 64x64 tile");
    caps.coop_force = -1;
    CHECK(!vk_gemm_pick_coop(&caps, false, f16, false, 1024, 1024, 1024, 1, &k, g),
          "coop: coop_force -1 never");
    caps.coop_force = 0;
    caps.gemm_force = 1;
    CHECK(!vk_gemm_pick_coop(&caps, false, f16, false, 1024, 1024, 1024, 1, &k, g),
          "coop: not while a gemm_tiled.comp tile is forced");
    caps.gemm_force = 0;
    caps.prefer_tiled = false;
    CHECK(!vk_gemm_pick_coop(&caps, false, f16, false, 1024, 1024, 1024, 1, &k, g),
          "coop: not on a device preferring the plain kernels");
    caps.prefer_tiled = true;
    caps.cooperative_matrix = false;
    CHECK(!vk_gemm_pick_coop(&caps, false, f16, false, 1024, 1024, 1024, 1, &k, g),
          "coop: not without cooperative matrices");
}

/* vk_conv_pick_taps over made-up capabilities: the block by shape, split-K where blocks are
 * few, and the convs it refuses. */
static void taps_picks(void)
{
    struct gpu_caps caps = {.cooperative_matrix = true,
                            .prefer_tiled = true,
                            .max_workgroup_count = {65535, 65535, 65535}};
    const vkml_dtype f16 = VKML_DTYPE_FLOAT16, f32 = VKML_DTYPE_FLOAT;
    vk_kernel_id k = VK_KERNEL_COUNT;
    uint32_t g[3] = {0};
    vk_gemm_split sp;
    /* ResNet-50 b8's 3x3 conv at 28x28: 128 x 6272 x 1152; 128 x 128 blocks: 49 < 128, so
     * 128 x 64: 98 blocks, K in 2 slices of 576 (264 / 98 rounded down: one wave of 196
     * workgroups, not 3 slices and 294) */
    CHECK(vk_conv_pick_taps(&caps, f16, false, 128, 6272, 1152, 1, 128, &k, g, &sp) &&
              sp.splits == 2 && sp.k_slice == 576 &&
              sp.first == VK_KERNEL_CONV_COOP_TAPS_SPLITK_128X64 && sp.groups[0] == 98 &&
              sp.groups[1] == 1 && sp.groups[2] == 2,
          "taps: 128 x 6272 x 1152: %u slices of %u on %u x %u", sp.splits, sp.k_slice,
          sp.groups[0], sp.groups[1]);
    /* its 3x3 conv at 56x56: 64 x 25088 x 576: 64 x 128 blocks, 196 of them, whole K */
    CHECK(vk_conv_pick_taps(&caps, f16, false, 64, 25088, 576, 1, 64, &k, g, &sp) &&
              sp.splits == 0 && k == VK_KERNEL_CONV_COOP_TAPS_64X128 && g[0] == 196 && g[1] == 1,
          "taps: 64 x 25088 x 576 on 64 x 128 blocks (kernel %d, %u blocks)", (int)k, g[0]);
    /* 256 x 16384: 128 x 128 blocks, 2 x 128 */
    CHECK(vk_conv_pick_taps(&caps, f32, true, 256, 16384, 2304, 1, 256, &k, g, &sp) &&
              sp.splits == 0 && k == VK_KERNEL_CONV_COOP_TAPS_128X128 && g[0] == 128 && g[1] == 2,
          "taps: 256 x 16384 on 128 x 128 blocks under fp32-fast (kernel %d)", (int)k);
    /* its 7x7 stage: 512 x 392 x 4608: 4 x 7 blocks of 128 x 64, 9 slices of 512 (252
     * workgroups); the sums 256 columns a workgroup: 2 x 512 */
    CHECK(vk_conv_pick_taps(&caps, f16, false, 512, 392, 4608, 1, 512, &k, g, &sp) &&
              sp.splits == 9 && sp.k_slice == 512 && sp.groups[0] == 7 && sp.groups[1] == 4 &&
              sp.sum_groups[0] == 2 && sp.sum_groups[1] == 512,
          "taps: 512 x 392 x 4608: %u slices of %u", sp.splits, sp.k_slice);
    /* its 14x14 stage: 256 x 1568 x 2304: 2 x 25 blocks, 264 / 50 = 5 slices, 2304 / 5
     * rounded up to whole steps of 32: 480 */
    CHECK(vk_conv_pick_taps(&caps, f16, false, 256, 1568, 2304, 1, 256, &k, g, &sp) &&
              sp.splits == 5 && sp.k_slice == 480 && sp.groups[0] == 25 && sp.groups[1] == 2 &&
              sp.groups[2] == 5,
          "taps: 256 x 1568 x 2304: %u slices of %u", sp.splits, sp.k_slice);
    /* 96 rows: 128 would leave a quarter empty, two 64-row blocks */
    CHECK(vk_conv_pick_taps(&caps, f16, false, 96, 65536, 576, 1, 64, &k, g, &sp) &&
              k == VK_KERNEL_CONV_COOP_TAPS_64X128 && g[1] == 2,
          "taps: 96 output channels on 64-row blocks");
    CHECK(!vk_conv_pick_taps(&caps, f16, false, 128, 6272, 1200, 1, 48, &k, g, &sp),
          "taps: not for 48 input channels a group (not a multiple of 32)");
    CHECK(!vk_conv_pick_taps(&caps, f16, false, 32, 6272, 576, 1, 64, &k, g, &sp),
          "taps: not for 32 output channels");
    CHECK(!vk_conv_pick_taps(&caps, f32, false, 128, 6272, 1152, 1, 128, &k, g, &sp),
          "taps: not float32 outside fp32-fast");
    /* forced as the kernel choice by measurement says (taps_force, taps_splits) */
    caps.taps_force = 4, caps.taps_splits = 1;
    CHECK(vk_conv_pick_taps(&caps, f16, false, 512, 392, 4608, 1, 512, &k, g, &sp) &&
              sp.splits == 0 && k == VK_KERNEL_CONV_COOP_TAPS_64X64 && g[0] == 7 && g[1] == 8,
          "taps forced: 512 x 392 x 4608 whole on 64 x 64 blocks (kernel %d, %u x %u)", (int)k,
          g[0], g[1]);
    caps.taps_force = 2, caps.taps_splits = 4;
    CHECK(vk_conv_pick_taps(&caps, f16, false, 128, 6272, 1152, 1, 128, &k, g, &sp) &&
              sp.splits == 4 && sp.k_slice == 288 &&
              sp.first == VK_KERNEL_CONV_COOP_TAPS_SPLITK_128X64 && sp.groups[0] == 98 &&
              sp.groups[2] == 4,
          "taps forced: 128 x 6272 x 1152 in 4 slices of 128 x 64 (%u of %u)", sp.splits,
          sp.k_slice);
    caps.taps_force = 1;
    CHECK(vk_conv_pick_taps(&caps, f16, false, 128, 6272, 1152, 1, 128, &k, g, &sp) &&
              sp.splits == 0 && k == VK_KERNEL_CONV_COOP_TAPS_128X128 && g[0] == 49,
          "taps forced: 128 x 128 blocks keep K whole (split kernels are 64 pixels wide)");
    caps.taps_force = 4, caps.taps_splits = 16;
    CHECK(vk_conv_pick_taps(&caps, f16, false, 64, 25088, 576, 1, 64, &k, g, &sp) &&
              sp.splits == 576 / VK_SPLITK_MIN_SLICE &&
              sp.first == VK_KERNEL_CONV_COOP_TAPS_SPLITK_64X64,
          "taps forced: 16 slices of a K of 576 bounded to %d, got %u", 576 / VK_SPLITK_MIN_SLICE,
          sp.splits);
    caps.taps_force = 0, caps.taps_splits = 0;
    caps.coop_force = 2;
    CHECK(!vk_conv_pick_taps(&caps, f16, false, 128, 6272, 1152, 1, 128, &k, g, &sp),
          "taps: not while a coop tile is forced");
    caps.coop_force = 0;
    caps.cooperative_matrix = false;
    CHECK(!vk_conv_pick_taps(&caps, f16, false, 128, 6272, 1152, 1, 128, &k, g, &sp),
          "taps: not without cooperative matrices");
}

/* On devices with cooperative matrices: convs on gemm_coop.comp's CONV=2 form, each block
 * and split-K, strides, pads, dilation, groups, ragged edges, bias and epilogues. */
static void taps_convs(void)
{
    graph_epilogue r = {
        .act = ELT_RELU, .bias = -1, .residual = 3, .residual_first = true, .absorbed = "Add+Relu"};
    const conv_shape cs[] = {
        {4, 32, 64, 64, 128, 3, 1, 1, 1, 1}, /* 128 x 128 blocks, whole K */
        {4, 64, 64, 64, 64, 3, 1, 1, 1, 1},  /* 64 x 128 */
        {2, 64, 20, 20, 128, 3, 1, 1, 1, 1}, /* 128 x 64, split */
        {2, 32, 48, 48, 64, 3, 2, 1, 1, 1},  /* stride 2, 64 x 64 split */
        {1, 64, 15, 13, 96, 3, 1, 1, 1, 1},  /* ragged rows and pixels */
        {2, 64, 10, 10, 128, 3, 1, 1, 1, 2}, /* two groups of 32 -> 64 */
        {1, 32, 16, 16, 64, 5, 1, 4, 2, 1},  /* 5x5, dilation 2 */
        {2, 64, 16, 16, 128, 1, 2, 0, 1, 1}, /* 1x1 stride 2 (downsample) */
        {2, 128, 7, 7, 256, 3, 1, 1, 1, 1},  /* a 7x7 stage: many slices */
    };
    for (size_t i = 0; i < VKML_ARRAY_SIZE(cs); i++) {
        conv(&cs[i], i % 2 == 0, NULL);
        if (i % 3 == 2)
            conv(&cs[i], true, &r);
    }
}

/* The machine's devices: one without cooperative matrices never gets gemm_coop.comp, and
 * VKML_NO_COOPMAT=1 turns them off on every device. Returns the devices that have them. */
static int coop_devices(void)
{
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    int n = ctx ? vkml_context_device_count(ctx) : 0, with = 0;
    for (int d = 0; d < n; d++) {
        vk_device *vd = (vk_device *)context_device(ctx, d);
        if (!vd || vd->base.cls != &vk_device_class)
            continue;
        struct gpu_caps caps = vd->caps;
        caps.prefer_tiled = true;
        vk_kernel_id k = VK_KERNEL_COUNT;
        uint32_t g[3];
        bool took =
            vk_gemm_pick_coop(&caps, false, VKML_DTYPE_FLOAT16, true, 1024, 1024, 1024, 1, &k, g);
        CHECK(took == caps.cooperative_matrix,
              "%s: cooperative matrix %d, float16 1024^3 on "
              "gemm_coop.comp %d",
              vd->base.info.name, caps.cooperative_matrix, took);
        printf("%s: cooperative matrices %s\n", vd->base.info.name,
               caps.cooperative_matrix ? "yes (gemm_coop.comp runs)" : "no");
        with += caps.cooperative_matrix;
    }
    vkml_context_destroy(&ctx);
    setenv("VKML_NO_COOPMAT", "1", 1);
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    for (int d = 0; ctx && d < vkml_context_device_count(ctx); d++) {
        vk_device *vd = (vk_device *)context_device(ctx, d);
        if (vd && vd->base.cls == &vk_device_class)
            CHECK(!vd->caps.cooperative_matrix,
                  "%s: VKML_NO_COOPMAT=1 leaves cooperative "
                  "matrices on",
                  vd->base.info.name);
    }
    vkml_context_destroy(&ctx);
    unsetenv("VKML_NO_COOPMAT");
    return with;
}

/* gemm_coop.comp tiles first .. last (0: the choice by shape) over the products, float16
 * and float32 under fp32-fast. */
static void coop_tile_products(int first, int last)
{
    for (int t = first; t <= last; t++) {
        printf("-- gemm_coop.comp %s%d, float16 and fp32-fast\n", t ? "tile " : "by shape ", t);
        oh_gpu_kernels(OH_KERNELS_TILED, 0);
        dtype = VKML_DTYPE_FLOAT16;
        oh_coop(t, false);
        products(true);
        dtype = VKML_DTYPE_FLOAT;
        rounds_to_half = true;
        oh_coop(t, true);
        products(true);
        epilogues(); /* float32 and float16 cases */
        rounds_to_half = false;
    }
}

/* On devices with cooperative matrices: every gemm_coop.comp tile (and the choice by shape)
 * over the products, float16 and float32 under fp32-fast. */
static void coop_products_rest(void);
static void coop_products(void)
{
    coop_tile_products(0, VK_COOP_TILES);
    coop_products_rest();
}

/* The other gemm_coop.comp kernels: split-K, the convs over taps and the gather convs. */
static void coop_products_rest(void)
{
    printf("-- gemm_coop.comp split-K: 3 slices, then by shape; float16 and fp32-fast\n");
    oh_coop(0, false);
    oh_splitk(3);
    dtype = VKML_DTYPE_FLOAT16;
    products(true);
    dtype = VKML_DTYPE_FLOAT;
    rounds_to_half = true;
    oh_coop(0, true);
    products(true);
    oh_splitk(0);
    split_products(); /* its float16 cases too */
    printf("-- gemm_coop.comp's convs over taps, float16 and fp32-fast\n");
    oh_coop(0, true);
    taps_convs();
    rounds_to_half = false;
    oh_coop(0, false);
    dtype = VKML_DTYPE_FLOAT16;
    taps_convs();
    dtype = VKML_DTYPE_FLOAT;
}

/* vk_gemm_pick_cm2 over made-up capabilities (needs the kernel built: glslang_next). */
static void cm2_picks(void)
{
    if (vk_kernel_variant(VK_KERNEL_GEMM_CM2_64X64, VKML_DTYPE_FLOAT16) < 0) {
        printf("-- gemm_cm2.comp not built (no glslang_next): its choice not checked\n");
        return;
    }
    struct gpu_caps caps = {.cooperative_matrix = true,
                            .coopmat2 = true,
                            .cm2_tiles = 0x3,
                            .prefer_tiled = true,
                            .max_workgroup_count = {65535, 65535, 65535}};
    matmul_push pc = {
        .m = 4096, .n = 1000, .k = 4096, .a_sm = 4096, .a_sk = 1, .b_sk = 1000, .b_sn = 1};
    vk_kernel_id k = VK_KERNEL_COUNT;
    uint32_t g[3];
    vkml_dtype f16 = VKML_DTYPE_FLOAT16;
    CHECK(!vk_gemm_pick_cm2(&caps, &pc, f16, 1, &k, g), "cm2: never by shape");
    caps.cm2_force = 1;
    CHECK(vk_gemm_pick_cm2(&caps, &pc, f16, 3, &k, g) && k == VK_KERNEL_GEMM_CM2_128X128 &&
              g[0] == 8 && g[1] == 32 && g[2] == 3,
          "cm2: forced 128x128 over 3 batches (kernel %d, %u x %u x %u)", (int)k, g[0], g[1], g[2]);
    CHECK(!vk_gemm_pick_cm2(&caps, &pc, VKML_DTYPE_FLOAT, 1, &k, g), "cm2: float16 only");
    pc.a_sm = 2;
    pc.a_sk = 8192;
    CHECK(!vk_gemm_pick_cm2(&caps, &pc, f16, 1, &k, g),
          "cm2: not when neither of A's strides is 1");
    pc.a_sm = 1;
    pc.a_sk = 4096;
    CHECK(vk_gemm_pick_cm2(&caps, &pc, f16, 1, &k, g), "cm2: A read through a transpose");
    caps.coop_force = 1;
    CHECK(!vk_gemm_pick_cm2(&caps, &pc, f16, 1, &k, g), "cm2: not when gemm_coop is forced");
    caps.coop_force = 0;
    caps.cm2_tiles = 0x2;
    CHECK(!vk_gemm_pick_cm2(&caps, &pc, f16, 1, &k, g), "cm2: not a tile the device lacks");
    caps.coopmat2 = false;
    caps.cm2_force = 2;
    CHECK(!vk_gemm_pick_cm2(&caps, &pc, f16, 1, &k, g), "cm2: never without the device's");
}

/* On devices with workgroup-scope cooperative matrices: every gemm_cm2.comp tile over the
 * float16 products and epilogues. */
static void cm2_products(void)
{
    oh_gpu_kernels(OH_KERNELS_TILED, 0);
    oh_coop(0, false);
    dtype = VKML_DTYPE_FLOAT16;
    for (int t = 1; t <= VK_CM2_TILES; t++) {
        printf("-- gemm_cm2.comp tile %d, float16\n", t);
        oh_cm2(t);
        products(true);
        epilogues();
    }
    oh_cm2(0);
    dtype = VKML_DTYPE_FLOAT;
}

/* Four products of fixed shapes (ragged, Gemm's B^T with a bias, batched, ragged past a
 * block each way). */
static void tune_shapes(void)
{
    matmul_2d(37, 70, 45);
    gemm(45, 67, 39, 0, 1, 1, NULL);
    matmul("batched [3,20,33] x [3,33,17]", 3, (int64_t[]){3, 20, 33}, 3, (int64_t[]){3, 33, 17},
           NULL, 0, NULL);
    matmul_2d(131, 260, 129);
}

/* The rule that picks among measured times (vk_gemm_tune_pick): the fastest where it beats
 * the choice by shape (the first) by VK_GEMM_TUNE_MARGIN percent, else the choice by shape. */
static void tune_pick_rule(void)
{
    double m = 1.0 + VK_GEMM_TUNE_MARGIN / 100.0;
    CHECK(vk_gemm_tune_pick((double[]){20.0, 30.0, 10.0, 15.0}, 4) == 2,
          "tune pick: the fastest, by far");
    CHECK(vk_gemm_tune_pick((double[]){20.0, 30.0, 20.0 / m + 0.01, 25.0}, 4) == 0,
          "tune pick: the choice by shape when the fastest is just under the margin ahead");
    CHECK(vk_gemm_tune_pick((double[]){20.0, 20.0 / m - 0.01, 30.0}, 3) == 1,
          "tune pick: the fastest just past the margin");
    CHECK(vk_gemm_tune_pick((double[]){10.0, 12.0, 11.0}, 3) == 0,
          "tune pick: the choice by shape when it is the fastest");
    CHECK(vk_gemm_tune_pick((double[]){10.0}, 1) == 0, "tune pick: one candidate");
}

/* The kernel choice by measurement (vk_gemm_tune.h) for products (oh_tune_check). */
static void tuned_products(void)
{
    static const char *const forced[] = {"tiled2", "tiled-split4", "tiled-wide-split2",
                                         "coop3",  "coop-split2",  "taps2"};
    oh_tune_check("gemm tune", tune_shapes, 4, forced, (int)VKML_ARRAY_SIZE(forced));
}

int main(void)
{
    const char *seed = getenv("VKML_TEST_SEED");
    shape_rng = seed ? strtoull(seed, NULL, 0) : (uint64_t)time(NULL) * 2654435761u + 7;
    /* one gemm_coop.comp tile's products and epilogues alone, or "rest": its other kernels
     * (to check a new build of them on a GPU in parts, side by side) */
    const char *tile = getenv("VKML_TEST_COOP_TILE");
    if (tile) {
        if (coop_devices() > 0 && strcmp(tile, "rest") == 0)
            coop_products_rest();
        else if (coop_devices() > 0)
            coop_tile_products(atoi(tile), atoi(tile));
        int harness = oh_finish();
        return test_finish("gemm_coop.comp tile") || harness;
    }
    static const struct {
        oh_kernels k;
        int force;
        const char *name;
        bool large;
    } passes[] = {
        {OH_KERNELS_PLAIN, 0, "plain kernels", false},
        {OH_KERNELS_TILED, 0, "gemm_tiled.comp, tile by shape", true},
        {OH_KERNELS_TILED, 1, "gemm_tiled.comp 128x128", true},
        {OH_KERNELS_TILED, 2, "gemm_tiled.comp 128x64", true},
        {OH_KERNELS_TILED, 3, "gemm_tiled.comp 64x64", false},
        {OH_KERNELS_TILED, 4, "gemm_tiled.comp 32x32", false},
        {OH_KERNELS_TILED, -1, "old tiled kernels", false},
    };
    for (size_t p = 0; p < VKML_ARRAY_SIZE(passes); p++) {
        printf("-- %s\n", passes[p].name);
        oh_gpu_kernels(passes[p].k, passes[p].force);
        products(passes[p].large);
        if (passes[p].force <= 0)
            epilogues();
        if (passes[p].k == OH_KERNELS_TILED && passes[p].force == 0)
            gemv_products();
    }
    gemv_picks();
    oh_gpu_kernels(OH_KERNELS_TILED, 1);
    epilogues(); /* the largest tile's epilogue too */
    split_picks();
    product_picks();
    static const int forced_splits[] = {2, 7};
    oh_gpu_kernels(OH_KERNELS_TILED, 0);
    for (size_t i = 0; i < VKML_ARRAY_SIZE(forced_splits); i++) {
        printf("-- split-K, %d slices\n", forced_splits[i]);
        oh_splitk(forced_splits[i]);
        products(i == 0);
        if (i == 0)
            epilogues();
    }
    printf("-- split-K, 3 slices on 128 x 64 blocks\n");
    oh_splitk(3);
    oh_splitk_wide(true);
    products(false);
    oh_splitk_wide(false);
    printf("-- split-K by shape\n");
    oh_splitk(0);
    split_products();
    coop_picks();
    taps_picks();
    tune_pick_rule();
    if (coop_devices() > 0)
        coop_products();
    else
        printf("-- gemm_coop.comp: no device with cooperative matrices here: only its choice "
               "checked\n");
    tuned_products();
    oh_gpu_kernels(OH_KERNELS_TILED, 0);
    cm2_picks();
    if (oh_cm2_devices() > 0)
        cm2_products();
    else
        printf("-- gemm_cm2.comp: no device with workgroup-scope cooperative matrices here\n");
    oh_gpu_kernels(OH_KERNELS_DEVICE, 0);
    /* this file's own CHECKs count in its copy of test_failures, the harness's in its own */
    int harness = oh_finish();
    return test_finish("gemm kernel choice") || harness;
}
