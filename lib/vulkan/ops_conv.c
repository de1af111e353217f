/* Vulkan lowering of Conv (1-D and 2-D, groups, strides, pads, dilations, bias). */
#include "ops/conv.h"
#include "vulkan/ops_window.h"

/* Output channels per group from which the implicit-GEMM kernel (conv2d_gemm.comp, 16x16
 * tiles over channels x pixels) beats the direct one; below it (depthwise, few channels)
 * most of a tile would be idle. */
#define CONV_GEMM_MIN_CHANNELS 8
#define CONV_GEMM_TILE 16

typedef struct conv_push {
    vk_window_push win;
    uint32_t count;
    uint32_t in_channels, out_channels;
    uint32_t group_in_channels, group_out_channels;
    uint32_t has_bias;
} conv_push;

/* Workgroups of conv2d_gemm.comp, or false when the shape suits the direct kernel better
 * or exceeds the device's workgroup counts. */
static bool gemm_groups(const conv_params *p, const struct gpu_caps *caps, uint32_t groups[3])
{
    int64_t channels = p->out_channels / p->group;
    int64_t cols = p->batch * window_out_size(&p->win);
    int64_t gx = (cols + CONV_GEMM_TILE - 1) / CONV_GEMM_TILE;
    int64_t gy = (channels + CONV_GEMM_TILE - 1) / CONV_GEMM_TILE;
    if (!caps->prefer_tiled || channels < CONV_GEMM_MIN_CHANNELS ||
        gx > caps->max_workgroup_count[0] || gy > caps->max_workgroup_count[1] ||
        p->group > caps->max_workgroup_count[2])
        return false;
    groups[0] = vk_u32(gx);
    groups[1] = vk_u32(gy);
    groups[2] = vk_u32(p->group);
    return true;
}

VKML_GPU_SUPPORTS_DECL(gpu_conv_supports)
{
    vkml_error err;
    conv_params p;
    if (conv_params_parse(values, node, &p, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
    if (!vk_window_supported(&p.win, "Conv", why, why_size))
        return false;
    return vk_check_tensors(values, node, caps, false, why, why_size);
}

VKML_GPU_DECL(gpu_conv)
{
    conv_params p;
    vkml_status st = conv_params_parse(values, node, &p, err);
    if (st != VKML_OK)
        return st;
    uint32_t pad_end[2];
    conv_push pc = {
        .in_channels = vk_u32(p.in_channels),
        .out_channels = vk_u32(p.out_channels),
        .group_in_channels = vk_u32(p.in_channels / p.group),
        .group_out_channels = vk_u32(p.out_channels / p.group),
        .has_bias = p.has_bias,
    };
    vk_window_push_fill(&p.win, &pc.win, pad_end);
    int64_t count = p.batch * p.out_channels * window_out_size(&p.win);
    pc.count = vk_u32(count);
    int w = node->inputs[1];
    /* Without bias, binding 2 gets W: never read, but every binding needs a buffer. */
    int bind[] = {node->inputs[0], w, p.has_bias ? node->inputs[2] : w, node->outputs[0]};
    uint32_t groups[3];
    if (gemm_groups(&p, vk_rec_caps(rec), groups))
        return vk_rec_kernel(rec, VK_KERNEL_CONV2D_GEMM, VKML_DTYPE_FLOAT, bind, &pc, sizeof(pc), groups, err);
    return vk_rec_kernel_1d(rec, VK_KERNEL_CONV2D, VKML_DTYPE_FLOAT, bind, &pc, sizeof(pc), (uint64_t)count, err);
}
