#pragma once
/* The state of one lowering (lower.h), shared by its files: lower_seq.c (the driver and the
 * sequence ops) and lower_cf.c (control flow). */
#include "passes/lower.h"

/* Opset of the tensor nodes the lowering adds (Split, Squeeze, Unsqueeze read their
 * sizes and axes from constant inputs). */
#define LOWER_SEQ_OPSET 13

typedef struct seq_list {
    bool is_seq; /* the value is a sequence the lowering made */
    vkml_dtype dtype;
    const int *items; /* tensor value ids of the lowered graph */
    int n;
} seq_list;

typedef struct lower_ctx {
    const graph *src;
    graph *g;          /* being built; its first values are src's, same ids */
    cf_env env;        /* folds constants, probes and runs control flow */
    vkml_arena *arena; /* constant data: folded, and the lowering's own */
    seq_list *seqs;    /* per value of g (lower_grow_seqs) */
    int n_seqs;
    const graph_node *cur; /* node being lowered, value ids of g */
    int n_added;           /* nodes the lowering added (LOWER_SEQ_MAX_ADDED) */
    int64_t n_items;       /* list entries made, all sequences together (LOWER_SEQ_MAX_ITEMS) */
} lower_ctx;

/* Lowers node n (value ids of the lowered graph): copied, rewritten or run. */
vkml_status lower_one(lower_ctx *c, const graph_node *n, vkml_error *err);
/* Control-flow node n (lower_cf.c). */
vkml_status lower_cf_node(lower_ctx *c, const graph_node *n, vkml_error *err);
/* Loop or Scan n unrolled into the graph when the plan can (lower_unroll.c: a Loop of a
 * known trip count and condition, a Scan of opset 9 and later, within
 * LOWER_UNROLL_MAX_NODES; none reading a data-dependent extent, which the caller checks);
 * *unrolled false, nothing done, when it cannot. */
vkml_status lower_unroll(lower_ctx *c, const graph_node *n, bool *unrolled, vkml_error *err);

/* Helpers lower_cf.c and lower_unroll.c share. Body value -> lowered value, for the entries
 * of map still -1: outer values are node n's inputs, constants are copied, the rest become
 * new values named "<base><name>". */
vkml_status lower_map_body(lower_ctx *c, const graph_node *n, const graph *body, const char *base,
                           int *map, vkml_error *err);
/* Body node bn with its values mapped, lowered as a node named "<base><name>". */
vkml_status lower_inline_node(lower_ctx *c, const char *base, const graph_node *bn, const int *map,
                              vkml_error *err);
/* Output o of n is the lowered value src: an Identity of it, or the same list when it is a
 * sequence. */
vkml_status lower_bind_output(lower_ctx *c, const graph_node *n, int o, int src, vkml_error *err);
/* The one bool of value v, when the plan knows it. */
bool lower_known_bool(const graph_value *v, bool *out);
/* Infers the lowered graph's node k and folds it when it can. */
vkml_status lower_settle_node(lower_ctx *c, int k, vkml_error *err);
/* Adds a tensor node `op` (ai.onnx, LOWER_SEQ_OPSET) from inputs to outputs, with an `axis`
 * attribute when axis >= 0; binds it to the op table and settles it. */
vkml_status lower_emit(lower_ctx *c, const char *op, const int *inputs, int n_in,
                       const int *outputs, int n_out, int64_t axis, vkml_error *err);
/* A new value of the lowered graph named "<base><suffix>"; -1 on out of memory. */
int lower_new_value(lower_ctx *c, const char *base, const char *suffix);
/* A new int64 constant of rank 0 (n 1) or 1 named `name`; -1 on out of memory. */
int lower_new_ints(lower_ctx *c, const char *name, int rank, const int64_t *data, int64_t n);
/* seqs covers every value of the lowered graph; VKML_ERROR_OUT_OF_MEMORY else. */
vkml_status lower_grow_seqs(lower_ctx *c);
/* "node 'name' (Op)" or "node (Op)" into buf. */
const char *lower_node_label(const graph_node *n, char *buf, size_t size);
