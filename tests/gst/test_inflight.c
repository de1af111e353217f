/* vkmlinfer's streaming behaviour in GstHarness, with the colour model (each frame's
 * class, from its solid colour, tells the frames apart): frames in flight and
 * inference-interval keep order, timestamps and the right meta per frame; a flush in
 * flight drops the held frames; EOS comes after the last frame; the LATENCY answer; QoS
 * skips; the model swapped while playing (loaded aside while frames flow, superseded,
 * stopped while pending, or refused when it cannot load); the input and output pools
 * recycled; the model file rewritten under a running element; libvkml's log in the "vkml" debug category. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gstvkmlinfer.h"
#include "gstvkmltensormeta.h"
#include "testutil.h"

#include <glib/gstdio.h>

#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#define FRAME_NS (GST_SECOND / 30)
#define CAPS "video/x-raw,format=RGB,width=64,height=64,framerate=30/1"

static gchar *color_path;
static gchar *mnist_path;
static gchar *ballast_path;     /* identity [1,3,8,6] + 32 MiB of weights: slow to load */

/* The colour model's classes (pipelines/make_color_model.py) and their colours. */
static const struct
{
  guint8 r, g, b;
  gint index;
} colours[] = {
  {255, 0, 0, 0}, {0, 255, 0, 1}, {0, 0, 255, 2}, {255, 255, 255, 6},
  {0, 0, 0, 7},
};

#define N_COLOURS G_N_ELEMENTS (colours)

static void
setup (void)
{
  const gchar *build = g_getenv ("VKML_BUILD_ROOT");
  char buf[4096];
  vkml_context *ctx = NULL;
  vkml_error err = { 0 };

  (void) test_failures;         /* testutil.h's counter; GstCheck counts here */
  if (!build) {
    fprintf (stderr, "VKML_BUILD_ROOT is not set: run through meson test\n");
    exit (1);
  }
  color_path = g_build_filename (build, "pipelines", "color.onnx", NULL);
  ballast_path = g_build_filename (build, "tests", "gst", "id-ballast.onnx",
      NULL);
  mnist_path = g_strdup (test_corpus_path (buf, sizeof (buf),
          "models/mnist-8/model.onnx"));
  if (vkml_context_create (NULL, &ctx, &err) != VKML_OK) {
    fprintf (stderr, "vkml_context_create: %s\n", err.message);
    exit (1);
  }
  test_require_vulkan (ctx);    /* the tests name device 0 (lavapipe in CI) */
  vkml_context_destroy (&ctx);
}

/* Frame @i: a 64x64 RGB frame of colour i % N_COLOURS, pts i frames, one frame long. */
static GstBuffer *
frame (guint i)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 64 * 64 * 3, NULL);
  GstMapInfo map;
  gsize p;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (p = 0; p < 64 * 64; p++) {
    map.data[3 * p] = colours[i % N_COLOURS].r;
    map.data[3 * p + 1] = colours[i % N_COLOURS].g;
    map.data[3 * p + 2] = colours[i % N_COLOURS].b;
  }
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = i * FRAME_NS;
  GST_BUFFER_DURATION (buf) = FRAME_NS;
  return buf;
}

/* Index of the largest "probabilities" value of @buf's meta; -1 without a meta. */
static gint
buffer_class (GstBuffer * buf)
{
  GstVkmlTensorMeta *meta = gst_buffer_get_vkml_tensor_meta (buf);
  const GstVkmlTensor *t;
  GstMapInfo map;
  const gfloat *p;
  gsize i, n;
  gint best = 0;

  if (!meta)
    return -1;
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

static GstHarness *
harness (const gchar * props)
{
  gchar *launch = g_strdup_printf ("vkmlinfer model=\"%s\" device=0 %s",
      color_path, props);
  GstHarness *h = gst_harness_new_parse (launch);

  g_free (launch);
  gst_harness_set_src_caps_str (h, CAPS);
  return h;
}

/* Pulls frame @i: its pts, and with @inferred the class of its colour (else no meta). */
static void
pull_frame (GstHarness * h, guint i, gboolean inferred)
{
  GstBuffer *out = gst_harness_pull (h);

  fail_unless (out != NULL, "frame %u did not come out", i);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * FRAME_NS);
  fail_unless_equals_uint64 (GST_BUFFER_DURATION (out), FRAME_NS);
  fail_unless_equals_int (buffer_class (out),
      inferred ? colours[i % N_COLOURS].index : -1);
  gst_buffer_unref (out);
}

/* The harness's vkmlinfer (h->element is the bin around it). */
static GstElement *
infer_element (GstHarness * h)
{
  GstElement *e = gst_harness_find_element (h, "vkmlinfer");

  fail_unless (e != NULL);
  gst_object_unref (e);         /* the bin keeps it */
  return e;
}

static guint64
uint64_prop (GstHarness * h, const gchar * name)
{
  guint64 v = 0;

  g_object_get (infer_element (h), name, &v, NULL);
  return v;
}

static guint
uint_prop (GstHarness * h, const gchar * name)
{
  guint v = 0;

  g_object_get (infer_element (h), name, &v, NULL);
  return v;
}

/* Waits (at most 10 s) until an EOS event came out, and checks no buffer is left. */
static void
expect_eos_last (GstHarness * h)
{
  GstEvent *ev;
  gboolean eos = FALSE;

  while (!eos && (ev = gst_harness_pull_event (h))) {
    eos = GST_EVENT_TYPE (ev) == GST_EVENT_EOS;
    gst_event_unref (ev);
  }
  fail_unless (eos, "no EOS came out");
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
}

/* Pushes @n frames and EOS; they come out in order, each with its own colour's class and
 * its timestamps, EOS after the last, all of them counted as processed. */
static void
stream_in_order (GstHarness * h, guint n)
{
  guint i;

  for (i = 0; i < n; i++)
    fail_unless_equals_int (gst_harness_push (h, frame (i)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (i = 0; i < n; i++)
    pull_frame (h, i, TRUE);
  expect_eos_last (h);
  fail_unless_equals_uint64 (uint64_prop (h, "frames-processed"), n);
}

/* 4 in flight: 40 frames in order (stream_in_order). */
GST_START_TEST (test_in_flight_order)
{
  GstHarness *h = harness ("max-in-flight=4");

  stream_in_order (h, 40);
  fail_unless (uint64_prop (h, "latency-last-us") > 0);
  fail_unless (uint64_prop (h, "latency-mean-us") > 0);
  gst_harness_teardown (h);
}

GST_END_TEST;

static gint dp_copies, dp_lanes;

/* Counts the plan's log lines of a data-parallel session over two devices with 4 lanes. */
static void
count_dp_log (GstDebugCategory * category, G_GNUC_UNUSED GstDebugLevel level,
    G_GNUC_UNUSED const gchar * file, G_GNUC_UNUSED const gchar * function,
    G_GNUC_UNUSED gint line, G_GNUC_UNUSED GObject * object,
    GstDebugMessage * message, G_GNUC_UNUSED gpointer user)
{
  const gchar *text = gst_debug_message_get (message);

  if (!g_str_equal (gst_debug_category_get_name (category), "vkmlinfer")
      || !text)
    return;
  if (strstr (text, "data parallel: copy 2 of 2 on device 1"))
    g_atomic_int_inc (&dp_copies);
  if (strstr (text, ", 4 run(s) in flight"))
    g_atomic_int_inc (&dp_lanes);
}

/* data-parallel=true over lavapipe opened twice (VKML_VK_LOGICAL_DEVICES=2, read when
 * the element opens its context): the plan puts a copy on each device (the debug log
 * says so) and keeps max-in-flight 3 rounded up to 4 frames in flight, as libvkml rounds
 * its lanes; the frames alternate between the copies and still come out in order, each
 * with its own colour's class. */
GST_START_TEST (test_data_parallel)
{
  gchar *launch;
  GstHarness *h;
  gboolean dp = FALSE;

  gst_debug_set_threshold_for_name ("vkmlinfer", GST_LEVEL_INFO);
  gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (count_dp_log, NULL, NULL);

  g_setenv ("VKML_VK_LOGICAL_DEVICES", "2", TRUE);
  launch = g_strdup_printf ("vkmlinfer model=\"%s\" device=0,1 "
      "data-parallel=true max-in-flight=3", color_path);
  h = gst_harness_new_parse (launch);
  g_free (launch);
  gst_harness_set_src_caps_str (h, CAPS);
  g_object_get (infer_element (h), "data-parallel", &dp, NULL);
  fail_unless (dp);
  stream_in_order (h, 24);
  gst_debug_remove_log_function (count_dp_log);
  fail_unless (g_atomic_int_get (&dp_copies) >= 1,
      "no copy on device 1 logged");
  fail_unless (g_atomic_int_get (&dp_lanes) >= 1, "not 4 runs in flight");
  gst_harness_teardown (h);
  g_unsetenv ("VKML_VK_LOGICAL_DEVICES");
}

GST_END_TEST;

/* inference-interval=3: frames 0, 3, 6, ... carry the meta; the others pass without. */
GST_START_TEST (test_interval)
{
  GstHarness *h = harness ("inference-interval=3 max-in-flight=2");
  guint i, n = 14;

  for (i = 0; i < n; i++)
    fail_unless_equals_int (gst_harness_push (h, frame (i)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (i = 0; i < n; i++)
    pull_frame (h, i, i % 3 == 0);
  expect_eos_last (h);
  fail_unless_equals_uint64 (uint64_prop (h, "frames-processed"), 5);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Flushes with frames in flight, 50 times: whatever was held is dropped (never pushed
 * after the flush), and the frames after the last come out in order. */
GST_START_TEST (test_flush_in_flight)
{
  GstHarness *h = harness ("max-in-flight=8");
  GstBuffer *out;
  GstSegment segment;
  guint i, round;

  gst_segment_init (&segment, GST_FORMAT_TIME);
  for (round = 0; round < 50; round++) {
    for (i = 0; i < 6; i++)
      fail_unless_equals_int (gst_harness_push (h, frame (i)), GST_FLOW_OK);
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
    /* what came out before the flush, the harness dropped with it or still holds */
    while ((out = gst_harness_try_pull (h)))
      gst_buffer_unref (out);
  }
  for (i = 10; i < 13; i++)
    fail_unless_equals_int (gst_harness_push (h, frame (i)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (i = 10; i < 13; i++)
    pull_frame (h, i, TRUE);
  expect_eos_last (h);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Teardown (PLAYING -> NULL) with frames in flight: no hang, nothing leaked (LSan). */
GST_START_TEST (test_stop_in_flight)
{
  GstHarness *h = harness ("max-in-flight=16");
  guint i;

  for (i = 0; i < 16; i++)
    fail_unless_equals_int (gst_harness_push (h, frame (i)), GST_FLOW_OK);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* LATENCY: upstream's plus the mean run latency (min); upstream's unbounded max stays
 * unbounded (the harness answers no max). The first run posts one LATENCY message (the
 * latency known so far was 0), the runs after it none until the next query. */
GST_START_TEST (test_latency_query)
{
  GstHarness *h = harness ("max-in-flight=3");
  GstQuery *q = gst_query_new_latency ();
  GstBus *bus = gst_bus_new ();
  GstClockTime min, max, mean;
  GstMessage *msg;
  gboolean live;
  guint i, n_latency = 0;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_upstream_latency (h, 5 * GST_MSECOND);
  for (i = 0; i < 5; i++)
    fail_unless_equals_int (gst_harness_push (h, frame (i)), GST_FLOW_OK);
  for (i = 0; i < 5; i++)
    pull_frame (h, i, TRUE);
  mean = uint64_prop (h, "latency-mean-us") * GST_USECOND;
  fail_unless (mean > 0);
  fail_unless (gst_pad_peer_query (h->sinkpad, q));
  gst_query_parse_latency (q, &live, &min, &max);
  fail_unless_equals_uint64 (min, 5 * GST_MSECOND + mean);
  fail_unless_equals_uint64 (max, GST_CLOCK_TIME_NONE);
  gst_query_unref (q);
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_LATENCY))) {
    n_latency++;
    gst_message_unref (msg);
  }
  fail_unless_equals_int (n_latency, 1);
  gst_element_set_bus (h->element, NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* QoS: downstream reports running time 1 s as the earliest it can still show; frames
 * at or before it pass without inference and are counted; later ones are inferred. */
GST_START_TEST (test_qos_skip)
{
  GstHarness *h = harness ("max-in-flight=2");
  guint i;

  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_qos (GST_QOS_TYPE_UNDERFLOW, 0.5, 100 * GST_MSECOND,
              900 * GST_MSECOND)));
  /* frames 0..30 are at or before 1 s (30 * 33.3 ms = 1 s) */
  for (i = 25; i < 35; i++)
    fail_unless_equals_int (gst_harness_push (h, frame (i)), GST_FLOW_OK);
  for (i = 25; i < 35; i++)
    pull_frame (h, i, i > 30);
  fail_unless_equals_uint64 (uint64_prop (h, "frames-skipped-qos"), 6);
  fail_unless_equals_uint64 (uint64_prop (h, "frames-processed"), 4);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The model a frame ran on: 0 the colour model (its class checked), 1 the ballast
 * identity model (its output checked: frame @i's colour, and the sum of the 32 MiB of
 * weights), 2 mnist-8 (ten scores); fails on anything else. */
static gint
frame_model (GstBuffer * out, guint i)
{
  GstVkmlTensorMeta *meta = gst_buffer_get_vkml_tensor_meta (out);
  const GstVkmlTensor *t;
  GstMapInfo map;
  const gfloat *p;

  fail_unless (meta != NULL, "frame %u has no meta", i);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * FRAME_NS);
  if (gst_vkml_tensor_meta_get_by_name (meta, "probabilities")) {
    fail_unless_equals_int (buffer_class (out), colours[i % N_COLOURS].index);
    return 0;
  }
  t = gst_vkml_tensor_meta_get_by_name (meta, "out");
  if (!t) {
    fail_unless (meta->n_tensors == 1, "frame %u: an unknown meta", i);
    fail_unless_equals_uint64 (gst_vkml_tensor_element_count
        (gst_vkml_tensor_meta_get (meta, 0)), 10);
    return 2;
  }
  /* [1,3,8,6]: the frame's solid colour / 255 (the default scale), planes r, g, b */
  fail_unless_equals_uint64 (gst_vkml_tensor_element_count (t), 3 * 8 * 6);
  fail_unless (gst_buffer_map (t->data, &map, GST_MAP_READ));
  p = (const gfloat *) map.data;
  fail_unless (fabsf (p[0] - colours[i % N_COLOURS].r / 255.0f) < 1e-6f);
  fail_unless (fabsf (p[48] - colours[i % N_COLOURS].g / 255.0f) < 1e-6f);
  fail_unless (fabsf (p[96 + 47] - colours[i % N_COLOURS].b / 255.0f) < 1e-6f);
  gst_buffer_unmap (t->data, &map);
  t = gst_vkml_tensor_meta_get_by_name (meta, "ballast");
  fail_unless (t != NULL);
  fail_unless (gst_buffer_map (t->data, &map, GST_MAP_READ));
  fail_unless_equals_float (((const gfloat *) map.data)[0], 32.0 * 1024 * 256);
  gst_buffer_unmap (t->data, &map);
  return 1;
}

static gchar *
model_prop (GstHarness * h)
{
  gchar *model = NULL;

  g_object_get (infer_element (h), "model", &model, NULL);
  return model;
}

/* Frames @i .. @end - 1 in and out, each run on model @m (frame_model's numbering). */
static void
run_on_model (GstHarness * h, guint i, guint end, gint m)
{
  for (; i < end; i++) {
    GstBuffer *out;

    fail_unless_equals_int (gst_harness_push (h, frame (i)), GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    fail_unless_equals_int (frame_model (out, i), m);
    gst_buffer_unref (out);
  }
}

/* Pushes and pulls frames from @i on until one ran on a model other than the colour
 * model (at most 60 s); returns the next frame's number. Counts the frames that came
 * out on the colour model while 'model' still read the colour model's path (the swap
 * pending) into *old_while_pending. */
static guint
run_until_swapped (GstHarness * h, guint i, gint * new_model,
    guint * old_while_pending)
{
  gint64 end = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  GstBuffer *out;
  gchar *model;
  gint m;

  for (;; i++) {
    fail_unless (g_get_monotonic_time () < end, "no swap within 60 s");
    model = model_prop (h);
    fail_unless_equals_int (gst_harness_push (h, frame (i)), GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out != NULL, "frame %u did not come out", i);
    m = frame_model (out, i);
    gst_buffer_unref (out);
    if (m == 0 && g_strcmp0 (model, color_path) == 0)
      (*old_while_pending)++;
    g_free (model);
    if (m != 0) {
      *new_model = m;
      return i + 1;
    }
  }
}

/* 'model' set while PLAYING with frames in flight: the frames before it finish on the
 * colour model; once mnist-8 is ready (loaded aside) every frame carries its single
 * [1,10] output, its input geometry 28x28 (the pre-processing planned for the new model
 * and the current caps); none is lost, order and timestamps kept. */
GST_START_TEST (test_model_swap)
{
  GstHarness *h = harness ("max-in-flight=4");
  GstVkmlTensorMeta *meta;
  GstBuffer *out;
  gchar *model = NULL;
  guint i, pending = 0;
  gint m = -1;

  for (i = 0; i < 3; i++)
    fail_unless_equals_int (gst_harness_push (h, frame (i)), GST_FLOW_OK);
  g_object_set (infer_element (h), "model", mnist_path, NULL);
  for (i = 3; i < 6; i++)
    fail_unless_equals_int (gst_harness_push (h, frame (i)), GST_FLOW_OK);
  for (i = 0; i < 3; i++)
    pull_frame (h, i, TRUE);
  /* 3 .. 5: on the colour model, or mnist-8 from the first frame after it was ready */
  for (i = 3; i < 6; i++) {
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    fail_unless (m != 2 || frame_model (out, i) == 2, "back to the old model");
    m = frame_model (out, i);
    gst_buffer_unref (out);
  }
  if (m != 2)
    i = run_until_swapped (h, i, &m, &pending);
  fail_unless_equals_int (m, 2);
  for (; i < 12; i++) {
    fail_unless_equals_int (gst_harness_push (h, frame (i)), GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    fail_unless_equals_int (frame_model (out, i), 2);
    meta = gst_buffer_get_vkml_tensor_meta (out);
    /* the pre-processing was planned again for mnist-8's [1,1,28,28] input */
    fail_unless (meta->has_geometry);
    fail_unless_equals_int (meta->geometry.input_width, 28);
    fail_unless_equals_int (meta->geometry.input_height, 28);
    gst_buffer_unref (out);
  }
  g_object_get (infer_element (h), "model", &model, NULL);
  fail_unless_equals_string (model, mnist_path);
  g_free (model);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A model that cannot load, set while PLAYING: a warning, and the running model stays. */
GST_START_TEST (test_model_swap_refused)
{
  GstHarness *h = harness ("");
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;
  gchar *model = NULL;

  gst_element_set_bus (h->element, bus);
  fail_unless_equals_int (gst_harness_push (h, frame (0)), GST_FLOW_OK);
  pull_frame (h, 0, TRUE);
  g_object_set (infer_element (h), "model", "/nonexistent/other.onnx", NULL);
  fail_unless_equals_int (gst_harness_push (h, frame (1)), GST_FLOW_OK);
  pull_frame (h, 1, TRUE);
  /* the worker posts it once the load failed; frames flow meanwhile */
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "no warning");
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless (strstr (err->message, "/nonexistent/other.onnx") != NULL,
      "%s", err->message);
  fail_unless (strstr (err->message, "the running model stays") != NULL);
  g_clear_error (&err);
  gst_message_unref (msg);
  fail_unless_equals_int (gst_harness_push (h, frame (2)), GST_FLOW_OK);
  pull_frame (h, 2, TRUE);
  g_object_get (infer_element (h), "model", &model, NULL);
  fail_unless_equals_string (model, color_path);
  g_free (model);
  gst_element_set_bus (h->element, NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A swap to a model slow to load (32 MiB of weights) while frames are pushed one after
 * the other: the frames keep coming out on the old model while it loads aside (with
 * the old, synchronous swap the first frame after the set waited for the load and ran
 * on the new model), every frame in order, none lost; after the first frame on the new
 * model every frame carries its outputs, and 'model' reads its path. */
GST_START_TEST (test_model_swap_aside)
{
  GstHarness *h = harness ("max-in-flight=2");
  guint i, pending = 0;
  gint m = -1;
  gchar *model;

  for (i = 0; i < 3; i++) {
    fail_unless_equals_int (gst_harness_push (h, frame (i)), GST_FLOW_OK);
    pull_frame (h, i, TRUE);
  }
  g_object_set (infer_element (h), "model", ballast_path, NULL);
  i = run_until_swapped (h, i, &m, &pending);
  fail_unless_equals_int (m, 1);
  fail_unless (pending >= 1, "no frame came out while the new model loaded");
  GST_INFO ("%u frames on the old model while the new one loaded", pending);
  model = model_prop (h);
  fail_unless_equals_string (model, ballast_path);
  g_free (model);
  run_on_model (h, i, 40, 1);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Two swaps, the second set while the first (slow) one loads: the second wins, no frame
 * ever runs on the first; frames flow in order throughout. */
GST_START_TEST (test_model_swap_superseded)
{
  GstHarness *h = harness ("max-in-flight=3");
  guint i = 0, pending = 0;
  GstBuffer *out;
  gint m = -1;
  gchar *model;

  fail_unless_equals_int (gst_harness_push (h, frame (i)), GST_FLOW_OK);
  pull_frame (h, i++, TRUE);
  g_object_set (infer_element (h), "model", ballast_path, NULL);
  /* this frame hands the ballast model to the worker */
  fail_unless_equals_int (gst_harness_push (h, frame (i)), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  fail_unless_equals_int (frame_model (out, i++), 0);
  gst_buffer_unref (out);
  g_object_set (infer_element (h), "model", mnist_path, NULL);
  i = run_until_swapped (h, i, &m, &pending);
  fail_unless_equals_int (m, 2);
  model = model_prop (h);
  fail_unless_equals_string (model, mnist_path);
  g_free (model);
  /* the ballast model's result, if it came, was dropped: mnist-8 from here on */
  run_on_model (h, i, 30, 2);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Stopped while the slow model loads aside: the stop waits for the worker and frees
 * its result (no leak under ASan/LSan and valgrind); the requested model is the next
 * start's. */
GST_START_TEST (test_model_swap_stop_pending)
{
  GstHarness *h = harness ("");
  gchar *model;

  fail_unless_equals_int (gst_harness_push (h, frame (0)), GST_FLOW_OK);
  pull_frame (h, 0, TRUE);
  g_object_set (infer_element (h), "model", ballast_path, NULL);
  fail_unless_equals_int (gst_harness_push (h, frame (1)), GST_FLOW_OK);
  pull_frame (h, 1, TRUE);      /* on the old model: the new one loads aside */
  fail_unless_equals_int (gst_element_set_state (h->element, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  model = model_prop (h);
  fail_unless_equals_string (model, ballast_path);
  g_free (model);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The input and output pools: over 300 frames (two in flight) the buffers are
 * recycled: 'pool-buffers' stays within what the frames held at once need (the colour
 * model has one output: 3 frames x (input + output)). */
GST_START_TEST (test_pool_reuse)
{
  GstHarness *h = harness ("max-in-flight=2");
  guint i, after_warmup = 0, made;

  fail_unless_equals_int (uint_prop (h, "pool-buffers"), 0);
  for (i = 0; i < 300; i++) {
    fail_unless_equals_int (gst_harness_push (h, frame (i)), GST_FLOW_OK);
    pull_frame (h, i, TRUE);
    if (i == 19)
      after_warmup = uint_prop (h, "pool-buffers");
  }
  made = uint_prop (h, "pool-buffers");
  GST_INFO ("pool buffers: %u after 20 frames, %u after 300", after_warmup,
      made);
  fail_unless (after_warmup >= 2, "the pools made %u buffers", after_warmup);
  /* one input and one output buffer per frame held: the two in flight, and the one the
   * task has pushed and not yet freed (its input) when the next frame is submitted;
   * without the pools 300 frames would have made 600 */
  fail_unless (made <= 6, "%u buffers for 300 frames, 2 in flight", made);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The model file truncated and rewritten in place (`cp other model.onnx`) under a
 * running element: no crash, the same answers. */
GST_START_TEST (test_model_file_rewritten)
{
  gchar *dir = g_dir_make_tmp ("vkml-inflight-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "model.onnx", NULL);
  gchar *bytes = NULL, *launch;
  gsize size = 0;
  GstHarness *h;
  gint fd;
  guint i;

  fail_unless (g_file_get_contents (color_path, &bytes, &size, NULL));
  fail_unless (g_file_set_contents (path, bytes, (gssize) size, NULL));
  launch = g_strdup_printf ("vkmlinfer model=\"%s\" device=0", path);
  h = gst_harness_new_parse (launch);
  gst_harness_set_src_caps_str (h, CAPS);
  fail_unless_equals_int (gst_harness_push (h, frame (0)), GST_FLOW_OK);
  pull_frame (h, 0, TRUE);
  fd = open (path, O_WRONLY | O_TRUNC);
  fail_unless (fd >= 0);
  fail_unless (write (fd, bytes, size / 3) == (gssize) (size / 3));
  memset (bytes, 0x5a, size);
  fail_unless (write (fd, bytes, 64) == 64);
  close (fd);
  for (i = 1; i < 6; i++) {
    fail_unless_equals_int (gst_harness_push (h, frame (i)), GST_FLOW_OK);
    pull_frame (h, i, TRUE);
  }
  gst_harness_teardown (h);
  g_unlink (path);
  g_rmdir (dir);
  g_free (launch);
  g_free (bytes);
  g_free (path);
  g_free (dir);
}

GST_END_TEST;

static gint lib_messages;

static void
count_lib_log (GstDebugCategory * category, G_GNUC_UNUSED GstDebugLevel level,
    G_GNUC_UNUSED const gchar * file, G_GNUC_UNUSED const gchar * function,
    G_GNUC_UNUSED gint line, G_GNUC_UNUSED GObject * object,
    GstDebugMessage * message, G_GNUC_UNUSED gpointer user)
{
  if (g_str_equal (gst_debug_category_get_name (category), "vkml")
      && strstr (gst_debug_message_get (message), "unknown device '99'"))
    g_atomic_int_inc (&lib_messages);
}

/* libvkml's log goes to the "vkml" debug category: a bad device, logged by the library
 * at debug level, shows there. */
GST_START_TEST (test_library_log_routed)
{
  gchar *launch = g_strdup_printf ("vkmlinfer model=\"%s\" device=99",
      color_path);
  GstElement *e = gst_parse_launch (launch, NULL);
  GstBus *bus = gst_bus_new ();

  gst_debug_set_threshold_for_name ("vkml", GST_LEVEL_DEBUG);
  gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (count_lib_log, NULL, NULL);
  gst_element_set_bus (e, bus);
  fail_unless (gst_element_set_state (e, GST_STATE_PAUSED)
      == GST_STATE_CHANGE_FAILURE);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_debug_remove_log_function (count_lib_log);
  fail_unless (g_atomic_int_get (&lib_messages) >= 1,
      "libvkml's message did not reach the vkml category");
  gst_element_set_bus (e, NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_object_unref (e);
  g_free (launch);
}

GST_END_TEST;

static Suite *
inflight_suite (void)
{
  Suite *s = suite_create ("vkmlinfer-inflight");
  TCase *tc = tcase_create ("inflight");

  setup ();
  if (!GST_ELEMENT_REGISTER (vkmlinfer, NULL)) {
    fprintf (stderr, "could not register vkmlinfer\n");
    exit (1);
  }
  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_in_flight_order);
  tcase_add_test (tc, test_data_parallel);
  tcase_add_test (tc, test_interval);
  tcase_add_test (tc, test_flush_in_flight);
  tcase_add_test (tc, test_stop_in_flight);
  tcase_add_test (tc, test_latency_query);
  tcase_add_test (tc, test_qos_skip);
  tcase_add_test (tc, test_model_swap);
  tcase_add_test (tc, test_model_swap_refused);
  tcase_add_test (tc, test_model_swap_aside);
  tcase_add_test (tc, test_model_swap_superseded);
  tcase_add_test (tc, test_model_swap_stop_pending);
  tcase_add_test (tc, test_pool_reuse);
  tcase_add_test (tc, test_model_file_rewritten);
  tcase_add_test (tc, test_library_log_routed);
  return s;
}

GST_CHECK_MAIN (inflight);
