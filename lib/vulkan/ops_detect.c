/* Vulkan lowering of RoiAlign (roialign.comp), float. NonMaxSuppression stays on the host:
 * its output's extent is the data's, so what follows it is the plan's dynamic tail. */
#include "ops/detect.h"
#include "vulkan/vk_ops.h"

VKML_GPU_SUPPORTS_DECL(gpu_roialign_supports)
{
    const roialign_params *p = node->params;
    const graph_value *x = &values[node->inputs[0]], *y = &values[node->outputs[0]];
    if (x->dims[0] > UINT32_MAX / 2)
        return vk_unsupported(why, why_size, "RoiAlign: %lld batches", (long long)x->dims[0]);
    double samples = (double)vkml_tensor_element_count(y->rank, y->dims) *
                     (double)(p->sampling_ratio * p->sampling_ratio);
    if (samples > (double)ROIALIGN_GPU_MAX_SAMPLES)
        return vk_unsupported(why, why_size,
                              "RoiAlign: %.3g bilinear samples in all (sampling_ratio %lld); "
                              "the CPU kernel sums a bin by pixel rows and columns",
                              samples, (long long)p->sampling_ratio);
    return vk_check_tensors(values, node, caps, true, why, why_size);
}

VKML_GPU_DECL(gpu_roialign)
{
    (void)err;
    const roialign_params *p = node->params;
    const graph_value *x = &values[node->inputs[0]], *y = &values[node->outputs[0]];
    uint64_t count = (uint64_t)vkml_tensor_element_count(y->rank, y->dims);
    roialign_push pc = {.count = (uint32_t)count,
                        .batches = vk_u32(x->dims[0]),
                        .channels = vk_u32(x->dims[1]),
                        .height = vk_u32(x->dims[2]),
                        .width = vk_u32(x->dims[3]),
                        .out_h = vk_u32(p->out_h),
                        .out_w = vk_u32(p->out_w),
                        .sampling_ratio = vk_u32(p->sampling_ratio),
                        .is_max = p->is_max,
                        .half_pixel = p->half_pixel,
                        .spatial_scale = p->spatial_scale};
    int bind[] = {node->inputs[0], node->inputs[1], node->inputs[2], node->outputs[0]};
    if (count == 0)
        return VKML_OK;
    return vk_rec_kernel_1d(rec, VK_KERNEL_ROIALIGN, x->dtype, bind, &pc, sizeof(pc), count, err);
}
