/* vkmlinfer and vkmlclassify in GstHarness: results against libvkml, errors, the demo
 * model. The elements are registered statically from the test's own copy of them. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gstvkmlclassify.h"
#include "gstvkmlinfer.h"
#include "gstvkmltensormeta.h"
#include "testutil.h"
#include "gst_testutil.h"

#include <string.h>

#if defined (HAVE_GST_TENSOR_META) && GST_CHECK_VERSION (1, 26, 0)
#include <gst/analytics/analytics.h>
#define VKML_WITH_TENSOR_META 1
#endif

static gchar *mnist_path;
static gchar *color_path;
static gchar *labels_path;
static gchar *vector_path;
static gchar *unsupported_path;
static gchar *nhwc_path;

/* Finds the models: mnist-8 in the corpus (missing: skip, or fail when CI=true), the
 * models the build made under VKML_BUILD_ROOT. */
static void
find_models (void)
{
  const gchar *build = g_getenv ("VKML_BUILD_ROOT");
  char buf[4096];

  (void) test_failures;         /* testutil.h's counter; GstCheck counts here */
  mnist_path = g_strdup (test_corpus_path (buf, sizeof (buf),
          "models/mnist-8/model.onnx"));
  if (!g_file_test (mnist_path, G_FILE_TEST_EXISTS))
    test_missing (mnist_path);
  if (!build) {
    fprintf (stderr, "VKML_BUILD_ROOT is not set: run through meson test\n");
    exit (1);
  }
  color_path = g_build_filename (build, "pipelines", "color.onnx", NULL);
  labels_path = g_build_filename (build, "pipelines", "color-labels.txt", NULL);
  vector_path = g_build_filename (build, "tests", "gst", "color-vector.onnx",
      NULL);
  unsupported_path = g_build_filename (build, "tests", "gst",
      "unsupported-op.onnx", NULL);
  nhwc_path = g_build_filename (build, "tests", "gst", "color-nhwc.onnx", NULL);
}

static void
register_elements (void)
{
  fail_unless (GST_ELEMENT_REGISTER (vkmlinfer, NULL));
  fail_unless (GST_ELEMENT_REGISTER (vkmlclassify, NULL));
}

/* A harness around @launch whose messages go to a bus (returned in *bus). */
static GstHarness *
harness_with_bus (const gchar * launch, GstBus ** bus)
{
  GstHarness *h = gst_harness_new_parse (launch);

  *bus = gst_bus_new ();
  gst_element_set_bus (h->element, *bus);
  return h;
}

static void
teardown_with_bus (GstHarness * h, GstBus * bus)
{
  gst_element_set_bus (h->element, NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

static GstBuffer *
solid_frame (GstVideoFormat format, guint width, guint height, guint8 r,
    guint8 g, guint8 b)
{
  GstVideoInfo vinfo;
  GstVideoFrame frame;
  GstBuffer *buf;
  guint x, y;

  gst_video_info_set_format (&vinfo, format, width, height);
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&vinfo), NULL);
  fail_unless (gst_video_frame_map (&frame, &vinfo, buf, GST_MAP_WRITE));
  for (y = 0; y < height; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);

    for (x = 0; x < width; x++) {
      guint8 *px = row + x * GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, 0);

      if (GST_VIDEO_INFO_IS_GRAY (&vinfo)) {
        px[0] = r;
        continue;
      }
      px[GST_VIDEO_FRAME_COMP_POFFSET (&frame, 0)] = r;
      px[GST_VIDEO_FRAME_COMP_POFFSET (&frame, 1)] = g;
      px[GST_VIDEO_FRAME_COMP_POFFSET (&frame, 2)] = b;
    }
  }
  gst_video_frame_unmap (&frame);
  return buf;
}

/* libvkml's own answer for mnist-8 on @pixels (28x28) as pixel / 255. */
static void
mnist_reference (const guint8 * pixels, gfloat * out10)
{
  vkml_context *ctx = NULL;
  vkml_model *model = NULL;
  vkml_session *session = NULL;
  vkml_error err = { 0 };
  gfloat in[28 * 28];
  vkml_tensor input = {.dtype = VKML_DTYPE_FLOAT,.rank = 4,
    .dims = {1, 1, 28, 28},.data = in,.size = sizeof (in)
  };
  vkml_tensor output = {.dtype = VKML_DTYPE_FLOAT,.rank = 2,.dims = {1, 10},
  .data = out10,.size = 10 * sizeof (gfloat)
  };
  guint i;

  for (i = 0; i < 28 * 28; i++)
    in[i] = pixels[i] / 255.0f;
  fail_unless (vkml_context_create (NULL, &ctx, &err) == VKML_OK, "%s",
      err.message);
  fail_unless (vkml_model_load_file (mnist_path, &model, &err) == VKML_OK,
      "%s", err.message);
  fail_unless (vkml_session_create (ctx, model, NULL, &session,
          &err) == VKML_OK, "%s", err.message);
  fail_unless (vkml_session_run (session, &input, 1, &output, 1,
          &err) == VKML_OK, "%s", err.message);
  vkml_session_destroy (&session);
  vkml_model_destroy (&model);
  vkml_context_destroy (&ctx);
}

#ifdef VKML_WITH_TENSOR_META
/* GStreamer >= 1.26: @out also has a GstTensorMeta with @t's name, float32, its dims and
 * the logits @want (within 1e-5). */
static void
check_upstream_logits (GstBuffer * out, const GstVkmlTensor * t,
    const gfloat want[10])
{
  GstTensorMeta *tmeta = gst_buffer_get_tensor_meta (out);
  const GstTensor *up;
  gfloat got[10];
  guint i;

  fail_unless (tmeta != NULL);
  fail_unless_equals_int (tmeta->num_tensors, 1);
  up = gst_tensor_meta_get (tmeta, 0);
  fail_unless_equals_string (g_quark_to_string (up->id), t->name);
  fail_unless_equals_int (up->data_type, GST_TENSOR_DATA_TYPE_FLOAT32);
  fail_unless_equals_int (up->num_dims, 2);
  fail_unless (up->dims[0] == 1 && up->dims[1] == 10);
  fail_unless_equals_int (gst_buffer_get_size (up->data), sizeof (got));
  fail_unless (gst_buffer_extract (up->data, 0, got, sizeof (got)) ==
      sizeof (got));
  for (i = 0; i < 10; i++)
    fail_unless (fabsf (got[i] - want[i]) <= 1e-5f * MAX (1.0f,
            fabsf (want[i])), "GstTensorMeta logit %u: %f, libvkml %f", i,
        got[i], want[i]);
}
#endif

/* A GRAY8 28x28 frame through mnist-8 gives one [1,10] float tensor equal to libvkml's
 * result for pixel / 255 (on GStreamer >= 1.26 also as GstTensorMeta), and the video
 * is unchanged. */
GST_START_TEST (test_mnist_matches_libvkml)
{
  GstHarness *h;
  GstBuffer *in, *out;
  GstVkmlTensorMeta *meta;
  const GstVkmlTensor *t;
  GstMapInfo map;
  guint8 pixels[28 * 28];
  gfloat want[10], got[10];
  gchar *launch;
  guint i;

  for (i = 0; i < 28 * 28; i++)
    pixels[i] = (guint8) ((i % 28) * 9 + (i / 28) * 5);
  mnist_reference (pixels, want);

  /* Vulkan device 0 in the element against libvkml's default (the CPU here). */
  launch = g_strdup_printf ("vkmlinfer model=\"%s\" device=0", mnist_path);
  h = gst_harness_new_parse (launch);
  g_free (launch);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=GRAY8,width=28,height=28,framerate=30/1");
  in = gst_buffer_new_memdup (pixels, sizeof (pixels));
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);

  fail_unless (gst_buffer_memcmp (out, 0, pixels, sizeof (pixels)) == 0);
  meta = gst_buffer_get_vkml_tensor_meta (out);
  fail_unless (meta != NULL);
  fail_unless_equals_int (meta->n_tensors, 1);
  t = gst_vkml_tensor_meta_get (meta, 0);
  fail_unless_equals_int (t->dtype, VKML_DTYPE_FLOAT);
  fail_unless_equals_int (t->rank, 2);
  fail_unless_equals_int64 (t->dims[0], 1);
  fail_unless_equals_int64 (t->dims[1], 10);
  fail_unless (t->name && t->name[0], "the tensor has no name");
  fail_unless (gst_buffer_map (t->data, &map, GST_MAP_READ));
  fail_unless (map.size >= sizeof (got));
  memcpy (got, map.data, sizeof (got));
  gst_buffer_unmap (t->data, &map);
  for (i = 0; i < 10; i++)
    fail_unless (fabsf (got[i] - want[i]) <= 1e-5f * MAX (1.0f,
            fabsf (want[i])), "logit %u: element %f, libvkml %f", i, got[i],
        want[i]);
#ifdef VKML_WITH_TENSOR_META
  check_upstream_logits (out, t, want);
#endif

  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* precision=fp16 (the default is fp32): the mnist-8 logits stay a float tensor within
 * 1e-2 x max |logit| of libvkml's float32 result. */
GST_START_TEST (test_mnist_precision_fp16)
{
  GstHarness *h;
  GstBuffer *out;
  GstVkmlTensorMeta *meta;
  const GstVkmlTensor *t;
  GstMapInfo map;
  guint8 pixels[28 * 28];
  gfloat want[10], got[10], scale = 0;
  gint precision = -1;
  GstElement *infer;
  gchar *launch;
  guint i;

  for (i = 0; i < 28 * 28; i++)
    pixels[i] = (guint8) ((i % 28) * 7 + (i / 28) * 3);
  mnist_reference (pixels, want);

  /* the property's default and its nick, on an element not started */
  infer = gst_element_factory_make ("vkmlinfer", NULL);
  g_object_get (infer, "precision", &precision, NULL);
  fail_unless_equals_int (precision, VKML_PRECISION_FP32);
  gst_util_set_object_arg (G_OBJECT (infer), "precision", "fp16");
  g_object_get (infer, "precision", &precision, NULL);
  fail_unless_equals_int (precision, VKML_PRECISION_FP16);
  gst_object_unref (infer);
  /* the harness starts its element: precision is set before, as it is read at start */
  launch = g_strdup_printf ("vkmlinfer model=\"%s\" precision=fp16",
      mnist_path);
  h = gst_harness_new_parse (launch);
  g_free (launch);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=GRAY8,width=28,height=28,framerate=30/1");
  out = gst_harness_push_and_pull (h, gst_buffer_new_memdup (pixels,
          sizeof (pixels)));
  fail_unless (out != NULL);
  meta = gst_buffer_get_vkml_tensor_meta (out);
  fail_unless (meta != NULL && meta->n_tensors == 1);
  t = gst_vkml_tensor_meta_get (meta, 0);
  fail_unless_equals_int (t->dtype, VKML_DTYPE_FLOAT);
  fail_unless (gst_buffer_map (t->data, &map, GST_MAP_READ));
  fail_unless (map.size >= sizeof (got));
  memcpy (got, map.data, sizeof (got));
  gst_buffer_unmap (t->data, &map);
  for (i = 0; i < 10; i++)
    scale = MAX (scale, fabsf (want[i]));
  for (i = 0; i < 10; i++)
    fail_unless (fabsf (got[i] - want[i]) <= 1e-2f * scale,
        "logit %u: fp16 %f, fp32 %f (max |logit| %f)", i, got[i], want[i],
        scale);

  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Pops the error message from @bus, checks its domain and code and that its text
 * mentions @needle; returns the text (g_free it). */
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

/* @element (taken) must fail to go to PAUSED with the error described as in
 * expect_error; then it goes back to NULL and is freed. */
static void
expect_start_error (GstElement * element, GQuark domain, gint code,
    const gchar * needle)
{
  GstBus *bus = gst_bus_new ();

  gst_element_set_bus (element, bus);
  fail_unless_equals_int (gst_element_set_state (element, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  g_free (expect_error (bus, domain, code, needle));
  fail_unless_equals_int (gst_element_set_state (element, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_element_set_bus (element, NULL);
  gst_object_unref (bus);
  gst_object_unref (element);
}

/* A vkmlinfer with @model (NULL: none) on @device. */
static GstElement *
infer_with (const gchar * model, const gchar * device)
{
  GstElement *e = gst_element_factory_make ("vkmlinfer", NULL);

  g_object_set (e, "model", model, "device", device, NULL);
  return e;
}

/* A missing model file: a RESOURCE/NOT_FOUND error naming the file; PAUSED fails. */
GST_START_TEST (test_bad_model_path)
{
  expect_start_error (infer_with ("/nonexistent/vkml/model.onnx",
          "default"), GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
      "/nonexistent/vkml/model.onnx");
}

GST_END_TEST;

/* No model property at all: an error that says to set it. */
GST_START_TEST (test_no_model)
{
  expect_start_error (infer_with (NULL, "default"), GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_NOT_FOUND, "No model");
}

GST_END_TEST;

/* A file that is not ONNX (the labels text): a LIBRARY/SETTINGS error naming it. */
GST_START_TEST (test_not_a_model)
{
  expect_start_error (infer_with (labels_path, "default"),
      GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS, labels_path);
}

GST_END_TEST;

/* A model with an op vkml lacks: LIBRARY/SETTINGS naming the node. */
GST_START_TEST (test_unsupported_op)
{
  expect_start_error (infer_with (unsupported_path, "default"),
      GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS, "mystery_node");
}

GST_END_TEST;

/* A GPU index that does not exist: LIBRARY/SETTINGS naming the device. */
GST_START_TEST (test_bad_device)
{
  expect_start_error (infer_with (color_path, "99"), GST_LIBRARY_ERROR,
      GST_LIBRARY_ERROR_SETTINGS, "device '99'");
  expect_start_error (infer_with (color_path, "0,0"), GST_LIBRARY_ERROR,
      GST_LIBRARY_ERROR_SETTINGS, "twice");
}

GST_END_TEST;

/* A model whose input is no image ([1,3]): CORE/NEGOTIATION naming the input shape
 * and the caps. */
GST_START_TEST (test_caps_model_cannot_take)
{
  GstHarness *h;
  GstBus *bus;
  gchar *launch = g_strdup_printf ("vkmlinfer model=\"%s\"", vector_path);
  gchar *text;

  h = harness_with_bus (launch, &bus);
  g_free (launch);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=RGB,width=64,height=64,framerate=30/1");
  fail_unless_equals_int (gst_harness_push (h, solid_frame
          (GST_VIDEO_FORMAT_RGB, 64, 64, 255, 0, 0)), GST_FLOW_NOT_NEGOTIATED);
  text = expect_error (bus, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      "'rgb' [1,3] float");
  fail_unless (strstr (text, "RGB") != NULL, "%s", text);
  g_free (text);
  teardown_with_bus (h, bus);
}

GST_END_TEST;

/* Video in a format the element does not take (YUY2): CORE/NEGOTIATION naming that
 * format and the formats it takes, not only upstream's not-negotiated. */
GST_START_TEST (test_caps_format_refused)
{
  GstHarness *h;
  GstBus *bus;
  gchar *launch = g_strdup_printf ("vkmlinfer model=\"%s\"", color_path);
  gchar *text;

  h = harness_with_bus (launch, &bus);
  g_free (launch);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=YUY2,width=64,height=64,framerate=30/1");
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_new_allocate (NULL,
              64 * 64 * 2, NULL)), GST_FLOW_NOT_NEGOTIATED);
  text = expect_error (bus, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      "format YUY2");
  fail_unless (strstr (text, "NV12") && strstr (text, "Y444_10LE")
      && strstr (text, "P010_10LE") && strstr (text, "GRAY8"), "%s", text);
  g_free (text);
  teardown_with_bus (h, bus);
}

GST_END_TEST;

/* Pushes one solid frame and returns the vkml-classification message it caused. */
static const GstStructure *
classify_one (GstHarness * h, GstBus * bus, GstVideoFormat format, guint8 r,
    guint8 g, guint8 b, GstMessage ** msg)
{
  GstBuffer *out;

  out = gst_harness_push_and_pull (h, solid_frame (format, 320, 240, r, g, b));
  fail_unless (out != NULL);
  fail_unless (gst_buffer_get_vkml_tensor_meta (out) != NULL);
  gst_buffer_unref (out);
  *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
  fail_unless (*msg != NULL, "no element message");
  fail_unless (gst_message_has_name (*msg, "vkml-classification"));
  return gst_message_get_structure (*msg);
}

/* Checks a stream of solid colours of @format through @model gets the right labels. */
static void
check_colours (const gchar * model, GstVideoFormat format)
{
  static const struct
  {
    guint8 r, g, b;
    const gchar *label;
    gint index;
  } cases[] = {
    {255, 0, 0, "red", 0}, {0, 255, 0, "green", 1}, {0, 0, 255, "blue", 2},
    {255, 255, 255, "white", 6}, {0, 0, 0, "black", 7},
  };
  GstHarness *h;
  GstBus *bus;
  gchar *launch, *caps;
  guint i;

  launch =
      g_strdup_printf ("vkmlinfer model=\"%s\" ! vkmlclassify labels=\"%s\"",
      model, labels_path);
  h = harness_with_bus (launch, &bus);
  g_free (launch);
  caps = g_strdup_printf ("video/x-raw,format=%s,width=320,height=240,"
      "framerate=30/1", gst_video_format_to_string (format));
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstMessage *msg;
    const GstStructure *s = classify_one (h, bus, format, cases[i].r,
        cases[i].g, cases[i].b, &msg);
    guint64 frame = G_MAXUINT64;
    gint index = -1;
    gfloat score = 0;

    fail_unless (gst_structure_get_uint64 (s, "frame", &frame));
    fail_unless_equals_uint64 (frame, i);
    fail_unless (gst_structure_get_int (s, "index", &index));
    fail_unless_equals_int (index, cases[i].index);
    fail_unless_equals_string (gst_structure_get_string (s, "label"),
        cases[i].label);
    fail_unless (gst_structure_get (s, "score", G_TYPE_FLOAT, &score, NULL));
    fail_unless (score > 0.99f, "%s scored %f", cases[i].label, score);
    gst_message_unref (msg);
  }
  teardown_with_bus (h, bus);
}

/* The demo model: solid red/green/blue/white/black RGB frames get those labels. */
GST_START_TEST (test_demo_model_rgb)
{
  check_colours (color_path, GST_VIDEO_FORMAT_RGB);
}

GST_END_TEST;

/* Same through BGRx: channel order and padding bytes handled. */
GST_START_TEST (test_demo_model_bgrx)
{
  check_colours (color_path, GST_VIDEO_FORMAT_BGRx);
}

GST_END_TEST;

/* The same classifier with a channels-last input [1,64,64,3], fed RGBA. */
GST_START_TEST (test_nhwc_model_rgba)
{
  check_colours (nhwc_path, GST_VIDEO_FORMAT_RGBA);
}

GST_END_TEST;

/* vkmlclassify tensor=NAME without labels: the label is the class index. */
GST_START_TEST (test_classify_tensor_by_name)
{
  GstHarness *h;
  GstBus *bus;
  GstMessage *msg;
  gchar *launch = g_strdup_printf ("vkmlinfer model=\"%s\" ! "
      "vkmlclassify tensor=probabilities", color_path);

  h = harness_with_bus (launch, &bus);
  g_free (launch);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=RGB,width=320,height=240,framerate=30/1");
  fail_unless_equals_string (gst_structure_get_string (classify_one (h, bus,
              GST_VIDEO_FORMAT_RGB, 0, 0, 255, &msg), "label"), "2");
  gst_message_unref (msg);
  teardown_with_bus (h, bus);
}

GST_END_TEST;

/* vkmlclassify tensor=NAME that the model lacks: a STREAM/FORMAT error naming the
 * tensor asked for and the ones the model has, flow error. vkmlinfer's src pad task
 * pushes the frame: the flow error comes back upstream with the next frame, once a
 * serialized event has waited for the first to go out. */
GST_START_TEST (test_classify_unknown_tensor)
{
  GstHarness *h;
  GstBus *bus;
  gchar *text, *launch = g_strdup_printf ("vkmlinfer model=\"%s\" ! "
      "vkmlclassify tensor=nope", color_path);

  h = harness_with_bus (launch, &bus);
  g_free (launch);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=RGB,width=320,height=240,framerate=30/1");
  gst_harness_push (h, solid_frame (GST_VIDEO_FORMAT_RGB, 320, 240, 255, 0, 0));
  fail_unless (gst_harness_push_event (h,
          gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM,
              gst_structure_new_empty ("drain"))));
  fail_unless_equals_int (gst_harness_push (h, solid_frame
          (GST_VIDEO_FORMAT_RGB, 320, 240, 255, 0, 0)), GST_FLOW_ERROR);
  text = expect_error (bus, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "There is no tensor 'nope'");
  fail_unless (strstr (text, "'probabilities' [1,8] float") != NULL, "%s",
      text);
  g_free (text);
  teardown_with_bus (h, bus);
}

GST_END_TEST;

/* model-id names the meta: the element's name by default, the property when set;
 * reading the property back gives the same. */
GST_START_TEST (test_infer_model_id)
{
  static const gchar *cases[][2] = {
    {"vkmlinfer name=det model=\"%s\"", "det"},
    {"vkmlinfer name=det model-id=colour model=\"%s\"", "colour"},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *launch = g_strdup_printf (cases[i][0], color_path), *id = NULL;
    GstHarness *h = gst_harness_new_parse (launch);
    GstElement *infer = gst_bin_get_by_name (GST_BIN (h->element), "det");
    GstBuffer *out;
    GstVkmlTensorMeta *meta;

    gst_harness_set_src_caps_str (h,
        "video/x-raw,format=RGB,width=320,height=240,framerate=30/1");
    out = gst_harness_push_and_pull (h, solid_frame (GST_VIDEO_FORMAT_RGB, 320,
            240, 255, 0, 0));
    fail_unless (out != NULL);
    meta = gst_buffer_get_vkml_tensor_meta (out);
    fail_unless (meta != NULL);
    fail_unless_equals_string (meta->model_id, cases[i][1]);
    g_object_get (infer, "model-id", &id, NULL);
    fail_unless_equals_string (id, cases[i][1]);
    g_free (id);
    gst_object_unref (infer);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
    g_free (launch);
  }
}

GST_END_TEST;

/* A labels file that does not exist: RESOURCE/NOT_FOUND at start. */
GST_START_TEST (test_classify_missing_labels)
{
  GstElement *e = gst_element_factory_make ("vkmlclassify", NULL);

  g_object_set (e, "labels", "/nonexistent/labels.txt", NULL);
  expect_start_error (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
      "/nonexistent/labels.txt");
}

GST_END_TEST;

/* New caps mid-stream (another size and format) take effect on the next frame. */
GST_START_TEST (test_caps_change)
{
  GstHarness *h;
  GstBus *bus;
  GstMessage *msg;
  gchar *launch = g_strdup_printf ("vkmlinfer model=\"%s\" ! "
      "vkmlclassify labels=\"%s\"", color_path, labels_path);
  GstBuffer *out;

  h = harness_with_bus (launch, &bus);
  g_free (launch);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=RGB,width=320,height=240,framerate=30/1");
  fail_unless_equals_string (gst_structure_get_string (classify_one (h, bus,
              GST_VIDEO_FORMAT_RGB, 255, 0, 0, &msg), "label"), "red");
  gst_message_unref (msg);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=GRAY8,width=17,height=9,framerate=30/1");
  out = gst_harness_push_and_pull (h, solid_frame (GST_VIDEO_FORMAT_GRAY8, 17,
          9, 255, 0, 0));
  fail_unless (out != NULL);
  gst_buffer_unref (out);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
  fail_unless (msg != NULL);
  fail_unless_equals_string (gst_structure_get_string
      (gst_message_get_structure (msg), "label"), "white");
  gst_message_unref (msg);
  teardown_with_bus (h, bus);
}

GST_END_TEST;

/* A frame with a GstVideoMeta of padded stride (64 bytes for 10 RGB pixels, padding
 * bytes 255) is read through its stride: pure red, not a mix with the padding. */
GST_START_TEST (test_video_meta_stride)
{
  gint stride[GST_VIDEO_MAX_PLANES] = { 64 };
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
  GstHarness *h;
  GstBus *bus;
  GstMessage *msg;
  GstBuffer *in, *out;
  GstMapInfo map;
  gchar *launch = g_strdup_printf ("vkmlinfer model=\"%s\" ! "
      "vkmlclassify labels=\"%s\"", color_path, labels_path);
  gfloat score = 0;
  guint x, y;

  h = harness_with_bus (launch, &bus);
  g_free (launch);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=RGB,width=10,height=10,framerate=30/1");
  in = gst_buffer_new_allocate (NULL, 64 * 10, NULL);
  fail_unless (gst_buffer_map (in, &map, GST_MAP_WRITE));
  memset (map.data, 255, map.size);
  for (y = 0; y < 10; y++)
    for (x = 0; x < 10; x++) {
      map.data[y * 64 + x * 3 + 1] = 0;
      map.data[y * 64 + x * 3 + 2] = 0;
    }
  gst_buffer_unmap (in, &map);
  gst_buffer_add_video_meta_full (in, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_RGB, 10, 10, 1, offset, stride);
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  gst_buffer_unref (out);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
  fail_unless (msg != NULL);
  fail_unless_equals_string (gst_structure_get_string
      (gst_message_get_structure (msg), "label"), "red");
  fail_unless (gst_structure_get (gst_message_get_structure (msg), "score",
          G_TYPE_FLOAT, &score, NULL));
  fail_unless (score > 0.999f, "red scored %f: padding was read", score);
  gst_message_unref (msg);
  teardown_with_bus (h, bus);
}

GST_END_TEST;

/* start/stop twice (READY <-> PAUSED): the second start works as the first. */
GST_START_TEST (test_restart)
{
  GstElement *e = infer_with (color_path, "default");
  guint i;

  for (i = 0; i < 2; i++) {
    fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
        GST_STATE_CHANGE_SUCCESS);
    fail_unless_equals_int (gst_element_set_state (e, GST_STATE_READY),
        GST_STATE_CHANGE_SUCCESS);
  }
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (e);
}

GST_END_TEST;

/* A property read at start (mean, device) set while PAUSED is refused with a warning
 * naming it, and keeps its value; one that may change (inference-interval) changes;
 * in READY mean changes. */
GST_START_TEST (test_start_property_refused_running)
{
  GstElement *e = infer_with (color_path, "default");
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *error = NULL;
  gchar *mean = NULL;
  guint interval = 0;

  gst_element_set_bus (e, bus);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_SUCCESS);
  g_object_set (e, "mean", "0.5,0.5", "inference-interval", 3, NULL);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL);
  gst_message_parse_warning (msg, &error, NULL);
  fail_unless (strstr (error->message, "'mean' cannot change while the element "
          "is PAUSED") != NULL, "%s", error->message);
  g_clear_error (&error);
  gst_message_unref (msg);
  g_object_get (e, "mean", &mean, "inference-interval", &interval, NULL);
  fail_unless_equals_string (mean, "0");
  fail_unless_equals_int (interval, 3);
  g_free (mean);
  g_object_set (e, "device", "cpu", NULL);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL);
  gst_message_unref (msg);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  g_object_set (e, "mean", "0.5", NULL);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING) == NULL);
  g_object_get (e, "mean", &mean, NULL);
  fail_unless_equals_string (mean, "0.5");
  g_free (mean);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_END_TEST;

static Suite *
vkmlinfer_suite (void)
{
  Suite *s = suite_create ("vkmlinfer");
  TCase *tc = tcase_create ("general");

  find_models ();
  /* the mnist test names device 0 (lavapipe in CI; the default device is vkml's CPU
   * device where no real GPU exists, so the other tests run there) */
  gst_test_require_vulkan_device ();
  suite_add_tcase (s, tc);
  /* lavapipe runs mnist in well under a second; room for slow CI machines */
  tcase_set_timeout (tc, 120);
  tcase_add_checked_fixture (tc, register_elements, NULL);
  tcase_add_test (tc, test_mnist_matches_libvkml);
  tcase_add_test (tc, test_mnist_precision_fp16);
  tcase_add_test (tc, test_bad_model_path);
  tcase_add_test (tc, test_no_model);
  tcase_add_test (tc, test_not_a_model);
  tcase_add_test (tc, test_unsupported_op);
  tcase_add_test (tc, test_bad_device);
  tcase_add_test (tc, test_caps_model_cannot_take);
  tcase_add_test (tc, test_caps_format_refused);
  tcase_add_test (tc, test_demo_model_rgb);
  tcase_add_test (tc, test_demo_model_bgrx);
  tcase_add_test (tc, test_nhwc_model_rgba);
  tcase_add_test (tc, test_caps_change);
  tcase_add_test (tc, test_video_meta_stride);
  tcase_add_test (tc, test_restart);
  tcase_add_test (tc, test_start_property_refused_running);
  tcase_add_test (tc, test_classify_tensor_by_name);
  tcase_add_test (tc, test_classify_unknown_tensor);
  tcase_add_test (tc, test_infer_model_id);
  tcase_add_test (tc, test_classify_missing_labels);
  return s;
}

GST_CHECK_MAIN (vkmlinfer);
