/* FusedElementwise: op codes, and the op's schema functions (see fused.h). */
#include "ops/fused.h"
#include "ops/op_decls.h"

static const eltwise_op fused_ops[FUSED_OP_COUNT] = {
    [FUSED_OP_IDENTITY] = ELT_CAST,
    [FUSED_OP_ABS] = ELT_ABS,
    [FUSED_OP_NEG] = ELT_NEG,
    [FUSED_OP_EXP] = ELT_EXP,
    [FUSED_OP_LOG] = ELT_LOG,
    [FUSED_OP_SQRT] = ELT_SQRT,
    [FUSED_OP_RECIPROCAL] = ELT_RECIPROCAL,
    [FUSED_OP_FLOOR] = ELT_FLOOR,
    [FUSED_OP_CEIL] = ELT_CEIL,
    [FUSED_OP_ERF] = ELT_ERF,
    [FUSED_OP_SOFTPLUS] = ELT_SOFTPLUS,
    [FUSED_OP_SOFTSIGN] = ELT_SOFTSIGN,
    [FUSED_OP_ELU] = ELT_ELU,
    [FUSED_OP_SELU] = ELT_SELU,
    [FUSED_OP_CELU] = ELT_CELU,
    [FUSED_OP_LEAKY_RELU] = ELT_LEAKY_RELU,
    [FUSED_OP_HARD_SIGMOID] = ELT_HARD_SIGMOID,
    [FUSED_OP_HARD_SWISH] = ELT_HARD_SWISH,
    [FUSED_OP_GELU] = ELT_GELU,
    [FUSED_OP_GELU_TANH] = ELT_GELU,
    [FUSED_OP_RELU] = ELT_RELU,
    [FUSED_OP_SIGMOID] = ELT_SIGMOID,
    [FUSED_OP_TANH] = ELT_TANH,
    [FUSED_OP_MISH] = ELT_MISH,
    [FUSED_OP_CLIP] = ELT_CLIP,
    [FUSED_OP_ADD] = ELT_ADD,
    [FUSED_OP_SUB] = ELT_SUB,
    [FUSED_OP_MUL] = ELT_MUL,
    [FUSED_OP_DIV] = ELT_DIV,
    [FUSED_OP_POW] = ELT_POW,
    [FUSED_OP_MIN] = ELT_MIN,
    [FUSED_OP_MAX] = ELT_MAX,
    [FUSED_OP_PRELU] = ELT_PRELU,
};

unsigned fused_op_of(const eltwise_params *p)
{
    eltwise_op op = p->op == ELT_SUM ? ELT_ADD : p->op == ELT_CAST ? ELT_OP_COUNT : p->op;
    if (p->op == ELT_GELU && p->gelu_tanh)
        return FUSED_OP_GELU_TANH;
    for (unsigned c = 1; c < FUSED_OP_COUNT; c++)
        if (fused_ops[c] == op && c != FUSED_OP_GELU_TANH)
            return c;
    return FUSED_OP_COUNT;
}

eltwise_op fused_op_eltwise(unsigned code, bool *gelu_tanh)
{
    *gelu_tanh = code == FUSED_OP_GELU_TANH;
    return code < FUSED_OP_COUNT ? fused_ops[code] : ELT_CAST;
}

vkml_status fused_parse(const graph_node *node, void *params, vkml_error *err)
{
    (void)node, (void)params;
    return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                     "FusedElementwise is made by vkml's planner; a model may not contain it");
}

vkml_status fused_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    const fused_params *p = node->params;
    vkml_status st = op_require_counts(node, 2, 1 + FUSED_MAX_INPUTS, 1, err);
    if (st == VKML_OK)
        op_set_output(values, node, 0, p->dtype, p->rank, p->dims);
    return st;
}
