#pragma once
/* Helpers of the load-time fusion passes (graph/fuse.c, graph/fuse_epilogue.c). */
#include "graph/graph.h"

/* Per value, the number of node inputs reading it (calloc'd, n_values + 1; NULL on out of
 * memory). */
int *fuse_count_readers(const graph *g);
/* Whether n is ai.onnx op `op`. */
bool fuse_is_op(const graph_node *n, const char *op);
/* Drops the nodes a pass emptied (op_type ""), keeping the order. */
void fuse_compact(graph *g);
/* A new float32 constant value named base + suffix of the given shape, its data (zeroed,
 * in the graph's arena) in *data; -1 on out of memory. */
int fuse_new_constant(graph *g, const char *base, const char *suffix, int rank, const int64_t *dims,
                      float **data);
