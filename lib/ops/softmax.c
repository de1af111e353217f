#include "ops/softmax.h"
#include "ops/op_decls.h"

static const vkml_dtype softmax_dtypes[] = {VKML_DTYPE_FLOAT};

static int64_t dims_product(const int64_t *dims, int from, int to)
{
    int64_t p = 1;
    for (int d = from; d < to; d++)
        p *= dims[d];
    return p;
}

vkml_status softmax_params_parse(const graph_value *values, const graph_node *node,
                                 softmax_params *p, vkml_error *err)
{
    vkml_status st;
    if ((st = op_require_counts(node, 1, 1, 1, err)) ||
        (st = op_require_input(values, node, 0, err)) ||
        (st = op_require_dtype(values, node, 0, softmax_dtypes, 1, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]];
    static const op_attr_spec specs[] = {{"axis", GRAPH_ATTR_INT}};
    if ((st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err)))
        return st;
    bool coerce_2d = node->opset < 13;
    int64_t axis = graph_attr_int(node, "axis", coerce_2d ? 1 : -1);
    if (x->rank < 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "input '%s' must have rank >= 1", x->name);
    if (axis < -x->rank || axis >= x->rank)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "attribute 'axis' %lld is out of range for rank %d", (long long)axis,
                         x->rank);
    int a = (int)(axis < 0 ? axis + x->rank : axis);
    p->outer = dims_product(x->dims, 0, a);
    p->axis_len = coerce_2d ? dims_product(x->dims, a, x->rank) : x->dims[a];
    p->inner = coerce_2d ? 1 : dims_product(x->dims, a + 1, x->rank);
    return VKML_OK;
}

vkml_status softmax_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    softmax_params p;
    vkml_status st = softmax_params_parse(values, node, &p, err);
    if (st)
        return st;
    const graph_value *x = &values[node->inputs[0]];
    op_set_output(values, node, 0, x->dtype, x->rank, x->dims);
    return VKML_OK;
}
