/* vkmldetect: the decoders on synthetic tensors with known boxes (YOLOv5, YOLOv8, YOLOX,
 * both SSD forms, auto), NMS, the class filter, the letterbox map-back, errors, and
 * the element's ROI metas. No model: the tensors are written by hand. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gstvkmldetect.h"
#include "gstvkmldetectdecode.h"
#include "gstvkmltensormeta.h"

#if defined (HAVE_GST_ANALYTICS) && GST_CHECK_VERSION (1, 24, 0)
#include <gst/analytics/analytics.h>
#define VKML_WITH_ANALYTICS 1
#endif

#include <math.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

static void
add_tensor (GstVkmlTensorMeta * meta, const gchar * name, const gfloat * v,
    guint rank, const gint64 * dims)
{
  gsize n = 1;
  guint i;
  GstBuffer *data;

  for (i = 0; i < rank; i++)
    n *= (gsize) dims[i];
  data = gst_buffer_new_memdup (v, n * sizeof (gfloat));
  fail_unless (gst_vkml_tensor_meta_add (meta, name, VKML_DTYPE_FLOAT, rank,
          dims, data) != NULL);
  gst_buffer_unref (data);
}

/* 8 candidates, 2 classes, as YOLOv5 rows cx,cy,w,h,obj,c0,c1: row 0 scores
 * 0.9 x 0.8 (class 1) at (40,35)-(60,45), row 1 scores 0.09 (under 0.25), row 2
 * 1.0 x 0.5 (class 0) at (95,70)-(105,90); rows 3..7 are zeros. */
#define N_ROWS 8
static const gfloat yolo_rows[N_ROWS][7] = {
  {50, 40, 20, 10, 0.9f, 0.2f, 0.8f},
  {10, 10, 4, 4, 0.1f, 0.9f, 0.1f},
  {100, 80, 10, 20, 1.0f, 0.5f, 0.3f},
};

static GstBuffer *
yolov5_buffer (void)
{
  const gint64 dims[] = { 1, N_ROWS, 7 };
  GstBuffer *buf = gst_buffer_new ();

  add_tensor (gst_buffer_add_vkml_tensor_meta (buf), "output0",
      &yolo_rows[0][0], 3, dims);
  return buf;
}

/* The same boxes as YOLOv8 [1,4+2,8] (transposed; no objectness): class scores row 0
 * (0.2, 0.8), row 1 (0.1, 0.05), row 2 (0.6, 0.3). */
static GstBuffer *
yolov8_buffer (void)
{
  static const gfloat cls[N_ROWS][2] = { {0.2f, 0.8f}, {0.1f, 0.05f},
  {0.6f, 0.3f}
  };
  const gint64 dims[] = { 1, 6, N_ROWS };
  gfloat v[6 * N_ROWS] = { 0 };
  GstBuffer *buf = gst_buffer_new ();
  guint i, k;

  for (i = 0; i < N_ROWS; i++) {
    for (k = 0; k < 4; k++)
      v[k * N_ROWS + i] = yolo_rows[i][k];
    v[4 * N_ROWS + i] = cls[i][0];
    v[5 * N_ROWS + i] = cls[i][1];
  }
  add_tensor (gst_buffer_add_vkml_tensor_meta (buf), "output0", v, 3, dims);
  return buf;
}

/* A YOLO format forced onto the other YOLO layout is refused, naming the tensor and the
 * format that fits (a YOLOv8 [1,84,8400] read as YOLOv5 rows gave scores of 54,000). */
GST_START_TEST (test_decode_forced_wrong_yolo)
{
  static const struct
  {
    GstVkmlDetectFormat format;
    gboolean v8_tensor;
    const gchar *says[3];
  } cases[] = {
    {GST_VKML_DETECT_FORMAT_YOLOV5, TRUE, {"yolov5 expects [1,N,5+C]",
            "'output0' [1,6,8] float", "use format=yolov8"}},
    {GST_VKML_DETECT_FORMAT_YOLOX, TRUE, {"yolox expects [1,N,5+C]",
            "yolov8's layout (more columns than rows)", "use format=yolov8"}},
    {GST_VKML_DETECT_FORMAT_YOLOV8, FALSE, {"yolov8 expects [1,4+C,N]",
            "'output0' [1,8,7] float", "use format=yolov5"}},
  };
  guint i, k;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstBuffer *buf = cases[i].v8_tensor ? yolov8_buffer () : yolov5_buffer ();
    GstVkmlDetectParams p = { cases[i].format, 0.25f, -1, NULL, 0, 0, 0, NULL,
      0
    };
    GArray *dets = g_array_new (FALSE, FALSE, sizeof (GstVkmlDetection));
    GstVkmlDetectFormat chosen;
    gchar *error = NULL;

    fail_if (gst_vkml_detect_decode (gst_buffer_get_vkml_tensor_meta (buf), &p,
            dets, &chosen, &error));
    for (k = 0; k < 3; k++)
      fail_unless (strstr (error, cases[i].says[k]) != NULL, "'%s' lacks '%s'",
          error, cases[i].says[k]);
    fail_unless_equals_int (dets->len, 0);
    g_free (error);
    g_array_unref (dets);
    gst_buffer_unref (buf);
  }
}

GST_END_TEST;

static GArray *
decode (GstBuffer * buf, GstVkmlDetectFormat format, GstVkmlDetectFormat want,
    const GstVkmlDetectParams * extra)
{
  GstVkmlDetectParams p = { format, 0.25f, -1, NULL, 0, 0, 0, NULL, 0 };
  GArray *dets = g_array_new (FALSE, FALSE, sizeof (GstVkmlDetection));
  GstVkmlDetectFormat chosen = GST_VKML_DETECT_FORMAT_AUTO;
  gchar *error = NULL;

  if (extra)
    p = *extra;
  p.format = format;
  fail_unless (gst_vkml_detect_decode (gst_buffer_get_vkml_tensor_meta (buf),
          &p, dets, &chosen, &error), "%s", error);
  fail_unless_equals_int (chosen, want);
  gst_buffer_unref (buf);
  return dets;
}

static void
check_det (GArray * dets, guint i, gint class_id, gfloat score, gfloat x0,
    gfloat y0, gfloat x1, gfloat y1)
{
  const GstVkmlDetection *d;

  fail_unless (i < dets->len, "only %u boxes", dets->len);
  d = &g_array_index (dets, GstVkmlDetection, i);
  fail_unless_equals_int (d->class_id, class_id);
  fail_unless (fabsf (d->score - score) < 1e-5f, "score %f, want %f",
      d->score, score);
  fail_unless (fabsf (d->x0 - x0) < 1e-3f && fabsf (d->y0 - y0) < 1e-3f
      && fabsf (d->x1 - x1) < 1e-3f && fabsf (d->y1 - y1) < 1e-3f,
      "box %u (%f,%f)-(%f,%f), want (%f,%f)-(%f,%f)", i, d->x0, d->y0, d->x1,
      d->y1, x0, y0, x1, y1);
}

/* YOLOv5 rows: objectness x class score, centre boxes to corners; auto picks it. */
GST_START_TEST (test_decode_yolov5)
{
  GArray *dets = decode (yolov5_buffer (), GST_VKML_DETECT_FORMAT_AUTO,
      GST_VKML_DETECT_FORMAT_YOLOV5, NULL);

  fail_unless_equals_int (dets->len, 2);
  check_det (dets, 0, 1, 0.72f, 40, 35, 60, 45);
  check_det (dets, 1, 0, 0.5f, 95, 70, 105, 90);
  g_array_unref (dets);
}

GST_END_TEST;

/* YOLOv8's transposed [1,4+C,N] with no objectness; auto picks it. */
GST_START_TEST (test_decode_yolov8)
{
  GArray *dets = decode (yolov8_buffer (), GST_VKML_DETECT_FORMAT_AUTO,
      GST_VKML_DETECT_FORMAT_YOLOV8, NULL);

  fail_unless_equals_int (dets->len, 2);
  check_det (dets, 0, 1, 0.8f, 40, 35, 60, 45);
  check_det (dets, 1, 0, 0.6f, 95, 70, 105, 90);
  g_array_unref (dets);
}

GST_END_TEST;

/* YOLOX's raw head over a 64x64 input: 8x8 + 4x4 + 2x2 = 84 anchors; anchor 70 is
 * stride 16, cell (2,1): x = (0.5 + 2) * 16 = 40, y = (0.25 + 1) * 16 = 20,
 * w = e^ln2 * 16 = 32, h = e^0 * 16 = 16. With and without the input size (a square
 * input is found from the anchor count). */
GST_START_TEST (test_decode_yolox_grid)
{
  const gint64 dims[] = { 1, 84, 7 };
  gfloat v[84 * 7] = { 0 };
  const gfloat hit[7] = { 0.5f, 0.25f, logf (2.0f), 0, 0.9f, 0.0f, 1.0f };
  guint size;

  memcpy (&v[70 * 7], hit, sizeof (hit));
  for (size = 0; size <= 64; size += 64) {
    GstVkmlDetectParams p = { 0, 0.25f, -1, NULL, 0, size, size, NULL, 0 };
    GstBuffer *buf = gst_buffer_new ();
    GArray *dets;

    add_tensor (gst_buffer_add_vkml_tensor_meta (buf), "output", v, 3, dims);
    dets = decode (buf, GST_VKML_DETECT_FORMAT_YOLOX,
        GST_VKML_DETECT_FORMAT_YOLOX, &p);
    fail_unless_equals_int (dets->len, 1);
    check_det (dets, 0, 1, 0.9f, 24, 12, 56, 28);
    g_array_unref (dets);
  }
}

GST_END_TEST;

/* SSD boxes [1,3,4] (x0,y0,x1,y1 in 0..1) + scores [1,3,3] over a 200x100 input:
 * with background class 0 its best-scoring box is not reported; without, it is. */
GST_START_TEST (test_decode_ssd_scores)
{
  static const gfloat boxes[] = { 0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.5f, 0.9f,
    0.9f, 0.0f, 0.0f, 0.5f, 1.0f
  };
  static const gfloat scores[] = { 0.1f, 0.85f, 0.05f, 0.9f, 0.05f, 0.05f,
    0.2f, 0.1f, 0.7f
  };
  const gint64 bdims[] = { 1, 3, 4 }, sdims[] = { 1, 3, 3 };
  gint background;

  for (background = -1; background <= 0; background++) {
    GstVkmlDetectParams p =
        { 0, 0.25f, background, NULL, 0, 200, 100, NULL, 0 };
    GstBuffer *buf = gst_buffer_new ();
    GstVkmlTensorMeta *meta = gst_buffer_add_vkml_tensor_meta (buf);
    GArray *dets;

    add_tensor (meta, "scores", scores, 3, sdims);
    add_tensor (meta, "boxes", boxes, 3, bdims);
    dets = decode (buf, GST_VKML_DETECT_FORMAT_AUTO,
        GST_VKML_DETECT_FORMAT_SSD, &p);
    if (background < 0) {
      fail_unless_equals_int (dets->len, 3);
      check_det (dets, 1, 0, 0.9f, 100, 50, 180, 90);
      g_array_remove_index (dets, 1);
    }
    fail_unless_equals_int (dets->len, 2);
    check_det (dets, 0, 1, 0.85f, 20, 20, 60, 40);
    check_det (dets, 1, 2, 0.7f, 0, 0, 100, 100);
    g_array_unref (dets);
  }
}

GST_END_TEST;

/* TF's four outputs: boxes (y0,x0,y1,x1), classes, scores, count = 2: the third entry
 * (score 0.99) is past the count and ignored. */
GST_START_TEST (test_decode_ssd_four_outputs)
{
  static const gfloat boxes[] = { 0.2f, 0.1f, 0.4f, 0.3f, 0, 0, 1, 1,
    0, 0, 1, 1
  };
  static const gfloat classes[] = { 3, 1, 5 }, scores[] = { 0.9f, 0.3f, 0.99f };
  static const gfloat count[] = { 2 };
  const gint64 bdims[] = { 1, 3, 4 }, vdims[] = { 1, 3 }, cdims[] = { 1 };
  GstVkmlDetectParams p = { 0, 0.25f, -1, NULL, 0, 200, 100, NULL, 0 };
  GstBuffer *buf = gst_buffer_new ();
  GstVkmlTensorMeta *meta = gst_buffer_add_vkml_tensor_meta (buf);
  GArray *dets;

  add_tensor (meta, "detection_boxes", boxes, 3, bdims);
  add_tensor (meta, "detection_classes", classes, 2, vdims);
  add_tensor (meta, "detection_scores", scores, 2, vdims);
  add_tensor (meta, "num_detections", count, 1, cdims);
  dets = decode (buf, GST_VKML_DETECT_FORMAT_SSD, GST_VKML_DETECT_FORMAT_SSD,
      &p);
  fail_unless_equals_int (dets->len, 2);
  check_det (dets, 0, 3, 0.9f, 20, 20, 60, 40);
  check_det (dets, 1, 1, 0.3f, 0, 0, 200, 100);
  g_array_unref (dets);
}

GST_END_TEST;

/* classes=0: row 0's best allowed class is 0 (0.9 x 0.2 = 0.18, under 0.25): gone. */
GST_START_TEST (test_decode_class_filter)
{
  const gint only[] = { 0 };
  GstVkmlDetectParams p = { 0, 0.25f, -1, only, 1, 0, 0, NULL, 0 };
  GArray *dets = decode (yolov5_buffer (), GST_VKML_DETECT_FORMAT_YOLOV5,
      GST_VKML_DETECT_FORMAT_YOLOV5, &p);

  fail_unless_equals_int (dets->len, 1);
  check_det (dets, 0, 0, 0.5f, 95, 70, 105, 90);
  g_array_unref (dets);
}

GST_END_TEST;

/* A layout that does not fit: the message names the format and the tensors. */
GST_START_TEST (test_decode_wrong_layout)
{
  const gint64 dims[] = { 1, 10 };
  const gfloat v[10] = { 0 };
  GstVkmlDetectParams p = { GST_VKML_DETECT_FORMAT_YOLOV8, 0.25f, -1, NULL, 0,
    0, 0, NULL, 0
  };
  GstBuffer *buf = gst_buffer_new ();
  GArray *dets = g_array_new (FALSE, FALSE, sizeof (GstVkmlDetection));
  GstVkmlDetectFormat chosen;
  gchar *error = NULL;

  add_tensor (gst_buffer_add_vkml_tensor_meta (buf), "logits", v, 2, dims);
  fail_if (gst_vkml_detect_decode (gst_buffer_get_vkml_tensor_meta (buf), &p,
          dets, &chosen, &error));
  fail_unless (strstr (error, "yolov8: expected") != NULL, "%s", error);
  fail_unless (strstr (error, "'logits' [1,10] float") != NULL, "%s", error);
  g_free (error);
  p.format = GST_VKML_DETECT_FORMAT_AUTO;
  fail_if (gst_vkml_detect_decode (gst_buffer_get_vkml_tensor_meta (buf), &p,
          dets, &chosen, &error));
  fail_unless (strstr (error, "no known detector layout") != NULL, "%s", error);
  g_free (error);
  fail_unless_equals_int (dets->len, 0);
  g_array_unref (dets);
  gst_buffer_unref (buf);
}

GST_END_TEST;

static GArray *
nms_input (void)
{
  const GstVkmlDetection in[] = {
    {1, 1, 11, 11, 0.8f, 0, -1},        /* IoU 81/119 = 0.68 with the first */
    {0, 0, 10, 10, 0.9f, 0, -1},
    {1, 1, 11, 11, 0.7f, 1, -1},        /* same place, other class */
    {20, 20, 30, 30, 0.6f, 0, -1},
  };
  GArray *dets = g_array_new (FALSE, FALSE, sizeof (GstVkmlDetection));

  g_array_append_vals (dets, in, G_N_ELEMENTS (in));
  return dets;
}

/* Greedy per class: the 0.8 box goes at IoU threshold 0.45, stays at 0.7; the other
 * class's box in the same place stays; max-detections keeps the best. */
GST_START_TEST (test_nms)
{
  GArray *dets = nms_input ();

  gst_vkml_detect_nms (dets, 0.45f, 0);
  fail_unless_equals_int (dets->len, 3);
  check_det (dets, 0, 0, 0.9f, 0, 0, 10, 10);
  check_det (dets, 1, 1, 0.7f, 1, 1, 11, 11);
  check_det (dets, 2, 0, 0.6f, 20, 20, 30, 30);
  g_array_unref (dets);

  dets = nms_input ();
  gst_vkml_detect_nms (dets, 0.7f, 0);
  fail_unless_equals_int (dets->len, 4);
  check_det (dets, 1, 0, 0.8f, 1, 1, 11, 11);
  g_array_unref (dets);

  dets = nms_input ();
  gst_vkml_detect_nms (dets, 0.45f, 2);
  fail_unless_equals_int (dets->len, 2);
  check_det (dets, 1, 1, 0.7f, 1, 1, 11, 11);
  g_array_unref (dets);
}

GST_END_TEST;

/* A 640x480 frame letterboxed into 320x320: scale 0.5, 40 rows of padding on top. */
static const GstVkmlInputGeometry letterbox = { 640, 480, 320, 320, 0.5, 0.5,
  0, 40
};

/* Input pixels back to frame pixels; clipped at the frame's edge; a box in the
 * padding is dropped. */
GST_START_TEST (test_letterbox_map_back)
{
  const GstVkmlDetection in[] = {
    {10, 50, 110, 150, 0.9f, 0, -1},
    {0, 0, 320, 30, 0.8f, 0, -1},
    {300, 260, 330, 290, 0.7f, 1, -1},
  };
  GArray *dets = g_array_new (FALSE, FALSE, sizeof (GstVkmlDetection));

  g_array_append_vals (dets, in, G_N_ELEMENTS (in));
  gst_vkml_detect_map_to_frame (dets, &letterbox, 640, 480);
  fail_unless_equals_int (dets->len, 2);
  check_det (dets, 0, 0, 0.9f, 20, 20, 220, 220);
  check_det (dets, 1, 1, 0.7f, 600, 440, 640, 480);
  g_array_unref (dets);
}

GST_END_TEST;

/* videoscale between the model and vkmldetect (640x480 -> 320x240): the boxes land on
 * the frame vkmldetect sees, half of those on the model's frame. */
GST_START_TEST (test_element_scaled_frame)
{
  GstHarness *h = gst_harness_new_parse ("videoscale "
      "! video/x-raw,width=320,height=240 ! vkmldetect");
  GstBuffer *in = yolov5_buffer (), *out;
  GstVkmlTensorMeta *meta = gst_buffer_get_vkml_tensor_meta (in);
  GstVideoRegionOfInterestMeta *roi;

  meta->has_geometry = TRUE;
  meta->geometry = letterbox;
  gst_buffer_append_memory (in, gst_allocator_alloc (NULL, 640 * 480 * 3,
          NULL));
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=RGB,width=640,height=480,framerate=30/1");
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  /* on the 640x480 frame (80,0) 40x10 and (190,60) 20x40 (test_element_roi_metas) */
  roi = gst_buffer_get_video_region_of_interest_meta_id (out, 0);
  fail_unless (roi != NULL);
  fail_unless (roi->x == 40 && roi->y == 0 && roi->w == 20 && roi->h == 5,
      "%u,%u %ux%u", roi->x, roi->y, roi->w, roi->h);
  roi = gst_buffer_get_video_region_of_interest_meta_id (out, 1);
  fail_unless (roi != NULL);
  fail_unless (roi->x == 95 && roi->y == 30 && roi->w == 10 && roi->h == 20,
      "%u,%u %ux%u", roi->x, roi->y, roi->w, roi->h);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

static gchar *
write_labels (void)
{
  gchar *path = NULL;
  gint fd = g_file_open_tmp ("vkml-labels-XXXXXX.txt", &path, NULL);

  fail_unless (fd >= 0);
  close (fd);
  fail_unless (g_file_set_contents (path, "person\ncar\n", -1, NULL));
  return path;
}

#ifdef VKML_WITH_ANALYTICS
/* The next GstAnalyticsODMtd of @rmeta is @label at x,y wxh with @score. */
static void
check_od_mtd (GstAnalyticsRelationMeta * rmeta, gpointer * state,
    const gchar * label, gint x, gint y, gint w, gint h, gfloat score)
{
  GstAnalyticsODMtd od;
  gint gx, gy, gw, gh;
  gfloat gscore;

  fail_unless (gst_analytics_relation_meta_iterate (rmeta, state,
          gst_analytics_od_mtd_get_mtd_type (), &od), "no ODMtd for %s", label);
  fail_unless_equals_string (g_quark_to_string
      (gst_analytics_od_mtd_get_obj_type (&od)), label);
  fail_unless (gst_analytics_od_mtd_get_location (&od, &gx, &gy, &gw, &gh,
          &gscore));
  fail_unless (gx == x && gy == y && gw == w
      && gh == h, "%s: %d,%d %dx%d", label, gx, gy, gw, gh);
  fail_unless (fabsf (gscore - score) < 1e-5f, "%s: score %f, want %f", label,
      gscore, score);
}
#endif

/* The element: the YOLOv5 boxes through the letterbox geometry onto a 640x480 frame,
 * as ROI metas named by the labels file with a "detection" param (and on GStreamer
 * >= 1.24 as GstAnalyticsODMtds, the same boxes). */
GST_START_TEST (test_element_roi_metas)
{
  gchar *labels = write_labels ();
  gchar *launch = g_strdup_printf ("vkmldetect labels=\"%s\"", labels);
  GstHarness *h = gst_harness_new_parse (launch);
  GstBuffer *in = yolov5_buffer (), *out;
  GstVkmlTensorMeta *meta = gst_buffer_get_vkml_tensor_meta (in);
  GstVideoRegionOfInterestMeta *roi;
  GstStructure *s;
  gpointer state = NULL;
  gfloat score;
  gint id;

  meta->has_geometry = TRUE;
  meta->geometry = letterbox;
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=RGB,width=640,height=480,framerate=30/1");
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  /* ROI metas in the order added: best score first. */
  roi = (GstVideoRegionOfInterestMeta *) gst_buffer_iterate_meta_filtered (out,
      &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE);
  fail_unless (roi != NULL);
  fail_unless_equals_string (g_quark_to_string (roi->roi_type), "car");
  /* (40,35)-(60,45) -> (80,-10)-(120,10), clipped at the top */
  fail_unless (roi->x == 80 && roi->y == 0 && roi->w == 40 && roi->h == 10,
      "%u,%u %ux%u", roi->x, roi->y, roi->w, roi->h);
  roi = (GstVideoRegionOfInterestMeta *) gst_buffer_iterate_meta_filtered (out,
      &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE);
  fail_unless (roi != NULL);
  fail_unless_equals_string (g_quark_to_string (roi->roi_type), "person");
  fail_unless (roi->x == 190 && roi->y == 60 && roi->w == 20 && roi->h == 40,
      "%u,%u %ux%u", roi->x, roi->y, roi->w, roi->h);
  s = gst_video_region_of_interest_meta_get_param (roi, "detection");
  fail_unless (s != NULL);
  fail_unless (gst_structure_get (s, "class-id", G_TYPE_INT, &id, "score",
          G_TYPE_FLOAT, &score, NULL));
  fail_unless_equals_int (id, 0);
  fail_unless_equals_float (score, 0.5f);
  fail_unless (gst_buffer_iterate_meta_filtered (out, &state,
          GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE) == NULL);
  /* each box its own id: 0 and 1 here */
  fail_unless (gst_buffer_get_video_region_of_interest_meta_id (out,
          0) != NULL);
  fail_unless_equals_int (roi->id, 1);
#ifdef VKML_WITH_ANALYTICS
  {
    GstAnalyticsRelationMeta *rmeta =
        gst_buffer_get_analytics_relation_meta (out);
    GstAnalyticsODMtd od;

    fail_unless (rmeta != NULL);
    state = NULL;
    check_od_mtd (rmeta, &state, "car", 80, 0, 40, 10, 0.72f);
    check_od_mtd (rmeta, &state, "person", 190, 60, 20, 40, 0.5f);
    fail_if (gst_analytics_relation_meta_iterate (rmeta, &state,
            gst_analytics_od_mtd_get_mtd_type (), &od));
  }
#endif
  /* decoded again on the same frame: the new boxes get ids above the ones there */
  out = gst_harness_push_and_pull (h, out);
  fail_unless (gst_buffer_get_video_region_of_interest_meta_id (out,
          3) != NULL);
  fail_unless (gst_buffer_get_video_region_of_interest_meta_id (out,
          4) == NULL);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_unlink (labels);
  g_free (labels);
  g_free (launch);
}

GST_END_TEST;

/* model-id picks the meta: the buffer has a detector's and a classifier's; asking for
 * the classifier's is an error naming its tensors, asking for one that is not there
 * passes the buffer on without boxes. */
GST_START_TEST (test_element_model_id)
{
  const gint64 dims[] = { 1, 3 };
  const gfloat v[3] = { 0.1f, 0.2f, 0.7f };
  GstHarness *h = gst_harness_new_parse ("vkmldetect model-id=det");
  GstBuffer *in = yolov5_buffer (), *out;
  GstVkmlTensorMeta *cls;
  GstBus *bus;
  GstMessage *msg;
  GError *error = NULL;

  gst_vkml_tensor_meta_set_model_id (gst_buffer_get_vkml_tensor_meta (in),
      "det");
  cls = gst_buffer_add_vkml_tensor_meta (in);
  gst_vkml_tensor_meta_set_model_id (cls, "cls");
  add_tensor (cls, "probabilities", v, 2, dims);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=RGB,width=640,height=480,framerate=30/1");
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);
  fail_unless_equals_int (gst_buffer_get_n_meta (out,
          GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE), 2);
  gst_buffer_unref (out);
  gst_harness_teardown (h);

  /* a model-id no meta has: the warning lists the ones the buffer has */
  h = gst_harness_new_parse ("vkmldetect model-id=other");
  bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=RGB,width=640,height=480,framerate=30/1");
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless_equals_int (gst_buffer_get_n_meta (out,
          GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE), 0);
  gst_buffer_unref (out);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL);
  gst_message_parse_warning (msg, &error, NULL);
  fail_unless (strstr (error->message, "no tensors of model-id \"other\"; the "
          "buffer has tensors of model-id \"det\", \"cls\".") != NULL, "%s",
      error->message);
  g_error_free (error);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);

  /* by default the last meta: the classifier's, which is no detector */
  h = gst_harness_new_parse ("vkmldetect");
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=RGB,width=640,height=480,framerate=30/1");
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_ERROR);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* format=auto says which format it picked, once, in an INFO message. */
GST_START_TEST (test_element_says_format)
{
  GstHarness *h = gst_harness_new_parse ("vkmldetect");
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *error = NULL;
  guint n = 0;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=RGB,width=640,height=480,framerate=30/1");
  gst_buffer_unref (gst_harness_push_and_pull (h, yolov8_buffer ()));
  gst_buffer_unref (gst_harness_push_and_pull (h, yolov8_buffer ()));
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_INFO))) {
    gchar *debug = NULL;

    gst_message_parse_info (msg, &error, &debug);
    fail_unless (strstr (error->message, "as yolov8") != NULL, "%s",
        error->message);
    /* gst-launch-1.0 prints the debug text: it says it too */
    fail_unless (debug && strstr (debug, "as yolov8") != NULL, "%s",
        GST_STR_NULL (debug));
    g_free (debug);
    g_clear_error (&error);
    gst_message_unref (msg);
    n++;
  }
  fail_unless_equals_int (n, 1);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A bad classes value and a missing labels file fail the start with errors that say so
 * (and, under LeakSanitizer, leave nothing behind). */
GST_START_TEST (test_element_bad_settings)
{
  static const gchar *cases[][3] = {
    {"classes", "0,,2", "Bad 'classes' value \"0,,2\": an empty entry"},
    {"labels", "/nonexistent/labels.txt", "Could not read the labels file"},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstElement *e = gst_element_factory_make ("vkmldetect", NULL);
    GstBus *bus = gst_bus_new ();
    GstMessage *msg;
    GError *error = NULL;

    gst_element_set_bus (e, bus);
    g_object_set (e, cases[i][0], cases[i][1], NULL);
    fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
        GST_STATE_CHANGE_FAILURE);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    fail_unless (msg != NULL);
    gst_message_parse_error (msg, &error, NULL);
    fail_unless (strstr (error->message, cases[i][2]) != NULL, "%s",
        error->message);
    g_error_free (error);
    gst_message_unref (msg);
    gst_element_set_state (e, GST_STATE_NULL);
    gst_element_set_bus (e, NULL);
    gst_object_unref (bus);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* Pushes yolov5_buffer() (letterbox geometry) through @launch; returns the element
 * messages it posted (a new list; free each and g_list_free). */
static GList *
detect_messages (const gchar * launch)
{
  GstHarness *h = gst_harness_new_parse (launch);
  GstBus *bus = gst_bus_new ();
  GstBuffer *in = yolov5_buffer ();
  GstVkmlTensorMeta *meta = gst_buffer_get_vkml_tensor_meta (in);
  GstMessage *msg;
  GList *msgs = NULL;

  meta->has_geometry = TRUE;
  meta->geometry = letterbox;
  gst_vkml_tensor_meta_set_model_id (meta, "det");
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=RGB,width=640,height=480,framerate=30/1");
  gst_buffer_unref (gst_harness_push_and_pull (h, in));
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT)))
    msgs = g_list_append (msgs, msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  return msgs;
}

/* post-messages=true: one vkml-detection message a frame holding every box (as the
 * ROI metas say: ids, labels, pixels); none by default. */
GST_START_TEST (test_element_post_messages)
{
  GList *msgs = detect_messages ("vkmldetect post-messages=true");
  const GstStructure *s, *o;
  const GValue *objects;
  guint64 frame = 1;
  gint roi_id = -1;
  guint x, y, w, h;
  gfloat score;

  fail_unless_equals_int (g_list_length (msgs), 1);
  s = gst_message_get_structure (msgs->data);
  fail_unless (gst_structure_has_name (s, "vkml-detection"));
  fail_unless (gst_structure_get_uint64 (s, "frame", &frame) && frame == 0);
  fail_unless_equals_string (gst_structure_get_string (s, "model-id"), "det");
  objects = gst_structure_get_value (s, "objects");
  fail_unless (objects != NULL && GST_VALUE_HOLDS_ARRAY (objects));
  fail_unless_equals_int (gst_value_array_get_size (objects), 2);
  o = gst_value_get_structure (gst_value_array_get_value (objects, 0));
  fail_unless (gst_structure_get (o, "roi-id", G_TYPE_INT, &roi_id, "score",
          G_TYPE_FLOAT, &score, "x", G_TYPE_UINT, &x, "y", G_TYPE_UINT, &y,
          "width", G_TYPE_UINT, &w, "height", G_TYPE_UINT, &h, NULL));
  fail_unless_equals_string (gst_structure_get_string (o, "label"), "1");
  fail_unless (roi_id == 0 && x == 80 && y == 0 && w == 40 && h == 10,
      "%d: %u,%u %ux%u", roi_id, x, y, w, h);
  fail_unless_equals_float (score, 0.72f);
  o = gst_value_get_structure (gst_value_array_get_value (objects, 1));
  fail_unless (gst_structure_get (o, "roi-id", G_TYPE_INT, &roi_id, "x",
          G_TYPE_UINT, &x, NULL));
  fail_unless (roi_id == 1 && x == 190);
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);

  msgs = detect_messages ("vkmldetect");
  fail_unless_equals_int (g_list_length (msgs), 0);
}

GST_END_TEST;

/* classes by label, as the labels file names them: only "person" (class 0) of the two
 * boxes; a label the file does not have fails the start. */
GST_START_TEST (test_element_classes_by_label)
{
  gchar *labels = write_labels ();
  gchar *launch = g_strdup_printf ("vkmldetect labels=\"%s\" classes=person",
      labels);
  GstHarness *h = gst_harness_new_parse (launch);
  GstElement *e = gst_element_factory_make ("vkmldetect", NULL);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *error = NULL;
  GstBuffer *out;

  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=RGB,width=640,height=480,framerate=30/1");
  out = gst_harness_push_and_pull (h, yolov5_buffer ());
  fail_unless_equals_int (gst_buffer_get_n_meta (out,
          GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE), 1);
  fail_unless_equals_string (g_quark_to_string
      (gst_buffer_get_video_region_of_interest_meta_id (out, 0)->roi_type),
      "person");
  gst_buffer_unref (out);
  gst_harness_teardown (h);

  g_object_set (e, "labels", labels, "classes", "person,zebra", NULL);
  gst_element_set_bus (e, bus);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &error, NULL);
  fail_unless (strstr (error->message, "no class is labelled \"zebra\" (2 "
          "labels)") != NULL, "%s", error->message);
  g_error_free (error);
  gst_message_unref (msg);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
  g_unlink (labels);
  g_free (labels);
  g_free (launch);
}

GST_END_TEST;

static Suite *
vkml_detect_suite (void)
{
  Suite *s = suite_create ("vkml_detect");
  TCase *tc = tcase_create ("general");

  if (!GST_ELEMENT_REGISTER (vkmldetect, NULL))
    g_error ("cannot register vkmldetect");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_decode_yolov5);
  tcase_add_test (tc, test_decode_yolov8);
  tcase_add_test (tc, test_decode_yolox_grid);
  tcase_add_test (tc, test_decode_ssd_scores);
  tcase_add_test (tc, test_decode_ssd_four_outputs);
  tcase_add_test (tc, test_decode_class_filter);
  tcase_add_test (tc, test_decode_wrong_layout);
  tcase_add_test (tc, test_decode_forced_wrong_yolo);
  tcase_add_test (tc, test_nms);
  tcase_add_test (tc, test_letterbox_map_back);
  tcase_add_test (tc, test_element_roi_metas);
  tcase_add_test (tc, test_element_model_id);
  tcase_add_test (tc, test_element_scaled_frame);
  tcase_add_test (tc, test_element_says_format);
  tcase_add_test (tc, test_element_bad_settings);
  tcase_add_test (tc, test_element_classes_by_label);
  tcase_add_test (tc, test_element_post_messages);
  return s;
}

GST_CHECK_MAIN (vkml_detect);
