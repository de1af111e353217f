/* Vulkan lowering of Softmax over an [outer, axis_len, inner] view. */
#include "ops/op_decls.h"
#include "ops/softmax.h"
#include "vulkan/vk_ops.h"

typedef struct softmax_push {
    uint32_t lines, axis_len, inner;
} softmax_push;

VKML_GPU_SUPPORTS_DECL(gpu_softmax_supports)
{
    vkml_error err;
    softmax_params p;
    if (softmax_params_parse(values, node, &p, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
    return vk_check_tensors(values, node, caps, false, why, why_size);
}

VKML_GPU_DECL(gpu_softmax)
{
    softmax_params p;
    vkml_status st = softmax_params_parse(values, node, &p, err);
    if (st != VKML_OK)
        return st;
    softmax_push pc = {
        .lines = vk_u32(p.outer * p.inner),
        .axis_len = vk_u32(p.axis_len),
        .inner = vk_u32(p.inner),
    };
    int bind[] = {node->inputs[0], node->outputs[0]};
    return vk_rec_kernel_1d(rec, VK_KERNEL_SOFTMAX, bind, &pc, sizeof(pc), pc.lines, err);
}
