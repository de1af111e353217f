/* ConvTranspose on the CPU: per image and group, one matrix product
 *   col[m * K + kp, i] = sum_c W[c, m, kp] * X[c, i]
 * then col2im: every (kp, i) adds to the output position it lands on. */
#include "ops/convtranspose.h"
#include "cpu/cpu_kernels.h"

#include <stdlib.h>
#include <string.h>

typedef struct col2im_job {
    const convtranspose_geometry *g;
    const int64_t *dest; /* [K * n_in]: output offset of (kp, i), -1 off the output */
    const float *col;    /* [Mg * K, n_in] */
    const float *bias;   /* the group's first channel, or NULL */
    float *y;            /* the group's first output plane */
    int64_t ksize, n_in, n_out;
} col2im_job;

/* Output planes (channels of the group) in [begin, end). */
static void col2im_planes(void *ctx, int64_t begin, int64_t end)
{
    const col2im_job *job = ctx;
    for (int64_t m = begin; m < end; m++) {
        float *plane = job->y + m * job->n_out;
        float b = job->bias ? job->bias[m] : 0.0f;
        for (int64_t o = 0; o < job->n_out; o++)
            plane[o] = b;
        for (int64_t kp = 0; kp < job->ksize; kp++) {
            const float *row = job->col + (m * job->ksize + kp) * job->n_in;
            const int64_t *dest = job->dest + kp * job->n_in;
            for (int64_t i = 0; i < job->n_in; i++)
                if (dest[i] >= 0)
                    plane[dest[i]] += row[i];
        }
    }
}

/* dest[kp * n_in + i]: where input position i and kernel tap kp land, or -1. */
static void landing_offsets(const convtranspose_geometry *g, int64_t ksize, int64_t n_in,
                            int64_t *dest)
{
    for (int64_t kp = 0; kp < ksize; kp++) {
        int64_t k[OP_MAX_SPATIAL], i[OP_MAX_SPATIAL] = {0};
        cpu_index_from_linear(kp, g->kernel, g->spatial, k);
        for (int64_t at = 0; at < n_in; at++, cpu_index_next(i, g->in, g->spatial)) {
            int64_t off = 0;
            for (int d = 0; d < g->spatial && off >= 0; d++) {
                int64_t o = i[d] * g->strides[d] - g->pad_begin[d] + k[d] * g->dilations[d];
                off = o < 0 || o >= g->out[d] ? -1 : off * g->out[d] + o;
            }
            dest[kp * n_in + at] = off;
        }
    }
}

static vkml_status convtranspose_float(const op_cpu_args *args, vkml_error *err)
{
    convtranspose_geometry g;
    vkml_status st = convtranspose_resolve(args->values, args->node, &g, err);
    if (st)
        return st;
    int64_t ksize = 1, n_in = 1, n_out = 1;
    for (int d = 0; d < g.spatial; d++) {
        ksize *= g.kernel[d];
        n_in *= g.in[d];
        n_out *= g.out[d];
    }
    int64_t cg = g.in_channels / g.group, mg = g.out_channels / g.group;
    size_t col_bytes, dest_bytes;
    float *col = NULL;
    int64_t *dest = NULL;
    if (!vkml_mul_size((size_t)(mg * ksize), (size_t)n_in * sizeof(float), &col_bytes) ||
        !vkml_mul_size((size_t)ksize, (size_t)n_in * sizeof(int64_t), &dest_bytes) ||
        !(col = malloc(col_bytes ? col_bytes : 1)) ||
        !(dest = malloc(dest_bytes ? dest_bytes : 1))) {
        free(col);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY,
                         "ConvTranspose: no memory for a %lld x %lld column buffer",
                         (long long)(mg * ksize), (long long)n_in);
    }
    landing_offsets(&g, ksize, n_in, dest);
    const float *x = args->in[0], *w = args->in[1];
    const float *bias = g.has_bias ? args->in[2] : NULL;
    for (int64_t n = 0; n < g.batch; n++) {
        for (int64_t grp = 0; grp < g.group; grp++) {
            cpu_sgemm_args gemm = {
                .m = mg * ksize,
                .n = n_in,
                .k = cg,
                .a = w + grp * cg * mg * ksize,
                .a_row = 1,
                .a_col = mg * ksize,
                .b = x + (n * g.in_channels + grp * cg) * n_in,
                .b_row = n_in,
                .b_col = 1,
                .y = col,
            };
            cpu_sgemm(&gemm);
            col2im_job job = {.g = &g,
                              .dest = dest,
                              .col = col,
                              .bias = bias ? bias + grp * mg : NULL,
                              .y = (float *)args->out[0] + (n * g.out_channels + grp * mg) * n_out,
                              .ksize = ksize,
                              .n_in = n_in,
                              .n_out = n_out};
            sched_parallel_for(mg, (double)(ksize * n_in + n_out), col2im_planes, &job);
        }
    }
    free(col);
    free(dest);
    return VKML_OK;
}

vkml_status cpu_convtranspose(const op_cpu_args *args, vkml_error *err)
{
    return cpu_run_as_float(args, convtranspose_float, err);
}
