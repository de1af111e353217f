/* CPU losses: SoftmaxCrossEntropyLoss (log_softmax over C, then the NLL) and
 * NegativeLogLikelihoodLoss, in double. A label outside [0, C) that is not ignore_index
 * fails at run time naming it. */
#include "cpu/cpu_elem.h"
#include "cpu/cpu_kernels.h"
#include "ops/misc.h"

#include <math.h>

/* log_softmax over c of scores[n, :, d], written to log_prob (when not NULL); returns
 * the value at class `pick` (or 0 when pick is out of range). */
static double log_softmax_line(const void *x, vkml_dtype t, void *log_prob, const loss_geom *g,
                               int64_t n, int64_t d, int64_t pick)
{
    int64_t base = n * g->c * g->d + d;
    double mx = -INFINITY, sum = 0.0, picked = 0.0;
    for (int64_t c = 0; c < g->c; c++) {
        double v = cpu_load_f64(x, t, base + c * g->d);
        mx = v > mx ? v : mx;
    }
    for (int64_t c = 0; c < g->c; c++)
        sum += exp(cpu_load_f64(x, t, base + c * g->d) - mx);
    double lse = mx + log(sum);
    for (int64_t c = 0; c < g->c; c++) {
        double v = cpu_load_f64(x, t, base + c * g->d) - lse;
        if (log_prob)
            cpu_store_f64(log_prob, t, base + c * g->d, v);
        if (c == pick)
            picked = v;
    }
    return picked;
}

vkml_status cpu_loss(const op_cpu_args *args, vkml_error *err)
{
    const graph_node *node = args->node;
    const loss_params *p = node->params;
    loss_geom g;
    vkml_status st = loss_resolve(args->values, node, &g, err);
    if (st)
        return st;
    vkml_dtype t = args->values[node->inputs[0]].dtype;
    vkml_dtype lt = args->values[node->inputs[1]].dtype;
    void *log_prob = node->n_outputs > 1 && node->outputs[1] >= 0 ? args->out[1] : NULL;
    double total = 0.0, weight_sum = 0.0;
    for (int64_t n = 0; n < g.n; n++) {
        for (int64_t d = 0; d < g.d; d++) {
            int64_t i = n * g.d + d;
            int64_t label = cpu_load_i64(args->in[1], lt, i);
            bool ignored = p->has_ignore && label == p->ignore_index;
            if (!ignored && (label < 0 || label >= g.c))
                return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                                 "%s: label %lld at position %lld is outside [0, %lld)",
                                 node->op_type, (long long)label, (long long)i, (long long)g.c);
            double lp = 0.0;
            if (p->softmax)
                lp = log_softmax_line(args->in[0], t, log_prob, &g, n, d, ignored ? -1 : label);
            else if (!ignored)
                lp = cpu_load_f64(args->in[0], t, (n * g.c + label) * g.d + d);
            double w = ignored ? 0.0 : g.has_weight ? cpu_load_f64(args->in[2], t, label) : 1.0;
            double loss = ignored ? 0.0 : -lp * w;
            if (p->reduction == LOSS_NONE)
                cpu_store_f64(args->out[0], t, i, loss);
            total += loss;
            weight_sum += w;
        }
    }
    if (p->reduction == LOSS_SUM)
        cpu_store_f64(args->out[0], t, 0, total);
    else if (p->reduction == LOSS_MEAN)
        cpu_store_f64(args->out[0], t, 0, total / weight_sum);
    return VKML_OK;
}
