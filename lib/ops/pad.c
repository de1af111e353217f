/* Ops of one MV_MAPPED step (movement.h): Pad (constant, reflect, edge, wrap) and Tile
 * (wrap from 0); and the element conversions the family shares. */
#include "ops/movement.h"
#include "ops/op_decls.h"

#include <math.h>
#include <string.h>

uint64_t mv_element_from_double(vkml_dtype dtype, double v)
{
    uint64_t bits = 0;
    switch (dtype) {
    case VKML_DTYPE_FLOAT: {
        float f = (float)v;
        memcpy(&bits, &f, 4);
        break;
    }
    case VKML_DTYPE_DOUBLE: memcpy(&bits, &v, 8); break;
    case VKML_DTYPE_FLOAT16: bits = vkml_half_from_float((float)v); break;
    case VKML_DTYPE_BFLOAT16: bits = vkml_bfloat16_from_float((float)v); break;
    case VKML_DTYPE_BOOL: bits = v != 0; break;
    default: {
        /* Integers: truncated, then the low bytes of two's complement. */
        double t = isnan(v) ? 0 : trunc(v);
        int64_t i = t >= 9.2e18 ? INT64_MAX : t <= -9.2e18 ? INT64_MIN : (int64_t)t;
        if (dtype == VKML_DTYPE_UINT64 && t >= 9.2e18)
            bits = t >= 1.8e19 ? UINT64_MAX : (uint64_t)t;
        else
            bits = (uint64_t)i;
        size_t size = vkml_dtype_size(dtype);
        if (size < 8)
            bits &= (1ull << (8 * size)) - 1;
    }
    }
    return bits;
}

double mv_element_to_double(vkml_dtype dtype, const void *p)
{
    switch (dtype) {
    case VKML_DTYPE_FLOAT: {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    case VKML_DTYPE_DOUBLE: {
        double d;
        memcpy(&d, p, 8);
        return d;
    }
    case VKML_DTYPE_FLOAT16: {
        uint16_t h;
        memcpy(&h, p, 2);
        return vkml_half_to_float(h);
    }
    case VKML_DTYPE_BFLOAT16: {
        uint16_t h;
        memcpy(&h, p, 2);
        return vkml_bfloat16_to_float(h);
    }
    case VKML_DTYPE_UINT64: {
        uint64_t u;
        memcpy(&u, p, 8);
        return (double)u;
    }
    default: return (double)mv_element_to_int(dtype, p);
    }
}

int64_t mv_element_to_int(vkml_dtype dtype, const void *p)
{
    switch (dtype) {
    case VKML_DTYPE_INT8: return *(const int8_t *)p;
    case VKML_DTYPE_UINT8:
    case VKML_DTYPE_BOOL: return *(const uint8_t *)p;
    case VKML_DTYPE_INT16: {
        int16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case VKML_DTYPE_UINT16: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case VKML_DTYPE_INT32: {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    case VKML_DTYPE_UINT32: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    case VKML_DTYPE_INT64:
    case VKML_DTYPE_UINT64: {
        int64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    default: {
        /* Not mv_element_to_double: for a type neither switch names (float8, the packed
         * types) the two would call each other without end. */
        double d = 0;
        if (!vkml_dtype_value(dtype, p, 0, &d))
            d = 0;
        return isnan(d) ? 0 : d >= 9.2e18 ? INT64_MAX : d <= -9.2e18 ? INT64_MIN : (int64_t)d;
    }
    }
}

/* Pad */

vkml_status pad_parse(const graph_node *node, void *params, vkml_error *err)
{
    pad_params *p = params;
    static const op_attr_spec specs[] = {
        {"mode", GRAPH_ATTR_STRING}, {"pads", GRAPH_ATTR_INTS}, {"value", GRAPH_ATTR_FLOAT}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    if (st)
        return st;
    static const char *modes[] = {"constant", "reflect", "edge", "wrap"};
    const char *mode = graph_attr_string(node, "mode", "constant");
    int m = 0;
    while (m < 4 && strcmp(mode, modes[m]) != 0)
        m++;
    if (m == 4 || (m == MV_MODE_WRAP && node->opset < 19))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Pad: mode '%s' is not supported at opset %d", mode, node->opset);
    p->mode = (mv_mode)m;
    p->pads.present = graph_node_attr(node, "pads") != NULL;
    p->pads.v = graph_attr_ints(node, "pads", &p->pads.n);
    if (node->opset < 11 && !p->pads.present)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Pad: attribute 'pads' is required");
    p->value = graph_attr_float(node, "value", 0.0f);
    return VKML_OK;
}

/* Pads before (begin) and after (end) each dim of the input. */
static vkml_status pad_amounts(const graph_value *values, const graph_node *node, int64_t *begin,
                               int64_t *end, vkml_error *err)
{
    const pad_params *p = node->params;
    const graph_value *x = &values[node->inputs[0]];
    int64_t pads[2 * VKML_MAX_RANK], axes[VKML_MAX_RANK];
    size_t n, n_axes = 0;
    bool has, has_axes = false;
    vkml_status st = mv_ints(values, node, 11, p->pads.v, p->pads.n, true, 1, pads,
                             2 * VKML_MAX_RANK, &n, &has, err);
    if (!st && node->opset >= 18)
        st = mv_ints(values, node, 18, NULL, 0, false, 3, axes, VKML_MAX_RANK, &n_axes, &has_axes,
                     err);
    if (st)
        return st;
    if (!has_axes)
        for (int d = 0; d < x->rank; d++)
            axes[n_axes++] = d;
    if (!has || n != 2 * n_axes)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Pad: %zu pads for %zu axes", n, n_axes);
    for (int d = 0; d < x->rank; d++)
        begin[d] = end[d] = 0;
    for (size_t i = 0; i < n_axes; i++) {
        int a = 0;
        if ((st = mv_axis(node, "axes value", axes[i], x->rank, &a, err)))
            return st;
        begin[a] = pads[i];
        end[a] = pads[i + n_axes];
        int64_t dim = x->dims[a];
        bool fits = begin[a] > -(INT64_MAX / 4) && begin[a] < INT64_MAX / 4 &&
                    end[a] > -(INT64_MAX / 4) && end[a] < INT64_MAX / 4 &&
                    dim + begin[a] + end[a] >= 0;
        if (!fits || (p->mode != MV_MODE_CONSTANT && dim == 0 && (begin[a] || end[a])))
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "Pad: pads %lld, %lld do not fit dimension %d of size %lld",
                             (long long)begin[a], (long long)end[a], a, (long long)dim);
    }
    return VKML_OK;
}

vkml_status pad_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    int64_t begin[VKML_MAX_RANK], end[VKML_MAX_RANK], dims[VKML_MAX_RANK];
    if ((st =
             op_require_counts(node, node->opset < 11 ? 1 : 2, node->opset < 11 ? 1 : 4, 1, err)) ||
        (st = op_require_data(values, node, 0, err)) ||
        (st = pad_amounts(values, node, begin, end, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]];
    const graph_value *v = graph_node_input(values, node, 2);
    if (node->opset >= 11 && v &&
        (v->dtype != x->dtype || vkml_tensor_element_count(v->rank, v->dims) != 1))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Pad: constant_value '%s' must be one %s",
                         v->name, vkml_dtype_name(x->dtype));
    for (int d = 0; d < x->rank; d++)
        dims[d] = x->dims[d] + begin[d] + end[d];
    op_set_output(values, node, 0, x->dtype, x->rank, dims);
    return VKML_OK;
}

vkml_status pad_describe(const graph_value *values, const graph_node *node, const void *const *in,
                         mv_step *s, vkml_error *err)
{
    const pad_params *p = node->params;
    const graph_value *x = &values[node->inputs[0]], *y = &values[node->outputs[0]];
    int64_t end[VKML_MAX_RANK];
    vkml_status st = pad_amounts(values, node, s->begin, end, err);
    s->kind = MV_MAPPED;
    s->mode = p->mode;
    s->rank = x->rank;
    memcpy(s->dims, y->dims, sizeof(s->dims));
    memcpy(s->src_dims, x->dims, sizeof(s->src_dims));
    const void *value = mv_input_data(values, node, in, 2);
    if (node->opset < 11)
        s->value = mv_element_from_double(x->dtype, p->value);
    else if (value)
        memcpy(&s->value, value, vkml_dtype_size(x->dtype));
    return st;
}

/* Tile */

vkml_status tile_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    int64_t repeats[VKML_MAX_RANK], dims[VKML_MAX_RANK];
    size_t n;
    if ((st = op_require_counts(node, 2, 2, 1, err)) ||
        (st = op_require_data(values, node, 0, err)) ||
        (st = op_const_ints(values, node, 1, repeats, VKML_MAX_RANK, &n, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]];
    if ((int)n != x->rank)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Tile: %zu repeats for rank %d", n,
                         x->rank);
    for (int d = 0; d < x->rank; d++) {
        if (repeats[d] < 0 || (x->dims[d] && repeats[d] > INT64_MAX / 4 / x->dims[d]))
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Tile: repeats %lld on dimension %d",
                             (long long)repeats[d], d);
        dims[d] = x->dims[d] * repeats[d];
    }
    op_set_output(values, node, 0, x->dtype, x->rank, dims);
    return VKML_OK;
}

vkml_status tile_describe(const graph_value *values, const graph_node *node, mv_step *s,
                          vkml_error *err)
{
    (void)err;
    const graph_value *x = &values[node->inputs[0]], *y = &values[node->outputs[0]];
    s->kind = MV_MAPPED;
    s->mode = MV_MODE_WRAP;
    s->rank = x->rank;
    memcpy(s->dims, y->dims, sizeof(s->dims));
    memcpy(s->src_dims, x->dims, sizeof(s->src_dims));
    return VKML_OK;
}
