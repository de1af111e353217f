/* CPU DFT: the direct O(n^2) sum per line, in double. An inverse one-sided transform
 * (irfft) rebuilds the Hermitian spectrum and keeps the real part. The window functions. */
#include "cpu/cpu_elem.h"
#include "cpu/cpu_kernels.h"
#include "ops/misc.h"
#include "ops/movement.h"

#include <math.h>
#include <string.h>

typedef struct dft_job {
    const dft_geom *g;
    const dft_params *p;
    vkml_dtype t;
    const void *x;
    void *y;
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

static void dft_lines(void *ctx, int64_t begin, int64_t end)
{
    const dft_job *j = ctx;
    const dft_geom *g = j->g;
    double sign = j->p->inverse ? 1.0 : -1.0, scale = j->p->inverse ? 1.0 / (double)g->n : 1.0;
    for (int64_t line = begin; line < end; line++) {
        int64_t o = line / g->inner, i = line % g->inner;
        for (int64_t k = 0; k < g->n_out; k++) {
            double sr = 0.0, si = 0.0;
            for (int64_t m = 0; m < g->n; m++) {
                double re, im;
                dft_input(j, o, i, m, &re, &im);
                double ang = sign * 2.0 * M_PI * (double)((m * k) % g->n) / (double)g->n;
                double c = cos(ang), s = sin(ang);
                sr += re * c - im * s;
                si += re * s + im * c;
            }
            int64_t off = ((o * g->n_out + k) * g->inner + i) * g->comps_out;
            cpu_store_f64(j->y, j->t, off, sr * scale);
            if (g->comps_out == 2)
                cpu_store_f64(j->y, j->t, off + 1, si * scale);
        }
    }
}

vkml_status cpu_dft(const op_cpu_args *args, vkml_error *err)
{
    const graph_node *node = args->node;
    dft_geom g;
    const void *axis_data = node->n_inputs > 2 && node->inputs[2] >= 0 ? args->in[2] : NULL;
    vkml_status st = dft_resolve(args->values, node, axis_data, &g, err);
    if (st)
        return st;
    dft_job j = {.g = &g,
                 .p = node->params,
                 .t = args->values[node->inputs[0]].dtype,
                 .x = args->in[0],
                 .y = args->out[0]};
    sched_parallel_for(g.outer * g.inner, (double)g.n_out * (double)g.n * 20, dft_lines, &j);
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
