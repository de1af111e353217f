/*
 * Signal ops (lib/ops/signal.c) on the op harness (suite 'ops'): DFT forward, one-sided
 * and inverse against known values on the CPU (the Vulkan devices leave it to it), and an
 * axis out of range.
 */
#include "op_harness.h"

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
    return oh_finish();
}
