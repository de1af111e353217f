/*
 * Pools (lib/ops/pool.c) on the op harness (suite 'ops'): MaxPool and AveragePool in 1-D
 * and 2-D with ceil_mode, dilations, pads counted or not, and the global pools (short
 * planes, and an EfficientNet-sized squeeze-excitation of 32 planes of 112x112), every
 * Vulkan device against the CPU kernel; a pool over 4 spatial dims is refused by the devices
 * with its reason; MaxPool (with Indices) and AveragePool in float16, the unrolled windows
 * and the 3-D pools. The global pools in float16 and double and MaxPool of small integers
 * are in tests/ops/test_ops_zoo_on_gpu.c.
 */
#include "op_harness.h"

#include <stdio.h>
#include <string.h>

/* Whether the Vulkan devices give MaxPool's Indices output. */
#define MAXPOOL_INDICES_GPU true

static const vkml_dtype float_types[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16};

typedef struct pool_case {
    const char *label;
    const char *op;
    int opset, rank;
    int64_t x[4], kernel[2], strides[2], pads[4], dilations[2];
    int64_t ceil_mode, count_include_pad;
} pool_case;

/* One case a row. */
/* clang-format off */
static const pool_case cases[] = {
    {"MaxPool 2-D ceil_mode dilations", "MaxPool", 12, 4, {2, 3, 11, 13}, {3, 2}, {2, 2}, {1, 0, 1, 1}, {1, 2}, 1, 0},
    {"MaxPool 2-D 2x2 mnist-like", "MaxPool", 12, 4, {1, 8, 28, 28}, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 0, 0},
    {"MaxPool 1-D", "MaxPool", 12, 3, {3, 5, 19}, {4}, {3}, {2, 1}, {1}, 0, 0},
    {"AveragePool ceil_mode count_include_pad", "AveragePool", 11, 4, {2, 3, 11, 13}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 1, 1},
    {"AveragePool ceil_mode exclude pad", "AveragePool", 11, 4, {2, 3, 10, 13}, {3, 2}, {3, 2}, {1, 0, 2, 1}, {1, 1}, 1, 0},
};
/* clang-format on */

static void run_pool(const pool_case *pc)
{
    int s = pc->rank - 2;
    bool max = strcmp(pc->op, "MaxPool") == 0;
    oh_case *c = oh_new(pc->op, pc->opset);
    oh_input(c, VKML_DTYPE_FLOAT, pc->rank, pc->x, -1, 1);
    oh_attr_ints(c, "kernel_shape", s, pc->kernel);
    oh_attr_ints(c, "strides", s, pc->strides);
    oh_attr_ints(c, "pads", 2 * s, pc->pads);
    oh_attr_int(c, "ceil_mode", pc->ceil_mode);
    if (max)
        oh_attr_ints(c, "dilations", s, pc->dilations);
    else
        oh_attr_int(c, "count_include_pad", pc->count_include_pad);
    oh_run(c, pc->label, max ? OH_BOUND_EXACT : OH_BOUND_SUM);
}

/* The global pools run as ReduceMean / ReduceMax over the planes. */
static void test_global(void)
{
    static const char *const ops[] = {"GlobalAveragePool", "GlobalMaxPool"};
    static const int64_t dims[][4] = {{5, 7, 11, 13}, {1, 32, 112, 112}};
    for (size_t d = 0; d < sizeof(dims) / sizeof(dims[0]); d++)
        for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
            char label[64];
            snprintf(label, sizeof(label), "%s [%lld,%lld,%lld,%lld]", ops[i],
                     (long long)dims[d][0], (long long)dims[d][1], (long long)dims[d][2],
                     (long long)dims[d][3]);
            oh_case *c = oh_new(ops[i], 11);
            oh_input(c, VKML_DTYPE_FLOAT, 4, dims[d], -1, 1);
            oh_run(c, label, OH_BOUND_SUM);
        }
}

/* MaxPool (with Indices) and AveragePool in float32 and float16, the unrolled windows,
 * and the 3-D pools. */
static void test_pool_dtypes(void)
{
    for (size_t t = 0; t < 2; t++) {
        char label[96];
        oh_case *c = oh_new("MaxPool", 12);
        oh_input(c, float_types[t], 4, (int64_t[]){2, 3, 11, 13}, -1, 1);
        oh_attr_ints(c, "kernel_shape", 2, (int64_t[]){3, 2});
        oh_attr_ints(c, "strides", 2, (int64_t[]){2, 1});
        oh_attr_ints(c, "pads", 4, (int64_t[]){1, 0, 1, 1});
        snprintf(label, sizeof(label), "MaxPool 3x2 %s", oh_dtype_label(float_types[t]));
        oh_run(c, label, OH_BOUND_EXACT);

        c = oh_new("AveragePool", 19);
        oh_input(c, float_types[t], 4, (int64_t[]){2, 3, 11, 13}, -1, 1);
        oh_attr_ints(c, "kernel_shape", 2, (int64_t[]){3, 3});
        oh_attr_ints(c, "pads", 4, (int64_t[]){1, 1, 1, 1});
        oh_attr_int(c, "count_include_pad", 1);
        snprintf(label, sizeof(label), "AveragePool 3x3 pads %s", oh_dtype_label(float_types[t]));
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
                     (long long)unrolled[u].kernel[sp - 1], oh_dtype_label(float_types[t]));
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
            snprintf(label, sizeof(label), "%s 3-D %s", ops3d[k], oh_dtype_label(float_types[t]));
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

/* The Vulkan kernels take 1 to 3 spatial dims. */
static void test_refusal(void)
{
    oh_case *c = oh_new("MaxPool", 12);
    oh_input(c, VKML_DTYPE_FLOAT, 6, (int64_t[]){1, 2, 3, 4, 5, 6}, -1, 1);
    oh_attr_ints(c, "kernel_shape", 4, (int64_t[]){2, 2, 2, 2});
    oh_expect_refusal(c, "spatial dims");
    oh_run(c, "MaxPool over 4 spatial dims", OH_BOUND_EXACT);
}

int main(void)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        run_pool(&cases[i]);
    test_global();
    test_pool_dtypes();
    test_refusal();
    return oh_finish();
}
