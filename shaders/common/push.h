/*
 * Push-constant layouts shared by C (lib/vulkan/ops_*.c) and GLSL (shaders/ *.comp): one
 * definition, so the two cannot drift. In C each block is a typedef'd struct; in GLSL
 * (glslc gets -DVKML_GLSL) a kernel defines PUSH_<NAME> before including this file and
 * gets that block as `p`. Only 32-bit members, arrays of them and structs of them
 * (PUSH_TYPE_BEGIN): std430, which push blocks follow, puts each at the next multiple of 4
 * bytes, as C does when nothing pads. lib/vulkan/vk_push_check.c expands every block again
 * and checks at build time that no C member is padded or moved and that each block fits
 * the 128 bytes Vulkan promises (VKML_PUSH_MIN_BYTES).
 */
#ifndef VKML_PUSH_H
#define VKML_PUSH_H

/* Push-constant bytes every Vulkan device offers (maxPushConstantsSize's minimum). */
#define VKML_PUSH_MIN_BYTES 128
#define VKML_MAX_RANK_PUSH 8

#if defined(VKML_GLSL)
#define PUSH_BEGIN(name) layout(push_constant) uniform name##_block {
#define PUSH_END(name) } p;
#define PUSH_TYPE_BEGIN(name) struct name {
#define PUSH_TYPE_END(name) };
#define PUSH_U32(f) uint f;
#define PUSH_U32S(f, n) uint f[n];
#define PUSH_F32(f) float f;
#define PUSH_F32S(f, n) float f[n];
#define PUSH_STRUCT(type, f) type f;
#elif !defined(VKML_PUSH_CHECK) /* vk_push_check.c defines its own expansions */
#include <stdint.h>
#define PUSH_BEGIN(name) typedef struct name {
#define PUSH_END(name) } name;
#define PUSH_TYPE_BEGIN PUSH_BEGIN
#define PUSH_TYPE_END PUSH_END
#define PUSH_U32(f) uint32_t f;
#define PUSH_U32S(f, n) uint32_t f[n];
#define PUSH_F32(f) float f;
#define PUSH_F32S(f, n) float f[n];
#define PUSH_STRUCT(type, f) type f;
#endif

/* The fused epilogue of the Conv/Gemm/MatMul kernels (shaders/common/epilogue.glsl), the
 * last members of their blocks: act (an eltwise_op code, shaders/common/eltwise_ops.h), alpha and beta (its parameters),
 * flags (bit 0: residual at binding 3; bit 1: added before the activation). C nests them
 * as `epi` (vk_epilogue_push, what vk_epilogue_of fills); GLSL names them epi_act,
 * epi_alpha, epi_beta, epi_flags. */
#define EPILOGUE_FIELDS(U32, F32) U32(act) F32(alpha) F32(beta) U32(flags)
#ifdef VKML_GLSL
#define PUSH_EPI_U32(f) uint epi_##f;
#define PUSH_EPI_F32(f) float epi_##f;
#define PUSH_EPILOGUE EPILOGUE_FIELDS(PUSH_EPI_U32, PUSH_EPI_F32)
#else
PUSH_TYPE_BEGIN(vk_epilogue_push)
EPILOGUE_FIELDS(PUSH_U32, PUSH_F32)
PUSH_TYPE_END(vk_epilogue_push)
#define PUSH_EPILOGUE PUSH_STRUCT(vk_epilogue_push, epi)
#endif

/* The 2-D window geometry of the implicit-GEMM convs (gemm_tiled.comp, gemm_coop.comp,
 * and qmatmul.comp and qmatmul_coop.comp with QCONV=1; lib/vulkan/ops_window.h fills it; 1-D windows map to H = 1); pad_h, pad_w: the pads at
 * the beginning (the end pads only shape out_h, out_w). */
PUSH_TYPE_BEGIN(vk_window_push)
PUSH_U32(in_h)
PUSH_U32(in_w)
PUSH_U32(out_h)
PUSH_U32(out_w)
PUSH_U32(k_h)
PUSH_U32(k_w)
PUSH_U32(stride_h)
PUSH_U32(stride_w)
PUSH_U32(pad_h)
PUSH_U32(pad_w)
PUSH_U32(dil_h)
PUSH_U32(dil_w)
PUSH_TYPE_END(vk_window_push)

/* Split-K's members (lib/vulkan/ops_gemm.h, vk_gemm_split): S slices, K per slice (the
 * second pass with a LayerNormalization, gemm_splitk.comp NORM=1: its epsilon's bits in
 * k_slice, bit 31 of splits set where it has a bias). Both
 * passes' kernels (gemm_operands.glsl with SPLITK 1 or 2) see them after the product's
 * block; in C they are gemm_split_push, which vk_rec_gemm_split appends. */
#define GEMM_SPLIT_FIELDS PUSH_U32(splits) PUSH_U32(k_slice)
#ifndef VKML_GLSL
PUSH_BEGIN(gemm_split_push)
GEMM_SPLIT_FIELDS
PUSH_END(gemm_split_push)
#define PUSH_GEMM_SPLIT
#elif defined(SPLITK)
#if SPLITK != 0
#define PUSH_GEMM_SPLIT GEMM_SPLIT_FIELDS
#endif
#endif
#ifndef PUSH_GEMM_SPLIT
#define PUSH_GEMM_SPLIT
#endif

/* The matrix products (matmul.comp, matmul_direct.comp, gemv.comp, gemm_tiled.comp and
 * gemm_coop.comp with CONV=0; lib/vulkan/ops_matmul.h): Y[b, m, n] = alpha * sum_k
 * A(b, m, k) B(b, k, n) + beta * C(m, n) (C where has_c), element strides of every operand,
 * batch b over batch_rank broadcast dims. */
#define MATMUL_MAX_BATCH_RANK 4
#if !defined(VKML_GLSL) || defined(PUSH_MATMUL)
PUSH_BEGIN(matmul_push)
PUSH_U32(m)
PUSH_U32(n)
PUSH_U32(k)
PUSH_U32(a_sm)
PUSH_U32(a_sk)
PUSH_U32(b_sk)
PUSH_U32(b_sn)
PUSH_U32(c_sm)
PUSH_U32(c_sn)
PUSH_F32(alpha)
PUSH_F32(beta)
PUSH_U32(has_c)
PUSH_U32(batch_rank)
PUSH_U32S(batch_dims, MATMUL_MAX_BATCH_RANK)
PUSH_U32S(a_batch_strides, MATMUL_MAX_BATCH_RANK)
PUSH_U32S(b_batch_strides, MATMUL_MAX_BATCH_RANK)
PUSH_EPILOGUE
PUSH_GEMM_SPLIT
PUSH_END(matmul_push)
#endif

/* The first members of the 2-D conv blocks on vk_window_push (conv_gemm_push, qconv_push):
 * the window, count = N * M * OH * OW outputs, C and M, and per group. */
#define CONV_WINDOW_PUSH                                                                           \
    PUSH_STRUCT(vk_window_push, win)                                                               \
    PUSH_U32(count)                                                                                \
    PUSH_U32(in_channels)                                                                          \
    PUSH_U32(out_channels)                                                                         \
    PUSH_U32(group_in_channels)                                                                    \
    PUSH_U32(group_out_channels)

/* The implicit-GEMM conv (gemm_tiled.comp and gemm_coop.comp with CONV=1 or 2;
 * lib/vulkan/ops_conv.c). */
#if !defined(VKML_GLSL) || defined(PUSH_CONV_GEMM)
PUSH_BEGIN(conv_gemm_push)
CONV_WINDOW_PUSH
PUSH_U32(has_bias)
PUSH_EPILOGUE
PUSH_GEMM_SPLIT
PUSH_END(conv_gemm_push)
#endif

/* Global max/average pooling (global_pool.comp): `planes` (n, c) planes of `size`
 * elements each. */
#if !defined(VKML_GLSL) || defined(PUSH_GLOBAL_POOL)
PUSH_BEGIN(global_pool_push)
PUSH_U32(planes)
PUSH_U32(size)
PUSH_END(global_pool_push)
#endif

/* Elementwise unary: count elements, dense. */
#if !defined(VKML_GLSL) || defined(PUSH_UNARY)
PUSH_BEGIN(unary_push)
PUSH_U32(count)
PUSH_F32(alpha) /* op parameters (LeakyRelu alpha, Clip min, ...) */
PUSH_F32(beta)
PUSH_F32(gamma)
PUSH_END(unary_push)
#endif

/* Elementwise binary with broadcasting: output dims (innermost last), element strides of
 * a and b per output dim (0 where broadcast). */
#if !defined(VKML_GLSL) || defined(PUSH_BINARY)
PUSH_BEGIN(binary_push)
PUSH_U32(count)
PUSH_U32(rank)
PUSH_U32S(dims, VKML_MAX_RANK_PUSH)
PUSH_U32S(a_strides, VKML_MAX_RANK_PUSH)
PUSH_U32S(b_strides, VKML_MAX_RANK_PUSH)
PUSH_END(binary_push)
#endif

/* Dense copy of count 32-bit words. */
#if !defined(VKML_GLSL) || defined(PUSH_COPY)
PUSH_BEGIN(copy_push)
PUSH_U32(count)
PUSH_END(copy_push)
#endif

/* data movement and shapes (lib/ops/movement.h and gather.h say what the fields mean) */

/* A strided step: dst[dst_offset + sum c_d * dst_strides_d] = src[src_offset + sum c_d *
 * src_strides_d]; src strides are two's complement (negative for reversed slices). */
#if !defined(VKML_GLSL) || defined(PUSH_STRIDED)
PUSH_BEGIN(strided_push)
PUSH_U32(count)
PUSH_U32(rank)
PUSH_U32(src_offset)
PUSH_U32(dst_offset)
PUSH_U32S(dims, VKML_MAX_RANK_PUSH)
PUSH_U32S(src_strides, VKML_MAX_RANK_PUSH)
PUSH_U32S(dst_strides, VKML_MAX_RANK_PUSH)
PUSH_END(strided_push)
#endif

/* A mapped step: dense output of dims, coordinate c - begin (two's complement) mapped into
 * the dense source src_dims by mode (0 constant, 1 reflect, 2 edge, 3 wrap); value is the
 * constant element's bytes (hi: the upper 32 bits of 64-bit elements). */
#if !defined(VKML_GLSL) || defined(PUSH_MAPPED)
PUSH_BEGIN(mapped_push)
PUSH_U32(count)
PUSH_U32(rank)
PUSH_U32(mode)
PUSH_U32(value_lo)
PUSH_U32(value_hi)
PUSH_U32S(dims, VKML_MAX_RANK_PUSH)
PUSH_U32S(src_dims, VKML_MAX_RANK_PUSH)
PUSH_U32S(begin, VKML_MAX_RANK_PUSH)
PUSH_END(mapped_push)
#endif

/* A band step over dense [batch, rows, cols]: elements with lo <= col - row <= hi (two's
 * complement) come from the source (from_src) or are band_value, the others value. */
#if !defined(VKML_GLSL) || defined(PUSH_BAND)
PUSH_BEGIN(band_push)
PUSH_U32(count)
PUSH_U32(rows)
PUSH_U32(cols)
PUSH_U32(lo)
PUSH_U32(hi)
PUSH_U32(from_src)
PUSH_U32(value_lo)
PUSH_U32(value_hi)
PUSH_U32(band_value_lo)
PUSH_U32(band_value_hi)
PUSH_END(band_push)
#endif

/* An index step (gather.h): offset = sum c_d * direct_d + sum_t index(row * k + t) *
 * idx_strides_t, each index in [-idx_bounds_t, idx_bounds_t), int64 (flags bit 0) or int32.
 * row = i (flags bit 1: the indices have the domain's shape), else the domain is
 * [outer, rows, inner] and row = c_0 * outer_rows + c_1. Fits 128 bytes: k <= 5. */
#define VKML_INDEX_MAX_K 5
#if !defined(VKML_GLSL) || defined(PUSH_INDEX)
PUSH_BEGIN(index_push)
PUSH_U32(count)
PUSH_U32(rank)
PUSH_U32(k)
PUSH_U32(flags)
PUSH_U32(outer_rows)
PUSH_U32S(dims, VKML_MAX_RANK_PUSH)
PUSH_U32S(direct, VKML_MAX_RANK_PUSH)
PUSH_U32S(idx_strides, VKML_INDEX_MAX_K)
PUSH_U32S(idx_bounds, VKML_INDEX_MAX_K)
PUSH_END(index_push)
#endif

/* reductions and normalisation: the reduce_view (lib/ops/reduce.h) of a node, groups of
 * kept and reduced dims (at most 4 each: REDUCE_MAX_GROUPS), and per kernel family what
 * else it needs. reduce_view.glsl walks them. */
#define VKML_REDUCE_VIEW_PUSH                                                                      \
    PUSH_U32(lines)                                                                                \
    PUSH_U32(count)                                                                                \
    PUSH_U32(n_keep)                                                                               \
    PUSH_U32(n_red)                                                                                \
    PUSH_U32S(keep_dims, 4)                                                                        \
    PUSH_U32S(keep_strides, 4)                                                                     \
    PUSH_U32S(red_dims, 4)                                                                         \
    PUSH_U32S(red_strides, 4)

/* Reduce*, ArgMax/ArgMin, LayerNormalization's InvStdDev. */
#if !defined(VKML_GLSL) || defined(PUSH_REDUCE)
PUSH_BEGIN(reduce_push)
VKML_REDUCE_VIEW_PUSH
PUSH_U32(select_last) /* ArgMax/ArgMin: ties go to the last index */
PUSH_F32(epsilon)     /* InvStdDev */
PUSH_END(reduce_push)
#endif

/* Per-line normalisations; parameter (scale/bias) index of element r of line l:
 * ((l / line_div) % line_mod) * line_mul + (r / r_div) % r_mod. */
#if !defined(VKML_GLSL) || defined(PUSH_NORM)
PUSH_BEGIN(norm_push)
VKML_REDUCE_VIEW_PUSH
PUSH_U32(line_div)
PUSH_U32(line_mod)
PUSH_U32(line_mul)
PUSH_U32(r_div)
PUSH_U32(r_mod)
PUSH_U32(has_scale)
PUSH_U32(has_bias)
PUSH_U32(mvn) /* MeanVarianceNormalization: 1 / (sqrt(var) + 1e-9) */
PUSH_U32(lp)  /* LpNormalization p (1 or 2) */
PUSH_U32(rms) /* RMSNormalization: the mean taken as 0 */
PUSH_F32(epsilon)
PUSH_END(norm_push)
#endif

/* BatchNormalization over [outer, channels, inner]: count elements; channel of element i
 * (i / inner) % channels; momentum: the running statistics' blend (training mode). */
#if !defined(VKML_GLSL) || defined(PUSH_BATCHNORM)
PUSH_BEGIN(batchnorm_push)
PUSH_U32(count)
PUSH_U32(channels)
PUSH_U32(inner)
PUSH_F32(epsilon)
PUSH_F32(momentum)
PUSH_END(batchnorm_push)
#endif

/* TopK over X as [outer, len, inner]: count elements of X; k; largest 1 or 0. */
#if !defined(VKML_GLSL) || defined(PUSH_TOPK)
PUSH_BEGIN(topk_push)
PUSH_U32(count)
PUSH_U32(len)
PUSH_U32(inner)
PUSH_U32(k)
PUSH_U32(largest)
PUSH_END(topk_push)
#endif

/* spatial */
/* Resize over 4 dims (leading 1s for lower ranks): output element count, sizes, the
 * per-axis scale, the reference's float output size (scale * in) and roi, the
 * ops/resize.h enums, and a bit per axis that maps output index x to input x (1 tap). */
#if !defined(VKML_GLSL) || defined(PUSH_RESIZE)
PUSH_BEGIN(resize_push)
PUSH_U32(count)
PUSH_U32S(in_dims, 4)
PUSH_U32S(out_dims, 4)
PUSH_F32S(scale, 4)
PUSH_F32S(out_exact, 4)
PUSH_F32S(roi_start, 4)
PUSH_F32S(roi_end, 4)
PUSH_U32(mode)    /* resize_mode */
PUSH_U32(coord)   /* resize_coord */
PUSH_U32(nearest) /* resize_nearest */
PUSH_U32(flags)   /* bits 0-3: identity axes; bit 4: exclude_outside; bit 5: antialias */
PUSH_F32(cubic_a)
PUSH_F32(extrapolation)
PUSH_U32(taps)    /* taps of axis d (resize_geometry.taps) in bits 8d..8d+7 */
#if (!defined(VKML_GLSL) && !defined(VKML_PUSH_CHECK_MIN)) || defined(COORD_DOUBLE)
/* The resize_double kernel only (past 128 bytes; the float kernel gets the bytes before,
 * and vk_push_check.c's 128-byte check leaves these out): the double scale of axis d as
 * its low and high words at 2d, 2d + 1. */
PUSH_U32S(scale64, 8)
#endif
PUSH_END(resize_push)
#endif

/* A sliding window over 3 spatial dims (leading 1s for 1-D and 2-D): the pools
 * (pool.comp) and the direct convolution (conv_window.comp). */
/* The window's geometry (window3_push's first members, and window3_pool_push's). */
#define WINDOW3_GEOMETRY \
PUSH_U32(count)    /* output elements */ \
PUSH_U32(channels) /* C (conv: and M, depthwise) */ \
PUSH_U32S(in_dims, 3) \
PUSH_U32S(out_dims, 3) \
PUSH_U32S(kernel, 3) \
PUSH_U32S(stride, 3) \
PUSH_U32S(dilation, 3) \
PUSH_U32S(pad_begin, 3)
/* A conv's members after the geometry and flags: channels and the fused epilogue. */
#define WINDOW3_CONV \
PUSH_U32(in_channels) /* conv: C */ \
PUSH_U32(group_in)    /* conv: C / group */ \
PUSH_U32(group_out)   /* conv: M / group */ \
PUSH_EPILOGUE         /* conv: the fused epilogue */

#if !defined(VKML_GLSL) || defined(PUSH_WINDOW3)
PUSH_BEGIN(window3_push)
WINDOW3_GEOMETRY
PUSH_U32S(pad_end, 3)
PUSH_U32(flags) /* pools: bit 0 count_include_pad, bit 1 storage_order; conv: bit 0 bias */
PUSH_F32(lp_p)  /* LpPool's p */
WINDOW3_CONV
PUSH_END(window3_push)
#endif

/* A 2-D conv with its fused MaxPool (conv_window.comp POOL=1), in the 128 bytes Vulkan
 * promises: window3_push without pad_end and lp_p, out_dims and count those of the pool's
 * output, then the conv's output size and the pool's window over it as pairs of 16 bits
 * (H << 16 | W; the host checks that they fit). */
#if !defined(VKML_GLSL) || defined(PUSH_WINDOW3_POOL)
PUSH_BEGIN(window3_pool_push)
WINDOW3_GEOMETRY
PUSH_U32(flags) /* bit 0: bias; bits 8..11: log2 of the lanes a tap */
WINDOW3_CONV
PUSH_U32(conv_out)    /* the conv's output H, W */
PUSH_U32(pool_kernel)
PUSH_U32(pool_stride)
PUSH_U32(pool_pad)    /* at the beginning */
PUSH_END(window3_pool_push)
#endif

/* ConvTranspose over 3 spatial dims (leading 1s): Y [N, M, O...] from X [N, C, I...] and
 * W [C, M/group, K...]; pad_begin as int32 bits (negative when output_shape pads out). */
#if !defined(VKML_GLSL) || defined(PUSH_CONVTRANSPOSE)
PUSH_BEGIN(convtranspose_push)
PUSH_U32(count)
PUSH_U32(in_channels)
PUSH_U32(out_channels)
PUSH_U32(group_in)  /* C / group */
PUSH_U32(group_out) /* M / group */
PUSH_U32(has_bias)
PUSH_U32S(in_dims, 3)
PUSH_U32S(out_dims, 3)
PUSH_U32S(kernel, 3)
PUSH_U32S(stride, 3)
PUSH_U32S(dilation, 3)
PUSH_U32S(pad_begin, 3)
PUSH_END(convtranspose_push)
#endif

/* GridSample over 3 spatial dims (leading 1s): Y [N, C, O...] from X [N, C, I...] and
 * grid [N, O..., spatial]; the ops/gridsample.h enums. */
#if !defined(VKML_GLSL) || defined(PUSH_GRIDSAMPLE)
PUSH_BEGIN(gridsample_push)
PUSH_U32(count)
PUSH_U32(channels)
PUSH_U32(spatial) /* real spatial dims, 1..3 */
PUSH_U32S(in_dims, 3)
PUSH_U32S(out_dims, 3)
PUSH_U32(mode)
PUSH_U32(padding)
PUSH_U32(align_corners)
PUSH_END(gridsample_push)
#endif

/* RoiAlign: Y [R, C, out_h, out_w] from X [batches, C, height, width], rois [R, 4] and
 * int64 batch indices [R]; the ops/detect.h roialign_params. */
#if !defined(VKML_GLSL) || defined(PUSH_ROIALIGN)
PUSH_BEGIN(roialign_push)
PUSH_U32(count)
PUSH_U32(batches)
PUSH_U32(channels)
PUSH_U32(height)
PUSH_U32(width)
PUSH_U32(out_h)
PUSH_U32(out_w)
PUSH_U32(sampling_ratio)
PUSH_U32(is_max)
PUSH_U32(half_pixel)
PUSH_F32(spatial_scale)
PUSH_END(roialign_push)
#endif

/* quantization */
/* QuantizeLinear/DequantizeLinear: element i's scale at quant_scale_index (lib/ops/quant.h);
 * lo/hi the quantized type's range (saturation, exact in float for 8/16-bit types). */
#if !defined(VKML_GLSL) || defined(PUSH_QUANT)
PUSH_BEGIN(quant_push)
PUSH_U32(count)
PUSH_U32(inner)
PUSH_U32(axis_dim)
PUSH_U32(block)
PUSH_U32(outer_stride)
PUSH_U32(axis_stride)
PUSH_U32(inner_stride)
PUSH_U32(has_zero)
PUSH_F32(lo)
PUSH_F32(hi)
PUSH_END(quant_push)
#endif

/* The integer products' split-K (common/qprod.glsl): `splits` slices of K, k_slice each (1
 * slice: all of K). */
#define QPROD_SPLIT_FIELDS PUSH_U32(splits) PUSH_U32(k_slice)

/* MatMulInteger/QLinearMatMul (shaders/qmatmul.comp, common/qprod.glsl): Y [batch, m, n]
 * dense, A [.., m, k] and B [.., k, n] at broadcast batch strides; zero points as int32
 * bits. b_zero_in_buffer, b_scale_in_buffer: B's zero points (binding 4) and scales (binding
 * 3) there, 1 one or 2 one per column, else b_zero and multiplier (a_scale * b_scale /
 * y_scale). */
#if !defined(VKML_GLSL) || defined(PUSH_QMATMUL)
PUSH_BEGIN(qmatmul_push)
PUSH_U32(m)
PUSH_U32(n)
PUSH_U32(k)
PUSH_U32(batch_rank)
PUSH_U32S(batch_dims, 4)
PUSH_U32S(a_batch_strides, 4)
PUSH_U32S(b_batch_strides, 4)
PUSH_U32(a_zero)
PUSH_U32(a_zero_in_buffer)
PUSH_U32(b_zero)
PUSH_U32(b_signed)
PUSH_U32(b_zero_in_buffer)
PUSH_U32(b_scale_in_buffer)
PUSH_U32(y_zero)
PUSH_F32(multiplier)
PUSH_F32(a_scale)
PUSH_F32(y_scale)
PUSH_F32(y_lo)
PUSH_F32(y_hi)
QPROD_SPLIT_FIELDS
PUSH_END(qmatmul_push)
#endif

/* ConvInteger/QLinearConv (qmatmul.comp and qmatmul_coop.comp with QCONV=1,
 * common/qprod.glsl): the 2-D window and channels, then the quantization parameters (zero
 * points as int32 bits). x_zero_in_buffer: X's zero point at binding 2 (ConvInteger);
 * w_zero_in_buffer, w_scale_in_buffer: the weights' zero points (binding 4) and scales
 * (binding 3, QLinearConv) there, 1 one or 2 one per output channel, else w_zero and
 * multiplier (x_scale * w_scale / y_scale). */
#if !defined(VKML_GLSL) || defined(PUSH_QCONV)
PUSH_BEGIN(qconv_push)
CONV_WINDOW_PUSH
PUSH_U32(x_zero)
PUSH_U32(w_zero)
PUSH_U32(w_signed)
PUSH_U32(x_zero_in_buffer)
PUSH_U32(w_zero_in_buffer)
PUSH_U32(w_scale_in_buffer)
PUSH_U32(has_bias)
PUSH_U32(y_zero)
PUSH_F32(multiplier)
PUSH_F32(x_scale)
PUSH_F32(y_scale)
PUSH_F32(y_lo)
PUSH_F32(y_hi)
QPROD_SPLIT_FIELDS
PUSH_END(qconv_push)
#endif

/* Einsum in general form (shaders/einsum.comp): output and summed labels with their
 * sizes and element strides in A and B (0 where absent). */
#if !defined(VKML_GLSL) || defined(PUSH_EINSUM)
PUSH_BEGIN(einsum_push)
PUSH_U32(count)
PUSH_U32(out_rank)
PUSH_U32(n_sum)
PUSH_U32(sum_count)
PUSH_U32(two_operands)
PUSH_U32S(out_dims, 4)
PUSH_U32S(a_out, 4)
PUSH_U32S(b_out, 4)
PUSH_U32S(sum_dims, 4)
PUSH_U32S(a_sum, 4)
PUSH_U32S(b_sum, 4)
PUSH_END(einsum_push)
#endif

/* Attention (shaders/attention.comp): rows = batch * q_heads * q_len; element strides of
 * Q, K, V and Y over [batch, head, position]. */
#if !defined(VKML_GLSL) || defined(PUSH_ATTENTION)
PUSH_BEGIN(attention_push)
PUSH_U32(rows)
PUSH_U32(q_len)
PUSH_U32(q_heads)
PUSH_U32(group)
PUSH_U32(kv_len)
PUSH_U32(qk_size)
PUSH_U32(v_size)
PUSH_U32(is_causal)
PUSH_F32(scale)
PUSH_F32(softcap)
PUSH_U32S(q_strides, 3)
PUSH_U32S(k_strides, 3)
PUSH_U32S(v_strides, 3)
PUSH_U32S(y_strides, 3)
PUSH_END(attention_push)
#endif

/* FusedAttention (shaders/attention_fused.comp; lib/ops/fused_attention.h): element
 * strides of A's rows and columns, B's (k, key), V's (key, column); where A, B and V start;
 * per batch dim (at most R, the host checks) its extent and A's, B's, V's and Y's strides. */
#define ATTENTION_FUSED_MEMBERS(R)                                                                 \
    PUSH_U32(m)                                                                                    \
    PUSH_U32(n)                                                                                    \
    PUSH_U32(k)                                                                                    \
    PUSH_U32(e)                                                                                    \
    PUSH_U32(a_sm)                                                                                 \
    PUSH_U32(a_sk)                                                                                 \
    PUSH_U32(b_sk)                                                                                 \
    PUSH_U32(b_sn)                                                                                 \
    PUSH_U32(v_sn)                                                                                 \
    PUSH_U32(v_se)                                                                                 \
    PUSH_F32(scale)                                                                                \
    PUSH_U32(batch_rank)                                                                           \
    PUSH_U32(y_sm)                                                                                 \
    PUSH_U32(a_offset)                                                                             \
    PUSH_U32(b_offset)                                                                             \
    PUSH_U32(v_offset)                                                                             \
    PUSH_U32S(batch_dims, R)                                                                       \
    PUSH_U32S(a_batch, R)                                                                          \
    PUSH_U32S(b_batch, R)                                                                          \
    PUSH_U32S(v_batch, R)                                                                          \
    PUSH_U32S(y_batch, R)
#if !defined(VKML_GLSL) || (defined(PUSH_ATTENTION_FUSED) && !defined(ATTENTION_MASK))
PUSH_BEGIN(attention_fused_push)
ATTENTION_FUSED_MEMBERS(3) /* 3 batch dims: the block's 128 bytes */
PUSH_END(attention_fused_push)
#endif
/* With a mask (ATTENTION_MASK; Hugging Face's attention has 2 batch dims, b and heads): its
 * kind (fused_attention_mask), its element strides along the rows, the keys and each batch
 * dim, and the score where a bool mask is false. */
#if !defined(VKML_GLSL) || (defined(PUSH_ATTENTION_FUSED) && defined(ATTENTION_MASK))
PUSH_BEGIN(attention_fused_mask_push)
ATTENTION_FUSED_MEMBERS(2)
PUSH_U32(mask_kind)
PUSH_U32(mask_sm)
PUSH_U32(mask_sn)
PUSH_F32(fill)
PUSH_U32S(mask_batch, 2)
PUSH_END(attention_fused_mask_push)
#endif

/* more elementwise */
/* Elementwise of three broadcast inputs (Where, Clip): strides[k * 6 + d] is input k's
 * element stride along output dim d. Rank 6 at most (after merging dims), so that the
 * block fits Vulkan's guaranteed 128 bytes. */
#define VKML_TERNARY_MAX_RANK 6
#if !defined(VKML_GLSL) || defined(PUSH_TERNARY)
PUSH_BEGIN(ternary_push)
PUSH_U32(count)
PUSH_U32(rank)
PUSH_U32(flags) /* Clip: bit 0 min present, bit 1 max present */
PUSH_U32S(dims, VKML_TERNARY_MAX_RANK)
PUSH_U32S(strides, 3 * VKML_TERNARY_MAX_RANK)
PUSH_END(ternary_push)
#endif

/* com.vkml.ImagePreprocess (preprocess.comp; lib/vulkan/ops_preprocess.c fills it). */
#if !defined(VKML_GLSL) || defined(PUSH_PREPROCESS)
PUSH_BEGIN(preprocess_push)
PUSH_U32(count)        /* output pixels */
PUSH_U32(width)        /* the frame */
PUSH_U32(height)
PUSH_U32(format)       /* bits 0-1: packed RGB 0, gray 1, YUV 2; YUV (preprocess_yuv): bit 2
                          semi-planar, 3 chroma half width, 4 half height, 5 16-bit
                          samples, 8-11 sample shift, 12-16 sample bits */
PUSH_F32(sample_scale) /* YUV: raw sample -> 8-bit units */
PUSH_U32(rgb_offsets)  /* byte of R, G, B in bits 0-7, 8-15, 16-23; pixel stride 24-31 */
PUSH_U32S(plane_offsets, 3)
PUSH_U32S(plane_strides, 3)
PUSH_U32(out_width)
PUSH_U32(out_height)
PUSH_U32(channels)
PUSH_U32(flags)        /* bit 0 NHWC, 1 bgr, 2 full range, 3 BT.709, 4-5 resize mode */
PUSH_U32(box_x)        /* content columns: x0 in bits 0-15, x1 in 16-31 */
PUSH_U32(box_y)
PUSH_F32(inv_scale_x)
PUSH_F32(inv_scale_y)
PUSH_F32(offset_x)
PUSH_F32(offset_y)
PUSH_F32(pad_value)
PUSH_F32(scale)
PUSH_F32S(mean, 3)
PUSH_F32S(std, 3)
PUSH_U32(frame_words)  /* 32-bit words from one frame of the batch to the next */
PUSH_END(preprocess_push)
#endif

#endif
