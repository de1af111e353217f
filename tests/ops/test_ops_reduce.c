/*
 * Reductions (lib/ops/reduce.c) on the op harness: every op x dtype x odd shapes (kept
 * and reduced axes interleaved, long lines that take a workgroup each), ArgMin/ArgMax,
 * CumSum/CumProd, CPU known values, the Vulkan devices against the CPU, and bad input.
 * The normalisations are in test_ops_norm.c.
 */
#include "op_harness.h"

#include <stdio.h>
#include <string.h>

static const vkml_dtype floats[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16};
static const vkml_dtype all_types[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16, VKML_DTYPE_INT32,
                                       VKML_DTYPE_INT64};

/* One Reduce* node at opset 18 (ReduceSum 13): axes as a constant input. */
static void reduce_case(const char *op, vkml_dtype t, int rank, const int64_t *dims, int n_axes,
                        const int64_t *axes, int keepdims, double lo, double hi, bool gpu)
{
    char label[160];
    snprintf(label, sizeof(label), "%s %s rank %d, %d axes, keepdims %d", op, vkml_dtype_name(t),
             rank, n_axes, keepdims);
    oh_case *c = oh_new(op, strcmp(op, "ReduceSum") == 0 ? 13 : 18);
    oh_input(c, t, rank, dims, lo, hi);
    if (n_axes)
        oh_const_i64(c, n_axes, axes);
    oh_attr_int(c, "keepdims", keepdims);
    oh_expect_gpu(c, gpu);
    oh_run(c, label, oh_bound(t, OH_BOUND_SUM));
}

static void test_reductions(void)
{
    static const struct {
        const char *op;
        bool ints;
        double lo, hi;
    } ops[] = {
        {"ReduceSum", true, -3, 3},        {"ReduceMean", false, -3, 3},
        {"ReduceMax", true, -100, 100},    {"ReduceMin", true, -100, 100},
        {"ReduceProd", true, 0.9, 1.1},    {"ReduceL1", false, -3, 3},
        {"ReduceL2", false, -3, 3},        {"ReduceLogSum", false, 0.1, 3},
        {"ReduceLogSumExp", false, -5, 5}, {"ReduceSumSquare", false, -3, 3},
    };
    const int64_t dims[] = {5, 7, 11, 13};
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        for (size_t k = 0; k < sizeof(all_types) / sizeof(all_types[0]); k++) {
            vkml_dtype t = all_types[k];
            bool is_int = t == VKML_DTYPE_INT32 || t == VKML_DTYPE_INT64;
            if (is_int && !ops[i].ints)
                continue;
            bool prod = strcmp(ops[i].op, "ReduceProd") == 0;
            double lo = is_int && prod ? -2 : ops[i].lo, hi = is_int && prod ? 2 : ops[i].hi;
            /* Interleaved kept/reduced axes (a strided walk), and all axes. */
            reduce_case(ops[i].op, t, 4, dims, 2, (int64_t[]){1, 3}, 1, lo, hi, true);
            reduce_case(ops[i].op, t, 4, dims, 2, (int64_t[]){-4, 2}, 0, lo, hi, true);
            /* All axes: one output, so a signed sum that cancels to near 0 would make the
             * normalised error of a reordered sum unbounded (one seed in many on lavapipe);
             * Sum and Mean of floats take positive inputs there. */
            bool cancels = !is_int && (strcmp(ops[i].op, "ReduceSum") == 0 ||
                                       strcmp(ops[i].op, "ReduceMean") == 0);
            if (!prod)
                reduce_case(ops[i].op, t, 4, dims, 0, NULL, 0, cancels ? 0.5 : lo, hi, true);
        }
    }
    /* Long lines: a workgroup per line (few lines), exact integer sums. */
    reduce_case("ReduceSum", VKML_DTYPE_FLOAT, 2, (int64_t[]){3, 5000}, 1, (int64_t[]){1}, 1, -1, 1,
                true);
    reduce_case("ReduceMax", VKML_DTYPE_INT32, 3, (int64_t[]){3, 3001, 2}, 1, (int64_t[]){1}, 0,
                -1000000, 1000000, true);
    reduce_case("ReduceLogSumExp", VKML_DTYPE_FLOAT, 2, (int64_t[]){2, 777}, 1, (int64_t[]){1}, 0,
                -50, 50, true);
    /* The last axes of a dense tensor (a contiguous line: no per-element index arithmetic),
     * as EfficientNet's squeeze-excitation means over H, W with keepdims: lines of 113x111
     * (past the four-way unrolled loop, a ragged tail), 7x7 (shorter than one stride of
     * lanes), and 1x1 planes. */
    static const int64_t planes[][4] = {{1, 3, 113, 111}, {2, 37, 7, 7}, {1, 5, 33, 1}};
    for (size_t i = 0; i < sizeof(planes) / sizeof(planes[0]); i++)
        for (size_t k = 0; k < sizeof(floats) / sizeof(floats[0]); k++) {
            reduce_case("ReduceMean", floats[k], 4, planes[i], 2, (int64_t[]){2, 3}, 1, 0.5, 3,
                        true);
            reduce_case("ReduceMax", floats[k], 4, planes[i], 2, (int64_t[]){-2, -1}, 0, -100, 100,
                        true);
        }
}

static void test_reduce_known(void)
{
    /* ReduceSum opset 11 (axes attribute), [2,3] over axis 1. */
    oh_case *c = oh_new("ReduceSum", 11);
    const float x[] = {1, 2, 3, 4, 5, 6}, y[] = {6, 15};
    oh_const(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){2, 3}, x);
    oh_attr_ints(c, "axes", 1, (int64_t[]){1});
    oh_attr_int(c, "keepdims", 0);
    oh_expect(c, 0, y);
    oh_run(c, "ReduceSum opset 11 known values", OH_BOUND_EXACT);

    /* Empty set: ReduceMax over a 0-sized axis gives -inf; the CPU runs it. */
    c = oh_new("ReduceMax", 18);
    oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){2, 0, 4}, -1, 1);
    oh_const_i64(c, 1, (int64_t[]){1});
    const float ninf[8] = {-1.0f / 0.0f, -1.0f / 0.0f, -1.0f / 0.0f, -1.0f / 0.0f,
                           -1.0f / 0.0f, -1.0f / 0.0f, -1.0f / 0.0f, -1.0f / 0.0f};
    oh_expect(c, 0, ninf);
    oh_expect_gpu(c, false);
    oh_run(c, "ReduceMax empty set", OH_BOUND_EXACT);

    /* noop_with_empty_axes: ReduceSumSquare without axes squares each element. */
    c = oh_new("ReduceSumSquare", 18);
    const float v[] = {1, -2, 3}, sq[] = {1, 4, 9};
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, v);
    oh_attr_int(c, "noop_with_empty_axes", 1);
    oh_expect(c, 0, sq);
    oh_run(c, "ReduceSumSquare noop_with_empty_axes", OH_BOUND_EXACT);

    /* ArgMax ties: first index, or the last with select_last_index. */
    const float ties[] = {3, 1, 3, 2, 2, 0};
    for (int last = 0; last <= 1; last++) {
        c = oh_new("ArgMax", 13);
        oh_const(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){2, 3}, ties);
        oh_attr_int(c, "axis", 1);
        oh_attr_int(c, "select_last_index", last);
        const int64_t want[2][2] = {{0, 0}, {2, 1}};
        oh_expect(c, 0, want[last]);
        oh_run(c, last ? "ArgMax ties, select_last_index" : "ArgMax ties", OH_BOUND_EXACT);
    }
}

static void test_arg(void)
{
    const int64_t dims[] = {5, 7, 11, 13};
    for (size_t k = 0; k < sizeof(all_types) / sizeof(all_types[0]); k++) {
        for (int axis = -1; axis < 4; axis += 2) {
            for (int op = 0; op < 2; op++) {
                char label[96];
                snprintf(label, sizeof(label), "%s %s axis %d", op ? "ArgMin" : "ArgMax",
                         vkml_dtype_name(all_types[k]), axis);
                oh_case *c = oh_new(op ? "ArgMin" : "ArgMax", 13);
                oh_input(c, all_types[k], 4, dims, -1000, 1000);
                oh_attr_int(c, "axis", axis);
                oh_attr_int(c, "keepdims", axis & 1);
                oh_run(c, label, OH_BOUND_EXACT);
            }
        }
    }
    oh_case *c = oh_new("ArgMin", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){2, 4000}, -1000, 1000);
    oh_attr_int(c, "axis", 1);
    oh_run(c, "ArgMin long lines", OH_BOUND_EXACT);
}

/* Ops the CPU runs alone for now (no Vulkan kernel yet). */
static void test_cpu_only(void)
{
    const int64_t dims[] = {5, 7, 11, 13};
    const vkml_dtype cum_types[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_DOUBLE, VKML_DTYPE_INT32,
                                    VKML_DTYPE_INT64};
    for (size_t k = 0; k < 4; k++) {
        for (int flags = 0; flags < 4; flags++) {
            oh_case *c = oh_new("CumSum", 14);
            oh_input(c, cum_types[k], 4, dims, -10, 10);
            oh_const_i64(c, 1, (int64_t[]){flags - 2});
            oh_attr_int(c, "exclusive", flags & 1);
            oh_attr_int(c, "reverse", flags >> 1);
            oh_expect_gpu(c, false);
            oh_run(c, "CumSum", OH_BOUND_SUM);
        }
    }
    oh_case *c = oh_new("CumSum", 14);
    const float x[] = {1, 2, 3, 4}, ex_rev[] = {9, 7, 4, 0};
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){4}, x);
    oh_const_i64(c, 1, (int64_t[]){0});
    oh_attr_int(c, "exclusive", 1);
    oh_attr_int(c, "reverse", 1);
    oh_expect(c, 0, ex_rev);
    oh_expect_gpu(c, false);
    oh_run(c, "CumSum exclusive reverse known values", OH_BOUND_EXACT);

    for (int largest = 0; largest <= 1; largest++) {
        c = oh_new("TopK", 11);
        const float v[] = {1, 3, 3, 2, 3, 0}, top[] = {3, 3, 3}, low[] = {0, 1, 2};
        const int64_t itop[] = {1, 2, 4}, ilow[] = {5, 0, 3};
        oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){6}, v);
        oh_const_i64(c, 1, (int64_t[]){3});
        oh_attr_int(c, "largest", largest);
        oh_outputs(c, 2);
        oh_expect(c, 0, largest ? top : low);
        oh_expect(c, 1, largest ? itop : ilow);
        oh_expect_gpu(c, false);
        oh_run(c, "TopK ties by lower index", OH_BOUND_EXACT);
    }
    c = oh_new("BatchNormalization", 15);
    oh_input(c, VKML_DTYPE_FLOAT, 4, dims, -3, 3);
    for (int i = 0; i < 4; i++)
        oh_const_random(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){7}, i == 3 ? 0.5 : -1, 2);
    oh_expect_gpu(c, false);
    oh_run(c, "BatchNormalization f32", OH_BOUND_EXACT);
    c = oh_new("LRN", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 4, dims, -3, 3);
    oh_attr_int(c, "size", 3);
    oh_expect_gpu(c, false);
    oh_run(c, "LRN f32", OH_BOUND_TRANSCENDENTAL);
}

static void expect_error(oh_case *c, vkml_status st, const char *text, const char *label)
{
    oh_expect_error(c, st, text);
    oh_run(c, label, OH_BOUND_EXACT);
}

static void test_errors(void)
{
    const int64_t dims[] = {2, 3};
    oh_case *c = oh_new("ReduceMean", 18);
    oh_input(c, VKML_DTYPE_FLOAT, 2, dims, -1, 1);
    oh_const_i64(c, 1, (int64_t[]){2});
    expect_error(c, VKML_ERROR_INVALID_MODEL, "out of range", "ReduceMean axis out of range");

    c = oh_new("ReduceSum", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 2, dims, -1, 1);
    oh_const_i64(c, 2, (int64_t[]){1, -1});
    expect_error(c, VKML_ERROR_INVALID_MODEL, "twice", "ReduceSum axis listed twice");

    c = oh_new("ArgMax", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 2, dims, -1, 1);
    oh_attr_int(c, "axis", -3);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "out of range", "ArgMax axis out of range");

    c = oh_new("TopK", 11);
    oh_input(c, VKML_DTYPE_FLOAT, 2, dims, -1, 1);
    oh_const_i64(c, 1, (int64_t[]){4});
    oh_outputs(c, 2);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "K 4 is out of range", "TopK K over the axis");

    c = oh_new("GroupNormalization", 21);
    oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){2, 6, 5}, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){6}, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){6}, -1, 1);
    oh_attr_int(c, "num_groups", 4);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "do not split", "GroupNormalization groups");

    c = oh_new("LayerNormalization", 17);
    oh_input(c, VKML_DTYPE_FLOAT, 2, dims, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){2}, -1, 1);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "needs 3", "LayerNormalization scale size");

    c = oh_new("LpNormalization", 22);
    oh_input(c, VKML_DTYPE_FLOAT, 2, dims, -1, 1);
    oh_attr_int(c, "p", 3);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "not 1 or 2", "LpNormalization p 3");

    c = oh_new("BatchNormalization", 15);
    oh_input(c, VKML_DTYPE_FLOAT, 2, dims, -1, 1);
    for (int i = 0; i < 4; i++)
        oh_const_random(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, 0.5, 1);
    oh_attr_int(c, "training_mode", 2);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "training_mode 2", "BatchNormalization training 2");

    c = oh_new("BatchNormalization", 12); /* opset 9-13 training outputs: refused */
    oh_input(c, VKML_DTYPE_FLOAT, 2, dims, -1, 1);
    for (int i = 0; i < 4; i++)
        oh_const_random(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, 0.5, 1);
    oh_outputs(c, 3);
    expect_error(c, VKML_ERROR_UNSUPPORTED, "training-mode output", "BatchNormalization 12 stats");

    c = oh_new("LRN", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 2, dims, -1, 1);
    oh_attr_int(c, "size", 0);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "size 0", "LRN size 0");
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

int main(void)
{
    test_reductions();
    /* Again as on GPUs (prefer_tiled): lines of 8 to 128 elements (91, 55, 49, 33 here, in
     * 55, 91, 74 and 5 lines: not whole workgroups of 8) on the short-line kernels, longer
     * ones on a workgroup each */
    printf("-- as on GPUs (prefer_tiled): short lines 32 lanes each\n");
    oh_gpu_kernels(OH_KERNELS_TILED, 0);
    test_reductions();
    oh_gpu_kernels(OH_KERNELS_DEVICE, 0);
    test_reduce_known();
    test_arg();
    test_cpu_only();
    test_cumprod();
    test_errors();
    return oh_finish();
}
