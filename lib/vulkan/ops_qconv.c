/* ConvInteger and QLinearConv on Vulkan, 1-D and 2-D, as implicit GEMMs on the integer
 * product kernels (shaders/qmatmul.comp and qmatmul_coop.comp with QCONV=1,
 * common/qprod.glsl): rows the output channels of a group, columns the output pixels of
 * every image, K the group's channels by the window's taps; a workgroup per block of rows
 * and columns of one group. X's and Y's zero points and scales are per tensor, constants
 * (ConvInteger's X zero point also at run time); the weights' zero points and scales per
 * tensor or per output channel, constants or at run time. */
#include "ops/quant.h"
#include "vulkan/ops_qprod.h"
#include "vulkan/ops_window.h"

#include <stddef.h>

static bool is_const_scalar(const graph_value *v)
{
    return !v || (v->data && vkml_tensor_element_count(v->rank, v->dims) == 1);
}

/* The product of a conv: rows the output channels of a group, columns the output pixels of
 * every image, K the group's channels by the window's taps; a batch a group. */
static vk_qprod qconv_product(const conv_params *c, bool qlinear)
{
    return (vk_qprod){.conv = true,
                      .qlinear = qlinear,
                      .m = c->out_channels / c->group,
                      .n = c->batch * window_out_size(&c->win),
                      .k = c->in_channels / c->group * window_kernel_size(&c->win),
                      .batches = c->group};
}

VKML_GPU_SUPPORTS_DECL(gpu_qconv_supports)
{
    vkml_error err;
    qprod_params p;
    if (qprod_params_parse(values, node, &p, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
    if (!vk_window_supported(&p.conv.win, node->op_type, why, why_size))
        return false;
    if (caps->max_bindings < VK_MAX_BINDINGS)
        return vk_unsupported(why, why_size,
                              "%s: the kernels bind %d buffers, the device allows %u",
                              node->op_type, VK_MAX_BINDINGS, caps->max_bindings);
    const qprod_inputs *in = p.in;
    vk_qprod q = qconv_product(&p.conv, in->y_scale >= 0);
    if (!vk_qprod_fits(caps, &q))
        return vk_unsupported(why, why_size, "%s: more blocks than the device's grid",
                              node->op_type);
    if (in->y_scale >= 0) {
        const int consts[] = {in->a_zero, in->y_zero, in->a_scale, in->y_scale};
        for (size_t i = 0; i < VKML_ARRAY_SIZE(consts); i++)
            if (!is_const_scalar(vk_qprod_input(values, node, consts[i])))
                return vk_unsupported(why, why_size,
                                      "QLinearConv with '%s' not a constant scalar: the Vulkan "
                                      "kernels take X's and Y's zero points and scales as "
                                      "constants",
                                      vk_qprod_input(values, node, consts[i])->name);
        const graph_value *ws = vk_qprod_input(values, node, in->b_scale);
        if (vk_qprod_vec_mode(ws) != 0 && ws->dtype != VKML_DTYPE_FLOAT)
            return vk_unsupported(why, why_size,
                                  "QLinearConv with %s weight scales per channel or at run time: "
                                  "the Vulkan kernels read float",
                                  vkml_dtype_name(ws->dtype));
        if (!caps->float64)
            return vk_unsupported(why, why_size,
                                  "QLinearConv requantizes in double: no shaderFloat64");
    }
    return vk_check_tensors(values, node, caps, true, why, why_size);
}

VKML_GPU_DECL(gpu_qconv)
{
    qprod_params p;
    vkml_status st = qprod_params_parse(values, node, &p, err);
    if (st != VKML_OK)
        return st;
    const qprod_inputs *in = p.in;
    const conv_params *c = &p.conv;
    bool qlinear = in->y_scale >= 0;
    const graph_value *xz = vk_qprod_input(values, node, in->a_zero);
    const graph_value *wz = vk_qprod_input(values, node, in->b_zero);
    qconv_push pc = {
        .count = vk_u32(p.y_count),
        .in_channels = vk_u32(c->in_channels),
        .out_channels = vk_u32(c->out_channels),
        .group_in_channels = vk_u32(c->in_channels / c->group),
        .group_out_channels = vk_u32(c->out_channels / c->group),
        .x_zero = vk_qprod_const_bits(xz),
        .w_zero = vk_qprod_const_bits(wz),
        .w_signed = vk_qprod_input(values, node, in->b)->dtype == VKML_DTYPE_INT8,
        .x_zero_in_buffer = !qlinear && !is_const_scalar(xz),
        .w_zero_in_buffer = vk_qprod_vec_mode(wz),
    };
    uint32_t pad_end[2];
    vk_window_push_fill(&c->win, &pc.win, pad_end);
    int x = node->inputs[in->a];
    /* bindings 2-4 that the variant does not read get X */
    int bind[] = {x,
                  node->inputs[in->b],
                  x,
                  x,
                  pc.w_zero_in_buffer ? node->inputs[in->b_zero] : x,
                  node->outputs[0]};
    if (qlinear) {
        const graph_value *xs = vk_qprod_input(values, node, in->a_scale);
        const graph_value *ws = vk_qprod_input(values, node, in->b_scale);
        pc.w_scale_in_buffer = vk_qprod_vec_mode(ws);
        pc.x_scale = (float)quant_const_at(xs, 0);
        pc.y_scale = (float)quant_const_at(vk_qprod_input(values, node, in->y_scale), 0);
        if (!pc.w_scale_in_buffer)
            pc.multiplier = (float)qprod_multiplier(xs->dtype, pc.x_scale,
                                                    (float)quant_const_at(ws, 0), pc.y_scale);
        else
            bind[3] = node->inputs[in->b_scale];
        pc.y_zero = vk_qprod_const_bits(vk_qprod_input(values, node, in->y_zero));
        pc.y_lo = p.y_dtype == VKML_DTYPE_INT8 ? -128.0f : 0.0f;
        pc.y_hi = p.y_dtype == VKML_DTYPE_INT8 ? 127.0f : 255.0f;
        pc.has_bias = c->has_bias;
        if (c->has_bias)
            bind[2] = node->inputs[in->bias];
    } else if (pc.x_zero_in_buffer) {
        bind[2] = node->inputs[in->a_zero];
    }
    vk_qprod q = qconv_product(c, qlinear);
    return vk_rec_qprod(rec, &q, values[x].dtype, bind, VKML_ARRAY_SIZE(bind), &pc, sizeof(pc),
                        offsetof(qconv_push, splits), err);
}
