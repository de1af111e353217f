/* Vulkan lowering of com.vkml.ImagePreprocess (preprocess.comp), one invocation per output
 * pixel; the CPU kernel (cpu/preprocess.c) is its reference. */
#include "ops/preprocess.h"
#include "vulkan/vk_ops.h"

VKML_GPU_SUPPORTS_DECL(gpu_image_preprocess_supports)
{
    const preprocess_params *p = node->params;
    const graph_value *x = &values[node->inputs[0]];
    if (!preprocess_frame_input_fits(p, x) ||
        (uint64_t)x->dims[x->rank - 1] < preprocess_input_bytes(&p->frame))
        return vk_unsupported(why, why_size,
                              "ImagePreprocess: the frame input '%s' is not "
                              "rounded up to 4 bytes; the Vulkan kernel reads words",
                              x->name);
    const graph_value *y = &values[node->outputs[0]];
    if (!vk_dtype_supported(caps, y->dtype))
        return vk_unsupported(why, why_size, "ImagePreprocess: the device has no %s storage",
                              vkml_dtype_name(y->dtype));
    return vk_check_tensors(values, node, caps, true, why, why_size);
}

VKML_GPU_DECL(gpu_image_preprocess)
{
    (void)values;
    const preprocess_params *p = node->params;
    const vkml_preprocess *f = &p->frame;
    preprocess_plan plan;
    preprocess_resolve(p, &plan);
    preprocess_yuv yuv = {0};
    uint32_t format = f->format == VKML_FRAME_PACKED_RGB ? 0u : 1u;
    if (preprocess_yuv_layout(f, &yuv))
        format = 2u | (yuv.semi_planar ? 4u : 0u) | yuv.sub_x << 3 | yuv.sub_y << 4 |
                 (yuv.sample_bytes == 2 ? 32u : 0u) | yuv.sample_shift << 8 | yuv.sample_bits << 12;
    preprocess_push pc = {
        .width = f->width,
        .height = f->height,
        .format = format,
        .sample_scale = yuv.sample_scale,
        .rgb_offsets = f->rgb_offsets[0] | f->rgb_offsets[1] << 8 | f->rgb_offsets[2] << 16 |
                       f->pixel_stride << 24,
        .out_width = (uint32_t)p->width,
        .out_height = (uint32_t)p->height,
        .channels = (uint32_t)p->channels,
        .flags = (p->layout == PREPROCESS_NHWC ? 1u : 0u) | (f->bgr ? 2u : 0u) |
                 (f->full_range ? 4u : 0u) | (f->matrix == VKML_YUV_BT709 ? 8u : 0u) |
                 (uint32_t)f->resize << 4,
        .box_x = (uint32_t)plan.box_x0 | (uint32_t)plan.box_x1 << 16,
        .box_y = (uint32_t)plan.box_y0 | (uint32_t)plan.box_y1 << 16,
        .inv_scale_x = plan.inv_scale_x,
        .inv_scale_y = plan.inv_scale_y,
        .offset_x = plan.offset_x,
        .offset_y = plan.offset_y,
        .pad_value = f->pad_value,
        .scale = f->scale,
    };
    for (int c = 0; c < 3; c++) {
        /* preprocess_check bounded each plane within the frame's 4 GiB */
        pc.plane_offsets[c] = (uint32_t)f->plane_offsets[c];
        pc.plane_strides[c] = f->plane_strides[c];
        pc.mean[c] = f->mean[c];
        pc.std[c] = f->std[c];
    }
    /* pixels of the whole batch; preprocess_check bounded it and the frames to 32 bits */
    uint64_t count =
        (uint64_t)p->height * (uint64_t)p->width * (uint64_t)(p->batch > 1 ? p->batch : 1);
    pc.count = (uint32_t)count;
    pc.frame_words = (uint32_t)(preprocess_input_bytes(f) / 4);
    if (node->n_inputs == 2) { /* the rectangle, read by the shader at run time */
        int bind[] = {node->inputs[0], node->inputs[1], node->outputs[0]};
        return vk_rec_kernel_1d(rec, VK_KERNEL_IMAGE_PREPROCESS_RECT, p->dtype, bind, &pc,
                                sizeof(pc), count, err);
    }
    int bind[] = {node->inputs[0], node->outputs[0]};
    return vk_rec_kernel_1d(rec, VK_KERNEL_IMAGE_PREPROCESS, p->dtype, bind, &pc, sizeof(pc), count,
                            err);
}
