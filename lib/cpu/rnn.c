/* RNN, GRU and LSTM on the CPU, in float (float16 and double through cpu_run_as_float):
 * per direction, X * W^T for every time step in one product, then per step H * R^T and
 * the gates of each batch row at its own time index (sequence_lens shortens a row's
 * sequence; reverse runs it from its own last step). Activations are the elementwise
 * ops' (cpu/eltwise_cpu.h). */
#include "ops/rnn.h"
#include "cpu/cpu_kernels.h"
#include "cpu/eltwise_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct rnn_run {
    const rnn_params *p;
    int64_t seq, batch, input, hidden, gh, dirs;
    const float *x, *w, *r, *b, *h0, *c0, *peep;
    const int32_t *lens;
    float *y, *yh, *yc;
    /* scratch */
    float *xw;    /* [rows of X, gh]: X * W^T + biases */
    float *hr;    /* [batch, gh]: H * R^T */
    float *rh;    /* GRU: [batch, hidden] r .* H, then its product with Rh^T */
    float *h, *c; /* [batch, hidden] state */
    float *gate;  /* [batch, gh] activated gates */
} rnn_run;

static void activate(const rnn_run *run, const rnn_activation *a, float *v, int64_t n)
{
    if (run->p->has_clip)
        for (int64_t i = 0; i < n; i++)
            v[i] = fminf(fmaxf(v[i], -run->p->clip), run->p->clip);
    if (a->kind == RNN_ACT_AFFINE) {
        for (int64_t i = 0; i < n; i++)
            v[i] = a->alpha * v[i] + a->beta;
        return;
    }
    if (a->kind == RNN_ACT_SCALED_TANH) {
        for (int64_t i = 0; i < n; i++)
            v[i] = a->alpha * tanhf(a->beta * v[i]);
        return;
    }
    elt_step step = {.op = a->elt.op, .p = &a->elt, .n_inputs = 1, .count = 1};
    for (int64_t at = 0; at < n; at += ELT_BLOCK) {
        float *block = v + at;
        int len = (int)(n - at < ELT_BLOCK ? n - at : ELT_BLOCK);
        elt_compute(ELT_CLASS_F32, &step, (void *const *)&block, block, len);
    }
}

/* Element offset of (direction d, batch row b) in initial_h/Y_h-shaped tensors. */
static int64_t state_at(const rnn_run *run, int64_t d, int64_t b)
{
    return (run->p->layout ? b * run->dirs + d : d * run->batch + b) * run->hidden;
}

static int64_t y_at(const rnn_run *run, int64_t t, int64_t d, int64_t b)
{
    if (run->p->layout)
        return ((b * run->seq + t) * run->dirs + d) * run->hidden;
    return ((t * run->dirs + d) * run->batch + b) * run->hidden;
}

static int64_t x_row(const rnn_run *run, int64_t t, int64_t b)
{
    return run->p->layout ? b * run->seq + t : t * run->batch + b;
}

/* y[m, n] = a[m, k] * mat^T, mat [n, k] row-major. */
static void product_t(const float *a, int64_t m, int64_t k, const float *mat, int64_t n, float *y)
{
    if (k == 0) {
        memset(y, 0, sizeof(float) * (size_t)(m * n));
        return;
    }
    cpu_sgemm(&(cpu_sgemm_args){.m = m,
                                .n = n,
                                .k = k,
                                .a = a,
                                .a_row = k,
                                .a_col = 1,
                                .b = mat,
                                .b_row = 1,
                                .b_col = k,
                                .y = y});
}

/* Whether the GRU keeps Rbh apart (multiplied by r with H * Rh^T). */
static bool rbh_apart(const rnn_params *p)
{
    return p->gates == 3 && p->linear_before_reset;
}

/* X * W^T plus Wb and Rb (but a GRU's Rbh when it is applied inside the reset). */
static void input_products(rnn_run *run, int64_t d)
{
    int64_t rows = run->seq * run->batch, gh = run->gh;
    product_t(run->x, rows, run->input, run->w + d * gh * run->input, gh, run->xw);
    if (!run->b)
        return;
    const float *wb = run->b + d * 2 * gh, *rb = wb + gh;
    int64_t rb_end = rbh_apart(run->p) ? 2 * run->hidden : gh;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < gh; j++)
            run->xw[i * gh + j] += wb[j] + (j < rb_end ? rb[j] : 0.0f);
}

/* The time index of batch row b at step s, or -1 past its length. */
static int64_t time_of(const rnn_run *run, int64_t d, int64_t s, int64_t b)
{
    int64_t len = run->lens ? run->lens[b] : run->seq;
    if (s >= len)
        return -1;
    bool backwards = d == 1 || run->p->reverse;
    return backwards ? len - 1 - s : s;
}

static void rnn_row(rnn_run *run, int64_t d, const float *pre, float *h)
{
    memcpy(h, pre, sizeof(float) * (size_t)run->hidden);
    activate(run, &run->p->act[d][0], h, run->hidden);
}

/* LSTM: gates i, o, f, c of pre; peepholes i, o, f. */
static void lstm_row(rnn_run *run, int64_t d, float *g, float *h, float *c)
{
    int64_t n = run->hidden;
    float *gi = g, *go = g + n, *gf = g + 2 * n, *gc = g + 3 * n;
    const float *pi = run->peep ? run->peep + d * 3 * n : NULL;
    const rnn_activation *act = run->p->act[d];
    for (int64_t j = 0; pi && j < n; j++) {
        gi[j] += pi[j] * c[j];
        gf[j] += pi[2 * n + j] * c[j];
    }
    activate(run, &act[0], gi, n);
    activate(run, &act[0], gf, n);
    activate(run, &act[1], gc, n);
    for (int64_t j = 0; j < n; j++) {
        float f = run->p->input_forget ? 1.0f - gi[j] : gf[j];
        c[j] = f * c[j] + gi[j] * gc[j];
        if (pi)
            go[j] += pi[n + j] * c[j];
    }
    activate(run, &act[0], go, n);
    memcpy(h, c, sizeof(float) * (size_t)n);
    activate(run, &act[2], h, n);
    for (int64_t j = 0; j < n; j++)
        h[j] *= go[j];
}

/* GRU, after z and r are activated in g: h~ from the third gate, then H. hr_h is
 * H * Rh^T (linear_before_reset) or (r .* H) * Rh^T. */
static void gru_row(rnn_run *run, int64_t d, float *g, const float *hr_h, float *h)
{
    int64_t n = run->hidden;
    float *z = g, *r = g + n, *hh = g + 2 * n;
    const float *rbh = run->b ? run->b + d * 2 * run->gh + run->gh + 2 * n : NULL;
    for (int64_t j = 0; j < n; j++)
        hh[j] += run->p->linear_before_reset ? r[j] * (hr_h[j] + (rbh ? rbh[j] : 0.0f)) : hr_h[j];
    activate(run, &run->p->act[d][1], hh, n);
    for (int64_t j = 0; j < n; j++)
        h[j] = (1.0f - z[j]) * hh[j] + z[j] * h[j];
}

/* One time step of direction d for every batch row still in its sequence. */
static void step(rnn_run *run, int64_t d, int64_t s)
{
    int64_t n = run->hidden, gh = run->gh;
    const float *r = run->r + d * gh * n;
    bool gru = run->p->gates == 3;
    product_t(run->h, run->batch, n, r, gh, run->hr);
    for (int64_t b = 0; b < run->batch; b++) {
        int64_t t = time_of(run, d, s, b);
        if (t < 0)
            continue;
        float *g = run->gate + b * gh;
        const float *xw = run->xw + x_row(run, t, b) * gh, *hr = run->hr + b * gh;
        for (int64_t j = 0; j < gh; j++)
            g[j] = xw[j] + (gru && j >= 2 * n ? 0.0f : hr[j]);
        if (gru) {
            activate(run, &run->p->act[d][0], g, 2 * n);
            for (int64_t j = 0; j < n; j++)
                run->rh[b * n + j] = g[n + j] * run->h[b * n + j];
        }
    }
    if (gru && !run->p->linear_before_reset) {
        float *rh = run->rh + run->batch * n;
        product_t(run->rh, run->batch, n, r + 2 * n * n, n, rh);
        memcpy(run->rh, rh, sizeof(float) * (size_t)(run->batch * n));
    }
    for (int64_t b = 0; b < run->batch; b++) {
        int64_t t = time_of(run, d, s, b);
        if (t < 0)
            continue;
        float *g = run->gate + b * gh, *h = run->h + b * n;
        if (run->p->gates == 1)
            rnn_row(run, d, g, h);
        else if (gru)
            gru_row(run, d, g,
                    run->p->linear_before_reset ? run->hr + b * gh + 2 * n : run->rh + b * n, h);
        else
            lstm_row(run, d, g, h, run->c + b * n);
        if (run->y)
            memcpy(run->y + y_at(run, t, d, b), h, sizeof(float) * (size_t)n);
    }
}

static void direction(rnn_run *run, int64_t d)
{
    int64_t n = run->hidden;
    input_products(run, d);
    for (int64_t b = 0; b < run->batch; b++) {
        int64_t at = state_at(run, d, b);
        for (int64_t j = 0; j < n; j++) {
            run->h[b * n + j] = run->h0 ? run->h0[at + j] : 0.0f;
            run->c[b * n + j] = run->c0 ? run->c0[at + j] : 0.0f;
        }
    }
    for (int64_t s = 0; s < run->seq; s++)
        step(run, d, s);
    for (int64_t b = 0; b < run->batch; b++) {
        int64_t at = state_at(run, d, b);
        if (run->yh)
            memcpy(run->yh + at, run->h + b * n, sizeof(float) * (size_t)n);
        if (run->yc)
            memcpy(run->yc + at, run->c + b * n, sizeof(float) * (size_t)n);
    }
}

static const void *input(const op_cpu_args *args, int i)
{
    return i < args->node->n_inputs ? args->in[i] : NULL;
}

static void *output(const op_cpu_args *args, int i)
{
    return i < args->node->n_outputs && args->node->outputs[i] >= 0 ? args->out[i] : NULL;
}

static vkml_status check_lens(const rnn_run *run, const graph_node *node, vkml_error *err)
{
    for (int64_t b = 0; run->lens && b < run->batch; b++)
        if (run->lens[b] < 0 || run->lens[b] > run->seq)
            return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                             "%s: sequence_lens[%lld] = %d is outside [0, %lld]", node->op_type,
                             (long long)b, run->lens[b], (long long)run->seq);
    return VKML_OK;
}

static vkml_status rnn_float(const op_cpu_args *args, vkml_error *err)
{
    const graph_node *node = args->node;
    const graph_value *x = &args->values[node->inputs[RNN_IN_X]];
    const rnn_params *p = node->params;
    rnn_run run = {.p = p,
                   .seq = x->dims[p->layout],
                   .batch = x->dims[1 - p->layout],
                   .input = x->dims[2],
                   .hidden = rnn_hidden_size(args->values, node),
                   .dirs = p->directions,
                   .x = args->in[RNN_IN_X],
                   .w = args->in[RNN_IN_W],
                   .r = args->in[RNN_IN_R],
                   .b = input(args, RNN_IN_B),
                   .lens = input(args, RNN_IN_SEQ_LENS),
                   .h0 = input(args, RNN_IN_H0),
                   .c0 = p->gates == 4 ? input(args, RNN_IN_C0) : NULL,
                   .peep = p->gates == 4 ? input(args, RNN_IN_P) : NULL,
                   .y = output(args, 0),
                   .yh = output(args, 1),
                   .yc = p->gates == 4 ? output(args, 2) : NULL};
    run.gh = p->gates * run.hidden;
    vkml_status st = check_lens(&run, node, err);
    if (st)
        return st;
    size_t xw, state, gates, total = 0;
    bool ok = vkml_mul_size((size_t)(run.seq * run.batch), (size_t)run.gh, &xw) &&
              vkml_mul_size((size_t)run.batch, (size_t)run.hidden, &state) &&
              vkml_mul_size((size_t)run.batch, (size_t)run.gh, &gates) &&
              vkml_mul_size(xw + 2 * gates + 4 * state, sizeof(float), &total);
    float *scratch = ok ? malloc(total ? total : 1) : NULL;
    if (!scratch)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "%s: no memory for %zu bytes of state",
                         node->op_type, total);
    run.xw = scratch;
    run.hr = run.xw + xw;
    run.gate = run.hr + gates;
    run.rh = run.gate + gates;
    run.h = run.rh + 2 * state;
    run.c = run.h + state;
    if (run.y)
        memset(run.y, 0, sizeof(float) * (size_t)(run.seq * run.dirs * run.batch * run.hidden));
    for (int64_t d = 0; d < run.dirs; d++)
        direction(&run, d);
    free(scratch);
    return VKML_OK;
}

vkml_status cpu_rnn(const op_cpu_args *args, vkml_error *err)
{
    return cpu_run_as_float(args, rnn_float, err);
}
