/*
 * The op harness on the first ops (suite 'ops'): CPU results against known values, the
 * Vulkan devices against the CPU, refusals and errors. Also shows how a family test reads.
 */
#include "op_harness.h"

static void test_add_broadcast(void)
{
    /* Known values: [2,3] + [3]. */
    oh_case *c = oh_new("Add", 14);
    const float a[] = {1, 2, 3, 4, 5, 6}, b[] = {10, 20, 30}, y[] = {11, 22, 33, 14, 25, 36};
    oh_const(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){2, 3}, a);
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, b);
    oh_expect(c, 0, y);
    oh_run(c, "Add [2,3]+[3] known values", OH_BOUND_EXACT);

    /* Odd shapes, random data. */
    c = oh_new("Add", 14);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){5, 7, 11, 13}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){7, 1, 13}, -1, 1);
    oh_run(c, "Add f32 [5,7,11,13]+[7,1,13]", OH_BOUND_EXACT);
}

static void test_int_on_cpu_only(void)
{
    /* int32 Add: the CPU runs it; the Vulkan kernel is float-only today, so the devices
     * refuse it (reported, not a failure, with expect_gpu false). */
    oh_case *c = oh_new("Add", 14);
    const int32_t a[] = {7, -7, 2147483647}, b[] = {2, -2, 1}, y[] = {9, -9, -2147483647 - 1};
    oh_const(c, VKML_DTYPE_INT32, 1, (int64_t[]){3}, a);
    oh_const(c, VKML_DTYPE_INT32, 1, (int64_t[]){3}, b);
    oh_expect(c, 0, y);
    oh_expect_gpu(c, false);
    oh_run(c, "Add int32 wraps", OH_BOUND_EXACT);
}

static void test_unary_and_alias(void)
{
    oh_case *c = oh_new("Sigmoid", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){5, 7, 11}, -30, 30);
    oh_run(c, "Sigmoid f32 [5,7,11]", OH_BOUND_TRANSCENDENTAL);

    c = oh_new("Reshape", 14);
    oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){5, 7, 11}, -1, 1);
    oh_const_i64(c, 2, (int64_t[]){35, -1});
    oh_run(c, "Reshape [5,7,11]->[35,-1]", OH_BOUND_EXACT);
}

static void test_errors(void)
{
    oh_case *c = oh_new("Add", 14);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){2, 3}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){4, 3}, -1, 1);
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "do not broadcast");
    oh_run(c, "Add shapes that do not broadcast", OH_BOUND_EXACT);

    c = oh_new("Reshape", 14);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){2, 3}, -1, 1);
    oh_const_i64(c, 1, (int64_t[]){7});
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "cannot reshape");
    oh_run(c, "Reshape to the wrong size", OH_BOUND_EXACT);
}

int main(void)
{
    test_add_broadcast();
    test_int_on_cpu_only();
    test_unary_and_alias();
    test_errors();
    return oh_finish();
}
