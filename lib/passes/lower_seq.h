#pragma once
/*
 * The sequence ops, lowered to tensor ops at plan time (lower_seq.c). vkml has no sequence
 * values at run time: a sequence whose length and positions are known when a session is
 * planned becomes a list of tensor values, and the ops on it become list edits, Identity,
 * Split, Squeeze, Unsqueeze, Concat and constants.
 */
#include "ops/op.h"

/* Most elements a sequence may have (Split's own limit on outputs). */
#define LOWER_SEQ_MAX_ELEMENTS 4096
/* Most tensor nodes the lowering of one graph adds (a few bytes of model must not become
 * gigabytes of plan). */
#define LOWER_SEQ_MAX_ADDED 65536
/* Most list entries of all the sequence values of one graph together (each edit makes a
 * new list). */
#define LOWER_SEQ_MAX_ITEMS (1 << 20)

/* Whether g has nodes of OP_LOWERED ops (a plan must lower it). */
bool lower_seq_needed(const graph *g);

/* For a graph that lower_seq_needed: *out is a new graph, owned by the caller, with g's
 * values first (same indices; `values` gives their session state: input shapes and values
 * bound) and every sequence op replaced by tensor nodes. It infers shapes and folds
 * constants node by node as it builds (graph_infer_node, fold_if_constant through `runner`; all
 * constant data in `arena`, so the values stay valid without *out), so positions computed from
 * shapes or fixed inputs are known when a sequence op needs them. Fails UNSUPPORTED, naming node,
 * op and reason, for what needs sequences at run time: a position that is not a constant, a
 * sequence graph input or output, a sequence read by a tensor op; INVALID_MODEL for a position out
 * of range and the like. */
vkml_status lower_seq(const graph *g, const graph_value *values, int64_t symbolic_value,
                      const op_host_runner *runner, vkml_arena *arena, graph **out,
                      vkml_error *err);
