/*
 * The small remaining ops (lib/ops/misc.c) on the op harness: BitCast, Det,
 * ReverseSequence, RotaryEmbedding and TensorScatter. CPU known values, the Vulkan devices
 * against the CPU where they run the op, and bad input.
 */
#include "op_harness.h"

#include <stdio.h>

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
    test_small_ops();
    test_rotary();
    test_tensor_scatter();
    return oh_finish();
}
