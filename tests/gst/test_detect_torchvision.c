/* vkmldetect format=torchvision and vkmloverlay's masks and keypoints, on synthetic
 * tensors laid out as torchvision's detectors export them: boxes [N,4] in input pixels,
 * labels int64 [N], scores [N], masks [N,1,H,W], keypoints [N,K,3], keypoints_scores
 * [N,K]. No model: the tensors are written by hand. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gstvkmldetect.h"
#include "gstvkmldetectdecode.h"
#include "gstvkmldetecttorchvision.h"
#include "gstvkmloverlay.h"
#include "gstvkmltensormeta.h"

#include <string.h>

#define N 3
#define SIDE 32                 /* the model's input, SIDE x SIDE */
#define K 2

/* Frame 64x64, input 32x32 stretched: frame = input x 2. */
static const GstVkmlInputGeometry stretch = { 64, 64, SIDE, SIDE, 0.5, 0.5,
  0, 0
};

/* Row 0: label 1, 0.9, (4,8)-(12,16), its mask 1 on input x 4..7, y 8..15, keypoints
 * (6,10) and (11.5,15); row 1: label 1, 0.8, (5,9)-(12,16), IoU 0.77 with row 0 (the
 * model's NMS kept it; vkmldetect keeps it too); row 2: label 2, 0.1, under 0.25. */
static GstBuffer *
torchvision_buffer (gboolean extras)
{
  static const gfloat boxes[N][4] = { {4, 8, 12, 16}, {5, 9, 12, 16},
  {0, 0, 30, 30}
  };
  static const gint64 labels[N] = { 1, 1, 2 };
  static const gfloat scores[N] = { 0.9f, 0.8f, 0.1f };
  static const gfloat keypoints[N][K][3] = { {{6, 10, 1}, {11.5f, 15, 1}} };
  static const gfloat kp_scores[N][K] = { {0.9f, 0.2f} };
  static gfloat masks[N][1][SIDE][SIDE];
  GstBuffer *buf = gst_buffer_new ();
  GstVkmlTensorMeta *meta = gst_buffer_add_vkml_tensor_meta (buf);
  const struct
  {
    const gchar *name;
    vkml_dtype dtype;
    guint rank;
    gint64 dims[4];
    gconstpointer data;
    gsize bytes;
  } t[] = {
    {"boxes", VKML_DTYPE_FLOAT, 2, {N, 4}, boxes, sizeof (boxes)},
    {"labels", VKML_DTYPE_INT64, 1, {N}, labels, sizeof (labels)},
    {"scores", VKML_DTYPE_FLOAT, 1, {N}, scores, sizeof (scores)},
    {"masks", VKML_DTYPE_FLOAT, 4, {N, 1, SIDE, SIDE}, masks, sizeof (masks)},
    {"keypoints", VKML_DTYPE_FLOAT, 3, {N, K, 3}, keypoints,
        sizeof (keypoints)},
    {"keypoints_scores", VKML_DTYPE_FLOAT, 2, {N, K}, kp_scores,
        sizeof (kp_scores)},
  };
  guint i, x, y;

  for (y = 8; y < 16; y++)
    for (x = 4; x < 8; x++)
      masks[0][0][y][x] = 1.0f;
  for (i = 0; i < (extras ? G_N_ELEMENTS (t) : 3); i++) {
    GstBuffer *data = gst_buffer_new_memdup (t[i].data, t[i].bytes);

    fail_unless (gst_vkml_tensor_meta_add (meta, t[i].name, t[i].dtype,
            t[i].rank, t[i].dims, data) != NULL);
    gst_buffer_unref (data);
  }
  meta->has_geometry = TRUE;
  meta->geometry = stretch;
  return buf;
}

/* auto picks torchvision; rows over the threshold, in their order, with their rows. */
GST_START_TEST (test_decode)
{
  GstBuffer *buf = torchvision_buffer (TRUE);
  GstVkmlDetectParams p = {.format = GST_VKML_DETECT_FORMAT_AUTO,
    .score_threshold = 0.25f,.background_class = -1
  };
  GArray *dets = g_array_new (FALSE, FALSE, sizeof (GstVkmlDetection));
  GstVkmlDetectFormat chosen;
  GstVkmlTorchvisionTensors tv;
  GstVkmlDetection *d;
  gchar *error = NULL;

  fail_unless (gst_vkml_detect_decode (gst_buffer_get_vkml_tensor_meta (buf),
          &p, dets, &chosen, &error), "%s", error);
  fail_unless_equals_int (chosen, GST_VKML_DETECT_FORMAT_TORCHVISION);
  fail_unless_equals_int (dets->len, 2);
  d = &g_array_index (dets, GstVkmlDetection, 1);
  fail_unless (d->x0 == 5 && d->y0 == 9 && d->x1 == 12 && d->y1 == 16);
  fail_unless (d->class_id == 1 && d->row == 1 && d->score == 0.8f);
  fail_unless (gst_vkml_torchvision_tensors (gst_buffer_get_vkml_tensor_meta
          (buf), &tv));
  fail_unless (tv.masks && tv.keypoints && tv.keypoint_scores);
  g_array_unref (dets);
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* Named otherwise, the outputs are found by shape; masks of another N are ignored;
 * without int64 labels it is no torchvision layout. */
GST_START_TEST (test_tensors_by_shape)
{
  const gint64 box_dims[] = { 2, 4 }, n_dims[] = { 2 }, mask_dims[] = { 3, 1, 4,
    4
  };
  GstBuffer *buf = gst_buffer_new ();
  GstVkmlTensorMeta *meta = gst_buffer_add_vkml_tensor_meta (buf);
  GstBuffer *f = gst_buffer_new_allocate (NULL, 3 * 16 * 4, NULL);
  GstBuffer *l = gst_buffer_new_allocate (NULL, 2 * 8, NULL);
  GstVkmlTorchvisionTensors tv;

  gst_vkml_tensor_meta_add (meta, "3188", VKML_DTYPE_FLOAT, 2, box_dims, f);
  gst_vkml_tensor_meta_add (meta, "3190", VKML_DTYPE_FLOAT, 1, n_dims, f);
  fail_if (gst_vkml_torchvision_tensors (meta, &tv));
  gst_vkml_tensor_meta_add (meta, "3189", VKML_DTYPE_INT64, 1, n_dims, l);
  gst_vkml_tensor_meta_add (meta, "3200", VKML_DTYPE_FLOAT, 4, mask_dims, f);
  fail_unless (gst_vkml_torchvision_tensors (meta, &tv));
  fail_unless_equals_string (tv.boxes->name, "3188");
  fail_unless_equals_string (tv.labels->name, "3189");
  fail_unless_equals_string (tv.scores->name, "3190");
  fail_unless (tv.masks == NULL && tv.keypoints == NULL);
  gst_buffer_unref (f);
  gst_buffer_unref (l);
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* The element: both overlapping boxes of class 1 kept (no second NMS), mapped onto the
 * 64x64 frame; row 0's mask over its ROI and its keypoints in frame pixels. */
GST_START_TEST (test_element)
{
  GstHarness *h = gst_harness_new_parse ("vkmldetect");
  GstVideoRegionOfInterestMeta *roi;
  GstStructure *s;
  GstBuffer *out;
  GBytes *bytes = NULL;
  const guint8 *m;
  const GValue *xs, *ys, *sc;
  guint w, hh, x, y;

  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=RGB,width=64,height=64,framerate=30/1");
  out = gst_harness_push_and_pull (h, torchvision_buffer (TRUE));
  fail_unless (out != NULL);
  roi = gst_buffer_get_video_region_of_interest_meta_id (out, 0);
  fail_unless (roi != NULL);
  fail_unless (roi->x == 8 && roi->y == 16 && roi->w == 16 && roi->h == 16,
      "%u,%u %ux%u", roi->x, roi->y, roi->w, roi->h);
  s = gst_video_region_of_interest_meta_get_param (roi, "mask");
  fail_unless (s != NULL);
  fail_unless (gst_structure_get (s, "width", G_TYPE_UINT, &w, "height",
          G_TYPE_UINT, &hh, "data", G_TYPE_BYTES, &bytes, NULL));
  fail_unless (w == 16 && hh == 16 && g_bytes_get_size (bytes) == 256);
  m = g_bytes_get_data (bytes, NULL);
  /* frame x 8..15 are input x 4..7: inside the mask; x 16..23 outside */
  for (y = 0; y < 16; y++)
    for (x = 0; x < 16; x++)
      fail_unless_equals_int (m[y * 16 + x], x < 8 ? 255 : 0);
  g_bytes_unref (bytes);
  s = gst_video_region_of_interest_meta_get_param (roi, "keypoints");
  fail_unless (s != NULL);
  xs = gst_structure_get_value (s, "x");
  ys = gst_structure_get_value (s, "y");
  sc = gst_structure_get_value (s, "score");
  fail_unless (gst_value_array_get_size (xs) == K);
  fail_unless_equals_float (g_value_get_float (gst_value_array_get_value (xs,
              1)), 23.0f);
  fail_unless_equals_float (g_value_get_float (gst_value_array_get_value (ys,
              1)), 30.0f);
  fail_unless_equals_float (g_value_get_float (gst_value_array_get_value (sc,
              0)), 0.9f);
  roi = gst_buffer_get_video_region_of_interest_meta_id (out, 1);
  fail_unless (roi != NULL);
  fail_unless (roi->x == 10 && roi->y == 18 && roi->w == 14 && roi->h == 14,
      "%u,%u %ux%u", roi->x, roi->y, roi->w, roi->h);
  /* row 1 has an empty mask and zero keypoints: the params are there all the same */
  fail_unless (gst_video_region_of_interest_meta_get_param (roi, "mask"));
  fail_unless (gst_buffer_get_video_region_of_interest_meta_id (out,
          2) == NULL);
  gst_buffer_unref (out);

  /* boxes, labels and scores alone: ROIs without masks or keypoints */
  out = gst_harness_push_and_pull (h, torchvision_buffer (FALSE));
  roi = gst_buffer_get_video_region_of_interest_meta_id (out, 0);
  fail_unless (roi != NULL);
  fail_unless (gst_video_region_of_interest_meta_get_param (roi, "mask") ==
      NULL);
  fail_unless (gst_video_region_of_interest_meta_get_param (roi,
          "keypoints") == NULL);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* vkmloverlay: the masked pixels mixed half and half with the class colour, the
 * others inside the box untouched, a 3x3 dot (thickness 1) at each keypoint. */
GST_START_TEST (test_overlay)
{
  GstHarness *h = gst_harness_new_parse ("vkmldetect ! vkmloverlay thickness=1 "
      "draw-labels=false");
  static const guint8 orange[3] = { 255, 127, 14 };     /* class 1 */
  GstBuffer *in = torchvision_buffer (TRUE), *out;
  GstMapInfo map;
  guint c;

  gst_buffer_append_memory (in, gst_allocator_alloc (NULL, 64 * 64 * 3, NULL));
  gst_buffer_memset (in, 0, 100, 64 * 64 * 3);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=RGB,width=64,height=64,framerate=30/1");
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
#define PX(x, y, c) map.data[((y) * 64 + (x)) * 3 + (c)]
  for (c = 0; c < 3; c++) {
    /* (9,25): inside row 0's mask, off its outline and row 1's box */
    fail_unless_equals_int (PX (9, 25, c), (100 * 128 + orange[c] * 128) >> 8);
    /* (20,17): inside row 0's box, outside its mask and every outline */
    fail_unless_equals_int (PX (20, 17, c), 100);
    /* keypoint (12,20): the dot 11..13 x 19..21 */
    fail_unless_equals_int (PX (13, 21, c), orange[c]);
    fail_unless_equals_int (PX (14, 21, c) == orange[c], FALSE);
    /* outside every box */
    fail_unless_equals_int (PX (40, 50, c), 100);
  }
#undef PX
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
detect_torchvision_suite (void)
{
  Suite *s = suite_create ("vkmldetect-torchvision");
  TCase *tc = tcase_create ("general");

  if (!GST_ELEMENT_REGISTER (vkmldetect, NULL)
      || !GST_ELEMENT_REGISTER (vkmloverlay, NULL))
    g_error ("cannot register vkmldetect and vkmloverlay");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_decode);
  tcase_add_test (tc, test_tensors_by_shape);
  tcase_add_test (tc, test_element);
  tcase_add_test (tc, test_overlay);
  return s;
}

GST_CHECK_MAIN (detect_torchvision);
