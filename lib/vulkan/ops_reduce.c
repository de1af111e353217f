/* Vulkan lowerings of the reductions: Reduce* and ArgMax/ArgMin through reduce.comp
 * (the op a define, a variant per dtype, a workgroup per line for long lines). */
#include "vulkan/ops_reduce.h"

/* The kernel table lists reduce_<op> and reduce_<op>_rows in reduce_op order. */
#define REDUCE_KERNEL(op) ((vk_kernel_id)(VK_KERNEL_REDUCE_SUM + 2 * (int)(op)))
_Static_assert(REDUCE_KERNEL(REDUCE_ARGMIN) == VK_KERNEL_REDUCE_ARGMIN, "reduce kernel order");
_Static_assert(REDUCE_KERNEL(REDUCE_ARGMIN) + 1 == VK_KERNEL_REDUCE_ARGMIN_ROWS, "reduce rows");
_Static_assert(REDUCE_KERNEL(REDUCE_ARGMIN) + 2 == VK_KERNEL_REDUCE_INVSTD, "InvStdDev follows");

/* The twin of kernel with 32 lanes a line and 8 lines a workgroup for lines of `count`
 * elements, or -1: the _short kernels up to VK_REDUCE_SHORT_MAX_COUNT, the normalisations'
 * _lanes kernels (combining within subgroups) up to VK_NORM_LANES_MAX_COUNT. */
static int short_lines_kernel(const struct gpu_caps *caps, vk_kernel_id kernel, uint64_t count,
                              uint64_t lines)
{
    bool lanes = caps->subgroup_lanes32 && count <= VK_NORM_LANES_MAX_COUNT &&
                 lines >= VK_NORM_LANES_MIN_LINES;
    bool fits = count <= VK_REDUCE_SHORT_MAX_COUNT; /* the _short kernels take it */
    switch (kernel) {
    case VK_KERNEL_REDUCE_SUM: return fits ? VK_KERNEL_REDUCE_SUM_SHORT : -1;
    case VK_KERNEL_REDUCE_MEAN: return fits ? VK_KERNEL_REDUCE_MEAN_SHORT : -1;
    case VK_KERNEL_REDUCE_MAX: return fits ? VK_KERNEL_REDUCE_MAX_SHORT : -1;
    case VK_KERNEL_NORM_SOFTMAX:
        return lanes ? VK_KERNEL_NORM_SOFTMAX_LANES : fits ? VK_KERNEL_NORM_SOFTMAX_SHORT : -1;
    case VK_KERNEL_NORM_LOG_SOFTMAX:
        return lanes  ? VK_KERNEL_NORM_LOG_SOFTMAX_LANES
               : fits ? VK_KERNEL_NORM_LOG_SOFTMAX_SHORT
                      : -1;
    case VK_KERNEL_NORM_MEANVAR:
        return lanes ? VK_KERNEL_NORM_MEANVAR_LANES : fits ? VK_KERNEL_NORM_MEANVAR_SHORT : -1;
    default: return -1;
    }
}

vkml_status vk_rec_lines(gpu_recorder *rec, vk_kernel_id kernel, vkml_dtype dtype,
                         const reduce_view *v, const int *bind, const void *push,
                         uint32_t push_size, vkml_error *err)
{
    const struct gpu_caps *caps = vk_rec_caps(rec);
    int short_kernel = short_lines_kernel(caps, kernel, v->count, v->lines);
    if (caps->prefer_tiled && v->count >= VK_REDUCE_SHORT_MIN_COUNT && short_kernel >= 0 &&
        vk_kernel_variant((vk_kernel_id)short_kernel, (int)dtype) >= 0) {
        uint32_t groups[3];
        uint64_t workgroups =
            ((uint64_t)v->lines + VK_REDUCE_SHORT_LINES - 1) / VK_REDUCE_SHORT_LINES;
        vk_groups_1d(caps, workgroups * VK_WG_SIZE_1D, groups);
        return vk_rec_kernel(rec, (vk_kernel_id)short_kernel, dtype, bind, push, push_size, groups,
                             err);
    }
    if (!vk_reduce_rows(caps, v))
        return vk_rec_kernel_1d(rec, kernel, dtype, bind, push, push_size, (uint64_t)v->lines, err);
    /* One workgroup per line: vk_groups_1d counts groups of VK_WG_SIZE_1D threads. */
    uint32_t groups[3];
    vk_groups_1d(caps, (uint64_t)v->lines * VK_WG_SIZE_1D, groups);
    return vk_rec_kernel(rec, (vk_kernel_id)(kernel + 1), dtype, bind, push, push_size, groups,
                         err);
}

bool vk_reduce_view_ok(const reduce_view *v, char *why, size_t why_size)
{
    if (v->lines == 0 || v->count == 0)
        return vk_unsupported(why, why_size,
                              "empty tensors and empty-set reductions run on the CPU");
    return true;
}

VKML_GPU_SUPPORTS_DECL(gpu_reduce_supports)
{
    vkml_error err;
    reduce_geom g;
    if (reduce_resolve(values, node, &g, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
    /* Empty sets (count 0) give the op's identity as the CPU does (Sum 0, Max -inf or the
     * dtype's least, Prod 1, LogSum -inf, Mean NaN; ArgMax/ArgMin fail in resolve); no
     * lines records nothing. */
    return vk_check_tensors(values, node, caps, true, why, why_size);
}

VKML_GPU_DECL(gpu_reduce)
{
    reduce_geom g;
    vkml_status st = reduce_resolve(values, node, &g, err);
    if (st != VKML_OK)
        return st;
    const reduce_params *p = node->params;
    reduce_push pc = {.select_last = p->select_last_index};
    VK_SET_REDUCE_VIEW(&pc, &g.view);
    int bind[] = {node->inputs[0], node->outputs[0]};
    return vk_rec_lines(rec, REDUCE_KERNEL(p->op), values[node->inputs[0]].dtype, &g.view, bind,
                        &pc, sizeof(pc), err);
}

/* TopK: every element loops over its line (topk.comp), so the line is bounded. Lines
 * longer than TOPK_TILED_MIN_LEN pass through shared memory (the TILED form, one grid row
 * per line) when the lines fit the grid's y extent. */
#define TOPK_GPU_MAX_LEN 16384
#define TOPK_TILED_MIN_LEN 128
#define TOPK_TILED_WG 128 /* topk.comp's WG_SIZE in the TILED form */
#define TOPK_MAX_GRID_Y 65535u

VKML_GPU_SUPPORTS_DECL(gpu_topk_supports)
{
    vkml_error err;
    topk_geom g;
    if (topk_resolve(values, node, &g, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
    if (g.len > TOPK_GPU_MAX_LEN)
        return vk_unsupported(why, why_size,
                              "TopK along an axis of %lld: the Vulkan kernel "
                              "takes at most %d",
                              (long long)g.len, TOPK_GPU_MAX_LEN);
    /* dtypes: the registry's mask; Indices int64 by the device's features */
    return vk_check_tensors(values, node, caps, true, why, why_size);
}

VKML_GPU_DECL(gpu_topk)
{
    topk_geom g;
    vkml_status st = topk_resolve(values, node, &g, err);
    if (st != VKML_OK)
        return st;
    const topk_params *p = node->params;
    topk_push pc = {
        .count = vk_u32(g.outer * g.len * g.inner),
        .len = vk_u32(g.len),
        .inner = vk_u32(g.inner > 0 ? g.inner : 1),
        .k = vk_u32(g.k),
        .largest = p->largest ? 1u : 0u,
    };
    if (g.k == 0)
        return VKML_OK;
    vk_dispatch d = {
        .kernel = VK_KERNEL_TOPK,
        .dtype = values[node->inputs[0]].dtype,
        .bind = {node->inputs[0], node->outputs[0], node->outputs[1]},
        .write_mask = 6u,
        .push = &pc,
        .push_size = sizeof(pc),
    };
    int64_t lines = g.outer * (g.inner > 0 ? g.inner : 1);
    if (g.len >= TOPK_TILED_MIN_LEN && lines <= TOPK_MAX_GRID_Y) {
        d.kernel = VK_KERNEL_TOPK_TILED;
        d.groups[0] = vk_u32((g.len + TOPK_TILED_WG - 1) / TOPK_TILED_WG);
        d.groups[1] = vk_u32(lines);
        d.groups[2] = 1;
    } else {
        vk_groups_1d(vk_rec_caps(rec), pc.count, d.groups);
    }
    return vk_rec_dispatch(rec, &d, err);
}
