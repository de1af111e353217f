/* Conv/Gemm/MatMul epilogues: see epilogue.h. The formulas are those of the unfused ops'
 * CPU kernels (cpu/eltwise_math.c), so fusion changes no result on the CPU device. */
#include "ops/epilogue.h"

#include <math.h>

vkml_status op_epilogue_check(const graph_value *values, const graph_node *node, vkml_error *err)
{
    char sr[160], sy[160];
    if (!node->epilogue)
        return VKML_OK;
    const graph_epilogue *e = node->epilogue;
    if (e->bias >= 0) {
        const graph_value *b = e->bias < node->n_inputs && node->inputs[e->bias] >= 0
                                   ? &values[node->inputs[e->bias]]
                                   : NULL;
        const graph_value *y = &values[node->outputs[0]];
        if (!b || y->rank < 1 || b->dtype != y->dtype ||
            vkml_tensor_element_count(b->rank, b->dims) != (size_t)y->dims[y->rank - 1])
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "%s with fused %s: the bias is not a vector of the output's last "
                             "dim (VKML_NO_FUSE=1 loads the model unfused)",
                             node->op_type, e->absorbed);
    }
    if (e->residual < 0)
        return VKML_OK;
    int r = op_epilogue_residual(node);
    if (r < 0 || node->n_outputs < 1 || node->outputs[0] < 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: fused residual input missing",
                         node->op_type);
    const graph_value *res = &values[r], *y = &values[node->outputs[0]];
    bool same = res->dtype == y->dtype && res->rank == y->rank;
    for (int d = 0; same && d < y->rank; d++)
        same = res->dims[d] == y->dims[d];
    if (!same)
        return vkml_fail(
            err, VKML_ERROR_INVALID_MODEL,
            "%s with fused %s: the residual '%s' %s %s differs from the output %s "
            "%s (VKML_NO_FUSE=1 loads the model unfused)",
            node->op_type, node->epilogue->absorbed, res->name, vkml_dtype_name(res->dtype),
            graph_shape_string(res->rank, res->dims, sr, sizeof(sr)), vkml_dtype_name(y->dtype),
            graph_shape_string(y->rank, y->dims, sy, sizeof(sy)));
    return VKML_OK;
}

static float sigmoid(float a)
{
    return a >= 0 ? 1 / (1 + expf(-a)) : expf(a) / (1 + expf(a));
}

float op_epilogue_act(const graph_epilogue *e, float a)
{
    switch (e->act) {
    case GRAPH_EPI_NONE: return a;
    case GRAPH_EPI_RELU: return a < 0 ? 0 : a;
    case GRAPH_EPI_CLIP: return a < e->alpha ? e->alpha : a > e->beta ? e->beta : a;
    case GRAPH_EPI_SIGMOID: return sigmoid(a);
    case GRAPH_EPI_HARD_SIGMOID: return fmaxf(0, fminf(1, e->alpha * a + e->beta));
    case GRAPH_EPI_HARD_SWISH: return a * fmaxf(0, fminf(1, a / 6 + 0.5f));
    case GRAPH_EPI_LEAKY_RELU: return a < 0 ? e->alpha * a : a;
    case GRAPH_EPI_SILU: return a * sigmoid(e->alpha * a);
    case GRAPH_EPI_GELU: return 0.5f * a * (1 + erff(a * 0.7071067811865476f));
    case GRAPH_EPI_GELU_TANH:
        return 0.5f * a * (1 + tanhf(0.7978845608028654f * (a + 0.044715f * a * a * a)));
    case GRAPH_EPI_X_HARD_SIGMOID: return a * fmaxf(0, fminf(1, e->alpha * a + e->beta));
    }
    return a;
}

void op_epilogue_apply(const graph_epilogue *e, float *y, const float *bias, size_t n_bias,
                       const float *residual, size_t count)
{
    if (!e)
        return;
    bool first = residual && e->residual_first, after = residual && !e->residual_first;
    float scale = e->scaled ? e->scale : 1.0f; /* times 1 is exact */
    for (size_t i = 0; i < count; i++) {
        float v = scale * y[i];
        v = bias && n_bias ? v + bias[i % n_bias] : v;
        v = first ? v + residual[i] : v;
        v = op_epilogue_act(e, v);
        y[i] = after ? v + residual[i] : v;
    }
}
