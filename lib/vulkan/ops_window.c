#include "vulkan/ops_window.h"

uint64_t vk_window3_fill(const window_params *w, uint64_t outer, window3_push *pc)
{
    int lead = VK_WINDOW3_SPATIAL - w->spatial;
    uint64_t count = outer;
    for (int d = 0; d < VK_WINDOW3_SPATIAL; d++) {
        int s = d - lead;
        pc->in_dims[d] = s < 0 ? 1 : vk_u32(w->in[s]);
        pc->out_dims[d] = s < 0 ? 1 : vk_u32(w->out[s]);
        pc->kernel[d] = s < 0 ? 1 : vk_u32(w->kernel[s]);
        pc->stride[d] = s < 0 ? 1 : vk_u32(w->strides[s]);
        pc->dilation[d] = s < 0 ? 1 : vk_u32(w->dilations[s]);
        pc->pad_begin[d] = s < 0 ? 0 : vk_u32(w->pads_begin[s]);
        pc->pad_end[d] = s < 0 ? 0 : vk_u32(w->pads_end[s]);
        count *= pc->out_dims[d];
    }
    return count;
}

void vk_window_push_fill(const window_params *w, vk_window_push *out, uint32_t pad_end[2])
{
    /* Dimension index of H and W in the window (H absent for 1-D). */
    int h = w->spatial == 2 ? 0 : -1, x = w->spatial - 1;
    *out = (vk_window_push){
        .in_h = h < 0 ? 1 : vk_u32(w->in[h]),
        .in_w = vk_u32(w->in[x]),
        .out_h = h < 0 ? 1 : vk_u32(w->out[h]),
        .out_w = vk_u32(w->out[x]),
        .k_h = h < 0 ? 1 : vk_u32(w->kernel[h]),
        .k_w = vk_u32(w->kernel[x]),
        .stride_h = h < 0 ? 1 : vk_u32(w->strides[h]),
        .stride_w = vk_u32(w->strides[x]),
        .pad_h = h < 0 ? 0 : vk_u32(w->pads_begin[h]),
        .pad_w = vk_u32(w->pads_begin[x]),
        .dil_h = h < 0 ? 1 : vk_u32(w->dilations[h]),
        .dil_w = vk_u32(w->dilations[x]),
    };
    pad_end[0] = h < 0 ? 0 : vk_u32(w->pads_end[h]);
    pad_end[1] = vk_u32(w->pads_end[x]);
}

bool vk_window_supported(const window_params *w, const char *op, char *why, size_t why_size)
{
    if (w->spatial < 1 || w->spatial > 2)
        return vk_unsupported(why, why_size,
                              "%s with %d spatial dims: the Vulkan kernel "
                              "handles 1-D and 2-D",
                              op, w->spatial);
    return true;
}
