/*
 * Signal ops (lib/ops/signal.c) on the op harness (suite 'ops'): DFT forward, one-sided
 * and inverse against known values on the CPU (the Vulkan devices leave it to it), the
 * fast transform (radix-2 and Bluestein lengths) against the direct sum computed here,
 * and an axis out of range.
 */
#include "op_harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The direct sum X_k = sum_m x_m exp(sign 2 pi i mk / n), in double, k < n_out. */
static void direct_dft(const float *x, int64_t n, int64_t n_out, bool inverse, float *y)
{
    double sign = inverse ? 1.0 : -1.0, scale = inverse ? 1.0 / (double)n : 1.0;
    for (int64_t k = 0; k < n_out; k++) {
        double re = 0.0, im = 0.0;
        for (int64_t m = 0; m < n; m++) {
            double a = sign * 2.0 * M_PI * (double)((m * k) % n) / (double)n;
            re += x[2 * m] * cos(a) - x[2 * m + 1] * sin(a);
            im += x[2 * m] * sin(a) + x[2 * m + 1] * cos(a);
        }
        y[2 * k] = (float)(re * scale);
        y[2 * k + 1] = (float)(im * scale);
    }
}

/* Lines of powers of two and of other lengths (a prime, 1000, 1 and 3), complex and
 * two-sided, and real and one-sided, against the direct sum. */
static void test_dft_lengths(void)
{
    static const int64_t lengths[] = {1, 3, 256, 257, 1000};
    for (size_t l = 0; l < sizeof(lengths) / sizeof(lengths[0]); l++)
        for (int onesided = 0; onesided <= 1; onesided++) {
            int64_t n = lengths[l], n_out = onesided ? n / 2 + 1 : n;
            float *x = malloc(sizeof(float) * 2 * (size_t)n);
            float *real = malloc(sizeof(float) * (size_t)n);
            float *y = malloc(sizeof(float) * 2 * (size_t)n);
            for (int64_t k = 0; k < n; k++) {
                real[k] = (float)((k * 7919 % 2003) / 1001.5 - 1.0);
                x[2 * k] = real[k];
                x[2 * k + 1] = onesided ? 0.0f : (float)((k * 104729 % 1999) / 999.5 - 1.0);
            }
            direct_dft(x, n, n_out, false, y);
            char label[80];
            snprintf(label, sizeof(label), "DFT %s of %lld points against the direct sum",
                     onesided ? "one-sided, real" : "complex", (long long)n);
            oh_case *c = oh_new("DFT", 17);
            oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, n, onesided ? 1 : 2},
                     onesided ? real : x);
            oh_attr_int(c, "onesided", onesided);
            oh_expect(c, 0, y);
            oh_expect_gpu(c, false);
            oh_run(c, label, OH_BOUND_SUM);
            free(x);
            free(real);
            free(y);
        }
}

static void test_dft(void)
{
    const float x[] = {1, 2, 3, 4};
    const float full[] = {10, 0, -2, 2, -2, 0, -2, -2};
    for (int onesided = 0; onesided <= 1; onesided++) {
        oh_case *c = oh_new("DFT", 17);
        oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, 4, 1}, x);
        oh_attr_int(c, "onesided", onesided);
        oh_expect(c, 0, full); /* onesided: the first 3 bins */
        oh_expect_gpu(c, false);
        oh_run(c, onesided ? "DFT one-sided known values" : "DFT known values", OH_BOUND_EXACT);
    }
    /* irfft of the one-sided spectrum gives the signal back. */
    oh_case *c = oh_new("DFT", 20);
    oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, 3, 2}, full);
    oh_skip_input(c);
    oh_const_i64(c, 1, (int64_t[]){1});
    oh_attr_int(c, "onesided", 1);
    oh_attr_int(c, "inverse", 1);
    oh_expect(c, 0, x);
    oh_expect_gpu(c, false);
    oh_run(c, "DFT inverse one-sided known values", OH_BOUND_EXACT);

    c = oh_new("DFT", 17);
    oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){2, 4, 1}, -1, 1);
    oh_attr_int(c, "axis", 2);
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "not a signal axis");
    oh_run(c, "DFT axis out of range", OH_BOUND_EXACT);
}

int main(void)
{
    test_dft();
    test_dft_lengths();
    return oh_finish();
}
