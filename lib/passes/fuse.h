#pragma once
/* The load-time fusion passes (passes/fuse.c, passes/fuse_epilogue.c) and their helpers. */
#include "graph/graph.h"

/* Fusion at load (passes/fuse.c): a BatchNormalization (inference mode, constant float
 * parameters) whose input is a Conv with constant float weights, read by nothing else,
 * becomes part of that Conv (weights and bias scaled per output channel). Re-sorts the
 * graph; *n_fused (may be NULL) counts the folded nodes. */
vkml_status graph_fuse_conv_batchnorm(graph *g, int *n_fused, vkml_error *err);

/* Pad folding at load (passes/fuse_pad.c): a Pad of zeros along the spatial axes (constant
 * mode, constant pads, N and C unpadded) whose output only a Conv or an AveragePool reads
 * (auto_pad NOTSET; the pool with ceil_mode 0, and count_include_pad when it pads itself)
 * becomes that node's pads (the pool's with count_include_pad 1). Re-sorts the graph;
 * *n_fused (may be NULL) counts the folded Pads. */
vkml_status graph_fuse_pads(graph *g, int *n_fused, vkml_error *err);

/* Whether load-time fusion is switched off: env VKML_NO_FUSE set to a value other than
 * "" or "0". The one place that reads the switch. */
bool graph_fusion_disabled(void);

/* Epilogue fusion at load (passes/fuse_epilogue.c): a float Conv, Gemm or MatMul whose
 * output is read by one node and is not a graph output absorbs that node when it is an
 * activation (Relu, Clip with constant bounds, Sigmoid, HardSigmoid, HardSwish, LeakyRelu,
 * Gelu, x * Sigmoid(x), x * HardSigmoid(x), x * (Erf(x / sqrt(2)) + 1) * 0.5: Gelu as
 * exporters write it below opset 20) or an Add of a tensor of the output's shape (the
 * residual, which becomes an input of the node); then the same once more (Add then
 * activation or activation then Add). A MatMul first takes an Add of a constant along its
 * last dim as its bias; after those, a Mul of an input by a float constant scalar read by
 * nothing else as a scale of its product (graph_epilogue.scale), and the Transposes that
 * make an input as a view of their source (graph_epilogue.view). A Gemm or MatMul also
 * takes an Add it reaches through views that keep its memory (reshapes of dims of size 1,
 * Transposes moving only those) as its residual, read in its own element order. `shapes` are g's
 * values with shapes inferred (at some binding of the symbolic dims; a residual must match the
 * output there and in `shapes2`, a second binding, or NULL). Re-sorts the graph; *n_fused
 * (may be NULL) counts absorbed nodes. */
vkml_status graph_fuse_epilogues(graph *g, const graph_value *shapes, const graph_value *shapes2,
                                 int *n_fused, vkml_error *err);
/* Whether some node of g reads a Conv, Gemm or MatMul output with an op epilogue fusion
 * may absorb, or a MatMul reads a Mul's, Transpose's or Reshape's (a cheap test before
 * inferring shapes for graph_fuse_epilogues). */
bool graph_epilogue_candidates(const graph *g);

/* Per value, the number of node inputs reading it (calloc'd, n_values + 1; NULL on out of
 * memory). */
int *fuse_count_readers(const graph *g);
/* Whether n is ai.onnx op `op`. */
bool fuse_is_op(const graph_node *n, const char *op);
/* Whether v holds one float or float16 element, known (a constant, or a value inference
 * computed): then *out is it, as float. */
bool fuse_scalar_value(const graph_value *v, float *out);
/* Drops the nodes a pass emptied (op_type ""), keeping the order. */
void fuse_compact(graph *g);
/* A pass's end: *n_fused (may be NULL) = fused; when some were, the emptied nodes dropped
 * and the graph re-sorted. */
vkml_status fuse_finish(graph *g, int fused, int *n_fused, vkml_error *err);
/* A new float32 constant value named base + suffix of the given shape, its data (zeroed,
 * in the graph's arena) in *data; -1 on out of memory. */
int fuse_new_constant(graph *g, const char *base, const char *suffix, int rank, const int64_t *dims,
                      float **data);
