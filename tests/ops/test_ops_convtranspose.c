/*
 * ConvTranspose (lib/ops/convtranspose.c) on the op harness (suite 'ops'): 1-D to 3-D,
 * strides, pads, output padding and groups, float32 and float16, known values, every Vulkan
 * device against the CPU, and a group that does not divide the channels.
 */
#include "op_harness.h"

/* Whether the Vulkan devices run ConvTranspose. */
#define CONVT_GPU true

/* ConvTranspose of X [n, c, spatial...], W [c, m/group, k...]. */
static void run_convtranspose(const char *label, vkml_dtype t, int rank, const int64_t *x_dims,
                              const int64_t *w_dims, int64_t group, const int64_t *strides,
                              const int64_t *pads, const int64_t *out_pad, bool gpu)
{
    int s = rank - 2;
    oh_case *c = oh_new("ConvTranspose", 22);
    oh_input(c, t, rank, x_dims, -1, 1);
    oh_const_random(c, t, rank, w_dims, -1, 1);
    oh_const_random(c, t, 1, (int64_t[]){w_dims[1] * group}, -1, 1);
    oh_attr_int(c, "group", group);
    if (strides)
        oh_attr_ints(c, "strides", s, strides);
    if (pads)
        oh_attr_ints(c, "pads", 2 * s, pads);
    if (out_pad)
        oh_attr_ints(c, "output_padding", s, out_pad);
    oh_expect_gpu(c, gpu);
    oh_run(c, label, oh_bound(t, OH_BOUND_SUM));
}

static void test_convtranspose(void)
{
    run_convtranspose("ConvTranspose 2-D stride 2 pads", VKML_DTYPE_FLOAT, 4,
                      (int64_t[]){2, 3, 5, 7}, (int64_t[]){3, 4, 3, 3}, 1, (int64_t[]){2, 2},
                      (int64_t[]){1, 0, 1, 1}, (int64_t[]){1, 0}, CONVT_GPU);
    run_convtranspose("ConvTranspose 2-D group 3", VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 6, 5, 7},
                      (int64_t[]){6, 2, 2, 3}, 3, (int64_t[]){3, 1}, NULL, NULL, CONVT_GPU);
    run_convtranspose("ConvTranspose 1-D", VKML_DTYPE_FLOAT, 3, (int64_t[]){2, 3, 11},
                      (int64_t[]){3, 5, 4}, 1, (int64_t[]){3}, (int64_t[]){1, 2}, NULL, CONVT_GPU);
    run_convtranspose("ConvTranspose 2-D f16", VKML_DTYPE_FLOAT16, 4, (int64_t[]){1, 3, 5, 7},
                      (int64_t[]){3, 2, 3, 2}, 1, (int64_t[]){2, 3}, NULL, NULL, CONVT_GPU);
    run_convtranspose("ConvTranspose 3-D", VKML_DTYPE_FLOAT, 5, (int64_t[]){1, 2, 3, 5, 4},
                      (int64_t[]){2, 3, 2, 3, 2}, 1, (int64_t[]){2, 1, 2}, NULL, NULL, CONVT_GPU);

    /* Known values: 1-D, stride 2, kernel [1, 1]: each input lands twice. */
    oh_case *c = oh_new("ConvTranspose", 22);
    oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, 1, 3}, (float[]){1, 2, 3});
    oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, 1, 2}, (float[]){1, 10});
    oh_attr_ints(c, "strides", 1, (int64_t[]){2});
    oh_expect(c, 0, (float[]){1, 10, 2, 20, 3, 30});
    oh_expect_gpu(c, CONVT_GPU);
    oh_run(c, "ConvTranspose 1-D known values", OH_BOUND_EXACT);

    c = oh_new("ConvTranspose", 22);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 3, 5, 5}, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){3, 2, 3, 3}, -1, 1);
    oh_attr_int(c, "group", 2);
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "group");
    oh_run(c, "ConvTranspose group not dividing channels", OH_BOUND_EXACT);
}

int main(void)
{
    test_convtranspose();
    return oh_finish();
}
