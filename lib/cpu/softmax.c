/* Softmax on the CPU: max-subtracted exponentials, normalised per (outer, inner). */
#include "ops/softmax.h"
#include "cpu/cpu_kernels.h"

#include <math.h>

vkml_status cpu_softmax(const op_cpu_args *args, vkml_error *err)
{
    softmax_params p;
    vkml_status st = softmax_params_parse(args->values, args->node, &p, err);
    if (st)
        return st;
    const float *x = args->in[0];
    float *y = args->out[0];
    for (int64_t o = 0; o < p.outer; o++) {
        for (int64_t i = 0; i < p.inner; i++) {
            const float *xs = x + o * p.axis_len * p.inner + i;
            float *ys = y + o * p.axis_len * p.inner + i;
            float max = -INFINITY;
            for (int64_t a = 0; a < p.axis_len; a++)
                max = xs[a * p.inner] > max ? xs[a * p.inner] : max;
            double sum = 0.0;
            for (int64_t a = 0; a < p.axis_len; a++) {
                ys[a * p.inner] = expf(xs[a * p.inner] - max);
                sum += ys[a * p.inner];
            }
            for (int64_t a = 0; a < p.axis_len; a++)
                ys[a * p.inner] = (float)(ys[a * p.inner] / sum);
        }
    }
    return VKML_OK;
}
