#include "cpu/cpu_elem.h"
#include "cpu/cpu_kernels.h"
#include "cpu/onednn/onednn.h"
#include "ops/epilogue.h"

#include <stdlib.h>

size_t cpu_output_bytes(const op_cpu_args *args, int i)
{
    const graph_value *v = graph_node_output((graph_value *)args->values, args->node, i);
    size_t bytes;
    if (!v || !vkml_tensor_bytes(v->dtype, v->rank, v->dims, &bytes))
        return 0;
    return bytes;
}

/* Columns per work item when cpu_sgemm splits Y by columns. */
#define SGEMM_COL_BLOCK 64

/* Rows of Y computed together (each element of B loaded once feeds them all) and the
 * column tile they sweep (4 rows x 256 floats of Y stay in L1 while k runs). */
#define SGEMM_ROWS 4
#define SGEMM_TILE 256

/* Y[i0..i1, j0..j1] for any B layout: i-k-j order, one row at a time. */
static void sgemm_rows_generic(const cpu_sgemm_args *g, int64_t i0, int64_t i1, int64_t j0,
                               int64_t j1)
{
    for (int64_t i = i0; i < i1; i++) {
        float *y = g->y + i * g->n;
        for (int64_t j = j0; j < j1; j++)
            y[j] = 0.0f;
        for (int64_t k = 0; k < g->k; k++) {
            float a = g->a[i * g->a_row + k * g->a_col];
            const float *b = g->b + k * g->b_row;
            for (int64_t j = j0; j < j1; j++)
                y[j] += a * b[j * g->b_col];
        }
    }
}

/* Y[i..i+4, j0..j1] with B's rows dense (b_col == 1). */
static void sgemm_rows4(const cpu_sgemm_args *g, int64_t i, int64_t j0, int64_t j1)
{
    float *restrict y0 = g->y + i * g->n, *restrict y1 = y0 + g->n;
    float *restrict y2 = y1 + g->n, *restrict y3 = y2 + g->n;
    const float *a = g->a + i * g->a_row;
    for (int64_t t = j0; t < j1; t += SGEMM_TILE) {
        int64_t end = t + SGEMM_TILE < j1 ? t + SGEMM_TILE : j1;
        for (int64_t j = t; j < end; j++)
            y0[j] = y1[j] = y2[j] = y3[j] = 0.0f;
        for (int64_t k = 0; k < g->k; k++) {
            const float *ak = a + k * g->a_col;
            float a0 = ak[0], a1 = ak[g->a_row], a2 = ak[2 * g->a_row], a3 = ak[3 * g->a_row];
            const float *restrict b = g->b + k * g->b_row;
            for (int64_t j = t; j < end; j++) {
                float bj = b[j];
                y0[j] += a0 * bj;
                y1[j] += a1 * bj;
                y2[j] += a2 * bj;
                y3[j] += a3 * bj;
            }
        }
    }
}

static void sgemm_block(const cpu_sgemm_args *g, int64_t i0, int64_t i1, int64_t j0, int64_t j1)
{
    int64_t i = i0;
    if (g->b_col == 1)
        for (; i + SGEMM_ROWS <= i1; i += SGEMM_ROWS)
            sgemm_rows4(g, i, j0, j1);
    sgemm_rows_generic(g, i, i1, j0, j1);
}

static void sgemm_rows(void *ctx, int64_t begin, int64_t end)
{
    const cpu_sgemm_args *g = ctx;
    sgemm_block(g, begin, end, 0, g->n);
}

static void sgemm_cols(void *ctx, int64_t begin, int64_t end)
{
    const cpu_sgemm_args *g = ctx;
    int64_t j1 = end * SGEMM_COL_BLOCK;
    sgemm_block(g, 0, g->m, begin * SGEMM_COL_BLOCK, j1 < g->n ? j1 : g->n);
}

/* Splits by rows when there are enough of them for every thread, else by column blocks
 * (a conv with few output channels per group has a short, wide Y). */
void cpu_sgemm(const cpu_sgemm_args *g)
{
    if (onednn_sgemm(g))
        return;
    double flops_per_row = 2.0 * (double)g->n * (double)g->k;
    if (g->m >= 2 * sched_thread_count()) {
        sched_parallel_for(g->m, flops_per_row, sgemm_rows, (void *)g);
    } else {
        int64_t blocks = (g->n + SGEMM_COL_BLOCK - 1) / SGEMM_COL_BLOCK;
        sched_parallel_for(blocks, 2.0 * (double)g->m * (double)g->k * SGEMM_COL_BLOCK, sgemm_cols,
                           (void *)g);
    }
}

static bool is_wide_float(vkml_dtype t)
{
    return t == VKML_DTYPE_FLOAT16 || t == VKML_DTYPE_DOUBLE;
}

static float *float_copy(const graph_value *v, const void *data)
{
    size_t n = vkml_tensor_element_count(v->rank, v->dims);
    float *f = malloc(sizeof(float) * (n ? n : 1));
    for (size_t i = 0; f && data && i < n; i++)
        f[i] = (float)cpu_load_f64(data, v->dtype, (int64_t)i);
    return f;
}

vkml_status cpu_run_as_float(const op_cpu_args *args, cpu_kernel_fn body, vkml_error *err)
{
    const graph_node *n = args->node;
    if (!is_wide_float(op_node_type(args->values, n)))
        return body(args, err);
    int total = n->n_inputs + n->n_outputs;
    void **buf = calloc((size_t)total + 1, sizeof(void *));
    const void **in = calloc((size_t)n->n_inputs + 1, sizeof(void *));
    void **out = calloc((size_t)n->n_outputs + 1, sizeof(void *));
    bool ok = buf && in && out;
    for (int i = 0; ok && i < total; i++) {
        bool is_in = i < n->n_inputs;
        int v = is_in ? n->inputs[i] : n->outputs[i - n->n_inputs];
        const void *orig = is_in ? args->in[i] : args->out[i - n->n_inputs];
        if (v >= 0 && is_wide_float(args->values[v].dtype))
            ok = (buf[i] = float_copy(&args->values[v], is_in ? orig : NULL)) != NULL;
        if (is_in)
            in[i] = buf[i] ? buf[i] : orig;
        else
            out[i - n->n_inputs] = buf[i] ? buf[i] : (void *)orig;
    }
    vkml_status st =
        ok ? VKML_OK
           : vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "%s: no memory for float copies", n->op_type);
    if (!st) {
        op_cpu_args f = *args;
        f.in = in;
        f.out = out;
        st = body(&f, err);
    }
    for (int o = 0; !st && o < n->n_outputs; o++) {
        const float *src = buf[n->n_inputs + o];
        const graph_value *v = src ? &args->values[n->outputs[o]] : NULL;
        size_t count = v ? vkml_tensor_element_count(v->rank, v->dims) : 0;
        for (size_t k = 0; k < count; k++)
            cpu_store_f64(args->out[o], v->dtype, (int64_t)k, src[k]);
    }
    for (int i = 0; buf && i < total; i++)
        free(buf[i]);
    free(buf);
    free(in);
    free(out);
    return st;
}

/* The fused LayerNormalization of args->node's epilogue (graph_epilogue.norm), over output 0
 * in place, float32 (oneDNN runs its own: onednn_add_epilogue_norm). */
static void apply_epilogue_norm(const op_cpu_args *args)
{
    const graph_node *n = args->node;
    const graph_epilogue *e = n->epilogue;
    const graph_value *y = graph_node_output((graph_value *)args->values, n, 0);
    if (!e || !e->norm || !y || y->rank < 1 || y->dims[y->rank - 1] < 1 || e->norm_scale < 0 ||
        e->norm_scale >= n->n_inputs)
        return;
    size_t count = vkml_tensor_element_count(y->rank, y->dims), row = (size_t)y->dims[y->rank - 1];
    op_epilogue_norm(e, args->out[0], count / row, row, args->in[e->norm_scale],
                     e->norm_bias >= 0 && e->norm_bias < n->n_inputs ? args->in[e->norm_bias]
                                                                     : NULL);
}

void cpu_apply_epilogue(const op_cpu_args *args)
{
    const graph_node *n = args->node;
    const graph_value *y = graph_node_output((graph_value *)args->values, n, 0);
    /* Half types reach the kernels as float copies (cpu_run_as_float, cpu_run_widened),
     * whose values may still say float16. */
    if (!n->epilogue || !y ||
        (y->dtype != VKML_DTYPE_FLOAT && y->dtype != VKML_DTYPE_FLOAT16 &&
         y->dtype != VKML_DTYPE_BFLOAT16))
        return;
    int r = n->epilogue->residual, b = n->epilogue->bias;
    const float *residual = r >= 0 && r < n->n_inputs ? args->in[r] : NULL;
    const float *bias = b >= 0 && b < n->n_inputs ? args->in[b] : NULL;
    size_t n_bias = y->rank > 0 ? (size_t)y->dims[y->rank - 1] : 1;
    op_epilogue_apply(n->epilogue, args->out[0], bias, n_bias, residual,
                      vkml_tensor_element_count(y->rank, y->dims));
    apply_epilogue_norm(args);
}
