/* CPU kernels of the small remaining ops: BitCast, ReverseSequence, RotaryEmbedding, Det,
 * TensorScatter.
 * Indices read from data (sequence lengths, position ids) are checked at run time. */
#include "ops/misc.h"
#include "cpu/cpu_elem.h"
#include "cpu/cpu_kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

vkml_status cpu_bitcast(const op_cpu_args *args, vkml_error *err)
{
    (void)err;
    size_t bytes = cpu_output_bytes(args, 0);
    if (bytes)
        memcpy(args->out[0], args->in[0], bytes);
    return VKML_OK;
}

vkml_status cpu_reverse_sequence(const op_cpu_args *args, vkml_error *err)
{
    revseq_geom g;
    vkml_status st = revseq_resolve(args->values, args->node, &g, err);
    if (st)
        return st;
    const graph_value *x = &args->values[args->node->inputs[0]];
    size_t es = vkml_dtype_size(x->dtype);
    int64_t inner = (int64_t)vkml_tensor_element_count(x->rank - 2, x->dims + 2);
    const int64_t *lens = args->in[1];
    for (int64_t b = 0; b < g.batch; b++)
        if (lens[b] < 0 || lens[b] > g.time)
            return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                             "ReverseSequence: sequence_lens[%lld] = %lld is outside [0, %lld]",
                             (long long)b, (long long)lens[b], (long long)g.time);
    /* dims 0 and 1 are time and batch in some order; the rest is `inner`. */
    int64_t stride_b = g.batch_axis == 0 ? g.time * inner : inner;
    int64_t stride_t = g.time_axis == 0 ? g.batch * inner : inner;
    const char *in = args->in[0];
    char *out = args->out[0];
    for (int64_t b = 0; b < g.batch; b++)
        for (int64_t t = 0; t < g.time; t++) {
            int64_t src = t < lens[b] ? lens[b] - 1 - t : t;
            memcpy(out + (size_t)(b * stride_b + t * stride_t) * es,
                   in + (size_t)(b * stride_b + src * stride_t) * es, (size_t)inner * es);
        }
    return VKML_OK;
}

vkml_status cpu_rotary_embedding(const op_cpu_args *args, vkml_error *err)
{
    rotary_geom g;
    vkml_status st = rotary_resolve(args->values, args->node, &g, err);
    if (st)
        return st;
    const rotary_params *p = args->node->params;
    vkml_dtype t = args->values[args->node->inputs[0]].dtype;
    const int64_t *pos = g.cache_rows ? args->in[3] : NULL;
    int64_t half = g.rot / 2;
    for (int64_t b = 0; b < g.batch; b++) {
        for (int64_t s = 0; s < g.seq; s++) {
            int64_t row = pos ? pos[b * g.seq + s] : b * g.seq + s;
            if (pos && (row < 0 || row >= g.cache_rows))
                return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                                 "RotaryEmbedding: position id %lld is outside [0, %lld)",
                                 (long long)row, (long long)g.cache_rows);
            for (int64_t h = 0; h < g.heads; h++) {
                int64_t base = b * g.b_stride + h * g.h_stride + s * g.s_stride;
                for (int64_t d = g.rot; d < g.head; d++)
                    cpu_store_f64(args->out[0], t, base + d,
                                  cpu_load_f64(args->in[0], t, base + d));
                for (int64_t i = 0; i < half; i++) {
                    double c = cpu_load_f64(args->in[1], t, row * half + i);
                    double sn = cpu_load_f64(args->in[2], t, row * half + i);
                    int64_t i1 = p->interleaved ? 2 * i : i;
                    int64_t i2 = p->interleaved ? 2 * i + 1 : i + half;
                    double x1 = cpu_load_f64(args->in[0], t, base + i1);
                    double x2 = cpu_load_f64(args->in[0], t, base + i2);
                    cpu_store_f64(args->out[0], t, base + i1, x1 * c - x2 * sn);
                    cpu_store_f64(args->out[0], t, base + i2, x2 * c + x1 * sn);
                }
            }
        }
    }
    return VKML_OK;
}

/* Determinant by LU with partial pivoting, in double. */
static double det_matrix(double *a, int64_t m)
{
    double det = 1.0;
    for (int64_t k = 0; k < m; k++) {
        int64_t piv = k;
        for (int64_t r = k + 1; r < m; r++)
            if (fabs(a[r * m + k]) > fabs(a[piv * m + k]))
                piv = r;
        if (a[piv * m + k] == 0.0)
            return 0.0;
        if (piv != k) {
            for (int64_t c = 0; c < m; c++) {
                double tmp = a[k * m + c];
                a[k * m + c] = a[piv * m + c];
                a[piv * m + c] = tmp;
            }
            det = -det;
        }
        det *= a[k * m + k];
        for (int64_t r = k + 1; r < m; r++) {
            double f = a[r * m + k] / a[k * m + k];
            for (int64_t c = k; c < m; c++)
                a[r * m + c] -= f * a[k * m + c];
        }
    }
    return det;
}

vkml_status cpu_det(const op_cpu_args *args, vkml_error *err)
{
    int64_t count, m;
    vkml_status st = det_resolve(args->values, args->node, &count, &m, err);
    if (st)
        return st;
    vkml_dtype t = args->values[args->node->inputs[0]].dtype;
    double *a = malloc((size_t)(m > 0 ? m * m : 1) * sizeof(*a));
    if (!a)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Det: no memory for a %lld x %lld matrix",
                         (long long)m, (long long)m);
    for (int64_t i = 0; i < count; i++) {
        for (int64_t e = 0; e < m * m; e++)
            a[e] = cpu_load_f64(args->in[0], t, i * m * m + e);
        cpu_store_f64(args->out[0], t, i, det_matrix(a, m));
    }
    free(a);
    return VKML_OK;
}

vkml_status cpu_tensor_scatter(const op_cpu_args *args, vkml_error *err)
{
    tscatter_geom g;
    vkml_status st = tscatter_resolve(args->values, args->node, &g, err);
    if (st)
        return st;
    const tscatter_params *p = args->node->params;
    size_t es = vkml_dtype_size(args->values[args->node->inputs[0]].dtype);
    const int64_t *wi = args->node->n_inputs > 2 && args->node->inputs[2] >= 0 ? args->in[2] : NULL;
    for (int64_t b = 0; b < g.batch; b++) {
        int64_t start = wi ? wi[b] : 0;
        if (start < 0 || start >= (g.max_seq ? g.max_seq : 1) ||
            (!p->circular && start + g.seq > g.max_seq))
            return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                             "TensorScatter: write index %lld of batch %lld with %lld updates "
                             "does not fit %lld positions",
                             (long long)start, (long long)b, (long long)g.seq,
                             (long long)g.max_seq);
    }
    size_t line = (size_t)g.inner * es;
    memcpy(args->out[0], args->in[0], cpu_output_bytes(args, 0));
    char *out = args->out[0];
    const char *up = args->in[1];
    for (int64_t b = 0; b < g.batch; b++)
        for (int64_t o = 0; o < g.outer; o++)
            for (int64_t s = 0; s < g.seq; s++) {
                int64_t pos = ((wi ? wi[b] : 0) + s) % g.max_seq;
                memcpy(out + (size_t)((b * g.outer + o) * g.max_seq + pos) * line,
                       up + (size_t)((b * g.outer + o) * g.seq + s) * line, line);
            }
    return VKML_OK;
}
