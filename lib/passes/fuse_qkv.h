#pragma once
/*
 * Plan-time, after attention fusion (passes/fuse_attention.h): the query, key and value
 * projections of a FusedAttention as one product. Where the node's three operands are the
 * outputs of three MatMuls of one input by constant weights [K, N_q], [K, N_k], [K, N_v]
 * (each with a constant bias, or none of them; nothing else absorbed), reached through
 * Reshapes that only split their last dim, each value read by the next node alone (Hugging
 * Face's BERT: separate query, key and value Linears), the three become one MatMul by the
 * weights side by side, [K, N_q + N_k + N_v], and the node reads its operands from that
 * output: A from element 0 of a row, B from N_q, V from N_q + N_k
 * (fused_attention_params' offsets), each row N_q + N_k + N_v elements long. One product
 * of 3N columns keeps the GPU busier than three of N: on the H200 a 128 x 768 x 768 float16
 * product takes about as long as one of 128 x 2304 x 768 (docs/performance.md).
 * Otherwise, where an operand is a layout of one value through Transposes (one at least: a
 * copy), Gathers of a constant index, Splits and reshapes (PyTorch 2's MultiheadAttention
 * at batch 1 reordering its in-projection's output; timm's unbind), the node reads it in
 * that value through the layout's strides and offset, and the nodes nothing reads go.
 */
#include "graph/graph.h"

/* Merges the projections of g's FusedAttention nodes, or has them read through their
 * operands' layouts, in place (new values in g, its arena; the merged product where the
 * query's was, the nodes left unread dropped, the order kept); *merged (may be NULL) counts
 * the attention nodes changed. */
vkml_status fuse_qkv(graph *g, int *merged, vkml_error *err);
