/* Matrix products of any numeric dtype (matprod.h). */
#include "cpu/matprod.h"
#include "cpu/cpu_kernels.h"

/* One i-k-j kernel per storage type; integers multiply as unsigned (wrapping, the same
 * bits as two's complement) so that overflow is defined. */
#define DEFINE_GEMM_ROWS(name, T)                                                                  \
    static void name(void *ctx, int64_t begin, int64_t end)                                        \
    {                                                                                              \
        const cpu_matprod_args *g = ctx;                                                           \
        const T *a = g->a, *b = g->b;                                                              \
        for (int64_t i = begin; i < end; i++) {                                                    \
            T *y = (T *)g->y + i * g->n;                                                           \
            for (int64_t j = 0; j < g->n; j++)                                                     \
                y[j] = 0;                                                                          \
            for (int64_t k = 0; k < g->k; k++) {                                                   \
                T av = a[i * g->a_row + k * g->a_col];                                             \
                const T *bk = b + k * g->b_row;                                                    \
                for (int64_t j = 0; j < g->n; j++)                                                 \
                    y[j] += av * bk[j * g->b_col];                                                 \
            }                                                                                      \
        }                                                                                          \
    }
DEFINE_GEMM_ROWS(gemm_rows_f64, double)
DEFINE_GEMM_ROWS(gemm_rows_u32, uint32_t)
DEFINE_GEMM_ROWS(gemm_rows_u64, uint64_t)

static sched_range_fn gemm_rows_for(vkml_dtype dtype)
{
    switch (dtype) {
    case VKML_DTYPE_DOUBLE: return gemm_rows_f64;
    case VKML_DTYPE_INT32:
    case VKML_DTYPE_UINT32: return gemm_rows_u32;
    case VKML_DTYPE_INT64:
    case VKML_DTYPE_UINT64: return gemm_rows_u64;
    default: return NULL;
    }
}

bool cpu_matprod_supports(vkml_dtype dtype)
{
    return dtype == VKML_DTYPE_FLOAT || gemm_rows_for(dtype) != NULL;
}

void cpu_matprod(const cpu_matprod_args *g)
{
    if (g->dtype == VKML_DTYPE_FLOAT) {
        cpu_sgemm_args s = {.m = g->m,
                            .n = g->n,
                            .k = g->k,
                            .a = g->a,
                            .a_row = g->a_row,
                            .a_col = g->a_col,
                            .b = g->b,
                            .b_row = g->b_row,
                            .b_col = g->b_col,
                            .y = g->y};
        cpu_sgemm(&s);
        return;
    }
    sched_range_fn rows = gemm_rows_for(g->dtype);
    if (rows)
        sched_parallel_for(g->m, 2.0 * (double)g->n * (double)g->k, rows, (void *)g);
}
