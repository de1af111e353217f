#pragma once
/* The fused epilogue of Conv, Gemm and MatMul (graph_epilogue, made by
 * passes/fuse_epilogue.c): the inputs it adds, its shape check, and the one C function the
 * CPU kernels apply it with (shaders/common/epilogue.glsl is the GPU's). */
#include "graph/graph.h"

/* Inputs of the node without the fused ones (in order: a MatMul's bias, a residual, a
 * normalization's scale and bias: the last). */
static inline int op_epilogue_base_inputs(const graph_node *n)
{
    const graph_epilogue *e = n->epilogue;
    if (e && e->bias >= 0)
        return e->bias;
    if (e && e->residual >= 0)
        return e->residual;
    return e && e->norm ? e->norm_scale : n->n_inputs;
}

/* Input slot i of the node's value, or -1. */
static inline int op_epilogue_input(const graph_node *n, int i)
{
    return i >= 0 && i < n->n_inputs ? n->inputs[i] : -1;
}

/* The residual's value, or -1. */
static inline int op_epilogue_residual(const graph_node *n)
{
    int r = n->epilogue ? n->epilogue->residual : -1;
    return r >= 0 && r < n->n_inputs ? n->inputs[r] : -1;
}

/* After output 0's shape is set: a fused residual must be present, of output 0's dtype and
 * shape (INVALID_MODEL naming both otherwise; VKML_NO_FUSE=1 loads the model unfused). */
vkml_status op_epilogue_check(const graph_value *values, const graph_node *node, vkml_error *err);

/* The activation of e at x. */
float op_epilogue_act(const graph_epilogue *e, float x);

/* y[i] = the epilogue of y[i] (the node's result, its own bias included) for i < count,
 * with bias[i % n_bias] and residual[i] (NULL when e has none), all but the normalization
 * (op_epilogue_norm, after it). float32. */
void op_epilogue_apply(const graph_epilogue *e, float *y, const float *bias, size_t n_bias,
                       const float *residual, size_t count);

/* The fused LayerNormalization of e (if any) over `lines` lines of n values of y, in
 * place, with scale[j] and bias[j] (bias NULL: none); mean and variance in double, as the
 * node's CPU kernel. */
void op_epilogue_norm(const graph_epilogue *e, float *y, size_t lines, size_t n, const float *scale,
                      const float *bias);
