/* vkmlinfer under faults: a device lost mid-stream posts an error naming the device; a
 * pipeline taken PLAYING -> NULL while frames flow and back, VKML_RESTART_CYCLES times
 * (default 1500), never hangs, never shows a frame from before the stop, and leaves no
 * Vulkan object or memory behind. */
#include <gst/app/gstappsink.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gstvkmlclassify.h"
#include "gstvkmlinfer.h"
#include "gstvkmltensormeta.h"
#include "testutil.h"
#include "gst_testutil.h"

#include <malloc.h>
#include <string.h>
#include <unistd.h>

static gchar *color_path;

/* The colour model's classes (pipelines/make_color_model.py) and videotestsrc's
 * patterns that show them. */
static const struct
{
  const gchar *pattern;
  gint index;
} colours[] = {
  {"red", 0}, {"green", 1}, {"blue", 2}, {"white", 6}, {"black", 7},
};

static void
setup (void)
{
  const gchar *build = g_getenv ("VKML_BUILD_ROOT");
  vkml_context *ctx = NULL;
  vkml_error err = { 0 };

  (void) test_failures;         /* testutil.h's counter; GstCheck counts here */
  /* meson test sets MALLOC_PERTURB_, so glibc fills every freed block: lavapipe's 64 MiB
   * device memory blocks, three per start, made a cycle 6x slower. */
  mallopt (M_PERTURB, 0);
  /* One malloc arena: each new thread arena touches about 0.5 MiB the first time a thread
   * meets contention, at a random cycle, which the restart test's RSS bound would read as
   * growth; with one arena RSS measures what stays allocated. */
  mallopt (M_ARENA_MAX, 1);
  if (!build) {
    fprintf (stderr, "VKML_BUILD_ROOT is not set: run through meson test\n");
    exit (1);
  }
  color_path = g_build_filename (build, "pipelines", "color.onnx", NULL);
  if (vkml_context_create (NULL, &ctx, &err) != VKML_OK) {
    fprintf (stderr, "vkml_context_create: %s\n", err.message);
    exit (1);
  }
  test_require_vulkan (ctx);
  vkml_context_destroy (&ctx);
}

static void
register_elements (void)
{
  fail_unless (GST_ELEMENT_REGISTER (vkmlinfer, NULL));
}

/* A black 64x64 RGB frame. */
static GstBuffer *
black_frame (void)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 64 * 64 * 3, NULL);

  gst_buffer_memset (buf, 0, 0, 64 * 64 * 3);
  return buf;
}

static gint64
live_vk_objects_in (const vkml_vk_counts * c)
{
  gint64 total = 0;
  gint k;

  for (k = 0; k < VKML_VK_OBJECT_KINDS; k++)
    total += c->live[k];
  return total;
}

static gint64
live_vk_objects (void)
{
  vkml_vk_counts c;

  vkml_debug_vk_counts (&c);
  return live_vk_objects_in (&c);
}

/* Index of the largest of the float tensor "probabilities" of @buf. */
static gint
buffer_class (GstBuffer * buf)
{
  GstVkmlTensorMeta *meta = gst_buffer_get_vkml_tensor_meta (buf);
  const GstVkmlTensor *t;
  GstMapInfo map;
  const gfloat *p;
  gsize i, n;
  gint best = 0;

  fail_unless (meta != NULL, "a frame without tensors");
  t = gst_vkml_tensor_meta_get_by_name (meta, "probabilities");
  fail_unless (t != NULL && t->dtype == VKML_DTYPE_FLOAT);
  n = gst_vkml_tensor_element_count (t);
  fail_unless (gst_buffer_map (t->data, &map, GST_MAP_READ));
  p = (const gfloat *) map.data;
  for (i = 1; i < n; i++)
    if (p[i] > p[best])
      best = (gint) i;
  gst_buffer_unmap (t->data, &map);
  return best;
}

/* One cycle: the source shows colour @c, the pipeline goes PLAYING, @frames frames are
 * checked at the sink, then NULL while the source keeps pushing (the sink keeps the two
 * newest frames and drops older ones, so the streaming thread never waits: the stop
 * finds it in videotestsrc, the converter, a vkml run or the sink). */
static void
run_cycle (GstElement * pipeline, GstElement * src, GstAppSink * sink,
    guint cycle, guint c, guint frames)
{
  guint i;

  gst_util_set_object_arg (G_OBJECT (src), "pattern", colours[c].pattern);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE, "cycle %u: PLAYING failed", cycle);
  for (i = 0; i < frames; i++) {
    GstSample *sample = gst_app_sink_try_pull_sample (sink, 20 * GST_SECOND);
    gint got;

    fail_unless (sample != NULL, "cycle %u: no frame %u within 20 s", cycle, i);
    got = buffer_class (gst_sample_get_buffer (sample));
    fail_unless_equals_int_hex (got, colours[c].index);
    if (got != colours[c].index)
      break;
    gst_sample_unref (sample);
  }
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
}

static guint
restart_cycles (void)
{
  const gchar *env = g_getenv ("VKML_RESTART_CYCLES");

  return env ? (guint) g_ascii_strtoull (env, NULL, 10) : 1500;
}

/* PLAYING -> NULL mid-stream and back: every frame after a restart shows the new colour,
 * no error on the bus, the same Vulkan objects after every stop (the element keeps its
 * context; its sessions are gone), none once the pipeline is freed, RSS flat after a
 * warm-up. */
GST_START_TEST (test_restart_mid_stream)
{
  guint cycles = restart_cycles (), warmup = MIN (cycles * 6 / 10, 800), cycle;
  gchar *launch = g_strdup_printf ("videotestsrc name=src ! "
      "video/x-raw,format=RGB,width=64,height=64,framerate=30/1 ! "
      "vkmlinfer model=\"%s\" ! appsink name=sink sync=false max-buffers=2 drop=true",
      color_path);
  GstElement *pipeline = gst_parse_launch (launch, NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstBus *bus = gst_element_get_bus (pipeline);
  gsize rss_warm = 0, rss_end;
  vkml_vk_counts stopped, now;
  gint64 t0 = g_get_monotonic_time ();
  GstMessage *msg;

  g_free (launch);
  fail_unless (pipeline && src && sink);
  for (cycle = 0; cycle < cycles; cycle++) {
    run_cycle (pipeline, src, GST_APP_SINK (sink), cycle,
        cycle % G_N_ELEMENTS (colours), 2 + cycle % 3);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    fail_unless (msg == NULL, "cycle %u: %" GST_PTR_FORMAT, cycle, msg);
    gst_bus_set_flushing (bus, TRUE);
    gst_bus_set_flushing (bus, FALSE);
    if (cycle == 0)
      vkml_debug_vk_counts (&stopped);
    vkml_debug_vk_counts (&now);
    fail_unless (memcmp (&now, &stopped, sizeof (now)) == 0,
        "cycle %u: %" G_GINT64_FORMAT " live Vulkan objects, %" G_GINT64_FORMAT
        " after the first stop", cycle, live_vk_objects (),
        live_vk_objects_in (&stopped));
    if (cycle + 1 == warmup)
      rss_warm = gst_test_rss_bytes ();
    if (g_getenv ("VKML_RESTART_TRACE") && cycle % 250 == 0)
      g_print ("cycle %u: RSS %zu KiB\n", cycle, gst_test_rss_bytes () / 1024);
  }
  rss_end = gst_test_rss_bytes ();
  g_print
      ("restart: %u cycles in %.1f s; RSS after %u: %zu KiB, at the end: %zu "
      "KiB\n", cycles, (g_get_monotonic_time () - t0) / 1e6, warmup,
      rss_warm / 1024, rss_end / 1024);
  /* Allocator caches settle during the warm-up (800 cycles: since frames in flight and the
   * model-swap worker, thread arenas grow in steps for about 750 restarts here, then RSS
   * stays flat to 4,000); a leak of even 1 KiB per cycle would exceed this bound over the
   * 700 cycles after it. */
  fail_unless (!RSS_BOUND_ENFORCED || rss_end <= rss_warm + 512 * 1024,
      "RSS grew from %zu to %zu KiB", rss_warm / 1024, rss_end / 1024);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  fail_unless_equals_int64 (live_vk_objects (), 0);
}

GST_END_TEST;

/* The device reports VK_ERROR_DEVICE_LOST at the first submit of a session run (not at
 * the staging uploads a discrete GPU makes when the session is created, which lavapipe
 * does not: "run", not "submit", so the same frame fails on every device): the frame
 * fails with a RESOURCE error naming the device; a new element (a fresh context) works
 * again. */
GST_START_TEST (test_device_lost_posts_error)
{
  /* max-in-flight=1: the frame's own push reports its failed run */
  gchar *launch = g_strdup_printf ("vkmlinfer model=\"%s\" device=0 "
      "max-in-flight=1", color_path);
  GstHarness *h;
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *gerr = NULL;
  gchar *debug = NULL;
  vkml_context *ctx = NULL;
  vkml_device_info info;
  vkml_error err = { 0 };
  GstBuffer *out;

  fail_unless (vkml_context_create (NULL, &ctx, &err) == VKML_OK);
  fail_unless (vkml_context_device_info (ctx, 0, &info, &err) == VKML_OK);
  vkml_context_destroy (&ctx);

  g_setenv ("VKML_TEST_DEVICE_LOST", "run", TRUE);
  h = gst_harness_new_parse (launch);
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=RGB,width=64,height=64,framerate=30/1");
  g_unsetenv ("VKML_TEST_DEVICE_LOST");
  fail_unless_equals_int (gst_harness_push (h, black_frame ()), GST_FLOW_ERROR);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error message");
  gst_message_parse_error (msg, &gerr, &debug);
  fail_unless (g_error_matches (gerr, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_FAILED), "%s", gerr->message);
  fail_unless (strstr (gerr->message, info.name) != NULL, "%s", gerr->message);
  fail_unless (strstr (gerr->message, "lost") != NULL, "%s", gerr->message);
  g_print ("device lost: %s\n(%s)\n", gerr->message, debug);
  g_error_free (gerr);
  g_free (debug);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  fail_unless_equals_int64 (live_vk_objects (), 0);

  h = gst_harness_new_parse (launch);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=RGB,width=64,height=64,framerate=30/1");
  out = gst_harness_push_and_pull (h, black_frame ());
  fail_unless (out != NULL);
  fail_unless_equals_int (buffer_class (out), 7);       /* black */
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_free (launch);
}

GST_END_TEST;

static Suite *
faults_suite (void)
{
  Suite *s = suite_create ("vkmlinfer-faults");
  TCase *tc = tcase_create ("faults");

  setup ();
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 280);
  tcase_add_checked_fixture (tc, register_elements, NULL);
  tcase_add_test (tc, test_device_lost_posts_error);
  tcase_add_test (tc, test_restart_mid_stream);
  return s;
}

GST_CHECK_MAIN (faults);
