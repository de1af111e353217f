#include "passes/infer.h"
#include "ops/op.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Whether the product of the nonzero dims fits in int64 (ops compute strides from them,
 * even when another dim is 0). */
static bool dims_fit(int rank, const int64_t *dims)
{
    int64_t product = 1;
    for (int d = 0; d < rank; d++)
        if (dims[d] > 1 && product > INT64_MAX / dims[d])
            return false;
        else if (dims[d] > 1)
            product *= dims[d];
    return true;
}

vkml_status graph_infer_prepare(const graph *g, graph_value *values, int64_t symbolic_value,
                                vkml_error *err)
{
    char shape[160];
    for (int i = 0; i < g->n_values; i++) {
        graph_value *v = &values[i];
        if (v->kind == GRAPH_VALUE_INPUT) {
            if (v->rank < 0)
                return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                                 "graph input '%s' has no declared shape", v->name);
            for (int d = 0; d < v->rank; d++)
                if (v->dims[d] < 0)
                    v->dims[d] = symbolic_value;
            if (!dims_fit(v->rank, v->dims))
                return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                                 "graph input '%s' has an impossible shape %s", v->name,
                                 graph_shape_string(v->rank, v->dims, shape, sizeof(shape)));
        } else if (v->kind == GRAPH_VALUE_INTERMEDIATE && v->producer >= 0) {
            v->rank = -1;
            v->dtype = VKML_DTYPE_UNDEFINED;
            v->data_dependent = false;
        }
    }
    return VKML_OK;
}

vkml_status graph_infer_node(const graph *g, graph_value *values, int i, vkml_error *err)
{
    char label[300], shape[160];
    const graph_node *n = &g->nodes[i];
    if (!n->op && n->unsupported)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s: %s",
                         graph_node_label(g, i, label, sizeof(label)), n->unsupported);
    if (!n->op)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "%s: the operator is not implemented by vkml at opset %d",
                         graph_node_label(g, i, label, sizeof(label)), n->opset);
    vkml_status st = n->op->infer(values, n, err);
    if (st != VKML_OK) {
        vkml_error_prefix(err, "%s", graph_node_label(g, i, label, sizeof(label)));
        return st;
    }
    for (int o = 0; o < n->n_outputs; o++) {
        const graph_value *out = graph_node_output(values, n, o);
        size_t bytes;
        if (!out)
            continue;
        if (out->rank < 0 || out->dtype == VKML_DTYPE_UNDEFINED)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "%s: shape inference left output '%s' without a shape",
                             graph_node_label(g, i, label, sizeof(label)), out->name);
        if (out->dtype != VKML_DTYPE_STRING &&
            !vkml_tensor_bytes(out->dtype, out->rank, out->dims, &bytes))
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "%s: output '%s' has an impossible shape %s",
                             graph_node_label(g, i, label, sizeof(label)), out->name,
                             graph_shape_string(out->rank, out->dims, shape, sizeof(shape)));
    }
    return VKML_OK;
}

/* Graph inputs get their declared shape with symbolic/unknown dims bound; everything
 * produced by a node is recomputed by its op's shape function, in topological order.
 * *done counts the nodes whose outputs are inferred. */
static vkml_status infer_all(const graph *g, graph_value *values, int64_t symbolic_value,
                             graph_infer_hook hook, void *hook_ctx, int *done, vkml_error *err)
{
    vkml_status st = graph_infer_prepare(g, values, symbolic_value, err);
    for (int i = 0; st == VKML_OK && i < g->n_nodes; i++) {
        if ((st = graph_infer_node(g, values, i, err)) == VKML_OK && hook)
            st = hook(hook_ctx, values, i, err);
        if (st == VKML_OK)
            (*done)++;
    }
    return st;
}

vkml_status graph_infer(const graph *g, graph_value *values, int64_t symbolic_value,
                        vkml_error *err)
{
    return graph_infer_count(g, values, symbolic_value, NULL, err);
}

vkml_status graph_infer_count(const graph *g, graph_value *values, int64_t symbolic_value,
                              int *n_inferred, vkml_error *err)
{
    return graph_infer_hooked(g, values, symbolic_value, NULL, NULL, n_inferred, err);
}

vkml_status graph_infer_hooked(const graph *g, graph_value *values, int64_t symbolic_value,
                               graph_infer_hook hook, void *hook_ctx, int *n_inferred,
                               vkml_error *err)
{
    int done = 0;
    vkml_status st = infer_all(g, values, symbolic_value, hook, hook_ctx, &done, err);
    if (n_inferred)
        *n_inferred = done;
    return st;
}
