#pragma once
/*
 * GridSample (opsets 16-22): X [N, C, D1..Dr] sampled at the points of grid
 * [N, O1..Or, r] (normalised coordinates in [-1, 1], last spatial dim first), giving
 * Y [N, C, O1..Or]. The per-axis taps of one point (gridsample_axis_taps) are shared by
 * every device, as the ONNX reference (PyTorch's grid_sampler) defines them.
 */
#include "graph/graph.h"

typedef enum gridsample_mode {
    GRIDSAMPLE_LINEAR,
    GRIDSAMPLE_NEAREST,
    GRIDSAMPLE_CUBIC
} gridsample_mode;
typedef enum gridsample_padding {
    GRIDSAMPLE_ZEROS,
    GRIDSAMPLE_BORDER,
    GRIDSAMPLE_REFLECTION,
} gridsample_padding;

typedef struct gridsample_params {
    gridsample_mode mode;
    gridsample_padding padding;
    bool align_corners;
} gridsample_params;

/* Most taps per axis (cubic). */
#define GRIDSAMPLE_MAX_TAPS 4

/* Taps along one axis of extent `size` for the normalised coordinate `v`: input indices
 * (-1: a zero from the padding) and weights; returns their count. Nearest rounds halves to
 * even (the node tests' data, 2-D and 3-D alike). */
int gridsample_axis_taps(const gridsample_params *p, int64_t size, double v, int64_t *idx,
                         double *w);
