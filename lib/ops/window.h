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

typedef enum window_auto_pad {
    WINDOW_NOTSET,
    WINDOW_VALID,
    WINDOW_SAME_UPPER,
    WINDOW_SAME_LOWER,
} window_auto_pad;

/* The window attributes of a node, read once at load (window_attrs_parse): values and
 * counts (0: absent), checked against the spatial rank when the window is resolved. */
typedef struct window_attrs {
    int n_kernel, n_strides, n_dilations, n_pads;
    int64_t kernel[OP_MAX_SPATIAL];
    int64_t strides[OP_MAX_SPATIAL];
    int64_t dilations[OP_MAX_SPATIAL];
    int64_t pads[2 * OP_MAX_SPATIAL];
    window_auto_pad auto_pad;
} window_attrs;

/* An INTS attribute into out (at most max values, each at least min; larger than the
 * extent limit is UNSUPPORTED); *count 0 when absent. */
vkml_status window_read_ints(const graph_node *node, const char *name, int max, int64_t min,
                             int64_t *out, int *count, vkml_error *err);
/* Reads kernel_shape, strides, dilations, pads and auto_pad. */
vkml_status window_attrs_parse(const graph_node *node, window_attrs *a, vkml_error *err);

/* Resolves the window of `kernel` over the input spatial sizes `in` (spatial dims) from
 * the parsed attributes. `ceil_mode`: output sizes round up (pooling), dropping a last
 * window that would start in the end padding. `allow_dilations`: false for ops whose
 * opset has no dilations attribute (then it must be absent or all 1). */
vkml_status window_params_parse(const window_attrs *a, int opset, int spatial, const int64_t *in,
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
