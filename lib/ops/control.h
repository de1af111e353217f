#pragma once
/*
 * The control-flow ops If, Loop and Scan: their subgraphs and attributes, parsed once at
 * load. No device has a kernel for them. A plan inlines an If whose condition it knows,
 * folds a node whose inputs are all constants, and leaves the rest to its dynamic tail,
 * which runs the subgraphs on the host per run (passes/lower_cf.c, passes/cf_run.c).
 */
#include "ops/op.h"

typedef struct cf_params {
    const graph *bodies[2]; /* If: then_branch, else_branch; Loop, Scan: body */
    int n_bodies;
    /* Scan: num_scan_inputs and per scan input / output its direction (0 forward, 1
     * reverse) and axis (as given: negative counts from the end); NULL when absent. */
    int64_t num_scan_inputs;
    const int64_t *scan_input_directions, *scan_input_axes;
    const int64_t *scan_output_directions, *scan_output_axes;
    /* Scan before opset 9: input 0 is sequence_lens, and every state, scan input and output
     * has a batch dim first, each batch element scanned on its own (over its dim 1). */
    bool batched;
    /* Set by a plan that runs the node in its dynamic tail (passes/lower_cf.c): per output
     * the dtype and shape it inferred (an upper bound of the extent); NULL in a model. */
    const graph_value *bounds;
    /* Set by that plan for a Loop whose iterations only append (passes/cf_loop_append.c):
     * per carried value the axis its rows are appended along, as written; NULL else. */
    const int64_t *append_axes;
} cf_params;

/* Inputs the model gives the node (its implicit ones, the outer-scope values its
 * subgraphs read, come after). */
static inline int cf_explicit_inputs(const graph_node *n)
{
    return n->n_inputs - n->n_implicit;
}

/* A Scan's inputs before its states: sequence_lens before opset 9. */
static inline int cf_scan_first(const cf_params *p)
{
    return p->batched ? 1 : 0;
}
