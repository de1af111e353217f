#pragma once
/* The integer products' dispatches (shaders/qmatmul.comp, qmatmul_coop.comp and, for
 * split-K, qprod_finish.comp; shaders/common/qprod.glsl), shared by MatMulInteger and
 * QLinearMatMul (ops_quant.c) and ConvInteger and QLinearConv as implicit GEMMs
 * (ops_qconv.c). */
#include "vulkan/vk_ops.h"

/* One integer product: m x n results of k terms each, in `batches` batches (a conv's
 * groups). */
typedef struct vk_qprod {
    bool conv, qlinear;
    int64_t m, n, k, batches;
} vk_qprod;

/* Its kernels and grid: a conv whose groups have fewer than VK_QPROD_DIRECT_ROWS output
 * channels runs qconv_direct.comp (an invocation an output: `direct`); any other product
 * qmatmul_coop.comp where the device has int8 cooperative matrices, else qmatmul.comp's 64 x
 * 64 blocks, or 32 x 32 where those would be fewer than VK_QPROD_FEW_BLOCKS workgroups;
 * split-K (splits > 1: `part` then `finish`) for qmatmul_coop.comp's products of fewer
 * blocks, or as gpu_caps.splitk_force says. */
typedef struct vk_qprod_plan {
    vk_kernel_id kernel, part, finish;
    bool direct;
    uint32_t groups[3]; /* of the product (not direct), or of its first pass (z: batch x
                         * slice) */
    uint64_t outputs;   /* direct: its invocations */
    uint32_t splits, k_slice;
    uint64_t scratch_bytes; /* the slices' int32 parts */
} vk_qprod_plan;

#define VK_QPROD_FEW_BLOCKS 256
#define VK_QPROD_DIRECT_ROWS 16

/* How a zero point or scale vector reaches the kernels (push.h's *_in_buffer): 0 in the
 * push block (absent, or a constant of one value), 1 one value at its binding, 2 one per
 * row or column there. */
uint32_t vk_qprod_vec_mode(const graph_value *v);
/* Whether the device's grid takes the product's blocks. */
bool vk_qprod_fits(const struct gpu_caps *caps, const vk_qprod *q);
void vk_qprod_pick(const struct gpu_caps *caps, const vk_qprod *q, vk_qprod_plan *plan);
/* Picks the product's plan and records its dispatches. push: the op's qmatmul_push or
 * qconv_push, whose splits and k_slice (at byte split_at: offsetof its splits) the plan
 * fills; bind: the kernels' n_bind bindings, Y last. */
vkml_status vk_rec_qprod(gpu_recorder *rec, const vk_qprod *q, vkml_dtype dtype, const int *bind,
                         int n_bind, const void *push, uint32_t push_size, size_t split_at,
                         vkml_error *err);
