/* Conv/Gemm/MatMul epilogues: see epilogue.h. The activations are the unfused ops'
 * formulas (ops/eltwise_formula.h), so fusion changes no result on the CPU device. */
#include "ops/epilogue.h"
#include "ops/eltwise_formula.h"

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
    if (e->norm) {
        const graph_value *y = &values[node->outputs[0]];
        int sv = op_epilogue_input(node, e->norm_scale), bv = op_epilogue_input(node, e->norm_bias);
        int64_t n = y->rank >= 1 ? y->dims[y->rank - 1] : -1;
        bool ok = sv >= 0 && n > 0 && (e->norm_bias < 0 || bv >= 0);
        for (int k = 0; ok && k < 2; k++) {
            int v = k ? bv : sv;
            ok = v < 0 || (values[v].dtype == y->dtype &&
                           vkml_tensor_element_count(values[v].rank, values[v].dims) == (size_t)n);
        }
        if (!ok)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "%s with fused %s: the LayerNormalization's scale or bias is not a "
                             "vector of the output's last dim (VKML_NO_FUSE=1 loads the model "
                             "unfused)",
                             node->op_type, e->absorbed);
    }
    if (e->residual < 0)
        return VKML_OK;
    int r = op_epilogue_residual(node);
    if (r < 0 || node->n_outputs < 1 || node->outputs[0] < 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: fused residual input missing",
                         node->op_type);
    /* the residual is read element for element in the output's order: its shape may differ
     * by views that keep the memory as it is (passes/fuse_epilogue.c) */
    const graph_value *res = &values[r], *y = &values[node->outputs[0]];
    bool same = res->rank == y->rank, known = res->rank >= 0 && y->rank >= 0;
    for (int d = 0; same && d < y->rank; d++)
        same = res->dims[d] == y->dims[d];
    for (int d = 0; known && d < res->rank; d++)
        known = res->dims[d] >= 0;
    for (int d = 0; known && d < y->rank; d++)
        known = y->dims[d] >= 0;
    same = res->dtype == y->dtype &&
           (same || (known && vkml_tensor_element_count(res->rank, res->dims) ==
                                  vkml_tensor_element_count(y->rank, y->dims)));
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

float op_epilogue_act(const graph_epilogue *e, float a)
{
    return eltwise_formula_f32(e->act, a, 0, e->alpha, e->beta, 0);
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

void op_epilogue_norm(const graph_epilogue *e, float *y, size_t lines, size_t n, const float *scale,
                      const float *bias)
{
    if (!e || !e->norm || n == 0)
        return;
    for (size_t l = 0; l < lines; l++) {
        float *row = y + l * n;
        double mean = 0.0, var = 0.0;
        for (size_t j = 0; j < n; j++)
            mean += row[j];
        mean /= (double)n;
        for (size_t j = 0; j < n; j++)
            var += (row[j] - mean) * (row[j] - mean);
        double inv = 1.0 / sqrt(var / (double)n + e->norm_epsilon);
        for (size_t j = 0; j < n; j++)
            row[j] = (float)((row[j] - mean) * inv * scale[j] + (bias ? bias[j] : 0.0));
    }
}
