/*
 * Detection ops (lib/ops/detect.c) on the op harness (suite 'ops'): RoiAlign's bad rois,
 * NonMaxSuppression's known values (an INT64_MAX box count included) and bad thresholds.
 * The Vulkan devices leave NonMaxSuppression to the CPU.
 */
#include "op_harness.h"

#include <stdint.h>

static void test_detect(void)
{
    /* RoiAlign: batch index out of range fails at run time. */
    oh_case *c = oh_new("RoiAlign", 16);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 2, 5, 5}, -1, 1);
    oh_const(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){1, 4}, (float[]){0, 0, 3, 3});
    oh_const(c, VKML_DTYPE_INT64, 1, (int64_t[]){1}, (int64_t[]){4});
    oh_expect_error(c, VKML_ERROR_INVALID_ARGUMENT, "batch index 4");
    oh_run(c, "RoiAlign batch index out of range", OH_BOUND_EXACT);

    c = oh_new("RoiAlign", 16);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 2, 5, 5}, -1, 1);
    oh_const(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){1, 4}, (float[]){0, 0, 3e9f, 3e9f});
    oh_const(c, VKML_DTYPE_INT64, 1, (int64_t[]){1}, (int64_t[]){0});
    oh_expect_error(c, VKML_ERROR_INVALID_ARGUMENT, "samples per bin");
    oh_run(c, "RoiAlign with an absurd roi", OH_BOUND_EXACT);

    /* NonMaxSuppression with constant inputs: the count is known at inference. */
    c = oh_new("NonMaxSuppression", 11);
    const float boxes[] = {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, 10, 1, 11, 0, 10.1f, 1, 11.1f};
    const float scores[] = {0.9f, 0.75f, 0.6f, 0.95f};
    oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, 4, 4}, boxes);
    oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, 1, 4}, scores);
    oh_const(c, VKML_DTYPE_INT64, 1, (int64_t[]){1}, (int64_t[]){3});
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){1}, (float[]){0.5f});
    oh_expect(c, 0, (int64_t[]){0, 0, 3, 0, 0, 0});
    oh_expect_gpu(c, false);
    oh_run(c, "NonMaxSuppression known values", OH_BOUND_EXACT);

    /* INT64_MAX boxes per class, as exporters write "no limit" (an SSD from torch did):
     * every box that survives the IoU test, not none. */
    c = oh_new("NonMaxSuppression", 11);
    oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, 4, 4}, boxes);
    oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, 1, 4}, scores);
    oh_const(c, VKML_DTYPE_INT64, 1, (int64_t[]){1}, (int64_t[]){INT64_MAX});
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){1}, (float[]){0.5f});
    oh_expect_dims(c, 0, 2, (int64_t[]){2, 3});
    oh_expect(c, 0, (int64_t[]){0, 0, 3, 0, 0, 0});
    oh_expect_gpu(c, false);
    oh_run(c, "NonMaxSuppression with INT64_MAX boxes per class", OH_BOUND_EXACT);

    c = oh_new("NonMaxSuppression", 11);
    oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, 4, 4}, boxes);
    oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, 1, 4}, scores);
    oh_const(c, VKML_DTYPE_INT64, 1, (int64_t[]){1}, (int64_t[]){3});
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){1}, (float[]){1.5f});
    oh_expect_error(c, VKML_ERROR_INVALID_ARGUMENT, "iou_threshold");
    oh_run(c, "NonMaxSuppression iou_threshold out of range", OH_BOUND_EXACT);
}

int main(void)
{
    test_detect();
    return oh_finish();
}
