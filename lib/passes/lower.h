#pragma once
/*
 * A plan's own copy of a graph with sequence ops and control flow (lower_seq.c, lower_cf.c).
 * vkml has no sequence values at run time: a sequence whose length and positions are known
 * when a session is planned becomes a list of tensor values, and the ops on it become list
 * edits, Identity, Split, Squeeze, Unsqueeze, Concat and constants. An If whose condition
 * is then known becomes the nodes of its taken branch; a Loop of a known trip count and
 * condition becomes its iterations' nodes (LOWER_UNROLL_MAX_NODES); a control-flow node
 * whose inputs are all constants becomes constants; any other stays a node, with the output shapes
 * probed here, that the plan's dynamic tail runs on the host (passes/cf_run.h).
 */
#include "passes/cf_run.h"

/* Most elements a sequence may have (Split's own limit on outputs). */
#define LOWER_SEQ_MAX_ELEMENTS 4096
/* Most tensor nodes the lowering of one graph adds (a few bytes of model must not become
 * gigabytes of plan). */
#define LOWER_SEQ_MAX_ADDED 65536
/* Most list entries of all the sequence values of one graph together (each edit makes a
 * new list). */
#define LOWER_SEQ_MAX_ITEMS (1 << 20)

/* Most nodes a Loop unrolls into (its trips times its body's nodes and scan outputs): a
 * Loop whose trip count and condition the plan knows unrolls into the plan's graph, its
 * iterations' nodes one after another, when they stay within this. */
#define LOWER_UNROLL_MAX_NODES 4096

/* Whether g has nodes of OP_LOWERED or OP_CONTROL_FLOW ops (a plan must lower it). */
bool lower_needed(const graph *g);

/* For a graph that lower_needed: *out is a new graph, owned by the caller, with g's
 * values first (same indices; `values` gives their session state: input shapes and values
 * bound) and every sequence op replaced by tensor nodes. It infers shapes and folds
 * constants node by node as it builds (graph_infer_node, fold_if_constant through env->runner; all
 * constant data in `arena`, so the values stay valid without *out), so positions computed from
 * shapes or fixed inputs are known when a sequence op needs them. Fails UNSUPPORTED, naming node,
 * op and reason, for what needs sequences at run time: a position that is not a constant, a
 * sequence graph input or output, a sequence read by a tensor op; INVALID_MODEL for a position out
 * of range and the like. */
vkml_status lower_graph(const graph *g, const graph_value *values, int64_t symbolic_value,
                        const cf_env *env, vkml_arena *arena, graph **out, vkml_error *err);
