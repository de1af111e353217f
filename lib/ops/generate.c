/* Ops that generate their output more than they move it: Shape, Size, ConstantOfShape,
 * Trilu, EyeLike (movement steps, see movement.h), and Range, OneHot, NonZero, Compress
 * (their own CPU kernels). Output shapes that follow input data: Range and OneHot need the
 * inputs that set them constant; NonZero and Compress are OP_DATA_DEPENDENT (a bound from
 * the shape function, the extent from the kernel). */
#include "ops/movement.h"
#include "ops/op_decls.h"

#include <math.h>
#include <string.h>

/* Shape, Size */

vkml_status shape_parse(const graph_node *node, void *params, vkml_error *err)
{
    shape_params *p = params;
    static const op_attr_spec specs[] = {{"start", GRAPH_ATTR_INT}, {"end", GRAPH_ATTR_INT}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    bool sliced = node->opset >= 15;
    p->start = sliced ? graph_attr_int(node, "start", 0) : 0;
    p->end = sliced ? graph_attr_int(node, "end", INT64_MAX) : INT64_MAX;
    return st;
}

static int64_t shape_clamp(int64_t v, int rank)
{
    if (v < 0)
        v += rank;
    return v < 0 ? 0 : v > rank ? rank : v;
}

vkml_status shape_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    if ((st = op_require_counts(node, 1, 1, 1, err)) ||
        (st = op_require_input(values, node, 0, err)))
        return st;
    const shape_params *p = node->params;
    int rank = values[node->inputs[0]].rank;
    int64_t start = shape_clamp(p->start, rank), end = shape_clamp(p->end, rank);
    int64_t n = end > start ? end - start : 0;
    op_set_output(values, node, 0, VKML_DTYPE_INT64, 1, &n);
    return VKML_OK;
}

vkml_status size_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    if ((st = op_require_counts(node, 1, 1, 1, err)) ||
        (st = op_require_input(values, node, 0, err)))
        return st;
    op_set_output(values, node, 0, VKML_DTYPE_INT64, 0, NULL);
    return VKML_OK;
}

/* ConstantOfShape */

vkml_status constant_of_shape_parse(const graph_node *node, void *params, vkml_error *err)
{
    constant_of_shape_params *p = params;
    static const op_attr_spec specs[] = {{"value", GRAPH_ATTR_TENSOR}};
    vkml_status st = op_check_attr_types(node, specs, 1, err);
    const graph_attr *a = graph_node_attr(node, "value");
    p->dtype = VKML_DTYPE_FLOAT;
    if (st || !a)
        return st;
    const graph_tensor *t = a->tensor;
    size_t size = t ? vkml_dtype_size(t->dtype) : 0;
    if (!t || size == 0 || size > 8 || !t->data || t->size < size ||
        vkml_tensor_element_count(t->rank, t->dims) != 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "ConstantOfShape: 'value' must be one element of a numeric type");
    p->dtype = t->dtype;
    memcpy(&p->value, t->data, size);
    return VKML_OK;
}

vkml_status constant_of_shape_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    int64_t dims[VKML_MAX_RANK];
    size_t n;
    if ((st = op_require_counts(node, 1, 1, 1, err)) ||
        (st = op_const_ints(values, node, 0, dims, VKML_MAX_RANK, &n, err)))
        return st;
    for (size_t d = 0; d < n; d++)
        if (dims[d] < 0)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "ConstantOfShape: dimension %lld",
                             (long long)dims[d]);
    op_set_output(values, node, 0, ((const constant_of_shape_params *)node->params)->dtype, (int)n,
                  dims);
    return VKML_OK;
}

/* A map from an empty source: every element is the value. */
vkml_status constant_of_shape_describe(const graph_value *values, const graph_node *node,
                                       mv_step *s, vkml_error *err)
{
    (void)err;
    const graph_value *y = &values[node->outputs[0]];
    s->kind = MV_MAPPED;
    s->mode = MV_MODE_CONSTANT;
    s->rank = 1;
    s->dims[0] = (int64_t)vkml_tensor_element_count(y->rank, y->dims);
    s->src_dims[0] = 0;
    s->value = ((const constant_of_shape_params *)node->params)->value;
    return VKML_OK;
}

/* Trilu, EyeLike */

vkml_status trilu_parse(const graph_node *node, void *params, vkml_error *err)
{
    static const op_attr_spec specs[] = {{"upper", GRAPH_ATTR_INT}};
    ((trilu_params *)params)->upper = graph_attr_int(node, "upper", 1) != 0;
    return op_check_attr_types(node, specs, 1, err);
}

vkml_status trilu_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    if ((st = op_require_counts(node, 1, 2, 1, err)) ||
        (st = op_require_input(values, node, 0, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]], *k = graph_node_input(values, node, 1);
    if (x->rank < 2 || vkml_dtype_size(x->dtype) == 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Trilu: input '%s' must have rank >= 2",
                         x->name);
    if (k && (k->dtype != VKML_DTYPE_INT64 || vkml_tensor_element_count(k->rank, k->dims) != 1))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Trilu: k must be one int64");
    op_set_output(values, node, 0, x->dtype, x->rank, x->dims);
    return VKML_OK;
}

static void band_shape(const graph_value *y, mv_step *s)
{
    s->kind = MV_BAND;
    s->rank = 3;
    s->dims[0] = (int64_t)vkml_tensor_element_count(y->rank - 2, y->dims);
    s->dims[1] = y->dims[y->rank - 2];
    s->dims[2] = y->dims[y->rank - 1];
}

vkml_status trilu_describe(const graph_value *values, const graph_node *node, const void *const *in,
                           mv_step *s, vkml_error *err)
{
    (void)err;
    int64_t k = 0;
    const void *kd = mv_input_data(values, node, in, 1);
    if (kd)
        memcpy(&k, kd, sizeof(k));
    band_shape(&values[node->outputs[0]], s);
    bool upper = ((const trilu_params *)node->params)->upper;
    s->band_lo = upper ? k : INT64_MIN;
    s->band_hi = upper ? INT64_MAX : k;
    s->band_from_src = true;
    return VKML_OK;
}

vkml_status eye_like_parse(const graph_node *node, void *params, vkml_error *err)
{
    eye_like_params *p = params;
    static const op_attr_spec specs[] = {{"dtype", GRAPH_ATTR_INT}, {"k", GRAPH_ATTR_INT}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    int64_t dtype = graph_attr_int(node, "dtype", 0);
    p->k = graph_attr_int(node, "k", 0);
    if (!st && (dtype < 0 || dtype > VKML_DTYPE_BFLOAT16 ||
                (dtype && vkml_dtype_size((vkml_dtype)dtype) == 0)))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "EyeLike: dtype %lld is not supported",
                         (long long)dtype);
    p->dtype = (vkml_dtype)dtype;
    return st;
}

vkml_status eye_like_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    if ((st = op_require_counts(node, 1, 1, 1, err)) ||
        (st = op_require_input(values, node, 0, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]];
    const eye_like_params *p = node->params;
    if (x->rank != 2)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "EyeLike: input '%s' must have rank 2",
                         x->name);
    op_set_output(values, node, 0, p->dtype ? p->dtype : x->dtype, 2, x->dims);
    return VKML_OK;
}

vkml_status eye_like_describe(const graph_value *values, const graph_node *node, mv_step *s,
                              vkml_error *err)
{
    (void)err;
    const graph_value *y = &values[node->outputs[0]];
    band_shape(y, s);
    s->band_lo = s->band_hi = ((const eye_like_params *)node->params)->k;
    s->band_value = mv_element_from_double(y->dtype, 1.0);
    return VKML_OK;
}

/* Range */

/* Output elements: ceil((limit - start) / delta), at least 0. */
static vkml_status range_count(const graph_value *values, const graph_node *node, int64_t *count,
                               vkml_error *err)
{
    const void *d[3];
    for (int i = 0; i < 3; i++) {
        const graph_value *v = &values[node->inputs[i]];
        if (v->dtype != values[node->inputs[0]].dtype ||
            vkml_tensor_element_count(v->rank, v->dims) != 1)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "Range: start, limit and delta must be scalars of one type");
        if (!(d[i] = v->data))
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                             "Range: the output size depends on input %d: '%s' must be a constant",
                             i, v->name);
    }
    vkml_dtype t = values[node->inputs[0]].dtype;
    double start = mv_element_to_double(t, d[0]), limit = mv_element_to_double(t, d[1]),
           delta = mv_element_to_double(t, d[2]);
    double n = ceil((limit - start) / delta);
    if (delta == 0 || isnan(n) || n > (double)INT32_MAX)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Range: start %g, limit %g, delta %g give no valid size", start, limit,
                         delta);
    *count = n > 0 ? (int64_t)n : 0;
    return VKML_OK;
}

vkml_status range_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    int64_t count;
    if ((st = op_require_counts(node, 3, 3, 1, err)))
        return st;
    for (int i = 0; i < 3; i++)
        if ((st = op_require_input(values, node, i, err)))
            return st;
    vkml_dtype t = values[node->inputs[0]].dtype;
    if (t == VKML_DTYPE_BOOL || vkml_dtype_size(t) == 0)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "Range: dtype %s is not supported",
                         vkml_dtype_name(t));
    if ((st = range_count(values, node, &count, err)))
        return st;
    op_set_output(values, node, 0, t, 1, &count);
    return VKML_OK;
}

/* OneHot */

vkml_status onehot_parse(const graph_node *node, void *params, vkml_error *err)
{
    static const op_attr_spec specs[] = {{"axis", GRAPH_ATTR_INT}};
    ((axis_params *)params)->axis = graph_attr_int(node, "axis", -1);
    return op_check_attr_types(node, specs, 1, err);
}

vkml_status onehot_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    if ((st = op_require_counts(node, 3, 3, 1, err)))
        return st;
    for (int i = 0; i < 3; i++)
        if ((st = op_require_input(values, node, i, err)))
            return st;
    const graph_value *x = &values[node->inputs[0]], *depth = &values[node->inputs[1]],
                      *v = &values[node->inputs[2]];
    if (vkml_tensor_element_count(depth->rank, depth->dims) != 1 ||
        vkml_tensor_element_count(v->rank, v->dims) != 2 || vkml_dtype_size(v->dtype) == 0 ||
        vkml_dtype_size(x->dtype) == 0 || vkml_dtype_size(depth->dtype) == 0 ||
        x->rank >= VKML_MAX_RANK)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "OneHot: depth must be one number and values two, on indices of rank < %d",
                         VKML_MAX_RANK);
    if (!depth->data)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "OneHot: the output size depends on depth: '%s' must be a constant",
                         depth->name);
    int64_t n = mv_element_to_int(depth->dtype, depth->data);
    if (n <= 0 || n > INT32_MAX)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "OneHot: depth %lld is out of range",
                         (long long)n);
    int axis;
    if ((st = mv_axis(node, "axis", ((const axis_params *)node->params)->axis, x->rank + 1, &axis,
                      err)))
        return st;
    int64_t dims[VKML_MAX_RANK];
    for (int d = 0, src = 0; d <= x->rank; d++)
        dims[d] = d == axis ? n : x->dims[src++];
    op_set_output(values, node, 0, v->dtype, x->rank + 1, dims);
    return VKML_OK;
}

/* NonZero, Compress */

/* The extent is the number of nonzeros: the bound is every element. */
vkml_status nonzero_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    if ((st = op_require_counts(node, 1, 1, 1, err)) ||
        (st = op_require_input(values, node, 0, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]];
    if (vkml_dtype_size(x->dtype) == 0)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "NonZero: dtype %s is not supported",
                         vkml_dtype_name(x->dtype));
    int64_t dims[2] = {x->rank, (int64_t)vkml_tensor_element_count(x->rank, x->dims)};
    op_set_output(values, node, 0, VKML_DTYPE_INT64, 2, dims);
    graph_node_output(values, node, 0)->data_dependent = true;
    return VKML_OK;
}

vkml_status compress_parse(const graph_node *node, void *params, vkml_error *err)
{
    compress_params *p = params;
    static const op_attr_spec specs[] = {{"axis", GRAPH_ATTR_INT}};
    p->has_axis = graph_node_attr(node, "axis") != NULL;
    p->axis = graph_attr_int(node, "axis", 0);
    return op_check_attr_types(node, specs, 1, err);
}

vkml_status compress_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    if ((st = op_require_counts(node, 2, 2, 1, err)) ||
        (st = op_require_input(values, node, 0, err)) ||
        (st = op_require_input(values, node, 1, err)))
        return st;
    const compress_params *p = node->params;
    const graph_value *x = &values[node->inputs[0]], *c = &values[node->inputs[1]];
    int axis = 0;
    if (p->has_axis && (st = mv_axis(node, "axis", p->axis, x->rank, &axis, err)))
        return st;
    int64_t dims[VKML_MAX_RANK];
    int rank = p->has_axis ? x->rank : 1;
    memcpy(dims, x->dims, sizeof(dims));
    if (!p->has_axis)
        dims[0] = (int64_t)vkml_tensor_element_count(x->rank, x->dims);
    size_t n = vkml_tensor_element_count(c->rank, c->dims);
    if (c->dtype != VKML_DTYPE_BOOL || c->rank != 1 || (int64_t)n > dims[axis] ||
        vkml_dtype_size(x->dtype) == 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Compress: condition '%s' must be bool, 1-D, at most %lld long", c->name,
                         (long long)dims[axis]);
    /* The extent is the count of true conditions: at most the condition's length. */
    dims[axis] = (int64_t)n;
    op_set_output(values, node, 0, x->dtype, rank, dims);
    graph_node_output(values, node, 0)->data_dependent = true;
    return VKML_OK;
}
