/* DeformConv on the CPU, in float (float16 and double through cpu_run_as_float): per
 * image, the columns of every (channel, tap) row sampled bilinearly at the offset places
 * and scaled by the mask, then one product per group with the weights. */
#include "ops/deformconv.h"
#include "cpu/cpu_kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct deform_job {
    const conv_params *p;
    int64_t offset_group, taps, out_size;
    const float *x, *offset, *mask; /* of image n */
    float *col;                     /* [C * taps, out_size] */
} deform_job;

/* X of one channel at (y, x), bilinear, zero outside (torchvision's deform_conv2d). */
static float sample(const float *plane, int64_t h, int64_t w, float y, float x)
{
    if (!(y > -1.0f && y < (float)h && x > -1.0f && x < (float)w))
        return 0.0f; /* NaN offsets land here too */
    int64_t y0 = (int64_t)floorf(y), x0 = (int64_t)floorf(x), y1 = y0 + 1, x1 = x0 + 1;
    float ly = y - (float)y0, lx = x - (float)x0, hy = 1.0f - ly, hx = 1.0f - lx;
    float v00 = y0 >= 0 && x0 >= 0 ? plane[y0 * w + x0] : 0.0f;
    float v01 = y0 >= 0 && x1 < w ? plane[y0 * w + x1] : 0.0f;
    float v10 = y1 < h && x0 >= 0 ? plane[y1 * w + x0] : 0.0f;
    float v11 = y1 < h && x1 < w ? plane[y1 * w + x1] : 0.0f;
    return hy * hx * v00 + hy * lx * v01 + ly * hx * v10 + ly * lx * v11;
}

/* Column rows (channel * taps + tap) in [begin, end). */
static void deform_rows(void *ctx, int64_t begin, int64_t end)
{
    const deform_job *job = ctx;
    const window_params *win = &job->p->win;
    int64_t h = win->in[0], w = win->in[1], ow = win->out[1];
    int64_t per_group = job->p->in_channels / job->offset_group;
    for (int64_t row = begin; row < end; row++) {
        int64_t c = row / job->taps, tap = row % job->taps, g = c / per_group;
        int64_t ki = tap / win->kernel[1], kj = tap % win->kernel[1];
        const float *plane = job->x + c * h * w;
        const float *dy = job->offset + (g * job->taps + tap) * 2 * job->out_size;
        const float *dx = dy + job->out_size;
        const float *m = job->mask ? job->mask + (g * job->taps + tap) * job->out_size : NULL;
        float *out = job->col + row * job->out_size;
        for (int64_t o = 0; o < job->out_size; o++) {
            float y =
                (float)((o / ow) * win->strides[0] - win->pads_begin[0] + ki * win->dilations[0]) +
                dy[o];
            float x =
                (float)((o % ow) * win->strides[1] - win->pads_begin[1] + kj * win->dilations[1]) +
                dx[o];
            out[o] = sample(plane, h, w, y, x) * (m ? m[o] : 1.0f);
        }
    }
}

static vkml_status deformconv_float(const op_cpu_args *args, vkml_error *err)
{
    const graph_node *node = args->node;
    conv_params p;
    vkml_status st = deformconv_resolve(args->values, node, &p, err);
    if (st)
        return st;
    const deformconv_attrs *a = node->params;
    int64_t taps = p.win.kernel[0] * p.win.kernel[1], out_size = p.win.out[0] * p.win.out[1];
    int64_t rows = p.in_channels * taps, in_size = p.win.in[0] * p.win.in[1];
    int64_t m_per_group = p.out_channels / p.group, k = rows / p.group;
    size_t bytes;
    float *col = vkml_mul_size((size_t)rows, (size_t)out_size, &bytes) &&
                         vkml_mul_size(bytes, sizeof(float), &bytes)
                     ? malloc(bytes ? bytes : 1)
                     : NULL;
    if (!col)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "DeformConv: no memory for the columns");
    const float *x = args->in[DEFORM_IN_X], *wt = args->in[DEFORM_IN_W],
                *off = args->in[DEFORM_IN_OFFSET];
    const float *bias = node->n_inputs > DEFORM_IN_B ? args->in[DEFORM_IN_B] : NULL;
    const float *mask = node->n_inputs > DEFORM_IN_MASK ? args->in[DEFORM_IN_MASK] : NULL;
    float *y = args->out[0];
    for (int64_t n = 0; n < p.batch; n++) {
        deform_job job = {.p = &p,
                          .offset_group = a->offset_group,
                          .taps = taps,
                          .out_size = out_size,
                          .x = x + n * p.in_channels * in_size,
                          .offset = off + n * a->offset_group * taps * 2 * out_size,
                          .mask = mask ? mask + n * a->offset_group * taps * out_size : NULL,
                          .col = col};
        sched_parallel_for(rows, (double)out_size * 12, deform_rows, &job);
        for (int64_t g = 0; g < p.group; g++) {
            float *yg = y + (n * p.out_channels + g * m_per_group) * out_size;
            cpu_sgemm(&(cpu_sgemm_args){.m = m_per_group,
                                        .n = out_size,
                                        .k = k,
                                        .a = wt + g * m_per_group * k,
                                        .a_row = k,
                                        .a_col = 1,
                                        .b = col + g * k * out_size,
                                        .b_row = out_size,
                                        .b_col = 1,
                                        .y = yg});
            for (int64_t mo = 0; bias && mo < m_per_group; mo++)
                for (int64_t o = 0; o < out_size; o++)
                    yg[mo * out_size + o] += bias[g * m_per_group + mo];
        }
    }
    free(col);
    return VKML_OK;
}

vkml_status cpu_deformconv(const op_cpu_args *args, vkml_error *err)
{
    return cpu_run_as_float(args, deformconv_float, err);
}
