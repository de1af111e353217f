/* Tile choice of gemm_tiled.comp and gemm_coop.comp, split-K, and the fused-epilogue push
 * members (ops_gemm.h). */
#include "vulkan/ops_gemm.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(vk_epilogue_push) == 16, "four 32-bit push members");
_Static_assert(VK_GEMM_TILES == 4, "gemm_tiles below");
_Static_assert(VK_COOP_TILES == 3, "coop_tiles below");

/* The block tiles of shaders/meson.build's gemm_* rows, largest first. */
static const struct gemm_tile {
    int bm, bn;
    vk_kernel_id matmul, conv;
} gemm_tiles[] = {
    {128, 128, VK_KERNEL_GEMM_128X128, VK_KERNEL_CONV_GEMM_128X128},
    {128, 64, VK_KERNEL_GEMM_128X64, VK_KERNEL_CONV_GEMM_128X64},
    {64, 64, VK_KERNEL_GEMM_64X64, VK_KERNEL_CONV_GEMM_64X64},
    {32, 32, VK_KERNEL_GEMM_32X32, VK_KERNEL_CONV_GEMM_32X32},
};

/* The block tiles of shaders/meson.build's gemm_coop_* rows, largest first. */
static const struct gemm_tile coop_tiles[] = {
    {128, 128, VK_KERNEL_GEMM_COOP_128X128, VK_KERNEL_CONV_GEMM_COOP_128X128},
    {128, 64, VK_KERNEL_GEMM_COOP_128X64, VK_KERNEL_CONV_GEMM_COOP_128X64},
    {64, 64, VK_KERNEL_GEMM_COOP_64X64, VK_KERNEL_CONV_GEMM_COOP_64X64},
};

vk_epilogue_push vk_epilogue_of(const graph_node *node)
{
    vk_epilogue_push e = {0};
    const graph_epilogue *ep = node->epilogue;
    if (!ep)
        return e;
    e.act = (uint32_t)ep->act;
    e.alpha = ep->alpha;
    e.beta = ep->beta;
    if (ep->residual >= 0)
        e.flags = 1u | (ep->residual_first ? 2u : 0u);
    return e;
}

int vk_epilogue_binding(const graph_node *node, int fallback)
{
    const graph_epilogue *ep = node->epilogue;
    if (!ep || ep->residual < 0 || ep->residual >= node->n_inputs || node->inputs[ep->residual] < 0)
        return fallback;
    return node->inputs[ep->residual];
}

/* Whether tiles of `tile` over `extent` leave a quarter or more of their span empty (64
 * output channels in a 128-row tile): that share of their work is wasted. */
static bool tile_wasteful(int64_t extent, int64_t tile)
{
    return (extent + tile - 1) / tile * tile * 4 > extent * 5;
}

/* groups = (gx, gy, z) when the device's grid takes them; false (groups untouched) else. */
static bool set_groups(const struct gpu_caps *caps, int64_t gx, int64_t gy, int64_t z,
                       uint32_t groups[3])
{
    if (gx > caps->max_workgroup_count[0] || gy > caps->max_workgroup_count[1] ||
        z > caps->max_workgroup_count[2])
        return false;
    groups[0] = (uint32_t)gx;
    groups[1] = (uint32_t)gy;
    groups[2] = (uint32_t)z;
    return true;
}

/* The first tile of tiles[1 .. n_tiles) (tiles[forced], 0-based, when forced >= 0) that
 * gives VK_GEMM_TILE_MIN_GROUPS workgroups without a quarter of it empty, else the last;
 * false when its grid exceeds the device's. The largest tile (128 x 128) is taken only when
 * forced: on the H200 (bench_gemm BENCH_GEMM_TILES=1, 2026-11-24) it was the slowest on
 * every shape measured, 128 x 64 the fastest wherever it gave 128 workgroups (1024^3 34.0
 * TFLOP/s against 23.5 for the 32 x 32 tile that the old rule of 264 workgroups took;
 * 256 x 4096 x 4096 30.2 against 24.3). */
static bool pick_tile(const struct gpu_caps *caps, const struct gemm_tile *tiles, int n_tiles,
                      int forced, bool conv, int64_t m, int64_t n, int64_t z, vk_kernel_id *kernel,
                      uint32_t groups[3])
{
    for (int t = forced >= 0 ? forced : 1; t < n_tiles; t++) {
        const struct gemm_tile *g = &tiles[t];
        int64_t gx = (n + g->bn - 1) / g->bn, gy = (m + g->bm - 1) / g->bm;
        /* a tile a quarter or more empty: take the next smaller one */
        bool wasteful = tile_wasteful(m, g->bm) || tile_wasteful(n, g->bn);
        if (forced < 0 && t + 1 < n_tiles && (wasteful || gx * gy * z < VK_GEMM_TILE_MIN_GROUPS))
            continue;
        if (!set_groups(caps, gx, gy, z, groups))
            return false;
        *kernel = conv ? g->conv : g->matmul;
        return true;
    }
    return false;
}

bool vk_gemm_pick(const struct gpu_caps *caps, bool conv, int64_t m, int64_t n, int64_t z,
                  vk_kernel_id *kernel, uint32_t groups[3])
{
    int n_tiles = (int)VKML_ARRAY_SIZE(gemm_tiles);
    int forced = caps->gemm_force > 0 && caps->gemm_force <= n_tiles ? caps->gemm_force - 1 : -1;
    return pick_tile(caps, gemm_tiles, n_tiles, forced, conv, m, n, z, kernel, groups);
}

bool vk_gemm_coop_takes(const struct gpu_caps *caps, vkml_dtype dtype, bool fast_math)
{
    /* float32 rounded to float16 is not float32: only where the session allows it */
    bool dtype_ok = dtype == VKML_DTYPE_FLOAT16 || (dtype == VKML_DTYPE_FLOAT && fast_math);
    return caps->cooperative_matrix && caps->prefer_tiled && caps->gemm_force == 0 &&
           caps->coop_force >= 0 && dtype_ok &&
           vk_kernel_variant(VK_KERNEL_GEMM_COOP_SPLITK_64X64, (int)dtype) >= 0 &&
           vk_kernel_variant(VK_KERNEL_GEMM_COOP_SPLITK_128X64, (int)dtype) >= 0 &&
           vk_kernel_variant(VK_KERNEL_GEMM_COOP_64X64, (int)dtype) >= 0;
}

/* Whether a plain product that cooperative matrices take by shape runs unsplit on the
 * 128 x 128 tile (4 subgroups of 64 x 64, K steps of 32): where that tile alone gives
 * VK_GEMM_MIN_GROUPS workgroups, two waves of a large GPU. On the H200 (bench_gemm, GPU
 * timestamps at warm clocks, 2026-11-30) 4096^3 fp16 ran there at 210 TFLOP/s, against 155
 * and 135 on the 128 x 64 and 64 x 64 tiles; split-K refuses it (its float32 slices exceed
 * VK_SPLITK_MAX_BYTES). */
static bool coop_unsplit(int64_t m, int64_t n, int64_t z)
{
    return (m + 127) / 128 * ((n + 127) / 128) * z >= VK_GEMM_MIN_GROUPS;
}

bool vk_gemm_pick_coop(const struct gpu_caps *caps, bool conv, vkml_dtype dtype, bool fast_math,
                       int64_t m, int64_t n, int64_t k, int64_t z, vk_kernel_id *kernel,
                       uint32_t groups[3])
{
    if (!vk_gemm_coop_takes(caps, dtype, fast_math))
        return false;
    int n_tiles = (int)VKML_ARRAY_SIZE(coop_tiles);
    int forced = caps->coop_force > 0 && caps->coop_force <= n_tiles ? caps->coop_force - 1 : -1;
    /* Unforced, float32 under fp32-fast takes the same products as float16: rounded to
     * float16 in the loads (gemm_coop.comp's to_half), the Linear stack's four Gemms took
     * 551 us of GPU time on the H200 against 1,305 on gemm_tiled.comp's float32 and 524 in
     * float16 storage (2026-11-24).
     * Unforced, a conv here is one that the kernel over taps refused (a group's input
     * channels not a multiple of 32: the RGB stems; weights it could not pack): the gather
     * kernel (CONV=1) takes it where its blocks fill a wave (VK_GEMM_MIN_GROUPS). H200,
     * ResNet-50's 7x7 stem (64 x 8*112*112 x 147, 1,568 blocks of 64x64) at b8 fp16: 109
     * -> 84 us of GPU time against gemm_tiled.comp; at b1 (196 blocks) 25 -> 39, so b1
     * keeps gemm_tiled.comp. */
    bool too_small = k < VK_COOP_MIN_K || n < VK_COOP_MIN_SIDE;
    if (conv)
        too_small = too_small || m < VK_COOP_MIN_SIDE / 2;
    else
        too_small = too_small || m < VK_COOP_MIN_SIDE || m * n < VK_COOP_MIN_OUTPUTS;
    /* (two slices of float32 sums past VK_SPLITK_MAX_BYTES, 8 Mi outputs, are at least 512
     * workgroups of 128 x 128: such products run unsplit) */
    /* unsplit by shape: the 128 x 128 tile */
    int tile = forced >= 0 || conv || !coop_unsplit(m, n, z) ? forced : 0;
    if ((forced < 0 && too_small) ||
        !pick_tile(caps, coop_tiles, n_tiles, tile, conv, m, n, z, kernel, groups))
        return false;
    if (forced < 0 && conv && (int64_t)groups[0] * groups[1] * groups[2] < VK_GEMM_MIN_GROUPS)
        return false;
    return vk_kernel_variant(*kernel, (int)dtype) >= 0;
}

const vk_cm2_tile vk_cm2_tiles[VK_CM2_TILES] = {
    {128, 128, 32, 256, VK_KERNEL_GEMM_CM2_128X128},
    {64, 64, 32, 128, VK_KERNEL_GEMM_CM2_64X64},
};

bool vk_gemm_pick_cm2(const struct gpu_caps *caps, const matmul_push *pc, vkml_dtype dtype,
                      int64_t batch, vk_kernel_id *kernel, uint32_t groups[3])
{
    int t = caps->cm2_force - 1;
    if (!caps->coopmat2 || !caps->prefer_tiled || t < 0 || t >= VK_CM2_TILES ||
        !(caps->cm2_tiles & (1u << t)) || caps->gemm_force != 0 || caps->coop_force > 0 ||
        caps->splitk_force != 0 || dtype != VKML_DTYPE_FLOAT16 ||
        (pc->a_sk != 1 && pc->a_sm != 1) || (pc->b_sn != 1 && pc->b_sk != 1))
        return false;
    const vk_cm2_tile *c = &vk_cm2_tiles[t];
    int64_t gx = (pc->n + c->bn - 1) / c->bn, gy = (pc->m + c->bm - 1) / c->bm;
    if (!set_groups(caps, gx, gy, batch, groups))
        return false;
    *kernel = c->kernel;
    return vk_kernel_variant(c->kernel, (int)dtype) >= 0;
}

/* gemm_coop.comp's CONV=2 blocks (output channels x pixels; shaders/meson.build's
 * conv_coop_taps_* rows): 128 x 128 where that gives VK_GEMM_TILE_MIN_GROUPS workgroups,
 * else 128 x 64; 64 rows where 128 would leave a quarter of them empty. */
static const struct taps_tile {
    int bm, bn;
    vk_kernel_id kernel, split;
} taps_tiles[VK_CONV_TAPS_TILES] = {
    {128, 128, VK_KERNEL_CONV_COOP_TAPS_128X128, VK_KERNEL_CONV_COOP_TAPS_SPLITK_128X64},
    {128, 64, VK_KERNEL_CONV_COOP_TAPS_128X64, VK_KERNEL_CONV_COOP_TAPS_SPLITK_128X64},
    {64, 128, VK_KERNEL_CONV_COOP_TAPS_64X128, VK_KERNEL_CONV_COOP_TAPS_SPLITK_64X64},
    {64, 64, VK_KERNEL_CONV_COOP_TAPS_64X64, VK_KERNEL_CONV_COOP_TAPS_SPLITK_64X64},
};

bool vk_conv_pick_taps(const struct gpu_caps *caps, vkml_dtype dtype, bool fast_math, int64_t m,
                       int64_t n, int64_t k, int64_t z, int64_t group_in, vk_kernel_id *kernel,
                       uint32_t groups[3], vk_gemm_split *split)
{
    /* VKML_NO_CONV_TAPS=1: the other conv kernels (A/B runs); read where sessions plan */
    split->splits = 0;
    if (vkml_env_flag("VKML_NO_CONV_TAPS") || !vk_gemm_coop_takes(caps, dtype, fast_math) ||
        caps->coop_force != 0 || caps->splitk_force != 0 || group_in % VK_CONV_TAPS_BK != 0 ||
        m < VK_CONV_TAPS_MIN_M || n < VK_CONV_TAPS_MIN_M)
        return false;
    int t = m >= 128 && !tile_wasteful(m, 128) ? 0 : 2;
    int64_t gy = (m + taps_tiles[t].bm - 1) / taps_tiles[t].bm;
    if (gy * ((n + 127) / 128) * z < VK_GEMM_TILE_MIN_GROUPS)
        t++; /* 64 pixels a block */
    if (caps->taps_force > 0 && caps->taps_force <= VK_CONV_TAPS_TILES)
        t = caps->taps_force - 1;
    const struct taps_tile *g = &taps_tiles[t];
    gy = (m + g->bm - 1) / g->bm;
    int64_t gx = (n + g->bn - 1) / g->bn;
    if (!set_groups(caps, gx, gy, z, groups))
        return false;
    *kernel = g->kernel;
    /* too few blocks: K in slices of whole steps (the split kernels' blocks are 64 pixels),
     * as many as keep the workgroups within one wave of VK_GEMM_MIN_GROUPS. Rounding up to
     * that many had left a second wave, mostly idle: on the H200 ResNet-50 b8's 3x3 convs
     * at 14x14 took 6 slices of 12 steps (300 workgroups: two waves, 24 steps' time) where
     * 5 of 15 make one wave. */
    int64_t blocks = gx * gy * z;
    int64_t splits = caps->taps_splits > 0              ? caps->taps_splits
                     : blocks < VK_GEMM_TILE_MIN_GROUPS ? VK_GEMM_MIN_GROUPS / blocks
                                                        : 1;
    if (g->bn != 64) /* the split kernels' blocks are 64 pixels wide (by shape: never less) */
        splits = 1;
    if (splits > k / VK_SPLITK_MIN_SLICE)
        splits = k / VK_SPLITK_MIN_SLICE;
    if (splits > VK_SPLITK_MAX)
        splits = VK_SPLITK_MAX;
    if (splits < 2)
        return vk_kernel_variant(*kernel, (int)dtype) >= 0;
    int64_t k_slice = (k + splits - 1) / splits;
    k_slice = (k_slice + VK_CONV_TAPS_BK - 1) / VK_CONV_TAPS_BK * VK_CONV_TAPS_BK;
    splits = (k + k_slice - 1) / k_slice;
    int64_t sum_x = vk_splitk_sum_x(n);
    if (splits < 2 ||
        (uint64_t)(splits * z) * (uint64_t)m * (uint64_t)n * 4 > VK_SPLITK_MAX_BYTES ||
        splits * z > caps->max_workgroup_count[2] || sum_x > caps->max_workgroup_count[0] ||
        m > caps->max_workgroup_count[1])
        return vk_kernel_variant(*kernel, (int)dtype) >= 0;
    *split = (vk_gemm_split){
        .splits = (uint32_t)splits,
        .k_slice = (uint32_t)k_slice,
        .n = (uint32_t)n,
        .first = g->split,
        .sum = VK_KERNEL_CONV_GEMM_SPLITK_SUM,
        .groups = {(uint32_t)gx, (uint32_t)gy, (uint32_t)(splits * z)},
        .sum_groups = {(uint32_t)sum_x, (uint32_t)m, (uint32_t)z},
        .scratch_bytes = (uint64_t)(splits * z) * (uint64_t)m * (uint64_t)n * 4,
    };
    return vk_kernel_variant(g->split, (int)dtype) >= 0;
}

bool vk_gemm_pick_split(const struct gpu_caps *caps, bool conv, bool coop, int64_t m, int64_t n,
                        int64_t k, int64_t z, vk_gemm_split *out)
{
    if (!caps->prefer_tiled || caps->gemm_force != 0 || caps->splitk_force < 0 || m <= 0 ||
        n <= 0 || z <= 0)
        return false;
    int64_t splits = caps->splitk_force;
    bool coop_by_shape = coop && !conv && caps->coop_force == 0;
    /* the first pass's tile (the SPLITK rows of shaders/meson.build): 64 x 64, or for the
     * products cooperative matrices take by shape 128 x 64 (64 x 32 a subgroup: on the
     * H100 the Linear stack's four 256 x 4096 x 4096 Gemms took 395-399 us on it against
     * 504 on the 64 x 64 tile, 410 on 64 x 128, 640 on 128 x 128) */
    /* convolutions of at least 128 output channels split by shape on 128 x 64 tiles
     * (gemm_tiled's 8 x 4 a thread, more sums per shared-memory read): on the H200 ResNet-50's
     * 3x3 convs at 14x14 and 7x7 took 20-27% less time (b8 fp32 4,279 -> 3,894 us of GPU
     * time, fp16 4,269 -> 4,029; b1 fp32 1,278 -> 1,221). Not for plain products (pointwise
     * convs among them): MobileNetV2's 960 -> 160 projections and EfficientNet-B0's
     * 192 -> 1152 expansions got slower, their K too short for the slices to make up the
     * workgroups; nor where a quarter of the tile's rows would be empty. */
    bool conv_128 = conv && !coop && caps->splitk_force == 0 && m >= 128 && !tile_wasteful(m, 128);
    /* Plain products of at least 128 rows on the float32 kernels whose 64x64 tiles are too
     * many to split (the rule below) split on 128 x 64 blocks (gemm_128x64's tile, 8 x 8 a
     * thread) where those leave room for more: VK_SPLITK_WIDE_GROUPS. Where the 64x64 tiles
     * are few, the 128 x 64 blocks' slices reach K's bound first and leave half as many
     * workgroups: on the H200 (2026-12-02, fp32 GPU time) ResNet-50 b1's pointwise convs as
     * products took it from 991 us to 1,112, YOLOv8n-style from 1,135 to 1,198. Nor where
     * a quarter of the blocks' columns would be empty, nor under VK_SPLITK_WIDE_MIN_K: with
     * those split (pointwise convs at 28 x 28, 14 x 14 and 7 x 7, K 512 to 1,024, in 3
     * slices) ResNet-50 b8 took 3,305-3,308 us against 3,271. Forced slices take that tile
     * as splitk_wide says (the choice by measurement times both). */
    bool plain_128 = !conv && !coop && m >= 128 && !tile_wasteful(m, 128);
    bool many_64 = (n + 63) / 64 * ((m + 63) / 64) * z * 2 > VK_GEMM_MIN_GROUPS;
    bool wide =
        plain_128 && (splits > 0 ? caps->splitk_wide
                                 : many_64 && !tile_wasteful(n, 64) && k >= VK_SPLITK_WIDE_MIN_K);
    const int64_t tile_m = coop_by_shape || conv_128 || wide ? 128 : 64, tile_n = 64;
    int64_t gx = (n + tile_n - 1) / tile_n, gy = (m + tile_m - 1) / tile_m;
    if (coop_by_shape && caps->coop_splits == 0 && coop_unsplit(m, n, z))
        return false;
    if (splits == 0 && coop_by_shape) {
        /* cooperative matrices by shape: the split kernel, at least 2 slices, unless the
         * product fills the GPU unsplit (coop_unsplit); or as the choice by measurement
         * says (coop_splits) */
        if (k < 2 * VK_SPLITK_MIN_SLICE)
            return false;
        splits = caps->coop_splits > 1 ? caps->coop_splits
                                       : (VK_GEMM_MIN_GROUPS + gx * gy * z - 1) / (gx * gy * z);
        if (splits < 2)
            splits = 2;
        if (splits > k / VK_SPLITK_MIN_SLICE)
            splits = k / VK_SPLITK_MIN_SLICE;
    } else if (splits == 0) {
        /* wide: as many slices as one wave of VK_SPLITK_WIDE_GROUPS holds (none where the
         * blocks fill it alone); else the split kernel's own tile: ResNet-50's 7x7 stage at
         * batch 8 (512 x 49 x 4608 over 8 images) gives 256 of the smallest tile, 64 of
         * these: walked whole, its K of 4608 took 488 us on the H100 */
        int64_t blocks = gx * gy * z;
        if (k < VK_SPLITK_MIN_K || (!wide && blocks * 2 > VK_GEMM_MIN_GROUPS))
            return false;
        splits =
            wide ? VK_SPLITK_WIDE_GROUPS / blocks : (VK_SPLITK_AIM_GROUPS + blocks - 1) / blocks;
        if (splits > k / VK_SPLITK_MIN_SLICE)
            splits = k / VK_SPLITK_MIN_SLICE;
        if (splits > VK_SPLITK_MAX)
            splits = VK_SPLITK_MAX;
    }
    if (splits < 2)
        return false;
    int64_t k_slice = (k + splits - 1) / splits;
    int64_t align = coop_by_shape ? VK_COOP_SPLITK_ALIGN : VK_SPLITK_ALIGN;
    k_slice = (k_slice + align - 1) / align * align;
    splits = (k + k_slice - 1) / k_slice;
    if (splits < 2 || (uint64_t)(splits * z) * (uint64_t)m * (uint64_t)n * 4 > VK_SPLITK_MAX_BYTES)
        return false;
    int64_t sum_x = vk_splitk_sum_x(n);
    if (gx > caps->max_workgroup_count[0] || gy > caps->max_workgroup_count[1] ||
        splits * z > caps->max_workgroup_count[2] || sum_x > caps->max_workgroup_count[0] ||
        m > caps->max_workgroup_count[1])
        return false;
    *out = (vk_gemm_split){
        .splits = (uint32_t)splits,
        .k_slice = (uint32_t)k_slice,
        .n = (uint32_t)n,
        .first = coop_by_shape ? VK_KERNEL_GEMM_COOP_SPLITK_128X64
                 : coop        ? (conv ? VK_KERNEL_CONV_GEMM_COOP_SPLITK_64X64
                                       : VK_KERNEL_GEMM_COOP_SPLITK_64X64)
                 : conv_128    ? VK_KERNEL_CONV_GEMM_SPLITK_128X64
                 : wide        ? VK_KERNEL_GEMM_SPLITK_128X64
                        : (conv ? VK_KERNEL_CONV_GEMM_SPLITK_64X64 : VK_KERNEL_GEMM_SPLITK_64X64),
        .sum = conv ? VK_KERNEL_CONV_GEMM_SPLITK_SUM : VK_KERNEL_GEMM_SPLITK_SUM,
        .groups = {(uint32_t)gx, (uint32_t)gy, (uint32_t)(splits * z)},
        .sum_groups = {(uint32_t)sum_x, (uint32_t)m, (uint32_t)z},
        .scratch_bytes = (uint64_t)(splits * z) * (uint64_t)m * (uint64_t)n * 4,
    };
    return true;
}

vkml_status vk_rec_gemm_split(gpu_recorder *rec, const vk_gemm_split *sp, vkml_dtype dtype,
                              const int bind[5], const void *push, uint32_t push_size,
                              const vk_epilogue_push *epi, vk_row_norm *norm, vkml_error *err)
{
    uint32_t words[VK_PUSH_CONSTANT_MAX / 4];
    bool rows = norm && sp->n % 4 == 0 && sp->n <= VK_SPLITK_NORM_MAX_N &&
                vk_kernel_variant(VK_KERNEL_GEMM_SPLITK_SUM_NORM, (int)dtype) >= 0 &&
                vk_rec_caps(rec)->max_bindings >= 6 && vk_rec_caps(rec)->subgroup_arith &&
                vk_rec_caps(rec)->max_workgroup_invocations >= VK_SPLITK_NORM_MAX_N / 4;
    gemm_split_push extra = {.splits = sp->splits, .k_slice = sp->k_slice};
    if (push_size % 4 != 0 || push_size + sizeof(extra) > sizeof(words))
        return vkml_fail(err, VKML_ERROR_DEVICE, "split-K: a push block of %u bytes", push_size);
    memcpy(words, push, push_size);
    memcpy((char *)words + push_size, &extra, sizeof(extra));
    uint32_t size = push_size + (uint32_t)sizeof(extra);
    int scratch;
    vkml_status st = vk_rec_scratch(rec, VK_SCRATCH_SPLITK, sp->scratch_bytes, &scratch, err);
    if (st != VKML_OK)
        return st;
    int first[5] = {bind[0], bind[1], bind[2], bind[3], scratch};
    st = vk_rec_kernel(rec, sp->first, dtype, first, words, size, sp->groups, err);
    if (st != VKML_OK)
        return st;
    if (rows) {
        /* a workgroup a row; the scale where B was, the bias at 5 (Y where none); epsilon
         * and whether there is a bias in the second pass's split-K members (push.h) */
        gemm_split_push second = {.splits = sp->splits | (norm->bias >= 0 ? 1u << 31 : 0u)};
        memcpy(&second.k_slice, &norm->epsilon, sizeof(second.k_slice));
        memcpy((char *)words + push_size, &second, sizeof(second));
        vk_dispatch d = {
            .kernel = VK_KERNEL_GEMM_SPLITK_SUM_NORM,
            .dtype = dtype,
            .bind = {scratch, norm->scale, bind[2], bind[3], bind[4],
                     norm->bias >= 0 ? norm->bias : bind[4]},
            .write_mask = 1u << 4, /* Y; the last binding is the bias, only read */
            .push = words,
            .push_size = size,
            .groups = {1, sp->sum_groups[1], sp->sum_groups[2]},
            .epi = epi,
        };
        norm->fused = true;
        return vk_rec_dispatch(rec, &d, err);
    }
    int sum[5] = {scratch, bind[1], bind[2], bind[3], bind[4]};
    return vk_rec_kernel_epilogue(rec, sp->sum, dtype, sum, words, size, sp->sum_groups, epi, err);
}
