/* Attention on the CPU: present K/V assembled once (past + new, [b, kv_heads, total, size]),
 * then per query row: scores, softcap, bias (mask, causal, padding), softmax, times V. */
#include "ops/attention.h"
#include "cpu/cpu_kernels.h"
#include "cpu/cpu_widen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Element strides of a Q/K/V tensor over [batch, heads, seq, size]. */
static void head_strides(const attention_plan *p, int64_t heads, int64_t seq, int64_t size,
                         int64_t *s)
{
    if (p->is_3d) { /* [b, seq, heads * size] */
        s[3] = 1;
        s[1] = size;
        s[2] = heads * size;
        s[0] = seq * heads * size;
    } else {
        s[3] = 1;
        s[2] = size;
        s[1] = seq * size;
        s[0] = heads * seq * size;
    }
}

/* present[b, h, t, :] = past[b, h, t, :] for t < past_len, else x[b, h, t - past_len, :]. */
static void assemble_present(const attention_plan *p, const float *past, const float *x,
                             int64_t size, float *present)
{
    int64_t xs[4];
    head_strides(p, p->kv_heads, p->kv_len, size, xs);
    for (int64_t b = 0; b < p->batch; b++)
        for (int64_t h = 0; h < p->kv_heads; h++)
            for (int64_t t = 0; t < p->total_len; t++) {
                float *dst = present + ((b * p->kv_heads + h) * p->total_len + t) * size;
                if (t < p->past_len) {
                    memcpy(dst, past + ((b * p->kv_heads + h) * p->past_len + t) * size,
                           sizeof(float) * (size_t)size);
                    continue;
                }
                const float *src = x + b * xs[0] + h * xs[1] + (t - p->past_len) * xs[2];
                memcpy(dst, src, sizeof(float) * (size_t)size);
            }
}

typedef struct att_job {
    const attention_plan *p;
    const attention_params *a;
    const float *q, *k, *v; /* k, v: present */
    int64_t q_strides[4], y_strides[4];
    const void *mask;
    const int64_t *nonpad;
    float *scores; /* [rows, total_len] */
    float *qk_out; /* the same layout, or NULL */
    float *y;
} att_job;

static float bias_at(const att_job *j, int64_t b, int64_t h, int64_t i, int64_t t)
{
    const attention_plan *p = j->p;
    float bias = 0.0f;
    if (p->has_mask) {
        if (t >= p->mask_len)
            return -INFINITY;
        int64_t m = b * p->mask_strides[0] + h * p->mask_strides[1] + i * p->mask_strides[2] +
                    t * p->mask_strides[3];
        bias = p->mask_is_bool ? (((const uint8_t *)j->mask)[m] ? 0.0f : -INFINITY)
                               : ((const float *)j->mask)[m];
    }
    if (j->a->is_causal && i + p->past_len < t)
        bias += -INFINITY;
    if (j->nonpad && t >= j->nonpad[b])
        bias += -INFINITY;
    return bias;
}

static void keep(const att_job *j, int stage, int64_t row, const float *s)
{
    if (j->qk_out && j->a->qk_output_mode == stage)
        memcpy(j->qk_out + row * j->p->total_len, s, sizeof(float) * (size_t)j->p->total_len);
}

static void softmax_row(float *s, int64_t n)
{
    float max = -INFINITY, sum = 0.0f;
    for (int64_t t = 0; t < n; t++)
        max = s[t] > max ? s[t] : max;
    for (int64_t t = 0; t < n; t++)
        sum += (s[t] = expf(s[t] - max));
    for (int64_t t = 0; t < n; t++)
        s[t] /= sum;
}

static void att_rows(void *ctx, int64_t begin, int64_t end)
{
    const att_job *j = ctx;
    const attention_plan *p = j->p;
    int64_t group = p->q_heads / p->kv_heads, T = p->total_len;
    for (int64_t r = begin; r < end; r++) {
        int64_t i = r % p->q_len, h = (r / p->q_len) % p->q_heads, b = r / (p->q_len * p->q_heads);
        const float *q = j->q + b * j->q_strides[0] + h * j->q_strides[1] + i * j->q_strides[2];
        const float *k = j->k + (b * p->kv_heads + h / group) * T * p->qk_size;
        const float *v = j->v + (b * p->kv_heads + h / group) * T * p->v_size;
        float *s = j->scores + r * T;
        for (int64_t t = 0; t < T; t++) {
            float dot = 0.0f;
            for (int64_t d = 0; d < p->qk_size; d++)
                dot += q[d] * k[t * p->qk_size + d];
            s[t] = dot * p->scale;
        }
        keep(j, 0, r, s);
        if (j->a->softcap > 0.0f)
            for (int64_t t = 0; t < T; t++)
                s[t] = j->a->softcap * tanhf(s[t] / j->a->softcap);
        keep(j, 1, r, s);
        for (int64_t t = 0; t < T; t++)
            s[t] += bias_at(j, b, h, i, t);
        keep(j, 2, r, s);
        softmax_row(s, T);
        keep(j, 3, r, s);
        float *y = j->y + b * j->y_strides[0] + h * j->y_strides[1] + i * j->y_strides[2];
        for (int64_t d = 0; d < p->v_size; d++)
            y[d] = 0.0f;
        for (int64_t t = 0; t < T; t++)
            for (int64_t d = 0; d < p->v_size; d++)
                y[d] += s[t] * v[t * p->v_size + d];
    }
}

static float *out_or_alloc(const op_cpu_args *args, int i, size_t count, bool *owned)
{
    *owned = !(i < args->node->n_outputs && args->out[i]);
    return *owned ? malloc(sizeof(float) * (count ? count : 1)) : args->out[i];
}

static vkml_status attention_float(const op_cpu_args *args, vkml_error *err)
{
    attention_plan p;
    vkml_status st = attention_plan_build(args->values, args->node, &p, err);
    if (st)
        return st;
    att_job j = {.p = &p, .a = args->node->params, .q = args->in[ATT_Q], .y = args->out[ATT_Y]};
    size_t rows = (size_t)(p.batch * p.q_heads * p.q_len), T = (size_t)p.total_len;
    size_t kv = (size_t)(p.batch * p.kv_heads) * T, score_count;
    bool own_k, own_v;
    float *pk = out_or_alloc(args, ATT_PRESENT_K, kv * (size_t)p.qk_size, &own_k);
    float *pv = out_or_alloc(args, ATT_PRESENT_V, kv * (size_t)p.v_size, &own_v);
    bool ok = vkml_mul_size(rows, T, &score_count) && score_count < ((size_t)1 << 40);
    j.scores = ok ? malloc(sizeof(float) * (score_count ? score_count : 1)) : NULL;
    if (!pk || !pv || !j.scores) {
        st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Attention: no memory for %zu x %zu scores",
                       rows, T);
        goto done;
    }
    const int n_in = args->node->n_inputs;
    assemble_present(&p, n_in > ATT_PAST_K ? args->in[ATT_PAST_K] : NULL, args->in[ATT_K],
                     p.qk_size, pk);
    assemble_present(&p, n_in > ATT_PAST_V ? args->in[ATT_PAST_V] : NULL, args->in[ATT_V], p.v_size,
                     pv);
    j.k = pk;
    j.v = pv;
    j.mask = p.has_mask ? args->in[ATT_MASK] : NULL;
    j.nonpad = p.has_nonpad ? args->in[ATT_NONPAD] : NULL;
    j.qk_out = args->node->n_outputs > ATT_QK ? args->out[ATT_QK] : NULL;
    head_strides(&p, p.q_heads, p.q_len, p.qk_size, j.q_strides);
    head_strides(&p, p.q_heads, p.q_len, p.v_size, j.y_strides);
    sched_parallel_for((int64_t)rows, 2.0 * (double)T * (double)(p.qk_size + p.v_size + 8),
                       att_rows, &j);
done:
    if (own_k)
        free(pk);
    if (own_v)
        free(pv);
    free(j.scores);
    return st;
}

vkml_status cpu_attention(const op_cpu_args *args, vkml_error *err)
{
    return args->values[args->node->inputs[ATT_Q]].dtype == VKML_DTYPE_FLOAT
               ? attention_float(args, err)
               : cpu_run_widened(args, attention_float, err);
}
