/*
 * Spatial ops on the harness (suite 'ops'): Resize/Upsample, ConvTranspose, GridSample,
 * RoiAlign, NonMaxSuppression and the pools: known values, every Vulkan device against the
 * CPU on odd shapes in float32 and float16, and bad input.
 */
#include "op_harness.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Whether the Vulkan devices run these nodes yet. */
#define CONVT_GPU true
#define GRIDSAMPLE_GPU true
#define MAXPOOL_INDICES_GPU true

static const vkml_dtype float_types[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16};

static const char *dtype_label(vkml_dtype t)
{
    return t == VKML_DTYPE_FLOAT16 ? "f16" : "f32";
}

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
             rc->antialias ? " antialias" : "", dtype_label(t));
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

static void run_gridsample(const char *mode, const char *padding, int align, int spatial,
                           vkml_dtype t)
{
    char label[160];
    snprintf(label, sizeof(label), "GridSample %dd %s %s align %d %s", spatial, mode, padding,
             align, dtype_label(t));
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

/* Conv on the direct kernels: 3-D, grouped, depthwise (with a channel multiplier). */
static void run_conv(const char *label, vkml_dtype t, int rank, const int64_t *x_dims,
                     const int64_t *w_dims, int64_t group, const int64_t *strides,
                     const int64_t *pads, const int64_t *dilations)
{
    int s = rank - 2;
    oh_case *c = oh_new("Conv", 11);
    oh_input(c, t, rank, x_dims, -1, 1);
    oh_const_random(c, t, rank, w_dims, -1, 1);
    oh_const_random(c, t, 1, (int64_t[]){w_dims[0]}, -1, 1);
    oh_attr_int(c, "group", group);
    if (strides)
        oh_attr_ints(c, "strides", s, strides);
    if (pads)
        oh_attr_ints(c, "pads", 2 * s, pads);
    if (dilations)
        oh_attr_ints(c, "dilations", s, dilations);
    oh_run(c, label, oh_bound(t, OH_BOUND_SUM));
}

static void test_conv(void)
{
    run_conv("Conv depthwise 3x3 stride 2 f16", VKML_DTYPE_FLOAT16, 4, (int64_t[]){1, 8, 9, 7},
             (int64_t[]){8, 1, 3, 3}, 8, (int64_t[]){2, 2}, (int64_t[]){1, 1, 1, 1}, NULL);
    run_conv("Conv 2-D f16", VKML_DTYPE_FLOAT16, 4, (int64_t[]){1, 5, 9, 7},
             (int64_t[]){12, 5, 3, 3}, 1, NULL, (int64_t[]){1, 1, 1, 1}, NULL);
    run_conv("Conv depthwise 3x3 stride 2", VKML_DTYPE_FLOAT, 4, (int64_t[]){2, 6, 11, 13},
             (int64_t[]){6, 1, 3, 3}, 6, (int64_t[]){2, 2}, (int64_t[]){1, 1, 1, 1}, NULL);
    run_conv("Conv depthwise multiplier 2 dilated", VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 3, 11, 13},
             (int64_t[]){6, 1, 3, 2}, 3, NULL, (int64_t[]){2, 0, 2, 1}, (int64_t[]){2, 3});
    run_conv("Conv grouped 2-D", VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 4, 7, 5},
             (int64_t[]){6, 2, 2, 3}, 2, (int64_t[]){1, 2}, NULL, NULL);
    run_conv("Conv 3-D", VKML_DTYPE_FLOAT, 5, (int64_t[]){1, 3, 5, 7, 6},
             (int64_t[]){4, 3, 3, 2, 3}, 1, (int64_t[]){1, 2, 1}, (int64_t[]){1, 0, 1, 1, 1, 0},
             NULL);
    run_conv("Conv 1-D dilated", VKML_DTYPE_FLOAT, 3, (int64_t[]){2, 3, 13}, (int64_t[]){5, 3, 3},
             1, NULL, (int64_t[]){2, 1}, (int64_t[]){3});
}

static void test_pool(void)
{
    for (size_t t = 0; t < 2; t++) {
        char label[96];
        oh_case *c = oh_new("MaxPool", 12);
        oh_input(c, float_types[t], 4, (int64_t[]){2, 3, 11, 13}, -1, 1);
        oh_attr_ints(c, "kernel_shape", 2, (int64_t[]){3, 2});
        oh_attr_ints(c, "strides", 2, (int64_t[]){2, 1});
        oh_attr_ints(c, "pads", 4, (int64_t[]){1, 0, 1, 1});
        snprintf(label, sizeof(label), "MaxPool 3x2 %s", dtype_label(float_types[t]));
        oh_run(c, label, OH_BOUND_EXACT);

        c = oh_new("AveragePool", 19);
        oh_input(c, float_types[t], 4, (int64_t[]){2, 3, 11, 13}, -1, 1);
        oh_attr_ints(c, "kernel_shape", 2, (int64_t[]){3, 3});
        oh_attr_ints(c, "pads", 4, (int64_t[]){1, 1, 1, 1});
        oh_attr_int(c, "count_include_pad", 1);
        snprintf(label, sizeof(label), "AveragePool 3x3 pads %s", dtype_label(float_types[t]));
        oh_run(c, label, oh_bound(float_types[t], OH_BOUND_SUM));
    }
    /* pool.comp's unrolled forms (windows of at most 3x3 and 5x5 taps, one along the push
     * block's first dim) and their edges: YOLO's 5x5 stride-1 pool, dilation, a 1-D window,
     * a 3-D window of one tap in depth with a stride there; 4x6 and 3-D 2-deep take the loop */
    static const struct {
        const char *op;
        int rank;
        int64_t dims[5], kernel[3], strides[3], dilations[3], pads[6];
    } unrolled[] = {
        {"MaxPool", 4, {2, 3, 12, 11}, {5, 5}, {1, 1}, {1, 1}, {2, 2, 2, 2}},
        {"MaxPool", 4, {1, 2, 9, 10}, {2, 3}, {2, 1}, {2, 2}, {0, 1, 1, 0}},
        {"MaxPool", 3, {2, 3, 17}, {4}, {3}, {1}, {1, 2}},
        {"MaxPool", 5, {1, 2, 5, 6, 7}, {1, 3, 3}, {2, 1, 2}, {1, 1, 1}, {0, 1, 1, 0, 1, 1}},
        {"AveragePool", 5, {1, 2, 5, 6, 7}, {1, 2, 3}, {2, 1, 2}, {1, 1, 1}, {0, 0, 1, 0, 1, 1}},
        {"MaxPool", 4, {1, 2, 9, 10}, {4, 6}, {1, 2}, {1, 1}, {0, 0, 0, 0}},
    };
    for (size_t u = 0; u < VKML_ARRAY_SIZE(unrolled); u++)
        for (size_t t = 0; t < 2; t++) {
            char label[96];
            int sp = unrolled[u].rank - 2;
            oh_case *c = oh_new(unrolled[u].op, 19);
            oh_input(c, float_types[t], unrolled[u].rank, unrolled[u].dims, -1, 1);
            oh_attr_ints(c, "kernel_shape", sp, unrolled[u].kernel);
            oh_attr_ints(c, "strides", sp, unrolled[u].strides);
            oh_attr_ints(c, "dilations", sp, unrolled[u].dilations);
            oh_attr_ints(c, "pads", 2 * sp, unrolled[u].pads);
            snprintf(label, sizeof(label), "%s %dd k%lld %s", unrolled[u].op, sp,
                     (long long)unrolled[u].kernel[sp - 1], dtype_label(float_types[t]));
            oh_run(c, label, oh_bound(float_types[t], OH_BOUND_SUM));
        }
    /* A huge kernel over a small input: work bounded by the input on every device. */
    oh_case *c = oh_new("AveragePool", 19);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 2, 5, 7}, -1, 1);
    oh_attr_ints(c, "kernel_shape", 2, (int64_t[]){100001, 100001});
    oh_attr_ints(c, "pads", 4, (int64_t[]){50000, 50000, 50000, 50000});
    oh_run(c, "AveragePool 100001x100001 kernel", OH_BOUND_SUM);

    c = oh_new("MaxPool", 12);
    oh_input(c, VKML_DTYPE_UINT8, 4, (int64_t[]){1, 2, 5, 7}, 0, 255);
    oh_attr_ints(c, "kernel_shape", 2, (int64_t[]){2, 2});
    oh_run(c, "MaxPool uint8", OH_BOUND_EXACT);

    c = oh_new("MaxPool", 12);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){2, 3, 7, 5}, -1, 1);
    oh_attr_ints(c, "kernel_shape", 2, (int64_t[]){2, 3});
    oh_attr_ints(c, "strides", 2, (int64_t[]){2, 2});
    oh_attr_int(c, "storage_order", 1);
    oh_outputs(c, 2);
    oh_expect_gpu(c, MAXPOOL_INDICES_GPU);
    oh_run(c, "MaxPool with Indices", OH_BOUND_EXACT);

    c = oh_new("LpPool", 18);
    oh_const(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 1, 2, 2}, (float[]){3, -4, 0, 0});
    oh_attr_ints(c, "kernel_shape", 2, (int64_t[]){2, 2});
    oh_attr_int(c, "p", 2);
    oh_expect(c, 0, (float[]){5});
    oh_run(c, "LpPool p=2 known values", OH_BOUND_TRANSCENDENTAL);

    /* 3-D windows with dilations and padding, and LpPool p=3, on every device. */
    static const char *const ops3d[] = {"MaxPool", "AveragePool", "LpPool"};
    for (int k = 0; k < 3; k++)
        for (size_t t = 0; t < 2; t++) {
            char label[96];
            c = oh_new(ops3d[k], 19);
            oh_input(c, float_types[t], 5, (int64_t[]){1, 3, 5, 7, 6}, -1, 1);
            oh_attr_ints(c, "kernel_shape", 3, (int64_t[]){2, 3, 2});
            oh_attr_ints(c, "dilations", 3, (int64_t[]){2, 1, 1});
            oh_attr_ints(c, "pads", 6, (int64_t[]){1, 1, 0, 0, 1, 1});
            if (k == 2)
                oh_attr_int(c, "p", 3);
            snprintf(label, sizeof(label), "%s 3-D %s", ops3d[k], dtype_label(float_types[t]));
            oh_run(c, label, oh_bound(float_types[t], OH_BOUND_TRANSCENDENTAL));
        }

    c = oh_new("MaxUnpool", 11);
    oh_const(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 1, 1, 2}, (float[]){5, 6});
    oh_const(c, VKML_DTYPE_INT64, 4, (int64_t[]){1, 1, 1, 2}, (int64_t[]){1, 2});
    oh_attr_ints(c, "kernel_shape", 2, (int64_t[]){2, 2});
    oh_attr_ints(c, "strides", 2, (int64_t[]){2, 2});
    oh_expect(c, 0, (float[]){0, 5, 6, 0, 0, 0, 0, 0});
    oh_expect_gpu(c, false);
    oh_run(c, "MaxUnpool known values", OH_BOUND_EXACT);

    c = oh_new("MaxUnpool", 11);
    oh_const(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 1, 1, 2}, (float[]){5, 6});
    oh_const(c, VKML_DTYPE_INT64, 4, (int64_t[]){1, 1, 1, 2}, (int64_t[]){1, 99});
    oh_attr_ints(c, "kernel_shape", 2, (int64_t[]){2, 2});
    oh_attr_ints(c, "strides", 2, (int64_t[]){2, 2});
    oh_expect_error(c, VKML_ERROR_INVALID_ARGUMENT, "index 99");
    oh_run(c, "MaxUnpool index out of range", OH_BOUND_EXACT);

    c = oh_new("MaxPool", 12);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 1, 4, 4}, -1, 1);
    oh_attr_ints(c, "kernel_shape", 2, (int64_t[]){9, 9});
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "does not fit");
    oh_run(c, "MaxPool kernel larger than the input", OH_BOUND_EXACT);
}

int main(void)
{
    test_resize();
    test_resize_errors();
    test_convtranspose();
    test_gridsample();
    test_detect();
    test_conv();
    test_pool();
    return oh_finish();
}
