/* Resize and Upsample on the CPU: per-axis tap tables (ops/resize.h), then every output
 * element sums the product of its axes' taps; float32 images (one tap on every axis but
 * the last two) in two passes a row: its row taps, then its column taps. */
#include "ops/resize.h"
#include "cpu/cpu_elem.h"
#include "cpu/cpu_kernels.h"

#include <stdlib.h>

/* The taps of every output index of one axis, zero weights dropped. */
typedef struct axis_table {
    int stride;      /* taps reserved per output index */
    int *count;      /* [out]: taps kept; 0 = extrapolation_value */
    int64_t *offset; /* [out * stride]: input index times the axis' element stride */
    double *weight;  /* [out * stride] */
} axis_table;

typedef struct resize_job {
    const resize_params *p;
    const resize_geometry *g;
    axis_table axes[VKML_MAX_RANK];
    const void *x;
    void *y;
    vkml_dtype dtype;
    int64_t row; /* output elements per row (last axis) */
    bool planes; /* float32, one tap of weight 1 on every axis but the last two */
} resize_job;

static bool build_table(const resize_params *p, const resize_geometry *g, int d, int64_t step,
                        axis_table *t)
{
    size_t n = (size_t)g->out[d] * (size_t)g->taps[d];
    t->stride = g->taps[d];
    t->count = malloc(sizeof(int) * (size_t)(g->out[d] ? g->out[d] : 1));
    t->offset = malloc(sizeof(int64_t) * (n ? n : 1));
    t->weight = malloc(sizeof(double) * (n ? n : 1));
    if (!t->count || !t->offset || !t->weight)
        return false;
    for (int64_t o = 0; o < g->out[d]; o++) {
        int64_t idx[RESIZE_MAX_TAPS];
        double w[RESIZE_MAX_TAPS];
        int taps = resize_axis_taps(p, g, d, o, idx, w), kept = 0;
        int64_t *off = t->offset + o * t->stride;
        double *wt = t->weight + o * t->stride;
        for (int k = 0; k < taps; k++) {
            if (w[k] == 0.0 && !(kept == 0 && k == taps - 1))
                continue;
            off[kept] = idx[k] * step;
            wt[kept++] = w[k];
        }
        t->count[o] = kept;
    }
    return true;
}

static void free_tables(resize_job *job)
{
    for (int d = 0; d < job->g->rank; d++) {
        free(job->axes[d].count);
        free(job->axes[d].offset);
        free(job->axes[d].weight);
    }
}

/* One output element at index o: the sum over the product of its axes' taps. */
static double sample(const resize_job *job, const int64_t *o)
{
    int rank = job->g->rank, k[VKML_MAX_RANK] = {0};
    const int64_t *off[VKML_MAX_RANK];
    const double *wt[VKML_MAX_RANK];
    int count[VKML_MAX_RANK];
    for (int d = 0; d < rank; d++) {
        const axis_table *t = &job->axes[d];
        count[d] = t->count[o[d]];
        if (!count[d])
            return job->p->extrapolation;
        off[d] = t->offset + o[d] * t->stride;
        wt[d] = t->weight + o[d] * t->stride;
    }
    double acc = 0.0;
    for (;;) {
        int64_t at = 0;
        double w = 1.0;
        for (int d = 0; d < rank; d++) {
            at += off[d][k[d]];
            w *= wt[d][k[d]];
        }
        acc += w * cpu_load_f64(job->x, job->dtype, at);
        int d = rank - 1;
        while (d >= 0 && ++k[d] == count[d])
            k[d--] = 0;
        if (d < 0)
            return acc;
    }
}

/* Whether every axis but the last two takes one tap of weight 1 at each output index (an
 * image's batch and channels), so that a row of a float32 output is its row taps times its
 * column taps over one plane. */
static bool planes_form(const resize_job *job)
{
    const resize_geometry *g = job->g;
    if (job->dtype != VKML_DTYPE_FLOAT || g->rank < 2)
        return false;
    for (int d = 0; d < g->rank - 2; d++)
        for (int64_t o = 0; o < g->out[d]; o++)
            if (job->axes[d].count[o] != 1 || job->axes[d].weight[o * job->axes[d].stride] != 1.0)
                return false;
    return true;
}

/* Output row r in planes form: the same sums as sample(), in two passes: the row taps
 * blend their input rows into one row (tmp: the input's width), then each output element
 * sums its column taps of it; rows + cols products an input column and an output element
 * instead of rows x cols (a cubic resize's 16 taps: 8). */
static void plane_row(const resize_job *job, int64_t r, int64_t *o, double *tmp)
{
    int rank = job->g->rank;
    cpu_index_from_linear(r * job->row, job->g->out, rank, o);
    const float *x = job->x;
    float *y = (float *)job->y + r * job->row;
    int64_t base = 0;
    for (int d = 0; d < rank - 2; d++)
        base += job->axes[d].offset[o[d] * job->axes[d].stride];
    const axis_table *rt = &job->axes[rank - 2], *ct = &job->axes[rank - 1];
    int rows = rt->count[o[rank - 2]];
    const int64_t *roff = rt->offset + o[rank - 2] * rt->stride;
    const double *rw = rt->weight + o[rank - 2] * rt->stride;
    int64_t width = job->g->in[rank - 1];
    for (int a = 0; a < rows; a++) { /* along the row: contiguous, vectorised */
        const float *in = x + base + roff[a];
        double w = rw[a];
        if (a == 0)
            for (int64_t j = 0; j < width; j++)
                tmp[j] = w * in[j];
        else
            for (int64_t j = 0; j < width; j++)
                tmp[j] += w * in[j];
    }
    for (int64_t i = 0; i < job->row; i++) {
        int cols = ct->count[i];
        const int64_t *coff = ct->offset + i * ct->stride; /* the last axis' step is 1 */
        const double *cw = ct->weight + i * ct->stride;
        if (!rows || !cols) {
            y[i] = (float)job->p->extrapolation;
            continue;
        }
        double acc = 0.0;
        if (cols == 4 && coff[3] == coff[0] + 3) { /* cubic inside the row: 4 in a run */
            const double *t = tmp + coff[0];
            acc = ((cw[0] * t[0] + cw[1] * t[1]) + cw[2] * t[2]) + cw[3] * t[3];
        } else {
            for (int b = 0; b < cols; b++)
                acc += cw[b] * tmp[coff[b]];
        }
        y[i] = (float)acc;
    }
}

static void resize_rows(void *ctx, int64_t begin, int64_t end)
{
    const resize_job *job = ctx;
    int rank = job->g->rank;
    int64_t o[VKML_MAX_RANK];
    double *tmp = job->planes ? malloc(sizeof(double) * (size_t)(job->g->in[rank - 1] + 1)) : NULL;
    if (tmp) {
        for (int64_t r = begin; r < end; r++)
            plane_row(job, r, o, tmp);
        free(tmp);
        return;
    }
    for (int64_t r = begin; r < end; r++) {
        cpu_index_from_linear(r * job->row, job->g->out, rank, o);
        for (int64_t i = 0; i < job->row; i++) {
            o[rank - 1] = i;
            cpu_store_f64(job->y, job->dtype, r * job->row + i, sample(job, o));
        }
    }
}

vkml_status cpu_resize(const op_cpu_args *args, vkml_error *err)
{
    const graph_node *node = args->node;
    const graph_value *x = &args->values[node->inputs[0]];
    resize_inputs ri;
    resize_geometry g;
    vkml_status st;
    if ((st = resize_read_inputs(args->values, node, (const void *const *)args->in, &ri, err)) ||
        (st = resize_resolve(node->params, x->rank, x->dims, &ri, &g, err)))
        return st;
    const graph_value *y = &args->values[node->outputs[0]];
    for (int d = 0; d < g.rank; d++)
        if (g.out[d] != y->dims[d])
            return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                             "Resize: the run's scales/sizes give dim %d = %lld, the plan %lld", d,
                             (long long)g.out[d], (long long)y->dims[d]);
    int64_t total = (int64_t)vkml_tensor_element_count(g.rank, g.out);
    if (total == 0)
        return VKML_OK;
    mv_step copy; /* whole-factor repeats and strides: a strided copy */
    if (resize_as_strided(node->params, &g, &copy)) {
        cpu_move_step(&copy, args->in[0], args->out[0], vkml_dtype_size(x->dtype));
        return VKML_OK;
    }
    resize_job job = {.p = node->params,
                      .g = &g,
                      .x = args->in[0],
                      .y = args->out[0],
                      .dtype = x->dtype,
                      .row = g.rank ? g.out[g.rank - 1] : 1};
    bool ok = true;
    int64_t step = 1;
    for (int d = g.rank - 1; d >= 0; d--) {
        ok = ok && build_table(node->params, &g, d, step, &job.axes[d]);
        step *= g.in[d];
    }
    job.planes = ok && planes_form(&job);
    if (ok && g.rank == 0)
        cpu_store_f64(job.y, job.dtype, 0, cpu_load_f64(job.x, job.dtype, 0));
    else if (ok)
        sched_parallel_for(total / job.row, (double)job.row * 16.0, resize_rows, &job);
    free_tables(&job);
    if (!ok)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Resize: no memory for the tap tables");
    return VKML_OK;
}
