/* Several sessions on Vulkan devices, run from several threads at once: two sessions per
 * logical device (VKML_VK_LOGICAL_DEVICES=2 opens each physical device twice, so the
 * queue of one is shared and submits are serialised, and two devices run side by side):
 * every run gives the same answer as a lone run, bit for bit. Uses mnist-8. */
#include "testutil.h"

#include <pthread.h>

#define N_THREADS 4
#define N_RUNS 25
#define N_OUT 10

typedef struct worker {
    vkml_session *session;
    const vkml_tensor *input;
    const float *expected;
    int mismatches, failures;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    float out[N_OUT];
    vkml_tensor t = {
        .dtype = VKML_DTYPE_FLOAT, .rank = 2, .dims = {1, N_OUT}, .data = out, .size = sizeof(out)};
    for (int i = 0; i < N_RUNS; i++) {
        vkml_error err = {0};
        memset(out, 0xff, sizeof(out));
        if (vkml_session_run(w->session, w->input, 1, &t, 1, &err) != VKML_OK)
            w->failures++;
        else if (memcmp(out, w->expected, sizeof(out)) != 0)
            w->mismatches++;
    }
    return NULL;
}

int main(void)
{
    char path[1024];
    vkml_error err = {0};
    vkml_context *ctx = NULL;
    vkml_model *model = NULL;
    vkml_tensor input = {0};
    const char *dir = test_corpus_dir();
    (void)dir;
    setenv("VKML_VK_LOGICAL_DEVICES", "2", 1);
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    if (!ctx)
        return test_finish("test_vulkan_threads");
    test_require_vulkan(ctx);
    int n_devices = vkml_context_device_count(ctx);
    CHECK(n_devices % 2 == 0, "%d devices with 2 logical devices per GPU", n_devices);
    CHECK_OK(vkml_model_load_file(test_corpus_path(path, sizeof(path), "models/mnist-8/model.onnx"),
                                  &model, &err),
             &err);
    CHECK_OK(vkml_tensor_read_file(
                 test_corpus_path(path, sizeof(path), "models/mnist-8/test_data_set_1/input_0.pb"),
                 &input, NULL, &err),
             &err);
    worker workers[N_THREADS] = {0};
    float expected[N_OUT];
    vkml_tensor t = {.dtype = VKML_DTYPE_FLOAT,
                     .rank = 2,
                     .dims = {1, N_OUT},
                     .data = expected,
                     .size = sizeof(expected)};
    for (int i = 0; model && input.data && i < N_THREADS; i++) {
        vkml_session_params params = {.device = i % 2};
        CHECK_OK(vkml_session_create(ctx, model, &params, &workers[i].session, &err), &err);
        workers[i].input = &input;
        workers[i].expected = expected;
    }
    if (workers[N_THREADS - 1].session) {
        CHECK_OK(vkml_session_run(workers[0].session, &input, 1, &t, 1, &err), &err);
        pthread_t th[N_THREADS];
        for (int i = 0; i < N_THREADS; i++)
            pthread_create(&th[i], NULL, work, &workers[i]);
        for (int i = 0; i < N_THREADS; i++) {
            pthread_join(th[i], NULL);
            CHECK(workers[i].failures == 0, "thread %d: %d runs failed", i, workers[i].failures);
            CHECK(workers[i].mismatches == 0, "thread %d: %d of %d runs differ from a lone run", i,
                  workers[i].mismatches, N_RUNS);
        }
        printf("%d threads x %d runs on devices 0 and 1: all equal to a lone run\n", N_THREADS,
               N_RUNS);
    }
    for (int i = 0; i < N_THREADS; i++)
        vkml_session_destroy(&workers[i].session);
    vkml_tensor_release(&input);
    vkml_model_destroy(&model);
    vkml_context_destroy(&ctx);
    return test_finish("test_vulkan_threads");
}
