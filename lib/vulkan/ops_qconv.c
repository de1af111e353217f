/* ConvInteger and QLinearConv on Vulkan (shaders/qconv2d.comp), 1-D and 2-D: zero points
 * and scales per tensor in the push block when constant; ConvInteger also takes X's zero
 * point at run time or W's per output channel through its one spare binding. */
#include "ops/quant.h"
#include "vulkan/ops_window.h"

#include <string.h>

static const graph_value *input_at(const graph_value *values, const graph_node *node, int i)
{
    return i >= 0 && i < node->n_inputs && node->inputs[i] >= 0 ? &values[node->inputs[i]] : NULL;
}

static bool is_const_scalar(const graph_value *v)
{
    return !v || (v->data && vkml_tensor_element_count(v->rank, v->dims) == 1);
}

/* The input bound at binding 2 of ConvInteger (-1: none), or false when two need it. */
static bool conv_integer_aux(const graph_value *values, const graph_node *node,
                             const qprod_params *p, int *aux, bool *is_x_zero, char *why,
                             size_t why_size)
{
    const graph_value *xz = input_at(values, node, p->in->a_zero);
    const graph_value *wz = input_at(values, node, p->in->b_zero);
    bool x_aux = !is_const_scalar(xz), w_aux = !is_const_scalar(wz);
    if (x_aux && w_aux)
        return vk_unsupported(why, why_size,
                              "ConvInteger with a run-time input zero point and a per-channel "
                              "or run-time weight zero point: the kernel takes one of them");
    *aux = x_aux ? node->inputs[p->in->a_zero] : w_aux ? node->inputs[p->in->b_zero] : -1;
    *is_x_zero = x_aux;
    return true;
}

VKML_GPU_SUPPORTS_DECL(gpu_qconv_supports)
{
    vkml_error err;
    qprod_params p;
    if (qprod_params_parse(values, node, &p, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
    if (!vk_window_supported(&p.conv.win, node->op_type, why, why_size))
        return false;
    const qprod_inputs *in = p.in;
    if (in->y_scale < 0) {
        int aux;
        bool is_x_zero;
        if (!conv_integer_aux(values, node, &p, &aux, &is_x_zero, why, why_size))
            return false;
    } else {
        const int consts[] = {in->a_zero,  in->b_zero,  in->y_zero,
                              in->a_scale, in->b_scale, in->y_scale};
        for (size_t i = 0; i < VKML_ARRAY_SIZE(consts); i++)
            if (!is_const_scalar(input_at(values, node, consts[i])))
                return vk_unsupported(why, why_size,
                                      "QLinearConv with '%s' not a constant scalar: the Vulkan "
                                      "kernel takes per-tensor constants",
                                      input_at(values, node, consts[i])->name);
        if (!caps->float64)
            return vk_unsupported(why, why_size,
                                  "QLinearConv requantizes in double: no "
                                  "shaderFloat64");
    }
    return vk_check_tensors(values, node, caps, true, why, why_size);
}

static uint32_t const_bits(const graph_value *v)
{
    return v && v->data ? (uint32_t)(int32_t)quant_const_at(v, 0) : 0;
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
    qconv_push pc = {
        .count = vk_u32(p.y_count),
        .in_channels = vk_u32(c->in_channels),
        .out_channels = vk_u32(c->out_channels),
        .group_in_channels = vk_u32(c->in_channels / c->group),
        .group_out_channels = vk_u32(c->out_channels / c->group),
        .x_zero = const_bits(input_at(values, node, in->a_zero)),
        .w_zero = const_bits(input_at(values, node, in->b_zero)),
        .w_signed = input_at(values, node, in->b)->dtype == VKML_DTYPE_INT8,
    };
    uint32_t pad_end[2];
    vk_window_push_fill(&c->win, &pc.win, pad_end);
    int x = node->inputs[in->a], aux = -1;
    if (qlinear) {
        const graph_value *sa = input_at(values, node, in->a_scale);
        pc.multiplier =
            (float)qprod_multiplier(sa->dtype, (float)quant_const_at(sa, 0),
                                    (float)quant_const_at(input_at(values, node, in->b_scale), 0),
                                    (float)quant_const_at(input_at(values, node, in->y_scale), 0));
        pc.y_zero = const_bits(input_at(values, node, in->y_zero));
        pc.y_lo = p.y_dtype == VKML_DTYPE_INT8 ? -128.0f : 0.0f;
        pc.y_hi = p.y_dtype == VKML_DTYPE_INT8 ? 127.0f : 255.0f;
        pc.has_bias = c->has_bias;
        aux = c->has_bias ? node->inputs[in->bias] : -1;
    } else {
        bool is_x_zero;
        char why[256];
        if (!conv_integer_aux(values, node, &p, &aux, &is_x_zero, why, sizeof(why)))
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s", why);
        pc.aux_is_x_zero = aux >= 0 && is_x_zero;
        pc.aux_is_w_zero = aux >= 0 && !is_x_zero ? (p.b_zero.len > 1 ? 2 : 1) : 0;
    }
    /* Without an aux input, binding 2 gets X: never read. */
    int bind[] = {x, node->inputs[in->b], aux >= 0 ? aux : x, node->outputs[0]};
    return vk_rec_kernel_1d(rec, qlinear ? VK_KERNEL_QLINEAR_CONV : VK_KERNEL_CONV_INTEGER,
                            values[x].dtype, bind, &pc, sizeof(pc), (uint64_t)p.y_count, err);
}
