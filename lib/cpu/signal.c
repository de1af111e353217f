/* CPU DFT: a fast Fourier transform per line, in double, O(n log n) for every length: a
 * radix-2 transform where the length is a power of two, else Bluestein's chirp, which
 * writes the length-n transform as a convolution done by power-of-two transforms of at
 * least 2n - 1 points. An inverse one-sided transform (irfft) rebuilds the Hermitian
 * spectrum and keeps the real part. The window functions. */
#include "cpu/cpu_elem.h"
#include "cpu/cpu_kernels.h"
#include "ops/misc.h"
#include "ops/movement.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct cpx {
    double re, im;
} cpx;

/* What every line's transform shares: m (a power of two) points of radix-2 transform,
 * its twiddles exp(-2 pi i k / m) for k < m / 2; for Bluestein (m != n) the chirp
 * exp(sign pi i k^2 / n), k < n, and the transform of its conjugate's filter. */
typedef struct dft_plan {
    int64_t m;
    cpx *twiddle, *chirp, *filter;
} dft_plan;

typedef struct dft_job {
    const dft_geom *g;
    const dft_params *p;
    const dft_plan *plan;
    vkml_dtype t;
    const void *x;
    void *y;
    atomic_bool no_room; /* a range could not allocate its line */
} dft_job;

/* Spectrum/signal value j of line (o, i): zero past the input, Hermitian past it for an
 * inverse one-sided transform. */
static void dft_input(const dft_job *j, int64_t o, int64_t i, int64_t k, double *re, double *im)
{
    const dft_geom *g = j->g;
    bool conj = false;
    if (j->p->inverse && j->p->onesided && k >= g->len_in) {
        k = g->n - k;
        conj = true;
    }
    *re = *im = 0.0;
    if (k < 0 || k >= g->len_in)
        return;
    int64_t off = ((o * g->len_in + k) * g->inner + i) * g->comps_in;
    *re = cpu_load_f64(j->x, j->t, off);
    *im = g->comps_in == 2 ? cpu_load_f64(j->x, j->t, off + 1) : 0.0;
    if (conj)
        *im = -*im;
}

static cpx cmul(cpx a, cpx b)
{
    return (cpx){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

/* The radix-2 transform of a[m] in place: exp(-2 pi i jk / m) forward, exp(+...) inverse
 * (unscaled). */
static void fft_pow2(cpx *a, int64_t m, const cpx *twiddle, bool inverse)
{
    for (int64_t i = 1, j = 0; i < m; i++) { /* bit-reversed order */
        int64_t bit = m >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j) {
            cpx t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
    for (int64_t len = 2; len <= m; len <<= 1) {
        int64_t half = len / 2, step = m / len;
        for (int64_t s = 0; s < m; s += len)
            for (int64_t k = 0; k < half; k++) {
                cpx w = twiddle[k * step];
                if (inverse)
                    w.im = -w.im;
                cpx u = a[s + k], v = cmul(a[s + k + half], w);
                a[s + k] = (cpx){u.re + v.re, u.im + v.im};
                a[s + k + half] = (cpx){u.re - v.re, u.im - v.im};
            }
    }
}

static void dft_plan_free(dft_plan *plan)
{
    free(plan->twiddle);
    free(plan->chirp);
    free(plan->filter);
}

static bool dft_plan_make(int64_t n, bool inverse, dft_plan *plan)
{
    memset(plan, 0, sizeof(*plan));
    bool pow2 = (n & (n - 1)) == 0;
    int64_t m = 1;
    while (m < (pow2 ? n : 2 * n - 1))
        m <<= 1;
    plan->m = m;
    if (!(plan->twiddle = malloc(sizeof(cpx) * (size_t)(m / 2 + 1))))
        return false;
    for (int64_t k = 0; k < m / 2; k++) {
        double a = -2.0 * M_PI * (double)k / (double)m;
        plan->twiddle[k] = (cpx){cos(a), sin(a)};
    }
    if (pow2)
        return true;
    if (!(plan->chirp = malloc(sizeof(cpx) * (size_t)n)) ||
        !(plan->filter = calloc((size_t)m, sizeof(cpx)))) {
        dft_plan_free(plan);
        return false;
    }
    double sign = inverse ? 1.0 : -1.0;
    for (int64_t k = 0, q = 0; k < n; k++) { /* q = k^2 mod 2n, so the angle stays exact */
        double a = sign * M_PI * (double)q / (double)n;
        plan->chirp[k] = (cpx){cos(a), sin(a)};
        q = (q + 2 * k + 1) % (2 * n);
    }
    /* X_k = chirp_k sum_j (x_j chirp_j) conj(chirp_(k-j)), a convolution of period m */
    for (int64_t k = 0; k < n; k++) {
        cpx c = {plan->chirp[k].re, -plan->chirp[k].im};
        plan->filter[k] = c;
        if (k > 0)
            plan->filter[m - k] = c;
    }
    fft_pow2(plan->filter, m, plan->twiddle, false);
    return true;
}

static void dft_lines(void *ctx, int64_t begin, int64_t end)
{
    dft_job *j = ctx;
    const dft_geom *g = j->g;
    const dft_plan *plan = j->plan;
    int64_t n = g->n, m = plan->m;
    double scale = j->p->inverse ? 1.0 / (double)n : 1.0;
    cpx *a = malloc(sizeof(cpx) * (size_t)m);
    if (!a) {
        atomic_store(&j->no_room, true);
        return;
    }
    for (int64_t line = begin; line < end; line++) {
        int64_t o = line / g->inner, i = line % g->inner;
        for (int64_t k = 0; k < m; k++) {
            double re = 0.0, im = 0.0;
            if (k < n)
                dft_input(j, o, i, k, &re, &im);
            a[k] = plan->chirp && k < n ? cmul((cpx){re, im}, plan->chirp[k]) : (cpx){re, im};
        }
        if (!plan->chirp) {
            fft_pow2(a, m, plan->twiddle, j->p->inverse);
        } else {
            fft_pow2(a, m, plan->twiddle, false);
            for (int64_t k = 0; k < m; k++)
                a[k] = cmul(a[k], plan->filter[k]);
            fft_pow2(a, m, plan->twiddle, true);
            for (int64_t k = 0; k < n; k++) {
                cpx v = {a[k].re / (double)m, a[k].im / (double)m};
                a[k] = cmul(v, plan->chirp[k]);
            }
        }
        for (int64_t k = 0; k < g->n_out; k++) {
            int64_t off = ((o * g->n_out + k) * g->inner + i) * g->comps_out;
            cpu_store_f64(j->y, j->t, off, a[k].re * scale);
            if (g->comps_out == 2)
                cpu_store_f64(j->y, j->t, off + 1, a[k].im * scale);
        }
    }
    free(a);
}

vkml_status cpu_dft(const op_cpu_args *args, vkml_error *err)
{
    const graph_node *node = args->node;
    const dft_params *p = node->params;
    dft_geom g;
    const void *axis_data = node->n_inputs > 2 && node->inputs[2] >= 0 ? args->in[2] : NULL;
    vkml_status st = dft_resolve(args->values, node, axis_data, &g, err);
    if (st)
        return st;
    dft_plan plan;
    if (!dft_plan_make(g.n, p->inverse, &plan))
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "DFT: out of memory for a %lld-point plan",
                         (long long)g.n);
    dft_job j = {.g = &g,
                 .p = p,
                 .plan = &plan,
                 .t = args->values[node->inputs[0]].dtype,
                 .x = args->in[0],
                 .y = args->out[0]};
    atomic_init(&j.no_room, false);
    double log_m = log2((double)plan.m) + 1.0;
    sched_parallel_for(g.outer * g.inner, (double)plan.m * log_m * (plan.chirp ? 24.0 : 8.0),
                       dft_lines, &j);
    dft_plan_free(&plan);
    if (atomic_load(&j.no_room))
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "DFT: out of memory for a %lld-point line",
                         (long long)plan.m);
    return VKML_OK;
}

/* HannWindow, HammingWindow, BlackmanWindow: each value in double, stored in the output
 * type. */
vkml_status cpu_window_fn(const op_cpu_args *args, vkml_error *err)
{
    (void)err;
    const graph_value *y = &args->values[args->node->outputs[0]];
    size_t es = vkml_dtype_size(y->dtype);
    for (int64_t n = 0; n < y->dims[0]; n++) {
        uint64_t bits =
            mv_element_from_double(y->dtype, window_fn_value(args->node, n, y->dims[0]));
        memcpy((char *)args->out[0] + (size_t)n * es, &bits, es);
    }
    return VKML_OK;
}
