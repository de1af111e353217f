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

/* One bilinear sample of a roi, the same in every channel: the four corners' offsets in
 * a plane and their weights, or outside the image (0). */
typedef struct roi_tap {
    int64_t off[4];
    double w[4];
    bool inside;
} roi_tap;

#define ROI_MAX_TAPS 16384 /* taps an item keeps at once (roi_planes_run) */
#define ROI_CHANNEL_BLOCK 32

/* The bilinear sample at (yy, xx), as ONNX's RoiAlign defines it: nothing beyond one pixel
 * off the image. */
static void roi_tap_at(const roi_job *job, double yy, double xx, roi_tap *t)
{
    int64_t h = job->height, w = job->width;
    t->inside = !(yy < -1.0 || yy > (double)h || xx < -1.0 || xx > (double)w);
    if (!t->inside)
        return;
    yy = yy <= 0 ? 0 : yy;
    xx = xx <= 0 ? 0 : xx;
    int64_t y0 = (int64_t)yy, x0 = (int64_t)xx, y1 = y0 + 1, x1 = x0 + 1;
    if (y0 >= h - 1)
        y0 = y1 = h - 1, yy = (double)y0;
    if (x0 >= w - 1)
        x0 = x1 = w - 1, xx = (double)x0;
    double ly = yy - (double)y0, lx = xx - (double)x0, hy = 1 - ly, hx = 1 - lx;
    t->off[0] = y0 * w + x0, t->off[1] = y0 * w + x1;
    t->off[2] = y1 * w + x0, t->off[3] = y1 * w + x1;
    t->w[0] = hy * hx, t->w[1] = hy * lx, t->w[2] = ly * hx, t->w[3] = ly * lx;
}

/* A tap's value in one plane: the weighted corners' sum, or in max mode the largest. */
static float tap_value(const roialign_params *p, const roi_tap *t, const float *plane)
{
    if (!t->inside)
        return 0.0f;
    double c[4] = {t->w[0] * plane[t->off[0]], t->w[1] * plane[t->off[1]],
                   t->w[2] * plane[t->off[2]], t->w[3] * plane[t->off[3]]};
    if (p->is_max)
        return (float)fmax(fmax(c[0], c[1]), fmax(c[2], c[3]));
    return (float)(c[0] + c[1] + c[2] + c[3]);
}

/* Where roi r samples: box (start y, start x, height, width in input pixels), its image
 * and samples per bin; false with the reason when it cannot be sampled. */
typedef struct roi_geom {
    double box[4];
    int64_t b, gh, gw;
} roi_geom;

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

/* The taps of bin `bin` (row-major over out_h x out_w) of roi g, sample by sample. */
static void bin_taps(const roi_job *job, const roi_geom *g, int64_t bin, roi_tap *taps)
{
    const roialign_params *p = job->p;
    const double *box = g->box;
    double bin_h = box[2] / (double)p->out_h, bin_w = box[3] / (double)p->out_w;
    int64_t ph = bin / p->out_w, pw = bin % p->out_w;
    for (int64_t iy = 0; iy < g->gh; iy++) {
        double yy = box[0] + (double)ph * bin_h + ((double)iy + 0.5) * bin_h / (double)g->gh;
        for (int64_t ix = 0; ix < g->gw; ix++) {
            double xx = box[1] + (double)pw * bin_w + ((double)ix + 0.5) * bin_w / (double)g->gw;
            roi_tap_at(job, yy, xx, taps++);
        }
    }
}

/* One bin of one plane from its `samples` taps: their mean, or in max mode the largest. */
static float bin_value(const roialign_params *p, const roi_tap *taps, int64_t samples,
                       const float *plane)
{
    double acc = 0.0;
    for (int64_t k = 0; k < samples; k++) {
        float v = tap_value(p, &taps[k], plane);
        acc = p->is_max ? (k == 0 ? v : fmax(acc, v)) : acc + v;
    }
    return (float)(p->is_max ? acc : acc / (double)(samples > 0 ? samples : 1));
}

typedef struct roi_planes {
    const roi_job *job;
    const roi_geom *geoms;
    int64_t blocks;      /* channel blocks per roi */
    atomic_bool no_room; /* a range could not allocate its taps */
} roi_planes;

/* Items [begin, end) of [rois, channel blocks], split over the worker pool. An item works
 * out its roi's taps (the same in every channel) once for its block of channels, as many
 * bins at a time as ROI_MAX_TAPS holds (at least one). */
static void roi_planes_run(void *ctx, int64_t begin, int64_t end)
{
    roi_planes *rp = ctx;
    const roi_job *job = rp->job;
    const roialign_params *p = job->p;
    int64_t bins = p->out_h * p->out_w, cap = 0;
    roi_tap *taps = NULL;
    for (int64_t item = begin; item < end; item++) {
        int64_t r = item / rp->blocks, c0 = item % rp->blocks * ROI_CHANNEL_BLOCK;
        int64_t c1 =
            c0 + ROI_CHANNEL_BLOCK < job->channels ? c0 + ROI_CHANNEL_BLOCK : job->channels;
        const roi_geom *g = &rp->geoms[r];
        int64_t samples = g->gh * g->gw, per = samples > 0 ? ROI_MAX_TAPS / samples : bins;
        per = per < 1 ? 1 : per > bins ? bins : per;
        if (per * samples > cap) {
            free(taps);
            cap = per * samples;
            if (!(taps = malloc(sizeof(roi_tap) * (size_t)(cap > 0 ? cap : 1)))) {
                atomic_store(&rp->no_room, true);
                return;
            }
        }
        for (int64_t b0 = 0; taps && b0 < bins; b0 += per) {
            int64_t b1 = b0 + per < bins ? b0 + per : bins;
            for (int64_t b = b0; b < b1; b++)
                bin_taps(job, g, b, taps + (b - b0) * samples);
            for (int64_t c = c0; c < c1; c++) {
                const float *plane = job->x + (g->b * job->channels + c) * job->height * job->width;
                float *out = job->y + (r * job->channels + c) * bins;
                for (int64_t b = b0; b < b1; b++)
                    out[b] = bin_value(p, taps + (b - b0) * samples, samples, plane);
            }
        }
    }
    free(taps);
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
        double samples = count > 0 ? (double)(geoms[0].gh * geoms[0].gw) : 1.0;
        atomic_init(&rp.no_room, false);
        sched_parallel_for(count * rp.blocks,
                           16.0 * samples * (double)(p->out_h * p->out_w * ROI_CHANNEL_BLOCK),
                           roi_planes_run, &rp);
        if (atomic_load(&rp.no_room))
            st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "RoiAlign: out of memory for its taps");
    }
    free(geoms);
    return st;
}
