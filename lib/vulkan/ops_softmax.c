/* Vulkan lowering of Softmax over an [outer, axis_len, inner] view. */
#include "ops/softmax.h"
#include "vulkan/vk_ops.h"

/* Rows at least this long get a workgroup each (softmax_rows.comp) on GPUs. */
#define SOFTMAX_ROWS_MIN_LEN 32

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
    const struct gpu_caps *caps = vk_rec_caps(rec);
    if (caps->prefer_tiled && p.inner == 1 && p.axis_len >= SOFTMAX_ROWS_MIN_LEN) {
        /* One workgroup per row: vk_groups_1d counts groups of VK_WG_SIZE_1D threads. */
        uint32_t groups[3];
        vk_groups_1d(caps, (uint64_t)pc.lines * VK_WG_SIZE_1D, groups);
        return vk_rec_kernel(rec, VK_KERNEL_SOFTMAX_ROWS, VKML_DTYPE_FLOAT, bind, &pc, sizeof(pc), groups, err);
    }
    return vk_rec_kernel_1d(rec, VK_KERNEL_SOFTMAX, VKML_DTYPE_FLOAT, bind, &pc, sizeof(pc), pc.lines, err);
}
