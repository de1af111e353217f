/*
 * Detection ops (lib/ops/detect.c) on the op harness (suite 'ops'): RoiAlign's bad rois,
 * NonMaxSuppression's known values (an INT64_MAX box count included) and bad thresholds;
 * RoiAlign on every Vulkan device against the CPU (roialign.comp) on odd shapes, both
 * modes and coordinate transforms, adaptive and fixed sampling, rois partly or wholly off
 * the image. The Vulkan devices leave NonMaxSuppression to the CPU.
 */
#include "op_harness.h"

#include <stdint.h>
#include <stdio.h>

#define ROIS 9

/* ROIS boxes [x0, y0, x1, y1] over a w x h image (in input pixels before spatial_scale):
 * inside it, across its edges, wholly off it, one thinner than a pixel, one inverted. */
static void make_rois(float w, float h, float *rois, int64_t *batch)
{
    uint32_t s = 12345;
    for (int r = 0; r < ROIS; r++) {
        float v[4];
        for (int k = 0; k < 4; k++) {
            s = s * 1664525u + 1013904223u;
            v[k] = (float)(s >> 8) / (float)(1u << 24);
        }
        rois[4 * r] = (v[0] * 1.2f - 0.1f) * w;
        rois[4 * r + 1] = (v[1] * 1.2f - 0.1f) * h;
        rois[4 * r + 2] = rois[4 * r] + v[2] * w * 0.8f;
        rois[4 * r + 3] = rois[4 * r + 1] + v[3] * h * 0.8f;
        batch[r] = r % 2;
    }
    float off[4] = {w + 3, h + 2, w + 9, h + 5}, thin[4] = {1, 1, 1.3f, 7};
    float inverted[4] = {6, 5, 2, 1};
    for (int k = 0; k < 4; k++) {
        rois[4 * (ROIS - 3) + k] = off[k];
        rois[4 * (ROIS - 2) + k] = thin[k];
        rois[4 * (ROIS - 1) + k] = inverted[k];
    }
}

static void run_roialign(const char *mode, const char *ctm, int sampling, float scale)
{
    const int64_t n = 2, ch = 5, h = 11, w = 13;
    float rois[4 * ROIS];
    int64_t batch[ROIS];
    char label[128];
    make_rois((float)w / scale, (float)h / scale, rois, batch);
    snprintf(label, sizeof(label), "RoiAlign %s %s sampling %d scale %g", mode, ctm, sampling,
             scale);
    oh_case *c = oh_new("RoiAlign", 16);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){n, ch, h, w}, -2, 2);
    oh_const(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){ROIS, 4}, rois);
    oh_const(c, VKML_DTYPE_INT64, 1, (int64_t[]){ROIS}, batch);
    oh_attr_string(c, "mode", mode);
    oh_attr_string(c, "coordinate_transformation_mode", ctm);
    oh_attr_int(c, "output_height", 3);
    oh_attr_int(c, "output_width", 4);
    oh_attr_int(c, "sampling_ratio", sampling);
    oh_attr_float(c, "spatial_scale", scale);
    oh_expect_gpu(c, true);
    oh_run(c, label, OH_BOUND_SUM);
}

static void test_roialign_gpu(void)
{
    static const char *modes[] = {"avg", "max"};
    static const char *ctms[] = {"half_pixel", "output_half_pixel"};
    /* 0 adaptive, 2 as torchvision exports, 64 a grid far denser than the pixels (the CPU
     * kernel sums it by rows and columns, the shader sample by sample) */
    static const int samplings[] = {0, 2, 64};
    for (int m = 0; m < 2; m++)
        for (int t = 0; t < 2; t++)
            for (int s = 0; s < 3; s++)
                run_roialign(modes[m], ctms[t], samplings[s],
                             m == 0 && t == 0 && s == 0 ? 1.0f : 0.25f);
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

    /* RoiAlign with a grid of 256 x 256 samples over 60,000 bins (a fuzzer's timeout: 4e9
     * samples one by one): the CPU kernel visits each bin's few pixel lines; the GPUs
     * leave the node to it. */
    c = oh_new("RoiAlign", 16);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 1, 10, 10}, -1, 1);
    oh_const(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){3, 4},
             (float[]){0, 0, 9, 9, 1, 2, 3, 4, 5, 5, 5, 5});
    oh_const(c, VKML_DTYPE_INT64, 1, (int64_t[]){3}, (int64_t[]){0, 0, 0});
    oh_attr_int(c, "output_height", 4000);
    oh_attr_int(c, "output_width", 5);
    oh_attr_int(c, "sampling_ratio", 256);
    oh_expect_gpu(c, false);
    oh_run(c, "RoiAlign with a 256 x 256 grid per bin", OH_BOUND_SUM);

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

    /* Empty boxes (no area) are kept and suppress nothing, however many: box 1 and 3 are
     * points, box 2 overlaps box 0 (IoU 0.82), box 4 lies inside box 0 (IoU 0.25). */
    c = oh_new("NonMaxSuppression", 11);
    static const float with_empty[] = {0,    0, 1, 1, 0.5f, 0.5f, 0.5f, 0.5f, 0.1f, 0,
                                       1.1f, 1, 0, 0, 0,    0,    0,    0,    0.5f, 0.5f};
    oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, 5, 4}, with_empty);
    oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, 1, 5}, (float[]){0.9f, 0.8f, 0.7f, 0.6f, 0.5f});
    oh_const(c, VKML_DTYPE_INT64, 1, (int64_t[]){1}, (int64_t[]){10});
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){1}, (float[]){0.5f});
    oh_expect(c, 0, (int64_t[]){0, 0, 0, 0, 0, 1, 0, 0, 3, 0, 0, 4});
    oh_expect_gpu(c, false);
    oh_run(c, "NonMaxSuppression with empty boxes", OH_BOUND_EXACT);

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
    test_roialign_gpu();
    return oh_finish();
}
