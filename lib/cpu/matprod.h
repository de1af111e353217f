#pragma once
/* Matrix products of any numeric dtype on the CPU (float through cpu_sgemm; double, 32-
 * and 64-bit integers through one generic kernel; integers wrap like two's complement). */
#include "core/common.h"

/* Y[m, n] (dense, row stride n) = sum_k A(i, k) * B(k, j), with A(i, k) at element
 * i * a_row + k * a_col of a and B(k, j) at k * b_row + j * b_col of b; a, b and y all
 * of `dtype`. Overwrites Y. */
typedef struct cpu_matprod_args {
    vkml_dtype dtype;
    int64_t m, n, k;
    const void *a;
    int64_t a_row, a_col;
    const void *b;
    int64_t b_row, b_col;
    void *y;
} cpu_matprod_args;

/* Whether cpu_matprod takes the dtype (float, double, int32, uint32, int64, uint64). */
bool cpu_matprod_supports(vkml_dtype dtype);
void cpu_matprod(const cpu_matprod_args *g);
