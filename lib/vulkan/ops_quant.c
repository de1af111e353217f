/* Vulkan lowerings of QuantizeLinear and DequantizeLinear (shaders/quant.comp): float x
 * and scale, the zero point and the quantized side of the variant's integer type. */
#include "ops/quant.h"
#include "vulkan/vk_ops.h"

static bool is_quantize(const graph_node *node)
{
    return node->op->id == OP_ID_QuantizeLinear;
}

VKML_GPU_SUPPORTS_DECL(gpu_quant_supports)
{
    vkml_error err;
    quant_layout l;
    if (quant_layout_parse(values, node, &l, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
    const graph_value *x = &values[node->inputs[0]], *s = &values[node->inputs[1]];
    const graph_value *f = is_quantize(node) ? x : &values[node->outputs[0]];
    if (f->dtype != VKML_DTYPE_FLOAT || s->dtype != VKML_DTYPE_FLOAT)
        return vk_unsupported(why, why_size,
                              "%s: the Vulkan kernel takes float values and scales, not %s "
                              "and %s", node->op_type, vkml_dtype_name(f->dtype),
                              vkml_dtype_name(s->dtype));
    return vk_check_tensors(values, node, caps, true, why, why_size);
}

static float int_limit(vkml_dtype t, bool high)
{
    switch (t) {
    case VKML_DTYPE_INT8: return high ? 127.0f : -128.0f;
    case VKML_DTYPE_UINT8: return high ? 255.0f : 0.0f;
    case VKML_DTYPE_INT16: return high ? 32767.0f : -32768.0f;
    case VKML_DTYPE_UINT16: return high ? 65535.0f : 0.0f;
    default: return 0.0f;
    }
}

VKML_GPU_DECL(gpu_quant)
{
    quant_layout l;
    vkml_status st = quant_layout_parse(values, node, &l, err);
    if (st != VKML_OK)
        return st;
    bool quantize = is_quantize(node);
    bool has_zero = node->n_inputs > 2 && node->inputs[2] >= 0;
    vkml_dtype t = quantize ? values[node->outputs[0]].dtype : values[node->inputs[0]].dtype;
    quant_push pc = {
        .count = vk_u32(l.count),
        .inner = vk_u32(l.inner),
        .axis_dim = vk_u32(l.axis_dim),
        .block = vk_u32(l.block),
        .outer_stride = vk_u32(l.outer_stride),
        .axis_stride = vk_u32(l.axis_stride),
        .inner_stride = vk_u32(l.inner_stride),
        .has_zero = has_zero,
        .lo = int_limit(t, false),
        .hi = int_limit(t, true),
    };
    /* Without a zero point, binding 2 gets the quantized tensor: never read. */
    int quantized = quantize ? node->outputs[0] : node->inputs[0];
    int bind[] = {node->inputs[0], node->inputs[1], has_zero ? node->inputs[2] : quantized,
                  node->outputs[0]};
    return vk_rec_kernel_1d(rec, quantize ? VK_KERNEL_QUANTIZE : VK_KERNEL_DEQUANTIZE, t, bind,
                            &pc, sizeof(pc), (uint64_t)l.count, err);
}
