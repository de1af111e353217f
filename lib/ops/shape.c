/* Constant, Identity, Flatten, Reshape: ops that only set shapes (their kernels copy bytes
 * or alias them). A constant input's data is passed on to the output so later shape
 * functions and constant folding see it. */
#include "ops/movement.h"
#include "ops/op_decls.h"

#include <string.h>

/* Output 0 gets input 0's dtype, the given shape, and its data when it is constant. */
void shape_set_alias_output(graph_value *values, const graph_node *node, int rank,
                            const int64_t *dims)
{
    const graph_value *x = &values[node->inputs[0]];
    op_set_output(values, node, 0, x->dtype, rank, dims);
    graph_value *y = graph_node_output(values, node, 0);
    y->data = x->data;
    y->data_size = x->data ? x->data_size : 0;
}

vkml_status identity_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    if ((st = op_require_counts(node, 1, 1, 1, err)) ||
        (st = op_require_data(values, node, 0, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]];
    shape_set_alias_output(values, node, x->rank, x->dims);
    return VKML_OK;
}

vkml_status flatten_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    if ((st = op_require_counts(node, 1, 1, 1, err)) ||
        (st = op_require_data(values, node, 0, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]];
    static const op_attr_spec specs[] = {{"axis", GRAPH_ATTR_INT}};
    if ((st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err)))
        return st;
    int64_t axis = graph_attr_int(node, "axis", 1);
    /* Negative axes from opset 11. */
    int64_t lo = node->opset >= 11 ? -x->rank : 0;
    if (axis < lo || axis > x->rank)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "attribute 'axis' %lld is out of range for rank %d", (long long)axis,
                         x->rank);
    if (axis < 0)
        axis += x->rank;
    int64_t dims[2] = {1, 1};
    for (int d = 0; d < x->rank; d++)
        dims[d < axis ? 0 : 1] *= x->dims[d];
    shape_set_alias_output(values, node, 2, dims);
    return VKML_OK;
}

/* Resolves Reshape's requested shape: 0 copies the input dim (unless allowzero), one -1
 * takes what is left. */
static vkml_status reshape_resolve(const graph_value *x, int64_t *shape, size_t rank,
                                   bool allowzero, vkml_error *err)
{
    char sx[160], ss[160];
    int infer_at = -1;
    size_t known = 1;
    for (size_t d = 0; d < rank; d++) {
        if (shape[d] == 0 && !allowzero) {
            if ((int)d >= x->rank)
                return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                                 "shape value 0 at index %zu "
                                 "has no input dimension to copy",
                                 d);
            shape[d] = x->dims[d];
        }
        if (shape[d] == -1) {
            if (infer_at >= 0)
                return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "shape has more than one -1");
            infer_at = (int)d;
        } else if (shape[d] < 0) {
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "shape value %lld is invalid",
                             (long long)shape[d]);
        } else {
            known *= (size_t)shape[d];
        }
    }
    size_t total = vkml_tensor_element_count(x->rank, x->dims);
    if (infer_at >= 0 && known != 0 && total % known == 0)
        shape[infer_at] = (int64_t)(total / known);
    if ((infer_at >= 0 && (known == 0 || total % known != 0)) || (infer_at < 0 && known != total))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "cannot reshape '%s' %s (%zu elements) to %s", x->name,
                         graph_shape_string(x->rank, x->dims, sx, sizeof(sx)), total,
                         graph_shape_string((int)rank, shape, ss, sizeof(ss)));
    return VKML_OK;
}

vkml_status reshape_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    int64_t shape[VKML_MAX_RANK];
    size_t rank;
    if ((st = op_require_counts(node, 2, 2, 1, err)) ||
        (st = op_require_data(values, node, 0, err)) ||
        (st = op_const_ints(values, node, 1, shape, VKML_MAX_RANK, &rank, err)))
        return st;
    static const op_attr_spec specs[] = {{"allowzero", GRAPH_ATTR_INT}};
    if ((st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err)))
        return st;
    bool allowzero = node->opset >= 14 && graph_attr_int(node, "allowzero", 0) != 0;
    if (allowzero) {
        for (size_t d = 0; d < rank; d++)
            for (size_t e = 0; e < rank; e++)
                if (shape[d] == 0 && shape[e] == -1)
                    return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                                     "shape has both 0 and -1 with allowzero=1");
    }
    if ((st = reshape_resolve(&values[node->inputs[0]], shape, rank, allowzero, err)))
        return st;
    shape_set_alias_output(values, node, (int)rank, shape);
    return VKML_OK;
}

/* value_float(s)/value_int(s): the data is the attribute's own storage (graph arena). */
static void constant_from_attr(const graph_attr *a, vkml_dtype *dtype, int *rank, int64_t *dims,
                               const void **data, size_t *size)
{
    bool is_float = a->type == GRAPH_ATTR_FLOAT || a->type == GRAPH_ATTR_FLOATS;
    bool scalar = a->type == GRAPH_ATTR_FLOAT || a->type == GRAPH_ATTR_INT;
    *dtype = is_float ? VKML_DTYPE_FLOAT : VKML_DTYPE_INT64;
    *rank = scalar ? 0 : 1;
    dims[0] = (int64_t)a->count;
    if (scalar)
        *data = is_float ? (const void *)&a->f : (const void *)&a->i;
    else
        *data = is_float ? (const void *)a->floats : (const void *)a->ints;
    *size = (scalar ? 1 : a->count) * vkml_dtype_size(*dtype);
}

static const struct {
    const char *name;
    graph_attr_type type;
} constant_attrs[] = {
    {"value", GRAPH_ATTR_TENSOR},        {"value_float", GRAPH_ATTR_FLOAT},
    {"value_floats", GRAPH_ATTR_FLOATS}, {"value_int", GRAPH_ATTR_INT},
    {"value_ints", GRAPH_ATTR_INTS},
};

/* The one value attribute of a Constant node. */
static vkml_status constant_attr(const graph_node *node, const graph_attr **out, vkml_error *err)
{
    *out = NULL;
    for (int i = 0; i < node->n_attrs; i++) {
        const graph_attr *a = &node->attrs[i];
        bool known = false;
        for (size_t k = 0; k < VKML_ARRAY_SIZE(constant_attrs); k++) {
            if (a->name && strcmp(a->name, constant_attrs[k].name) == 0) {
                if (a->type != constant_attrs[k].type)
                    return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                                     "attribute '%s' has the "
                                     "wrong type",
                                     a->name);
                known = true;
            }
        }
        if (!known)
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                             "Constant attribute '%s' is not "
                             "supported",
                             a->name ? a->name : "?");
        if (*out)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "Constant has more than one value "
                             "attribute ('%s' and '%s')",
                             (*out)->name, a->name);
        *out = a;
    }
    if (!*out)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Constant has no value attribute");
    return VKML_OK;
}

vkml_status constant_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    const graph_attr *a;
    vkml_status st;
    if ((st = op_require_counts(node, 0, 0, 1, err)) || (st = constant_attr(node, &a, err)))
        return st;
    vkml_dtype dtype;
    int rank;
    int64_t dims[VKML_MAX_RANK];
    const void *data;
    size_t size;
    if (a->type == GRAPH_ATTR_TENSOR) {
        const graph_tensor *t = a->tensor;
        size_t bytes;
        if (!t || vkml_dtype_size(t->dtype) == 0 || !t->data)
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                             "Constant 'value' of dtype %s is "
                             "not supported",
                             t ? vkml_dtype_name(t->dtype) : "?");
        if (!vkml_tensor_bytes(t->dtype, t->rank, t->dims, &bytes) || bytes > t->size)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "Constant 'value' has %zu bytes, "
                             "too few for its shape",
                             t->size);
        dtype = t->dtype;
        rank = t->rank;
        memcpy(dims, t->dims, sizeof(int64_t) * (size_t)rank);
        data = t->data;
        size = bytes;
    } else {
        constant_from_attr(a, &dtype, &rank, dims, &data, &size);
    }
    op_set_output(values, node, 0, dtype, rank, dims);
    graph_value *y = graph_node_output(values, node, 0);
    y->data = data;
    y->data_size = size;
    return VKML_OK;
}
