/* Vulkan lowering of ConvTranspose (convtranspose.comp): 1-D to 3-D, float and float16. */
#include "ops/convtranspose.h"
#include "vulkan/vk_ops.h"

#define CONVT_GPU_SPATIAL 3
/* Pads and sizes the kernel reads as int32. */
#define CONVT_GPU_MAX_EXTENT ((int64_t)1 << 30)

VKML_GPU_SUPPORTS_DECL(gpu_convtranspose_supports)
{
    vkml_error err;
    convtranspose_geometry g;
    if (convtranspose_resolve(values, node, &g, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
    if (g.spatial > CONVT_GPU_SPATIAL)
        return vk_unsupported(why, why_size,
                              "ConvTranspose with %d spatial dims: the Vulkan "
                              "kernel takes 1 to 3",
                              g.spatial);
    for (int d = 0; d < g.spatial; d++)
        if (g.pad_begin[d] > CONVT_GPU_MAX_EXTENT || g.pad_begin[d] < -CONVT_GPU_MAX_EXTENT ||
            g.kernel[d] * g.dilations[d] > CONVT_GPU_MAX_EXTENT ||
            g.in[d] * g.strides[d] > CONVT_GPU_MAX_EXTENT)
            return vk_unsupported(why, why_size,
                                  "ConvTranspose: pads, strides or dilations "
                                  "beyond the kernel's 32-bit arithmetic");
    return vk_check_tensors(values, node, caps, true, why, why_size);
}

VKML_GPU_DECL(gpu_convtranspose)
{
    convtranspose_geometry g;
    vkml_status st = convtranspose_resolve(values, node, &g, err);
    if (st != VKML_OK)
        return st;
    convtranspose_push pc = {
        .in_channels = vk_u32(g.in_channels),
        .out_channels = vk_u32(g.out_channels),
        .group_in = vk_u32(g.in_channels / g.group),
        .group_out = vk_u32(g.out_channels / g.group),
        .has_bias = g.has_bias,
    };
    int lead = CONVT_GPU_SPATIAL - g.spatial;
    uint64_t count = (uint64_t)(g.batch * g.out_channels);
    for (int d = 0; d < CONVT_GPU_SPATIAL; d++) {
        int s = d - lead;
        pc.in_dims[d] = s < 0 ? 1 : vk_u32(g.in[s]);
        pc.out_dims[d] = s < 0 ? 1 : vk_u32(g.out[s]);
        pc.kernel[d] = s < 0 ? 1 : vk_u32(g.kernel[s]);
        pc.stride[d] = s < 0 ? 1 : vk_u32(g.strides[s]);
        pc.dilation[d] = s < 0 ? 1 : vk_u32(g.dilations[s]);
        pc.pad_begin[d] = s < 0 ? 0 : (uint32_t)(int32_t)g.pad_begin[s];
        count *= pc.out_dims[d];
    }
    pc.count = (uint32_t)count;
    int w = node->inputs[1];
    /* Without bias, binding 2 gets W: never read, but every binding needs a buffer. */
    int bind[] = {node->inputs[0], w, g.has_bias ? node->inputs[2] : w, node->outputs[0]};
    return vk_rec_kernel_1d(rec, VK_KERNEL_CONVTRANSPOSE, values[node->inputs[0]].dtype, bind, &pc,
                            sizeof(pc), count, err);
}
