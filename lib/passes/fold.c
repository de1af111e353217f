/* Constant folding during shape inference: a node whose inputs are all constants (or
 * whose op reads only input shapes: Shape, Size) runs once on the host while the session's
 * shapes are inferred, and its outputs become constants, so Shape -> Gather -> Concat ->
 * Reshape chains and weight transforms fold away per session. Constant nodes are folded by
 * their shape function setting the data. */
#include "passes/fold.h"
#include "passes/infer.h"

#include <string.h>

/* Whether the `count` values at ids (-1: omitted) all have data. */
static bool all_known(const graph_value *values, const int *ids, int count)
{
    for (int k = 0; k < count; k++)
        if (ids[k] >= 0 && !values[ids[k]].data)
            return false;
    return true;
}

bool fold_inputs_known(const graph_value *values, const graph_node *n)
{
    return all_known(values, n->inputs, n->n_inputs);
}

bool fold_outputs_known(const graph_value *values, const graph_node *n)
{
    return all_known(values, n->outputs, n->n_outputs);
}

static bool foldable(const op_host_runner *runner, const graph_value *values, const graph_node *n)
{
    if (!runner || !n->op || !runner->has_kernel(n->op))
        return false;
    return (n->op->flags & OP_FROM_SHAPES) || fold_inputs_known(values, n);
}

/* Whether every output has a size within FOLD_MAX_OUTPUT_BYTES. */
static bool small_enough(const graph_value *values, const graph_node *n)
{
    for (int o = 0; o < n->n_outputs; o++) {
        const graph_value *v = n->outputs[o] >= 0 ? &values[n->outputs[o]] : NULL;
        size_t bytes;
        if (v && (!vkml_tensor_bytes(v->dtype, v->rank, v->dims, &bytes) ||
                  bytes > FOLD_MAX_OUTPUT_BYTES))
            return false;
    }
    return true;
}

static vkml_status fold_node(const op_host_runner *runner, vkml_arena *arena, const graph *g,
                             graph_value *values, int i, vkml_error *err)
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
        vkml_tensor_bytes(v->dtype, v->rank, v->dims, &bytes);
        out[o] = vkml_arena_alloc(arena, bytes ? bytes : 1);
        if (!out[o])
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY,
                             "out of memory folding constant '%s' (%zu bytes)", v->name, bytes);
    }
    int64_t out_dims[n->n_outputs + 1][VKML_MAX_RANK];
    op_cpu_args args = {
        .values = values, .node = n, .in = in, .out = out, .out_dims = out_dims, .strings = arena};
    for (int o = 0; o < n->n_outputs; o++)
        if (n->outputs[o] >= 0)
            memcpy(out_dims[o], values[n->outputs[o]].dims, sizeof(out_dims[o]));
    vkml_status st = runner->run(&args, err);
    if (st != VKML_OK)
        return st;
    for (int o = 0; o < n->n_outputs; o++) {
        graph_value *v = graph_node_output(values, n, o);
        if (!v)
            continue;
        if (v->data_dependent) { /* the extent is known now: a plain constant */
            memcpy(v->dims, out_dims[o], sizeof(int64_t) * (size_t)v->rank);
            v->data_dependent = false;
        }
        v->kind = GRAPH_VALUE_CONSTANT;
        v->data = out[o];
        vkml_tensor_bytes(v->dtype, v->rank, v->dims, &v->data_size);
    }
    return VKML_OK;
}

static bool all_inputs_constant(const graph_value *values, const graph_node *n)
{
    for (int k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] >= 0 && values[n->inputs[k]].kind != GRAPH_VALUE_CONSTANT)
            return false;
    return true;
}

vkml_status fold_if_constant(const graph *g, graph_value *values, int i,
                             const op_host_runner *runner, vkml_arena *arena, vkml_error *err)
{
    const graph_node *n = &g->nodes[i];
    char label[300];
    if (fold_outputs_known(values, n)) {
        /* An alias of constants (Identity, Reshape of an initializer: its shape function
         * shares the data) is a constant too, for the passes that read these values
         * (graph_fuse_epilogues: PyTorch shares the initializers of identical layers through
         * Identity nodes, and BERT-style's biases after the first layer stayed unfused). */
        bool constant = all_inputs_constant(values, n);
        for (int o = 0; constant && o < n->n_outputs; o++)
            if (n->outputs[o] >= 0)
                values[n->outputs[o]].kind = GRAPH_VALUE_CONSTANT;
        return VKML_OK;
    }
    if (!foldable(runner, values, n) || !small_enough(values, n))
        return VKML_OK;
    vkml_status st = fold_node(runner, arena, g, values, i, err);
    if (st != VKML_OK)
        vkml_error_prefix(err, "folding %s", graph_node_label(g, i, label, sizeof(label)));
    return st;
}

typedef struct fold_ctx {
    const graph *g;
    const op_host_runner *runner;
    vkml_arena *arena;
} fold_ctx;

static vkml_status fold_hook(void *ctx, graph_value *values, int i, vkml_error *err)
{
    const fold_ctx *f = ctx;
    return fold_if_constant(f->g, values, i, f->runner, f->arena, err);
}

vkml_status fold_infer(const graph *g, graph_value *values, int64_t symbolic_value,
                       const op_host_runner *runner, vkml_arena *arena, int *n_inferred,
                       vkml_error *err)
{
    fold_ctx ctx = {.g = g, .runner = runner, .arena = arena};
    return graph_infer_hooked(g, values, symbolic_value, fold_hook, &ctx, n_inferred, err);
}

void fold_mark_folded(const graph *g, graph_value *values, bool *folded)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node *n = &g->nodes[i];
        folded[i] = fold_outputs_known(values, n);
        for (int o = 0; folded[i] && o < n->n_outputs; o++)
            if (n->outputs[o] >= 0)
                values[n->outputs[o]].kind = GRAPH_VALUE_CONSTANT;
    }
}
