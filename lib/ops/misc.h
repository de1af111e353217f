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
