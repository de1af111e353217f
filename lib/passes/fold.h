#pragma once
#include "ops/op.h"

/* Largest output a fold computes at plan time (bytes); a bigger one stays a node that runs
 * with the model (an Expand of a constant to a huge shape, a hostile ConstantOfShape). */
#define FOLD_MAX_OUTPUT_BYTES ((size_t)256 << 20)

/* Shape inference with constant folding as it goes (graph_infer_hooked): a node whose
 * inputs are all constants, or whose op reads only input shapes (OP_FROM_SHAPES: Shape,
 * Size), runs once through `runner` (the context's host kernels) and its outputs become
 * constants for the nodes after it. Folded data lives in `arena`. */
vkml_status fold_infer(const graph *g, graph_value *values, int64_t symbolic_value,
                       const op_host_runner *runner, vkml_arena *arena, int *n_inferred,
                       vkml_error *err);

/* One step of fold_infer, for node i whose shapes are inferred: runs it and makes its
 * outputs constants when it can fold. */
vkml_status fold_if_constant(const graph *g, graph_value *values, int i,
                             const op_host_runner *runner, vkml_arena *arena, vkml_error *err);

/* Whether every present input (output) of n has its data: the node can run on the host
 * (it ran, or its shape function gave the data). */
bool fold_inputs_known(const graph_value *values, const graph_node *n);
bool fold_outputs_known(const graph_value *values, const graph_node *n);

/* After fold_infer: folded[node] is whether the node's outputs are all constants (it needs
 * no device). */
void fold_mark_folded(const graph *g, graph_value *values, bool *folded);
