/*
 * The nodes the model zoo and the core tier need on the GPU (suite 'ops'): the global
 * pools in float16 and double, MaxPool int8/uint8, Pow with mixed types,
 * empty-set reductions, Cast to/from bfloat16,
 * antialiased Resize, TopK, BatchNormalization standalone (two passes on the GPU),
 * every Vulkan device against the CPU on odd shapes, and bad input.
 */
#include "op_harness.h"

#include <math.h>
#include <stdio.h>

static const vkml_dtype float_types[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16, VKML_DTYPE_DOUBLE};

static void test_global_pool(void)
{
    static const char *const ops[] = {"GlobalAveragePool", "GlobalMaxPool"};
    for (int k = 0; k < 2; k++)
        for (size_t t = 0; t < 3; t++) {
            char label[96];
            oh_case *c = oh_new(ops[k], 13);
            oh_input(c, float_types[t], 4, (int64_t[]){2, 5, 7, 11}, -2, 2);
            snprintf(label, sizeof(label), "%s %s", ops[k], oh_dtype_label(float_types[t]));
            oh_run(c, label, oh_bound(float_types[t], OH_BOUND_SUM));
        }
    oh_case *c = oh_new("GlobalAveragePool", 13);
    oh_input(c, VKML_DTYPE_FLOAT16, 3, (int64_t[]){1, 3, 13}, -1, 1);
    oh_run(c, "GlobalAveragePool 1-D f16", OH_BOUND_FP16);

    c = oh_new("GlobalMaxPool", 13);
    oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){1, 2, 3}, (float[]){1, -5, 2, -3, -1, -2});
    oh_expect(c, 0, (float[]){2, -1});
    oh_run(c, "GlobalMaxPool known values", OH_BOUND_EXACT);
}

/* MaxPool int8/uint8 (exact in the kernel's float arithmetic), with padding and Indices. */
static void test_maxpool_int(void)
{
    static const vkml_dtype types[] = {VKML_DTYPE_INT8, VKML_DTYPE_UINT8};
    for (size_t t = 0; t < 2; t++)
        for (int indices = 0; indices < 2; indices++) {
            char label[96];
            oh_case *c = oh_new("MaxPool", 12);
            bool s8 = types[t] == VKML_DTYPE_INT8;
            oh_input(c, types[t], 4, (int64_t[]){2, 3, 11, 13}, s8 ? -128 : 0, s8 ? 127 : 255);
            oh_attr_ints(c, "kernel_shape", 2, (int64_t[]){3, 2});
            oh_attr_ints(c, "strides", 2, (int64_t[]){2, 3});
            oh_attr_ints(c, "dilations", 2, (int64_t[]){1, 2});
            oh_attr_ints(c, "pads", 4, (int64_t[]){2, 1, 1, 1});
            if (indices)
                oh_outputs(c, 2);
            snprintf(label, sizeof(label), "MaxPool %s%s", s8 ? "int8" : "uint8",
                     indices ? " with Indices" : "");
            oh_run(c, label, OH_BOUND_EXACT);
        }
    oh_case *c = oh_new("MaxPool", 12);
    oh_const(c, VKML_DTYPE_INT8, 4, (int64_t[]){1, 1, 2, 2}, (int8_t[]){-7, -3, -128, 5});
    oh_attr_ints(c, "kernel_shape", 2, (int64_t[]){2, 1});
    oh_expect(c, 0, (int8_t[]){-7, 5});
    oh_run(c, "MaxPool int8 known values", OH_BOUND_EXACT);
}

static bool is_float(vkml_dtype t)
{
    return t == VKML_DTYPE_FLOAT || t == VKML_DTYPE_FLOAT16 || t == VKML_DTYPE_DOUBLE;
}

/* Pow with an exponent of another type: every base x exponent pair the GPU takes. */
static void test_pow_mixed(void)
{
    static const vkml_dtype bases[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16, VKML_DTYPE_INT32,
                                       VKML_DTYPE_INT64};
    static const vkml_dtype exps[] = {VKML_DTYPE_INT32,  VKML_DTYPE_INT64, VKML_DTYPE_UINT32,
                                      VKML_DTYPE_UINT64, VKML_DTYPE_FLOAT, VKML_DTYPE_DOUBLE};
    for (size_t i = 0; i < 4; i++)
        for (size_t j = 0; j < 6; j++) {
            vkml_dtype b = bases[i], e = exps[j];
            if (b == e || (!is_float(b) && !is_float(e)))
                continue;
            char label[96];
            oh_case *c = oh_new("Pow", 15);
            oh_input(c, b, 3, (int64_t[]){5, 7, 11}, is_float(b) ? 0.1 : -4, is_float(b) ? 2 : 4);
            oh_input(c, e, 2, (int64_t[]){7, 11},
                     e == VKML_DTYPE_UINT32 || e == VKML_DTYPE_UINT64 ? 0 : -3, 5);
            snprintf(label, sizeof(label), "Pow %s ^ %s", vkml_dtype_name(b), vkml_dtype_name(e));
            oh_run(c, label, oh_bound(b, OH_BOUND_TRANSCENDENTAL));
        }
    /* An integer base with NaN and huge float exponents: truncated and saturated. */
    oh_case *c = oh_new("Pow", 15);
    oh_const(c, VKML_DTYPE_INT32, 1, (int64_t[]){5}, (int32_t[]){3, 1, 5, 2, 2});
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){5},
             (float[]){2.9f, 1e30f, 3.99f, -1e30f, (float)NAN});
    oh_expect(c, 0, (int32_t[]){9, 1, 125, 0, 1});
    oh_run(c, "Pow int32 ^ float, NaN and huge exponents", OH_BOUND_EXACT);
}

/* Reductions over an empty set give the op's identity; an empty output records nothing. */
static void test_reduce_empty(void)
{
    static const char *const ops[] = {"ReduceSum",  "ReduceMax",    "ReduceMin",
                                      "ReduceProd", "ReduceLogSum", "ReduceLogSumExp",
                                      "ReduceMean", "ReduceL2",     "ReduceSumSquare"};
    static const vkml_dtype types[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_INT32, VKML_DTYPE_INT64};
    for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
        for (size_t t = 0; t < 3; t++) {
            bool int_ok = k < 4; /* the GPU's integer reductions: Sum, Max, Min, Prod */
            if (t > 0 && !int_ok)
                continue;
            char label[96];
            oh_case *c = oh_new(ops[k], 18);
            oh_input(c, types[t], 3, (int64_t[]){3, 0, 5}, -1, 1);
            oh_const_i64(c, 1, (int64_t[]){1});
            snprintf(label, sizeof(label), "%s empty set %s", ops[k], vkml_dtype_name(types[t]));
            oh_run(c, label, OH_BOUND_EXACT);
        }
    oh_case *c = oh_new("ReduceSum", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){2, 0, 4}, -1, 1);
    oh_const_i64(c, 1, (int64_t[]){2});
    oh_run(c, "ReduceSum of an empty tensor over a non-empty axis", OH_BOUND_EXACT);

    c = oh_new("ArgMax", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){3, 0}, -1, 1);
    oh_attr_int(c, "axis", 1);
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "has size 0");
    oh_run(c, "ArgMax over an empty axis", OH_BOUND_EXACT);
}

/* Cast to and from bfloat16 (16-bit storage, float arithmetic on the GPU). */
static void test_cast_bfloat16(void)
{
    static const vkml_dtype others[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16, VKML_DTYPE_DOUBLE,
                                        VKML_DTYPE_INT32, VKML_DTYPE_INT64,   VKML_DTYPE_UINT8,
                                        VKML_DTYPE_BOOL,  VKML_DTYPE_BFLOAT16};
    for (size_t k = 0; k < sizeof(others) / sizeof(others[0]); k++)
        for (int to_bf16 = 0; to_bf16 < 2; to_bf16++) {
            vkml_dtype from = to_bf16 ? others[k] : VKML_DTYPE_BFLOAT16;
            vkml_dtype to = to_bf16 ? VKML_DTYPE_BFLOAT16 : others[k];
            if (from == to && !to_bf16)
                continue;
            char label[96];
            oh_case *c = oh_new("Cast", 21);
            oh_input(c, from, 3, (int64_t[]){5, 7, 11}, -300, 300);
            oh_attr_int(c, "to", to);
            snprintf(label, sizeof(label), "Cast %s to %s", vkml_dtype_name(from),
                     vkml_dtype_name(to));
            oh_run(c, label, OH_BOUND_EXACT);
        }
    oh_case *c = oh_new("Cast", 21);
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){4}, (float[]){1.0f, 1.00390625f, 3.0e38f, -0.0f});
    oh_attr_int(c, "to", VKML_DTYPE_BFLOAT16);
    oh_expect(c, 0, (uint16_t[]){0x3f80, 0x3f80, 0x7f62, 0x8000});
    oh_run(c, "Cast float to bfloat16 known values (ties to even)", OH_BOUND_EXACT);
}

/* Antialiased downsampling: up to 16 taps per axis on the GPU, wider filters on the CPU. */
static void run_resize_antialias(const char *mode, float scale, bool gpu)
{
    char label[96];
    oh_case *c = oh_new("Resize", 18);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 2, 41, 9}, -2, 2);
    oh_skip_input(c);
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){4}, (float[]){1, 1, scale, 0.5f});
    oh_attr_string(c, "mode", mode);
    oh_attr_int(c, "antialias", 1);
    oh_expect_gpu(c, gpu);
    snprintf(label, sizeof(label), "Resize %s antialias scale %g", mode, scale);
    oh_run(c, label, OH_BOUND_SUM);
}

static void test_resize_antialias(void)
{
    run_resize_antialias("linear", 0.3f, true);  /* 8 taps */
    run_resize_antialias("cubic", 0.25f, true);  /* 16 taps */
    run_resize_antialias("linear", 0.1f, false); /* 20 taps: the CPU */
}

/* TopK on the GPU: every element ranks itself in its line (ties by lower index), short
 * lines from global memory, long ones through shared memory. */
static void test_topk(void)
{
    static const vkml_dtype types[] = {VKML_DTYPE_FLOAT,  VKML_DTYPE_FLOAT16, VKML_DTYPE_DOUBLE,
                                       VKML_DTYPE_INT8,   VKML_DTYPE_UINT8,   VKML_DTYPE_INT32,
                                       VKML_DTYPE_UINT32, VKML_DTYPE_INT64,   VKML_DTYPE_UINT64};
    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++)
        for (int largest = 0; largest < 2; largest++) {
            char label[96];
            oh_case *c = oh_new("TopK", 11);
            /* integers from a small range: many ties */
            oh_input(c, types[t], 3, (int64_t[]){3, 13, 7}, is_float(types[t]) ? -2 : 0,
                     is_float(types[t]) ? 2 : 9);
            oh_const_i64(c, 1, (int64_t[]){5});
            oh_attr_int(c, "axis", 1);
            oh_attr_int(c, "largest", largest);
            oh_outputs(c, 2);
            snprintf(label, sizeof(label), "TopK %s %s", largest ? "largest" : "smallest",
                     vkml_dtype_name(types[t]));
            oh_run(c, label, OH_BOUND_EXACT);
        }
    /* Lines of 128 and more pass through shared memory (the tiled form): a line not a
     * multiple of its 128-wide tiles, ties, both orders, along the last axis and a middle
     * one (strided loads); k past the first tile. */
    static const struct {
        vkml_dtype dtype;
        int64_t dims[3];
        int axis, k, largest;
        double lo, hi;
    } tiled[] = {
        {VKML_DTYPE_FLOAT, {1, 1, 3072}, 2, 200, 1, -4, 4},
        {VKML_DTYPE_FLOAT, {2, 3, 1000}, 2, 300, 0, -4, 4},
        {VKML_DTYPE_FLOAT16, {2, 517, 3}, 1, 129, 1, -2, 2},
        {VKML_DTYPE_INT32, {1, 4, 777}, 2, 50, 1, 0, 40},
        {VKML_DTYPE_INT64, {3, 130, 2}, 1, 130, 0, 0, 9},
    };
    for (size_t t = 0; t < sizeof(tiled) / sizeof(tiled[0]); t++) {
        char label[96];
        oh_case *c = oh_new("TopK", 11);
        oh_input(c, tiled[t].dtype, 3, tiled[t].dims, tiled[t].lo, tiled[t].hi);
        oh_const_i64(c, 1, (int64_t[]){tiled[t].k});
        oh_attr_int(c, "axis", tiled[t].axis);
        oh_attr_int(c, "largest", tiled[t].largest);
        oh_outputs(c, 2);
        snprintf(label, sizeof(label), "TopK %d of %lld (tiled) %s", tiled[t].k,
                 (long long)tiled[t].dims[tiled[t].axis], vkml_dtype_name(tiled[t].dtype));
        oh_run(c, label, OH_BOUND_EXACT);
    }
    oh_case *c = oh_new("TopK", 11);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){2, 20000}, -1, 1);
    oh_const_i64(c, 1, (int64_t[]){3});
    oh_outputs(c, 2);
    oh_expect_gpu(c, false); /* a line over TOPK_GPU_MAX_LEN: the CPU */
    oh_run(c, "TopK along 20000", OH_BOUND_EXACT);

    c = oh_new("TopK", 11);
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){5}, (float[]){1, (float)NAN, 3, 3, -1});
    oh_const_i64(c, 1, (int64_t[]){3});
    oh_outputs(c, 2);
    oh_expect(c, 1, (int64_t[]){1, 2, 3});
    oh_run(c, "TopK NaN above every number, ties by index", OH_BOUND_EXACT);

    c = oh_new("TopK", 11);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){4}, -1, 1);
    oh_const_i64(c, 1, (int64_t[]){5});
    oh_outputs(c, 2);
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "out of range");
    oh_run(c, "TopK with K over the axis", OH_BOUND_EXACT);
}

static void run_batchnorm(const char *label, vkml_dtype t, int rank, const int64_t *dims, int opset)
{
    oh_case *c = oh_new("BatchNormalization", opset);
    oh_input(c, t, rank, dims, -3, 3);
    int64_t ch[] = {rank > 1 ? dims[1] : 1};
    oh_const_random(c, t, 1, ch, 0.5, 2);    /* scale */
    oh_const_random(c, t, 1, ch, -1, 1);     /* B */
    oh_const_random(c, t, 1, ch, -0.5, 0.5); /* mean */
    oh_const_random(c, t, 1, ch, 0.1, 3);    /* var */
    oh_attr_float(c, "epsilon", 1e-3f);
    oh_run(c, label, oh_bound(t, OH_BOUND_TRANSCENDENTAL));
}

static void test_batchnorm(void)
{
    for (size_t t = 0; t < 3; t++) {
        char label[96];
        snprintf(label, sizeof(label), "BatchNormalization 4-D %s", oh_dtype_label(float_types[t]));
        run_batchnorm(label, float_types[t], 4, (int64_t[]){5, 7, 11, 13}, 15);
        snprintf(label, sizeof(label), "BatchNormalization 2-D %s", oh_dtype_label(float_types[t]));
        run_batchnorm(label, float_types[t], 2, (int64_t[]){3, 17}, 9);
        snprintf(label, sizeof(label), "BatchNormalization 3-D opset 7 %s",
                 oh_dtype_label(float_types[t]));
        run_batchnorm(label, float_types[t], 3, (int64_t[]){2, 3, 1}, 7);
    }
    /* Training mode (opset 14+): batch statistics, running ones blended by momentum. */
    for (size_t t = 0; t < 2; t++) {
        oh_case *c = oh_new("BatchNormalization", 15);
        oh_input(c, float_types[t], 4, (int64_t[]){3, 5, 9, 7}, -3, 3);
        oh_const_random(c, float_types[t], 1, (int64_t[]){5}, 0.5, 2);
        oh_const_random(c, float_types[t], 1, (int64_t[]){5}, -1, 1);
        oh_const_random(c, float_types[t], 1, (int64_t[]){5}, -0.5, 0.5);
        oh_const_random(c, float_types[t], 1, (int64_t[]){5}, 0.1, 3);
        oh_attr_int(c, "training_mode", 1);
        oh_attr_float(c, "momentum", 0.8f);
        oh_outputs(c, 3);
        char label[96];
        snprintf(label, sizeof(label), "BatchNormalization training %s",
                 oh_dtype_label(float_types[t]));
        oh_run(c, label, oh_bound(float_types[t], OH_BOUND_TRANSCENDENTAL));
    }
    oh_case *c = oh_new("BatchNormalization", 15);
    oh_const(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){2, 2}, (float[]){1, 2, 3, 4});
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){2}, (float[]){2, 1});
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){2}, (float[]){0, 10});
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){2}, (float[]){1, 0});
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){2}, (float[]){4, 1});
    oh_attr_float(c, "epsilon", 0);
    oh_attr_int(c, "training_mode", 1);
    oh_attr_float(c, "momentum", 0.5f);
    oh_outputs(c, 3);
    oh_expect(c, 0, (float[]){-2, 9, 2, 11});
    oh_expect(c, 1, (float[]){1.5f, 1.5f});
    oh_expect(c, 2, (float[]){2.5f, 1});
    oh_run(c, "BatchNormalization training known values", OH_BOUND_EXACT);

    /* Training with Y only: the batch statistics need the running outputs on the GPU. */
    c = oh_new("BatchNormalization", 15);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){2, 3, 4, 5}, -3, 3);
    for (int i = 0; i < 4; i++)
        oh_const_random(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, 0.5, 2);
    oh_attr_int(c, "training_mode", 1);
    oh_expect_gpu(c, false);
    oh_run(c, "BatchNormalization training, Y only", OH_BOUND_TRANSCENDENTAL);

    c = oh_new("BatchNormalization", 15);
    oh_const(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){2, 2}, (float[]){1, 2, 3, 4});
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){2}, (float[]){2, 1});
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){2}, (float[]){0, 10});
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){2}, (float[]){1, 0});
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){2}, (float[]){4, 1});
    oh_attr_float(c, "epsilon", 0);
    oh_expect(c, 0, (float[]){0, 12, 2, 14});
    oh_run(c, "BatchNormalization known values", OH_BOUND_EXACT);

    c = oh_new("BatchNormalization", 15);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 3, 2, 2}, -1, 1);
    for (int i = 0; i < 4; i++)
        oh_const_random(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){4}, 0.5, 1);
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "needs 3 elements");
    oh_run(c, "BatchNormalization statistics of the wrong size", OH_BOUND_EXACT);
}

int main(void)
{
    test_global_pool();
    test_maxpool_int();
    test_pow_mixed();
    test_reduce_empty();
    test_cast_bfloat16();
    test_resize_antialias();
    test_topk();
    test_batchnorm();
    return oh_finish();
}
