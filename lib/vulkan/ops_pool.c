/* Vulkan lowerings of MaxPool (with Indices), AveragePool and LpPool over 1 to 3 spatial
 * dims (pool.comp), and the global pools. */
#include "ops/pool.h"
#include "vulkan/ops_reduce.h"
#include "vulkan/ops_window.h"

#include <string.h>

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
        /* dtypes: the registry's mask (float, float16, double by the device's features) */
        return vk_check_tensors(values, node, caps, true, why, why_size);
    }
    pool_params p;
    if (pool_params_parse(values, node, &p, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
    if (p.win.spatial > VK_WINDOW3_SPATIAL)
        return vk_unsupported(why, why_size,
                              "%s with %d spatial dims: the Vulkan kernel takes "
                              "1 to 3",
                              node->op_type, p.win.spatial);
    for (int d = 0; d < p.win.spatial; d++)
        if (p.win.pads_begin[d] + p.win.in[d] + p.win.pads_end[d] > INT32_MAX ||
            (p.win.kernel[d] - 1) * p.win.dilations[d] > INT32_MAX ||
            p.win.out[d] * p.win.strides[d] > INT32_MAX)
            return vk_unsupported(why, why_size,
                                  "%s: window beyond the kernel's 32-bit "
                                  "arithmetic",
                                  node->op_type);
    /* dtypes: the registry's mask (float, float16, MaxPool int8/uint8; Indices int64 by the
     * device's features) */
    return vk_check_tensors(values, node, caps, true, why, why_size);
}

/* pool.comp's KMAX forms, which issue every tap's load before taking the first: a window
 * of one tap along the push block's dim 0 and at most 3x3 (max and average) or 5x5 (max)
 * taps. The loop form waits a load's round trip a tap: ResNet-50 b8's 3x3 pool after the
 * stem took 22.8 us on the H200 (2026-11-25). */
static vk_kernel_id unrolled_pool(const pool_params *p, const window3_push *pc, vkml_dtype dtype)
{
    if (p->is_lp || p->has_indices || pc->kernel[0] != 1)
        return VK_KERNEL_COUNT;
    uint32_t k = pc->kernel[1] > pc->kernel[2] ? pc->kernel[1] : pc->kernel[2];
    vk_kernel_id kernel = k <= 3 ? (p->is_max ? VK_KERNEL_MAXPOOL_K3 : VK_KERNEL_AVGPOOL_K3)
                          : k <= 5 && p->is_max ? VK_KERNEL_MAXPOOL_K5
                                                : VK_KERNEL_COUNT;
    return kernel != VK_KERNEL_COUNT && vk_kernel_variant(kernel, (int)dtype) >= 0
               ? kernel
               : VK_KERNEL_COUNT;
}

static vk_kernel_id pool_kernel(const pool_params *p, const window3_push *pc, vkml_dtype dtype)
{
    vk_kernel_id unrolled = unrolled_pool(p, pc, dtype);
    if (unrolled != VK_KERNEL_COUNT)
        return unrolled;
    if (p->is_lp)
        return VK_KERNEL_LPPOOL;
    if (!p->is_max)
        return VK_KERNEL_AVGPOOL;
    return p->has_indices ? VK_KERNEL_MAXPOOL_INDICES : VK_KERNEL_MAXPOOL;
}

VKML_GPU_DECL(gpu_pool)
{
    pool_params p;
    vkml_status st = pool_params_parse(values, node, &p, err);
    if (st != VKML_OK)
        return st;
    const window_params *w = &p.win;
    window3_push pc = {.channels = vk_u32(p.channels),
                       .lp_p = p.lp_p,
                       .flags = (p.count_include_pad ? 1u : 0u) | (p.storage_order ? 2u : 0u)};
    uint64_t count = vk_window3_fill(w, (uint64_t)(p.batch * p.channels), &pc);
    pc.count = (uint32_t)count;
    vk_dispatch dispatch = {
        .kernel = pool_kernel(&p, &pc, values[node->inputs[0]].dtype),
        .dtype = values[node->inputs[0]].dtype,
        .bind = {node->inputs[0], node->outputs[0], p.has_indices ? node->outputs[1] : -1},
        .write_mask = p.has_indices ? 6u : 2u,
        .push = &pc,
        .push_size = sizeof(pc),
    };
    vk_groups_1d(vk_rec_caps(rec), count, dispatch.groups);
    return vk_rec_dispatch(rec, &dispatch, err);
}

/* The global pools are ReduceMean / ReduceMax over the spatial axes, and run as those where
 * reduce.comp has the dtype (a workgroup per long plane: global_pool.comp walks a plane
 * with one invocation, 0.8 ms of EfficientNet-B0's 2.1 on the H200 for its 17
 * squeeze-excitation means); double keeps global_pool.comp. */
VKML_GPU_DECL(gpu_global_pool)
{
    global_pool_params p;
    vkml_status st = global_pool_params_parse(values, node, &p, err);
    if (st != VKML_OK)
        return st;
    const graph_value *x = &values[node->inputs[0]];
    int bind[] = {node->inputs[0], node->outputs[0]};
    vk_kernel_id reduce = p.is_max ? VK_KERNEL_REDUCE_MAX : VK_KERNEL_REDUCE_MEAN;
    reduce_view view;
    reduce_view_init(x->rank, x->dims, ~(uint32_t)3 & ((1u << x->rank) - 1), &view);
    if (p.spatial_size > 0 && vk_kernel_variant(reduce, (int)x->dtype) >= 0 &&
        vk_kernel_variant((vk_kernel_id)(reduce + 1), (int)x->dtype) >= 0) {
        reduce_push rp = {0};
        VK_SET_REDUCE_VIEW(&rp, &view);
        return vk_rec_lines(rec, reduce, x->dtype, &view, bind, &rp, sizeof(rp), err);
    }
    global_pool_push pc = {
        .planes = vk_u32(p.batch * p.channels),
        .size = vk_u32(p.spatial_size),
    };
    return vk_rec_kernel_1d(rec, p.is_max ? VK_KERNEL_GLOBAL_MAXPOOL : VK_KERNEL_GLOBAL_AVGPOOL,
                            x->dtype, bind, &pc, sizeof(pc), pc.planes, err);
}
