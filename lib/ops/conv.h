#pragma once
/* Conv attribute parsing, shared by the shape function, the CPU kernel and the Vulkan
 * lowering. Layout: X [N, C, D1..Dn], W [M, C/group, k1..kn], B [M] (optional),
 * Y [N, M, O1..On]. */
#include "ops/window.h"

/* Conv's attributes, parsed once at load (conv_parse). */
typedef struct conv_attrs {
    window_attrs win;
    int64_t group;
} conv_attrs;

typedef struct conv_params {
    int64_t batch;        /* N */
    int64_t in_channels;  /* C */
    int64_t out_channels; /* M */
    int64_t group;
    window_params win; /* kernel from kernel_shape or W, pads resolved */
    bool has_bias;     /* input 2 present */
    /* A fused MaxPool (graph_epilogue.pool): its window over the conv's output (win.out),
     * and the node's output is [N, M, pool.out...]. */
    bool pooled;
    window_params pool;
} conv_params;

/* Checks the node's inputs (dtypes float, ranks, channels against group) against its
 * parsed attributes (node->params); fills p. INVALID_MODEL for malformed nodes,
 * UNSUPPORTED for what vkml lacks. */
/* Sets output 0 of a convolution-shaped node: [N, M, spatial out...] of `dtype`. */
void conv_set_output(graph_value *values, const graph_node *node, const conv_params *p,
                     vkml_dtype dtype);
vkml_status conv_params_parse(const graph_value *values, const graph_node *node, conv_params *p,
                              vkml_error *err);
/* The shape part of conv_params_parse, for ops that lay their inputs out otherwise
 * (ConvInteger, QLinearConv): x, w and the bias (NULL when absent) of any dtype. The
 * node's params are conv_attrs (op_list.h gives those ops conv_parse). */
vkml_status conv_shape_parse(const graph_node *node, const graph_value *x, const graph_value *w,
                             const graph_value *bias, conv_params *p, vkml_error *err);
