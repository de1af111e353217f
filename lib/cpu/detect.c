/* NonMaxSuppression and RoiAlign on the CPU. */
#include "ops/detect.h"
#include "cpu/cpu_kernels.h"

#include <math.h>

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

/* Bilinear sample of one plane at (yy, xx), as ONNX's RoiAlign defines it: 0 beyond one
 * pixel off the image; max mode takes the largest weighted corner. */
static float roi_sample(const roi_job *job, const float *plane, double yy, double xx)
{
    int64_t h = job->height, w = job->width;
    if (yy < -1.0 || yy > (double)h || xx < -1.0 || xx > (double)w)
        return 0.0f;
    yy = yy <= 0 ? 0 : yy;
    xx = xx <= 0 ? 0 : xx;
    int64_t y0 = (int64_t)yy, x0 = (int64_t)xx, y1 = y0 + 1, x1 = x0 + 1;
    if (y0 >= h - 1)
        y0 = y1 = h - 1, yy = (double)y0;
    if (x0 >= w - 1)
        x0 = x1 = w - 1, xx = (double)x0;
    double ly = yy - (double)y0, lx = xx - (double)x0, hy = 1 - ly, hx = 1 - lx;
    double v[4] = {hy * hx * plane[y0 * w + x0], hy * lx * plane[y0 * w + x1],
                   ly * hx * plane[y1 * w + x0], ly * lx * plane[y1 * w + x1]};
    if (job->p->is_max)
        return (float)fmax(fmax(v[0], v[1]), fmax(v[2], v[3]));
    return (float)(v[0] + v[1] + v[2] + v[3]);
}

/* One output bin (ph, pw) of roi r, channel plane. */
static float roi_bin(const roi_job *job, const float *plane, const double *box, int64_t gh,
                     int64_t gw, int64_t ph, int64_t pw)
{
    const roialign_params *p = job->p;
    double bin_h = box[2] / (double)p->out_h, bin_w = box[3] / (double)p->out_w;
    double acc = 0.0;
    for (int64_t iy = 0; iy < gh; iy++) {
        double yy = box[0] + (double)ph * bin_h + ((double)iy + 0.5) * bin_h / (double)gh;
        for (int64_t ix = 0; ix < gw; ix++) {
            double xx = box[1] + (double)pw * bin_w + ((double)ix + 0.5) * bin_w / (double)gw;
            float v = roi_sample(job, plane, yy, xx);
            acc = p->is_max ? (iy == 0 && ix == 0 ? v : fmax(acc, v)) : acc + v;
        }
    }
    return (float)(p->is_max ? acc : acc / (double)(gh * gw > 0 ? gh * gw : 1));
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
    const roialign_params *p = job.p;
    double offset = p->half_pixel ? 0.5 : 0.0;
    int64_t plane_out = p->out_h * p->out_w;
    for (int64_t r = 0; r < rois->dims[0]; r++) {
        const float *roi = job.rois + r * 4;
        int64_t b = job.batch[r];
        if (b < 0 || b >= x->dims[0])
            return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                             "RoiAlign: batch index %lld of roi %lld is out of range [0, %lld)",
                             (long long)b, (long long)r, (long long)x->dims[0]);
        /* box: start y, start x, height, width in input pixels */
        double box[4] = {roi[1] * p->spatial_scale - offset, roi[0] * p->spatial_scale - offset};
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
        int64_t igh = gh > 0 ? (int64_t)gh : 0, igw = gw > 0 ? (int64_t)gw : 0;
        for (int64_t c = 0; c < job.channels; c++) {
            const float *plane = job.x + (b * job.channels + c) * job.height * job.width;
            float *out = job.y + (r * job.channels + c) * plane_out;
            for (int64_t ph = 0; ph < p->out_h; ph++)
                for (int64_t pw = 0; pw < p->out_w; pw++)
                    out[ph * p->out_w + pw] = roi_bin(&job, plane, box, igh, igw, ph, pw);
        }
    }
    return VKML_OK;
}
