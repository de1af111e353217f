/* NonMaxSuppression and RoiAlign on the CPU. */
#include "ops/detect.h"
#include "cpu/cpu_kernels.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

vkml_status cpu_nms(const op_cpu_args *args, vkml_error *err)
{
    nms_inputs in;
    vkml_status st =
        nms_read_inputs(args->values, args->node, (const void *const *)args->in, &in, err);
    if (st)
        return st;
    const graph_value *y = &args->values[args->node->outputs[0]];
    int64_t count = nms_select(args->node->params, &in, args->out[0], y->dims[0]);
    if (count < 0)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "NonMaxSuppression: out of memory");
    if (count > y->dims[0])
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "NonMaxSuppression: selected %lld boxes, the bound is %lld",
                         (long long)count, (long long)y->dims[0]);
    if (args->out_dims) {
        args->out_dims[0][0] = count;
        args->out_dims[0][1] = 3;
    }
    return VKML_OK;
}

typedef struct roi_job {
    const roialign_params *p;
    const float *x, *rois;
    const int64_t *batch;
    float *y;
    int64_t channels, height, width;
} roi_job;

/* Where roi r samples: box (start y, start x, height, width in input pixels), its image
 * and samples per bin. */
typedef struct roi_geom {
    double box[4];
    int64_t b, gh, gw;
} roi_geom;

#define ROI_CHANNEL_BLOCK 32

/* A bilinear sample is a product of two one-axis interpolations, and whether it lies on
 * the plane is a product of two one-axis tests; so a bin's grid of gh x gw samples is the
 * product of gh rows and gw columns. Along one axis the samples touch a few pixel lines,
 * each with its weights: their sum (avg mode) and their least and largest (max mode, the
 * weights being >= 0). A bin of one plane is then a sum (or a max) over the lines' pairs,
 * whatever the grid's density: 256 x 256 samples over two pixels cost four terms. */
typedef struct roi_line {
    int64_t at;
    double sum, lo, hi;
} roi_line;

typedef struct roi_axis {
    roi_line *lines;
    int64_t count, cap;
    int64_t outside; /* samples more than one pixel off the plane along this axis */
} roi_axis;

/* Adds weight w on pixel line `at`. The samples come in order along the axis, so a line
 * already touched is one of the last three. */
static void axis_add(roi_axis *a, int64_t at, double w)
{
    for (int64_t k = a->count - 1; k >= 0 && k >= a->count - 3; k--) {
        roi_line *l = &a->lines[k];
        if (l->at == at) {
            l->sum += w;
            l->lo = fmin(l->lo, w);
            l->hi = fmax(l->hi, w);
            return;
        }
    }
    a->lines[a->count++] = (roi_line){.at = at, .sum = w, .lo = w, .hi = w};
}

/* The lines that `count` samples at start + (i + 0.5) * step, i in [0, count), touch on an
 * axis of n pixels, as ONNX's RoiAlign defines a sample: nothing beyond one pixel off the
 * plane, clamped to its first and last pixel. Only the samples near [-1, n] are visited. */
static void axis_build(roi_axis *a, double start, double step, int64_t count, int64_t n)
{
    a->count = 0;
    int64_t lo = 0, hi = count - 1;
    if (step != 0 && count > 0) {
        double i_a = (-1.0 - start) / step - 0.5, i_b = ((double)n - start) / step - 0.5;
        double first = floor(fmin(i_a, i_b)) - 2, last = ceil(fmax(i_a, i_b)) + 2;
        lo = first > 0 ? (first < (double)count ? (int64_t)first : count) : 0;
        hi = last < (double)(count - 1) ? (last >= 0 ? (int64_t)last : -1) : count - 1;
    }
    int64_t inside = 0;
    for (int64_t i = lo; i <= hi; i++) {
        double pos = start + ((double)i + 0.5) * step;
        if (pos < -1.0 || pos > (double)n || n == 0)
            continue;
        inside++;
        pos = pos <= 0 ? 0 : pos;
        int64_t p0 = (int64_t)pos;
        if (p0 >= n - 1) {
            axis_add(a, n - 1, 1.0);
            axis_add(a, n - 1, 0.0);
        } else {
            double frac = pos - (double)p0;
            axis_add(a, p0, 1.0 - frac);
            axis_add(a, p0 + 1, frac);
        }
    }
    a->outside = count - inside;
}

/* Room on an axis for `count` samples over n pixels: two lines a sample, no more than the
 * pixels. */
static bool axis_reserve(roi_axis *a, int64_t count, int64_t n)
{
    int64_t need = 2 * count < n + 1 ? 2 * count : n + 1;
    need = need < 2 ? 2 : need + 2;
    if (need <= a->cap)
        return true;
    roi_line *lines = realloc(a->lines, sizeof(roi_line) * (size_t)need);
    if (!lines)
        return false;
    a->lines = lines;
    a->cap = need;
    return true;
}

/* One bin of one plane from its rows and columns (gh x gw samples): the samples' mean, or
 * in max mode the largest weighted corner of any sample, 0 for a sample off the plane. */
static float bin_value(const roialign_params *p, const roi_geom *g, const roi_axis *rows,
                       const roi_axis *cols, int64_t width, const float *plane)
{
    if (g->gh == 0 || g->gw == 0)
        return 0.0f;
    if (!p->is_max) {
        double acc = 0.0;
        for (int64_t r = 0; r < rows->count; r++) {
            const float *line = plane + rows->lines[r].at * width;
            double across = 0.0;
            for (int64_t c = 0; c < cols->count; c++)
                across += cols->lines[c].sum * line[cols->lines[c].at];
            acc += rows->lines[r].sum * across;
        }
        return (float)(acc / ((double)g->gh * (double)g->gw));
    }
    double best = rows->outside > 0 || cols->outside > 0 ? 0.0 : NAN;
    for (int64_t r = 0; r < rows->count; r++) {
        const roi_line *ry = &rows->lines[r];
        const float *line = plane + ry->at * width;
        for (int64_t c = 0; c < cols->count; c++) {
            const roi_line *cx = &cols->lines[c];
            double v = line[cx->at];
            best = fmax(best, v >= 0 ? ry->hi * cx->hi * v : ry->lo * cx->lo * v);
        }
    }
    return (float)best;
}

static vkml_status roi_measure(const roi_job *job, int64_t batches, int64_t r, roi_geom *g,
                               vkml_error *err)
{
    const roialign_params *p = job->p;
    const float *roi = job->rois + r * 4;
    double offset = p->half_pixel ? 0.5 : 0.0;
    g->b = job->batch[r];
    if (g->b < 0 || g->b >= batches)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "RoiAlign: batch index %lld of roi %lld is out of range [0, %lld)",
                         (long long)g->b, (long long)r, (long long)batches);
    double *box = g->box;
    box[0] = roi[1] * p->spatial_scale - offset;
    box[1] = roi[0] * p->spatial_scale - offset;
    box[2] = roi[3] * p->spatial_scale - offset - box[0];
    box[3] = roi[2] * p->spatial_scale - offset - box[1];
    if (!p->half_pixel) {
        box[2] = fmax(box[2], 1.0);
        box[3] = fmax(box[3], 1.0);
    }
    double gh = p->sampling_ratio ? (double)p->sampling_ratio : ceil(box[2] / (double)p->out_h);
    double gw = p->sampling_ratio ? (double)p->sampling_ratio : ceil(box[3] / (double)p->out_w);
    if (!(gh * gw <= (double)ROIALIGN_MAX_SAMPLES) || !isfinite(box[0]) || !isfinite(box[1]))
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "RoiAlign: roi %lld needs %g x %g samples per bin, more than %lld",
                         (long long)r, gh, gw, (long long)ROIALIGN_MAX_SAMPLES);
    g->gh = gh > 0 ? (int64_t)gh : 0;
    g->gw = gw > 0 ? (int64_t)gw : 0;
    return VKML_OK;
}

typedef struct roi_planes {
    const roi_job *job;
    const roi_geom *geoms;
    int64_t blocks;      /* channel blocks per roi */
    atomic_bool no_room; /* a range could not allocate its lines */
} roi_planes;

/* Items [begin, end) of [rois, channel blocks], split over the worker pool. An item works
 * out each bin's rows and columns (the same in every channel) once for its block of
 * channels. */
static void roi_planes_run(void *ctx, int64_t begin, int64_t end)
{
    roi_planes *rp = ctx;
    const roi_job *job = rp->job;
    const roialign_params *p = job->p;
    int64_t bins = p->out_h * p->out_w;
    roi_axis rows = {0}, cols = {0};
    for (int64_t item = begin; item < end; item++) {
        int64_t r = item / rp->blocks, c0 = item % rp->blocks * ROI_CHANNEL_BLOCK;
        int64_t c1 =
            c0 + ROI_CHANNEL_BLOCK < job->channels ? c0 + ROI_CHANNEL_BLOCK : job->channels;
        const roi_geom *g = &rp->geoms[r];
        if (!axis_reserve(&rows, g->gh, job->height) || !axis_reserve(&cols, g->gw, job->width)) {
            atomic_store(&rp->no_room, true);
            break;
        }
        const double *box = g->box;
        double bin_h = box[2] / (double)p->out_h, bin_w = box[3] / (double)p->out_w;
        for (int64_t b = 0; b < bins; b++) {
            int64_t ph = b / p->out_w, pw = b % p->out_w;
            axis_build(&rows, box[0] + (double)ph * bin_h, bin_h / (double)g->gh, g->gh,
                       job->height);
            axis_build(&cols, box[1] + (double)pw * bin_w, bin_w / (double)g->gw, g->gw,
                       job->width);
            for (int64_t c = c0; c < c1; c++) {
                const float *plane = job->x + (g->b * job->channels + c) * job->height * job->width;
                job->y[(r * job->channels + c) * bins + b] =
                    bin_value(p, g, &rows, &cols, job->width, plane);
            }
        }
    }
    free(rows.lines);
    free(cols.lines);
}

vkml_status cpu_roialign(const op_cpu_args *args, vkml_error *err)
{
    const graph_node *node = args->node;
    const graph_value *x = &args->values[node->inputs[0]];
    const graph_value *rois = &args->values[node->inputs[1]];
    roi_job job = {.p = node->params,
                   .x = args->in[0],
                   .rois = args->in[1],
                   .batch = args->in[2],
                   .y = args->out[0],
                   .channels = x->dims[1],
                   .height = x->dims[2],
                   .width = x->dims[3]};
    int64_t count = rois->dims[0];
    roi_geom *geoms = malloc(sizeof(roi_geom) * (size_t)(count > 0 ? count : 1));
    if (!geoms)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "RoiAlign: out of memory");
    vkml_status st = VKML_OK;
    for (int64_t r = 0; r < count && st == VKML_OK; r++)
        st = roi_measure(&job, x->dims[0], r, &geoms[r], err);
    if (st == VKML_OK) {
        const roialign_params *p = job.p;
        roi_planes rp = {.job = &job,
                         .geoms = geoms,
                         .blocks = (job.channels + ROI_CHANNEL_BLOCK - 1) / ROI_CHANNEL_BLOCK};
        double lines = count > 0 ? 4.0 + (double)(geoms[0].gh * geoms[0].gw) : 1.0;
        atomic_init(&rp.no_room, false);
        sched_parallel_for(count * rp.blocks,
                           4.0 * fmin(lines, 64.0) *
                               (double)(p->out_h * p->out_w * ROI_CHANNEL_BLOCK),
                           roi_planes_run, &rp);
        if (atomic_load(&rp.no_room))
            st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY,
                           "RoiAlign: out of memory for its sample lines");
    }
    free(geoms);
    return st;
}
