/*
 * Normalisations (lib/ops/norm.c) on the op harness (suite 'ops'): Softmax, LogSoftmax,
 * Hardmax, LayerNormalization, InstanceNormalization, GroupNormalization,
 * MeanVarianceNormalization, LpNormalization and RMSNormalization, each dtype x odd shapes
 * (long rows that take a workgroup each), Softmax on the plain and the tiled kernels, the
 * normalisations again on the GPU kernels of 32 lanes a line (ragged line counts; lines
 * of a transformer's 128 and 768 elements),
 * known values, the Vulkan devices against the CPU, and bad input.
 */
#include "op_harness.h"

#include <stdio.h>

static const vkml_dtype floats[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16};

/* A normalisation of x [dims] (scale/bias of n_params elements when n_params > 0). */
static oh_case *norm_case(const char *op, int opset, vkml_dtype t, int rank, const int64_t *dims,
                          int64_t n_params, bool bias)
{
    oh_case *c = oh_new(op, opset);
    oh_input(c, t, rank, dims, -4, 4);
    if (n_params > 0) {
        oh_const_random(c, t, 1, (int64_t[]){n_params}, 0.5, 2);
        if (bias)
            oh_const_random(c, t, 1, (int64_t[]){n_params}, -1, 1);
    }
    return c;
}

static void test_norms(void)
{
    const int64_t dims[] = {5, 7, 11, 13};
    for (size_t k = 0; k < sizeof(floats) / sizeof(floats[0]); k++) {
        vkml_dtype t = floats[k];
        double b = oh_bound(t, OH_BOUND_TRANSCENDENTAL);
        char label[128];
        const char *softmaxes[] = {"Softmax", "LogSoftmax", "Hardmax"};
        for (int s = 0; s < 3; s++) {
            for (int opset = 11; opset <= 13; opset += 2) {
                for (int axis = 0; axis < 4; axis += 3) {
                    snprintf(label, sizeof(label), "%s %s opset %d axis %d", softmaxes[s],
                             vkml_dtype_name(t), opset, axis);
                    oh_case *c = norm_case(softmaxes[s], opset, t, 4, dims, 0, false);
                    oh_attr_int(c, "axis", axis);
                    oh_run(c, label, b);
                }
            }
            snprintf(label, sizeof(label), "%s %s long rows", softmaxes[s], vkml_dtype_name(t));
            oh_run(norm_case(softmaxes[s], 13, t, 2, (int64_t[]){3, 3000}, 0, false), label, b);
        }
        for (int axis = 1; axis < 4; axis++) {
            snprintf(label, sizeof(label), "LayerNormalization %s axis %d", vkml_dtype_name(t),
                     axis);
            int64_t n = 1;
            for (int d = axis; d < 4; d++)
                n *= dims[d];
            oh_case *c = norm_case("LayerNormalization", 17, t, 4, dims, n, axis != 2);
            oh_attr_int(c, "axis", axis);
            if (t == VKML_DTYPE_FLOAT)
                oh_outputs(c, 3);
            oh_run(c, label, b);
        }
        snprintf(label, sizeof(label), "InstanceNormalization %s", vkml_dtype_name(t));
        oh_run(norm_case("InstanceNormalization", 22, t, 4, dims, 7, true), label, b);
        for (int opset = 18; opset <= 21; opset += 3) {
            snprintf(label, sizeof(label), "GroupNormalization %s opset %d", vkml_dtype_name(t),
                     opset);
            oh_case *c = norm_case("GroupNormalization", opset, t, 4, (int64_t[]){5, 6, 11, 13},
                                   opset == 18 ? 3 : 6, true);
            oh_attr_int(c, "num_groups", 3);
            oh_run(c, label, b);
        }
        snprintf(label, sizeof(label), "MeanVarianceNormalization %s", vkml_dtype_name(t));
        oh_run(norm_case("MeanVarianceNormalization", 13, t, 4, dims, 0, false), label, b);
        for (int p = 1; p <= 2; p++) {
            snprintf(label, sizeof(label), "LpNormalization %s p %d", vkml_dtype_name(t), p);
            oh_case *c = norm_case("LpNormalization", 22, t, 4, dims, 0, false);
            oh_attr_int(c, "p", p);
            oh_attr_int(c, "axis", 1);
            oh_run(c, label, b);
        }
    }
}

static void test_rms_norm(void)
{
    const int64_t dims[] = {5, 7, 11, 13};
    for (size_t k = 0; k < sizeof(floats) / sizeof(floats[0]); k++) {
        vkml_dtype t = floats[k];
        for (int axis = -1; axis >= -3; axis--) {
            /* Scale of the normalised dims, or only their last (a repeating suffix). */
            for (int full = 0; full <= 1; full++) {
                char label[96];
                snprintf(label, sizeof(label), "RMSNormalization %s axis %d %s scale",
                         vkml_dtype_name(t), axis, full ? "full" : "suffix");
                oh_case *c = oh_new("RMSNormalization", 23);
                oh_input(c, t, 4, dims, -4, 4);
                int n = full ? -axis : 1;
                oh_const_random(c, t, n, dims + 4 - n, 0.5, 2);
                oh_attr_int(c, "axis", axis);
                oh_attr_float(c, "epsilon", 1e-3f);
                oh_run(c, label, oh_bound(t, OH_BOUND_TRANSCENDENTAL));
            }
        }
    }
    oh_case *c = oh_new("RMSNormalization", 23);
    const float x[] = {3, 4}, w[] = {1, 2};
    const float y[] = {3 / 3.5355339f, 8 / 3.5355339f}; /* rms = sqrt(12.5) */
    oh_const(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){1, 2}, x);
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){2}, w);
    oh_attr_float(c, "epsilon", 0.0f);
    oh_expect(c, 0, y);
    oh_run(c, "RMSNormalization known values", OH_BOUND_EXACT);

    c = oh_new("RMSNormalization", 23);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){3, 4}, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, 0.5, 2);
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "has 3 elements");
    oh_run(c, "RMSNormalization scale of the wrong size", OH_BOUND_EXACT);
}

static void softmax_case(const char *label, int opset, int rank, const int64_t *dims, int64_t axis,
                         float range)
{
    oh_case *c = oh_new("Softmax", opset);
    oh_input(c, VKML_DTYPE_FLOAT, rank, dims, -range, range);
    oh_attr_int(c, "axis", axis);
    oh_run(c, label, OH_BOUND_SUM);
}

/* Softmax on the plain and the tiled kernels (chosen by caps: both, whatever the device
 * prefers), large values included. */
static void test_softmax_kernels(void)
{
    const int64_t dims[] = {5, 7, 11}, rows[] = {3, 1000};
    for (int tiled = 0; tiled < 2; tiled++) {
        oh_gpu_kernels(tiled ? OH_KERNELS_TILED : OH_KERNELS_PLAIN, 0);
        printf("-- %s kernels\n", tiled ? "tiled" : "plain");
        softmax_case("Softmax axis 1 (opset 13)", 13, 3, dims, 1, 8);
        softmax_case("Softmax coerced 2-D (opset 11)", 11, 3, dims, 1, 8);
        softmax_case("Softmax rows of 1000, large values", 13, 2, rows, -1, 80);
    }
    oh_gpu_kernels(OH_KERNELS_DEVICE, 0);
}

/* The GPU kernels of 32 lanes a line (ops_reduce.h: the _short kernels for lines of up to
 * VK_REDUCE_SHORT_MAX_COUNT, the _lanes ones where subgroups combine them, up to
 * VK_NORM_LANES_MAX_COUNT; norm_vec.comp where subgroups of 32 hold dense lines),
 * whatever the device prefers: the cases above, then lines of a BERT-base encoder
 * (LayerNormalization over 768, Softmax over 128) in counts that leave the last
 * workgroup's lines partly spare. */
static void test_line_kernels(void)
{
    /* Over the last axis: op, opset, rank, dims, scale and bias elements, bias, label.
     * After BERT-base's lines, norm_vec.comp's forms where the GPU has clustered subgroups
     * of 32 (ops_norm.c, vec_lines; floats past 1,024 a line fall back): each of its
     * kernels of 1, 2, 4 and 8 vectors a lane (192 halves: 1; 192 floats and 512 halves: 2;
     * 768 and 1024 halves: 4; 2048 halves and 1024 floats: 8), no bias, lanes holding a
     * vector fewer than others (192; 1000: 250 float or 125 half vectors). */
    static const struct {
        const char *op;
        int opset, rank;
        int64_t dims[3], params;
        bool bias;
        const char *label;
    } lines[] = {
        {"LayerNormalization", 17, 3, {3, 37, 768}, 768, true, "LayerNormalization lines of 768"},
        {"LayerNormalization", 17, 3, {2, 5, 2048}, 2048, true, "LayerNormalization lines of 2048"},
        {"LayerNormalization",
         17,
         2,
         {7, 1024},
         1024,
         false,
         "LayerNormalization lines of 1024, no bias"},
        {"LayerNormalization",
         17,
         2,
         {6, 192},
         192,
         true,
         "LayerNormalization lines of 192 (lanes of 1 and 2 vectors)"},
        {"LayerNormalization", 17, 2, {5, 1000}, 1000, true, "LayerNormalization lines of 1000"},
        {"Softmax", 13, 3, {12, 13, 128}, 0, false, "Softmax lines of 128"},
        {"LogSoftmax", 13, 2, {5, 2000}, 0, false, "LogSoftmax lines of 2000"},
    };
    oh_gpu_kernels(OH_KERNELS_TILED, 0);
    printf("-- the tiled kernels\n");
    test_norms();
    for (size_t k = 0; k < sizeof(floats) / sizeof(floats[0]); k++) {
        vkml_dtype t = floats[k];
        double b = oh_bound(t, OH_BOUND_TRANSCENDENTAL);
        for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
            oh_case *c = norm_case(lines[i].op, lines[i].opset, t, lines[i].rank, lines[i].dims,
                                   lines[i].params, lines[i].bias);
            oh_attr_int(c, "axis", -1);
            oh_run(c, lines[i].label, b);
        }
        /* norm_vec.comp over two normalised axes with a scale over both, and
         * RMSNormalization */
        oh_case *c = oh_new("LayerNormalization", 17);
        oh_input(c, t, 3, (int64_t[]){9, 4, 256}, -4, 4);
        oh_const_random(c, t, 2, (int64_t[]){4, 256}, 0.5, 2);
        oh_const_random(c, t, 2, (int64_t[]){4, 256}, -1, 1);
        oh_attr_int(c, "axis", -2);
        oh_run(c, "LayerNormalization over [4, 256]", b);
        c = oh_new("RMSNormalization", 23);
        oh_input(c, t, 3, (int64_t[]){3, 5, 512}, -4, 4);
        oh_const_random(c, t, 1, (int64_t[]){512}, 0.5, 2);
        oh_attr_int(c, "axis", -1);
        oh_run(c, "RMSNormalization lines of 512", b);
    }
    oh_gpu_kernels(OH_KERNELS_DEVICE, 0);
}

int main(void)
{
    test_norms();
    test_rms_norm();
    test_softmax_kernels();
    test_line_kernels();
    return oh_finish();
}
