/*
 * The remaining ops on the op harness: losses, RMSNormalization, CumProd, Shrink, Swish,
 * BitCast, Det, ReverseSequence, RotaryEmbedding, DFT,
 * TensorScatter. CPU known values, the Vulkan devices
 * against the CPU where they run the op, and bad input.
 */
#include "op_harness.h"

#include <stdio.h>

static const vkml_dtype floats[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16};

static double bound_for(vkml_dtype t, double bound)
{
    return t == VKML_DTYPE_FLOAT16 ? OH_BOUND_FP16 : bound;
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
                oh_run(c, label, bound_for(t, OH_BOUND_TRANSCENDENTAL));
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

static void test_unary(void)
{
    const int64_t dims[] = {5, 7, 11, 13};
    for (size_t k = 0; k < sizeof(floats) / sizeof(floats[0]); k++) {
        vkml_dtype t = floats[k];
        char label[64];
        oh_case *c = oh_new("Shrink", 9);
        oh_input(c, t, 4, dims, -3, 3);
        oh_attr_float(c, "lambd", 1.0f);
        oh_attr_float(c, "bias", 0.5f);
        snprintf(label, sizeof(label), "Shrink %s", vkml_dtype_name(t));
        oh_run(c, label, bound_for(t, OH_BOUND_EXACT));
        c = oh_new("Swish", 24);
        oh_input(c, t, 4, dims, -6, 6);
        oh_attr_float(c, "alpha", 1.5f);
        snprintf(label, sizeof(label), "Swish %s", vkml_dtype_name(t));
        oh_run(c, label, bound_for(t, OH_BOUND_TRANSCENDENTAL));
    }
    oh_case *c = oh_new("Shrink", 9);
    const float x[] = {-2, -0.25f, 0, 0.25f, 2}, y[] = {-1.5f, 0, 0, 0, 1.5f};
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){5}, x);
    oh_attr_float(c, "bias", 0.5f);
    oh_expect(c, 0, y);
    oh_run(c, "Shrink known values", OH_BOUND_EXACT);
}

/* A loss node: scores [3, 4, 2], labels [3, 2] (label 9 is out of range unless ignored). */
static void loss_case(const char *op, const char *reduction, bool weights, bool ignore,
                      const int64_t *labels, bool log_prob, double want, const char *error)
{
    char label[128];
    snprintf(label, sizeof(label), "%s %s%s%s%s", op, reduction, weights ? " weights" : "",
             ignore ? " ignore_index" : "", error ? " (bad label)" : "");
    oh_case *c = oh_new(op, 13);
    float x[24];
    for (int i = 0; i < 24; i++)
        x[i] = (float)((i * 7) % 5) - 2.0f; /* NLL takes them as log-probabilities */
    oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){3, 4, 2}, x);
    oh_const(c, VKML_DTYPE_INT64, 2, (int64_t[]){3, 2}, labels);
    if (weights)
        oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){4}, (float[]){1, 2, 0.5f, 1});
    oh_attr_string(c, "reduction", reduction);
    if (ignore)
        oh_attr_int(c, "ignore_index", 9);
    if (log_prob)
        oh_outputs(c, 2);
    oh_expect_gpu(c, false);
    float w = (float)want; /* oh_expect keeps the pointer until oh_run */
    if (error)
        oh_expect_error(c, VKML_ERROR_INVALID_ARGUMENT, error);
    else if (want == want)
        oh_expect(c, 0, &w);
    oh_run(c, label, OH_BOUND_SUM);
}

static void test_losses(void)
{
    const int64_t labels[] = {0, 1, 2, 3, 1, 0}, ignored[] = {0, 9, 2, 3, 9, 0};
    /* NLL known values: -x[n, label, d] summed (x from loss_case's formula). */
    double sum = 0, wsum = 0, wl = 0;
    const float wt[] = {1, 2, 0.5f, 1};
    for (int n = 0; n < 3; n++)
        for (int d = 0; d < 2; d++) {
            int64_t l = labels[n * 2 + d];
            double v = (double)(((n * 8 + l * 2 + d) * 7) % 5) - 2.0;
            sum -= v;
            wl -= v * wt[l];
            wsum += wt[l];
        }
    const char *ops[] = {"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"};
    for (int o = 0; o < 2; o++) {
        bool nll = o == 0;
        loss_case(ops[o], "sum", false, false, labels, false, nll ? sum : 0.0 / 0.0, NULL);
        loss_case(ops[o], "mean", true, false, labels, !nll, nll ? wl / wsum : 0.0 / 0.0, NULL);
        loss_case(ops[o], "none", true, true, ignored, !nll, 0.0 / 0.0, NULL);
        loss_case(ops[o], "mean", false, true, ignored, false, 0.0 / 0.0, NULL);
        loss_case(ops[o], "sum", false, false, ignored, false, 0.0, "outside [0, 4)");
    }
    oh_case *c = oh_new("SoftmaxCrossEntropyLoss", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){3, 4}, -1, 1);
    oh_const_i64(c, 3, (int64_t[]){0, 1, 2});
    oh_attr_string(c, "reduction", "average");
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "reduction 'average'");
    oh_run(c, "SoftmaxCrossEntropyLoss bad reduction", OH_BOUND_EXACT);
}

static void test_cumprod(void)
{
    for (int mode = 0; mode < 4; mode++) {
        oh_case *c = oh_new("CumProd", 26);
        const int32_t x[] = {1, 2, 3, 4};
        const int32_t want[4][4] = {{1, 2, 6, 24}, {1, 1, 2, 6}, {24, 24, 12, 4}, {24, 12, 4, 1}};
        oh_const(c, VKML_DTYPE_INT32, 1, (int64_t[]){4}, x);
        oh_const_i64(c, 1, (int64_t[]){0});
        oh_attr_int(c, "exclusive", mode & 1);
        oh_attr_int(c, "reverse", mode >> 1);
        oh_expect(c, 0, want[mode]);
        oh_expect_gpu(c, false);
        oh_run(c, "CumProd int32 exclusive/reverse", OH_BOUND_EXACT);
    }
    oh_case *c = oh_new("CumProd", 26);
    oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){5, 7, 11}, 0.9, 1.1);
    oh_const_i64(c, 1, (int64_t[]){5});
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "axis");
    oh_run(c, "CumProd axis out of range", OH_BOUND_EXACT);
}

static void test_small_ops(void)
{
    oh_case *c = oh_new("BitCast", 26);
    const float one[] = {1.0f, -2.0f};
    const int32_t bits[] = {0x3f800000, (int32_t)0xc0000000};
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){2}, one);
    oh_attr_int(c, "to", VKML_DTYPE_INT32);
    oh_expect(c, 0, bits);
    oh_expect_gpu(c, false);
    oh_run(c, "BitCast float to int32", OH_BOUND_EXACT);

    c = oh_new("BitCast", 26);
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){2}, one);
    oh_attr_int(c, "to", VKML_DTYPE_INT64);
    oh_expect_error(c, VKML_ERROR_UNSUPPORTED, "element size");
    oh_run(c, "BitCast to another size", OH_BOUND_EXACT);

    c = oh_new("Det", 22);
    const float m2[] = {1, 2, 3, 4, 0, 1, 1, 0};
    const float d2[] = {-2, -1};
    oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){2, 2, 2}, m2);
    oh_expect(c, 0, d2);
    oh_expect_gpu(c, false);
    oh_run(c, "Det 2x2 known values", OH_BOUND_EXACT);

    c = oh_new("Det", 22);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){2, 3}, -1, 1);
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "[..., M, M]");
    oh_run(c, "Det of a non-square input", OH_BOUND_EXACT);

    for (int batch_axis = 0; batch_axis <= 1; batch_axis++) {
        c = oh_new("ReverseSequence", 10);
        oh_input(c, VKML_DTYPE_INT32, 3, (int64_t[]){4, 4, 3}, -100, 100);
        oh_const_i64(c, 4, (int64_t[]){4, 0, 2, 1});
        oh_attr_int(c, "batch_axis", batch_axis);
        oh_attr_int(c, "time_axis", 1 - batch_axis);
        oh_expect_gpu(c, false);
        oh_run(c, "ReverseSequence", OH_BOUND_EXACT);
    }
    c = oh_new("ReverseSequence", 10);
    const float rs[] = {1, 2, 3, 4}, rs_want[] = {2, 1, 3, 4};
    oh_const(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){1, 4}, rs);
    oh_const_i64(c, 1, (int64_t[]){2});
    oh_attr_int(c, "batch_axis", 0);
    oh_attr_int(c, "time_axis", 1);
    oh_expect(c, 0, rs_want);
    oh_expect_gpu(c, false);
    oh_run(c, "ReverseSequence known values", OH_BOUND_EXACT);

    c = oh_new("ReverseSequence", 10);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){4, 2}, -1, 1);
    oh_const_i64(c, 2, (int64_t[]){5, 1});
    oh_expect_error(c, VKML_ERROR_INVALID_ARGUMENT, "outside [0, 4]");
    oh_run(c, "ReverseSequence length out of range", OH_BOUND_EXACT);
}

static void test_rotary(void)
{
    for (int interleaved = 0; interleaved <= 1; interleaved++) {
        for (int rank = 3; rank <= 4; rank++) {
            oh_case *c = oh_new("RotaryEmbedding", 23);
            if (rank == 4)
                oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){2, 3, 5, 8}, -2, 2);
            else
                oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){2, 5, 24}, -2, 2);
            oh_const_random(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){7, 3}, -1, 1);
            oh_const_random(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){7, 3}, -1, 1);
            oh_const(c, VKML_DTYPE_INT64, 2, (int64_t[]){2, 5},
                     (int64_t[]){0, 1, 2, 3, 4, 6, 5, 4, 3, 2});
            oh_attr_int(c, "interleaved", interleaved);
            oh_attr_int(c, "rotary_embedding_dim", 6);
            if (rank == 3)
                oh_attr_int(c, "num_heads", 3);
            oh_expect_gpu(c, false);
            oh_run(c, "RotaryEmbedding", OH_BOUND_EXACT);
        }
    }
    oh_case *c = oh_new("RotaryEmbedding", 23);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 1, 2, 4}, -2, 2);
    oh_const_random(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){3, 2}, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){3, 2}, -1, 1);
    oh_const(c, VKML_DTYPE_INT64, 2, (int64_t[]){1, 2}, (int64_t[]){0, 3});
    oh_expect_error(c, VKML_ERROR_INVALID_ARGUMENT, "position id 3");
    oh_run(c, "RotaryEmbedding position id out of range", OH_BOUND_EXACT);
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

static void test_tensor_scatter(void)
{
    for (int circular = 0; circular <= 1; circular++) {
        oh_case *c = oh_new("TensorScatter", 24);
        const float cache[] = {0, 0, 0, 0, 0, 0, 0, 0}, up[] = {1, 2, 3, 4};
        const float want[2][8] = {{0, 1, 2, 0, 3, 4, 0, 0}, {2, 0, 0, 1, 0, 0, 3, 4}};
        oh_const(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){2, 4}, cache);
        oh_const(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){2, 2}, up);
        oh_const_i64(c, 2, circular ? (int64_t[]){3, 2} : (int64_t[]){1, 0});
        oh_attr_int(c, "axis", 1);
        oh_attr_string(c, "mode", circular ? "circular" : "linear");
        oh_expect(c, 0, want[circular]);
        oh_expect_gpu(c, false);
        oh_run(c, circular ? "TensorScatter circular" : "TensorScatter linear", OH_BOUND_EXACT);
    }
    oh_case *c = oh_new("TensorScatter", 24);
    oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){2, 4, 3}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){2, 2, 3}, -1, 1);
    oh_const_i64(c, 2, (int64_t[]){0, 3});
    oh_expect_error(c, VKML_ERROR_INVALID_ARGUMENT, "does not fit");
    oh_run(c, "TensorScatter linear write past the end", OH_BOUND_EXACT);
}

int main(void)
{
    test_rms_norm();
    test_unary();
    test_losses();
    test_cumprod();
    test_small_ops();
    test_rotary();
    test_dft();
    test_tensor_scatter();
    return oh_finish();
}
