/* Model bundles (gstvkmlbundle.c): the schema read into its fields, each kind of bad
 * file refused naming the file and the key; vkmlinfer taking its pre-processing from
 * the JSON beside the model (values checked on an Identity model), properties
 * overriding it and 'config' naming another; vkmlclassify and vkmldetect taking labels
 * and decoder settings from the bundle of the meta's model with no property set. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gstvkmlbundle.h"
#include "gstvkmlclassify.h"
#include "gstvkmldetect.h"
#include "gstvkmlinfer.h"
#include "gstvkmltensormeta.h"
#include "testutil.h"
#include "gst_testutil.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

static gchar *tmp_dir;

/* Writes @text to @name in the test's folder; returns the path (g_free). */
static gchar *
write_file (const gchar * name, const gchar * text)
{
  gchar *path = g_build_filename (tmp_dir, name, NULL);

  fail_unless (g_file_set_contents (path, text, -1, NULL));
  return path;
}

/* Copies the build's model @rel (under the build root) into the test's folder as
 * @name; returns the copy's path. */
static gchar *
copy_model (const gchar * rel, const gchar * name)
{
  gchar *src = g_build_filename (gst_test_build_root (), rel, NULL);
  gchar *data = NULL, *path;
  gsize size;

  fail_unless (g_file_get_contents (src, &data, &size, NULL), "%s", src);
  path = g_build_filename (tmp_dir, name, NULL);
  fail_unless (g_file_set_contents (path, data, (gssize) size, NULL));
  g_free (data);
  g_free (src);
  return path;
}

/* Every key of the schema lands in its field. */
GST_START_TEST (test_load_every_key)
{
  gchar *labels = write_file ("l.txt", "cat\ndog\n");
  gchar *path = write_file ("every.json", "{\"description\": \"a test\","
      "\"input\": {\"scale\": 0.5, \"mean\": [1, 2, 3], \"std\": 4,"
      " \"channel-order\": \"bgr\", \"resize\": \"letterbox\", \"pad-value\": 114},"
      "\"labels-file\": \"l.txt\","
      "\"decoder\": {\"type\": \"detector\", \"format\": \"yolox\","
      " \"score-threshold\": 0.3, \"iou-threshold\": 0.6, \"max-detections\": 7,"
      " \"background-class\": 0, \"classes\": [2, 5], \"strides\": [8, 16]}}");
  GError *error = NULL;
  GstVkmlBundle *b = gst_vkml_bundle_load (path, &error);

  fail_unless (b != NULL, "%s", error ? error->message : "");
  fail_unless_equals_float (b->input.scale, 0.5f);
  fail_unless (b->input.mean[0] == 1 && b->input.mean[1] == 2
      && b->input.mean[2] == 3);
  fail_unless (b->input.std[0] == 4 && b->input.std[2] == 4);
  fail_unless (b->input.bgr);
  fail_unless_equals_int (b->input.resize, VKML_RESIZE_LETTERBOX);
  fail_unless_equals_float (b->input.pad_value, 114);
  fail_unless_equals_int (b->n_labels, 2);
  fail_unless_equals_string (b->labels[1], "dog");
  fail_unless_equals_int (b->decoder, GST_VKML_BUNDLE_DECODER_DETECTOR);
  fail_unless_equals_int (b->format, GST_VKML_DETECT_FORMAT_YOLOX);
  fail_unless_equals_float (b->score_threshold, 0.3f);
  fail_unless_equals_float (b->iou_threshold, 0.6f);
  fail_unless_equals_int (b->max_detections, 7);
  fail_unless_equals_int (b->background_class, 0);
  fail_unless (b->classes->len == 2
      && g_array_index (b->classes, gint, 1) == 5);
  fail_unless (b->n_strides == 2 && b->strides[1] == 16);
  fail_unless_equals_int (b->set, GST_VKML_BUNDLE_SCALE | GST_VKML_BUNDLE_MEAN
      | GST_VKML_BUNDLE_STD | GST_VKML_BUNDLE_CHANNEL_ORDER
      | GST_VKML_BUNDLE_RESIZE | GST_VKML_BUNDLE_PAD_VALUE
      | GST_VKML_BUNDLE_FORMAT | GST_VKML_BUNDLE_SCORE_THRESHOLD
      | GST_VKML_BUNDLE_IOU_THRESHOLD | GST_VKML_BUNDLE_MAX_DETECTIONS
      | GST_VKML_BUNDLE_BACKGROUND_CLASS | GST_VKML_BUNDLE_CLASSES
      | GST_VKML_BUNDLE_STRIDES);
  gst_vkml_bundle_free (b);
  g_free (path);

  path = write_file ("cls.json", "{\"labels\": [\"a\", \"b\", \"c\"],"
      "\"decoder\": {\"type\": \"classifier\", \"tensor\": \"p\","
      " \"softmax\": true, \"top-k\": 2, \"threshold\": -1.5}}");
  b = gst_vkml_bundle_load (path, &error);
  fail_unless (b != NULL, "%s", error ? error->message : "");
  fail_unless (b->n_labels == 3 && g_str_equal (b->labels[2], "c"));
  fail_unless_equals_int (b->decoder, GST_VKML_BUNDLE_DECODER_CLASSIFIER);
  fail_unless_equals_string (b->tensor, "p");
  fail_unless (b->softmax);
  fail_unless_equals_int (b->top_k, 2);
  fail_unless_equals_float (b->threshold, -1.5f);
  gst_vkml_bundle_free (b);
  g_free (path);
  g_free (labels);
}

GST_END_TEST;

/* Each bad file: NULL, and an error naming the file and what is wrong where. */
GST_START_TEST (test_bad_files)
{
  static const gchar *cases[][3] = {
    /* text, error code, words the message must hold */
    {"{\"input\": {\"meen\": 1}}", "S", "unknown key 'input.meen'"},
    {"{\"input\": {\"mean\": [1, 2]}}", "S", "'input.mean' must be a number"},
    {"{\"input\": {\"std\": [1, 0, 1]}}", "S", "'input.std' must be a number "
          "other than 0"},
    {"{\"input\": {\"resize\": \"zoom\"}}", "S",
        "'input.resize' must be one of stretch, letterbox, crop"},
    {"{\"input\": {\"pad-value\": 300}}", "S", "'input.pad-value' must be a "
          "number from 0 to 255"},
    {"{\"decoder\": {\"top-k\": 2}}", "S", "'decoder' needs a \"type\""},
    {"{\"decoder\": {\"type\": \"classifier\", \"top-k\": 0}}", "S",
        "'decoder.top-k' must be a whole number from 1"},
    {"{\"decoder\": {\"type\": \"classifier\", \"format\": \"ssd\"}}", "S",
        "unknown key 'decoder.format' (decoder takes type, tensor"},
    {"{\"decoder\": {\"type\": \"detector\", \"score-threshold\": \"high\"}}",
        "S", "'decoder.score-threshold' must be a number from 0 to 1"},
    {"{\"decoder\": {\"type\": \"detector\", \"strides\": []}}", "S",
        "'decoder.strides' must be an array of 1 to 8 strides"},
    {"{\"labels\": [\"a\", 3]}", "S", "'labels' must be an array of strings"},
    {"{\"labels-file\": \"nope.txt\"}", "N", "'labels-file':"},
    {"{\"lables\": []}", "S", "unknown key 'lables' (the top level takes"},
    {"[1, 2]", "S", "the top level must be an object"},
    {"{\"input\": {\"scale\": 1,}", "S", "bad.json:"},
  };
  gchar *path = g_build_filename (tmp_dir, "bad.json", NULL);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GError *error = NULL;
    GstVkmlBundle *b;

    fail_unless (g_file_set_contents (path, cases[i][0], -1, NULL));
    b = gst_vkml_bundle_load (path, &error);
    fail_unless (b == NULL, "accepted %s", cases[i][0]);
    fail_unless (error != NULL);
    fail_unless_equals_int (error->code, cases[i][1][0] == 'N' ?
        GST_RESOURCE_ERROR_NOT_FOUND : GST_RESOURCE_ERROR_SETTINGS);
    fail_unless (strstr (error->message, cases[i][2]) != NULL,
        "%s: '%s' does not say '%s'", cases[i][0], error->message, cases[i][2]);
    fail_unless (g_str_has_prefix (error->message, path), "%s", error->message);
    g_error_free (error);
  }
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_path_for_model)
{
  static const gchar *cases[][2] = {
    {"m.onnx", "m.json"}, {"/a/b.c/m.onnx", "/a/b.c/m.json"},
    {"/a/b.c/m", "/a/b.c/m.json"}, {"model.v2.onnx", "model.v2.json"},
    {".onnx", ".onnx.json"},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *p = gst_vkml_bundle_path_for_model (cases[i][0]);

    fail_unless_equals_string (p, cases[i][1]);
    g_free (p);
  }
}

GST_END_TEST;

/* A solid RGB frame through vkmlinfer on @model with @props; returns input values
 * [c] at pixel (0, 0) of the Identity model's output [1,3,8,6]. */
static void
identity_values (const gchar * model, const gchar * props, gfloat out[3])
{
  GstHarness *h = gst_test_vkmlinfer_harness (model, props,
      "video/x-raw,format=RGB,width=12,height=16,framerate=30/1", NULL);
  GstBuffer *in = gst_buffer_new_allocate (NULL, 12 * 16 * 3, NULL), *res;
  const GstVkmlTensor *t;
  GstMapInfo map;
  guint i;

  for (i = 0; i < 12 * 16; i++) {
    const guint8 px[3] = { 100, 150, 200 };

    gst_buffer_fill (in, i * 3, px, 3);
  }
  res = gst_harness_push_and_pull (h, in);
  fail_unless (res != NULL);
  t = gst_vkml_tensor_meta_get (gst_buffer_get_vkml_tensor_meta (res), 0);
  fail_unless (t != NULL && gst_buffer_map (t->data, &map, GST_MAP_READ));
  for (i = 0; i < 3; i++)
    out[i] = ((const gfloat *) map.data)[i * 8 * 6];
  gst_buffer_unmap (t->data, &map);
  gst_buffer_unref (res);
  gst_harness_teardown (h);
}

/* m.json beside m.onnx sets the pre-processing; a property set wins; 'config' names
 * another file. Pixel (R, G, B) = (100, 150, 200). */
GST_START_TEST (test_infer_reads_input)
{
  gchar *model = copy_model ("tests/gst/id-nchw.onnx", "m.onnx");
  gchar *beside = write_file ("m.json", "{\"input\": {\"scale\": 1,"
      " \"mean\": [10, 20, 30], \"std\": [2, 4, 5], \"channel-order\": \"bgr\"}}");
  gchar *other = write_file ("other.json", "{\"input\": {\"scale\": 0.5}}");
  gchar *props;
  gfloat v[3];

  /* (B - 10) / 2, (G - 20) / 4, (R - 30) / 5 */
  identity_values (model, "", v);
  fail_unless (v[0] == 95.0f && v[1] == 32.5f && v[2] == 14.0f,
      "%g %g %g", v[0], v[1], v[2]);
  /* channel-order and mean set: only scale and std from the bundle */
  identity_values (model, "channel-order=rgb mean=0", v);
  fail_unless (v[0] == 50.0f && v[1] == 37.5f && v[2] == 40.0f,
      "%g %g %g", v[0], v[1], v[2]);
  props = g_strdup_printf ("config=\"%s\"", other);
  identity_values (model, props, v);
  fail_unless (v[0] == 50.0f && v[1] == 75.0f && v[2] == 100.0f,
      "%g %g %g", v[0], v[1], v[2]);
  g_free (props);
  g_unlink (beside);
  identity_values (model, "", v);       /* none: 1/255 */
  fail_unless (fabsf (v[0] - 100.0f / 255) < 1e-6f, "%g", v[0]);
  g_free (other);
  g_free (beside);
  g_free (model);
}

GST_END_TEST;

/* The error vkmlinfer's start posts for @props on @model: its text. */
static gchar *
start_error (const gchar * model, const gchar * props, gint code)
{
  gchar *launch = g_strdup_printf ("vkmlinfer model=\"%s\" device=0 %s", model,
      props);
  GstElement *e = gst_parse_launch (launch, NULL);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *error = NULL;
  gchar *text;

  fail_unless (e != NULL);
  gst_element_set_bus (e, bus);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &error, NULL);
  fail_unless (error->domain == GST_RESOURCE_ERROR && error->code == code,
      "%s", error->message);
  text = g_strdup (error->message);
  g_error_free (error);
  gst_message_unref (msg);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
  g_free (launch);
  return text;
}

/* A bad bundle beside the model, or a 'config' that does not exist, fails the start
 * naming the file and the key. */
GST_START_TEST (test_infer_bad_bundle)
{
  gchar *model = copy_model ("tests/gst/id-nchw.onnx", "bad.onnx");
  gchar *json = write_file ("bad.json", "{\"input\": {\"scale\": \"x\"}}");
  gchar *text;

  text = start_error (model, "", GST_RESOURCE_ERROR_SETTINGS);
  fail_unless (strstr (text, json) && strstr (text, "'input.scale'"), "%s",
      text);
  g_free (text);
  text = start_error (model, "config=/nonexistent/b.json",
      GST_RESOURCE_ERROR_NOT_FOUND);
  fail_unless (strstr (text, "/nonexistent/b.json") != NULL, "%s", text);
  g_free (text);
  g_unlink (json);
  g_free (json);
  g_free (model);
}

GST_END_TEST;

/* A solid red 320x240 RGB frame. */
static GstBuffer *
red_frame (void)
{
  GstBuffer *in = gst_buffer_new_allocate (NULL, 320 * 240 * 3, NULL);
  GstMapInfo map;
  guint i;

  fail_unless (gst_buffer_map (in, &map, GST_MAP_WRITE));
  for (i = 0; i < 320 * 240; i++) {
    map.data[3 * i] = 255;
    map.data[3 * i + 1] = map.data[3 * i + 2] = 0;
  }
  gst_buffer_unmap (in, &map);
  return in;
}

static GstBuffer *
push_red (GstHarness * h)
{
  GstBuffer *out = gst_harness_push_and_pull (h, red_frame ());

  fail_unless (out != NULL);
  return out;
}

/* vkmlinfer on @model (one frame in flight, so a flow error downstream comes back with
 * the push) followed by @after. */
static GstHarness *
harness_for (const gchar * model, const gchar * after)
{
  gchar *launch = g_strdup_printf ("vkmlinfer model=\"%s\" device=0 "
      "max-in-flight=1 ! %s", model, after);
  GstHarness *h = gst_harness_new_parse (launch);

  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=RGB,width=320,height=240,framerate=30/1");
  g_free (launch);
  return h;
}

/* vkmlclassify with no property: labels, top-k and softmax from the bundle (scores
 * the softmax of the model's probabilities, computed here); top-k set wins. */
GST_START_TEST (test_classify_from_bundle)
{
  gchar *model = copy_model ("pipelines/color.onnx", "c.onnx");
  gchar *json = write_file ("c.json", "{\"labels\": [\"L0\", \"L1\", \"L2\","
      " \"L3\", \"L4\", \"L5\", \"L6\", \"L7\"],"
      " \"decoder\": {\"type\": \"classifier\", \"top-k\": 2, \"softmax\": true}}");
  const gchar *after[] = { "vkmlclassify", "vkmlclassify top-k=1" };
  guint a;

  for (a = 0; a < G_N_ELEMENTS (after); a++) {
    GstHarness *h = harness_for (model, after[a]);
    GstBuffer *out = push_red (h);
    const GstVkmlTensor *t =
        gst_vkml_tensor_meta_get (gst_buffer_get_vkml_tensor_meta (out), 0);
    GstVideoRegionOfInterestMeta *roi;
    gpointer state = NULL;
    GstMapInfo map;
    gdouble sum = 0, top = -INFINITY;
    gsize i, n = gst_vkml_tensor_element_count (t);
    guint k = 0;

    fail_unless (gst_buffer_map (t->data, &map, GST_MAP_READ));
    for (i = 0; i < n; i++)
      top = MAX (top, ((const gfloat *) map.data)[i]);
    for (i = 0; i < n; i++)
      sum += exp (((const gfloat *) map.data)[i] - top);
    while ((roi = (GstVideoRegionOfInterestMeta *)
            gst_buffer_iterate_meta_filtered (out, &state,
                GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
      GstStructure *s = gst_video_region_of_interest_meta_get_param (roi,
          "classification");
      gint id;
      gfloat score;
      gchar want[8];

      fail_unless (gst_structure_get (s, "class-id", G_TYPE_INT, &id,
              "score", G_TYPE_FLOAT, &score, NULL));
      g_snprintf (want, sizeof (want), "L%d", id);
      fail_unless_equals_string (g_quark_to_string (roi->roi_type), want);
      fail_unless (fabs (score - exp (((const gfloat *) map.data)[id] - top) /
              sum) < 1e-5, "score %g", score);
      k++;
    }
    gst_buffer_unmap (t->data, &map);
    fail_unless_equals_int (k, a == 0 ? 2 : 1);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
  }
  g_unlink (json);
  g_free (json);
  g_free (model);
}

GST_END_TEST;

/* Counts @buf's ROI metas and checks each is labelled @label. */
static guint
count_rois (GstBuffer * buf, const gchar * label)
{
  GstVideoRegionOfInterestMeta *roi;
  gpointer state = NULL;
  guint n = 0;

  while ((roi = (GstVideoRegionOfInterestMeta *)
          gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    fail_unless_equals_string (g_quark_to_string (roi->roi_type), label);
    n++;
  }
  return n;
}

/* vkmldetect with no property: labels (a file beside the bundle) and max-detections
 * from the bundle; a property set wins; a format the tensor does not fit, from the
 * bundle, is refused naming the one that fits. The detector gives 48 red boxes. */
GST_START_TEST (test_detect_from_bundle)
{
  gchar *model = copy_model ("pipelines/detector.onnx", "d.onnx");
  gchar *labels = copy_model ("pipelines/color-labels.txt", "d-labels.txt");
  gchar *json = write_file ("d.json", "{\"labels-file\": \"d-labels.txt\","
      " \"decoder\": {\"type\": \"detector\", \"format\": \"yolov8\","
      " \"score-threshold\": 0.5, \"max-detections\": 5}}");
  GstHarness *h = harness_for (model, "vkmldetect");
  GstBuffer *out = push_red (h);
  GstBus *bus;
  GstMessage *msg;
  GError *error = NULL;

  fail_unless_equals_int (count_rois (out, "red"), 5);
  gst_buffer_unref (out);
  gst_harness_teardown (h);

  h = harness_for (model, "vkmldetect max-detections=0");
  out = push_red (h);
  fail_unless_equals_int (count_rois (out, "red"), 48);
  gst_buffer_unref (out);
  gst_harness_teardown (h);

  /* classes by the bundle's labels: the red boxes, or none for blue */
  h = harness_for (model, "vkmldetect classes=red");
  out = push_red (h);
  fail_unless_equals_int (count_rois (out, "red"), 5);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  h = harness_for (model, "vkmldetect classes=blue");
  out = push_red (h);
  fail_unless_equals_int (count_rois (out, "red"), 0);
  gst_buffer_unref (out);
  gst_harness_teardown (h);

  g_free (json);
  json = write_file ("d.json", "{\"decoder\": {\"type\": \"detector\","
      " \"format\": \"yolov5\"}}");
  h = harness_for (model, "vkmldetect");
  bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  /* the first frame's error reaches upstream with the next push */
  gst_harness_push (h, red_frame ());
  fail_unless_equals_int (gst_harness_push (h, red_frame ()), GST_FLOW_ERROR);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &error, NULL);
  fail_unless (strstr (error->message, "yolov5 expects [1,N,5+C]")
      && strstr (error->message, "'output0' [1,12,48] float")
      && strstr (error->message, "use format=yolov8"), "%s", error->message);
  g_error_free (error);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  g_unlink (json);
  g_unlink (labels);
  g_free (labels);
  g_free (json);
  g_free (model);
}

GST_END_TEST;

static void
register_elements (void)
{
  fail_unless (GST_ELEMENT_REGISTER (vkmlinfer, NULL));
  fail_unless (GST_ELEMENT_REGISTER (vkmlclassify, NULL));
  fail_unless (GST_ELEMENT_REGISTER (vkmldetect, NULL));
}

/* After the last test (in the parent process): the test's folder and its files. */
static void
remove_tmp_dir (void)
{
  GDir *dir = g_dir_open (tmp_dir, 0, NULL);
  const gchar *name;

  while (dir && (name = g_dir_read_name (dir))) {
    gchar *path = g_build_filename (tmp_dir, name, NULL);

    g_unlink (path);
    g_free (path);
  }
  if (dir)
    g_dir_close (dir);
  g_rmdir (tmp_dir);
  g_free (tmp_dir);
}

static Suite *
bundle_suite (void)
{
  Suite *s = suite_create ("vkml_bundle");
  TCase *tc = tcase_create ("general");

  (void) test_failures;         /* testutil.h's counter; GstCheck counts here */
  gst_test_require_vulkan_device ();
  tmp_dir = g_dir_make_tmp ("vkml-bundle-XXXXXX", NULL);
  if (!tmp_dir)
    g_error ("cannot make a temporary folder");
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_checked_fixture (tc, register_elements, NULL);
  tcase_add_unchecked_fixture (tc, NULL, remove_tmp_dir);
  tcase_add_test (tc, test_load_every_key);
  tcase_add_test (tc, test_bad_files);
  tcase_add_test (tc, test_path_for_model);
  tcase_add_test (tc, test_infer_reads_input);
  tcase_add_test (tc, test_infer_bad_bundle);
  tcase_add_test (tc, test_classify_from_bundle);
  tcase_add_test (tc, test_detect_from_bundle);
  return s;
}

GST_CHECK_MAIN (bundle);
