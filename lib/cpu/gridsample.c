/* GridSample on the CPU: per output point, the taps of each axis (ops/gridsample.h), then
 * every channel sums the product of the taps. */
#include "ops/gridsample.h"
#include "cpu/cpu_elem.h"
#include "cpu/cpu_kernels.h"

#include <string.h>

typedef struct gridsample_job {
    const gridsample_params *p;
    int spatial;
    int64_t channels, in_size, out_size;
    const int64_t *in; /* input spatial dims */
    const void *x, *grid;
    void *y;
    vkml_dtype dtype, grid_dtype;
} gridsample_job;

typedef struct point_taps {
    int count[VKML_MAX_RANK];
    int64_t off[VKML_MAX_RANK][GRIDSAMPLE_MAX_TAPS]; /* -1: zero padding */
    double w[VKML_MAX_RANK][GRIDSAMPLE_MAX_TAPS];
} point_taps;

static double sample_plane(const gridsample_job *job, const point_taps *t, int64_t plane)
{
    int k[VKML_MAX_RANK] = {0}, s = job->spatial;
    double acc = 0.0;
    for (;;) {
        int64_t at = 0;
        double w = 1.0;
        for (int d = 0; d < s && at >= 0; d++) {
            at = t->off[d][k[d]] < 0 ? -1 : at + t->off[d][k[d]];
            w *= t->w[d][k[d]];
        }
        if (at >= 0)
            acc += w * cpu_load_f64(job->x, job->dtype, plane * job->in_size + at);
        int d = s - 1;
        while (d >= 0 && ++k[d] == t->count[d])
            k[d--] = 0;
        if (d < 0)
            return acc;
    }
}

/* Output points (n * out_size + o) in [begin, end). */
static void gridsample_points(void *ctx, int64_t begin, int64_t end)
{
    const gridsample_job *job = ctx;
    int s = job->spatial;
    for (int64_t pt = begin; pt < end; pt++) {
        int64_t n = pt / job->out_size, o = pt % job->out_size, step = 1;
        point_taps t;
        for (int d = s - 1; d >= 0; d--) {
            /* grid's last dim lists coordinates innermost spatial dim first */
            double v = cpu_load_f64(job->grid, job->grid_dtype, pt * s + (s - 1 - d));
            int64_t idx[GRIDSAMPLE_MAX_TAPS];
            t.count[d] = gridsample_axis_taps(job->p, job->in[d], v, idx, t.w[d]);
            for (int k = 0; k < t.count[d]; k++)
                t.off[d][k] = idx[k] < 0 ? -1 : idx[k] * step;
            step *= job->in[d];
        }
        for (int64_t c = 0; c < job->channels; c++) {
            int64_t plane = n * job->channels + c;
            cpu_store_f64(job->y, job->dtype, plane * job->out_size + o,
                          sample_plane(job, &t, plane));
        }
    }
}

vkml_status cpu_gridsample(const op_cpu_args *args, vkml_error *err)
{
    (void)err;
    const graph_node *node = args->node;
    const graph_value *x = &args->values[node->inputs[0]];
    const graph_value *grid = &args->values[node->inputs[1]];
    int s = x->rank - 2;
    gridsample_job job = {
        .p = node->params,
        .spatial = s,
        .channels = x->dims[1],
        .in_size = (int64_t)vkml_tensor_element_count(s, x->dims + 2),
        .out_size = (int64_t)vkml_tensor_element_count(s, grid->dims + 1),
        .in = x->dims + 2,
        .x = args->in[0],
        .grid = args->in[1],
        .y = args->out[0],
        .dtype = x->dtype,
        .grid_dtype = grid->dtype,
    };
    if (job.in_size == 0) { /* nothing to sample: zeros */
        memset(args->out[0], 0, cpu_output_bytes(args, 0));
        return VKML_OK;
    }
    sched_parallel_for(x->dims[0] * job.out_size, (double)job.channels * 16.0, gridsample_points,
                       &job);
    return VKML_OK;
}
