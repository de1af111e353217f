/* MaxPool, AveragePool, LpPool and the global pools on the CPU. */
#include "ops/pool.h"
#include "cpu/cpu_elem.h"
#include "cpu/cpu_kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct window_result {
    double value;
    int64_t argmax; /* spatial offset of the max in the input plane (row-major) */
} window_result;

/* Kernel taps [*lo, *hi) of dimension d whose input position lies in [floor, limit): the
 * window's part inside the input (0, in[d]) or inside input and padding (-pads_begin[d],
 * in[d] + pads_end[d]). Work is then bounded by the input, not by a kernel that is mostly
 * padding. */
static void window_taps(const window_params *w, int d, int64_t o, int64_t floor, int64_t limit,
                        int64_t *lo, int64_t *hi)
{
    int64_t start = o * w->strides[d] - w->pads_begin[d], dil = w->dilations[d];
    *lo = start >= floor ? 0 : (floor - start + dil - 1) / dil;
    *hi = start >= limit ? 0 : (limit - 1 - start) / dil + 1;
    if (*hi > w->kernel[d])
        *hi = w->kernel[d];
    if (*lo > *hi)
        *lo = *hi;
}

/* Pools one output position o of the plane starting at element `plane` of x. */
static window_result pool_window(const pool_params *p, const void *x, vkml_dtype dtype,
                                 int64_t plane, const int64_t *o)
{
    const window_params *w = &p->win;
    int64_t lo[OP_MAX_SPATIAL], ext[OP_MAX_SPATIAL], k[OP_MAX_SPATIAL] = {0};
    int64_t taps = 1;
    double counted = 1; /* padded windows may count more taps than int64 holds */
    for (int d = 0; d < w->spatial; d++) {
        int64_t hi, plo, phi;
        window_taps(w, d, o[d], 0, w->in[d], &lo[d], &hi);
        window_taps(w, d, o[d], -w->pads_begin[d], w->in[d] + w->pads_end[d], &plo, &phi);
        ext[d] = hi - lo[d];
        taps *= ext[d];
        counted *= (double)(p->count_include_pad ? phi - plo : ext[d]);
    }
    window_result r = {.value = p->is_max ? -INFINITY : 0.0, .argmax = 0};
    for (int64_t t = 0; t < taps; t++, cpu_index_next(k, ext, w->spatial)) {
        int64_t off = 0;
        for (int d = 0; d < w->spatial; d++)
            off = off * w->in[d] + o[d] * w->strides[d] - w->pads_begin[d] +
                  (lo[d] + k[d]) * w->dilations[d];
        double v = cpu_load_f64(x, dtype, plane + off);
        if (p->is_lp) {
            r.value += pow(fabs(v), p->lp_p);
        } else if (!p->is_max) {
            r.value += v;
        } else if (t == 0 || v > r.value) {
            r.value = v;
            r.argmax = off;
        }
    }
    if (p->is_lp)
        r.value = pow(r.value, 1.0 / p->lp_p);
    else if (!p->is_max)
        r.value = counted ? r.value / counted : NAN;
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
    const void *x;
    void *y;
    vkml_dtype dtype;
    int64_t *indices; /* MaxPool's optional output */
    /* The float32 2-D path (pool_plane_2d): per output column its taps inside the input
     * [lo, hi) and its divisor's columns, 3 x out[1] values; NULL: the general path. */
    const int64_t *col_taps;
} pool_job;

/* pool_job.col_taps of a 2-D window (3 x out[1] values at col_taps). */
static void column_taps(const pool_params *p, int64_t *col_taps)
{
    const window_params *w = &p->win;
    int64_t in_w = w->in[1], out_w = w->out[1];
    int64_t *lo = col_taps, *hi = col_taps + out_w, *span = col_taps + 2 * out_w;
    for (int64_t ox = 0; ox < out_w; ox++) {
        int64_t plo, phi;
        window_taps(w, 1, ox, 0, in_w, &lo[ox], &hi[ox]);
        window_taps(w, 1, ox, -w->pads_begin[1], in_w + w->pads_end[1], &plo, &phi);
        span[ox] = p->count_include_pad ? phi - plo : hi[ox] - lo[ox];
    }
}

/* pool_window's max and average of a float32 2-D plane at once (the common case: NCHW
 * max pooling after a convolution): each column's taps inside the input found once a run
 * (column_taps), then every row's, and the taps read without tests. The same values as
 * pool_window (the first maximum, NaN kept when first; sums in double). */
static void pool_plane_2d(const pool_params *p, const float *x, float *y, const int64_t *col_taps)
{
    const window_params *w = &p->win;
    int64_t in_w = w->in[1], out_w = w->out[1];
    const int64_t *lo = col_taps, *hi = col_taps + out_w, *span = col_taps + 2 * out_w;
    int64_t dy = w->dilations[0], dx = w->dilations[1];
    for (int64_t oy = 0; oy < w->out[0]; oy++, y += out_w) {
        int64_t ylo, yhi, plo, phi;
        window_taps(w, 0, oy, 0, w->in[0], &ylo, &yhi);
        window_taps(w, 0, oy, -w->pads_begin[0], w->in[0] + w->pads_end[0], &plo, &phi);
        double rows = (double)(p->count_include_pad ? phi - plo : yhi - ylo);
        const float *top = x + (oy * w->strides[0] - w->pads_begin[0]) * in_w - w->pads_begin[1];
        for (int64_t ox = 0; ox < out_w; ox++) {
            const float *at = top + ox * w->strides[1];
            if (p->is_max) {
                float m = -INFINITY;
                bool first = true;
                for (int64_t ky = ylo; ky < yhi; ky++)
                    for (int64_t kx = lo[ox]; kx < hi[ox]; kx++) {
                        float v = at[ky * dy * in_w + kx * dx];
                        if (first || v > m)
                            m = v;
                        first = false;
                    }
                y[ox] = m;
                continue;
            }
            double sum = 0;
            for (int64_t ky = ylo; ky < yhi; ky++)
                for (int64_t kx = lo[ox]; kx < hi[ox]; kx++)
                    sum += at[ky * dy * in_w + kx * dx];
            double count = rows * (double)span[ox];
            y[ox] = (float)(count ? sum / count : NAN);
        }
    }
}

/* Planes (n, c) in [begin, end). */
static void pool_planes(void *ctx, int64_t begin, int64_t end)
{
    const pool_job *job = ctx;
    const window_params *w = &job->p.win;
    int64_t isize = window_in_size(w), osize = window_out_size(w);
    if (job->col_taps) {
        for (int64_t plane = begin; plane < end; plane++)
            pool_plane_2d(&job->p, (const float *)job->x + plane * isize,
                          (float *)job->y + plane * osize, job->col_taps);
        return;
    }
    for (int64_t plane = begin; plane < end; plane++) {
        int64_t o[OP_MAX_SPATIAL] = {0};
        for (int64_t i = 0; i < osize; i++, cpu_index_next(o, w->out, w->spatial)) {
            window_result r = pool_window(&job->p, job->x, job->dtype, plane * isize, o);
            cpu_store_f64(job->y, job->dtype, plane * osize + i, r.value);
            if (job->indices)
                job->indices[plane * osize + i] =
                    plane * isize + storage_index(w, r.argmax, job->p.storage_order);
        }
    }
}

/* Runs the job's planes in parallel, on the float32 2-D path where it applies (and the
 * memory for its column taps is there). */
static void run_pool(pool_job *job)
{
    const window_params *w = &job->p.win;
    int64_t *col_taps = NULL;
    if (w->spatial == 2 && job->dtype == VKML_DTYPE_FLOAT && !job->indices && !job->p.is_lp &&
        (col_taps = malloc(sizeof(int64_t) * 3 * (size_t)(w->out[1] + 1))))
        column_taps(&job->p, col_taps);
    job->col_taps = col_taps;
    double cost = (double)window_out_size(w) * (double)window_kernel_size(w);
    sched_parallel_for(job->p.batch * job->p.channels, cost, pool_planes, job);
    free(col_taps);
}

vkml_status cpu_pool(const op_cpu_args *args, vkml_error *err)
{
    pool_job job = {0};
    vkml_status st = pool_params_parse(args->values, args->node, &job.p, err);
    if (st)
        return st;
    job.x = args->in[0];
    job.y = args->out[0];
    job.dtype = args->values[args->node->inputs[0]].dtype;
    job.indices = job.p.has_indices ? args->out[1] : NULL;
    run_pool(&job);
    return VKML_OK;
}

void cpu_max_pool_float(const window_params *w, int64_t batch, int64_t channels, const float *x,
                        float *y)
{
    pool_job job = {.p = {.is_max = true, .batch = batch, .channels = channels, .win = *w},
                    .x = x,
                    .y = y,
                    .dtype = VKML_DTYPE_FLOAT};
    run_pool(&job);
}

static vkml_status global_pool_float(const op_cpu_args *args, vkml_error *err)
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

vkml_status cpu_global_pool(const op_cpu_args *args, vkml_error *err)
{
    return cpu_run_as_float(args, global_pool_float, err);
}

/* Offset in the output (dims out) of flat index `at` of the default shape (dims def), or
 * -1 when it falls outside the output. */
static int64_t unpool_target(int rank, const int64_t *def, const int64_t *out, int64_t at)
{
    int64_t idx[VKML_MAX_RANK], off = 0;
    cpu_index_from_linear(at, def, rank, idx);
    for (int d = 0; d < rank; d++) {
        if (idx[d] >= out[d])
            return -1;
        off = off * out[d] + idx[d];
    }
    return off;
}

vkml_status cpu_maxunpool(const op_cpu_args *args, vkml_error *err)
{
    const graph_value *x = &args->values[args->node->inputs[0]];
    const graph_value *y = &args->values[args->node->outputs[0]];
    int64_t def[VKML_MAX_RANK];
    unpool_default_dims(args->node->params, x, def);
    size_t bytes = cpu_output_bytes(args, 0), esize = vkml_dtype_size(x->dtype);
    int64_t count = (int64_t)vkml_tensor_element_count(x->rank, x->dims);
    int64_t limit = (int64_t)vkml_tensor_element_count(x->rank, def);
    const int64_t *idx = args->in[1];
    memset(args->out[0], 0, bytes);
    for (int64_t i = 0; i < count; i++) {
        int64_t to =
            idx[i] < 0 || idx[i] >= limit ? -1 : unpool_target(x->rank, def, y->dims, idx[i]);
        if (to < 0)
            return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                             "MaxUnpool: index %lld at %lld is out of range [0, %lld) or off the "
                             "output",
                             (long long)idx[i], (long long)i, (long long)limit);
        memcpy((char *)args->out[0] + to * (int64_t)esize,
               (const char *)args->in[0] + i * (int64_t)esize, esize);
    }
    return VKML_OK;
}
