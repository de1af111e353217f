#pragma once
/* The register-blocked fp32 GEMM (shaders/gemm_tiled.comp) shared by MatMul, Gemm and Conv,
 * its per-shape tile choice, and the fused epilogue every Conv/Gemm/MatMul kernel applies
 * (shaders/common/epilogue.glsl, graph_epilogue). */
#include "graph/graph.h"
#include "vulkan/vk_ops.h"

/* Workgroups split-K aims for (about two per SM of a large GPU: H200 has 132); see
 * vk_gemm_pick_split. Tiles are picked by VK_GEMM_TILE_MIN_GROUPS. */
#define VK_GEMM_MIN_GROUPS 264
/* Workgroups a tile must give before a larger one is taken (vk_gemm_pick, vk_gemm_pick_coop):
 * about one per SM of a large GPU was measured best (ops_gemm.c). */
#define VK_GEMM_TILE_MIN_GROUPS 128

/* The push members of node's epilogue (all zero without one). */
vk_epilogue_push vk_epilogue_of(const graph_node *node);
/* The residual value of node's epilogue, or `fallback` (binding 3 still needs a buffer). */
int vk_epilogue_binding(const graph_node *node, int fallback);

/* The gemm_tiled.comp variant (conv: its implicit-GEMM form) for an m x n product over z
 * batches or groups, and its workgroups; false when the grid exceeds the device's. */
/* Tiles of gemm_tiled.comp (gpu_caps.gemm_force counts from 1). */
#define VK_GEMM_TILES 4
bool vk_gemm_pick(const struct gpu_caps *caps, bool conv, int64_t m, int64_t n, int64_t z,
                  vk_kernel_id *kernel, uint32_t groups[3]);

/* Split-K: a product whose 64x64 tiles (the split kernel's) give at most
 * VK_GEMM_MIN_GROUPS / 2 workgroups (ResNet-50's 7x7 stage: 512 x 49 outputs, K 4608;
 * MobileNetV2's 1x1 projections 960 -> 160 at 7x7 and 576 -> 96 at 14x14) and whose K is at
 * least VK_SPLITK_MIN_K runs as S slices of K on the 64x64 tile (z: slice x batch), each
 * writing its sums to a scratch buffer, then gemm_splitk.comp adds the slices and applies
 * C or bias and the epilogue. S reaches VK_SPLITK_AIM_GROUPS workgroups, within the bounds
 * below. The second dispatch costs about one dispatch floor (2.2 us on the H200), against
 * workgroups walking a long K alone (960 -> 160 at 7x7: 10 of them, 67 us). From K 192
 * (three slices of VK_SPLITK_MIN_SLICE): on the H200 mnist-8's 8 -> 16 5x5 conv
 * (16 x 196 outputs, K 200) took 13.3 us of GPU time split against 21.0 walked whole on
 * seven 32x32 tiles; EfficientNet-B0 1,054 -> 1,024 us, MobileNetV2 565 -> 557, YOLO-style
 * 1,754 -> 1,776, the others within 0.3%. From K 128 (two slices) BERT's attention products
 * (K 128) got slower: 3,735 -> 3,766. Plain products of at least 128 rows whose 64x64
 * tiles are too many for this rule may split on 128 x 64 blocks (VK_SPLITK_WIDE_GROUPS). */
#define VK_SPLITK_MIN_K 192
#define VK_SPLITK_MIN_SLICE 64 /* K per slice, at least */
#define VK_SPLITK_MAX 32       /* slices, at most */
/* Workgroups of the first pass that S aims for (about four per SM of a large GPU): on the
 * H200 (2026-11-24, GPU time per run) ResNet-50 b8 fp16 4,682 -> 4,422 us against 264
 * workgroups and at most 16 slices; b1 within 1.5%, YOLO, MobileNetV2, EfficientNet-B0 1%. */
#define VK_SPLITK_AIM_GROUPS 528
/* Plain products of at least 128 rows on the float32 kernels split on 128 x 64 blocks
 * (gemm_splitk_128x64: three workgroups an SM) into as many slices as this many workgroups
 * hold: one wave of a large GPU (H200: 132 SMs). On the H200 (bench_gemm, 2026-12-02) 1024^3
 * and 256 x 4096 x 4096 give 128 blocks: 3 slices ran them at 31.2 and 40.7 TFLOP/s against
 * 29.0 and 33.8 unsplit, 4 slices (1.3 waves) at 25.6 and 33.0; 8 x 512^3 (256 blocks) ran
 * fastest unsplit. */
#define VK_SPLITK_WIDE_GROUPS 396
/* and only from this K: measured to pay at K 1,024 and 4,096 (ops_gemm.c) */
#define VK_SPLITK_WIDE_MIN_K 1024
#define VK_SPLITK_ALIGN 32              /* K per slice is a multiple (of gemm_tiled's BK) */
#define VK_COOP_SPLITK_ALIGN 64         /* and of gemm_coop's split kernel's BK */
#define VK_SPLITK_MAX_BYTES (64u << 20) /* scratch of one product, at most */
#define VK_SPLITK_SUM_WG 64             /* gemm_splitk.comp's workgroup width */

/* The second pass's workgroups along N: 4 columns an invocation where N is a multiple of 4
 * (whole vectors a row), else one (gemm_splitk.comp picks the same way). */
static inline int64_t vk_splitk_sum_x(int64_t n)
{
    int64_t cols = n % 4 == 0 ? 4 * VK_SPLITK_SUM_WG : VK_SPLITK_SUM_WG;
    return (n + cols - 1) / cols;
}

typedef struct vk_gemm_split {
    uint32_t splits, k_slice; /* S, and K per slice */
    uint32_t n;               /* the product's N */
    vk_kernel_id first, sum;  /* the two passes */
    uint32_t groups[3];       /* the first pass's (z: S x batches) */
    uint32_t sum_groups[3];   /* the second's: (vk_splitk_sum_x, M, batches) */
    uint64_t scratch_bytes;   /* S x batches x M x N float32 */
} vk_gemm_split;

/* Whether an m x n x k product over z batches or groups runs split along K
 * (gpu_caps.splitk_force: 0 by shape as above; s > 1: s slices whatever the shape, as far
 * as K allows; -1 never), and its plan; its first pass on cooperative matrices when
 * `coop` (vk_gemm_coop_takes). */
bool vk_gemm_pick_split(const struct gpu_caps *caps, bool conv, bool coop, int64_t m, int64_t n,
                        int64_t k, int64_t z, vk_gemm_split *out);
/* A LayerNormalization over each row of a product's Y (graph_epilogue.norm): its scale and
 * bias values (bias -1: none) and epsilon; `fused` set where the product's recording
 * applied it (split-K's second pass, rows of at most VK_SPLITK_NORM_MAX_N, N a multiple of
 * 4), else the caller records it after. */
typedef struct vk_row_norm {
    int scale, bias;
    float epsilon;
    bool fused;
} vk_row_norm;
#define VK_SPLITK_NORM_MAX_N 1024 /* gemm_splitk.comp NORM=1: a quad of each of 256 invocations */

/* Records both passes of sp. bind: a, b, c, residual, y as for the product's own kernel;
 * push: its push block (push_size bytes), to which the passes' `splits` and `k_slice` are
 * appended; epi: its epilogue there, which the second pass applies (vk_dispatch.epi), and
 * norm (NULL: none) the normalization after it, where it fits (vk_row_norm). */
vkml_status vk_rec_gemm_split(gpu_recorder *rec, const vk_gemm_split *sp, vkml_dtype dtype,
                              const int bind[5], const void *push, uint32_t push_size,
                              const vk_epilogue_push *epi, vk_row_norm *norm, vkml_error *err);

/* 2-D convs on cooperative matrices with K over (tap, input channel): gemm_coop.comp CONV=2,
 * for groups of a multiple of VK_CONV_TAPS_BK input channels and at least VK_CONV_TAPS_MIN_M
 * output channels and pixels (of the batch). A step of K lies inside one tap, so an
 * invocation loads a run of one pixel's channels behind one bounds test, where CONV=1's
 * implicit GEMM decodes and tests every element. vk_conv_pick_taps: its kernel and
 * workgroups for an m x n x k product (output channels of a group x pixels x its K) over z
 * groups with group_in input channels each, split along K (split->splits > 0) where its
 * blocks are few; false where it does not take the conv (VKML_NO_CONV_TAPS=1: never). */
#define VK_CONV_TAPS_BK 32
/* Its blocks (gpu_caps.taps_force counts from 1): 128x128, 128x64, 64x128, 64x64. */
#define VK_CONV_TAPS_TILES 4
#define VK_CONV_TAPS_MIN_M 64
bool vk_conv_pick_taps(const struct gpu_caps *caps, vkml_dtype dtype, bool fast_math, int64_t m,
                       int64_t n, int64_t k, int64_t z, int64_t group_in, vk_kernel_id *kernel,
                       uint32_t groups[3], vk_gemm_split *split);

/* Whether Conv `node` runs on gemm_coop.comp's CONV=2 form on this device: then its
 * weights (input 1, a constant the device holds) are uploaded packed as [M][taps][C/group]
 * (vk_session_consts.c; VK_CONST_CONV_TAPS), which that kernel reads with vector loads. A conv
 * whose weights are not packed (another node reads them too) takes the other kernels. */
bool vk_conv_packs_weights(const graph_value *values, const graph_node *node,
                           const struct gpu_caps *caps, bool fast_math);

/* Whether Conv p runs as a plain product (lib/vulkan/ops_conv.c, through vk_rec_matmul): a
 * pointwise conv (one group, every kernel dim 1, stride 1, no padding: the output's pixels
 * are the input's) of float32 or float16 on a device that takes the tiled products, of one
 * image, of images of at least 256 pixels, or of images whose product the cooperative
 * matrices take (vk_gemm_pick_coop: float16, or float32 under fast_math; 128 pixels and
 * channels or more). The product runs per image: on gemm_tiled.comp small images would
 * leave most of a tile's columns idle, where the implicit GEMM spans the batch's pixels in
 * one; but the implicit GEMM never runs on the tensor cores, and per image they took
 * ResNet-50 b8's 14x14 pointwise convs (H200, 2026-11-25): GPU time per run fp16 4,044 ->
 * 3,866 us, fp32-fast 3,759 -> 3,579. */
struct conv_params;
/* Records conv p (not pooled, not as a product or on gemv) on the kernels caps pick: the
 * implicit GEMM (over taps where `packed`), else the direct kernel. bind: X, W, bias (or
 * W), the residual (or W), Y. */
vkml_status vk_rec_conv_as(gpu_recorder *rec, const struct gpu_caps *caps,
                           const struct conv_params *p, vkml_dtype dtype, bool packed,
                           const int bind[5], const vk_epilogue_push *epi, vkml_error *err);
bool vk_conv_runs_as_product(const struct conv_params *p, vkml_dtype dtype,
                             const struct gpu_caps *caps, bool fast_math);

/* Products gemm_coop.comp takes by shape (gpu_caps.coop_force 0): at least this many
 * outputs per batch or group and this long a K (two slices of its split kernel: by shape
 * the coop products always run split, vk_gemm_pick_split); smaller ones stay on
 * gemm_tiled.comp. */
#define VK_COOP_MIN_OUTPUTS (64 * 64)
#define VK_COOP_MIN_K (2 * VK_SPLITK_MIN_SLICE)
/* Unforced, the coop kernel takes only plain products of float16, or of float32 under
 * precision fp32-fast (rounded to float16 in its loads); not convolutions (their
 * implicit-GEMM loads starve the tensor cores, 0.1-0.65x gemm_tiled's float16 on every
 * ResNet-50 convolution on the H200; with the accumulators in registers, ResNet-50 b1 fp16
 * by shape on the coop split kernel still took 1,359 us of GPU time against 1,224 on
 * gemm_tiled, on the H100; unfolded by im2col into plain products, slower again; with the
 * gathers' columns decoded once, by shape on the split kernel's 64x64 or 128x64 blocks
 * aiming for 264 to 2,112 workgroups, H200 2026-11-24: ResNet-50 b8 fp16 4,605-5,094 us
 * against 4,280 on gemm_tiled, b1 1,322-1,359 against 1,300); with M and
 * N at least this, and whose two slices of float32 sums fit VK_SPLITK_MAX_BYTES. */
#define VK_COOP_MIN_SIDE 128
/* Tiles of gemm_coop.comp (gpu_caps.coop_force counts from 1). */
#define VK_COOP_TILES 3
/* The gemm_coop.comp variant for an m x n x k product over z batches or groups of dtype,
 * and its workgroups, when the device has cooperative matrices (gpu_caps), the dtype is
 * float16 (or float32 with fast_math: precision fp32-fast) and the shape is large enough;
 * else false (the caller takes vk_gemm_pick's). */
bool vk_gemm_pick_coop(const struct gpu_caps *caps, bool conv, vkml_dtype dtype, bool fast_math,
                       int64_t m, int64_t n, int64_t k, int64_t z, vk_kernel_id *kernel,
                       uint32_t groups[3]);
/* The tiles of shaders/meson.build's gemm_cm2_* rows (gemm_cm2.comp: workgroup-scope
 * cooperative matrices), largest first: block BM x BN, K step BK, invocations. */
#define VK_CM2_TILES 2
typedef struct vk_cm2_tile {
    int bm, bn, bk, threads;
    vk_kernel_id kernel;
} vk_cm2_tile;
extern const vk_cm2_tile vk_cm2_tiles[VK_CM2_TILES];
/* The gemm_cm2.comp variant for the float16 MatMul/Gemm of pc over `batch` products and
 * its workgroups: only where gpu_caps.cm2_force forces a tile of the device's, and each
 * operand runs along memory in one of its two indices (tensor layouts need an inner
 * stride of 1); else false. Never by shape: on the H200 (driver 580.159, 2026-11-29,
 * bench_gemm) every tile ran at 0.15-0.4x of gemm_coop.comp's float16 (1024^3 2-10
 * TFLOP/s against 29-65; 256x4096x4096 6-26 against 90), whatever was tried: unclamped
 * loads for inner blocks, K steps of 64, 128 to 256 invocations, no per-element epilogue,
 * operands' orientations fixed at compile time, whole subgroups required. The loads are
 * the cost: with A and B loaded once and the K loop doing products only, 256x4096x4096
 * ran at 149 (128x128) and 247 TFLOP/s (64x64); loading each step, through tensor
 * layouts or through shared memory filled by 16-byte loads and then coopMatLoad, 9-26. */
bool vk_gemm_pick_cm2(const struct gpu_caps *caps, const matmul_push *pc, vkml_dtype dtype,
                      int64_t batch, vk_kernel_id *kernel, uint32_t groups[3]);
/* Whether products of dtype may run on gemm_coop.comp on this device, whatever the shape. */
bool vk_gemm_coop_takes(const struct gpu_caps *caps, vkml_dtype dtype, bool fast_math);
