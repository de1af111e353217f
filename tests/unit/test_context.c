/* The context's defaults and the loaded model's independence from its file:
 * - the default device is the first discrete/integrated GPU, else the CPU device (never
 *   a Vulkan device on the CPU such as lavapipe), with logical devices too;
 * - a log callback in vkml_context_params receives the library's messages, and no more
 *   once its context is freed;
 * - mnist-8 loaded from a file that is then truncated and rewritten in place runs with
 *   the outputs of a pristine copy (no SIGBUS, no changed weights);
 * - the Vulkan drivers the first context loads stay loaded after it is freed, so that a
 *   context freed while the process exits never unloads one under exit's handlers. */
#include "testutil.h"

#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

/* The index the default must be, from the device list itself. */
static int expected_default(const vkml_context *ctx)
{
    for (int i = 0; i < vkml_context_device_count(ctx); i++) {
        vkml_device_info info;
        vkml_error err = {0};
        if (vkml_context_device_info(ctx, i, &info, &err) == VKML_OK &&
            (info.type == VKML_DEVICE_TYPE_DISCRETE_GPU ||
             info.type == VKML_DEVICE_TYPE_INTEGRATED_GPU))
            return i;
    }
    return VKML_DEVICE_CPU;
}

static void check_default_device(const char *logical)
{
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    if (logical)
        setenv("VKML_VK_LOGICAL_DEVICES", logical, 1);
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    unsetenv("VKML_VK_LOGICAL_DEVICES");
    if (!ctx)
        return;
    test_require_vulkan(ctx);
    int want = expected_default(ctx);
    CHECK(vkml_context_default_device(ctx) == want, "logical %s: default %d, expected %d",
          logical ? logical : "1", vkml_context_default_device(ctx), want);
    int parsed = 99;
    CHECK_OK(vkml_context_parse_device(ctx, "default", &parsed, &err), &err);
    CHECK(parsed == want, "\"default\" parsed as %d, expected %d", parsed, want);
    /* Lavapipe stays reachable by index. */
    CHECK_OK(vkml_context_parse_device(ctx, "0", &parsed, &err), &err);
    CHECK(parsed == 0, "\"0\" parsed as %d", parsed);
    vkml_context_destroy(&ctx);
}

/* Each device's copy queues (vkml_device_info.copy_queues) are what its queue families
 * allow: 0 to 2, on copy engines only where there are some; none under
 * VKML_NO_COPY_QUEUE=1; the CPU device has none. On lavapipe (one queue) every count is 0. */
static void check_copy_queues(bool off)
{
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    if (off)
        setenv("VKML_NO_COPY_QUEUE", "1", 1);
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    unsetenv("VKML_NO_COPY_QUEUE");
    if (!ctx)
        return;
    TEST_FOR_EACH_DEVICE(t, ctx) {
        int i = t.device;
        vkml_device_info info;
        CHECK_OK(vkml_context_device_info(ctx, i, &info, &err), &err);
        bool none = off || info.type == VKML_DEVICE_TYPE_CPU || i == VKML_DEVICE_CPU;
        CHECK(info.copy_queues >= 0 && info.copy_queues <= 2 && (!none || info.copy_queues == 0) &&
                  (!info.copy_engines || info.copy_queues > 0),
              "device %d '%s'%s: %d copy queue(s), engines %d", i, info.name,
              off ? " (VKML_NO_COPY_QUEUE=1)" : "", info.copy_queues, info.copy_engines);
    }
    vkml_context_destroy(&ctx);
}

/* A default session plans on the default device only when no real GPU exists: every
 * part of its plan lies there. */
static void check_default_session(const char *model_path)
{
    vkml_context *ctx = NULL;
    vkml_model *model = NULL;
    vkml_session *s = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    CHECK_OK(vkml_model_load_file(model_path, &model, &err), &err);
    if (ctx && model)
        CHECK_OK(vkml_session_create(ctx, model, NULL, &s, &err), &err);
    if (s && expected_default(ctx) == VKML_DEVICE_CPU) {
        CHECK(vkml_session_device(s) == VKML_DEVICE_CPU, "default session on device %d",
              vkml_session_device(s));
        for (size_t p = 0; p < vkml_session_plan_part_count(s); p++) {
            vkml_plan_part part;
            CHECK(vkml_session_plan_part(s, p, &part) && part.device == VKML_DEVICE_CPU,
                  "plan part %zu on device %d", p, part.device);
        }
    }
    vkml_session_destroy(&s);
    vkml_model_destroy(&model);
    vkml_context_destroy(&ctx);
}

typedef struct log_capture {
    int calls;
    int matched; /* messages containing `want` */
    const char *want;
} log_capture;

static void capture_log(void *user, vkml_log_level level, const char *message)
{
    log_capture *c = user;
    (void)level;
    c->calls++;
    if (c->want && strstr(message, c->want))
        c->matched++;
}

/* Each context has its own log sink; a session's log_user and a model load's own sink
 * route their messages apart; nothing reaches a sink after its context is freed. */
static void check_log_sinks(const char *mnist)
{
    log_capture a = {.want = "wait_spin_us"}, b = {.want = "wait_spin_us"};
    log_capture m = {.want = "no-such-model.onnx"}, s = {.want = "wait_spin_us"};
    vkml_context_params pa = {.disable_vulkan = true,
                              .log_level = VKML_LOG_DEBUG,
                              .log_level_set = true,
                              .log_callback = capture_log,
                              .log_user = &a};
    vkml_context_params pb = pa;
    pb.log_user = &b;
    vkml_context *ca = NULL, *cb = NULL;
    vkml_model *model = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(&pa, &ca, &err), &err);
    CHECK_OK(vkml_context_create(&pb, &cb, &err), &err);

    /* A failing load is logged at debug level, naming the path, to the load's sink. */
    vkml_model_params mp = {.path = "/nonexistent/no-such-model.onnx",
                            .log_callback = capture_log,
                            .log_user = &m,
                            .log_level = VKML_LOG_DEBUG,
                            .log_level_set = true};
    CHECK(vkml_model_load(&mp, &model, &err) == VKML_ERROR_IO, "a missing file: %s", err.message);
    CHECK(m.matched == 1 && a.calls == 0 && b.calls == 0, "load: %d/%d/%d", m.matched, a.calls,
          b.calls);
    CHECK_OK(vkml_model_load_file(mnist, &model, &err), &err);

    /* A refused session: on its context's sink only, or its own log_user's. */
    vkml_session *bad = NULL;
    vkml_session_params sp = {.device = VKML_DEVICE_CPU, .wait_spin_us = VKML_MAX_WAIT_SPIN_US + 1};
    CHECK(vkml_session_create(ca, model, &sp, &bad, &err) == VKML_ERROR_INVALID_ARGUMENT, "%s",
          err.message);
    CHECK(a.matched == 1 && b.matched == 0, "context a's refusal: a %d, b %d", a.matched,
          b.matched);
    sp.log_user = &s;
    CHECK(vkml_session_create(cb, model, &sp, &bad, &err) == VKML_ERROR_INVALID_ARGUMENT, "%s",
          err.message);
    CHECK(s.matched == 1 && a.matched == 1 && b.matched == 0, "session log_user: s %d, a %d, b %d",
          s.matched, a.matched, b.matched);

    /* Destroying a context that a session still uses warns on that context's sink. */
    vkml_session *live = NULL;
    vkml_session_params lp = {.device = VKML_DEVICE_CPU};
    CHECK_OK(vkml_session_create(ca, model, &lp, &live, &err), &err);
    a.want = b.want = "context destroyed while";
    a.matched = b.matched = 0;
    vkml_context_destroy(&ca);
    CHECK(a.matched == 1 && b.matched == 0, "destroy warning: a %d, b %d", a.matched, b.matched);
    vkml_session_destroy(&live);
    vkml_context_destroy(&cb);
    vkml_model_destroy(&model);

    int calls = a.calls + b.calls + s.calls + m.calls;
    vkml_model_load_file("/nonexistent/no-such-model.onnx", &model, &err);
    CHECK(a.calls + b.calls + s.calls + m.calls == calls,
          "a sink was called after its context was freed");
}

static bool copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    bool ok = in && out;
    char buf[65536];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof(buf), in)) > 0)
        ok = fwrite(buf, 1, n, out) == n;
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        ok = false;
    return ok;
}

/* Truncates the file in place (same inode) and fills it with other bytes. */
static void rewrite_in_place(const char *path)
{
    int fd = open(path, O_WRONLY | O_TRUNC);
    CHECK(fd >= 0, "cannot reopen %s", path);
    if (fd < 0)
        return;
    char junk[4096];
    memset(junk, 0x5a, sizeof(junk));
    CHECK(write(fd, junk, 100) == 100, "rewrite failed");
    close(fd);
}

/* Runs mnist-8 on `device` with a fixed input into out[10]. */
static void run_mnist(vkml_context *ctx, vkml_model *model, int device, float *out)
{
    vkml_session_params params = {.device = device};
    vkml_session *s = NULL;
    vkml_error err = {0};
    static float input[28 * 28];
    uint64_t seed = 7;
    for (int i = 0; i < 28 * 28; i++)
        input[i] = test_randf(&seed, 0.0f, 1.0f);
    vkml_tensor in = {.dtype = VKML_DTYPE_FLOAT,
                      .rank = 4,
                      .dims = {1, 1, 28, 28},
                      .data = input,
                      .size = sizeof(input)};
    vkml_tensor o = {.dtype = VKML_DTYPE_FLOAT,
                     .rank = 2,
                     .dims = {1, 10},
                     .data = out,
                     .size = 10 * sizeof(float)};
    memset(out, 0, 10 * sizeof(float));
    CHECK_OK(vkml_session_create(ctx, model, &params, &s, &err), &err);
    if (s)
        CHECK_OK(vkml_session_run(s, &in, 1, &o, 1, &err), &err);
    vkml_session_destroy(&s);
}

static void check_file_rewritten(const char *mnist, int device)
{
    char tmpl[] = "/tmp/vkml-rewrite-XXXXXX";
    CHECK(mkdtemp(tmpl) != NULL, "mkdtemp");
    char path[4200];
    snprintf(path, sizeof(path), "%s/model.onnx", tmpl);
    CHECK(copy_file(mnist, path), "copying %s", mnist);
    vkml_context *ctx = NULL;
    vkml_model *pristine = NULL, *loaded = NULL;
    vkml_error err = {0};
    float want[10], got[10], again[10];
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    CHECK_OK(vkml_model_load_file(mnist, &pristine, &err), &err);
    CHECK_OK(vkml_model_load_file(path, &loaded, &err), &err);
    rewrite_in_place(path); /* after load, before the session: weights read after this */
    if (ctx && pristine && loaded) {
        run_mnist(ctx, pristine, device, want);
        run_mnist(ctx, loaded, device, got);
        rewrite_in_place(path);
        run_mnist(ctx, loaded, device, again);
        CHECK(memcmp(want, got, sizeof(want)) == 0 && memcmp(want, again, sizeof(want)) == 0,
              "device %d: outputs differ after the file was rewritten (%g vs %g)", device,
              (double)want[0], (double)got[0]);
        float sum = 0;
        for (int i = 0; i < 10; i++)
            sum += fabsf(want[i]);
        CHECK(sum > 0, "device %d: mnist gave all zeros", device);
    }
    vkml_model_destroy(&loaded);
    vkml_model_destroy(&pristine);
    vkml_context_destroy(&ctx);
    unlink(path);
    rmdir(tmpl);
}

/* The shared objects mapped now, by name (the program itself has none). */
typedef struct {
    char *names[512];
    int n;
} object_list;

static int add_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    object_list *list = data;
    if (info->dlpi_name && info->dlpi_name[0] && list->n < 512)
        list->names[list->n++] = strdup(info->dlpi_name);
    return 0;
}

static bool listed(const object_list *list, const char *name)
{
    for (int i = 0; i < list->n; i++)
        if (list->names[i] && strcmp(list->names[i], name) == 0)
            return true;
    return false;
}

static void list_free(object_list *list)
{
    for (int i = 0; i < list->n; i++)
        free(list->names[i]);
    list->n = 0;
}

/* Must run before any other context of the process: the objects the first Vulkan
 * instance loads (the drivers) are still mapped once that context is freed. */
static void check_drivers_stay_loaded(void)
{
    static object_list before, during, after;
    dl_iterate_phdr(add_object, &before);
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    if (!ctx)
        return;
    test_require_vulkan(ctx);
    bool vulkan = vkml_context_device_count(ctx) > 0;
    dl_iterate_phdr(add_object, &during);
    vkml_context_destroy(&ctx);
    dl_iterate_phdr(add_object, &after);
    int loaded = 0;
    for (int i = 0; i < during.n; i++) {
        if (listed(&before, during.names[i]))
            continue;
        loaded++;
        CHECK(listed(&after, during.names[i]), "%s, loaded by the first context, was unloaded",
              during.names[i]);
    }
    CHECK(!vulkan || loaded > 0, "a Vulkan device, but its context loaded no driver");
    list_free(&before);
    list_free(&during);
    list_free(&after);
}

int main(void)
{
    char mnist[4096];
    test_corpus_path(mnist, sizeof(mnist), "models/mnist-8/model.onnx");
    check_drivers_stay_loaded();
    check_log_sinks(mnist);
    check_default_device(NULL);
    check_copy_queues(false);
    check_copy_queues(true);
    check_default_device("3");
    check_default_session(mnist);
    check_file_rewritten(mnist, VKML_DEVICE_CPU);
    check_file_rewritten(mnist, 0);
    return test_finish("context");
}
