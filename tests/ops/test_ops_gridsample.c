/*
 * GridSample (lib/ops/gridsample.c) on the op harness (suite 'ops'): every mode x padding
 * mode x align_corners in 2-D, float16 and 3-D, hostile grids (NaN, huge and infinite
 * coordinates), every Vulkan device against the CPU, and a grid of the wrong shape.
 */
#include "op_harness.h"

#include <math.h>
#include <stdio.h>

/* Whether the Vulkan devices run GridSample. */
#define GRIDSAMPLE_GPU true

static void run_gridsample(const char *mode, const char *padding, int align, int spatial,
                           vkml_dtype t)
{
    char label[160];
    snprintf(label, sizeof(label), "GridSample %dd %s %s align %d %s", spatial, mode, padding,
             align, oh_dtype_label(t));
    oh_case *c = oh_new("GridSample", 22);
    if (spatial == 2) {
        oh_input(c, t, 4, (int64_t[]){2, 3, 5, 7}, -1, 1);
        oh_input(c, t, 4, (int64_t[]){2, 4, 6, 2}, -1.3, 1.3);
    } else {
        oh_input(c, t, 5, (int64_t[]){1, 2, 3, 5, 4}, -1, 1);
        oh_input(c, t, 5, (int64_t[]){1, 2, 3, 4, 3}, -1.3, 1.3);
    }
    oh_attr_string(c, "mode", mode);
    oh_attr_string(c, "padding_mode", padding);
    oh_attr_int(c, "align_corners", align);
    oh_expect_gpu(c, GRIDSAMPLE_GPU);
    oh_run(c, label, oh_bound(t, 1e-5));
}

static void test_gridsample(void)
{
    static const char *modes[] = {"linear", "nearest", "cubic"};
    static const char *paddings[] = {"zeros", "border", "reflection"};
    for (int m = 0; m < 3; m++)
        for (int p = 0; p < 3; p++)
            for (int a = 0; a < 2; a++)
                run_gridsample(modes[m], paddings[p], a, 2, VKML_DTYPE_FLOAT);
    run_gridsample("linear", "zeros", 0, 2, VKML_DTYPE_FLOAT16);
    run_gridsample("linear", "border", 1, 3, VKML_DTYPE_FLOAT);

    /* Hostile grids: NaN and huge coordinates sample defined points on every device. */
    static const char *const hostile_pads[] = {"zeros", "border"};
    for (int m = 0; m < 3; m++)
        for (int pd = 0; pd < 2; pd++) {
            char label[96];
            const float grid[] = {NAN, 0.5f, 1e30f, -1e30f, -1e30f, 0.25f, INFINITY, -INFINITY};
            oh_case *c = oh_new("GridSample", 22);
            oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 2, 5, 4}, -1, 1);
            oh_const(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 2, 2, 2}, grid);
            oh_attr_string(c, "mode", modes[m]);
            oh_attr_string(c, "padding_mode", hostile_pads[pd]);
            snprintf(label, sizeof(label), "GridSample hostile grid %s %s", modes[m],
                     hostile_pads[pd]);
            oh_run(c, label, 1e-5);
        }

    oh_case *c = oh_new("GridSample", 22);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 1, 4, 4}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 2, 2, 3}, -1, 1);
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "grid");
    oh_run(c, "GridSample grid of the wrong shape", OH_BOUND_EXACT);
}

int main(void)
{
    test_gridsample();
    return oh_finish();
}
