#pragma once
/* Elementwise ops: the op, dtype and (binary) numpy broadcasting as strides, shared by the
 * shape functions, the CPU kernels and the Vulkan lowerings. */
#include "graph/graph.h"

typedef enum eltwise_op {
    ELTWISE_ADD,
    ELTWISE_SUB,
    ELTWISE_MUL,
    ELTWISE_DIV, /* integers truncate toward zero, like C */
    ELTWISE_RELU,
    ELTWISE_SIGMOID,
    ELTWISE_TANH,
} eltwise_op;

typedef struct eltwise_params {
    eltwise_op op;
    bool binary;
    vkml_dtype dtype;            /* of inputs and output */
    int rank;                    /* output rank */
    int64_t dims[VKML_MAX_RANK]; /* output dims */
    /* Element strides of input 0 / input 1 per output dim; 0 where broadcast. */
    int64_t a_strides[VKML_MAX_RANK];
    int64_t b_strides[VKML_MAX_RANK];
    size_t count; /* output elements */
} eltwise_params;

vkml_status eltwise_params_parse(const graph_value *values, const graph_node *node,
                                 eltwise_params *p, vkml_error *err);
