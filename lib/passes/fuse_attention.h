#pragma once
/*
 * Plan-time fusion of attention's core (after shape inference and folding, before
 * placement): MatMul(A, B) -> Softmax over the last axis -> MatMul(P, V), each value
 * between them read by the next node alone and no graph output, becomes one
 * FusedAttention node (ops/fused_attention.h). The products keep what they absorbed at
 * load (passes/fuse_epilogue.c: the query and key scales, the head transposes as views);
 * the first may carry nothing else, the second nothing at all. Both products' batches
 * must agree (V may broadcast). A group fuses only where a device the caller names takes
 * the fused node: the GPUs, whose one dispatch replaces three; the CPU device's products
 * run on its library, and its FusedAttention kernel is the plain reference. By default a
 * GPU takes the node only onto its cooperative-matrix kernel, the one faster than the nodes
 * apart on the H200 (docs/performance.md, "Attention fused into one node"; the switch:
 * fused_attention_mode, VKML_FUSE_ATTENTION).
 */
#include "graph/graph.h"

/* Whether some device of the session would run node n (the plan provides it). */
typedef struct fuse_attention_taker {
    bool (*takes)(void *ctx, const graph_value *values, const graph_node *n);
    void *ctx;
} fuse_attention_taker;

/* The graph g (its values: `values`, shapes inferred) with its attention groups fused: *out
 * is a new graph with the same value indices, owned by the caller, or NULL when nothing
 * fuses. It shares g's nodes' arrays and params: g must outlive it. */
vkml_status fuse_attention(const graph *g, const graph_value *values,
                           const fuse_attention_taker *taker, graph **out, vkml_error *err);
