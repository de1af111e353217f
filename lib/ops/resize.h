#pragma once
/*
 * Resize (opsets 10-19) and Upsample (7-9): attributes parsed once (resize_params), the
 * geometry resolved from the input shape and the constant roi/scales/sizes
 * (resize_geometry), and the per-axis sampling taps every device computes the same way.
 *
 * Sampling along one axis, as the ONNX reference does it: output index x maps to the
 * input coordinate c (coordinate_transformation_mode); base = floor(c), or c - 1 when c
 * is an integer, ratio = c - base in (0, 1]; taps sit at base + start + k for k < n with
 * weight kernel((start + k - ratio) * s), indices clamped to the edges (normalised when
 * antialiasing or excluding outside taps). Linear and cubic are separable: an output
 * element is the sum over the product of its axes' taps.
 */
#include "graph/graph.h"
#include "ops/movement.h"

/* Most taps one axis may use (antialiased downsampling widens the filter by 1/scale);
 * more is refused rather than looping on an attacker-sized scale. */
#define RESIZE_MAX_TAPS 64

typedef enum resize_mode { RESIZE_NEAREST, RESIZE_LINEAR, RESIZE_CUBIC } resize_mode;

typedef enum resize_coord {
    RESIZE_HALF_PIXEL,
    RESIZE_HALF_PIXEL_SYMMETRIC,
    RESIZE_PYTORCH_HALF_PIXEL,
    RESIZE_ALIGN_CORNERS,
    RESIZE_ASYMMETRIC,
    RESIZE_TF_CROP_AND_RESIZE,
} resize_coord;

typedef enum resize_nearest {
    RESIZE_ROUND_PREFER_FLOOR,
    RESIZE_ROUND_PREFER_CEIL,
    RESIZE_FLOOR,
    RESIZE_CEIL,
    RESIZE_SIMPLE, /* opsets < 11: floor when upsampling, ceil when downsampling */
} resize_nearest;

typedef enum resize_aspect {
    RESIZE_STRETCH,
    RESIZE_NOT_LARGER,
    RESIZE_NOT_SMALLER,
} resize_aspect;

typedef struct resize_params {
    resize_mode mode;
    resize_coord coord;
    resize_nearest nearest;
    resize_aspect aspect;
    float cubic_a;
    float extrapolation;
    bool exclude_outside;
    bool antialias;
    int n_axes; /* 0: every axis */
    int64_t axes[VKML_MAX_RANK];
    int n_attr_scales; /* Upsample-7: scales attribute */
    float attr_scales[VKML_MAX_RANK];
    int roi_input, scales_input, sizes_input; /* input index by opset, -1 when none */
} resize_params;

/* The resolved geometry of one node. */
typedef struct resize_geometry {
    int rank;
    int64_t in[VKML_MAX_RANK], out[VKML_MAX_RANK];
    double scale[VKML_MAX_RANK];
    double out_exact[VKML_MAX_RANK]; /* scale * in: the reference's output_width */
    double roi_start[VKML_MAX_RANK], roi_end[VKML_MAX_RANK];
    int taps[VKML_MAX_RANK]; /* n of every axis */
    int tap_start[VKML_MAX_RANK];
} resize_geometry;

/* The data of the roi/scales/sizes inputs (count 0 when omitted or empty). */
typedef struct resize_inputs {
    float roi[2 * VKML_MAX_RANK];
    size_t n_roi;
    float scales[VKML_MAX_RANK];
    size_t n_scales;
    int64_t sizes[VKML_MAX_RANK];
    size_t n_sizes;
} resize_inputs;

/* Reads the roi/scales/sizes data: `data[i]` when data is given (a kernel's inputs), else
 * the constants of `values` (UNSUPPORTED, naming the input, when one is not constant). */
vkml_status resize_read_inputs(const graph_value *values, const graph_node *node,
                               const void *const *data, resize_inputs *ri, vkml_error *err);
/* Resolves the output shape, scales and roi for an input of `rank` dims. */
vkml_status resize_resolve(const resize_params *p, int rank, const int64_t *in,
                           const resize_inputs *ri, resize_geometry *g, vkml_error *err);

/* The taps of output index x along axis d: their input indices (clamped) and weights;
 * returns the count (0: the output is extrapolation_value, tf_crop_and_resize). */
int resize_axis_taps(const resize_params *p, const resize_geometry *g, int d, int64_t x,
                     int64_t *idx, double *w);
/* A nearest Resize as a strided copy (mv_step, MV_STRIDED: dense output) where every axis
 * reads input off + (x / q) * f for output index x: upsampling by whole factors (the
 * detectors' 2x nearest Upsample), subsampling, crops; false (s undefined) otherwise, or when
 * the copy needs more than VKML_MAX_RANK dims. */
bool resize_as_strided(const resize_params *p, const resize_geometry *g, mv_step *s);
