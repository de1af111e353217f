/*
 * Data movement, shapes and indexing (suite 'ops'): every op of the family on every dtype it
 * moves, odd shapes, known values where the semantics are subtle (negative steps, pad modes,
 * DCR/CRD), the Vulkan devices against the CPU, and bad input failing with its reason;
 * Reshape as a view, and a chain of nodes run as one chunk with the Reshape as a view and
 * as a copy.
 */
#include "op_harness.h"

#include <stdio.h>

static const vkml_dtype all_dtypes[] = {
    VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16, VKML_DTYPE_DOUBLE, VKML_DTYPE_INT64,
    VKML_DTYPE_INT32, VKML_DTYPE_INT8,    VKML_DTYPE_UINT8,  VKML_DTYPE_BOOL,
};
#define FOR_DTYPES(t) for (size_t t##_i = 0; t##_i < VKML_ARRAY_SIZE(all_dtypes); t##_i++)
#define DT(t) all_dtypes[t##_i]

static char *label(const char *what, vkml_dtype t)
{
    static char buf[128];
    snprintf(buf, sizeof(buf), "%s %s", what, vkml_dtype_name(t));
    return buf;
}

/* Odd-shaped random data of dtype t (input or constant). */
static void data(oh_case *c, vkml_dtype t, int rank, const int64_t *dims)
{
    oh_input(c, t, rank, dims, -100, 100);
}

static void test_strided(void)
{
    FOR_DTYPES(t)
    {
        oh_case *c = oh_new("Transpose", 21);
        data(c, DT(t), 4, (int64_t[]){5, 7, 11, 13});
        oh_attr_ints(c, "perm", 4, (int64_t[]){2, 0, 3, 1});
        oh_run(c, label("Transpose [5,7,11,13] perm 2031", DT(t)), OH_BOUND_EXACT);

        c = oh_new("Concat", 13);
        data(c, DT(t), 3, (int64_t[]){5, 7, 11});
        data(c, DT(t), 3, (int64_t[]){5, 3, 11});
        data(c, DT(t), 3, (int64_t[]){5, 1, 11});
        oh_attr_int(c, "axis", -2);
        oh_run(c, label("Concat 3 inputs axis -2", DT(t)), OH_BOUND_EXACT);

        c = oh_new("Split", 18);
        data(c, DT(t), 3, (int64_t[]){5, 7, 11});
        oh_outputs(c, 3);
        oh_attr_int(c, "axis", 1);
        oh_attr_int(c, "num_outputs", 3);
        oh_run(c, label("Split 7 into 3,3,1", DT(t)), OH_BOUND_EXACT);

        /* num_outputs on a Split-13 node: PyTorch 2.11's exporter writes it at opset 17 */
        c = oh_new("Split", 13);
        data(c, DT(t), 3, (int64_t[]){5, 6, 11});
        oh_outputs(c, 2);
        oh_attr_int(c, "axis", 1);
        oh_attr_int(c, "num_outputs", 2);
        oh_run(c, label("Split-13 6 into 3,3 with num_outputs", DT(t)), OH_BOUND_EXACT);

        c = oh_new("Slice", 13);
        data(c, DT(t), 3, (int64_t[]){5, 7, 11});
        oh_const_i64(c, 3, (int64_t[]){-1, 1, INT64_MAX});
        oh_const_i64(c, 3, (int64_t[]){INT64_MIN, 6, 0});
        oh_const_i64(c, 3, (int64_t[]){0, 1, 2});
        oh_const_i64(c, 3, (int64_t[]){-2, 2, -3});
        oh_run(c, label("Slice negative steps, clamped ends", DT(t)), OH_BOUND_EXACT);

        /* Whole 16-byte rows (the vector copy, strided_copy_vec4) for every element size:
         * channel Concat and Slice at batch 1 and 2, a Transpose keeping its last axis */
        c = oh_new("Concat", 13);
        data(c, DT(t), 4, (int64_t[]){2, 4, 8, 8});
        data(c, DT(t), 4, (int64_t[]){2, 8, 8, 8});
        oh_attr_int(c, "axis", 1);
        oh_run(c, label("Concat channels in 16-byte rows", DT(t)), OH_BOUND_EXACT);

        c = oh_new("Slice", 13);
        data(c, DT(t), 4, (int64_t[]){1, 12, 4, 8});
        oh_const_i64(c, 1, (int64_t[]){4});
        oh_const_i64(c, 1, (int64_t[]){12});
        oh_const_i64(c, 1, (int64_t[]){1});
        oh_run(c, label("Slice channels 4..12 in 16-byte rows", DT(t)), OH_BOUND_EXACT);

        c = oh_new("Transpose", 21);
        data(c, DT(t), 3, (int64_t[]){4, 6, 16});
        oh_attr_ints(c, "perm", 3, (int64_t[]){1, 0, 2});
        oh_run(c, label("Transpose keeping rows of 16", DT(t)), OH_BOUND_EXACT);

        c = oh_new("Expand", 13);
        data(c, DT(t), 3, (int64_t[]){7, 1, 13});
        oh_const_i64(c, 4, (int64_t[]){5, 1, 11, 1});
        oh_run(c, label("Expand [7,1,13] by [5,1,11,1]", DT(t)), OH_BOUND_EXACT);

        c = oh_new("DepthToSpace", 13);
        data(c, DT(t), 4, (int64_t[]){2, 12, 5, 7});
        oh_attr_int(c, "blocksize", 2);
        oh_attr_string(c, "mode", t_i % 2 ? "CRD" : "DCR");
        oh_run(c, label("DepthToSpace b2", DT(t)), OH_BOUND_EXACT);

        c = oh_new("SpaceToDepth", 13);
        data(c, DT(t), 4, (int64_t[]){2, 3, 9, 6});
        oh_attr_int(c, "blocksize", 3);
        oh_run(c, label("SpaceToDepth b3", DT(t)), OH_BOUND_EXACT);

        c = oh_new("Unsqueeze", 13);
        data(c, DT(t), 2, (int64_t[]){5, 7});
        oh_const_i64(c, 2, (int64_t[]){-1, 0});
        oh_run(c, label("Unsqueeze -1, 0", DT(t)), OH_BOUND_EXACT);

        c = oh_new("Squeeze", 11);
        data(c, DT(t), 4, (int64_t[]){1, 5, 1, 7});
        oh_run(c, label("Squeeze every 1 (opset 11)", DT(t)), OH_BOUND_EXACT);
    }
}

static void test_mapped(void)
{
    static const char *modes[] = {"constant", "reflect", "edge", "wrap"};
    FOR_DTYPES(t)
    {
        for (int m = 0; m < 4; m++) {
            oh_case *c = oh_new("Pad", 19);
            data(c, DT(t), 3, (int64_t[]){5, 7, 11});
            oh_const_i64(c, 6, (int64_t[]){1, -2, 9, 0, 3, 2});
            oh_attr_string(c, "mode", modes[m]);
            char what[64];
            snprintf(what, sizeof(what), "Pad %s (pads over the size, negative)", modes[m]);
            oh_run(c, label(what, DT(t)), OH_BOUND_EXACT);
        }
        oh_case *c = oh_new("Tile", 13);
        data(c, DT(t), 3, (int64_t[]){5, 7, 3});
        oh_const_i64(c, 3, (int64_t[]){2, 1, 3});
        oh_run(c, label("Tile [5,7,3] by 2,1,3", DT(t)), OH_BOUND_EXACT);

        c = oh_new("Trilu", 14);
        data(c, DT(t), 3, (int64_t[]){3, 7, 5});
        oh_const_i64(c, 1, (int64_t[]){-2});
        oh_attr_int(c, "upper", (int64_t)(t_i % 2));
        oh_run(c, label("Trilu k=-2", DT(t)), OH_BOUND_EXACT);
    }
    /* Known values: reflect and wrap past the edge. */
    oh_case *c = oh_new("Pad", 19);
    oh_const(c, VKML_DTYPE_INT32, 1, (int64_t[]){3}, (int32_t[]){1, 2, 3});
    oh_const_i64(c, 2, (int64_t[]){4, 2});
    oh_attr_string(c, "mode", "reflect");
    oh_expect(c, 0, (int32_t[]){1, 2, 3, 2, 1, 2, 3, 2, 1});
    oh_run(c, "Pad reflect [1,2,3] by 4,2 known values", OH_BOUND_EXACT);

    c = oh_new("Pad", 10);
    oh_input(c, VKML_DTYPE_FLOAT16, 2, (int64_t[]){3, 5}, -1, 1);
    oh_attr_ints(c, "pads", 4, (int64_t[]){1, 0, 0, 2});
    oh_attr_float(c, "value", 1.5f);
    oh_run(c, "Pad opset 10 value attribute f16", OH_BOUND_EXACT);

    c = oh_new("ConstantOfShape", 21);
    oh_const_i64(c, 3, (int64_t[]){5, 7, 11});
    oh_run(c, "ConstantOfShape [5,7,11] float 0", OH_BOUND_EXACT);

    c = oh_new("EyeLike", 22);
    oh_input(c, VKML_DTYPE_INT32, 2, (int64_t[]){5, 7}, 0, 9);
    oh_attr_int(c, "k", 2);
    oh_attr_int(c, "dtype", VKML_DTYPE_DOUBLE);
    oh_run(c, "EyeLike int32 -> double k=2", OH_BOUND_EXACT);
}

static void test_index(void)
{
    FOR_DTYPES(t)
    {
        oh_case *c = oh_new("Gather", 13);
        data(c, DT(t), 3, (int64_t[]){5, 7, 11});
        oh_input(c, t_i % 2 ? VKML_DTYPE_INT32 : VKML_DTYPE_INT64, 2, (int64_t[]){3, 4}, -7, 6);
        oh_attr_int(c, "axis", 1);
        oh_run(c, label("Gather axis 1, negative indices", DT(t)), OH_BOUND_EXACT);

        c = oh_new("GatherElements", 13);
        data(c, DT(t), 3, (int64_t[]){5, 7, 11});
        oh_input(c, VKML_DTYPE_INT64, 3, (int64_t[]){4, 9, 11}, -7, 6);
        oh_attr_int(c, "axis", 1);
        oh_run(c, label("GatherElements axis 1", DT(t)), OH_BOUND_EXACT);

        c = oh_new("GatherND", 13);
        data(c, DT(t), 4, (int64_t[]){3, 5, 7, 2});
        oh_input(c, VKML_DTYPE_INT64, 3, (int64_t[]){3, 4, 2}, -5, 4);
        oh_attr_int(c, "batch_dims", 1);
        oh_run(c, label("GatherND batch_dims 1", DT(t)), OH_BOUND_EXACT);

        /* Scatters without a reduction need distinct targets: ONNX leaves the order of
         * updates to one element undefined, and the GPU applies them in parallel (so a
         * negative index must not alias a positive one along the axis either). */
        c = oh_new("ScatterND", 18);
        data(c, DT(t), 3, (int64_t[]){5, 7, 3});
        oh_const(c, VKML_DTYPE_INT64, 2, (int64_t[]){3, 2}, (int64_t[]){4, -1, 0, 0, -5, 2});
        data(c, DT(t), 2, (int64_t[]){3, 3});
        oh_run(c, label("ScatterND rows", DT(t)), OH_BOUND_EXACT);

        c = oh_new("ScatterElements", 18);
        data(c, DT(t), 2, (int64_t[]){3, 5});
        oh_const(c, VKML_DTYPE_INT32, 2, (int64_t[]){2, 3}, (int32_t[]){4, 0, -2, 1, 2, 3});
        data(c, DT(t), 2, (int64_t[]){2, 3});
        oh_attr_int(c, "axis", 1);
        oh_run(c, label("ScatterElements axis 1", DT(t)), OH_BOUND_EXACT);
    }
    static const char *reductions[] = {"add", "mul", "max", "min"};
    for (int r = 0; r < 4; r++) {
        oh_case *c = oh_new("ScatterND", 18);
        oh_input(c, VKML_DTYPE_INT32, 2, (int64_t[]){5, 7}, -9, 9);
        oh_input(c, VKML_DTYPE_INT64, 2, (int64_t[]){6, 1}, -5, 4);
        oh_input(c, VKML_DTYPE_INT32, 2, (int64_t[]){6, 7}, -9, 9);
        oh_attr_string(c, "reduction", reductions[r]);
        oh_expect_gpu(c, false); /* reductions stay on the CPU */
        char what[64];
        snprintf(what, sizeof(what), "ScatterND %s, repeated rows", reductions[r]);
        oh_run(c, what, OH_BOUND_EXACT);
    }
    oh_case *c = oh_new("ScatterElements", 18);
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){4}, (float[]){1, 2, 3, 4});
    oh_const(c, VKML_DTYPE_INT64, 1, (int64_t[]){3}, (int64_t[]){1, 1, -1});
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, (float[]){10, 20, 5});
    oh_attr_string(c, "reduction", "add");
    oh_expect_gpu(c, false);
    oh_expect(c, 0, (float[]){1, 32, 3, 9});
    oh_run(c, "ScatterElements add, duplicates known values", OH_BOUND_EXACT);
}

static void test_generators(void)
{
    oh_case *c = oh_new("Shape", 21);
    oh_input(c, VKML_DTYPE_FLOAT16, 4, (int64_t[]){5, 7, 11, 13}, 0, 1);
    oh_attr_int(c, "start", -3);
    oh_attr_int(c, "end", -1);
    oh_expect(c, 0, (int64_t[]){7, 11});
    oh_expect_gpu(c, false); /* evaluated on the CPU while shapes are inferred */
    oh_run(c, "Shape start -3 end -1", OH_BOUND_EXACT);

    c = oh_new("Size", 21);
    oh_input(c, VKML_DTYPE_BOOL, 3, (int64_t[]){5, 7, 11}, 0, 1);
    oh_expect(c, 0, (int64_t[]){385});
    oh_expect_gpu(c, false);
    oh_run(c, "Size", OH_BOUND_EXACT);

    c = oh_new("Range", 11);
    oh_const(c, VKML_DTYPE_INT32, 0, NULL, (int32_t[]){10});
    oh_const(c, VKML_DTYPE_INT32, 0, NULL, (int32_t[]){-3});
    oh_const(c, VKML_DTYPE_INT32, 0, NULL, (int32_t[]){-4});
    oh_expect(c, 0, (int32_t[]){10, 6, 2, -2});
    oh_expect_gpu(c, false);
    oh_run(c, "Range int32 negative delta", OH_BOUND_EXACT);

    c = oh_new("OneHot", 11);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, 0, 0);
    oh_const(c, VKML_DTYPE_INT64, 0, NULL, (int64_t[]){3});
    oh_const(c, VKML_DTYPE_INT8, 1, (int64_t[]){2}, (int8_t[]){-1, 7});
    oh_attr_int(c, "axis", 0);
    oh_expect(c, 0, (int8_t[]){7, 7, 7, -1, -1, -1, -1, -1, -1});
    oh_expect_gpu(c, false);
    oh_run(c, "OneHot axis 0 of zeros", OH_BOUND_EXACT);

    c = oh_new("NonZero", 13);
    oh_const(c, VKML_DTYPE_UINT8, 2, (int64_t[]){2, 3}, (uint8_t[]){0, 4, 0, 1, 0, 9});
    oh_expect(c, 0, (int64_t[]){0, 1, 1, 1, 0, 2});
    oh_expect_gpu(c, false);
    oh_run(c, "NonZero known values", OH_BOUND_EXACT);

    c = oh_new("Compress", 11);
    oh_input(c, VKML_DTYPE_INT64, 2, (int64_t[]){3, 2}, 0, 99);
    oh_const(c, VKML_DTYPE_BOOL, 1, (int64_t[]){2}, (uint8_t[]){1, 0});
    oh_attr_int(c, "axis", 0);
    oh_expect_gpu(c, false);
    oh_run(c, "Compress axis 0, short condition", OH_BOUND_EXACT);
}

static void expect_error(oh_case *c, vkml_status st, const char *text, const char *what)
{
    oh_expect_error(c, st, text);
    oh_run(c, what, OH_BOUND_EXACT);
}

static void test_errors(void)
{
    oh_case *c = oh_new("Gather", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){5, 7}, -1, 1);
    oh_input(c, VKML_DTYPE_INT64, 1, (int64_t[]){3}, 5, 5);
    expect_error(c, VKML_ERROR_INVALID_ARGUMENT, "index 5 at position 0", "Gather index 5 of 5");

    c = oh_new("ScatterND", 18);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){4}, -1, 1);
    oh_input(c, VKML_DTYPE_INT32, 2, (int64_t[]){1, 1}, -9, -9);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){1}, -1, 1);
    expect_error(c, VKML_ERROR_INVALID_ARGUMENT, "out of range [-4, 4)", "ScatterND index -9");

    c = oh_new("Transpose", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){5, 7}, -1, 1);
    oh_attr_ints(c, "perm", 2, (int64_t[]){1, 1});
    expect_error(c, VKML_ERROR_INVALID_MODEL, "not a permutation", "Transpose perm 1,1");

    c = oh_new("Concat", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){5, 7}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){4, 7}, -1, 1);
    oh_attr_int(c, "axis", 1);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "does not match", "Concat shapes that differ");

    c = oh_new("Slice", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){5}, -1, 1);
    oh_const_i64(c, 1, (int64_t[]){0});
    oh_const_i64(c, 1, (int64_t[]){5});
    oh_const_i64(c, 1, (int64_t[]){0});
    oh_const_i64(c, 1, (int64_t[]){0});
    expect_error(c, VKML_ERROR_INVALID_MODEL, "step of 0", "Slice step 0");

    c = oh_new("Split", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){5}, -1, 1);
    oh_const_i64(c, 2, (int64_t[]){2, 2});
    oh_outputs(c, 2);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "do not split", "Split sizes short of the dim");

    c = oh_new("Split", 18);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){6}, -1, 1);
    oh_outputs(c, 2);
    oh_attr_int(c, "num_outputs", 0);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "must be positive", "Split-18 num_outputs 0");

    c = oh_new("Split", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){6}, -1, 1);
    oh_outputs(c, 2);
    oh_attr_int(c, "num_outputs", 3);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "num_outputs 3 but 2 outputs",
                 "Split-13 num_outputs that the outputs contradict");

    c = oh_new("Pad", 19);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){5}, -1, 1);
    oh_const_i64(c, 2, (int64_t[]){0, 0});
    oh_attr_string(c, "mode", "mirror");
    expect_error(c, VKML_ERROR_INVALID_MODEL, "mode 'mirror'", "Pad unknown mode");

    c = oh_new("DepthToSpace", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 6, 2, 2}, -1, 1);
    oh_attr_int(c, "blocksize", 2);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "does not divide", "DepthToSpace 6 channels by 4");

    c = oh_new("Tile", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){5}, -1, 1);
    oh_const_i64(c, 1, (int64_t[]){INT64_MAX / 2});
    expect_error(c, VKML_ERROR_INVALID_MODEL, "repeats", "Tile absurd repeats");

    c = oh_new("Expand", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){5}, -1, 1);
    oh_const_i64(c, 3, (int64_t[]){1ll << 40, 1ll << 30, 5});
    expect_error(c, VKML_ERROR_INVALID_MODEL, "impossible shape", "Expand to an absurd size");

    c = oh_new("Range", 11);
    oh_const(c, VKML_DTYPE_FLOAT, 0, NULL, (float[]){0});
    oh_const(c, VKML_DTYPE_FLOAT, 0, NULL, (float[]){1});
    oh_const(c, VKML_DTYPE_FLOAT, 0, NULL, (float[]){0});
    expect_error(c, VKML_ERROR_INVALID_MODEL, "no valid size", "Range delta 0");

    c = oh_new("Range", 11);
    oh_input(c, VKML_DTYPE_INT64, 0, NULL, 0, 0);
    oh_const(c, VKML_DTYPE_INT64, 0, NULL, (int64_t[]){5});
    oh_const(c, VKML_DTYPE_INT64, 0, NULL, (int64_t[]){1});
    expect_error(c, VKML_ERROR_UNSUPPORTED, "must be a constant", "Range of a graph input");

    c = oh_new("Squeeze", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){5, 1}, -1, 1);
    oh_const_i64(c, 1, (int64_t[]){0});
    expect_error(c, VKML_ERROR_INVALID_MODEL, "not 1", "Squeeze a dim of 5");
}

/* Reshape as a view on the devices, and a target size that does not match. */
static void test_reshape(void)
{
    oh_case *c = oh_new("Reshape", 14);
    oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){5, 7, 11}, -1, 1);
    oh_const_i64(c, 2, (int64_t[]){35, -1});
    oh_run(c, "Reshape [5,7,11]->[35,-1]", OH_BOUND_EXACT);

    c = oh_new("Reshape", 14);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){2, 3}, -1, 1);
    oh_const_i64(c, 1, (int64_t[]){7});
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "cannot reshape");
    oh_run(c, "Reshape to the wrong size", OH_BOUND_EXACT);
}

/* Conv -> Relu -> MaxPool -> Reshape -> MatMul -> Add as one chunk: intermediates in device
 * memory (two with disjoint lives sharing it), barriers between dependent dispatches, the
 * Reshape a view or (copy) its own memory. */
static void chain_case(bool copy)
{
    oh_case *c = oh_new("Conv", 11);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){1, 1, 12, 12}, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){4, 1, 3, 3}, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){4}, -1, 1);
    oh_attr_ints(c, "pads", 4, (int64_t[]){1, 1, 1, 1});
    oh_then(c, "Relu", 14);
    oh_then(c, "MaxPool", 12);
    oh_attr_ints(c, "kernel_shape", 2, (int64_t[]){2, 2});
    oh_attr_ints(c, "strides", 2, (int64_t[]){2, 2});
    oh_then(c, "Reshape", 14);
    oh_const_i64(c, 2, (int64_t[]){1, 144});
    oh_then(c, "MatMul", 13);
    oh_const_random(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){144, 10}, -1, 1);
    oh_then(c, "Add", 14);
    oh_const_random(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){1, 10}, -1, 1);
    if (copy)
        oh_no_alias(c);
    oh_expect_reuse(c);
    oh_run(c, copy ? "chain with Reshape as a copy" : "chain with Reshape as a view", OH_BOUND_SUM);
}

int main(void)
{
    test_strided();
    test_mapped();
    test_index();
    test_generators();
    test_errors();
    test_reshape();
    chain_case(false);
    chain_case(true);
    return oh_finish();
}
