/* Vulkan lowering of Conv: 1-D to 3-D, groups, strides, pads, dilations, bias and the fused
 * epilogue. A pointwise conv (1x1, stride 1, no padding, one group) is a plain matrix
 * product, Y[n] = W X[n], and runs as one per image where that suits
 * (vk_conv_runs_as_product; vk_rec_matmul: its loads need no window arithmetic, and
 * cooperative matrices may take it); on a 1x1 input (squeeze-excitation)
 * that product has a few rows and runs on gemv.comp. Under fp16 and fp32-fast, on devices
 * with cooperative matrices, 2-D convs of groups of a multiple of 32 input channels run on
 * the tensor cores over taps (taps_takes; gemm_coop.comp CONV=2, their weights packed at
 * upload: vk_conv_packs_weights). Other float32 2-D convs with enough
 * channels per group run on GPUs as an implicit GEMM on gemm_tiled.comp's tiles
 * (conv_gemm_*); the rest on the direct kernel over the window's taps inside the input
 * (conv_window.comp), in its depthwise form when every group has one input channel, in its
 * lanes form (8 invocations an output) for small convs of many channels a group, with its
 * taps unrolled for square 2-D windows of 3, 5 and 7. */
#include "ops/conv.h"
#include "vulkan/ops_gemm.h"
#include "vulkan/ops_matmul.h"
#include "vulkan/ops_window.h"
#include "vulkan/vk_gemm_tune.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Output channels per group from which the implicit GEMM beats the direct kernel; below
 * it (depthwise, few channels) most of a tile's rows would be idle. */
#define CONV_GEMM_MIN_CHANNELS 8

/* Outputs (batch x channels x pixels) up to which, and K under which, a conv runs on the
 * direct kernel: one invocation per output, no barriers, more workgroups than the GEMM's
 * tiles. Measured on the H200 (2026-11-24): mnist-8's 1 -> 8 5x5 at 28x28 (6,272 outputs,
 * K 25) 8.5 us direct against 13.9 on a 32x32 tile; its 8 -> 16 5x5 at 14x14 (3,136
 * outputs, K 200) 22.5 us direct against 18.6 on a 32x32 tile (13.3 split along K since): a
 * long K is walked serially there. */
#define CONV_DIRECT_MAX_OUTPUTS 8192
#define CONV_DIRECT_MAX_K 64

/* Input channels per group from which such a small conv runs on the direct kernel's lanes
 * form (conv_lanes*: 8 invocations an output, each over every 8th channel, their sums
 * added in shared memory) whatever its K, up to CONV_LANES_MAX_K: mnist-8's 8 -> 16 5x5
 * conv (3,136 outputs, K 200) walked its K serially on one invocation an output (22.5 us
 * on the H200) or was split along K on the GEMM tiles, two dispatches (12.6 us); on the
 * lanes, 5.6 us (H200, 2026-11-24). */
#define CONV_LANES 8
#define CONV_LANES_MAX_K 4096
/* Invocations of a pooled output of conv_window.comp's POOL forms at most: their
 * workgroup's (its WG_SIZE). passes/fuse_epilogue.c fuses pools of up to 16 taps: 16 x 8
 * lanes fit. */
#define CONV_POOL_WG 256

/* Whether conv p may split its channels over lanes of the direct kernel (GPUs that prefer
 * tiles, kernels by shape, 8 or more channels a group, K up to CONV_LANES_MAX_K). */
static bool lanes_suit(const conv_params *p, const struct gpu_caps *caps)
{
    int64_t group_in = p->in_channels / p->group;
    return caps->prefer_tiled && caps->gemm_force == 0 && caps->splitk_force == 0 &&
           caps->coop_force <= 0 && group_in >= CONV_LANES && p->win.spatial <= 2 &&
           group_in * window_kernel_size(&p->win) <= CONV_LANES_MAX_K;
}

/* Whether conv p (without a fused pool) runs on the lanes form of the direct kernel: a
 * small one (CONV_DIRECT_MAX_OUTPUTS), larger ones on the GEMM tiles. */
static bool runs_on_lanes(const conv_params *p, const struct gpu_caps *caps)
{
    int64_t outputs = p->batch * p->out_channels * window_out_size(&p->win);
    return lanes_suit(p, caps) && outputs <= CONV_DIRECT_MAX_OUTPUTS;
}

/* Whether conv p suits the GEMM kernels at all (else the direct kernel): a device that
 * takes tiled products, float32 or float16, 1-D or 2-D, enough channels, not a conv small
 * enough for the direct kernel or its lanes form. */
static bool gemm_suits(const conv_params *p, vkml_dtype dtype, const struct gpu_caps *caps)
{
    int64_t channels = p->out_channels / p->group;
    int64_t cols = p->batch * window_out_size(&p->win);
    if (!caps->prefer_tiled || caps->gemm_force < 0 ||
        (dtype != VKML_DTYPE_FLOAT && dtype != VKML_DTYPE_FLOAT16) || p->win.spatial > 2 ||
        channels < CONV_GEMM_MIN_CHANNELS)
        return false;
    int64_t k = p->in_channels / p->group * window_kernel_size(&p->win);
    bool by_shape = caps->gemm_force == 0 && caps->splitk_force == 0 && caps->coop_force <= 0;
    if (by_shape && p->out_channels * cols <= CONV_DIRECT_MAX_OUTPUTS && k < CONV_DIRECT_MAX_K)
        return false;
    return !runs_on_lanes(p, caps);
}

/* Whether conv p runs on gemm_coop.comp's CONV=2 form (vk_conv_pick_taps), and its plan: a
 * 2-D conv the GEMM kernels suit, not of a 1x1 input (record_as_gemv's). */
static bool taps_takes(const conv_params *p, vkml_dtype dtype, const struct gpu_caps *caps,
                       bool fast_math, vk_kernel_id *kernel, uint32_t groups[3],
                       vk_gemm_split *split)
{
    if (p->win.spatial != 2 || window_in_size(&p->win) == 1 || !gemm_suits(p, dtype, caps))
        return false;
    int64_t group_in = p->in_channels / p->group;
    return vk_conv_pick_taps(
        caps, dtype, fast_math, p->out_channels / p->group, p->batch * window_out_size(&p->win),
        group_in * window_kernel_size(&p->win), p->group, group_in, kernel, groups, split);
}

/* The implicit-GEMM kernel: over taps on cooperative matrices where taps_takes and the
 * weights are packed for it (`packed`, vk_conv_packs_weights), else split along K
 * (split->splits > 0), else on cooperative matrices where vk_gemm_pick_coop takes it, else
 * on gemm_tiled.comp, and its workgroups; false when the shape suits the direct kernel
 * better or exceeds the device's workgroup counts. */
static bool gemm_groups(const conv_params *p, vkml_dtype dtype, const struct gpu_caps *caps,
                        bool fast_math, bool packed, vk_kernel_id *kernel, uint32_t groups[3],
                        vk_gemm_split *split)
{
    int64_t channels = p->out_channels / p->group;
    int64_t cols = p->batch * window_out_size(&p->win);
    int64_t k = p->in_channels / p->group * window_kernel_size(&p->win);
    split->splits = 0;
    if (!gemm_suits(p, dtype, caps))
        return false;
    if (packed && taps_takes(p, dtype, caps, fast_math, kernel, groups, split))
        return true;
    split->splits = 0;
    /* split-K's first pass on the coop kernel only when a test forces it (VK_COOP_MIN_SIDE) */
    bool coop = vk_gemm_coop_takes(caps, dtype, fast_math) && caps->coop_force > 0;
    return vk_gemm_pick_split(caps, true, coop, channels, cols, k, p->group, split) ||
           vk_gemm_pick_coop(caps, true, dtype, fast_math, channels, cols, k, p->group, kernel,
                             groups) ||
           vk_gemm_pick(caps, true, channels, cols, p->group, kernel, groups);
}

bool vk_conv_runs_as_product(const conv_params *p, vkml_dtype dtype, const struct gpu_caps *caps,
                             bool fast_math)
{
    if (p->group != 1 || !caps->prefer_tiled || caps->gemm_force < 0 ||
        (dtype != VKML_DTYPE_FLOAT && dtype != VKML_DTYPE_FLOAT16))
        return false;
    for (int d = 0; d < p->win.spatial; d++)
        if (p->win.kernel[d] != 1 || p->win.strides[d] != 1 || p->win.pads_begin[d] != 0 ||
            p->win.pads_end[d] != 0)
            return false;
    int64_t pixels = window_out_size(&p->win);
    vk_kernel_id kernel;
    uint32_t groups[3];
    vk_gemm_split split;
    /* On the tensor cores over taps (gemm_coop.comp CONV=2) wherever that kernel takes the
     * conv. H200, 2026-11-25, ResNet-50 fp16, GPU time per run: b8 2,443 -> 2,298 us against
     * the product per image for its 28x28 and 56x56 ones (layer2's 128 -> 512 61 -> 47 us,
     * its 256 -> 128 at 56x56 72 -> 53), b1 966 -> 965; the YOLO-style model, MobileNetV2
     * and EfficientNet-B0 within 1%. Until the coop blocks' epilogue loop was rolled
     * (gemm_coop.comp) the 28x28 and 56x56 ones had lost over taps (60 -> 75 us). */
    if (taps_takes(p, dtype, caps, fast_math, &kernel, groups, &split))
        return false;
    /* batches of images under 256 pixels: per image only where the tensor cores take it */
    return (p->batch == 1 || pixels >= 256 ||
            vk_gemm_pick_coop(caps, false, dtype, fast_math, p->out_channels, pixels,
                              p->in_channels, p->batch, &kernel, groups)) &&
           p->in_channels <= UINT32_MAX / 2 && p->in_channels * pixels <= UINT32_MAX &&
           p->out_channels * pixels <= UINT32_MAX;
}

/* Y[n, m, pix] = sum_c W[m, c] X[n, c, pix] + bias[m] as a product per image n: A = W
 * (M x C), B = X[n] (C x pixels), C = the bias broadcast along the pixels. */
static vkml_status record_pointwise(gpu_recorder *rec, const graph_node *node, const conv_params *p,
                                    vkml_dtype dtype, vkml_error *err)
{
    int64_t pixels = window_out_size(&p->win);
    matmul_push pc = {
        .m = vk_u32(p->out_channels),
        .n = vk_u32(pixels),
        .k = vk_u32(p->in_channels),
        .a_sm = vk_u32(p->in_channels),
        .a_sk = 1,
        .b_sk = vk_u32(pixels),
        .b_sn = 1,
        .c_sm = 1,
        .c_sn = 0,
        .alpha = 1.0f,
        .beta = 1.0f,
        .has_c = p->has_bias,
        .batch_rank = 1,
        .batch_dims = {vk_u32(p->batch)},
        .a_batch_strides = {0},
        .b_batch_strides = {vk_u32(p->in_channels * pixels)},
        .epi = vk_epilogue_of(node),
    };
    int res = vk_epilogue_binding(node, -1);
    return vk_rec_matmul(rec, &pc, dtype, node->inputs[1], node->inputs[0],
                         p->has_bias ? node->inputs[2] : -1, res, node->outputs[0], p->batch, NULL,
                         err);
}

/* Whether the 2-D conv output and fused pool window of p fit window3_pool_push's pairs of
 * 16 bits. */
static bool pool_fits_push(const conv_params *p)
{
    for (int d = 0; d < 2; d++)
        if (p->win.out[d] > 0xffff || p->pool.kernel[d] > 0xffff || p->pool.strides[d] > 0xffff ||
            p->pool.pads_begin[d] > 0xffff)
            return false;
    return true;
}

/* H << 16 | W of a 2-D size (pool_fits_push checked it). */
static uint32_t pair16(const int64_t *hw)
{
    return (uint32_t)hw[0] << 16 | (uint32_t)hw[1];
}

VKML_GPU_SUPPORTS_DECL(gpu_conv_supports)
{
    vkml_error err;
    conv_params p;
    if (conv_params_parse(values, node, &p, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
    if (p.win.spatial > VK_WINDOW3_SPATIAL)
        return vk_unsupported(why, why_size,
                              "Conv with %d spatial dims: the Vulkan kernels "
                              "take 1 to 3",
                              p.win.spatial);
    for (int d = 0; d < p.win.spatial; d++)
        if (p.win.pads_begin[d] + p.win.in[d] > INT32_MAX ||
            (p.win.kernel[d] - 1) * p.win.dilations[d] > INT32_MAX ||
            p.win.out[d] * p.win.strides[d] > INT32_MAX)
            return vk_unsupported(why, why_size,
                                  "Conv: window beyond the kernels' 32-bit "
                                  "arithmetic");
    if (caps->max_bindings < VK_RESIDUAL_BINDINGS)
        return vk_unsupported(why, why_size,
                              "Conv: the kernels bind %d buffers, the device "
                              "allows %u",
                              VK_RESIDUAL_BINDINGS, caps->max_bindings);
    if (p.pooled && !pool_fits_push(&p))
        return vk_unsupported(why, why_size, "Conv with a fused MaxPool: sizes past 65535");
    /* dtypes: the registry's mask (float, float16) */
    return vk_check_tensors(values, node, caps, true, why, why_size);
}

static vkml_status record_gemm(gpu_recorder *rec, const vk_epilogue_push *epi, const conv_params *p,
                               vkml_dtype dtype, const int *bind, vk_kernel_id kernel,
                               const uint32_t groups[3], const vk_gemm_split *split,
                               vkml_error *err)
{
    uint32_t pad_end[2];
    conv_gemm_push pc = {
        .in_channels = vk_u32(p->in_channels),
        .out_channels = vk_u32(p->out_channels),
        .group_in_channels = vk_u32(p->in_channels / p->group),
        .group_out_channels = vk_u32(p->out_channels / p->group),
        .has_bias = p->has_bias,
        .epi = *epi,
    };
    vk_window_push_fill(&p->win, &pc.win, pad_end);
    pc.count = vk_u32(p->batch * p->out_channels * window_out_size(&p->win));
    if (split->splits)
        return vk_rec_gemm_split(rec, split, dtype, bind, &pc, sizeof(pc), &pc.epi, NULL, err);
    return vk_rec_kernel_epilogue(rec, kernel, dtype, bind, &pc, sizeof(pc), groups, &pc.epi, err);
}

/* A 2-D conv with its fused MaxPool (conv_params.pooled) on `kernel`, one of
 * conv_window.comp's POOL forms: pc is the conv's window push. */
static vkml_status record_pooled(gpu_recorder *rec, const conv_params *p, const window3_push *pc,
                                 vk_kernel_id kernel, vkml_dtype dtype, const int *bind,
                                 vkml_error *err)
{
    const window_params *pool = &p->pool;
    window3_pool_push pp = {
        .flags = pc->flags,
        .in_channels = pc->in_channels,
        .group_in = pc->group_in,
        .group_out = pc->group_out,
        .epi = pc->epi,
        .conv_out = pair16(p->win.out),
        .pool_kernel = pair16(pool->kernel),
        .pool_stride = pair16(pool->strides),
        .pool_pad = pair16(pool->pads_begin),
    };
    /* the geometry: the first members of both blocks */
    memcpy(&pp, pc, offsetof(window3_push, pad_end));
    pp.out_dims[1] = vk_u32(pool->out[0]);
    pp.out_dims[2] = vk_u32(pool->out[1]);
    uint64_t count = (uint64_t)(p->batch * p->out_channels * window_out_size(pool));
    pp.count = (uint32_t)count;
    /* a group of invocations per pooled output: its window's taps rounded up to a power of
     * two (the shader's slots), times the lanes of a tap (up to CONV_LANES where the conv
     * runs on lanes), within a workgroup */
    uint32_t slots = 1, log_lanes = 0;
    while (slots < (uint64_t)window_kernel_size(pool))
        slots *= 2;
    if (lanes_suit(p, vk_rec_caps(rec)))
        while ((1u << (log_lanes + 1)) <= CONV_LANES && slots << (log_lanes + 1) <= CONV_POOL_WG)
            log_lanes++;
    pp.flags |= log_lanes << 8;
    /* workgroups of CONV_POOL_WG: as vk_groups_1d spreads groups of VK_WG_SIZE_1D */
    uint32_t groups[3];
    uint64_t invocations = count * (slots << log_lanes);
    vk_groups_1d(vk_rec_caps(rec),
                 (invocations + CONV_POOL_WG / VK_WG_SIZE_1D - 1) / (CONV_POOL_WG / VK_WG_SIZE_1D),
                 groups);
    return vk_rec_kernel_epilogue(rec, kernel, dtype, bind, &pp, sizeof(pp), groups, &pp.epi, err);
}

static vkml_status record_window(gpu_recorder *rec, const struct gpu_caps *caps,
                                 const vk_epilogue_push *epi, const conv_params *p,
                                 vkml_dtype dtype, const int *bind, vkml_error *err)
{
    const window_params *w = &p->win;
    window3_push pc = {.channels = vk_u32(p->out_channels),
                       .in_channels = vk_u32(p->in_channels),
                       .group_in = vk_u32(p->in_channels / p->group),
                       .group_out = vk_u32(p->out_channels / p->group),
                       .flags = p->has_bias ? 1u : 0u,
                       .epi = *epi};
    uint64_t count = vk_window3_fill(w, (uint64_t)(p->batch * p->out_channels), &pc);
    pc.count = (uint32_t)count;
    /* conv_window.comp's forms (rows), each with its taps in a loop or unrolled for square
     * 2-D windows of 3, 5 or 7 a side (columns) */
    enum { PLAIN, DEPTHWISE, LANES, POOL };
    static const vk_kernel_id kernels[4][4] = {
        [PLAIN] = {VK_KERNEL_CONV_WINDOW, VK_KERNEL_CONV_WINDOW_K3, VK_KERNEL_CONV_WINDOW_K5,
                   VK_KERNEL_CONV_WINDOW_K7},
        [DEPTHWISE] = {VK_KERNEL_CONV_DEPTHWISE, VK_KERNEL_CONV_DEPTHWISE_K3,
                       VK_KERNEL_CONV_DEPTHWISE_K5, VK_KERNEL_CONV_DEPTHWISE_K7},
        [LANES] = {VK_KERNEL_CONV_LANES, VK_KERNEL_CONV_LANES_K3, VK_KERNEL_CONV_LANES_K5,
                   VK_KERNEL_CONV_LANES_K7},
        [POOL] = {VK_KERNEL_CONV_POOL, VK_KERNEL_CONV_POOL_K3, VK_KERNEL_CONV_POOL_K5,
                  VK_KERNEL_CONV_POOL_K7},
    };
    uint32_t k = pc.kernel[1];
    bool square = pc.kernel[0] == 1 && pc.in_dims[0] == 1 && pc.kernel[2] == k &&
                  (k == 3 || k == 5 || k == 7);
    int taps = square ? (int)k / 2 : 0;
    if (p->pooled)
        return record_pooled(rec, p, &pc, kernels[POOL][taps], dtype, bind, err);
    bool depthwise = pc.group_in == 1;
    bool lanes = !depthwise && runs_on_lanes(p, caps);
    uint32_t groups[3];
    vk_groups_1d(caps, lanes ? count * CONV_LANES : count, groups);
    vk_kernel_id kernel = kernels[lanes ? LANES : depthwise ? DEPTHWISE : PLAIN][taps];
    return vk_rec_kernel_epilogue(rec, kernel, dtype, bind, &pc, sizeof(pc), groups, &pc.epi, err);
}

/* A Conv on a 1x1 input with a 1x1 kernel and no padding (squeeze-excitation blocks after
 * a global pool: EfficientNet's 32) is the product Y[N, M] = X[N, C] W[M, C]^T + bias, a few
 * rows: gemv.comp (B^T form, 4 output channels a workgroup, K over 64 slices) instead of a
 * GEMM tile that would fill one of its columns. Recorded when vk_gemv_pick takes it. */
static bool record_as_gemv(gpu_recorder *rec, const graph_node *node, const conv_params *p,
                           vkml_dtype dtype, const int *bind, vkml_status *st, vkml_error *err)
{
    if (p->group != 1 || window_in_size(&p->win) != 1 || window_kernel_size(&p->win) != 1)
        return false;
    for (int d = 0; d < p->win.spatial; d++)
        if (p->win.pads_begin[d] || p->win.pads_end[d])
            return false;
    matmul_push pc = {
        .m = vk_u32(p->batch),
        .n = vk_u32(p->out_channels),
        .k = vk_u32(p->in_channels),
        .a_sm = vk_u32(p->in_channels),
        .a_sk = 1,
        .b_sk = 1,
        .b_sn = vk_u32(p->in_channels),
        .c_sn = 1,
        .alpha = 1.0f,
        .beta = 1.0f,
        .has_c = p->has_bias,
        .epi = vk_epilogue_of(node),
    };
    vk_kernel_id kernel;
    uint32_t groups[3];
    bool floats = dtype == VKML_DTYPE_FLOAT || dtype == VKML_DTYPE_FLOAT16;
    if (!vk_gemv_pick(vk_rec_caps(rec), &pc, floats, 1, &kernel, groups))
        return false;
    *st = vk_rec_kernel_epilogue(rec, kernel, dtype, bind, &pc, sizeof(pc), groups, &pc.epi, err);
    return true;
}

VKML_GPU_DECL(gpu_conv)
{
    conv_params p;
    vkml_status st = conv_params_parse(values, node, &p, err);
    if (st != VKML_OK)
        return st;
    vkml_dtype dtype = values[node->inputs[0]].dtype;
    int w = node->inputs[1];
    /* Without bias or residual, bindings 2 and 3 get W: never read, but every binding needs
     * a buffer. */
    int bind[] = {node->inputs[0], w, p.has_bias ? node->inputs[2] : w,
                  vk_epilogue_binding(node, w), node->outputs[0]};
    vk_epilogue_push epi = vk_epilogue_of(node);
    const struct gpu_caps *device = vk_rec_caps(rec);
    if (p.pooled) /* the direct kernel's POOL forms: nothing else pools */
        return record_window(rec, device, &epi, &p, dtype, bind, err);
    if (record_as_gemv(rec, node, &p, dtype, bind, &st, err))
        return st;
    if (vk_conv_runs_as_product(&p, dtype, device, vk_rec_fast_math(rec)))
        return record_pointwise(rec, node, &p, dtype, err);
    bool packed = vk_rec_packed(rec, w);
    struct gpu_caps caps = *device;
    if (gemm_suits(&p, dtype, device)) /* the GEMM kernels by shape: chosen by measurement */
        vk_conv_tuned_caps(rec, &p, dtype, packed, &caps);
    return vk_rec_conv_as(rec, &caps, &p, dtype, packed, bind, &epi, err);
}

vkml_status vk_rec_conv_as(gpu_recorder *rec, const struct gpu_caps *caps, const conv_params *p,
                           vkml_dtype dtype, bool packed, const int bind[5],
                           const vk_epilogue_push *epi, vkml_error *err)
{
    uint32_t groups[3];
    vk_kernel_id kernel;
    vk_gemm_split split;
    if (gemm_groups(p, dtype, caps, vk_rec_fast_math(rec), packed, &kernel, groups, &split))
        return record_gemm(rec, epi, p, dtype, bind, kernel, groups, &split, err);
    return record_window(rec, caps, epi, p, dtype, bind, err);
}

bool vk_conv_packs_weights(const graph_value *values, const graph_node *node,
                           const struct gpu_caps *caps, bool fast_math)
{
    conv_params p;
    vkml_error err;
    if (conv_params_parse(values, node, &p, &err) != VKML_OK || p.pooled)
        return false;
    vkml_dtype dtype = values[node->inputs[0]].dtype;
    vk_kernel_id kernel;
    uint32_t groups[3];
    vk_gemm_split split;
    return !vk_conv_runs_as_product(&p, dtype, caps, fast_math) &&
           taps_takes(&p, dtype, caps, fast_math, &kernel, groups, &split);
}
