/*
 * Resize and Upsample (lib/ops/resize.c) on the op harness (suite 'ops'): every mode,
 * coordinate transformation and nearest rounding, antialiasing, scales and sizes, known
 * values, every Vulkan device against the CPU on odd shapes in float32 and float16, and
 * bad input.
 */
#include "op_harness.h"

#include <stdio.h>
#include <string.h>

static const vkml_dtype float_types[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16};

/* Resize of X [2, 3, 5, 7] by scales (1, 1, sh, sw) or to sizes. */
typedef struct resize_case {
    const char *mode, *coord, *nearest;
    float sh, sw;   /* scales; 0: use sizes */
    int64_t oh, ow; /* sizes */
    bool antialias, exclude_outside;
    bool gpu;
} resize_case;

static void run_resize(const resize_case *rc, vkml_dtype t)
{
    char label[160];
    snprintf(label, sizeof(label), "Resize %s %s %s %s%s %s", rc->mode, rc->coord,
             rc->nearest ? rc->nearest : "", rc->sh ? "scales" : "sizes",
             rc->antialias ? " antialias" : "", oh_dtype_label(t));
    oh_case *c = oh_new("Resize", 19);
    oh_input(c, t, 4, (int64_t[]){2, 3, 5, 7}, -2, 2);
    if (!strcmp(rc->coord, "tf_crop_and_resize")) {
        const float roi[] = {0, 0, 0.2f, 0.1f, 1, 1, 0.9f, 1.2f};
        oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){8}, roi);
    } else {
        oh_skip_input(c);
    }
    if (rc->sh) {
        const float scales[] = {1, 1, rc->sh, rc->sw};
        oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){4}, scales);
    } else {
        oh_skip_input(c);
        oh_const_i64(c, 4, (int64_t[]){2, 3, rc->oh, rc->ow});
    }
    oh_attr_string(c, "mode", rc->mode);
    oh_attr_string(c, "coordinate_transformation_mode", rc->coord);
    if (rc->nearest)
        oh_attr_string(c, "nearest_mode", rc->nearest);
    if (rc->antialias)
        oh_attr_int(c, "antialias", 1);
    if (rc->exclude_outside)
        oh_attr_int(c, "exclude_outside", 1);
    oh_attr_float(c, "extrapolation_value", -7.0f);
    oh_expect_gpu(c, rc->gpu);
    oh_run(c, label, oh_bound(t, OH_BOUND_SUM));
}

static void test_resize(void)
{
    static const resize_case cases[] = {
        {"nearest", "half_pixel", "round_prefer_floor", 2.0f, 1.5f, 0, 0, false, false, true},
        {"nearest", "asymmetric", "floor", 0.5f, 0.75f, 0, 0, false, false, true},
        {"nearest", "align_corners", "round_prefer_ceil", 0, 0, 9, 4, false, false, true},
        {"nearest", "pytorch_half_pixel", "ceil", 0, 0, 1, 11, false, false, true},
        {"linear", "half_pixel", NULL, 2.0f, 0.5f, 0, 0, false, false, true},
        {"linear", "half_pixel_symmetric", NULL, 1.5f, 0.75f, 0, 0, false, false, true},
        {"linear", "align_corners", NULL, 0, 0, 8, 13, false, false, true},
        {"linear", "tf_crop_and_resize", NULL, 0, 0, 6, 9, false, false, true},
        {"cubic", "half_pixel", NULL, 1.5f, 2.0f, 0, 0, false, true, true},
        {"cubic", "asymmetric", NULL, 0.5f, 1.25f, 0, 0, false, false, true},
        {"cubic", "pytorch_half_pixel", NULL, 0, 0, 3, 10, false, false, true},
        {"linear", "half_pixel", NULL, 0.5f, 0.75f, 0, 0, true, false, true},
        {"cubic", "half_pixel", NULL, 0.5f, 0.75f, 0, 0, true, false, true},
        {"linear", "align_corners", NULL, 0.3f, 0.2f, 0, 0, true, false, true},
        {"cubic", "pytorch_half_pixel", NULL, 0, 0, 2, 3, true, true, true},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        for (size_t t = 0; t < 2; t++)
            run_resize(&cases[i], float_types[t]);

    /* Nearest Resizes that run as strided copies (resize_as_strided): the 2x Upsample of
     * detectors under the exporters' modes, a whole-factor subsampling, rows kept whole */
    static const resize_case copies[] = {
        {"nearest", "half_pixel", "round_prefer_floor", 2.0f, 2.0f, 0, 0, false, false, true},
        {"nearest", "asymmetric", "floor", 2.0f, 3.0f, 0, 0, false, false, true},
        {"nearest", "pytorch_half_pixel", "round_prefer_floor", 4.0f, 2.0f, 0, 0, false, false,
         true},
        {"nearest", "asymmetric", "floor", 0, 0, 5, 4, false, false, true},
        {"nearest", "half_pixel", "round_prefer_floor", 0.5f, 1.0f, 0, 0, false, false, true},
    };
    for (size_t i = 0; i < sizeof(copies) / sizeof(copies[0]); i++)
        for (size_t t = 0; t < 2; t++)
            run_resize(&copies[i], float_types[t]);

    /* Known values: nearest 2x upsampling of [[1, 2], [3, 4]]. */
    oh_case *c = oh_new("Resize", 13);
    const float x[] = {1, 2, 3, 4}, scales[] = {1, 1, 2, 2};
    const float y[] = {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4};
    oh_const(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 1, 2, 2}, x);
    oh_skip_input(c);
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){4}, scales);
    oh_expect(c, 0, y);
    oh_run(c, "Resize nearest 2x known values", OH_BOUND_EXACT);

    /* uint8 nearest on the CPU (the GPU kernel is float-only). */
    c = oh_new("Resize", 19);
    oh_input(c, VKML_DTYPE_UINT8, 4, (int64_t[]){1, 3, 5, 7}, 0, 255);
    oh_skip_input(c);
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){4}, (float[]){1, 1, 1.5f, 0.5f});
    oh_expect_gpu(c, false);
    oh_run(c, "Resize nearest uint8", OH_BOUND_EXACT);

    /* Upsample: opset 7 (scales attribute) and 9 (scales input). */
    c = oh_new("Upsample", 7);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 3, 5, 7}, -1, 1);
    oh_attr_floats(c, "scales", 4, (float[]){1, 1, 2, 3});
    oh_run(c, "Upsample-7 nearest", OH_BOUND_EXACT);
    c = oh_new("Upsample", 9);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 3, 5, 7}, -1, 1);
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){4}, (float[]){1, 1, 2, 1.5f});
    oh_attr_string(c, "mode", "linear");
    oh_run(c, "Upsample-9 linear", OH_BOUND_SUM);
}

static void test_resize_errors(void)
{
    oh_case *c = oh_new("Resize", 19);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 1, 4, 4}, -1, 1);
    oh_skip_input(c);
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){4}, (float[]){1, 1, 2, 2});
    oh_const_i64(c, 4, (int64_t[]){1, 1, 8, 8});
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "exactly one of");
    oh_run(c, "Resize with scales and sizes", OH_BOUND_EXACT);

    c = oh_new("Resize", 19);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 1, 4, 4}, -1, 1);
    oh_skip_input(c);
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){4}, (float[]){1, 1, 1e-6f, 1});
    oh_attr_string(c, "mode", "cubic");
    oh_attr_int(c, "antialias", 1);
    oh_expect_error(c, VKML_ERROR_UNSUPPORTED, "taps");
    oh_run(c, "Resize antialias with an absurd scale", OH_BOUND_EXACT);

    c = oh_new("Resize", 19);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 1, 4, 4}, -1, 1);
    oh_skip_input(c);
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){4}, (float[]){1, 1, 1e30f, 1});
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "scale");
    oh_run(c, "Resize to an absurd size", OH_BOUND_EXACT);

    c = oh_new("Resize", 19);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 1, 4, 4}, -1, 1);
    oh_attr_string(c, "mode", "bicubic");
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "'mode'");
    oh_run(c, "Resize with a bad mode", OH_BOUND_EXACT);
}

int main(void)
{
    test_resize();
    test_resize_errors();
    return oh_finish();
}
