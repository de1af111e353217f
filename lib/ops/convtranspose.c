#include "ops/convtranspose.h"
#include "ops/op.h"
#include "ops/op_decls.h"

#include <string.h>

/* Largest group or size accepted (attribute values: window_read_ints' limit): keeps every
 * size computation far from int64 overflow. */
#define CONVT_MAX_EXTENT ((int64_t)1 << 31)

OP_PARSE_DECL(convtranspose_parse)
{
    convtranspose_params *p = params;
    static const op_attr_spec specs[] = {{"group", GRAPH_ATTR_INT},
                                         {"auto_pad", GRAPH_ATTR_STRING}};
    vkml_status st;
    if ((st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err)) ||
        (st = window_read_ints(node, "kernel_shape", OP_MAX_SPATIAL, 1, p->kernel, &p->n_kernel,
                               err)) ||
        (st = window_read_ints(node, "strides", OP_MAX_SPATIAL, 1, p->strides, &p->n_strides,
                               err)) ||
        (st = window_read_ints(node, "dilations", OP_MAX_SPATIAL, 1, p->dilations, &p->n_dilations,
                               err)) ||
        (st = window_read_ints(node, "pads", 2 * OP_MAX_SPATIAL, 0, p->pads, &p->n_pads, err)) ||
        (st = window_read_ints(node, "output_padding", OP_MAX_SPATIAL, 0, p->output_padding,
                               &p->n_output_padding, err)) ||
        (st = window_read_ints(node, "output_shape", OP_MAX_SPATIAL + 2, 0, p->output_shape,
                               &p->n_output_shape, err)))
        return st;
    p->group = graph_attr_int(node, "group", 1);
    if (p->group < 1 || p->group > CONVT_MAX_EXTENT)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "ConvTranspose: group %lld is not valid",
                         (long long)p->group);
    static const char *const pads[] = {"NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"};
    const char *ap = graph_attr_string(node, "auto_pad", "NOTSET");
    for (int i = 0; i < 4; i++)
        if (strcmp(ap, pads[i]) == 0) {
            p->auto_pad = (convtranspose_auto_pad)i;
            return VKML_OK;
        }
    return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                     "ConvTranspose: attribute 'auto_pad' value '%s' is not valid", ap);
}

static vkml_status check_counts(const convtranspose_params *p, int s, vkml_error *err)
{
    const struct {
        const char *name;
        int count, want;
    } c[] = {{"kernel_shape", p->n_kernel, s},
             {"strides", p->n_strides, s},
             {"dilations", p->n_dilations, s},
             {"pads", p->n_pads, 2 * s},
             {"output_padding", p->n_output_padding, s}};
    for (size_t i = 0; i < VKML_ARRAY_SIZE(c); i++)
        if (c[i].count && c[i].count != c[i].want)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "ConvTranspose: attribute '%s' has %d values for %d spatial dims",
                             c[i].name, c[i].count, s);
    if (p->n_output_shape && p->n_output_shape != s && p->n_output_shape != s + 2)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "ConvTranspose: attribute 'output_shape' has %d values for %d spatial "
                         "dims",
                         p->n_output_shape, s);
    return VKML_OK;
}

static vkml_status check_inputs(const graph_value *values, const graph_node *node,
                                convtranspose_geometry *g, vkml_error *err)
{
    static const vkml_dtype dtypes[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16, VKML_DTYPE_DOUBLE};
    vkml_status st;
    if ((st = op_require_counts(node, 2, 3, 1, err)))
        return st;
    for (int i = 0; i < node->n_inputs; i++)
        if ((i < 2 || node->inputs[i] >= 0) &&
            ((st = op_require_input(values, node, i, err)) ||
             (st = op_require_dtype(values, node, i, dtypes, VKML_ARRAY_SIZE(dtypes), err))))
            return st;
    const graph_value *x = &values[node->inputs[0]], *w = &values[node->inputs[1]];
    if ((st = window_check_input(x, "ConvTranspose", err)))
        return st;
    if (w->rank != x->rank || w->dtype != x->dtype)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "ConvTranspose: weight '%s' must have the rank and type of '%s'", w->name,
                         x->name);
    const convtranspose_params *p = node->params;
    g->spatial = x->rank - 2;
    g->batch = x->dims[0];
    g->in_channels = x->dims[1];
    g->group = p->group;
    g->out_channels = w->dims[1] * p->group;
    if (w->dims[0] != g->in_channels || g->in_channels % p->group)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "ConvTranspose: weight '%s' has %lld input channels, '%s' %lld "
                         "(group %lld)",
                         w->name, (long long)w->dims[0], x->name, (long long)g->in_channels,
                         (long long)p->group);
    g->has_bias = node->n_inputs > 2 && node->inputs[2] >= 0;
    const graph_value *b = g->has_bias ? &values[node->inputs[2]] : NULL;
    if (b && (b->rank != 1 || b->dims[0] != g->out_channels))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "ConvTranspose: bias '%s' must have shape [%lld]", b->name,
                         (long long)g->out_channels);
    return check_counts(p, g->spatial, err);
}

vkml_status convtranspose_resolve(const graph_value *values, const graph_node *node,
                                  convtranspose_geometry *g, vkml_error *err)
{
    const convtranspose_params *p = node->params;
    memset(g, 0, sizeof(*g));
    vkml_status st = check_inputs(values, node, g, err);
    if (st)
        return st;
    const graph_value *x = &values[node->inputs[0]], *w = &values[node->inputs[1]];
    int s = g->spatial;
    bool same = p->auto_pad == CONVT_SAME_UPPER || p->auto_pad == CONVT_SAME_LOWER;
    const int64_t *oshape = p->output_shape + (p->n_output_shape == s + 2 ? 2 : 0);
    for (int d = 0; d < s; d++) {
        g->in[d] = x->dims[2 + d];
        g->kernel[d] = w->dims[2 + d];
        if (p->n_kernel && p->kernel[d] != g->kernel[d])
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "ConvTranspose: attribute 'kernel_shape' does not match the weight");
        g->strides[d] = p->n_strides ? p->strides[d] : 1;
        g->dilations[d] = p->n_dilations ? p->dilations[d] : 1;
        int64_t adj = p->n_output_padding ? p->output_padding[d] : 0;
        int64_t full =
            g->strides[d] * (g->in[d] - 1) + adj + (g->kernel[d] - 1) * g->dilations[d] + 1;
        if (same && !p->n_pads) {
            g->out[d] = p->n_output_shape ? oshape[d] : g->in[d] * g->strides[d];
            int64_t total = full - g->out[d];
            int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2); /* floor division */
            g->pad_begin[d] = p->auto_pad == CONVT_SAME_UPPER ? half : total - half;
        } else {
            bool explicit_pads = p->n_pads && p->auto_pad != CONVT_VALID;
            g->pad_begin[d] = explicit_pads ? p->pads[d] : 0;
            int64_t pad_end = explicit_pads ? p->pads[s + d] : 0;
            g->out[d] = p->n_output_shape ? oshape[d] : full - g->pad_begin[d] - pad_end;
        }
        if (g->out[d] < 1 || g->out[d] > CONVT_MAX_EXTENT || g->in[d] > CONVT_MAX_EXTENT)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "ConvTranspose: output size %lld of spatial dim %d is not valid",
                             (long long)g->out[d], d);
    }
    return VKML_OK;
}

vkml_status convtranspose_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    convtranspose_geometry g;
    vkml_status st = convtranspose_resolve(values, node, &g, err);
    if (st)
        return st;
    int64_t dims[VKML_MAX_RANK] = {g.batch, g.out_channels};
    memcpy(dims + 2, g.out, sizeof(int64_t) * (size_t)g.spatial);
    op_set_output(values, node, 0, values[node->inputs[0]].dtype, g.spatial + 2, dims);
    return VKML_OK;
}
