#pragma once
/*
 * Normalisations: Softmax, LogSoftmax, Hardmax, LayerNormalization,
 * InstanceNormalization, GroupNormalization, MeanVarianceNormalization, LpNormalization,
 * RMSNormalization
 * (each "per line of a reduce_view: statistics, then apply"), and BatchNormalization and
 * LRN (per element, no reduction).
 */
#include "ops/reduce.h"

typedef enum norm_op {
    NORM_SOFTMAX,
    NORM_LOG_SOFTMAX,
    NORM_HARDMAX,
    NORM_LAYER,    /* y = (x - mean) / sqrt(var + eps) * scale + bias */
    NORM_INSTANCE, /* same, per (n, c) */
    NORM_GROUP,    /* same, per (n, group) */
    NORM_MVN,      /* y = (x - mean) / (sqrt(var) + 1e-9) */
    NORM_LP,       /* y = x / ||x||_p, p 1 or 2 */
    NORM_RMS,      /* y = x / sqrt(mean(x^2) + eps) * scale */
} norm_op;

/* Attributes (parsed once). */
typedef struct norm_params {
    norm_op op;
    int64_t axis;
    float epsilon;
    int64_t p;          /* LpNormalization */
    int64_t num_groups; /* GroupNormalization */
    int n_axes;         /* MeanVarianceNormalization */
    int64_t axes[VKML_MAX_RANK];
} norm_params;

/* The lines a node normalises and where its scale/bias (inputs 1, 2) are read: element
 * r of line l uses parameter
 *   ((l / line_div) % line_mod) * line_mul + (r / r_div) % r_mod. */
typedef struct norm_geom {
    reduce_view view;
    norm_op op;
    float epsilon;
    int64_t p;
    int64_t line_div, line_mod, line_mul, r_div, r_mod;
    int64_t param_count; /* elements of scale and bias (0: no scale/bias inputs) */
    /* LayerNormalization's optional Mean and InvStdDev outputs: shape and dtype. */
    int stat_rank;
    int64_t stat_dims[VKML_MAX_RANK];
    vkml_dtype stat_dtype;
} norm_geom;

vkml_status norm_resolve(const graph_value *values, const graph_node *node, norm_geom *g,
                         vkml_error *err);

static inline int64_t norm_param_index(const norm_geom *g, int64_t line, int64_t r)
{
    return ((line / g->line_div) % g->line_mod) * g->line_mul + (r / g->r_div) % g->r_mod;
}

/* BatchNormalization and LRN: per element of [outer, channels, inner]. */
typedef struct channel_params {
    float epsilon;  /* BatchNormalization */
    float momentum; /* BatchNormalization training: running = in * momentum + batch * (1 - momentum)
                     */
    bool training;  /* BatchNormalization training_mode (opset 14+): batch statistics */
    float alpha, beta, bias;
    int64_t size; /* LRN window over channels */
} channel_params;

typedef struct channel_geom {
    int64_t outer, channels, inner;
} channel_geom;

vkml_status batchnorm_resolve(const graph_value *values, const graph_node *node, channel_geom *g,
                              vkml_error *err);
vkml_status lrn_resolve(const graph_value *values, const graph_node *node, channel_geom *g,
                        vkml_error *err);
