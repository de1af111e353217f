/* CPU normalisations: per line of a reduce_view, statistics then apply (Softmax,
 * LogSoftmax, Hardmax, Layer/Instance/Group/MeanVariance/Lp/RMS normalisation); per element
 * BatchNormalization and LRN. Computed in double whatever the storage type. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3") /* as eltwise_math.c */
#endif
#include "ops/norm.h"
#include "cpu/cpu_elem.h"
#include "cpu/cpu_kernels.h"

#include <stdlib.h>

typedef struct norm_job {
    const norm_geom *g;
    vkml_dtype t;
    const void *x, *scale, *bias;
    void *y, *mean_out, *invstd_out;
} norm_job;

static double line_load(const norm_job *j, int64_t base, int64_t r)
{
    return cpu_load_f64(j->x, j->t, base + reduce_elem_offset(&j->g->view, r));
}

static void line_store(const norm_job *j, int64_t base, int64_t r, double v)
{
    cpu_store_f64(j->y, j->t, base + reduce_elem_offset(&j->g->view, r), v);
}

/* Softmax, LogSoftmax, Hardmax: max (and its first index), then sum of exp(x - max). */
static void softmax_line(const norm_job *j, int64_t base)
{
    int64_t n = j->g->view.count, best = 0;
    double mx = -INFINITY, sum = 0.0;
    for (int64_t r = 0; r < n; r++) {
        double x = line_load(j, base, r);
        if (x > mx || r == 0) {
            best = r;
            mx = x > mx || r == 0 ? x : mx;
        }
    }
    if (j->g->op == NORM_HARDMAX) {
        for (int64_t r = 0; r < n; r++)
            line_store(j, base, r, r == best);
        return;
    }
    for (int64_t r = 0; r < n; r++)
        sum += exp(line_load(j, base, r) - mx);
    double log_sum = log(sum);
    for (int64_t r = 0; r < n; r++) {
        double d = line_load(j, base, r) - mx;
        line_store(j, base, r, j->g->op == NORM_LOG_SOFTMAX ? d - log_sum : exp(d) / sum);
    }
}

/* Layer/Instance/Group/MeanVariance: mean, variance (two passes), then scale and bias;
 * RMS: the same with the mean taken as 0. */
static void meanvar_line(const norm_job *j, int64_t line, int64_t base)
{
    const norm_geom *g = j->g;
    int64_t n = g->view.count;
    double mean = 0.0, var = 0.0;
    for (int64_t r = 0; r < n && g->op != NORM_RMS; r++)
        mean += line_load(j, base, r);
    mean /= (double)n;
    for (int64_t r = 0; r < n; r++) {
        double d = line_load(j, base, r) - mean;
        var += d * d;
    }
    var /= (double)n;
    double inv = g->op == NORM_MVN ? 1.0 / (sqrt(var) + 1e-9) : 1.0 / sqrt(var + g->epsilon);
    for (int64_t r = 0; r < n; r++) {
        double y = (line_load(j, base, r) - mean) * inv;
        if (g->param_count) {
            int64_t pi = norm_param_index(g, line, r);
            y = y * cpu_load_f64(j->scale, j->t, pi) +
                (j->bias ? cpu_load_f64(j->bias, j->t, pi) : 0.0);
        }
        line_store(j, base, r, y);
    }
    if (j->mean_out)
        cpu_store_f64(j->mean_out, g->stat_dtype, line, mean);
    if (j->invstd_out)
        cpu_store_f64(j->invstd_out, g->stat_dtype, line, inv);
}

/* A zero vector stays zero (ONNX 22's reference). */
static void lp_line(const norm_job *j, int64_t base)
{
    int64_t n = j->g->view.count;
    double norm = 0.0;
    for (int64_t r = 0; r < n; r++) {
        double x = line_load(j, base, r);
        norm += j->g->p == 1 ? fabs(x) : x * x;
    }
    norm = j->g->p == 1 ? norm : sqrt(norm);
    for (int64_t r = 0; r < n; r++)
        line_store(j, base, r, norm > 0.0 ? line_load(j, base, r) / norm : 0.0);
}

static void norm_lines(void *ctx, int64_t begin, int64_t end)
{
    const norm_job *j = ctx;
    for (int64_t line = begin; line < end; line++) {
        int64_t base = reduce_line_offset(&j->g->view, line);
        if (j->g->op <= NORM_HARDMAX)
            softmax_line(j, base);
        else if (j->g->op == NORM_LP)
            lp_line(j, base);
        else
            meanvar_line(j, line, base);
    }
}

vkml_status cpu_norm(const op_cpu_args *args, vkml_error *err)
{
    norm_geom g;
    vkml_status st = norm_resolve(args->values, args->node, &g, err);
    if (st)
        return st;
    const graph_node *n = args->node;
    norm_job j = {
        .g = &g,
        .t = args->values[n->inputs[0]].dtype,
        .x = args->in[0],
        .scale = g.param_count ? args->in[1] : NULL,
        .bias = g.param_count && n->n_inputs > 2 ? args->in[2] : NULL,
        .y = args->out[0],
        .mean_out = n->n_outputs > 1 ? args->out[1] : NULL,
        .invstd_out = n->n_outputs > 2 ? args->out[2] : NULL,
    };
    if (g.view.count > 0)
        sched_parallel_for(g.view.lines, (double)g.view.count * 12, norm_lines, &j);
    return VKML_OK;
}

/* Sum over channel c of f(x) = (x - shift)^power (power 1 or 2), in double. */
static double channel_sum(const op_cpu_args *args, const channel_geom *g, vkml_dtype t, int64_t c,
                          double shift, int power)
{
    double sum = 0.0;
    for (int64_t o = 0; o < g->outer; o++) {
        int64_t base = (o * g->channels + c) * g->inner;
        for (int64_t i = 0; i < g->inner; i++) {
            double d = cpu_load_f64(args->in[0], t, base + i) - shift;
            sum += power == 2 ? d * d : d;
        }
    }
    return sum;
}

/* Training mode: the batch's mean and population variance of channel c (NaN when empty). */
static void batch_stats(const op_cpu_args *args, const channel_geom *g, vkml_dtype t, int64_t c,
                        double *mean, double *var)
{
    double n = (double)(g->outer * g->inner);
    *mean = channel_sum(args, g, t, c, 0.0, 1) / n;
    *var = channel_sum(args, g, t, c, *mean, 2) / n;
}

/* y = x * a[c] + b[c] over planes [begin, end) of [outer, channels]: float32 through
 * pointers, other types through the loads; the same double arithmetic either way. */
typedef struct bn_apply {
    vkml_dtype t;
    const void *x;
    void *y;
    const double *ab; /* a, b per channel */
    const channel_geom *g;
} bn_apply;

static void bn_planes(void *ctx, int64_t begin, int64_t end)
{
    const bn_apply *j = ctx;
    int64_t inner = j->g->inner;
    for (int64_t plane = begin; plane < end; plane++) {
        int64_t c = plane % j->g->channels, base = plane * inner;
        double a = j->ab[2 * c], b = j->ab[2 * c + 1];
        if (j->t == VKML_DTYPE_FLOAT) {
            const float *x = (const float *)j->x + base;
            float *y = (float *)j->y + base;
            for (int64_t i = 0; i < inner; i++)
                y[i] = (float)((double)x[i] * a + b);
            continue;
        }
        for (int64_t i = 0; i < inner; i++)
            cpu_store_f64(j->y, j->t, base + i, cpu_load_f64(j->x, j->t, base + i) * a + b);
    }
}

vkml_status cpu_batchnorm(const op_cpu_args *args, vkml_error *err)
{
    channel_geom g;
    vkml_status st = batchnorm_resolve(args->values, args->node, &g, err);
    if (st)
        return st;
    const channel_params *p = args->node->params;
    const graph_node *n = args->node;
    vkml_dtype t = args->values[n->inputs[0]].dtype;
    double *ab = malloc(sizeof(double) * 2 * (size_t)(g.channels > 0 ? g.channels : 1));
    if (!ab)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "BatchNormalization: out of memory");
    for (int64_t c = 0; c < g.channels; c++) {
        double mean = cpu_load_f64(args->in[3], t, c), var = cpu_load_f64(args->in[4], t, c);
        if (p->training) {
            double bmean, bvar;
            batch_stats(args, &g, t, c, &bmean, &bvar);
            double m = p->momentum;
            if (n->n_outputs > 1 && args->out[1])
                cpu_store_f64(args->out[1], t, c, mean * m + bmean * (1.0 - m));
            if (n->n_outputs > 2 && args->out[2])
                cpu_store_f64(args->out[2], t, c, var * m + bvar * (1.0 - m));
            mean = bmean;
            var = bvar;
        }
        ab[2 * c] = cpu_load_f64(args->in[1], t, c) / sqrt(var + p->epsilon);
        ab[2 * c + 1] = cpu_load_f64(args->in[2], t, c) - mean * ab[2 * c];
    }
    bn_apply job = {.t = t, .x = args->in[0], .y = args->out[0], .ab = ab, .g = &g};
    sched_parallel_for(g.outer * g.channels, 2.0 * (double)g.inner, bn_planes, &job);
    free(ab);
    return VKML_OK;
}

vkml_status cpu_lrn(const op_cpu_args *args, vkml_error *err)
{
    channel_geom g;
    vkml_status st = lrn_resolve(args->values, args->node, &g, err);
    if (st)
        return st;
    const channel_params *p = args->node->params;
    vkml_dtype t = args->values[args->node->inputs[0]].dtype;
    int64_t before = (p->size - 1) / 2, after = p->size / 2; /* floor and ceil of (size-1)/2 */
    for (int64_t o = 0; o < g.outer; o++) {
        for (int64_t c = 0; c < g.channels; c++) {
            int64_t lo = c - before < 0 ? 0 : c - before;
            int64_t hi = c + after >= g.channels ? g.channels - 1 : c + after;
            for (int64_t i = 0; i < g.inner; i++) {
                double sq = 0.0;
                for (int64_t k = lo; k <= hi; k++) {
                    double x = cpu_load_f64(args->in[0], t, (o * g.channels + k) * g.inner + i);
                    sq += x * x;
                }
                int64_t off = (o * g.channels + c) * g.inner + i;
                double d = pow(p->bias + p->alpha / (double)p->size * sq, p->beta);
                cpu_store_f64(args->out[0], t, off, cpu_load_f64(args->in[0], t, off) / d);
            }
        }
    }
    return VKML_OK;
}
