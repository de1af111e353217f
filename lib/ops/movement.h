#pragma once
/*
 * Data movement ops (movement.c, pad.c): their params, and THE index scheme their kernels
 * share. Every op of the family is a list of steps, each one of two kinds:
 *
 *  - MV_STRIDED: for every n-d index i of a domain, dst[dst_offset + sum i_d * dst_stride_d]
 *    = src[src_offset + sum i_d * src_stride_d]. Strides are in elements; a source stride
 *    is 0 where it broadcasts (Expand) and negative where it runs backwards (Slice with
 *    negative steps). Transpose, Slice, Expand, Concat (one step per input), Split (one
 *    per output), DepthToSpace and SpaceToDepth are this.
 *  - MV_MAPPED: a dense output, each coordinate mapped back into a dense source:
 *    c_d = i_d - begin_d, then per mode kept (constant: a value outside the source),
 *    clamped (edge), reflected or wrapped. Pad and Tile (wrap from 0) are this,
 *    ConstantOfShape a map from an empty source.
 *  - MV_BAND: a dense [batch, rows, cols] output keeping the elements whose diagonal
 *    j - i is within [band_lo, band_hi] (from the source, or band_value) and `value`
 *    elsewhere: Trilu, EyeLike.
 *
 * The CPU (cpu/movement.c) and Vulkan (vulkan/ops_movement.c) kernels run the same steps
 * by element size only (1, 2, 4 or 8 bytes), so every dtype moves alike.
 */
#include "ops/op.h"

typedef enum mv_kind {
    MV_STRIDED,
    MV_MAPPED,
    MV_BAND,
} mv_kind;

/* How MV_MAPPED treats a coordinate outside the source (also Pad's `mode`). */
typedef enum mv_mode {
    MV_MODE_CONSTANT = 0, /* the step's value */
    MV_MODE_REFLECT = 1,  /* mirrored without repeating the edge */
    MV_MODE_EDGE = 2,     /* clamped to the edge */
    MV_MODE_WRAP = 3,     /* modulo the source size */
} mv_mode;

typedef struct mv_step {
    mv_kind kind;
    int src, dst; /* which of the node's inputs and outputs it moves (positions) */
    int rank;
    int64_t dims[VKML_MAX_RANK]; /* the domain (MV_MAPPED: the dense output) */
    /* MV_STRIDED */
    int64_t src_strides[VKML_MAX_RANK], dst_strides[VKML_MAX_RANK];
    int64_t src_offset, dst_offset;
    /* MV_MAPPED */
    mv_mode mode;
    int64_t src_dims[VKML_MAX_RANK];
    int64_t begin[VKML_MAX_RANK];
    uint64_t value; /* MV_MODE_CONSTANT, MV_BAND: the element's bytes (low bytes) */
    /* MV_BAND */
    int64_t band_lo, band_hi;
    bool band_from_src; /* else band_value */
    uint64_t band_value;
} mv_step;

/* Number of steps of a movement node (0 when it moves nothing). */
int mv_step_count(const graph_node *node);
/* Step k of a movement node whose shapes are inferred. Inputs that shape the output
 * (Slice starts, Pad pads) are constants, read from values; scalars that do not (Pad's
 * constant_value, Trilu's k) are read from `in` (the node's input data at run time) when
 * not NULL, else from values (constants; a GPU refuses the node when they are not).
 * Strided steps come out with dims of size 1 dropped and contiguous dims merged. */
vkml_status mv_describe(const graph_value *values, const graph_node *node, const void *const *in,
                        int k, mv_step *step, vkml_error *err);
/* A strided step with dims of size 1 dropped and each dim merged into the one before it
 * where both walk memory as one (a dim of size 0 leaves one dim of size 0). */
void mv_simplify_strided(mv_step *s);
/* Whether a step copies one contiguous block (a strided step of one dense run): then it
 * moves nothing where the destination block is the source block (views, plan/views.h). */
bool mv_step_contiguous(const mv_step *s);
/* A step of a Concat, Split or Slice that moves channels [first, first + count) (dim 1)
 * of a [N, C, spatial...] value of rank 3 to 5 to channels of another, whole in every
 * other dim: from the node's input `src` to its output `dst` (positions). */
typedef struct mv_channels {
    int src, dst;
    int64_t src_first, dst_first, count;
} mv_channels;
/* Whether step k of node is such a channel range (then *c says which). */
bool mv_channel_range(const graph_value *values, const graph_node *node, int k, mv_channels *c);
/* Data of input i: in[i] when in is not NULL, else the constant's data (or NULL). */
const void *mv_input_data(const graph_value *values, const graph_node *node, const void *const *in,
                          int i);

/* Output 0 gets input 0's dtype, the given shape, and its data when it is constant
 * (ops/shape.c; Reshape, Squeeze, Unsqueeze). */
void shape_set_alias_output(graph_value *values, const graph_node *node, int rank,
                            const int64_t *dims);
/* Normalises axis (negative counts from the end) into [0, rank); fails naming `what`. */
vkml_status mv_axis(const graph_node *node, const char *what, int64_t axis, int rank, int *out,
                    vkml_error *err);
/* Ints of an attribute before `opset_moved` and of input `input` from then on (Slice
 * starts, Squeeze axes, Split sizes, Pad pads). *present is false when neither is given
 * (an absent optional input or attribute). Input values must be constant. */
vkml_status mv_ints(const graph_value *values, const graph_node *node, int opset_moved,
                    const int64_t *attr, size_t attr_count, bool attr_present, int input,
                    int64_t *out, size_t max, size_t *count, bool *present, vkml_error *err);

/* Params, parsed once at load. */
typedef struct transpose_params {
    int n_perm; /* 0: reverse the dims */
    int64_t perm[VKML_MAX_RANK];
} transpose_params;

typedef struct axis_params {
    int64_t axis;
} axis_params;

/* Ops whose ints moved from an attribute to an input at some opset (Squeeze, Unsqueeze,
 * Slice, Split): the attribute's values, kept for the older opsets. */
typedef struct ints_attr {
    const int64_t *v;
    size_t n;
    bool present;
} ints_attr;

typedef struct split_params {
    int64_t axis;
    ints_attr split;     /* before opset 13 */
    int64_t num_outputs; /* opset 18; 0 when absent */
} split_params;

typedef struct slice_params {
    ints_attr starts, ends, axes; /* before opset 10 */
} slice_params;

typedef struct squeeze_params {
    ints_attr axes; /* before opset 13 */
} squeeze_params;

typedef struct space_params {
    int64_t blocksize;
    bool crd; /* DepthToSpace mode CRD (else DCR) */
} space_params;

typedef struct pad_params {
    mv_mode mode;
    ints_attr pads; /* before opset 11 */
    float value;    /* before opset 11 */
} pad_params;

typedef struct shape_params {
    int64_t start, end; /* end INT64_MAX: to the last dim */
} shape_params;

typedef struct constant_of_shape_params {
    vkml_dtype dtype;
    uint64_t value; /* the element's bytes */
} constant_of_shape_params;

typedef struct trilu_params {
    bool upper;
} trilu_params;

typedef struct eye_like_params {
    vkml_dtype dtype; /* UNDEFINED: the input's */
    int64_t k;
} eye_like_params;

typedef struct compress_params {
    bool has_axis;
    int64_t axis;
} compress_params;

/* The bytes of a float as an element of dtype (Pad's value attribute, OneHot). */
uint64_t mv_element_from_double(vkml_dtype dtype, double v);
/* An element of dtype at p as a double (Range, OneHot depth). */
double mv_element_to_double(vkml_dtype dtype, const void *p);
/* An integer element of dtype at p, floats truncated (OneHot indices, Range). */
int64_t mv_element_to_int(vkml_dtype dtype, const void *p);
