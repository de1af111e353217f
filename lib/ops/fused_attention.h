#pragma once
/*
 * FusedAttention: a node the planner makes (lib/passes/fuse_attention.c) from attention's
 * core, MatMul(A, B) -> Softmax over the last axis -> MatMul(P, V); never read from a model
 * file. Per batch index b:
 *   Y[b] = softmax(scale * A[b] B[b]) V[b]
 * A [m, k] (the queries), B [k, n] (the keys, as the first product reads them), V [n, e]
 * (the values), each read through element strides (the products' absorbed views and
 * broadcasts, graph_epilogue.view), Y [batch..., m, e] written through strides too: dense,
 * or the layout of a Transpose after it that the pass absorbed (attention's heads merged
 * back, e innermost). Inputs A, B, V; output Y (or the Transpose's output).
 * A mask may come between the scores and the softmax (input 3, read through element strides
 * over the scores' dims, 0 where it broadcasts): Hugging Face's additive mask (scores + M,
 * M of Y's dtype) or a Where that fills the masked scores (M ? scores : fill, M bool).
 * The m x n scores never reach memory: on a GPU one dispatch replaces two products and a
 * softmax (shaders/attention_fused.comp), on the CPU the reference runs per query row
 * (lib/cpu/attention_fused.c).
 */
#include "graph/graph.h"

typedef enum fused_attention_mask {
    FUSED_MASK_NONE,   /* inputs A, B, V */
    FUSED_MASK_ADD,    /* scores + M */
    FUSED_MASK_SELECT, /* M ? scores : fill */
} fused_attention_mask;

typedef struct fused_attention_params {
    int64_t m, n, k, e; /* query rows, keys, query/key size, value size */
    int batch_rank;
    int64_t batch_dims[VKML_MAX_RANK];
    int64_t batch_count;
    /* element strides per batch dim (0: broadcast) of A, B and V */
    int64_t a_batch[VKML_MAX_RANK], b_batch[VKML_MAX_RANK], v_batch[VKML_MAX_RANK];
    int64_t a_sm, a_sk;                   /* A's rows and columns */
    int64_t b_sk, b_sn;                   /* B's rows (k) and columns (keys) */
    int64_t v_sn, v_se;                   /* V's rows (keys) and columns */
    int64_t y_batch[VKML_MAX_RANK], y_sm; /* Y's element strides: batch dims, rows (columns 1) */
    /* where A, B and V start in their values (elements): 0, or the query, key and value
     * parts of one product's output (passes/fuse_qkv.c) */
    int64_t a_offset, b_offset, v_offset;
    float scale;
    fused_attention_mask mask; /* what input 3 is, if any */
    /* M's element strides (0: broadcast) per batch dim, along the rows and the keys */
    int64_t mask_batch[VKML_MAX_RANK], mask_sm, mask_sn;
    float fill;  /* FUSED_MASK_SELECT: the score where M is false */
    int n_nodes; /* model nodes it replaces (2 products, a softmax, and what they absorbed) */
    const char *summary; /* "MatMul -> Softmax -> MatMul" with the absorbed ops */
    vkml_dtype dtype;    /* Y's (float or float16) */
    int rank;            /* the output's shape, as inferred before fusing */
    int64_t dims[VKML_MAX_RANK];
} fused_attention_params;

/* Element offsets of batch `index`'s A, B, V, Y and mask (index < batch_count). */
void fused_attention_offsets(const fused_attention_params *p, int64_t index, int64_t *a, int64_t *b,
                             int64_t *v, int64_t *y, int64_t *mask);

/* Where the planner fuses attention (VKML_FUSE_ATTENTION): by default only where a GPU's
 * cooperative-matrix kernel takes the node (faster than the nodes apart on the H200); with
 * "1" wherever a GPU kernel does, the plain one included (slower there); with "0" nowhere. */
typedef enum fused_attention_where {
    FUSED_ATTENTION_NOWHERE,
    FUSED_ATTENTION_COOPERATIVE,
    FUSED_ATTENTION_EVERYWHERE,
} fused_attention_where;

fused_attention_where fused_attention_mode(void);
