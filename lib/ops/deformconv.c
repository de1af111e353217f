/* DeformConv: attributes and shapes (ops/deformconv.h). */
#include "ops/deformconv.h"
#include "ops/op.h"
#include "ops/op_decls.h"

OP_PARSE_DECL(deformconv_parse)
{
    deformconv_attrs *a = params;
    static const op_attr_spec specs[] = {{"offset_group", GRAPH_ATTR_INT}};
    vkml_status st;
    if ((st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err)) ||
        (st = conv_parse(node, &a->conv, err)))
        return st;
    if (a->conv.win.auto_pad != WINDOW_NOTSET)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "DeformConv has no attribute auto_pad");
    a->offset_group = graph_attr_int(node, "offset_group", 1);
    if (a->offset_group < 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "DeformConv: offset_group %lld must be >= 1", (long long)a->offset_group);
    return VKML_OK;
}

/* Fails naming the input unless it is absent (optional) or [N, per_tap*taps, oH, oW]. */
static vkml_status check_tap_input(const graph_value *values, const graph_node *node, int i,
                                   const char *what, const conv_params *p, int64_t per_tap,
                                   vkml_error *err)
{
    if (i >= node->n_inputs || node->inputs[i] < 0)
        return VKML_OK;
    const deformconv_attrs *a = node->params;
    const graph_value *x = &values[node->inputs[DEFORM_IN_X]];
    vkml_status st = op_require_input(values, node, i, err);
    if (st)
        return st;
    const graph_value *v = &values[node->inputs[i]];
    int64_t want[4] = {p->batch, a->offset_group * per_tap * p->win.kernel[0] * p->win.kernel[1],
                       p->win.out[0], p->win.out[1]};
    bool ok = v->rank == 4 && v->dtype == x->dtype;
    for (int d = 0; ok && d < 4; d++)
        ok = v->dims[d] == want[d];
    char ws[160], hs[160];
    if (!ok)
        return vkml_fail(
            err, VKML_ERROR_INVALID_MODEL, "DeformConv: %s '%s' must be %s %s, not %s %s", what,
            v->name, vkml_dtype_name(x->dtype), graph_shape_string(4, want, ws, sizeof ws),
            vkml_dtype_name(v->dtype), graph_shape_string(v->rank, v->dims, hs, sizeof hs));
    return VKML_OK;
}

vkml_status deformconv_resolve(const graph_value *values, const graph_node *node, conv_params *p,
                               vkml_error *err)
{
    static const vkml_dtype floats[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16, VKML_DTYPE_DOUBLE};
    const deformconv_attrs *a = node->params;
    vkml_status st;
    if ((st = op_require_counts(node, 3, 5, 1, err)) ||
        (st = op_require_input(values, node, DEFORM_IN_X, err)) ||
        (st = op_require_input(values, node, DEFORM_IN_W, err)) ||
        (st = op_require_input(values, node, DEFORM_IN_OFFSET, err)) ||
        (st = op_require_dtype(values, node, DEFORM_IN_X, floats, VKML_ARRAY_SIZE(floats), err)))
        return st;
    const graph_value *x = &values[node->inputs[DEFORM_IN_X]],
                      *w = &values[node->inputs[DEFORM_IN_W]];
    bool has_bias = node->n_inputs > DEFORM_IN_B && node->inputs[DEFORM_IN_B] >= 0;
    const graph_value *b = has_bias ? &values[node->inputs[DEFORM_IN_B]] : NULL;
    if ((b && (st = op_require_input(values, node, DEFORM_IN_B, err))))
        return st;
    if (x->rank != 4)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "DeformConv: input '%s' of rank %d: only 2-D "
                         "images [N, C, H, W] are supported",
                         x->name, x->rank);
    if (w->dtype != x->dtype || (b && b->dtype != x->dtype))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "DeformConv: W and B must be of X's dtype %s", vkml_dtype_name(x->dtype));
    if ((st = conv_shape_parse(node, x, w, b, p, err)))
        return st;
    if (p->in_channels % a->offset_group)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "DeformConv: offset_group %lld does not divide the %lld input channels",
                         (long long)a->offset_group, (long long)p->in_channels);
    return check_tap_input(values, node, DEFORM_IN_OFFSET, "offset", p, 2, err)
               ?: check_tap_input(values, node, DEFORM_IN_MASK, "mask", p, 1, err);
}

vkml_status deformconv_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    conv_params p;
    vkml_status st = deformconv_resolve(values, node, &p, err);
    if (!st)
        conv_set_output(values, node, &p, values[node->inputs[0]].dtype);
    return st;
}
