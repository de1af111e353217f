/*
 * Pools (lib/ops/pool.c) on the op harness (suite 'ops'): MaxPool and AveragePool in 1-D
 * and 2-D with ceil_mode, dilations, pads counted or not, and the global pools (short
 * planes, and an EfficientNet-sized squeeze-excitation of 32 planes of 112x112), every
 * Vulkan device against the CPU kernel; a pool over 4 spatial dims is refused by the devices
 * with its reason. The pools in float16, double and small integers are in
 * tests/ops/test_ops_zoo_on_gpu.c and tests/ops/test_ops_spatial.c.
 */
#include "op_harness.h"

#include <stdio.h>
#include <string.h>

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
    test_refusal();
    return oh_finish();
}
