/* Vulkan lowering of GridSample (gridsample.comp): 1-D to 3-D, float and float16. */
#include "ops/gridsample.h"
#include "vulkan/vk_ops.h"

#define GRIDSAMPLE_GPU_SPATIAL 3

VKML_GPU_SUPPORTS_DECL(gpu_gridsample_supports)
{
    const graph_value *x = &values[node->inputs[0]], *grid = &values[node->inputs[1]];
    if (x->rank - 2 > GRIDSAMPLE_GPU_SPATIAL)
        return vk_unsupported(why, why_size,
                              "GridSample with %d spatial dims: the Vulkan kernel "
                              "takes 1 to 3",
                              x->rank - 2);
    if (grid->dtype != x->dtype)
        return vk_unsupported(why, why_size, "GridSample: grid '%s' is %s, X %s", grid->name,
                              vkml_dtype_name(grid->dtype), vkml_dtype_name(x->dtype));
    return vk_check_tensors(values, node, caps, true, why, why_size);
}

VKML_GPU_DECL(gpu_gridsample)
{
    (void)err;
    const gridsample_params *p = node->params;
    const graph_value *x = &values[node->inputs[0]], *grid = &values[node->inputs[1]];
    int s = x->rank - 2, lead = GRIDSAMPLE_GPU_SPATIAL - s;
    gridsample_push pc = {.channels = vk_u32(x->dims[1]),
                          .spatial = (uint32_t)s,
                          .mode = p->mode,
                          .padding = p->padding,
                          .align_corners = p->align_corners};
    uint64_t count = (uint64_t)(x->dims[0] * x->dims[1]);
    for (int d = 0; d < GRIDSAMPLE_GPU_SPATIAL; d++) {
        pc.in_dims[d] = d < lead ? 1 : vk_u32(x->dims[2 + d - lead]);
        pc.out_dims[d] = d < lead ? 1 : vk_u32(grid->dims[1 + d - lead]);
        count *= pc.out_dims[d];
    }
    pc.count = (uint32_t)count;
    int bind[] = {node->inputs[0], node->inputs[1], node->outputs[0]};
    if (count == 0)
        return VKML_OK;
    return vk_rec_kernel_1d(rec, VK_KERNEL_GRIDSAMPLE, x->dtype, bind, &pc, sizeof(pc), count, err);
}
