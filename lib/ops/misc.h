#pragma once
/*
 * The remaining ops of the ONNX node tests, each small: the losses
 * (SoftmaxCrossEntropyLoss, NegativeLogLikelihoodLoss) and friends. Params structs and
 * the geometry their kernels share.
 */
#include "ops/op.h"

/* SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss. */
typedef enum loss_reduction {
    LOSS_NONE,
    LOSS_SUM,
    LOSS_MEAN,
} loss_reduction;

typedef struct loss_params {
    bool softmax; /* SoftmaxCrossEntropyLoss: log_softmax over C first */
    loss_reduction reduction;
    bool has_ignore;
    int64_t ignore_index;
} loss_params;

/* Scores [N, C, D...] seen as [n, c, d] (d the product of D...); labels [N, D...]. */
typedef struct loss_geom {
    int64_t n, c, d;
    bool has_weight;
} loss_geom;

vkml_status loss_resolve(const graph_value *values, const graph_node *node, loss_geom *g,
                         vkml_error *err);

/* BitCast: the bytes of input 0 as `to` (same element size). */
typedef struct bitcast_params {
    vkml_dtype to;
} bitcast_params;

/* ReverseSequence. */
typedef struct revseq_params {
    int64_t batch_axis, time_axis;
} revseq_params;

/* ReverseSequence as [outer, time/batch ...]: element (b, t) of the sequence walk. */
typedef struct revseq_geom {
    int batch_axis, time_axis;
    int64_t batch, time;
} revseq_geom;

vkml_status revseq_resolve(const graph_value *values, const graph_node *node, revseq_geom *g,
                           vkml_error *err);

/* RotaryEmbedding (opset 23). */
typedef struct rotary_params {
    bool interleaved;
    int64_t rotary_dim; /* 0: head size */
    int64_t num_heads;  /* 3-D input: heads in the hidden dim */
} rotary_params;

/* Input as [batch, heads, seq, head] (4-D) or [batch, seq, heads * head] (3-D): element
 * (b, h, s, d) at b * b_stride + h * h_stride + s * s_stride + d. */
typedef struct rotary_geom {
    int64_t batch, heads, seq, head, rot;
    int64_t b_stride, h_stride, s_stride;
    int64_t cache_rows; /* rows of cos/sin with position_ids; 0 without */
} rotary_geom;

vkml_status rotary_resolve(const graph_value *values, const graph_node *node, rotary_geom *g,
                           vkml_error *err);

/* HannWindow, HammingWindow, BlackmanWindow (opset 17): [size] values of dtype. */
typedef struct window_fn_params {
    bool periodic;
    vkml_dtype dtype;
} window_fn_params;

/* Value n of the window of node (one of the three) over `size` values. */
double window_fn_value(const graph_node *node, int64_t n, int64_t size);

/* Det: [..., M, M] as `count` matrices of m x m. */
vkml_status det_resolve(const graph_value *values, const graph_node *node, int64_t *count,
                        int64_t *m, vkml_error *err);

/* DFT (opsets 17 and 20). */
typedef struct dft_params {
    bool onesided, inverse;
    int64_t axis; /* attribute before opset 20 */
} dft_params;

/* x as [outer, len_in, inner, comps_in]; y as [outer, n_out, inner, comps_out]; n the
 * transform length (dft_length, or len_in; 2 * (len_in - 1) for an inverse one-sided). */
typedef struct dft_geom {
    int64_t outer, inner, len_in, n, n_out;
    int comps_in, comps_out;
    int rank;
    int64_t out_dims[VKML_MAX_RANK];
} dft_geom;

/* axis_data: the axis input's run-time value (opset 20) when it is not a constant, or
 * NULL; without either the axis is unknown, and only shapes that do not depend on it
 * resolve (g->outer and g->inner are then 0). */
vkml_status dft_resolve(const graph_value *values, const graph_node *node, const void *axis_data,
                        dft_geom *g, vkml_error *err);

/* TensorScatter (opset 24): update written into a copy of the cache along axis, from
 * write_indices[b] on, per batch b. */
typedef struct tscatter_params {
    int64_t axis;
    bool circular;
} tscatter_params;

/* Cache as [batch, outer, max_seq, inner], update as [batch, outer, seq, inner]. */
typedef struct tscatter_geom {
    int64_t batch, outer, max_seq, seq, inner;
} tscatter_geom;

vkml_status tscatter_resolve(const graph_value *values, const graph_node *node, tscatter_geom *g,
                             vkml_error *err);
