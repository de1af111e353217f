#pragma once
/* The fused epilogue of Conv, Gemm and MatMul (graph_epilogue, made by
 * passes/fuse_epilogue.c): the inputs it adds, its shape check, and the one C function the
 * CPU kernels apply it with (shaders/common/epilogue.glsl is the GPU's). */
#include "graph/graph.h"

/* Inputs of the node without the fused ones (a MatMul's bias, a residual: the last). */
static inline int op_epilogue_base_inputs(const graph_node *n)
{
    const graph_epilogue *e = n->epilogue;
    if (e && e->bias >= 0)
        return e->bias;
    return e && e->residual >= 0 ? e->residual : n->n_inputs;
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
 * with bias[i % n_bias] and residual[i] (NULL when e has none). float32. */
void op_epilogue_apply(const graph_epilogue *e, float *y, const float *bias, size_t n_bias,
                       const float *residual, size_t count);
