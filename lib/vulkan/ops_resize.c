/* Vulkan lowering of Resize and Upsample (resize.comp): up to 4 dims, nearest/linear/cubic,
 * every coordinate transform, antialiased downsampling up to RESIZE_GPU_TAPS taps per axis
 * and RESIZE_GPU_WORK taps per output element (wider filters run on the CPU). Source
 * coordinates are computed in double, as the CPU does, on devices with shaderFloat64 (and
 * the push-constant room for the double scales: resize_double), else in float. A nearest
 * Resize whose axes read whole-factor repeats or strides of the input (resize_as_strided:
 * the 2x Upsample of detectors) is a strided copy instead: on the H200 (2026-11-24) the
 * YOLOv8n-style model's two took 117.8 and 61.8 us of GPU time in resize.comp, 12.1 and 8.9
 * as copies. */
#include "ops/resize.h"
#include "vulkan/ops_movement.h"
#include "vulkan/vk_ops.h"

#include <stddef.h>
#include <string.h>

#define RESIZE_GPU_RANK 4
#define RESIZE_GPU_TAPS 16   /* resize.comp: MAX_TAPS */
#define RESIZE_GPU_WORK 4096 /* taps per output element (product over the axes) */

/* The geometry of the node from its constant inputs. */
static vkml_status geometry(const graph_value *values, const graph_node *node, resize_geometry *g,
                            vkml_error *err)
{
    const graph_value *x = &values[node->inputs[0]];
    resize_inputs ri;
    vkml_status st = resize_read_inputs(values, node, NULL, &ri, err);
    return st ? st : resize_resolve(node->params, x->rank, x->dims, &ri, g, err);
}

VKML_GPU_SUPPORTS_DECL(gpu_resize_supports)
{
    vkml_error err;
    resize_geometry g;
    if (geometry(values, node, &g, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
    if (g.rank > RESIZE_GPU_RANK || g.rank < 1)
        return vk_unsupported(why, why_size, "%s of rank %d: the Vulkan kernel takes 1 to %d",
                              node->op_type, g.rank, RESIZE_GPU_RANK);
    int64_t work = 1;
    for (int d = 0; d < g.rank; d++) {
        if (g.taps[d] > RESIZE_GPU_TAPS)
            return vk_unsupported(why, why_size,
                                  "%s: axis %d needs %d taps (antialiasing scale "
                                  "%g); the Vulkan kernel takes %d",
                                  node->op_type, d, g.taps[d], g.scale[d], RESIZE_GPU_TAPS);
        work *= g.taps[d];
    }
    if (work > RESIZE_GPU_WORK)
        return vk_unsupported(why, why_size,
                              "%s: %lld taps per output element; the Vulkan "
                              "kernel takes %d",
                              node->op_type, (long long)work, RESIZE_GPU_WORK);
    return vk_check_tensors(values, node, caps, true, why, why_size);
}

/* Whether output index x of axis d reads input x alone. */
static bool identity_axis(const resize_params *p, const resize_geometry *g, int d)
{
    return g->out[d] == g->in[d] && g->scale[d] == 1.0 &&
           (p->coord != RESIZE_TF_CROP_AND_RESIZE || (g->roi_start[d] == 0 && g->roi_end[d] == 1));
}

VKML_GPU_DECL(gpu_resize)
{
    const resize_params *p = node->params;
    resize_geometry g;
    vkml_status st = geometry(values, node, &g, err);
    if (st != VKML_OK)
        return st;
    mv_step copy;
    if (resize_as_strided(p, &g, &copy) && copy.rank <= VKML_MAX_RANK_PUSH)
        return vk_rec_move_step(rec, &copy, node->inputs[0], node->outputs[0],
                                vkml_dtype_size(values[node->inputs[0]].dtype), err);
    resize_push pc = {.mode = p->mode,
                      .coord = p->coord,
                      .nearest = p->nearest,
                      .flags = (p->exclude_outside ? 16u : 0u) | (p->antialias ? 32u : 0u),
                      .cubic_a = p->cubic_a,
                      .extrapolation = p->extrapolation};
    int lead = RESIZE_GPU_RANK - g.rank;
    for (int d = 0; d < RESIZE_GPU_RANK; d++) {
        int s = d - lead;
        bool pad = s < 0;
        pc.in_dims[d] = pad ? 1 : vk_u32(g.in[s]);
        pc.out_dims[d] = pad ? 1 : vk_u32(g.out[s]);
        double scale = pad ? 1.0 : g.scale[s];
        pc.scale[d] = (float)scale;
        memcpy(&pc.scale64[2 * d], &scale, sizeof(scale)); /* low word first (little-endian) */
        pc.out_exact[d] = pad ? 1.0f : (float)g.out_exact[s];
        pc.roi_start[d] = pad ? 0.0f : (float)g.roi_start[s];
        pc.roi_end[d] = pad ? 1.0f : (float)g.roi_end[s];
        pc.taps |= (pad ? 1u : (uint32_t)g.taps[s]) << (8 * d);
        if (pad || identity_axis(p, &g, s))
            pc.flags |= 1u << d;
    }
    /* The double kernel gets the whole block; the float one the bytes before scale64. */
    const struct gpu_caps *caps = vk_rec_caps(rec);
    bool coord_double = caps->float64 && vk_push_constant_bytes(caps) >= sizeof(pc);
    uint32_t push_bytes = coord_double ? sizeof(pc) : offsetof(resize_push, scale64);
    uint64_t count = vkml_tensor_element_count(g.rank, g.out);
    pc.count = (uint32_t)count;
    if (count == 0)
        return VKML_OK;
    int bind[] = {node->inputs[0], node->outputs[0]};
    return vk_rec_kernel_1d(rec, coord_double ? VK_KERNEL_RESIZE_DOUBLE : VK_KERNEL_RESIZE,
                            values[node->inputs[0]].dtype, bind, &pc, push_bytes, count, err);
}
