#pragma once
/*
 * Sliding-window geometry shared by Conv and the pooling ops: kernel, strides,
 * dilations and pads per spatial dimension, with auto_pad (NOTSET, VALID, SAME_UPPER,
 * SAME_LOWER) and ceil_mode already resolved into explicit pads and output sizes.
 */
#include "graph/graph.h"

/* Spatial dimensions of an N-d window op: rank minus batch and channel. */
#define OP_MAX_SPATIAL (VKML_MAX_RANK - 2)

typedef struct window_params {
    int spatial;                 /* number of spatial dims, 1..OP_MAX_SPATIAL */
    int64_t in[OP_MAX_SPATIAL];  /* input spatial size */
    int64_t out[OP_MAX_SPATIAL]; /* output spatial size */
    int64_t kernel[OP_MAX_SPATIAL];
    int64_t strides[OP_MAX_SPATIAL];
    int64_t dilations[OP_MAX_SPATIAL];
    int64_t pads_begin[OP_MAX_SPATIAL]; /* after auto_pad resolution */
    int64_t pads_end[OP_MAX_SPATIAL];
} window_params;

/* Reads strides, dilations, pads and auto_pad of `node` for a window of `kernel` over the
 * input spatial sizes `in` (spatial dims). `ceil_mode`: output sizes round up (pooling),
 * dropping a last window that would start in the end padding. `allow_dilations`: false
 * for ops whose opset has no dilations attribute (then it must be absent or all 1). */
vkml_status window_params_parse(const graph_node *node, int spatial, const int64_t *in,
                                const int64_t *kernel, bool ceil_mode, bool allow_dilations,
                                window_params *w, vkml_error *err);

/* Elements in one window (product of kernel sizes). */
int64_t window_kernel_size(const window_params *w);
/* Elements of the output spatial grid (product of out). */
int64_t window_out_size(const window_params *w);
/* Elements of the input spatial grid (product of in). */
int64_t window_in_size(const window_params *w);

/* Fails (INVALID_MODEL) unless x has rank >= 3 (N, C, spatial...) for op `op_type`. */
vkml_status window_check_input(const graph_value *x, const char *op_type, vkml_error *err);
/* Output shape [n, c, out...] of a window op; returns its rank. */
int window_output_dims(const window_params *w, int64_t n, int64_t c, int64_t *dims);
