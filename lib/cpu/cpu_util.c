#include "cpu/cpu_kernels.h"

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

/* Y[i0..i1, j0..j1]: i-k-j order so the inner loop streams rows of B and Y. */
static void sgemm_block(const cpu_sgemm_args *g, int64_t i0, int64_t i1, int64_t j0, int64_t j1)
{
    for (int64_t i = i0; i < i1; i++) {
        float *y = g->y + i * g->n;
        for (int64_t j = j0; j < j1; j++)
            y[j] = 0.0f;
        for (int64_t k = 0; k < g->k; k++) {
            float a = g->a[i * g->a_row + k * g->a_col];
            const float *b = g->b + k * g->b_row;
            if (g->b_col == 1) {
                for (int64_t j = j0; j < j1; j++)
                    y[j] += a * b[j];
            } else {
                for (int64_t j = j0; j < j1; j++)
                    y[j] += a * b[j * g->b_col];
            }
        }
    }
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
    double flops_per_row = 2.0 * (double)g->n * (double)g->k;
    if (g->m >= 2 * cpu_thread_count()) {
        cpu_parallel_for(g->m, flops_per_row, sgemm_rows, (void *)g);
    } else {
        int64_t blocks = (g->n + SGEMM_COL_BLOCK - 1) / SGEMM_COL_BLOCK;
        cpu_parallel_for(blocks, 2.0 * (double)g->m * (double)g->k * SGEMM_COL_BLOCK, sgemm_cols,
                         (void *)g);
    }
}
