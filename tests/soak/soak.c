/* Soak: SOAK_RUNS runs of an mnist-8 session on the default device, then a
 * SOAK_RUNS-frame pipeline (videotestsrc ! 64x64 RGB ! vkmlinfer colour model !
 * fakesink). Each checks every answer, measures RSS after SOAK_WARMUP runs/frames and at
 * the end (more than 1% growth fails), and that no Vulkan object is left after teardown.
 *
 *   soak [session|pipeline|both [RUNS]]   (default both; tests/soak/run.sh runs it)
 *
 * Environment: VKML_CORPUS (mnist-8), VKML_BUILD_ROOT (the colour model), SOAK_RUNS
 * (default 100000; RUNS overrides), SOAK_WARMUP (default 1000, at most half of SOAK_RUNS). Under
 * AddressSanitizer the RSS bound is reported, not enforced: its quarantine holds freed
 * memory on purpose (LeakSanitizer checks for leaks there).
 */
#include "gstvkmlinfer.h"
#include "gstvkmltensormeta.h"
#include "testutil.h"

#include <gst/gst.h>
#include <malloc.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define SOAK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SOAK_ASAN 1
#endif
#endif
#ifndef SOAK_ASAN
#define SOAK_ASAN 0
#endif

#define RSS_GROWTH_PERCENT 1.0

typedef struct soak_result {
    const char *what;
    long runs;
    double seconds;
    long rss_warm_kib, rss_end_kib;
    int64_t live_after; /* Vulkan objects left after teardown */
} soak_result;

static long env_long(const char *name, long fallback)
{
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 10) : fallback;
}

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, resident = 0;
    if (!f || fscanf(f, "%ld %ld", &size, &resident) != 2)
        resident = -1;
    if (f)
        fclose(f);
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int64_t live_vk_objects(void)
{
    vkml_vk_counts c;
    int64_t total = 0;
    vkml_debug_vk_counts(&c);
    for (int k = 0; k < VKML_VK_OBJECT_KINDS; k++) {
        if (c.live[k])
            fprintf(stderr, "soak: %lld live %s\n", (long long)c.live[k],
                    vkml_vk_object_name((vkml_vk_object)k));
        total += c.live[k];
    }
    return total + (c.memory_bytes != 0);
}

/* ---- session ---- */

static void session_soak(long runs, long warmup, soak_result *r)
{
    char path[4096], in_path[4096];
    vkml_context *ctx = NULL;
    vkml_model *model = NULL;
    vkml_session *s = NULL;
    vkml_tensor in = {0}, out = {0}, first = {0};
    vkml_error err = {0};
    test_corpus_path(path, sizeof(path), "models/mnist-8/model.onnx");
    test_corpus_path(in_path, sizeof(in_path), "models/mnist-8/test_data_set_0/input_0.pb");
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    CHECK_OK(vkml_model_load_file(path, &model, &err), &err);
    CHECK_OK(vkml_session_create(ctx, model, NULL, &s, &err), &err);
    CHECK_OK(vkml_tensor_read_file(in_path, &in, NULL, &err), &err);
    CHECK_OK(vkml_session_alloc_output(s, 0, &out, &err), &err);
    CHECK_OK(vkml_session_alloc_output(s, 0, &first, &err), &err);
    if (test_failures)
        return;
    vkml_device_info info;
    vkml_context_device_info(ctx, vkml_session_device(s), &info, &err);
    printf("soak: session: mnist-8 on '%s', %ld runs\n", info.name, runs);
    double t0 = now_s();
    for (long i = 0; i < runs && !test_failures; i++) {
        vkml_status st = vkml_session_run(s, &in, 1, i ? &out : &first, 1, &err);
        CHECK(st == VKML_OK, "run %ld: %s: %s", i, vkml_status_name(st), err.message);
        if (i)
            CHECK(memcmp(out.data, first.data, out.size) == 0, "run %ld: another answer", i);
        if (i + 1 == warmup)
            r->rss_warm_kib = rss_kib();
    }
    r->seconds = now_s() - t0;
    r->rss_end_kib = rss_kib();
    vkml_tensor_release(&in);
    vkml_tensor_release(&out);
    vkml_tensor_release(&first);
    vkml_session_destroy(&s);
    vkml_model_destroy(&model);
    vkml_context_destroy(&ctx);
    r->live_after = live_vk_objects();
}

/* ---- pipeline ---- */

typedef struct frame_probe {
    long frames, warmup, wrong;
    long rss_warm_kib;
} frame_probe;

/* Every frame leaving vkmlinfer: the colour model must say red (class 0). */
static GstPadProbeReturn on_frame(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
    frame_probe *p = data;
    GstVkmlTensorMeta *meta = gst_buffer_get_vkml_tensor_meta(GST_PAD_PROBE_INFO_BUFFER(info));
    const GstVkmlTensor *t = meta ? gst_vkml_tensor_meta_get(meta, 0) : NULL;
    GstMapInfo map;
    (void)pad;
    if (t && gst_buffer_map(t->data, &map, GST_MAP_READ)) {
        const float *prob = (const float *)map.data;
        gsize n = gst_vkml_tensor_element_count(t);
        for (gsize i = 1; i < n; i++)
            p->wrong += prob[i] >= prob[0];
        gst_buffer_unmap(t->data, &map);
    } else {
        p->wrong++;
    }
    if (++p->frames == p->warmup)
        p->rss_warm_kib = rss_kib();
    return GST_PAD_PROBE_OK;
}

static void pipeline_soak(long frames, long warmup, soak_result *r)
{
    const char *build = getenv("VKML_BUILD_ROOT");
    if (!build) {
        CHECK(build != NULL, "VKML_BUILD_ROOT is not set (the colour model's folder)");
        return;
    }
    gst_init(NULL, NULL);
    CHECK(GST_ELEMENT_REGISTER(vkmlinfer, NULL), "registering vkmlinfer");
    char *launch = g_strdup_printf(
        "videotestsrc pattern=red num-buffers=%ld ! "
        "video/x-raw,format=RGB,width=64,height=64,framerate=30/1 ! "
        "vkmlinfer name=infer model=\"%s/pipelines/color.onnx\" ! fakesink sync=false",
        frames, build);
    GError *gerr = NULL;
    GstElement *pipeline = gst_parse_launch(launch, &gerr);
    g_free(launch);
    CHECK(pipeline && !gerr, "pipeline: %s", gerr ? gerr->message : "?");
    if (!pipeline || gerr)
        return;
    frame_probe probe = {.warmup = warmup};
    GstElement *infer = gst_bin_get_by_name(GST_BIN(pipeline), "infer");
    GstPad *src = gst_element_get_static_pad(infer, "src");
    gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER, on_frame, &probe, NULL);
    gst_object_unref(src);
    gst_object_unref(infer);
    printf("soak: pipeline: %ld frames of 64x64 through the colour model\n", frames);
    double t0 = now_s();
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    GstBus *bus = gst_element_get_bus(pipeline);
    GstMessage *msg =
        gst_bus_timed_pop_filtered(bus, GST_CLOCK_TIME_NONE, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    r->seconds = now_s() - t0;
    r->rss_end_kib = rss_kib();
    CHECK(msg && GST_MESSAGE_TYPE(msg) == GST_MESSAGE_EOS, "pipeline ended with %s",
          msg ? GST_MESSAGE_TYPE_NAME(msg) : "nothing");
    if (msg)
        gst_message_unref(msg);
    gst_object_unref(bus);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
    CHECK(probe.frames == frames, "%ld frames of %ld reached the sink", probe.frames, frames);
    CHECK(probe.wrong == 0, "%ld frames were not classified red", probe.wrong);
    r->rss_warm_kib = probe.rss_warm_kib;
    r->live_after = live_vk_objects();
}

static void report(const soak_result *r)
{
    double growth = r->rss_warm_kib > 0 ? 100.0 * (double)(r->rss_end_kib - r->rss_warm_kib) /
                                              (double)r->rss_warm_kib
                                        : 0;
    printf("soak: %s: %ld runs in %.1f s (%.0f/s); RSS after warm-up %ld KiB, at the end %ld "
           "KiB (%+ld KiB, %+.3f%%); live Vulkan objects after teardown: %lld\n",
           r->what, r->runs, r->seconds, r->seconds > 0 ? (double)r->runs / r->seconds : 0,
           r->rss_warm_kib, r->rss_end_kib, r->rss_end_kib - r->rss_warm_kib, growth,
           (long long)r->live_after);
    CHECK(r->rss_warm_kib > 0, "%s: no RSS after warm-up", r->what);
    CHECK(r->live_after == 0, "%s: %lld Vulkan objects left after teardown", r->what,
          (long long)r->live_after);
    if (SOAK_ASAN)
        printf("soak: AddressSanitizer build: the RSS bound is not enforced\n");
    else
        CHECK(growth <= RSS_GROWTH_PERCENT, "%s: RSS grew %.3f%% after warm-up (limit %.1f%%)",
              r->what, growth, RSS_GROWTH_PERCENT);
}

int main(int argc, char **argv)
{
    /* meson test sets MALLOC_PERTURB_: glibc would then fill lavapipe's 64 MiB memory
     * blocks and make them resident, a baseline that hides what the soak measures. */
    mallopt(M_PERTURB, 0);
    const char *mode = argc > 1 ? argv[1] : "both";
    long runs = argc > 2 ? strtol(argv[2], NULL, 10) : env_long("SOAK_RUNS", 100000);
    long warmup = env_long("SOAK_WARMUP", 1000);
    if (warmup > runs / 2)
        warmup = runs / 2;
    if (runs < 2 || warmup < 1) {
        fprintf(stderr, "soak: SOAK_RUNS must be at least 2\n");
        return 2;
    }
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    if (!ctx)
        return 1;
    test_require_vulkan(ctx);
    vkml_context_destroy(&ctx);
    bool both = strcmp(mode, "both") == 0;
    if (both || strcmp(mode, "session") == 0) {
        soak_result r = {.what = "session", .runs = runs};
        session_soak(runs, warmup, &r);
        report(&r);
    }
    if (both || strcmp(mode, "pipeline") == 0) {
        soak_result r = {.what = "pipeline", .runs = runs};
        pipeline_soak(runs, warmup, &r);
        report(&r);
    }
    printf("soak: %s\n", test_failures ? "FAILED" : "passed");
    return test_failures ? 1 : 0;
}
