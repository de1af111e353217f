/* Constant folding: a node whose inputs are all constants runs once on the CPU at plan
 * time and its outputs become constants (Shape->Gather->Concat->Reshape chains, weight
 * reshapes). Constant nodes are folded by their shape function setting the data. */
#include "plan/fold.h"
#include "cpu/cpu_kernels.h"

#include <string.h>

static bool all_inputs_constant(const graph_value *values, const graph_node *n)
{
    for (int k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] >= 0 && !values[n->inputs[k]].data)
            return false;
    return true;
}

static bool all_outputs_constant(const graph_value *values, const graph_node *n)
{
    for (int o = 0; o < n->n_outputs; o++)
        if (n->outputs[o] >= 0 && !values[n->outputs[o]].data)
            return false;
    return true;
}

static vkml_status fold_node(vkml_arena *arena, const graph *g, graph_value *values, int i,
                             vkml_error *err)
{
    const graph_node *n = &g->nodes[i];
    const void *in[n->n_inputs + 1];
    void *out[n->n_outputs + 1];
    for (int k = 0; k < n->n_inputs; k++)
        in[k] = n->inputs[k] >= 0 ? values[n->inputs[k]].data : NULL;
    for (int o = 0; o < n->n_outputs; o++) {
        out[o] = NULL;
        graph_value *v = graph_node_output(values, n, o);
        size_t bytes;
        if (!v)
            continue;
        if (!vkml_tensor_bytes(v->dtype, v->rank, v->dims, &bytes))
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "cannot fold output '%s' of type %s",
                             v->name, vkml_dtype_name(v->dtype));
        out[o] = vkml_arena_alloc(arena, bytes);
        if (!out[o])
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY,
                             "out of memory folding constant '%s' (%zu bytes)", v->name, bytes);
    }
    op_cpu_args args = {.values = values, .node = n, .in = in, .out = out};
    vkml_status st = cpu_run_node(&args, err);
    if (st != VKML_OK)
        return st;
    for (int o = 0; o < n->n_outputs; o++) {
        graph_value *v = graph_node_output(values, n, o);
        if (!v)
            continue;
        v->kind = GRAPH_VALUE_CONSTANT;
        v->data = out[o];
        vkml_tensor_bytes(v->dtype, v->rank, v->dims, &v->data_size);
    }
    return VKML_OK;
}

vkml_status plan_fold_constants(vkml_arena *arena, const graph *g, graph_value *values,
                                bool *folded, vkml_error *err)
{
    char label[300];
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node *n = &g->nodes[i];
        folded[i] = false;
        if (all_outputs_constant(values, n)) {
            folded[i] = true;
            for (int o = 0; o < n->n_outputs; o++)
                if (n->outputs[o] >= 0)
                    values[n->outputs[o]].kind = GRAPH_VALUE_CONSTANT;
            continue;
        }
        if (!all_inputs_constant(values, n) || !cpu_kernel_for(n->op))
            continue;
        vkml_status st = fold_node(arena, g, values, i, err);
        if (st != VKML_OK) {
            vkml_error_prefix(err, "folding %s", graph_node_label(g, i, label, sizeof(label)));
            return st;
        }
        folded[i] = true;
    }
    return VKML_OK;
}
