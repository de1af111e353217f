/* Vulkan lowerings of the elementwise ops (binary with broadcasting, unary). */
#include "ops/elementwise.h"
#include "ops/op_decls.h"
#include "vulkan/vk_ops.h"

typedef struct binary_push {
    uint32_t count, rank;
    uint32_t dims[VKML_MAX_RANK];
    uint32_t a_strides[VKML_MAX_RANK];
    uint32_t b_strides[VKML_MAX_RANK];
} binary_push;

typedef struct unary_push {
    uint32_t count;
} unary_push;

static vk_kernel_id eltwise_kernel(eltwise_op op)
{
    switch (op) {
    case ELTWISE_ADD: return VK_KERNEL_ADD;
    case ELTWISE_SUB: return VK_KERNEL_SUB;
    case ELTWISE_MUL: return VK_KERNEL_MUL;
    case ELTWISE_DIV: return VK_KERNEL_DIV;
    case ELTWISE_RELU: return VK_KERNEL_RELU;
    case ELTWISE_SIGMOID: return VK_KERNEL_SIGMOID;
    case ELTWISE_TANH: return VK_KERNEL_TANH;
    }
    return VK_KERNEL_COUNT;
}

VKML_GPU_SUPPORTS_DECL(gpu_eltwise_supports)
{
    vkml_error err;
    eltwise_params p;
    if (eltwise_params_parse(values, node, &p, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
    if (eltwise_kernel(p.op) == VK_KERNEL_COUNT)
        return vk_unsupported(why, why_size, "no Vulkan kernel for %s", node->op_type);
    return vk_check_tensors(values, node, caps, false, why, why_size);
}

VKML_GPU_DECL(gpu_eltwise_binary)
{
    eltwise_params p;
    vkml_status st = eltwise_params_parse(values, node, &p, err);
    if (st != VKML_OK)
        return st;
    binary_push pc = {.count = vk_u32((int64_t)p.count), .rank = (uint32_t)p.rank};
    for (int d = 0; d < p.rank; d++) {
        pc.dims[d] = vk_u32(p.dims[d]);
        pc.a_strides[d] = vk_u32(p.a_strides[d]);
        pc.b_strides[d] = vk_u32(p.b_strides[d]);
    }
    int bind[] = {node->inputs[0], node->inputs[1], node->outputs[0]};
    return vk_rec_kernel_1d(rec, eltwise_kernel(p.op), bind, &pc, sizeof(pc), p.count, err);
}

VKML_GPU_DECL(gpu_eltwise_unary)
{
    eltwise_params p;
    vkml_status st = eltwise_params_parse(values, node, &p, err);
    if (st != VKML_OK)
        return st;
    unary_push pc = {.count = vk_u32((int64_t)p.count)};
    int bind[] = {node->inputs[0], node->outputs[0]};
    return vk_rec_kernel_1d(rec, eltwise_kernel(p.op), bind, &pc, sizeof(pc), p.count, err);
}
