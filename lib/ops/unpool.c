#include "ops/op_decls.h"
#include "ops/pool.h"

#include <string.h>

/* Largest output dim accepted: keeps sizes far from int64 overflow. */
#define UNPOOL_MAX_EXTENT ((int64_t)1 << 31)

OP_PARSE_DECL(unpool_parse)
{
    unpool_params *p = params;
    vkml_status st;
    if ((st = window_read_ints(node, "kernel_shape", OP_MAX_SPATIAL, 1, p->kernel, &p->n_kernel,
                               err)) ||
        (st = window_read_ints(node, "strides", OP_MAX_SPATIAL, 1, p->strides, &p->n_strides,
                               err)) ||
        (st = window_read_ints(node, "pads", 2 * OP_MAX_SPATIAL, 0, p->pads, &p->n_pads, err)))
        return st;
    if (!p->n_kernel)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "MaxUnpool: attribute 'kernel_shape' is required");
    return VKML_OK;
}

void unpool_default_dims(const unpool_params *p, const graph_value *x, int64_t *dims)
{
    int s = x->rank - 2;
    dims[0] = x->dims[0];
    dims[1] = x->dims[1];
    for (int d = 0; d < s; d++)
        dims[2 + d] = (x->dims[2 + d] - 1) * (p->n_strides ? p->strides[d] : 1) + p->kernel[d] -
                      (p->n_pads ? p->pads[d] + p->pads[s + d] : 0);
}

vkml_status unpool_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    static const vkml_dtype dtypes[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16, VKML_DTYPE_DOUBLE};
    const unpool_params *p = node->params;
    vkml_status st;
    if ((st = op_require_counts(node, 2, 3, 1, err)) ||
        (st = op_require_input(values, node, 0, err)) ||
        (st = op_require_input(values, node, 1, err)) ||
        (st = op_require_dtype(values, node, 0, dtypes, VKML_ARRAY_SIZE(dtypes), err)))
        return st;
    const graph_value *x = &values[node->inputs[0]], *idx = &values[node->inputs[1]];
    int s = x->rank - 2;
    if ((st = window_check_input(x, "MaxUnpool", err)))
        return st;
    if (idx->dtype != VKML_DTYPE_INT64 || idx->rank != x->rank ||
        memcmp(idx->dims, x->dims, sizeof(int64_t) * (size_t)x->rank) != 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "MaxUnpool: indices '%s' must be int64 of the shape of '%s'", idx->name,
                         x->name);
    if (p->n_kernel != s || (p->n_strides && p->n_strides != s) ||
        (p->n_pads && p->n_pads != 2 * s))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "MaxUnpool: kernel_shape, strides or pads do not match %d spatial dims",
                         s);
    int64_t dims[VKML_MAX_RANK];
    if (node->n_inputs > 2 && node->inputs[2] >= 0) {
        size_t n;
        if ((st = op_const_ints(values, node, 2, dims, VKML_MAX_RANK, &n, err)))
            return st;
        if (n != (size_t)x->rank || dims[0] != x->dims[0] || dims[1] != x->dims[1])
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "MaxUnpool: output_shape must have rank %d and X's batch and channels",
                             x->rank);
    } else {
        unpool_default_dims(p, x, dims);
    }
    for (int d = 2; d < x->rank; d++)
        if (dims[d] < 1 || dims[d] > UNPOOL_MAX_EXTENT)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "MaxUnpool: output size %lld of dim %d is not valid",
                             (long long)dims[d], d);
    op_set_output(values, node, 0, x->dtype, x->rank, dims);
    return VKML_OK;
}
