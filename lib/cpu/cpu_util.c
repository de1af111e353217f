#include "cpu/cpu_kernels.h"

#include <string.h>

size_t cpu_output_bytes(const op_cpu_args *args, int i)
{
    const graph_value *v = graph_node_output((graph_value *)args->values, args->node, i);
    size_t bytes;
    if (!v || !vkml_tensor_bytes(v->dtype, v->rank, v->dims, &bytes))
        return 0;
    return bytes;
}

/* Rows of Y in [begin, end): i-k-j order so the inner loop streams B's and Y's rows. */
static void sgemm_rows(void *ctx, int64_t begin, int64_t end)
{
    const cpu_sgemm_args *g = ctx;
    for (int64_t i = begin; i < end; i++) {
        float *y = g->y + i * g->n;
        memset(y, 0, sizeof(float) * (size_t)g->n);
        for (int64_t k = 0; k < g->k; k++) {
            float a = g->a[i * g->a_row + k * g->a_col];
            const float *b = g->b + k * g->b_row;
            if (g->b_col == 1) {
                for (int64_t j = 0; j < g->n; j++)
                    y[j] += a * b[j];
            } else {
                for (int64_t j = 0; j < g->n; j++)
                    y[j] += a * b[j * g->b_col];
            }
        }
    }
}

void cpu_sgemm(const cpu_sgemm_args *g)
{
    cpu_parallel_for(g->m, 2.0 * (double)g->n * (double)g->k, sgemm_rows, (void *)g);
}
