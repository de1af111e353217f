#pragma once
/*
 * DeformConv (opsets 19-22), 2-D: Conv whose every kernel tap samples X bilinearly at
 * its place moved by a learnt offset, scaled by an optional mask.
 *   X [N, C, H, W], W [M, C/group, kH, kW], offset [N, offset_group*2*kH*kW, oH, oW]
 *   ((dy, dx) per tap), B [M], mask [N, offset_group*kH*kW, oH, oW] -> Y [N, M, oH, oW].
 * The channels split into offset_group groups, each with its own offsets and mask.
 */
#include "ops/conv.h"

/* Attributes (node->params); conv first, so conv_shape_parse reads it as conv_attrs. */
typedef struct deformconv_attrs {
    conv_attrs conv;
    int64_t offset_group;
} deformconv_attrs;

enum { DEFORM_IN_X, DEFORM_IN_W, DEFORM_IN_OFFSET, DEFORM_IN_B, DEFORM_IN_MASK };

/* The node's geometry (conv_params) after its inputs are checked. */
vkml_status deformconv_resolve(const graph_value *values, const graph_node *node, conv_params *p,
                               vkml_error *err);
