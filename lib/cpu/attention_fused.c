/* FusedAttention on the CPU (ops/fused_attention.h): per query row, its scores against
 * every key (masked where the node has a mask), their softmax, and the sum of the value rows
 * they weigh. The reference of the
 * GPU kernels; float16 tensors run widened to float. */
#include "cpu/cpu_kernels.h"
#include "cpu/cpu_widen.h"
#include "ops/fused_attention.h"
#include "sched/sched.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct fa_job {
    const fused_attention_params *p;
    const float *a, *b, *v;
    const void *mask; /* float (FUSED_MASK_ADD) or bool (FUSED_MASK_SELECT), or NULL */
    float *y;
    float *scores; /* n per row */
} fa_job;

static void fa_rows(void *ctx, int64_t begin, int64_t end)
{
    const fa_job *j = ctx;
    const fused_attention_params *p = j->p;
    for (int64_t r = begin; r < end; r++) {
        int64_t batch = r / p->m, i = r % p->m, ao, bo, vo, yo, mo;
        fused_attention_offsets(p, batch, &ao, &bo, &vo, &yo, &mo);
        const float *a = j->a + ao + i * p->a_sm;
        float *s = j->scores + r * p->n, max = -INFINITY, sum = 0.0f;
        mo += i * p->mask_sm;
        for (int64_t t = 0; t < p->n; t++) {
            const float *b = j->b + bo + t * p->b_sn;
            float dot = 0.0f;
            for (int64_t d = 0; d < p->k; d++)
                dot += a[d * p->a_sk] * b[d * p->b_sk];
            s[t] = dot * p->scale;
            if (p->mask == FUSED_MASK_ADD)
                s[t] += ((const float *)j->mask)[mo + t * p->mask_sn];
            else if (p->mask == FUSED_MASK_SELECT &&
                     !((const uint8_t *)j->mask)[mo + t * p->mask_sn])
                s[t] = p->fill;
            max = s[t] > max ? s[t] : max;
        }
        for (int64_t t = 0; t < p->n; t++)
            sum += (s[t] = expf(s[t] - max));
        float *y = j->y + yo + i * p->y_sm;
        for (int64_t c = 0; c < p->e; c++)
            y[c] = 0.0f;
        for (int64_t t = 0; t < p->n; t++) {
            const float *v = j->v + vo + t * p->v_sn, w = s[t] / sum;
            for (int64_t c = 0; c < p->e; c++)
                y[c] += w * v[c * p->v_se];
        }
    }
}

static vkml_status attention_fused_float(const op_cpu_args *args, vkml_error *err)
{
    const fused_attention_params *p = args->node->params;
    size_t rows = (size_t)(p->batch_count * p->m), count;
    if (!vkml_mul_size(rows, (size_t)p->n, &count) || count >= ((size_t)1 << 40))
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "FusedAttention: %zu x %lld scores", rows,
                         (long long)p->n);
    fa_job j = {.p = p,
                .a = args->in[0],
                .b = args->in[1],
                .v = args->in[2],
                .mask = p->mask ? args->in[3] : NULL,
                .y = args->out[0]};
    if (!(j.scores = malloc(sizeof(float) * (count ? count : 1))))
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "FusedAttention: no memory for %zu scores",
                         count);
    sched_parallel_for((int64_t)rows, 2.0 * (double)p->n * (double)(p->k + p->e + 4), fa_rows, &j);
    free(j.scores);
    return VKML_OK;
}

vkml_status cpu_attention_fused(const op_cpu_args *args, vkml_error *err)
{
    return args->values[args->node->outputs[0]].dtype == VKML_DTYPE_FLOAT
               ? attention_fused_float(args, err)
               : cpu_run_widened(args, attention_fused_float, err);
}
