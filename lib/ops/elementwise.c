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

/* Opsets 1-6 have no numpy broadcasting: without attribute broadcast=1 the shapes must be
 * equal; with it, B's dims line up with A's from `axis` (default: A's trailing dims).
 * Writes B's dims padded with 1s to A's rank. */
static vkml_status legacy_b_dims(const graph_node *node, const graph_value *a, const graph_value *b,
                                 int64_t *dims, vkml_error *err)
{
    static const op_attr_spec specs[] = {{"broadcast", GRAPH_ATTR_INT}, {"axis", GRAPH_ATTR_INT}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    if (st)
        return st;
    bool broadcast = graph_attr_int(node, "broadcast", 0) != 0;
    int64_t axis = broadcast ? graph_attr_int(node, "axis", a->rank - b->rank) : 0;
    if (!broadcast && b->rank != a->rank)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s at opset %d without broadcast=1 needs inputs of one shape",
                         node->op_type, node->opset);
    if (axis < 0 || axis + b->rank > a->rank)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "attribute 'axis' %lld does not fit input B of rank %d into A of rank %d",
                         (long long)axis, b->rank, a->rank);
    for (int d = 0; d < a->rank; d++)
        dims[d] = d >= axis && d < axis + b->rank ? b->dims[d - axis] : 1;
    return VKML_OK;
}

/* Output shape and strides of a binary op: numpy broadcasting from opset 7, A's shape
 * with B broadcast onto it before. */
static vkml_status binary_shape(const graph_value *values, const graph_node *node,
                                eltwise_params *p, vkml_error *err)
{
    char sa[160], sb[160];
    const graph_value *a = &values[node->inputs[0]], *b = &values[node->inputs[1]];
    int b_rank = b->rank;
    int64_t b_dims[VKML_MAX_RANK];
    vkml_status st;
    memcpy(b_dims, b->dims, sizeof(b_dims));
    if (node->opset < 7) {
        b_rank = a->rank;
        if ((st = legacy_b_dims(node, a, b, b_dims, err)))
            return st;
    }
    if ((st = op_broadcast(node, a->rank, a->dims, b_rank, b_dims, &p->rank, p->dims, err)))
        return st;
    if (node->opset < 7 && memcmp(p->dims, a->dims, sizeof(int64_t) * (size_t)a->rank) != 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s at opset %d: B %s does not broadcast onto A %s", node->op_type,
                         node->opset, graph_shape_string(b->rank, b->dims, sb, sizeof(sb)),
                         graph_shape_string(a->rank, a->dims, sa, sizeof(sa)));
    op_broadcast_strides(b_rank, b_dims, p->rank, p->dims, p->b_strides);
    return VKML_OK;
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
        if ((st = binary_shape(values, node, p, err)))
            return st;
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
