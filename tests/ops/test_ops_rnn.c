/*
 * Recurrent and leftover ops on the harness (suite 'ops'): RNN, GRU, LSTM (known values
 * from a naive reference written here, every direction, layout, dtype and sequence_lens
 * on odd shapes), DeformConv, Dropout in training mode, TopK on 64-bit integers, and bad
 * input. None has a Vulkan kernel yet: the devices must refuse them, and the CPU runs.
 */
#include "op_harness.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Whether the Vulkan devices run these nodes yet. */
#define RNN_GPU false
#define DEFORMCONV_GPU false

static const vkml_dtype float_types[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16, VKML_DTYPE_DOUBLE};
static const char *const float_labels[] = {"f32", "f16", "f64"};

static double sigmoid(double x)
{
    return 1.0 / (1.0 + exp(-x));
}

static double clipped(double x, double clip)
{
    return x < -clip ? -clip : x > clip ? clip : x;
}

/* Deterministic data: a smooth function of the index, in about [-scale, scale]. */
static void fill(float *v, int n, double phase, double scale)
{
    for (int i = 0; i < n; i++)
        v[i] = (float)(sin(i * 0.7 + phase) * scale);
}

enum { S = 3, B = 2, I = 2, H = 2 };

/* LSTM, bidirectional, sequence_lens {3, 2}, peepholes, clip 1.5, layout 0: the ONNX
 * equations step by step, against the kernel. */
static void lstm_known(void)
{
    float x[S * B * I], w[2 * 4 * H * I], r[2 * 4 * H * H], bias[2 * 8 * H], p[2 * 3 * H];
    fill(x, S * B * I, 0.0, 1.0);
    fill(w, 2 * 4 * H * I, 1.0, 0.5);
    fill(r, 2 * 4 * H * H, 2.0, 0.5);
    fill(bias, 2 * 8 * H, 3.0, 0.2);
    fill(p, 2 * 3 * H, 4.0, 0.3);
    const int32_t lens[B] = {3, 2};
    const double clip = 1.5;
    float y[S * 2 * B * H] = {0}, yh[2 * B * H], yc[2 * B * H];
    for (int d = 0; d < 2; d++) {
        for (int b = 0; b < B; b++) {
            double h[H] = {0}, c[H] = {0};
            for (int s = 0; s < lens[b]; s++) {
                int t = d == 0 ? s : lens[b] - 1 - s;
                double g[4 * H];
                for (int j = 0; j < 4 * H; j++) {
                    g[j] = bias[d * 8 * H + j] + bias[d * 8 * H + 4 * H + j];
                    for (int k = 0; k < I; k++)
                        g[j] += w[(d * 4 * H + j) * I + k] * x[(t * B + b) * I + k];
                    for (int k = 0; k < H; k++)
                        g[j] += r[(d * 4 * H + j) * H + k] * h[k];
                }
                const float *pd = p + d * 3 * H;
                for (int j = 0; j < H; j++) {
                    double i = sigmoid(clipped(g[j] + pd[j] * c[j], clip));
                    double f = sigmoid(clipped(g[2 * H + j] + pd[2 * H + j] * c[j], clip));
                    c[j] = f * c[j] + i * tanh(clipped(g[3 * H + j], clip));
                    double o = sigmoid(clipped(g[H + j] + pd[H + j] * c[j], clip));
                    h[j] = o * tanh(c[j]);
                    y[((t * 2 + d) * B + b) * H + j] = (float)h[j];
                }
            }
            for (int j = 0; j < H; j++) {
                yh[(d * B + b) * H + j] = (float)h[j];
                yc[(d * B + b) * H + j] = (float)c[j];
            }
        }
    }
    oh_case *c = oh_new("LSTM", 22);
    oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){S, B, I}, x);
    oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){2, 4 * H, I}, w);
    oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){2, 4 * H, H}, r);
    oh_const(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){2, 8 * H}, bias);
    oh_const(c, VKML_DTYPE_INT32, 1, (int64_t[]){B}, lens);
    oh_skip_input(c);
    oh_skip_input(c);
    oh_const(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){2, 3 * H}, p);
    oh_attr_string(c, "direction", "bidirectional");
    oh_attr_int(c, "hidden_size", H);
    oh_attr_float(c, "clip", (float)clip);
    oh_outputs(c, 3);
    oh_expect(c, 0, y);
    oh_expect(c, 1, yh);
    oh_expect(c, 2, yc);
    oh_expect_gpu(c, RNN_GPU);
    oh_run(c, "LSTM bidirectional, sequence_lens, peepholes, clip: known values",
           OH_BOUND_TRANSCENDENTAL);
}

/* GRU, reverse, one step per row of lens {2, 1}, both linear_before_reset: known values. */
static void gru_known(bool linear_before_reset)
{
    float x[2 * B * I], w[3 * H * I], r[3 * H * H], bias[6 * H], h0[B * H];
    fill(x, 2 * B * I, 0.5, 1.0);
    fill(w, 3 * H * I, 1.5, 0.6);
    fill(r, 3 * H * H, 2.5, 0.6);
    fill(bias, 6 * H, 3.5, 0.3);
    fill(h0, B * H, 4.5, 0.5);
    const int32_t lens[B] = {2, 1};
    float y[2 * B * H] = {0}, yh[B * H];
    for (int b = 0; b < B; b++) {
        double h[H];
        for (int j = 0; j < H; j++)
            h[j] = h0[b * H + j];
        for (int s = 0; s < lens[b]; s++) {
            int t = lens[b] - 1 - s;
            double xw[3 * H], hr[3 * H], z[H], rr[H], rh[H], next[H];
            for (int j = 0; j < 3 * H; j++) {
                xw[j] = bias[j];
                hr[j] = bias[3 * H + j];
                for (int k = 0; k < I; k++)
                    xw[j] += w[j * I + k] * x[(t * B + b) * I + k];
                for (int k = 0; k < H; k++)
                    hr[j] += r[j * H + k] * h[k];
            }
            for (int j = 0; j < H; j++) {
                z[j] = sigmoid(xw[j] + hr[j]);
                rr[j] = sigmoid(xw[H + j] + hr[H + j]);
                rh[j] = rr[j] * h[j];
            }
            for (int j = 0; j < H; j++) {
                double lin = bias[5 * H + j];
                for (int k = 0; k < H; k++)
                    lin += r[(2 * H + j) * H + k] * rh[k];
                double hh =
                    tanh(xw[2 * H + j] + (linear_before_reset ? rr[j] * hr[2 * H + j] : lin));
                next[j] = (1 - z[j]) * hh + z[j] * h[j];
            }
            for (int j = 0; j < H; j++)
                y[(t * B + b) * H + j] = (float)(h[j] = next[j]);
        }
        for (int j = 0; j < H; j++)
            yh[b * H + j] = (float)h[j];
    }
    oh_case *c = oh_new("GRU", 14);
    oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){2, B, I}, x);
    oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, 3 * H, I}, w);
    oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, 3 * H, H}, r);
    oh_const(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){1, 6 * H}, bias);
    oh_const(c, VKML_DTYPE_INT32, 1, (int64_t[]){B}, lens);
    oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, B, H}, h0);
    oh_attr_string(c, "direction", "reverse");
    oh_attr_int(c, "hidden_size", H);
    oh_attr_int(c, "linear_before_reset", linear_before_reset);
    oh_outputs(c, 2);
    oh_expect(c, 0, y);
    oh_expect(c, 1, yh);
    oh_expect_gpu(c, RNN_GPU);
    oh_run(c,
           linear_before_reset ? "GRU reverse, linear_before_reset: known values"
                               : "GRU reverse, sequence_lens, initial_h: known values",
           OH_BOUND_TRANSCENDENTAL);
}

/* Random weights on odd shapes: every op x dtype x direction x layout runs on the CPU
 * with every output and the shapes it should have. */
static void rnn_random(const char *op, int gates, vkml_dtype t, const char *label,
                       const char *direction, int layout)
{
    const int64_t seq = 5, batch = 3, input = 7, hidden = 4;
    int64_t dirs = strcmp(direction, "bidirectional") == 0 ? 2 : 1;
    oh_case *c = oh_new(op, 22);
    oh_input(c, t, 3, layout ? (int64_t[]){batch, seq, input} : (int64_t[]){seq, batch, input}, -1,
             1);
    oh_const_random(c, t, 3, (int64_t[]){dirs, gates * hidden, input}, -0.5, 0.5);
    oh_const_random(c, t, 3, (int64_t[]){dirs, gates * hidden, hidden}, -0.5, 0.5);
    oh_const_random(c, t, 2, (int64_t[]){dirs, 2 * gates * hidden}, -0.5, 0.5);
    oh_const(c, VKML_DTYPE_INT32, 1, (int64_t[]){batch}, (int32_t[]){5, 1, 3});
    oh_input(c, t, 3, layout ? (int64_t[]){batch, dirs, hidden} : (int64_t[]){dirs, batch, hidden},
             -1, 1);
    oh_attr_string(c, "direction", direction);
    oh_attr_int(c, "hidden_size", hidden);
    oh_attr_int(c, "layout", layout);
    oh_outputs(c, 2);
    oh_expect_gpu(c, RNN_GPU);
    char name[160];
    snprintf(name, sizeof name, "%s %s %s layout %d", op, direction, label, layout);
    oh_run(c, name, t == VKML_DTYPE_FLOAT16 ? OH_BOUND_FP16 : OH_BOUND_TRANSCENDENTAL);
}

static void rnn_bad_input(void)
{
    oh_case *c = oh_new("RNN", 14);
    oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){2, 1, 3}, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, 4, 3}, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, 4, 4}, -1, 1);
    oh_attr_int(c, "hidden_size", 5);
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "must be float [1,5,3]");
    oh_run(c, "RNN with W of another hidden size", OH_BOUND_EXACT);

    c = oh_new("LSTM", 14);
    oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){2, 1, 3}, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, 8, 3}, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, 8, 2}, -1, 1);
    oh_attr_string(c, "direction", "sideways");
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "direction 'sideways'");
    oh_run(c, "LSTM with a bad direction", OH_BOUND_EXACT);

    c = oh_new("GRU", 14);
    oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){2, 1, 3}, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, 6, 3}, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, 6, 2}, -1, 1);
    oh_attr_int(c, "layout", 2);
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "layout 2");
    oh_run(c, "GRU with layout 2", OH_BOUND_EXACT);

    c = oh_new("RNN", 14);
    oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){2, 1, 3}, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, 2, 3}, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, 2, 2}, -1, 1);
    oh_skip_input(c);
    oh_input(c, VKML_DTYPE_INT32, 1, (int64_t[]){1}, 7, 7);
    oh_expect_error(c, VKML_ERROR_INVALID_ARGUMENT, "sequence_lens[0] = 7");
    oh_run(c, "RNN with sequence_lens past the sequence (at run time)", OH_BOUND_EXACT);
}

/* DeformConv: zero offsets and no mask are Conv (known values); random offsets and masks
 * on odd shapes with groups and offset groups; bad offsets. */
static void deformconv_tests(void)
{
    oh_case *c = oh_new("DeformConv", 19);
    oh_const(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 1, 2, 2}, (float[]){1, 2, 3, 4});
    oh_const(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 1, 1, 1}, (float[]){2});
    oh_const(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 2, 2, 2}, (float[]){0, 0, 0, 0, 0.5f, 0, 0, 0});
    oh_expect(c, 0, (float[]){3, 4, 6, 8});
    oh_expect_gpu(c, DEFORMCONV_GPU);
    oh_run(c, "DeformConv 1x1, half-pixel offset at one point: known values", OH_BOUND_EXACT);

    for (size_t t = 0; t < 3; t++) {
        c = oh_new("DeformConv", 22);
        oh_input(c, float_types[t], 4, (int64_t[]){2, 4, 5, 7}, -1, 1);
        oh_const_random(c, float_types[t], 4, (int64_t[]){6, 2, 3, 2}, -1, 1);
        /* out [2, 6, 3, 4] with strides (2, 2), pads 1: offset_group 2 */
        oh_input(c, float_types[t], 4, (int64_t[]){2, 2 * 2 * 6, 3, 4}, -2, 2);
        oh_const_random(c, float_types[t], 1, (int64_t[]){6}, -1, 1);
        oh_input(c, float_types[t], 4, (int64_t[]){2, 2 * 6, 3, 4}, 0, 1);
        oh_attr_int(c, "group", 2);
        oh_attr_int(c, "offset_group", 2);
        oh_attr_ints(c, "strides", 2, (int64_t[]){2, 2});
        oh_attr_ints(c, "pads", 4, (int64_t[]){1, 1, 1, 1});
        oh_expect_gpu(c, DEFORMCONV_GPU);
        char name[96];
        snprintf(name, sizeof name, "DeformConv groups, offset groups, mask %s", float_labels[t]);
        oh_run(c, name, float_types[t] == VKML_DTYPE_FLOAT16 ? OH_BOUND_FP16 : OH_BOUND_SUM);
    }

    c = oh_new("DeformConv", 19);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 2, 4, 4}, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 2, 3, 3}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 9, 2, 2}, -1, 1);
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "offset");
    oh_run(c, "DeformConv with offsets of the wrong shape", OH_BOUND_EXACT);

    c = oh_new("DeformConv", 19);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 3, 4, 4}, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 3, 1, 1}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 4, 4, 4}, -1, 1);
    oh_attr_int(c, "offset_group", 2);
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "does not divide");
    oh_run(c, "DeformConv with offset_group not dividing the channels", OH_BOUND_EXACT);
}

/* Dropout in training mode: ratio 0 is identity, another ratio is refused; TopK orders
 * 64-bit integers exactly (values past 2^53). */
static void leftovers(void)
{
    const float x[] = {1, -2, 3, 4, 5, -6};
    oh_case *c = oh_new("Dropout", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){2, 3}, -1, 1);
    oh_const(c, VKML_DTYPE_FLOAT, 0, NULL, (float[]){0});
    oh_const(c, VKML_DTYPE_BOOL, 0, NULL, (uint8_t[]){1});
    oh_expect_gpu(c, false);
    oh_run(c, "Dropout training with ratio 0", OH_BOUND_EXACT);

    c = oh_new("Dropout", 13);
    oh_const(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){2, 3}, x);
    oh_const(c, VKML_DTYPE_FLOAT, 0, NULL, (float[]){0.5f});
    oh_const(c, VKML_DTYPE_BOOL, 0, NULL, (uint8_t[]){1});
    oh_expect_error(c, VKML_ERROR_UNSUPPORTED, "ratio 0.5");
    oh_run(c, "Dropout training with ratio 0.5 (refused)", OH_BOUND_EXACT);

    const uint64_t big[] = {UINT64_C(9007199254740993), UINT64_C(9007199254740992), 7,
                            UINT64_C(18446744073709551615)};
    c = oh_new("TopK", 11);
    oh_const(c, VKML_DTYPE_UINT64, 1, (int64_t[]){4}, big);
    oh_const_i64(c, 1, (int64_t[]){3});
    oh_outputs(c, 2);
    oh_expect(c, 0,
              (uint64_t[]){UINT64_C(18446744073709551615), UINT64_C(9007199254740993),
                           UINT64_C(9007199254740992)});
    oh_expect(c, 1, (int64_t[]){3, 0, 1});
    oh_expect_gpu(c, false);
    oh_run(c, "TopK uint64 past 2^53: known values", OH_BOUND_EXACT);

    const int64_t signed_vals[] = {INT64_C(-9007199254740993), INT64_C(-9007199254740992), 0};
    c = oh_new("TopK", 11);
    oh_const(c, VKML_DTYPE_INT64, 1, (int64_t[]){3}, signed_vals);
    oh_const_i64(c, 1, (int64_t[]){2});
    oh_attr_int(c, "largest", 0);
    oh_outputs(c, 2);
    oh_expect(c, 0, (int64_t[]){INT64_C(-9007199254740993), INT64_C(-9007199254740992)});
    oh_expect(c, 1, (int64_t[]){0, 1});
    oh_expect_gpu(c, false);
    oh_run(c, "TopK smallest int64 past -2^53: known values", OH_BOUND_EXACT);
}

int main(void)
{
    lstm_known();
    gru_known(false);
    gru_known(true);
    static const struct {
        const char *op;
        int gates;
    } ops[] = {{"RNN", 1}, {"GRU", 3}, {"LSTM", 4}};
    static const char *const directions[] = {"forward", "reverse", "bidirectional"};
    for (size_t o = 0; o < 3; o++)
        for (size_t t = 0; t < 3; t++)
            for (size_t d = 0; d < 3; d++)
                rnn_random(ops[o].op, ops[o].gates, float_types[t], float_labels[t], directions[d],
                           (int)(d == 2 || t == 1));
    rnn_bad_input();
    deformconv_tests();
    leftovers();
    return oh_finish();
}
