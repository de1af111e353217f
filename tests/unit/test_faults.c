/* Faults: a device memory limit and injected vkAllocateMemory failures give a clean
 * VKML_ERROR_OUT_OF_MEMORY and free everything made so far; an injected
 * VK_ERROR_DEVICE_LOST fails that device's runs for good while other devices and the CPU
 * go on; the Vulkan object counts return to their values before each session and to zero
 * after each context. */
#include "testutil.h"

#include <time.h>

#define LIMIT_BYTES 16384 /* mnist-8 needs more; test_relu far less */

static char mnist_path[4096], mnist_in[4096], mnist_out[4096];
static char relu_path[4096], relu_in[4096], relu_out[4096];

/* Kinds a session creates and destroys (pipelines are cached per device, and devices,
 * layouts and caches live as long as the context). */
static const vkml_vk_object session_kinds[] = {
    VKML_VK_MEMORY,       VKML_VK_BUFFER,         VKML_VK_DESCRIPTOR_POOL,
    VKML_VK_COMMAND_POOL, VKML_VK_COMMAND_BUFFER, VKML_VK_FENCE,
};

static void check_session_counts(const vkml_vk_counts *before, const char *when)
{
    vkml_vk_counts now;
    vkml_debug_vk_counts(&now);
    for (size_t i = 0; i < sizeof(session_kinds) / sizeof(session_kinds[0]); i++) {
        vkml_vk_object k = session_kinds[i];
        CHECK(now.live[k] == before->live[k], "%s: %lld live %s, %lld before", when,
              (long long)now.live[k], vkml_vk_object_name(k), (long long)before->live[k]);
    }
    CHECK(now.memory_bytes == before->memory_bytes, "%s: %lld bytes of memory, %lld before", when,
          (long long)now.memory_bytes, (long long)before->memory_bytes);
}

static void check_all_zero(const char *when)
{
    vkml_vk_counts now;
    vkml_debug_vk_counts(&now);
    for (int k = 0; k < VKML_VK_OBJECT_KINDS; k++)
        CHECK(now.live[k] == 0, "%s: %lld live %s", when, (long long)now.live[k],
              vkml_vk_object_name((vkml_vk_object)k));
    CHECK(now.memory_bytes == 0, "%s: %lld bytes of memory", when, (long long)now.memory_bytes);
}

static vkml_context *make_context(uint64_t limit, int logical)
{
    vkml_context_params params = {.device_memory_limit = limit, .logical_devices_per_gpu = logical};
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(&params, &ctx, &err), &err);
    if (!ctx)
        exit(1);
    test_require_vulkan(ctx);
    return ctx;
}

/* Runs `model` on `device` with its test data; returns the run's status (the answer is
 * checked when it is VKML_OK). err gets the message. */
static vkml_status run_model(vkml_session *s, const char *in_path, const char *out_path,
                             vkml_error *err)
{
    vkml_tensor in = {0}, want = {0}, out = {0};
    vkml_error e2 = {0};
    CHECK_OK(vkml_tensor_read_file(in_path, &in, NULL, &e2), &e2);
    CHECK_OK(vkml_tensor_read_file(out_path, &want, NULL, &e2), &e2);
    CHECK_OK(vkml_session_alloc_output(s, 0, &out, &e2), &e2);
    vkml_status st = vkml_session_run(s, &in, 1, &out, 1, err);
    if (st == VKML_OK) {
        size_t n = out.size / sizeof(float);
        CHECK(want.size == out.size, "output %zu bytes, expected %zu", out.size, want.size);
        for (size_t i = 0; i < n && want.size == out.size; i++) {
            float a = ((float *)out.data)[i], b = ((float *)want.data)[i];
            CHECK(fabsf(a - b) <= 1e-3f + 1e-3f * fabsf(b), "output[%zu] = %g, expected %g", i, a,
                  b);
        }
    }
    vkml_tensor_release(&in);
    vkml_tensor_release(&want);
    vkml_tensor_release(&out);
    return st;
}

static vkml_status make_session(vkml_context *ctx, vkml_model *m, int device, vkml_session **s,
                                vkml_error *err)
{
    vkml_session_params sp = {.device = device};
    return vkml_session_create(ctx, m, &sp, s, err);
}

static vkml_model *load(const char *path)
{
    vkml_model *m = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_model_load_file(path, &m, &err), &err);
    if (!m)
        exit(1);
    return m;
}

/* Session counts come back after each session; everything is zero after the context. */
static void test_counts(void)
{
    check_all_zero("before any context");
    vkml_context *ctx = make_context(0, 0);
    vkml_model *m = load(mnist_path);
    vkml_vk_counts before, during;
    vkml_debug_vk_counts(&before);
    CHECK(before.live[VKML_VK_INSTANCE] == 1 && before.live[VKML_VK_DEVICE] >= 1,
          "%lld instances, %lld devices", (long long)before.live[VKML_VK_INSTANCE],
          (long long)before.live[VKML_VK_DEVICE]);
    for (int round = 0; round < 3; round++) {
        vkml_session *s = NULL;
        vkml_error err = {0};
        CHECK_OK(make_session(ctx, m, 0, &s, &err), &err);
        CHECK_OK(run_model(s, mnist_in, mnist_out, &err), &err);
        vkml_debug_vk_counts(&during);
        CHECK(during.live[VKML_VK_MEMORY] > before.live[VKML_VK_MEMORY] &&
                  during.live[VKML_VK_FENCE] > before.live[VKML_VK_FENCE] &&
                  during.live[VKML_VK_PIPELINE] > 0,
              "a live session counts no memory, fence or pipeline");
        vkml_session_destroy(&s);
        check_session_counts(&before, "after a session");
    }
    vkml_model_destroy(&m);
    vkml_context_destroy(&ctx);
    check_all_zero("after vkml_context_destroy");
}

/* mnist-8 over a 16 KiB limit: OUT_OF_MEMORY at session creation naming the device and
 * the bytes, nothing left behind; the same context then runs test_relu. */
static void test_memory_limit(void)
{
    vkml_context *ctx = make_context(LIMIT_BYTES, 0);
    vkml_device_info info;
    vkml_error err = {0};
    CHECK_OK(vkml_context_device_info(ctx, 0, &info, &err), &err);
    vkml_model *mnist = load(mnist_path), *relu = load(relu_path);
    vkml_vk_counts before;
    vkml_debug_vk_counts(&before);
    vkml_session *s = NULL;
    vkml_status st = make_session(ctx, mnist, 0, &s, &err);
    CHECK(st == VKML_ERROR_OUT_OF_MEMORY && !s, "mnist over %d bytes: %s: %s", LIMIT_BYTES,
          vkml_status_name(st), err.message);
    CHECK(strstr(err.message, info.name) && strstr(err.message, "16384 bytes"),
          "message names neither the device '%s' nor the limit: %s", info.name, err.message);
    printf("memory limit: %s: %s\n", vkml_status_name(st), err.message);
    vkml_session_destroy(&s);
    check_session_counts(&before, "after the refused session");
    for (int round = 0; round < 2; round++) {
        CHECK_OK(make_session(ctx, relu, 0, &s, &err), &err);
        if (s)
            CHECK_OK(run_model(s, relu_in, relu_out, &err), &err);
        vkml_session_destroy(&s);
    }
    check_session_counts(&before, "after test_relu");
    vkml_model_destroy(&mnist);
    vkml_model_destroy(&relu);
    vkml_context_destroy(&ctx);
    check_all_zero("after the limited context");
}

/* Allocations an mnist-8 session holds on device 0. */
static int64_t mnist_allocations(void)
{
    vkml_context *ctx = make_context(0, 0);
    vkml_model *m = load(mnist_path);
    vkml_vk_counts before, after;
    vkml_session *s = NULL;
    vkml_error err = {0};
    vkml_debug_vk_counts(&before);
    CHECK_OK(make_session(ctx, m, 0, &s, &err), &err);
    vkml_debug_vk_counts(&after);
    vkml_session_destroy(&s);
    vkml_model_destroy(&m);
    vkml_context_destroy(&ctx);
    return after.live[VKML_VK_MEMORY] - before.live[VKML_VK_MEMORY];
}

/* VKML_TEST_FAIL_ALLOC=i for every allocation i of an mnist-8 session: OUT_OF_MEMORY
 * naming the device and VK_ERROR_OUT_OF_DEVICE_MEMORY, nothing left behind, and the next
 * session of the context runs right. (A failed allocation of upload memory falls back to
 * host memory, so that index may succeed: then the run must be right too.) */
static void test_injected_alloc_failures(void)
{
    int64_t k = mnist_allocations();
    int failed = 0;
    CHECK(k >= 2, "an mnist session holds %lld allocations", (long long)k);
    for (int64_t i = 1; i <= k; i++) {
        char value[32];
        snprintf(value, sizeof(value), "%lld", (long long)i);
        setenv("VKML_TEST_FAIL_ALLOC", value, 1);
        vkml_context *ctx = make_context(0, 0);
        unsetenv("VKML_TEST_FAIL_ALLOC");
        vkml_model *m = load(mnist_path);
        vkml_vk_counts before;
        vkml_debug_vk_counts(&before);
        vkml_session *s = NULL;
        vkml_error err = {0};
        vkml_device_info info;
        CHECK_OK(vkml_context_device_info(ctx, 0, &info, &err), &err);
        vkml_status st = make_session(ctx, m, 0, &s, &err);
        if (st != VKML_OK) {
            failed++;
            CHECK(st == VKML_ERROR_OUT_OF_MEMORY && !s, "allocation %lld: %s: %s", (long long)i,
                  vkml_status_name(st), err.message);
            CHECK(strstr(err.message, "VK_ERROR_OUT_OF_DEVICE_MEMORY") &&
                      strstr(err.message, info.name),
                  "allocation %lld: no VkResult or device '%s': %s", (long long)i, info.name,
                  err.message);
            if (i == 1)
                printf("injected allocation failure: %s: %s\n", vkml_status_name(st), err.message);
            check_session_counts(&before, "after an injected allocation failure");
            CHECK_OK(make_session(ctx, m, 0, &s, &err), &err);
        }
        if (s)
            CHECK_OK(run_model(s, mnist_in, mnist_out, &err), &err);
        vkml_session_destroy(&s);
        check_session_counts(&before, "after the session that followed");
        vkml_model_destroy(&m);
        vkml_context_destroy(&ctx);
        check_all_zero("after an injected allocation failure's context");
    }
    CHECK(failed >= 1, "no injected allocation failure failed a session (of %lld)", (long long)k);
    printf("injected allocation failures: %d of %lld indices failed the session cleanly\n", failed,
           (long long)k);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The first submit, wait or run submit on logical device 0 reports VK_ERROR_DEVICE_LOST: its run
 * fails with DEVICE_LOST naming it, later runs and sessions on it fail at once, logical
 * device 1 and the CPU go on. */
static void test_device_lost(const char *hook)
{
    setenv("VKML_TEST_DEVICE_LOST", hook, 1);
    unsetenv("VKML_VK_LOGICAL_DEVICES");
    vkml_context *ctx = make_context(0, 2);
    unsetenv("VKML_TEST_DEVICE_LOST");
    CHECK(vkml_context_device_count(ctx) >= 2, "%d devices with 2 logical devices per GPU",
          vkml_context_device_count(ctx));
    vkml_device_info info;
    vkml_error err = {0};
    CHECK_OK(vkml_context_device_info(ctx, 0, &info, &err), &err);
    vkml_model *m = load(mnist_path);
    vkml_session *lost = NULL, *other = NULL, *cpu = NULL, *again = NULL;
    CHECK_OK(make_session(ctx, m, 1, &other, &err), &err);
    CHECK_OK(make_session(ctx, m, VKML_DEVICE_CPU, &cpu, &err), &err);
    vkml_status st = make_session(ctx, m, 0, &lost, &err);
    if (st == VKML_OK) /* no upload at creation (lavapipe maps all memory): the run */
        st = run_model(lost, mnist_in, mnist_out, &err);
    CHECK(st == VKML_ERROR_DEVICE_LOST, "%s: first use of device 0: %s: %s", hook,
          vkml_status_name(st), err.message);
    CHECK(strstr(err.message, info.name) != NULL, "message does not name '%s': %s", info.name,
          err.message);
    printf("device lost (%s): %s: %s\n", hook, vkml_status_name(st), err.message);
    for (int i = 0; lost && i < 3; i++) {
        double t0 = now_s();
        st = run_model(lost, mnist_in, mnist_out, &err);
        CHECK(st == VKML_ERROR_DEVICE_LOST && now_s() - t0 < 1.0,
              "run %d after the loss: %s in %.3f s: %s", i, vkml_status_name(st), now_s() - t0,
              err.message);
    }
    if (lost)
        printf("device lost (%s), later run: %s\n", hook, err.message);
    st = make_session(ctx, m, 0, &again, &err);
    CHECK(st == VKML_ERROR_DEVICE_LOST && !again, "new session on the lost device: %s: %s",
          vkml_status_name(st), err.message);
    for (int i = 0; i < 3; i++) {
        CHECK_OK(run_model(other, mnist_in, mnist_out, &err), &err);
        CHECK_OK(run_model(cpu, mnist_in, mnist_out, &err), &err);
    }
    vkml_session_destroy(&lost);
    vkml_session_destroy(&other);
    vkml_session_destroy(&cpu);
    vkml_model_destroy(&m);
    vkml_context_destroy(&ctx);
    check_all_zero("after the device-lost context");
}

int main(void)
{
    test_corpus_path(mnist_path, sizeof(mnist_path), "models/mnist-8/model.onnx");
    test_corpus_path(mnist_in, sizeof(mnist_in), "models/mnist-8/test_data_set_0/input_0.pb");
    test_corpus_path(mnist_out, sizeof(mnist_out), "models/mnist-8/test_data_set_0/output_0.pb");
    test_corpus_path(relu_path, sizeof(relu_path), "onnx-node/test_relu/model.onnx");
    test_corpus_path(relu_in, sizeof(relu_in), "onnx-node/test_relu/test_data_set_0/input_0.pb");
    test_corpus_path(relu_out, sizeof(relu_out), "onnx-node/test_relu/test_data_set_0/output_0.pb");
    unsetenv("VKML_TEST_FAIL_ALLOC");
    unsetenv("VKML_TEST_DEVICE_LOST");
    test_counts();
    test_memory_limit();
    test_injected_alloc_failures();
    test_device_lost("submit");
    test_device_lost("wait");
    test_device_lost("submit:1:0");
    test_device_lost("run"); /* the first run on every device, uploads or none */
    if (test_failures)
        fprintf(stderr, "%d check(s) failed\n", test_failures);
    return test_failures ? 1 : 0;
}
