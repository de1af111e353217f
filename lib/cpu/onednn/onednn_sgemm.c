/* cpu_sgemm's products through oneDNN's sgemm (onednn.h: onednn_sgemm). */
#include "cpu/cpu_kernels.h"
#include "cpu/onednn/onednn.h"
#include "sched/sched.h"

#include <oneapi/dnnl/dnnl.h>
#include <string.h>

void omp_set_num_threads(int n);

/* A rows x cols operand with element (r, c) at r * row + c * col, as sgemm reads it: its
 * transpose flag and leading dimension; false when neither stride is 1 (a strided view). */
static bool operand(int64_t row, int64_t col, int64_t rows, int64_t cols, char *trans, int64_t *ld)
{
    if (col == 1 && (rows == 1 || row >= cols)) {
        *trans = 'N';
        *ld = rows == 1 || row < 1 ? (cols > 1 ? cols : 1) : row;
        return true;
    }
    if (row == 1 && (cols == 1 || col >= rows)) {
        *trans = 'T';
        *ld = cols == 1 || col < 1 ? (rows > 1 ? rows : 1) : col;
        return true;
    }
    return false;
}

bool onednn_sgemm(const cpu_sgemm_args *g)
{
    char ta, tb;
    int64_t lda, ldb;
    if (!onednn_enabled() || !operand(g->a_row, g->a_col, g->m, g->k, &ta, &lda) ||
        !operand(g->b_row, g->b_col, g->k, g->n, &tb, &ldb))
        return false;
    if (g->m == 0 || g->n == 0)
        return true;
    if (g->k == 0) {
        memset(g->y, 0, sizeof(float) * (size_t)g->m * (size_t)g->n);
        return true;
    }
    omp_set_num_threads(sched_thread_count());
    return dnnl_sgemm(ta, tb, g->m, g->n, g->k, 1.0f, g->a, lda, g->b, ldb, 0.0f, g->y, g->n) ==
           dnnl_success;
}
