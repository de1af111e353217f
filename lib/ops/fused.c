/* FusedElementwise: the op code of a node, and the op's schema functions (see fused.h). */
#include "ops/fused.h"
#include "ops/op_decls.h"

eltwise_op fused_op_of(const eltwise_params *p)
{
    eltwise_op op = p->op == ELT_SUM                                 ? ELT_ADD
                    : p->op == ELT_CAST && p->to == VKML_DTYPE_FLOAT ? ELT_IDENTITY
                                                                     : p->op;
    return eltwise_fused_arity(op) > 0 ? op : ELT_OP_COUNT;
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
