/* vkmlinfer's batch-size and input-tensors in GstHarness, on Vulkan device 0 (lavapipe in
 * CI). The models are Identity ones (tests/gst/make_identity_model.py): "out" is what
 * the pre-processing made of each frame, "total" the sum of the whole input (a scalar,
 * not per frame). Frames are random 13x9 RGB, so each frame's "out" tells it apart.
 *
 * - batch-size 2 and 4 (and with several batches in flight): every frame's "out" slice
 *   equals the one of a batch-size 1 run of the same frame (1e-6), timestamps and order
 *   intact; "total" is the whole batch's, the same on each of its frames;
 * - a partial batch at EOS: every frame comes out, and "total" shows the padding repeats
 *   the last frame (frames 4, 5, 5, 5);
 * - a model swap mid-stream: the old model's partial batch runs, no frame lost;
 * - a model with a fixed batch 2 runs 2 frames per run when batch-size is left at 1,
 *   and refuses batch-size 4 naming both;
 * - LATENCY adds (batch-size - 1) frame durations;
 * - input-tensors: a constant second input (out = image * 2), and the errors: a wrong
 *   shape, a wrong type, an unknown name, a file that does not exist, and the input left
 *   out, each naming the input. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gstvkmlinfer.h"
#include "gstvkmltensormeta.h"
#include "testutil.h"
#include "gst_testutil.h"

#include <math.h>
#include <string.h>

#define FRAME_NS (GST_SECOND / 30)
#define CAPS "video/x-raw,format=RGB,width=13,height=9,framerate=30/1"
#define OUT_COUNT (3 * 8 * 6)   /* the models' image input [.,3,8,6] */

static gchar *models_dir;

static gchar *
model_path (const gchar * name)
{
  return g_build_filename (models_dir, name, NULL);
}

/* Frame @i: random bytes seeded by @i, pts i frames. */
static GstBuffer *
frame_of (guint content, guint i)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, GST_ROUND_UP_4 (13 * 3) * 9,
      NULL);
  GRand *rand = g_rand_new_with_seed (1000 + content);
  GstMapInfo map;
  gsize p;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (p = 0; p < map.size; p++)
    map.data[p] = (guint8) g_rand_int_range (rand, 0, 256);
  gst_buffer_unmap (buf, &map);
  g_rand_free (rand);
  GST_BUFFER_PTS (buf) = i * FRAME_NS;
  GST_BUFFER_DURATION (buf) = FRAME_NS;
  return buf;
}

/* Frame i: pseudo-random pixels of seed i, pts i frames. */
static GstBuffer *
frame (guint i)
{
  return frame_of (i, i);
}

/* A harness around vkmlinfer with @model and @props; with @bus, the element reports
 * to a new bus (before the caps are set). */
static GstHarness *
harness_bus (const gchar * model, const gchar * props, GstBus ** bus)
{
  gchar *path = model_path (model);
  GstHarness *h = gst_test_vkmlinfer_harness (path, props, CAPS, bus);

  g_free (path);
  return h;
}

static GstHarness *
harness (const gchar * model, const gchar * props)
{
  return harness_bus (model, props, NULL);
}

/* The float values of tensor @name of @buf's meta (g_free them); *rank its rank. */
static gfloat *
tensor_values (GstBuffer * buf, const gchar * name, guint * rank, gsize * n)
{
  GstVkmlTensorMeta *meta = gst_buffer_get_vkml_tensor_meta (buf);
  const GstVkmlTensor *t;
  GstMapInfo map;
  gfloat *v;

  fail_unless (meta != NULL, "no meta");
  t = gst_vkml_tensor_meta_get_by_name (meta, name);
  fail_unless (t != NULL
      && t->dtype == VKML_DTYPE_FLOAT, "no float '%s'", name);
  *rank = t->rank;
  *n = gst_vkml_tensor_element_count (t);
  fail_unless (gst_buffer_map (t->data, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, *n * sizeof (gfloat));
  v = g_memdup2 (map.data, map.size);
  gst_buffer_unmap (t->data, &map);
  if (*rank == 4) {
    const gint64 *d = t->dims;

    fail_unless (d[0] == 1 && d[1] == 3 && d[2] == 8 && d[3] == 6,
        "'%s' of a frame is [%" G_GINT64_FORMAT ",...]", name, d[0]);
  }
  return v;
}

/* Pushes frames 0 .. n-1 and EOS; pulls them, checking pts and order; returns each
 * frame's "out" (and "total" into @totals when not NULL). */
static gfloat **
run_frames (GstHarness * h, guint n, gfloat * totals)
{
  gfloat **outs = g_new0 (gfloat *, n);
  guint i, rank;
  gsize count;

  for (i = 0; i < n; i++)
    fail_unless_equals_int (gst_harness_push (h, frame (i)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (i = 0; i < n; i++) {
    GstBuffer *out = gst_harness_pull (h);

    fail_unless (out != NULL, "frame %u did not come out", i);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * FRAME_NS);
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (out), FRAME_NS);
    outs[i] = tensor_values (out, "out", &rank, &count);
    fail_unless_equals_int (count, OUT_COUNT);
    if (totals) {
      gfloat *t = tensor_values (out, "total", &rank, &count);

      fail_unless (rank == 0 && count == 1, "total is a scalar");
      totals[i] = t[0];
      g_free (t);
    }
    gst_buffer_unref (out);
  }
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  return outs;
}

static void
free_outs (gfloat ** outs, guint n)
{
  guint i;

  for (i = 0; i < n; i++)
    g_free (outs[i]);
  g_free (outs);
}

static gdouble
sum (const gfloat * v)
{
  gdouble s = 0;
  guint i;

  for (i = 0; i < OUT_COUNT; i++)
    s += v[i];
  return s;
}

static void
expect_same (const gfloat * got, const gfloat * want, guint frame_index)
{
  guint i;

  for (i = 0; i < OUT_COUNT; i++)
    fail_unless (fabsf (got[i] - want[i]) <= 1e-6f,
        "frame %u element %u: %g, single-frame run %g", frame_index, i, got[i],
        want[i]);
}

static guint64
frames_processed (GstHarness * h)
{
  GstElement *e = gst_harness_find_element (h, "vkmlinfer");
  guint64 v = 0;

  g_object_get (e, "frames-processed", &v, NULL);
  gst_object_unref (e);
  return v;
}

/* batch-size 2 and 4, with 1 and 3 batches in flight: each frame's slice equals its
 * single-frame run; "total" is its batch's sum. */
GST_START_TEST (test_batch_matches_single)
{
  const guint n = 12, sizes[] = { 2, 4 }, lanes[] = { 1, 3 };
  GstHarness *h = harness ("id-batch-total.onnx", "batch-size=1");
  gfloat **want = run_frames (h, n, NULL), totals[12];
  guint s, l, i;

  gst_harness_teardown (h);
  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (l = 0; l < G_N_ELEMENTS (lanes); l++) {
      gchar *props = g_strdup_printf ("batch-size=%u max-in-flight=%u",
          sizes[s], lanes[l]);
      gfloat **got;

      h = harness ("id-batch-total.onnx", props);
      got = run_frames (h, n, totals);
      for (i = 0; i < n; i++) {
        guint first = i - i % sizes[s], k;
        gdouble batch_sum = 0;

        expect_same (got[i], want[i], i);
        for (k = first; k < first + sizes[s]; k++)
          batch_sum += sum (want[k]);
        fail_unless (fabs (totals[i] - batch_sum) <= 1e-4 * fabs (batch_sum),
            "%s: frame %u total %g, its batch's %g", props, i, totals[i],
            batch_sum);
      }
      fail_unless_equals_uint64 (frames_processed (h), n);
      free_outs (got, n);
      gst_harness_teardown (h);
      g_free (props);
    }
  free_outs (want, n);
}

GST_END_TEST;

/* 6 frames at batch-size 4: the second batch runs at EOS as frames 4, 5, 5, 5; both
 * frames come out with their own slices. */
GST_START_TEST (test_partial_batch_at_eos)
{
  GstHarness *h = harness ("id-batch-total.onnx", "batch-size=1");
  gfloat **want = run_frames (h, 6, NULL), totals[6];
  gfloat **got;
  gdouble padded;
  guint i;

  gst_harness_teardown (h);
  h = harness ("id-batch-total.onnx", "batch-size=4 max-in-flight=2");
  got = run_frames (h, 6, totals);
  for (i = 0; i < 6; i++)
    expect_same (got[i], want[i], i);
  padded = sum (want[4]) + 3 * sum (want[5]);
  fail_unless (fabs (totals[5] - padded) <= 1e-4 * fabs (padded),
      "the partial batch's total %g, frames 4, 5, 5, 5 give %g", totals[5],
      padded);
  fail_unless_equals_float (totals[4], totals[5]);
  fail_unless_equals_uint64 (frames_processed (h), 6);
  free_outs (got, 6);
  free_outs (want, 6);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Pulls @n frames, the first numbered @first, checking their pts and that each "out"
 * equals @want[its number]. */
static void
pull_checked (GstHarness * h, guint first, guint n, gfloat ** want)
{
  guint i, rank;
  gsize count;

  for (i = first; i < first + n; i++) {
    GstBuffer *out = gst_harness_pull (h);
    gfloat *got;

    fail_unless (out != NULL, "frame %u did not come out", i);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * FRAME_NS);
    got = tensor_values (out, "out", &rank, &count);
    expect_same (got, want[i], i);
    g_free (got);
    gst_buffer_unref (out);
  }
}

/* The next output within @ms milliseconds, or NULL. */
static GstBuffer *
pull_within (GstHarness * h, guint ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;
  GstBuffer *out;

  while (!(out = gst_harness_try_pull (h)) && g_get_monotonic_time () < end)
    g_usleep (1000);
  return out;
}

/* 'model' set while playing with batch-size=2: frames are pushed two by two while the
 * new model (the same identity plus "total") is planned aside; at the switch the old
 * model's partial batch runs padded; every frame comes out once, in order, its "out"
 * equal to its single-frame run whichever model ran it, and from the first frame with
 * "total" on, every frame has it. A switch between the two frames of a pair puts the
 * second one first in the new model's batch: it then waits for the next pair (or the
 * EOS), so after each pair only the frames up to the first are sure to be out. */
GST_START_TEST (test_batch_model_swap)
{
  GstHarness *h = harness ("id-batch.onnx", "batch-size=1");
  gfloat **want = run_frames (h, 40, NULL);
  gchar *next = model_path ("id-batch-total.onnx");
  gboolean swapped = FALSE;
  guint i, j = 0, rank, after = 0;
  gsize count;
  gint64 end;

  gst_harness_teardown (h);
  h = harness ("id-batch.onnx", "batch-size=2 max-in-flight=2");
  /* the new model loads on a worker while frames flow: push (frame contents cycling
   * through the 40 references) until it took over, at most 60 s, then 8 frames more */
  end = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  for (i = 0; !swapped || i < after + 8; i += 2) {
    GstElement *e;

    fail_unless (g_get_monotonic_time () < end,
        "the model was not swapped in 60 s");
    if (i == 4) {
      e = gst_harness_find_element (h, "vkmlinfer");
      g_object_set (e, "model", next, NULL);
      gst_object_unref (e);
    }
    fail_unless_equals_int (gst_harness_push (h, frame_of (i % 40, i)),
        GST_FLOW_OK);
    fail_unless_equals_int (gst_harness_push (h, frame_of ((i + 1) % 40,
                i + 1)), GST_FLOW_OK);
    /* frames up to i come out; i + 1 too unless the switch came before it */
    for (; j < i + 2; j++) {
      GstBuffer *out = j <= i ? gst_harness_pull (h) : pull_within (h, 1000);
      GstVkmlTensorMeta *meta;
      gfloat *got;

      if (!out && j == i + 1)
        break;
      fail_unless (out != NULL, "frame %u did not come out", j);
      fail_unless_equals_uint64 (GST_BUFFER_PTS (out), j * FRAME_NS);
      got = tensor_values (out, "out", &rank, &count);
      fail_unless_equals_int (count, OUT_COUNT);
      expect_same (got, want[j % 40], j);
      g_free (got);
      meta = gst_buffer_get_vkml_tensor_meta (out);
      if (gst_vkml_tensor_meta_get_by_name (meta, "total")) {
        if (!swapped)
          after = j;
        swapped = TRUE;
      } else
        fail_unless (!swapped, "frame %u ran on the old model again", j);
      fail_unless (j >= 4 || !swapped);
      gst_buffer_unref (out);
    }
  }
  /* a frame left waiting for its batch partner runs (padded) at the EOS */
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (; j < i; j++) {
    GstBuffer *out = gst_harness_pull (h);
    gfloat *got;

    fail_unless (out != NULL, "frame %u did not come out at the EOS", j);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), j * FRAME_NS);
    got = tensor_values (out, "out", &rank, &count);
    expect_same (got, want[j % 40], j);
    fail_unless (gst_vkml_tensor_meta_get_by_name
        (gst_buffer_get_vkml_tensor_meta (out), "total") != NULL,
        "frame %u ran on the old model again", j);
    g_free (got);
    gst_buffer_unref (out);
  }
  fail_unless_equals_uint64 (frames_processed (h), i);
  free_outs (want, 40);
  g_free (next);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A flush drops the frames of a batch being filled (as it drops the frames in flight):
 * after it, only the new frames come out, each with its own slice. */
GST_START_TEST (test_flush_drops_partial_batch)
{
  GstHarness *h = harness ("id-batch-total.onnx", "batch-size=1");
  gfloat **want = run_frames (h, 8, NULL);
  GstSegment segment;
  GstBuffer *out;
  guint i;

  gst_harness_teardown (h);
  h = harness ("id-batch-total.onnx", "batch-size=4");
  gst_segment_init (&segment, GST_FORMAT_TIME);
  for (i = 0; i < 2; i++)
    fail_unless_equals_int (gst_harness_push (h, frame (i)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  while ((out = gst_harness_try_pull (h)))
    gst_buffer_unref (out);
  for (i = 4; i < 8; i++)
    fail_unless_equals_int (gst_harness_push (h, frame (i)), GST_FLOW_OK);
  pull_checked (h, 4, 4, want);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  free_outs (want, 8);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* New caps (another frame size) with 3 frames of a batch of 4 held: they run as a
 * partial batch and come out before the frames of the new size. */
GST_START_TEST (test_caps_change_runs_partial_batch)
{
  GstHarness *h = harness ("id-batch-total.onnx", "batch-size=1");
  gfloat **want = run_frames (h, 3, NULL);
  GstBuffer *out;
  guint i;

  gst_harness_teardown (h);
  h = harness ("id-batch-total.onnx", "batch-size=4");
  for (i = 0; i < 3; i++)
    fail_unless_equals_int (gst_harness_push (h, frame (i)), GST_FLOW_OK);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=GRAY8,width=8,height=8,framerate=30/1");
  pull_checked (h, 0, 3, want);
  for (i = 0; i < 4; i++) {
    GstBuffer *gray = gst_buffer_new_allocate (NULL, 64, NULL);

    gst_buffer_memset (gray, 0, 100, 64);
    GST_BUFFER_PTS (gray) = (10 + i) * FRAME_NS;
    fail_unless_equals_int (gst_harness_push (h, gray), GST_FLOW_OK);
  }
  for (i = 0; i < 4; i++) {
    gsize count;
    guint rank;
    gfloat *v;

    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), (10 + i) * FRAME_NS);
    v = tensor_values (out, "out", &rank, &count);
    fail_unless (fabsf (v[0] - 100.0f / 255.0f) <= 1e-6f, "gray %g", v[0]);
    g_free (v);
    gst_buffer_unref (out);
  }
  free_outs (want, 3);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A memory holding a copy of @size bytes at @data. */
static GstMemory *
wrap (gconstpointer data, gsize size)
{
  gpointer copy = g_memdup2 (data, size);

  return gst_memory_new_wrapped (0, copy, size, 0, size, copy, g_free);
}

/* Tensor caps with two tensors: the buffer's two memories are the model's two inputs
 * in order (no pre-processing): out = image x scale_factor. */
GST_START_TEST (test_tensor_caps_two_inputs)
{
  GstHarness *h;
  gchar *path = model_path ("extra-input.onnx");
  gchar *launch = g_strdup_printf ("vkmlinfer model=\"%s\" device=0", path);
  gfloat image[OUT_COUNT], scale = 3.0f;
  GstBuffer *in, *out;
  GstMapInfo map;
  guint i;

  h = gst_harness_new_parse (launch);
  gst_harness_set_src_caps_str (h, "other/tensors,format=static,num_tensors=2,"
      "dimensions=(string)\"6:8:3:1,1\",types=(string)\"float32,float32\","
      "framerate=0/1");
  for (i = 0; i < OUT_COUNT; i++)
    image[i] = (gfloat) i / 7.0f;
  in = gst_buffer_new ();
  gst_buffer_append_memory (in, wrap (image, sizeof (image)));
  gst_buffer_append_memory (in, wrap (&scale, sizeof (scale)));
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  fail_unless_equals_int (gst_buffer_n_memory (out), 1);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, sizeof (image));
  for (i = 0; i < OUT_COUNT; i++)
    fail_unless (fabsf (((gfloat *) map.data)[i] - 3.0f * image[i]) <= 1e-5f,
        "element %u", i);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_free (launch);
  g_free (path);
}

GST_END_TEST;

/* inference-interval 2 with batch-size 2: frames 0, 2 run together, 1 and 3 pass
 * without a meta, all in order. */
GST_START_TEST (test_batch_with_interval)
{
  GstHarness *h =
      harness ("id-batch.onnx", "batch-size=2 inference-interval=2");
  guint i;

  for (i = 0; i < 7; i++)
    fail_unless_equals_int (gst_harness_push (h, frame (i)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (i = 0; i < 7; i++) {
    GstBuffer *out = gst_harness_pull (h);

    fail_unless (out != NULL, "frame %u did not come out", i);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * FRAME_NS);
    fail_unless_equals_int (gst_buffer_get_vkml_tensor_meta (out) != NULL,
        i % 2 == 0);
    gst_buffer_unref (out);
  }
  fail_unless_equals_uint64 (frames_processed (h), 4);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A fixed batch of 2 with batch-size left at 1: 2 frames per run, each its slice. */
GST_START_TEST (test_fixed_batch_model)
{
  GstHarness *h = harness ("id-batch-total.onnx", "batch-size=1");
  gfloat **want = run_frames (h, 4, NULL), totals[4], **got;
  gdouble first_pair;
  guint i;

  gst_harness_teardown (h);
  h = harness ("id-batch2-total.onnx", "");
  got = run_frames (h, 4, totals);
  for (i = 0; i < 4; i++)
    expect_same (got[i], want[i], i);
  first_pair = sum (want[0]) + sum (want[1]);
  fail_unless (fabs (totals[0] - first_pair) <= 1e-4 * fabs (first_pair));
  free_outs (got, 4);
  free_outs (want, 4);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* @h's first error message, its domain and code checked; the message (g_free it). */
static gchar *
expect_error (GstBus * bus, GQuark domain, gint code, const gchar * needle)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *error = NULL;
  gchar *text;

  fail_unless (msg != NULL, "no error message");
  gst_message_parse_error (msg, &error, NULL);
  fail_unless (error->domain == domain && error->code == code,
      "error %s %d: %s", g_quark_to_string (error->domain), error->code,
      error->message);
  fail_unless (strstr (error->message, needle) != NULL,
      "'%s' does not mention '%s'", error->message, needle);
  text = g_strdup (error->message);
  g_error_free (error);
  gst_message_unref (msg);
  return text;
}

static void
drop_bus (GstHarness * h, GstBus * bus)
{
  gst_element_set_bus (h->element, NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
}

/* A fixed batch of 2 and batch-size 4: a negotiation error naming both. */
GST_START_TEST (test_fixed_batch_refuses_other_size)
{
  GstBus *bus;
  GstHarness *h = harness_bus ("id-batch2-total.onnx", "batch-size=4", &bus);

  fail_unless_equals_int (gst_harness_push (h, frame (0)),
      GST_FLOW_NOT_NEGOTIATED);

  g_free (expect_error (bus, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "'batch-size' 4 differs from the model's fixed batch 2"));
  drop_bus (h, bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* LATENCY at batch-size 4 and 30 frames/s: upstream's + the mean run + 3 frames. */
GST_START_TEST (test_batch_latency)
{
  GstHarness *h = harness ("id-batch.onnx", "batch-size=4");
  GstQuery *q = gst_query_new_latency ();
  GstElement *e = gst_harness_find_element (h, "vkmlinfer");
  GstClockTime min, max, mean;
  guint64 mean_us = 0;
  gboolean live;
  guint i;

  gst_harness_set_upstream_latency (h, 5 * GST_MSECOND);
  for (i = 0; i < 4; i++)
    fail_unless_equals_int (gst_harness_push (h, frame (i)), GST_FLOW_OK);
  for (i = 0; i < 4; i++)
    gst_buffer_unref (gst_harness_pull (h));
  g_object_get (e, "latency-mean-us", &mean_us, NULL);
  mean = mean_us * GST_USECOND;
  fail_unless (gst_pad_peer_query (h->sinkpad, q));
  gst_query_parse_latency (q, &live, &min, &max);
  fail_unless_equals_uint64 (min, 5 * GST_MSECOND + mean +
      gst_util_uint64_scale_int (3 * GST_SECOND, 1, 30));
  gst_query_unref (q);
  gst_object_unref (e);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* input-tensors=scale_factor=scale-2.pb: out = 2 x what id-nchw (the same image input)
 * gives for the same frame. */
GST_START_TEST (test_input_tensors)
{
  gchar *pb = model_path ("scale-2.pb");
  gchar *props = g_strdup_printf ("input-tensors=\"scale_factor=%s\"", pb);
  GstHarness *h = harness ("id-nchw.onnx", "");
  gfloat **plain = run_frames (h, 2, NULL), **scaled;
  guint i, k;

  gst_harness_teardown (h);
  h = harness ("extra-input.onnx", props);
  scaled = run_frames (h, 2, NULL);
  for (i = 0; i < 2; i++)
    for (k = 0; k < OUT_COUNT; k++)
      fail_unless (fabsf (scaled[i][k] - 2 * plain[i][k]) <= 1e-6f,
          "frame %u element %u: %g, 2 x %g", i, k, scaled[i][k], plain[i][k]);
  free_outs (plain, 2);
  free_outs (scaled, 2);
  gst_harness_teardown (h);
  g_free (props);
  g_free (pb);
}

GST_END_TEST;

/* @props on the two-input model must fail at start (RESOURCE/SETTINGS) naming
 * @needle. */
static void
expect_start_error (const gchar * props, const gchar * needle)
{
  gchar *path = model_path ("extra-input.onnx");
  gchar *launch = g_strdup_printf ("vkmlinfer model=\"%s\" device=0 %s", path,
      props);
  GstElement *e = gst_parse_launch (launch, NULL);
  GstBus *bus = gst_bus_new ();

  fail_unless (e != NULL);
  gst_element_set_bus (e, bus);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  g_free (expect_error (bus, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          needle));
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
  g_free (launch);
  g_free (path);
}

GST_START_TEST (test_input_tensors_errors)
{
  gchar *wrong_shape = model_path ("scale-wrong-shape.pb");
  gchar *wrong_type = model_path ("scale-int64.pb");
  gchar *good = model_path ("scale-2.pb");
  gchar *props;
  GstHarness *h;
  GstBus *bus;

  props = g_strdup_printf ("input-tensors=\"scale_factor=%s\"", wrong_shape);
  expect_start_error (props,
      "input 'scale_factor' [1] float cannot take the tensor given, "
      "'scale_factor' [2] float");
  g_free (props);
  props = g_strdup_printf ("input-tensors=\"scale_factor=%s\"", wrong_type);
  expect_start_error (props, "'scale_factor' [1] int64");
  g_free (props);
  props = g_strdup_printf ("input-tensors=\"nope=%s\"", good);
  expect_start_error (props, "the model has no input 'nope'");
  g_free (props);
  props = g_strdup_printf ("input-tensors=\"image=%s\"", good);
  expect_start_error (props, "input 'image' is the image input");
  g_free (props);
  expect_start_error ("input-tensors=\"scale_factor=/nonexistent/s.pb\"",
      "could not read the tensor for input 'scale_factor' from "
      "\"/nonexistent/s.pb\"");
  expect_start_error ("input-tensors=scale_factor", "is not name=file.pb");

  /* left out: the caps are refused naming the input */
  h = harness_bus ("extra-input.onnx", "", &bus);
  fail_unless_equals_int (gst_harness_push (h, frame (0)),
      GST_FLOW_NOT_NEGOTIATED);
  g_free (expect_error (bus, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "input 'scale_factor' [1] float is not the image input"));
  drop_bus (h, bus);
  gst_harness_teardown (h);
  g_free (wrong_shape);
  g_free (wrong_type);
  g_free (good);
}

GST_END_TEST;

static Suite *
batch_suite (void)
{
  Suite *s = suite_create ("vkmlinfer-batch");
  TCase *tc = tcase_create ("batch");

  (void) test_failures;         /* testutil.h's counter; GstCheck counts here */
  models_dir = g_build_filename (gst_test_build_root (), "tests", "gst", NULL);
  gst_test_require_vulkan_device ();    /* the tests name device 0 */
  if (!GST_ELEMENT_REGISTER (vkmlinfer, NULL)) {
    fprintf (stderr, "could not register vkmlinfer\n");
    exit (1);
  }
  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_batch_matches_single);
  tcase_add_test (tc, test_partial_batch_at_eos);
  tcase_add_test (tc, test_batch_with_interval);
  tcase_add_test (tc, test_flush_drops_partial_batch);
  tcase_add_test (tc, test_batch_model_swap);
  tcase_add_test (tc, test_caps_change_runs_partial_batch);
  tcase_add_test (tc, test_tensor_caps_two_inputs);
  tcase_add_test (tc, test_fixed_batch_model);
  tcase_add_test (tc, test_fixed_batch_refuses_other_size);
  tcase_add_test (tc, test_batch_latency);
  tcase_add_test (tc, test_input_tensors);
  tcase_add_test (tc, test_input_tensors_errors);
  return s;
}

GST_CHECK_MAIN (batch);
