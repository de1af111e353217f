#pragma once
/*
 * SiLU (x * sigmoid(alpha x)) over a run of floats in place, on the widest vector unit the
 * CPU has (AVX-512, else AVX2 with FMA, else libm). The CPU device's library convolutions
 * run their SiLU epilogue through it (onednn_util.c, onednn_act_apart): oneDNN 2.6's swish
 * post-op took about twice as long (docs/performance.md, "The CPU device").
 */
#include <stddef.h>

/* Within (1.2e-6 + 1.2e-7 |alpha x|) of the exact value, relative (the second term: t's
 * rounding, carried into 2^t), while sigmoid(alpha x) is at least 2^-126;
 * below that (alpha x under -87) a value of magnitude below |x| 2^-126. NaN for NaN. Every
 * path computes the same float operations in the same order: the same bits on any CPU. */
void cpu_silu_inplace(float *x, size_t n, float alpha);

/* The paths this CPU can run (tests): 1 libm's only, 2 also AVX2, 3 also AVX-512. */
int cpu_silu_paths(void);
/* cpu_silu_inplace on path 0 (plain), 1 (AVX2) or 2 (AVX-512), below cpu_silu_paths(). */
void cpu_silu_inplace_on(int path, float *x, size_t n, float alpha);
