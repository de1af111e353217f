/* Conv on the CPU: per image and group, im2col then one matrix product. The same code
 * serves int32 (ConvInteger, QLinearConv): im2col moves 32-bit words, zero padding is the
 * same bits in both, and cpu_matprod multiplies either. */
#include "ops/conv.h"
#include "cpu/conv_run.h"
#include "cpu/cpu_kernels.h"
#include "cpu/matprod.h"
#include "ops/epilogue.h"

#include <stdlib.h>
#include <string.h>

#define CONV_MAX_INPUTS 8 /* X, W, B and a fused residual, with room */

/* Input spatial coordinates of kernel position k for output position o; false when one
 * falls in the padding. *off is the row-major offset inside the input plane. */
static bool window_input(const window_params *w, const int64_t *o, const int64_t *k, int64_t *off)
{
    int64_t at = 0;
    for (int d = 0; d < w->spatial; d++) {
        int64_t pos = o[d] * w->strides[d] - w->pads_begin[d] + k[d] * w->dilations[d];
        if (pos < 0 || pos >= w->in[d])
            return false;
        at = at * w->in[d] + pos;
    }
    *off = at;
    return true;
}

/* offs[kp * osize + o]: offset in an input plane of kernel position kp for output o, or
 * -1 in the padding. The same for every image, group and channel. */
static void window_offsets(const window_params *w, int64_t *offs)
{
    int64_t ksize = window_kernel_size(w), osize = window_out_size(w);
    for (int64_t kp = 0; kp < ksize; kp++) {
        int64_t k[OP_MAX_SPATIAL], o[OP_MAX_SPATIAL] = {0};
        cpu_index_from_linear(kp, w->kernel, w->spatial, k);
        for (int64_t i = 0; i < osize; i++, cpu_index_next(o, w->out, w->spatial)) {
            int64_t off;
            offs[kp * osize + i] = window_input(w, o, k, &off) ? off : -1;
        }
    }
}

typedef struct im2col_job {
    const int64_t *offs;
    int64_t ksize, osize, isize;
    const uint32_t *x; /* the group's first input plane (float or int32 bits) */
    uint32_t *col;     /* [channels * ksize, osize] */
} im2col_job;

/* Rows (c * ksize + kp) in [begin, end) of the column matrix. */
static void im2col_rows(void *ctx, int64_t begin, int64_t end)
{
    const im2col_job *job = ctx;
    for (int64_t r = begin; r < end; r++) {
        const uint32_t *plane = job->x + (r / job->ksize) * job->isize;
        const int64_t *offs = job->offs + (r % job->ksize) * job->osize;
        uint32_t *row = job->col + r * job->osize;
        for (int64_t i = 0; i < job->osize; i++)
            row[i] = offs[i] >= 0 ? plane[offs[i]] : 0;
    }
}

/* A 1x1 kernel with stride 1 and no padding reads the input as it is. */
static bool is_pointwise(const window_params *w)
{
    for (int d = 0; d < w->spatial; d++)
        if (w->kernel[d] != 1 || w->strides[d] != 1 || w->pads_begin[d] || w->pads_end[d])
            return false;
    return true;
}

static void add_bias(const conv_params *p, const float *bias, float *y)
{
    int64_t osize = window_out_size(&p->win);
    for (int64_t n = 0; n < p->batch; n++)
        for (int64_t m = 0; m < p->out_channels; m++) {
            float *row = y + (n * p->out_channels + m) * osize;
            for (int64_t i = 0; i < osize; i++)
                row[i] += bias[m];
        }
}

vkml_status cpu_conv_run(const conv_params *pp, vkml_dtype dtype, const void *xv,
                         const void *weights_v, void *yv, vkml_error *err)
{
    const conv_params p = *pp;
    const window_params *w = &p.win;
    int64_t cg = p.in_channels / p.group, mg = p.out_channels / p.group;
    int64_t ksize = window_kernel_size(w), osize = window_out_size(w);
    int64_t isize = window_in_size(w);
    bool pointwise = is_pointwise(w);
    uint32_t *col = NULL;
    int64_t *offs = NULL;
    if (!pointwise) {
        size_t bytes, offs_bytes;
        if (!vkml_mul_size((size_t)(cg * ksize), (size_t)osize * sizeof(uint32_t), &bytes) ||
            !vkml_mul_size((size_t)ksize, (size_t)osize * sizeof(int64_t), &offs_bytes) ||
            !(col = malloc(bytes)) || !(offs = malloc(offs_bytes))) {
            free(col);
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY,
                             "%s: no memory for a %lld x %lld im2col buffer",
                             dtype == VKML_DTYPE_FLOAT ? "Conv" : "ConvInteger",
                             (long long)(cg * ksize), (long long)osize);
        }
        window_offsets(w, offs);
    }
    const uint32_t *x = xv, *weights = weights_v;
    uint32_t *y = yv;
    for (int64_t n = 0; n < p.batch; n++) {
        for (int64_t g = 0; g < p.group; g++) {
            const uint32_t *xg = x + (n * p.in_channels + g * cg) * isize;
            if (!pointwise) {
                im2col_job job = {.offs = offs,
                                  .ksize = ksize,
                                  .osize = osize,
                                  .isize = isize,
                                  .x = xg,
                                  .col = col};
                sched_parallel_for(cg * ksize, (double)osize, im2col_rows, &job);
            }
            cpu_matprod_args gemm = {
                .dtype = dtype,
                .m = mg,
                .n = osize,
                .k = cg * ksize,
                .a = weights + g * mg * cg * ksize,
                .a_row = cg * ksize,
                .a_col = 1,
                .b = pointwise ? xg : col,
                .b_row = osize,
                .b_col = 1,
                .y = y + (n * p.out_channels + g * mg) * osize,
            };
            cpu_matprod(&gemm);
        }
    }
    free(col);
    free(offs);
    return VKML_OK;
}

/* A Conv with a fused MaxPool (conv_params.pooled; no residual): the conv, its bias and
 * activation into a scratch of the conv's output, then the pool into the node's output. */
static vkml_status conv_pooled(const op_cpu_args *args, const conv_params *p, vkml_error *err)
{
    size_t count = (size_t)(p->batch * p->out_channels * window_out_size(&p->win));
    float *conv = malloc(count * sizeof(float));
    if (!conv)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY,
                         "Conv: no memory for the %zu outputs before its fused MaxPool", count);
    vkml_status st = cpu_conv_run(p, VKML_DTYPE_FLOAT, args->in[0], args->in[1], conv, err);
    if (st == VKML_OK) {
        if (p->has_bias)
            add_bias(p, args->in[2], conv);
        op_epilogue_apply(args->node->epilogue, conv, NULL, 0, NULL, count);
        cpu_max_pool_float(&p->pool, p->batch, p->out_channels, conv, args->out[0]);
    }
    free(conv);
    return st;
}

static vkml_status conv_float(const op_cpu_args *args, vkml_error *err)
{
    conv_params p;
    vkml_status st = conv_params_parse(args->values, args->node, &p, err);
    if (st)
        return st;
    if (p.pooled)
        return conv_pooled(args, &p, err);
    /* The output in the residual's memory (the CPU device's in-place residual): the
     * residual is read from a copy, since the conv writes the output before the epilogue
     * adds it. */
    const graph_epilogue *e = args->node->epilogue;
    int r = e && e->residual >= 0 && e->residual < args->node->n_inputs ? e->residual : -1;
    const void *ins[CONV_MAX_INPUTS];
    op_cpu_args own = *args;
    void *copy = NULL;
    if (r >= 0 && args->in[r] == args->out[0] && args->node->n_inputs <= CONV_MAX_INPUTS) {
        const graph_value *y = graph_node_output((graph_value *)args->values, args->node, 0);
        size_t bytes = vkml_tensor_element_count(y->rank, y->dims) * sizeof(float);
        if (!(copy = malloc(bytes ? bytes : 1)))
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Conv: out of memory");
        memcpy(copy, args->in[r], bytes);
        for (int i = 0; i < args->node->n_inputs; i++)
            ins[i] = i == r ? copy : args->in[i];
        own.in = ins;
    }
    if (!(st = cpu_conv_run(&p, VKML_DTYPE_FLOAT, own.in[0], own.in[1], own.out[0], err))) {
        if (p.has_bias)
            add_bias(&p, own.in[2], own.out[0]);
        cpu_apply_epilogue(&own);
    }
    free(copy);
    return st;
}

vkml_status cpu_conv(const op_cpu_args *args, vkml_error *err)
{
    return cpu_run_as_float(args, conv_float, err);
}
