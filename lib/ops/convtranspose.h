#pragma once
/*
 * ConvTranspose: X [N, C, D1..Dn], W [C, M/group, k1..kn], B [M] (optional),
 * Y [N, M, O1..On]. Input position i and kernel tap k land on output position
 *   o = i * stride - pad_begin + k * dilation
 * (pad_begin may be negative when output_shape asks for more than the full output).
 * Attributes are parsed once (convtranspose_params); the geometry follows from them and
 * the input shapes (convtranspose_resolve), as the ONNX reference computes it.
 */
#include "ops/window.h"

typedef enum convtranspose_auto_pad {
    CONVT_NOTSET,
    CONVT_VALID,
    CONVT_SAME_UPPER,
    CONVT_SAME_LOWER,
} convtranspose_auto_pad;

typedef struct convtranspose_params {
    int64_t group;
    convtranspose_auto_pad auto_pad;
    /* Attribute values and counts (0: absent). */
    int n_kernel, n_strides, n_dilations, n_pads, n_output_padding, n_output_shape;
    int64_t kernel[OP_MAX_SPATIAL], strides[OP_MAX_SPATIAL], dilations[OP_MAX_SPATIAL];
    int64_t pads[2 * OP_MAX_SPATIAL], output_padding[OP_MAX_SPATIAL];
    int64_t output_shape[OP_MAX_SPATIAL + 2];
} convtranspose_params;

typedef struct convtranspose_geometry {
    int spatial;
    int64_t batch, in_channels, out_channels, group;
    int64_t in[OP_MAX_SPATIAL], out[OP_MAX_SPATIAL], kernel[OP_MAX_SPATIAL];
    int64_t strides[OP_MAX_SPATIAL], dilations[OP_MAX_SPATIAL];
    int64_t pad_begin[OP_MAX_SPATIAL];
    bool has_bias;
} convtranspose_geometry;

/* Checks the node's inputs against the parsed attributes and fills g. */
vkml_status convtranspose_resolve(const graph_value *values, const graph_node *node,
                                  convtranspose_geometry *g, vkml_error *err);
