#include "ops/elementwise.h"
#include "ops/op_decls.h"

#include <string.h>

static const struct {
    const char *name;
    eltwise_op op;
    bool binary;
} eltwise_ops[] = {
    {"Add", ELTWISE_ADD, true},    {"Sub", ELTWISE_SUB, true},
    {"Mul", ELTWISE_MUL, true},    {"Div", ELTWISE_DIV, true},
    {"Relu", ELTWISE_RELU, false}, {"Sigmoid", ELTWISE_SIGMOID, false},
    {"Tanh", ELTWISE_TANH, false},
};

static const vkml_dtype binary_dtypes[] = {
    VKML_DTYPE_FLOAT, VKML_DTYPE_DOUBLE, VKML_DTYPE_INT8,   VKML_DTYPE_INT16,  VKML_DTYPE_INT32,
    VKML_DTYPE_INT64, VKML_DTYPE_UINT8,  VKML_DTYPE_UINT16, VKML_DTYPE_UINT32, VKML_DTYPE_UINT64,
};
static const vkml_dtype unary_dtypes[] = {VKML_DTYPE_FLOAT};

static vkml_status check_inputs(const graph_value *values, const graph_node *node, bool binary,
                                vkml_error *err)
{
    vkml_status st;
    int count = binary ? 2 : 1;
    if ((st = op_require_counts(node, count, count, 1, err)))
        return st;
    for (int i = 0; i < count; i++)
        if ((st = op_require_input(values, node, i, err)) ||
            (st = binary ? op_require_dtype(values, node, i, binary_dtypes,
                                            VKML_ARRAY_SIZE(binary_dtypes), err)
                         : op_require_dtype(values, node, i, unary_dtypes,
                                            VKML_ARRAY_SIZE(unary_dtypes), err)))
            return st;
    if (binary && values[node->inputs[0]].dtype != values[node->inputs[1]].dtype)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s inputs have different dtypes %s "
                         "and %s",
                         node->op_type, vkml_dtype_name(values[node->inputs[0]].dtype),
                         vkml_dtype_name(values[node->inputs[1]].dtype));
    return VKML_OK;
}

static vkml_status find_op(const graph_node *node, eltwise_params *p, vkml_error *err)
{
    for (size_t i = 0; i < VKML_ARRAY_SIZE(eltwise_ops); i++) {
        if (strcmp(node->op_type, eltwise_ops[i].name) == 0) {
            p->op = eltwise_ops[i].op;
            p->binary = eltwise_ops[i].binary;
            return VKML_OK;
        }
    }
    return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s is not an elementwise op", node->op_type);
}

vkml_status eltwise_params_parse(const graph_value *values, const graph_node *node,
                                 eltwise_params *p, vkml_error *err)
{
    memset(p, 0, sizeof(*p));
    vkml_status st;
    if ((st = find_op(node, p, err)) || (st = check_inputs(values, node, p->binary, err)))
        return st;
    const graph_value *a = &values[node->inputs[0]];
    p->dtype = a->dtype;
    if (p->binary) {
        const graph_value *b = &values[node->inputs[1]];
        /* Opset < 7 had a `broadcast` attribute; the table starts at 7 (numpy rules). */
        if ((st = op_broadcast(node, a->rank, a->dims, b->rank, b->dims, &p->rank, p->dims, err)))
            return st;
        op_broadcast_strides(b->rank, b->dims, p->rank, p->dims, p->b_strides);
    } else {
        p->rank = a->rank;
        memcpy(p->dims, a->dims, sizeof(int64_t) * (size_t)a->rank);
    }
    op_broadcast_strides(a->rank, a->dims, p->rank, p->dims, p->a_strides);
    p->count = vkml_tensor_element_count(p->rank, p->dims);
    return VKML_OK;
}

static vkml_status eltwise_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    eltwise_params p;
    vkml_status st = eltwise_params_parse(values, node, &p, err);
    if (st)
        return st;
    op_set_output(values, node, 0, p.dtype, p.rank, p.dims);
    return VKML_OK;
}

vkml_status eltwise_binary_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    return eltwise_infer(values, node, err);
}

vkml_status eltwise_unary_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    return eltwise_infer(values, node, err);
}
