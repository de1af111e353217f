/* Losses: SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss (see misc.h). */
#include "ops/misc.h"
#include "ops/op_decls.h"

#include <string.h>

vkml_status loss_parse(const graph_node *node, void *params, vkml_error *err)
{
    loss_params *p = params;
    static const op_attr_spec specs[] = {{"reduction", GRAPH_ATTR_STRING},
                                         {"ignore_index", GRAPH_ATTR_INT}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    if (st)
        return st;
    p->softmax = strcmp(node->op_type, "SoftmaxCrossEntropyLoss") == 0;
    const char *r = graph_attr_string(node, "reduction", "mean");
    if (!strcmp(r, "none"))
        p->reduction = LOSS_NONE;
    else if (!strcmp(r, "sum"))
        p->reduction = LOSS_SUM;
    else if (!strcmp(r, "mean"))
        p->reduction = LOSS_MEAN;
    else
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: reduction '%s' is not none, sum or mean", node->op_type, r);
    p->has_ignore = graph_node_attr(node, "ignore_index") != NULL;
    p->ignore_index = graph_attr_int(node, "ignore_index", 0);
    return VKML_OK;
}

vkml_status loss_resolve(const graph_value *values, const graph_node *node, loss_geom *g,
                         vkml_error *err)
{
    const loss_params *p = node->params;
    vkml_status st;
    if ((st = op_require_counts(node, 2, 3, 1, err)) ||
        (st = op_require_input(values, node, 0, err)) ||
        (st = op_require_input(values, node, 1, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]], *y = &values[node->inputs[1]];
    if (x->rank < 2)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: scores '%s' need rank >= 2 (N, C)",
                         node->op_type, x->name);
    if (y->dtype != VKML_DTYPE_INT32 && y->dtype != VKML_DTYPE_INT64)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: labels '%s' are %s, not int32/int64",
                         node->op_type, y->name, vkml_dtype_name(y->dtype));
    bool dims_ok = y->rank == x->rank - 1 && y->dims[0] == x->dims[0];
    for (int k = 1; dims_ok && k < y->rank; k++)
        dims_ok = y->dims[k] == x->dims[k + 1];
    if (!dims_ok)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: labels '%s' must have the scores' shape without dim 1 (C)",
                         node->op_type, y->name);
    g->n = x->dims[0];
    g->c = x->dims[1];
    g->d = 1;
    for (int k = 2; k < x->rank; k++)
        g->d *= x->dims[k];
    g->has_weight = node->n_inputs > 2 && node->inputs[2] >= 0;
    if (g->has_weight) {
        if ((st = op_require_input(values, node, 2, err)))
            return st;
        const graph_value *w = &values[node->inputs[2]];
        if (w->rank != 1 || w->dims[0] != g->c || w->dtype != x->dtype)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "%s: weights '%s' must be [C] = [%lld] of the scores' type",
                             node->op_type, w->name, (long long)g->c);
    }
    if (!p->softmax && node->n_outputs > 1 && node->outputs[1] >= 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s has one output", node->op_type);
    return VKML_OK;
}

vkml_status loss_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    const loss_params *p = node->params;
    loss_geom g;
    vkml_status st = loss_resolve(values, node, &g, err);
    if (st)
        return st;
    const graph_value *x = &values[node->inputs[0]], *y = &values[node->inputs[1]];
    if (p->reduction == LOSS_NONE)
        op_set_output(values, node, 0, x->dtype, y->rank, y->dims);
    else
        op_set_output(values, node, 0, x->dtype, 0, NULL);
    if (node->n_outputs > 1 && node->outputs[1] >= 0)
        op_set_output(values, node, 1, x->dtype, x->rank, x->dims);
    return VKML_OK;
}
