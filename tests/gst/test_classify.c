/* vkmlclassify on hand-written tensors: the meta of its model-id (default the newest,
 * also after buffer copies), top-k, threshold, softmax, the ROI metas it attaches,
 * post-messages, and a new model's class count against the labels. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gstvkmlclassify.h"
#include "gstvkmltensormeta.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#if defined (HAVE_GST_ANALYTICS) && GST_CHECK_VERSION (1, 24, 0)
#include <gst/analytics/analytics.h>
#define VKML_WITH_ANALYTICS 1
#endif

static void
add_scores (GstBuffer * buf, const gchar * model_id, const gfloat v[4])
{
  const gint64 dims[] = { 1, 4 };
  GstVkmlTensorMeta *meta = gst_buffer_add_vkml_tensor_meta (buf);
  GstBuffer *data = gst_buffer_new_memdup (v, 4 * sizeof (gfloat));

  gst_vkml_tensor_meta_set_model_id (meta, model_id);
  fail_unless (gst_vkml_tensor_meta_add (meta, "probabilities",
          VKML_DTYPE_FLOAT, 2, dims, data) != NULL);
  gst_buffer_unref (data);
}

/* A buffer with model "a" (best: class 1, then 3) and, newer, model "b" (class 0). */
static GstBuffer *
two_models (void)
{
  static const gfloat a[4] = { 0.1f, 0.6f, 0.05f, 0.25f };
  static const gfloat b[4] = { 0.9f, 0.02f, 0.03f, 0.05f };
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 320 * 240 * 3, NULL);

  add_scores (buf, "a", a);
  add_scores (buf, "b", b);
  return buf;
}

#ifdef VKML_WITH_ANALYTICS
/* GStreamer >= 1.24: @buf's GstAnalyticsRelationMeta has one GstAnalyticsClsMtd per
 * ROI of @rois, in the same order, with one class: the ROI's label quark and score. */
static void
check_cls_mtds (GstBuffer * buf, GPtrArray * rois)
{
  GstAnalyticsRelationMeta *rmeta =
      gst_buffer_get_analytics_relation_meta (buf);
  GstAnalyticsClsMtd cls;
  gpointer state = NULL;
  guint i = 0;

  if (!rmeta) {
    fail_unless_equals_int (rois->len, 0);
    return;
  }
  while (gst_analytics_relation_meta_iterate (rmeta, &state,
          gst_analytics_cls_mtd_get_mtd_type (), &cls)) {
    GstVideoRegionOfInterestMeta *roi;
    GstStructure *p;
    gfloat score = 0;

    fail_unless (i < rois->len, "more ClsMtd than results");
    roi = g_ptr_array_index (rois, i++);
    p = gst_video_region_of_interest_meta_get_param (roi, "classification");
    fail_unless (gst_structure_get (p, "score", G_TYPE_FLOAT, &score, NULL));
    fail_unless_equals_int (gst_analytics_cls_mtd_get_length (&cls), 1);
    fail_unless_equals_string (g_quark_to_string
        (gst_analytics_cls_mtd_get_quark (&cls, 0)),
        g_quark_to_string (roi->roi_type));
    fail_unless_equals_float (gst_analytics_cls_mtd_get_level (&cls, 0), score);
  }
  fail_unless_equals_int (i, rois->len);
}
#endif

/* The ROI metas of @buf, in the order they were added, as "label:class-id:score;..." (whole-frame
 * boxes checked here; on GStreamer >= 1.24 also the ClsMtds, the same results). */
static gchar *
results (GstBuffer * buf)
{
  GString *s = g_string_new (NULL);
  GPtrArray *rois = g_ptr_array_new ();
  GstVideoRegionOfInterestMeta *roi;
  gpointer state = NULL;
  guint i;

  while ((roi = (GstVideoRegionOfInterestMeta *)
          gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)))
    g_ptr_array_add (rois, roi);
  for (i = 0; i < rois->len; i++) {
    GstStructure *p;
    gint id = -1;
    gfloat score = 0;

    roi = g_ptr_array_index (rois, i);
    fail_unless (roi->x == 0 && roi->y == 0 && roi->w == 320 && roi->h == 240);
    p = gst_video_region_of_interest_meta_get_param (roi, "classification");
    fail_unless (p != NULL);
    fail_unless (gst_structure_get (p, "class-id", G_TYPE_INT, &id, "score",
            G_TYPE_FLOAT, &score, NULL));
    fail_unless_equals_string (gst_structure_get_string (p, "label"),
        g_quark_to_string (roi->roi_type));
    g_string_append_printf (s, "%s%s:%d:%.2f", i ? ";" : "",
        g_quark_to_string (roi->roi_type), id, score);
  }
#ifdef VKML_WITH_ANALYTICS
  check_cls_mtds (buf, rois);
#endif
  g_ptr_array_unref (rois);
  return g_string_free (s, FALSE);
}

/* Runs @launch on two_models() (or a copy of it, whose metas are new ones) and
 * returns the results; *n_messages gets the number of element messages. */
static gchar *
classify (const gchar * launch, gboolean copy, guint * n_messages)
{
  GstHarness *h = gst_harness_new_parse (launch);
  GstBus *bus = gst_bus_new ();
  GstBuffer *in = two_models (), *out;
  GstMessage *msg;
  gchar *text;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=RGB,width=320,height=240,framerate=30/1");
  if (copy) {
    GstBuffer *c = gst_buffer_copy (in);

    gst_buffer_unref (in);
    in = c;
  }
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  text = results (out);
  *n_messages = 0;
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    (*n_messages)++;
    gst_message_unref (msg);
  }
  gst_buffer_unref (out);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  return text;
}

static void
check (const gchar * launch, gboolean copy, const gchar * want,
    guint want_messages)
{
  guint n;
  gchar *got = classify (launch, copy, &n);

  fail_unless_equals_string (got, want);
  fail_unless_equals_int (n, want_messages);
  g_free (got);
}

/* Default: the newest meta (model "b"), its best class, one message; the same after
 * a buffer copy. model-id=a picks the other. */
GST_START_TEST (test_model_id)
{
  check ("vkmlclassify", FALSE, "0:0:0.90", 1);
  check ("vkmlclassify", TRUE, "0:0:0.90", 1);
  check ("vkmlclassify model-id=a", FALSE, "1:1:0.60", 1);
  check ("vkmlclassify model-id=a", TRUE, "1:1:0.60", 1);
}

GST_END_TEST;

/* top-k: the k best, best first; threshold cuts; post-messages=false posts none. */
GST_START_TEST (test_top_k_threshold)
{
  check ("vkmlclassify model-id=a top-k=3", FALSE,
      "1:1:0.60;3:3:0.25;0:0:0.10", 3);
  check ("vkmlclassify model-id=a top-k=3 threshold=0.2", FALSE,
      "1:1:0.60;3:3:0.25", 2);
  check ("vkmlclassify model-id=a top-k=2 post-messages=false", FALSE,
      "1:1:0.60;3:3:0.25", 0);
  check ("vkmlclassify model-id=a threshold=0.95", FALSE, "", 0);
}

GST_END_TEST;

/* A model-id no meta has: buffers pass without results (and no messages). */
GST_START_TEST (test_unknown_model_id)
{
  check ("vkmlclassify model-id=zzz", FALSE, "", 0);
}

GST_END_TEST;

/* softmax=true: the scores of model "a" as probabilities (e^v / sum e^v, computed
 * by hand: 0.210, 0.346, 0.200, 0.244), threshold on them. */
GST_START_TEST (test_softmax)
{
  check ("vkmlclassify model-id=a top-k=2 softmax=true", FALSE,
      "1:1:0.35;3:3:0.24", 2);
  check ("vkmlclassify model-id=a top-k=4 softmax=true threshold=0.205", FALSE,
      "1:1:0.35;3:3:0.24;0:0:0.21", 3);
}

GST_END_TEST;

/* A new model behind the same model-id (a swap that changes the output's shape): the
 * element notices and warns that the labels do not match its class count. */
GST_START_TEST (test_model_change_labels)
{
  static const gfloat six[6] = { 0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f };
  const gint64 dims[] = { 1, 6 };
  gchar *path = g_build_filename (g_get_tmp_dir (), "vkml-classify-XXXXXX.txt",
      NULL);
  gint fd = g_mkstemp (path);
  gchar *launch;
  GstHarness *h;
  GstBus *bus = gst_bus_new ();
  GstBuffer *buf;
  GstVkmlTensorMeta *meta;
  GstMessage *msg;
  GError *error = NULL;
  GstBuffer *data = gst_buffer_new_memdup (six, sizeof (six));

  fail_unless (fd >= 0);
  close (fd);
  fail_unless (g_file_set_contents (path, "w\nx\ny\nz\n", -1, NULL));
  launch = g_strdup_printf ("vkmlclassify model-id=a labels=\"%s\"", path);
  h = gst_harness_new_parse (launch);
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=RGB,width=320,height=240,framerate=30/1");
  gst_buffer_unref (gst_harness_push_and_pull (h, two_models ()));
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING) == NULL);
  buf = gst_buffer_new_allocate (NULL, 320 * 240 * 3, NULL);
  meta = gst_buffer_add_vkml_tensor_meta (buf);
  gst_vkml_tensor_meta_set_model_id (meta, "a");
  fail_unless (gst_vkml_tensor_meta_add (meta, "probabilities",
          VKML_DTYPE_FLOAT, 2, dims, data) != NULL);
  gst_buffer_unref (gst_harness_push_and_pull (h, buf));
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "no warning for the new model");
  gst_message_parse_warning (msg, &error, NULL);
  fail_unless (strstr (error->message, "Model 'a' has 6 classes in tensor "
          "'probabilities' but there are 4 labels") != NULL, "%s",
      error->message);
  g_error_free (error);
  gst_message_unref (msg);
  gst_buffer_unref (data);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  g_unlink (path);
  g_free (launch);
  g_free (path);
}

GST_END_TEST;

static Suite *
vkml_classify_suite (void)
{
  Suite *s = suite_create ("vkml_classify");
  TCase *tc = tcase_create ("general");

  if (!GST_ELEMENT_REGISTER (vkmlclassify, NULL))
    g_error ("cannot register vkmlclassify");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_model_id);
  tcase_add_test (tc, test_top_k_threshold);
  tcase_add_test (tc, test_unknown_model_id);
  tcase_add_test (tc, test_softmax);
  tcase_add_test (tc, test_model_change_labels);
  return s;
}

GST_CHECK_MAIN (vkml_classify);
