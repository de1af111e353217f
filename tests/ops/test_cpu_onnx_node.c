/* A handful of ONNX node tests from the corpus, straight through the public API on the
 * CPU device: each test_data_set_N's outputs must match with ONNX's backend tolerance
 * (rtol 1e-3, atol 1e-7; exact for integers). The full suite is the conformance runner's
 * job (tests/cli); these pin the semantics the CPU kernels are the reference for. */
#include "testutil.h"

#include <unistd.h>

#define RTOL 1e-3
#define ATOL 1e-7
#define MAX_TENSORS 8

static const char *const node_tests[] = {
    "test_add_bcast",
    "test_div_int32_trunc",
    "test_conv_with_strides_padding",
    "test_conv_with_strides_and_asymmetric_padding",
    "test_conv_with_autopad_same",
    "test_maxpool_2d_ceil",
    "test_maxpool_2d_ceil_output_size_reduce_by_one",
    "test_maxpool_3d_dilations",
    "test_maxpool_with_argmax_2d_precomputed_strides",
    "test_averagepool_2d_pads_count_include_pad",
    "test_averagepool_2d_ceil_last_window_starts_on_pad",
    "test_averagepool_3d_dilations_large_count_include_pad_is_1_ceil_mode_is_True",
    "test_globalaveragepool",
    "test_matmul_4d",
    "test_matmul_1d_3d",
    "test_gemm_all_attributes",
    "test_gemm_default_single_elem_vector_bias",
    "test_softmax_axis_0",
    "test_softmax_large_number",
    "test_flatten_negative_axis1",
};

static bool close_enough(vkml_dtype dtype, const void *got, const void *want, size_t i)
{
    if (dtype == VKML_DTYPE_FLOAT) {
        float g = ((const float *)got)[i], w = ((const float *)want)[i];
        if (isnan(w))
            return isnan(g);
        return fabs((double)g - (double)w) <= ATOL + RTOL * fabs((double)w);
    }
    size_t size = vkml_dtype_size(dtype);
    return memcmp((const char *)got + i * size, (const char *)want + i * size, size) == 0;
}

static void compare(const char *test, int index, const vkml_tensor *got, const vkml_tensor *want)
{
    CHECK(got->dtype == want->dtype && got->size == want->size,
          "%s output %d: %s of %zu bytes, expected %s of %zu", test, index,
          vkml_dtype_name(got->dtype), got->size, vkml_dtype_name(want->dtype), want->size);
    if (got->dtype != want->dtype || got->size != want->size)
        return;
    size_t n = vkml_tensor_element_count(want->rank, want->dims);
    for (size_t i = 0; i < n; i++) {
        if (!close_enough(want->dtype, got->data, want->data, i)) {
            CHECK(false, "%s output %d differs at element %zu", test, index, i);
            return;
        }
    }
}

/* Reads dir/<prefix>_K.pb for K = 0.. into tensors; returns the count. */
static size_t read_tensors(const char *dir, const char *prefix, vkml_tensor *t)
{
    size_t n = 0;
    for (; n < MAX_TENSORS; n++) {
        char path[1200];
        vkml_error err = {0};
        snprintf(path, sizeof(path), "%s/%s_%zu.pb", dir, prefix, n);
        if (access(path, R_OK) != 0)
            break;
        CHECK_OK(vkml_tensor_read_file(path, &t[n], NULL, &err), &err);
    }
    return n;
}

static void run_set(const char *test, vkml_session *s, const char *dir)
{
    vkml_tensor in[MAX_TENSORS] = {0}, want[MAX_TENSORS] = {0}, got[MAX_TENSORS] = {0};
    vkml_error err = {0};
    size_t n_in = read_tensors(dir, "input", in), n_out = read_tensors(dir, "output", want);
    CHECK(n_in == vkml_session_input_count(s) && n_out == vkml_session_output_count(s),
          "%s: %zu inputs / %zu outputs on disk", test, n_in, n_out);
    for (size_t i = 0; i < n_out; i++) {
        CHECK_OK(vkml_session_alloc_output(s, i, &got[i], &err), &err);
        if (got[i].data)
            memset(got[i].data, 0xcd, got[i].size); /* poison */
    }
    vkml_status st = vkml_session_run(s, in, n_in, got, n_out, &err);
    CHECK(st == VKML_OK, "%s: run: %s", test, err.message);
    for (size_t i = 0; st == VKML_OK && i < n_out; i++)
        compare(test, (int)i, &got[i], &want[i]);
    for (size_t i = 0; i < MAX_TENSORS; i++) {
        vkml_tensor_release(&in[i]);
        vkml_tensor_release(&want[i]);
        vkml_tensor_release(&got[i]);
    }
}

static void run_test(vkml_context *ctx, const char *test)
{
    char rel[512], dir[1024], path[1100];
    vkml_error err = {0};
    vkml_model *model = NULL;
    vkml_session *s = NULL;
    snprintf(rel, sizeof(rel), "onnx-node/%s", test);
    test_corpus_path(dir, sizeof(dir), rel);
    snprintf(path, sizeof(path), "%s/model.onnx", dir);
    CHECK_OK(vkml_model_load_file(path, &model, &err), &err);
    vkml_session_params params = {.device = VKML_DEVICE_CPU};
    if (model)
        CHECK_OK(vkml_session_create(ctx, model, &params, &s, &err), &err);
    int sets = 0;
    for (; s; sets++) {
        char set[1200];
        snprintf(set, sizeof(set), "%s/test_data_set_%d", dir, sets);
        if (access(set, R_OK) != 0)
            break;
        run_set(test, s, set);
    }
    CHECK(!s || sets > 0, "%s: no test_data_set_0", test);
    printf("%s: %d data set(s) checked\n", test, sets);
    vkml_session_destroy(&s);
    vkml_model_destroy(&model);
}

int main(void)
{
    vkml_error err = {0};
    vkml_context *ctx = NULL;
    vkml_context_params params = {.disable_vulkan = true};
    test_corpus_dir();
    CHECK_OK(vkml_context_create(&params, &ctx, &err), &err);
    for (size_t i = 0; ctx && i < sizeof(node_tests) / sizeof(node_tests[0]); i++)
        run_test(ctx, node_tests[i]);
    vkml_context_destroy(&ctx);
    return test_finish("test_cpu_onnx_node");
}
