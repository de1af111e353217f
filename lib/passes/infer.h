#pragma once
/* Shape and type inference: each node's op shape function (lib/ops/) over the graph. */
#include "graph/graph.h"

/* Shape and type inference over all nodes in order (passes/infer.c): binds every symbolic
 * or unknown input dim to `symbolic_value`, then calls each node's op shape function.
 * Writes dtype/rank/dims of every value in `values` (a clone of g->values). */
vkml_status graph_infer(const graph *g, graph_value *values, int64_t symbolic_value,
                        vkml_error *err);
/* The same, and *n_inferred (when not NULL) is the number of nodes, in order, whose
 * outputs it could infer: all of them on success, those before the failing one else. */
vkml_status graph_infer_count(const graph *g, graph_value *values, int64_t symbolic_value,
                              int *n_inferred, vkml_error *err);
/* The same, calling hook(ctx, values, node) after each node's shapes are inferred and
 * before the next node's: constant folding during inference (passes/fold.c), so that shape
 * computations (Shape -> Gather -> Concat -> Reshape) are constants when Reshape's shape
 * function reads them. A failing hook stops inference with its status. */
typedef vkml_status (*graph_infer_hook)(void *ctx, graph_value *values, int node, vkml_error *err);
vkml_status graph_infer_hooked(const graph *g, graph_value *values, int64_t symbolic_value,
                               graph_infer_hook hook, void *hook_ctx, int *n_inferred,
                               vkml_error *err);
/* The two steps of graph_infer, for a pass that builds a graph as it infers it (the
 * sequence lowering, passes/lower_seq.c): graph_infer_prepare binds every symbolic or unknown
 * graph input dim to `symbolic_value` and forgets what node outputs held; graph_infer_node
 * infers node i's outputs (its inputs' shapes known), naming the node when it fails. */
vkml_status graph_infer_prepare(const graph *g, graph_value *values, int64_t symbolic_value,
                                vkml_error *err);
vkml_status graph_infer_node(const graph *g, graph_value *values, int i, vkml_error *err);
