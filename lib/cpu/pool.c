/* MaxPool, AveragePool and the global pools on the CPU. */
#include "ops/pool.h"
#include "cpu/cpu_kernels.h"
#include "ops/op_decls.h"

#include <math.h>

typedef struct window_result {
    float value;
    int64_t argmax; /* spatial offset of the max in the input plane (row-major) */
} window_result;

/* Pools one output position o of one plane. */
static window_result pool_window(const pool_params *p, const float *plane, const int64_t *o)
{
    const window_params *w = &p->win;
    int64_t ksize = window_kernel_size(w), k[OP_MAX_SPATIAL] = {0};
    window_result r = {.value = p->is_max ? -INFINITY : 0.0f, .argmax = 0};
    int64_t counted = 0;
    bool found = false;
    for (int64_t kp = 0; kp < ksize; kp++, cpu_index_next(k, w->kernel, w->spatial)) {
        int64_t off = 0;
        bool inside = true, in_pads = true;
        for (int d = 0; d < w->spatial; d++) {
            int64_t pos = o[d] * w->strides[d] - w->pads_begin[d] + k[d] * w->dilations[d];
            inside = inside && pos >= 0 && pos < w->in[d];
            in_pads = in_pads && pos < w->in[d] + w->pads_end[d];
            off = off * w->in[d] + pos;
        }
        counted += inside || (p->count_include_pad && in_pads);
        if (!inside)
            continue;
        float v = plane[off];
        if (!p->is_max) {
            r.value += v;
        } else if (!found || v > r.value) {
            r.value = v;
            r.argmax = off;
        }
        found = true;
    }
    if (!p->is_max)
        r.value = counted ? r.value / (float)counted : NAN;
    return r;
}

/* Index of the spatial offset `off` in the order storage_order asks (1: column-major). */
static int64_t storage_index(const window_params *w, int64_t off, int storage_order)
{
    if (!storage_order)
        return off;
    int64_t idx[OP_MAX_SPATIAL], col = 0;
    cpu_index_from_linear(off, w->in, w->spatial, idx);
    for (int d = w->spatial - 1; d >= 0; d--)
        col = col * w->in[d] + idx[d];
    return col;
}

typedef struct pool_job {
    pool_params p;
    const float *x;
    float *y;
    int64_t *indices; /* MaxPool's optional output */
} pool_job;

/* Planes (n, c) in [begin, end). */
static void pool_planes(void *ctx, int64_t begin, int64_t end)
{
    const pool_job *job = ctx;
    const window_params *w = &job->p.win;
    int64_t isize = window_in_size(w), osize = window_out_size(w);
    for (int64_t plane = begin; plane < end; plane++) {
        int64_t o[OP_MAX_SPATIAL] = {0};
        for (int64_t i = 0; i < osize; i++, cpu_index_next(o, w->out, w->spatial)) {
            window_result r = pool_window(&job->p, job->x + plane * isize, o);
            job->y[plane * osize + i] = r.value;
            if (job->indices)
                job->indices[plane * osize + i] =
                    plane * isize + storage_index(w, r.argmax, job->p.storage_order);
        }
    }
}

vkml_status cpu_pool(const op_cpu_args *args, vkml_error *err)
{
    pool_job job;
    vkml_status st = pool_params_parse(args->values, args->node, &job.p, err);
    if (st)
        return st;
    job.x = args->in[0];
    job.y = args->out[0];
    job.indices = job.p.has_indices ? args->out[1] : NULL;
    double cost = (double)window_out_size(&job.p.win) * (double)window_kernel_size(&job.p.win);
    cpu_parallel_for(job.p.batch * job.p.channels, cost, pool_planes, &job);
    return VKML_OK;
}

vkml_status cpu_global_pool(const op_cpu_args *args, vkml_error *err)
{
    global_pool_params p;
    vkml_status st = global_pool_params_parse(args->values, args->node, &p, err);
    if (st)
        return st;
    const float *x = args->in[0];
    float *y = args->out[0];
    for (int64_t plane = 0; plane < p.batch * p.channels; plane++) {
        const float *v = x + plane * p.spatial_size;
        double acc = p.is_max ? v[0] : 0.0;
        for (int64_t i = 0; i < p.spatial_size; i++)
            acc = p.is_max ? (v[i] > acc ? v[i] : acc) : acc + v[i];
        y[plane] = (float)(p.is_max ? acc : acc / (double)p.spatial_size);
    }
    return VKML_OK;
}
