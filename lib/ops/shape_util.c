/* Helpers shared by the shape functions. Messages name the input or attribute; the
 * caller (graph_infer) prefixes the node's label. */
#include "ops/epilogue.h"
#include "ops/op.h"

#include <stdio.h>
#include <string.h>

vkml_status op_require_counts(const graph_node *n, int min_inputs, int max_inputs, int min_outputs,
                              vkml_error *err)
{
    int n_inputs = op_epilogue_base_inputs(n); /* a fused residual comes on top */
    if (n_inputs < min_inputs || n_inputs > max_inputs)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s takes %d to %d inputs, not %d",
                         n->op_type, min_inputs, max_inputs, n_inputs);
    if (n->n_outputs < min_outputs)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s needs %d output(s), has %d", n->op_type,
                         min_outputs, n->n_outputs);
    for (int i = 0; i < min_outputs; i++)
        if (n->outputs[i] < 0)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s output %d is missing", n->op_type,
                             i);
    return VKML_OK;
}

vkml_status op_require_input(const graph_value *values, const graph_node *n, int i, vkml_error *err)
{
    if (i >= n->n_inputs || n->inputs[i] < 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s input %d is missing", n->op_type, i);
    const graph_value *v = &values[n->inputs[i]];
    if (v->rank < 0 || v->rank > VKML_MAX_RANK)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "input %d '%s' has no known shape", i,
                         v->name);
    for (int d = 0; d < v->rank; d++)
        if (v->dims[d] < 0)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "input %d '%s' has an unknown dimension %d", i, v->name, d);
    if (v->dtype == VKML_DTYPE_UNDEFINED)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "input %d '%s' has no known type", i,
                         v->name);
    return VKML_OK;
}

vkml_status op_require_data(const graph_value *values, const graph_node *n, int i, vkml_error *err)
{
    vkml_status st = op_require_input(values, n, i, err);
    if (st)
        return st;
    const graph_value *x = &values[n->inputs[i]];
    if (vkml_dtype_size(x->dtype) == 0)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "%s: dtype %s of input %d '%s' is not supported", n->op_type,
                         vkml_dtype_name(x->dtype), i, x->name);
    return VKML_OK;
}

vkml_status op_require_dtype(const graph_value *values, const graph_node *n, int i,
                             const vkml_dtype *allowed, size_t n_allowed, vkml_error *err)
{
    const graph_value *v = &values[n->inputs[i]];
    for (size_t k = 0; k < n_allowed; k++)
        if (v->dtype == allowed[k])
            return VKML_OK;
    return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s: dtype %s of input %d '%s' is not supported",
                     n->op_type, vkml_dtype_name(v->dtype), i, v->name);
}

vkml_status op_broadcast(const graph_node *n, int rank_a, const int64_t *a, int rank_b,
                         const int64_t *b, int *rank_out, int64_t *out, vkml_error *err)
{
    char sa[160], sb[160];
    int rank = rank_a > rank_b ? rank_a : rank_b;
    int64_t dims[VKML_MAX_RANK];
    for (int d = 0; d < rank; d++) {
        int ia = d - (rank - rank_a), ib = d - (rank - rank_b);
        int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
        if (da != db && da != 1 && db != 1)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: shapes %s and %s do not broadcast",
                             n->op_type, graph_shape_string(rank_a, a, sa, sizeof(sa)),
                             graph_shape_string(rank_b, b, sb, sizeof(sb)));
        dims[d] = da == 1 ? db : da;
    }
    *rank_out = rank;
    memcpy(out, dims, sizeof(int64_t) * (size_t)rank);
    return VKML_OK;
}

void op_broadcast_strides(int rank, const int64_t *dims, int out_rank, const int64_t *out_dims,
                          int64_t *strides)
{
    int64_t step = 1;
    for (int d = out_rank - 1; d >= 0; d--) {
        int src = d - (out_rank - rank);
        if (src < 0) {
            strides[d] = 0;
            continue;
        }
        strides[d] = dims[src] == 1 && out_dims[d] != 1 ? 0 : step;
        step *= dims[src];
    }
}

void op_set_output(graph_value *values, const graph_node *n, int i, vkml_dtype dtype, int rank,
                   const int64_t *dims)
{
    graph_value *v = graph_node_output(values, n, i);
    if (!v)
        return;
    v->dtype = dtype;
    v->rank = rank;
    for (int d = 0; d < VKML_MAX_RANK; d++) {
        v->dims[d] = d < rank ? dims[d] : -1;
        v->dim_names[d] = NULL;
    }
}

vkml_status op_const_ints(const graph_value *values, const graph_node *n, int i, int64_t *out,
                          size_t max, size_t *count, vkml_error *err)
{
    const graph_value *v = graph_node_input((graph_value *)values, n, i);
    if (!v)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s input %d is missing", n->op_type, i);
    if (!v->data)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "%s input %d '%s' must be a constant (computed shapes are not "
                         "supported)",
                         n->op_type, i, v->name);
    if (v->dtype != VKML_DTYPE_INT64 && v->dtype != VKML_DTYPE_INT32)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s input %d '%s' must be int64, not %s",
                         n->op_type, i, v->name, vkml_dtype_name(v->dtype));
    if (v->rank > 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s input %d '%s' must be 1-D", n->op_type,
                         i, v->name);
    size_t elems = vkml_tensor_element_count(v->rank, v->dims);
    size_t esize = vkml_dtype_size(v->dtype);
    if (v->rank < 0 || elems * esize > v->data_size)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s input %d '%s' has %zu bytes of data, "
                         "too few for its shape",
                         n->op_type, i, v->name, v->data_size);
    if (elems > max)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "%s input %d '%s' has %zu values, more "
                         "than the %zu supported",
                         n->op_type, i, v->name, elems, max);
    for (size_t k = 0; k < elems; k++) {
        if (v->dtype == VKML_DTYPE_INT64) {
            int64_t x;
            memcpy(&x, (const char *)v->data + k * 8, 8);
            out[k] = x;
        } else {
            int32_t x;
            memcpy(&x, (const char *)v->data + k * 4, 4);
            out[k] = x;
        }
    }
    *count = elems;
    return VKML_OK;
}

static const char *attr_type_name(graph_attr_type type)
{
    switch (type) {
    case GRAPH_ATTR_FLOAT: return "float";
    case GRAPH_ATTR_INT: return "int";
    case GRAPH_ATTR_STRING: return "string";
    case GRAPH_ATTR_TENSOR: return "tensor";
    case GRAPH_ATTR_FLOATS: return "floats";
    case GRAPH_ATTR_INTS: return "ints";
    default: return "other";
    }
}

vkml_status op_check_attr_types(const graph_node *n, const op_attr_spec *specs, size_t count,
                                vkml_error *err)
{
    for (size_t i = 0; i < count; i++) {
        const graph_attr *a = graph_node_attr(n, specs[i].name);
        if (a && a->type != specs[i].type)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "attribute '%s' must be of type %s, not %s", specs[i].name,
                             attr_type_name(specs[i].type), attr_type_name(a->type));
    }
    return VKML_OK;
}
