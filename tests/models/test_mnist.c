/* mnist-8 from the corpus: all three reference sets match output_0.pb (same argmax, max abs
 * difference <= 2e-3) on the CPU device and on every Vulkan device (lavapipe here). */
#include "testutil.h"

#define MNIST_TOLERANCE 2e-3

static int argmax(const float *x, size_t n)
{
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (x[i] > x[best])
            best = i;
    return (int)best;
}

static void check_set(vkml_session *s, const char *device_name, int set)
{
    char path[1024], rel[128];
    vkml_error err = {0};
    vkml_tensor input = {0}, expected = {0}, got = {0};
    snprintf(rel, sizeof(rel), "models/mnist-8/test_data_set_%d/input_0.pb", set);
    CHECK_OK(vkml_tensor_read_file(test_corpus_path(path, sizeof(path), rel), &input, NULL, &err),
             &err);
    snprintf(rel, sizeof(rel), "models/mnist-8/test_data_set_%d/output_0.pb", set);
    CHECK_OK(
        vkml_tensor_read_file(test_corpus_path(path, sizeof(path), rel), &expected, NULL, &err),
        &err);
    CHECK_OK(vkml_session_alloc_output(s, 0, &got, &err), &err);
    if (!input.data || !expected.data || !got.data)
        goto done;
    /* Poison the output so a run that writes nothing cannot pass. */
    for (size_t i = 0; i < got.size / sizeof(float); i++)
        ((float *)got.data)[i] = NAN;
    CHECK_OK(vkml_session_run(s, &input, 1, &got, 1, &err), &err);
    size_t n = expected.size / sizeof(float);
    CHECK(got.size == expected.size, "%s set %d: output bytes %zu, expected %zu", device_name, set,
          got.size, expected.size);
    const float *g = got.data, *e = expected.data;
    double max_diff = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)g[i] - (double)e[i]);
        if (!(d <= max_diff)) /* NaN-propagating max */
            max_diff = d;
    }
    CHECK(argmax(g, n) == argmax(e, n), "%s set %d: argmax %d, expected %d", device_name, set,
          argmax(g, n), argmax(e, n));
    CHECK(max_diff <= MNIST_TOLERANCE, "%s set %d: max abs diff %g > %g", device_name, set,
          max_diff, MNIST_TOLERANCE);
    printf("mnist-8 %s set %d: argmax %d, max abs diff %.3g\n", device_name, set, argmax(g, n),
           max_diff);
done:
    vkml_tensor_release(&input);
    vkml_tensor_release(&expected);
    vkml_tensor_release(&got);
}

static void check_device(vkml_context *ctx, vkml_model *model, int device)
{
    vkml_error err = {0};
    vkml_device_info info;
    CHECK_OK(vkml_context_device_info(ctx, device, &info, &err), &err);
    vkml_session_params params = {.device = device};
    vkml_session *s = NULL;
    CHECK_OK(vkml_session_create(ctx, model, &params, &s, &err), &err);
    if (!s)
        return;
    for (int set = 0; set < 3; set++)
        check_set(s, info.name, set);
    vkml_session_destroy(&s);
    CHECK(s == NULL, "destroy must clear the handle");
}

int main(void)
{
    char path[1024];
    vkml_error err = {0};
    vkml_context *ctx = NULL;
    vkml_model *model = NULL;
    test_corpus_path(path, sizeof(path), "models/mnist-8/model.onnx");
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    CHECK_OK(vkml_model_load_file(path, &model, &err), &err);
    if (!ctx || !model)
        return test_finish("test_mnist");
    test_require_vulkan(ctx);
    TEST_FOR_EACH_DEVICE(t, ctx)
        check_device(ctx, model, t.device);
    vkml_model_destroy(&model);
    vkml_context_destroy(&ctx);
    return test_finish("test_mnist");
}
