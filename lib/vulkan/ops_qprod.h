#pragma once
/* The integer products' dispatches (shaders/qmatmul.comp, qmatmul_coop.comp and, for
 * split-K, qprod_finish.comp; shaders/common/qprod.glsl), shared by MatMulInteger and
 * QLinearMatMul (ops_quant.c) and ConvInteger and QLinearConv as implicit GEMMs
 * (ops_qconv.c). */
#include "ops/quant.h"
#include "vulkan/vk_ops.h"

/* One integer product: m x n results of k terms each, in `batches` batches (a conv's
 * groups). */
typedef struct vk_qprod {
    bool conv, qlinear;
    int64_t m, n, k, batches;
} vk_qprod;

/* Input i of an integer product node (a role of qprod_inputs), or NULL where absent. */
static inline const graph_value *vk_qprod_input(const graph_value *values, const graph_node *node,
                                                int i)
{
    return i >= 0 && i < node->n_inputs && node->inputs[i] >= 0 ? &values[node->inputs[i]] : NULL;
}

/* A constant zero point's first value as int32 bits (0 where absent or not constant). */
static inline uint32_t vk_qprod_const_bits(const graph_value *v)
{
    return v && v->data ? (uint32_t)(int32_t)quant_const_at(v, 0) : 0;
}

/* How a zero point or scale vector reaches the kernels (push.h's *_in_buffer): 0 in the
 * push block (absent, or a constant of one value), 1 one value at its binding, 2 one per
 * row or column there. */
uint32_t vk_qprod_vec_mode(const graph_value *v);
/* Whether the device's grid takes the product's blocks. */
bool vk_qprod_fits(const struct gpu_caps *caps, const vk_qprod *q);
/* Picks the product's kernels, blocks and slices of K (ops_quant.c, qprod_plan) and records
 * its dispatches. push: the op's qmatmul_push or qconv_push, whose splits and k_slice (at
 * byte split_at: offsetof its splits) the plan fills; bind: the kernels' n_bind bindings,
 * Y last. */
vkml_status vk_rec_qprod(gpu_recorder *rec, const vk_qprod *q, vkml_dtype dtype, const int *bind,
                         int n_bind, const void *push, uint32_t push_size, size_t split_at,
                         vkml_error *err);
