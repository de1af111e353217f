/* Vulkan lowerings of MaxPool/AveragePool (1-D, 2-D) and the global pools. */
#include "ops/pool.h"
#include "vulkan/ops_window.h"

#include <string.h>

typedef struct pool_push {
    vk_window_push win;
    uint32_t count;
    uint32_t pad_end_h, pad_end_w;
    uint32_t count_include_pad;
} pool_push;

typedef struct global_pool_push {
    uint32_t planes, size;
} global_pool_push;

static bool is_global(const graph_node *node)
{
    return strncmp(node->op_type, "Global", 6) == 0;
}

VKML_GPU_SUPPORTS_DECL(gpu_pool_supports)
{
    vkml_error err;
    if (is_global(node)) {
        global_pool_params gp;
        if (global_pool_params_parse(values, node, &gp, &err) != VKML_OK)
            return vk_parse_failed(&err, why, why_size);
        return vk_check_tensors(values, node, caps, false, why, why_size);
    }
    pool_params p;
    if (pool_params_parse(values, node, &p, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
    if (p.has_indices)
        return vk_unsupported(why, why_size, "MaxPool's Indices output has no Vulkan kernel");
    if (!vk_window_supported(&p.win, node->op_type, why, why_size))
        return false;
    /* dtypes: the registry's mask (float, float16) */
    return vk_check_tensors(values, node, caps, true, why, why_size);
}

VKML_GPU_DECL(gpu_pool)
{
    pool_params p;
    vkml_status st = pool_params_parse(values, node, &p, err);
    if (st != VKML_OK)
        return st;
    uint32_t pad_end[2];
    pool_push pc = {.count_include_pad = p.count_include_pad};
    vk_window_push_fill(&p.win, &pc.win, pad_end);
    pc.pad_end_h = pad_end[0];
    pc.pad_end_w = pad_end[1];
    int64_t count = p.batch * p.channels * window_out_size(&p.win);
    pc.count = vk_u32(count);
    int bind[] = {node->inputs[0], node->outputs[0]};
    return vk_rec_kernel_1d(rec, p.is_max ? VK_KERNEL_MAXPOOL2D : VK_KERNEL_AVGPOOL2D,
                            values[node->inputs[0]].dtype, bind, &pc, sizeof(pc),
                            (uint64_t)count, err);
}

VKML_GPU_DECL(gpu_global_pool)
{
    global_pool_params p;
    vkml_status st = global_pool_params_parse(values, node, &p, err);
    if (st != VKML_OK)
        return st;
    global_pool_push pc = {
        .planes = vk_u32(p.batch * p.channels),
        .size = vk_u32(p.spatial_size),
    };
    int bind[] = {node->inputs[0], node->outputs[0]};
    return vk_rec_kernel_1d(rec, p.is_max ? VK_KERNEL_GLOBAL_MAXPOOL : VK_KERNEL_GLOBAL_AVGPOOL, VKML_DTYPE_FLOAT,
                            bind, &pc, sizeof(pc), pc.planes, err);
}
