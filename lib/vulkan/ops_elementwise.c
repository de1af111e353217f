/* Vulkan lowerings of the elementwise ops (binary with broadcasting, unary). */
#include "ops/elementwise.h"
#include "vulkan/vk_ops.h"

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

/* Merges adjacent output dims that both inputs walk as one (an outer dim whose stride is
 * the inner stride times the inner size, for a and b) and drops size-1 dims, so that
 * same-shape operands become one flat loop. Fills the push block; returns its rank. */
static int collapse_dims(const eltwise_params *p, binary_push *pc)
{
    int rank = 0;
    for (int d = 0; d < p->rank; d++) {
        uint32_t n = vk_u32(p->dims[d]), sa = vk_u32(p->a_strides[d]), sb = vk_u32(p->b_strides[d]);
        if (n == 1)
            continue;
        if (rank > 0 && pc->a_strides[rank - 1] == sa * n && pc->b_strides[rank - 1] == sb * n) {
            pc->dims[rank - 1] *= n;
        } else {
            pc->dims[rank] = n;
            rank++;
        }
        pc->a_strides[rank - 1] = sa;
        pc->b_strides[rank - 1] = sb;
    }
    return rank;
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
    binary_push pc = {.count = vk_u32((int64_t)p.count)};
    pc.rank = (uint32_t)collapse_dims(&p, &pc);
    int bind[] = {node->inputs[0], node->inputs[1], node->outputs[0]};
    return vk_rec_kernel_1d(rec, eltwise_kernel(p.op), VKML_DTYPE_FLOAT, bind, &pc, sizeof(pc), p.count, err);
}

VKML_GPU_DECL(gpu_eltwise_unary)
{
    eltwise_params p;
    vkml_status st = eltwise_params_parse(values, node, &p, err);
    if (st != VKML_OK)
        return st;
    unary_push pc = {.count = vk_u32((int64_t)p.count)};
    int bind[] = {node->inputs[0], node->outputs[0]};
    return vk_rec_kernel_1d(rec, eltwise_kernel(p.op), VKML_DTYPE_FLOAT, bind, &pc, sizeof(pc), p.count, err);
}
