/* vkmlinfer roi=objects (secondary inference) in GstHarness, on the Vulkan device and on
 * vkml's CPU device: one GstVkmlTensorMeta per object box, its roi_id the box's ROI
 * meta id, its tensor (an Identity model: the model input itself) the box cropped and
 * resized, against a crop + bilinear resize written here in double (tolerance 2e-3 of a
 * value in 0..1, about 0.5/255); boxes 1:1 and 2:1 are also checked against the frame's
 * own pixels and 2x2 block means. object-class and min-object-size filter the boxes; a
 * frame without objects passes with no meta; vkmlclassify puts each object's colour on
 * that object's ROI; vkmloverlay draws it after the box's label; a model swap falls
 * between frames, never between a frame's objects. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gstvkmlclassify.h"
#include "gstvkmlinfer.h"
#include "gstvkmloverlay.h"
#include "gstvkmltensormeta.h"
#include "testutil.h"
#include "gst_testutil.h"

#include <math.h>
#include <string.h>

#define FW 40
#define FH 30
/* id-nchw.onnx: input [1,3,8,6] */
#define MW 6
#define MH 8

static gchar *build_dir;
static const gchar *devices[] = { "0", "cpu" };

static gchar *
build_path (const gchar * sub, const gchar * name)
{
  return g_build_filename (build_dir, sub, name, NULL);
}

typedef struct
{
  const gchar *label;
  gint class_id;
  guint x, y, w, h;
} Box;

/* Three boxes: 6x8 (1:1 with the model input), 12x16 (2:1), 9x7 (bilinear). */
static const Box boxes[] = {
  {"car", 2, 2, 3, 6, 8},
  {"person", 0, 20, 10, 12, 16},
  {"dog", 16, 30, 20, 9, 7},
};

/* An RGB frame of random bytes with the boxes as ROI metas (with "detection" params). */
static GstBuffer *
frame_with_boxes (const GstVideoInfo * vinfo, guint n_boxes)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, vinfo->size, NULL);
  guint32 seed = 12345;
  GstMapInfo map;
  guint i;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (i = 0; i < map.size; i++) {
    seed = seed * 1103515245u + 12345u;
    map.data[i] = (guint8) (seed >> 16);
  }
  gst_buffer_unmap (buf, &map);
  for (i = 0; i < n_boxes; i++) {
    const Box *b = &boxes[i];
    GstVideoRegionOfInterestMeta *roi =
        gst_buffer_add_video_region_of_interest_meta (buf, b->label, b->x,
        b->y, b->w, b->h);

    roi->id = 10 + (gint) i;
    gst_video_region_of_interest_meta_add_param (roi,
        gst_structure_new ("detection", "label", G_TYPE_STRING, b->label,
            "class-id", G_TYPE_INT, b->class_id, "score", G_TYPE_FLOAT, 0.9f,
            NULL));
  }
  return buf;
}

static gdouble
pixel (const GstVideoFrame * f, gint x, gint y, gint c)
{
  const guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (f, 0);

  x = CLAMP (x, 0, FW - 1);
  y = CLAMP (y, 0, FH - 1);
  return d[y * GST_VIDEO_FRAME_PLANE_STRIDE (f, 0) + x * 3 + c];
}

/* The model input for box @b (stretch), channel @c at (x, y), 0..1: the box's
 * rectangle resized with half-pixel centres, bilinear over the frame, edges clamped. */
static gdouble
reference (const GstVideoFrame * f, const Box * b, gint c, gint x, gint y)
{
  gdouble sx = b->x + (x + 0.5) * b->w / MW - 0.5;
  gdouble sy = b->y + (y + 0.5) * b->h / MH - 0.5;
  gint x0, y0;
  gdouble fx, fy;

  sx = CLAMP (sx, 0, FW - 1);
  sy = CLAMP (sy, 0, FH - 1);
  x0 = (gint) floor (sx);
  y0 = (gint) floor (sy);
  fx = sx - x0;
  fy = sy - y0;
  return ((1 - fy) * ((1 - fx) * pixel (f, x0, y0, c) + fx * pixel (f, x0 + 1,
              y0, c)) + fy * ((1 - fx) * pixel (f, x0, y0 + 1,
              c) + fx * pixel (f, x0 + 1, y0 + 1, c))) / 255;
}

/* The meta of roi_id @id, or NULL. */
static GstVkmlTensorMeta *
meta_of_roi (GstBuffer * buf, gint id, guint * n_metas)
{
  GstVkmlTensorMeta *m, *found = NULL;
  gpointer state = NULL;

  *n_metas = 0;
  while ((m = (GstVkmlTensorMeta *) gst_buffer_iterate_meta_filtered (buf,
              &state, GST_VKML_TENSOR_META_API_TYPE))) {
    (*n_metas)++;
    if (m->roi_id == id)
      found = m;
  }
  return found;
}

/* Box @i's tensor on @out against the reference (and the exact cases). */
static void
check_box (GstBuffer * out, const GstVideoFrame * f, guint i,
    const gchar * device)
{
  const Box *b = &boxes[i];
  guint n_metas;
  GstVkmlTensorMeta *meta = meta_of_roi (out, 10 + (gint) i, &n_metas);
  const GstVkmlTensor *t;
  GstMapInfo map;
  const gfloat *v;
  gint c, x, y, bad = 0;

  fail_unless (meta != NULL, "%s: no meta for box %u", device, i);
  t = gst_vkml_tensor_meta_get (meta, 0);
  fail_unless (t && t->dtype == VKML_DTYPE_FLOAT && t->dims[1] == 3
      && t->dims[2] == MH && t->dims[3] == MW);
  /* the geometry maps the model input's left, top edge onto the box's */
  fail_unless (meta->has_geometry);
  fail_unless (fabs (meta->geometry.scale_x - (gdouble) MW / b->w) < 1e-9);
  fail_unless (fabs ((0 - meta->geometry.offset_x) / meta->geometry.scale_x -
          b->x) < 1e-6, "box %u geometry offset %g", i,
      meta->geometry.offset_x);
  fail_unless (gst_buffer_map (t->data, &map, GST_MAP_READ));
  v = (const gfloat *) map.data;
  for (c = 0; c < 3; c++)
    for (y = 0; y < MH; y++)
      for (x = 0; x < MW; x++) {
        gdouble got = v[(c * MH + y) * MW + x], want =
            reference (f, b, c, x, y);

        /* independent of the bilinear formula: 1:1 is the pixel, 2:1 a 2x2 mean */
        if (b->w == MW && b->h == MH)
          want = pixel (f, b->x + x, b->y + y, c) / 255;
        else if (b->w == 2 * MW && b->h == 2 * MH)
          want = (pixel (f, b->x + 2 * x, b->y + 2 * y, c) +
              pixel (f, b->x + 2 * x + 1, b->y + 2 * y, c) +
              pixel (f, b->x + 2 * x, b->y + 2 * y + 1, c) +
              pixel (f, b->x + 2 * x + 1, b->y + 2 * y + 1, c)) / (4 * 255.0);
        if (!(fabs (got - want) <= 2e-3) && bad++ < 4)
          GST_ERROR ("%s box %u c%d (%d,%d): %g, want %g", device, i, c, x, y,
              got, want);
      }
  gst_buffer_unmap (t->data, &map);
  fail_unless (bad == 0, "%s box %u: %d values off (see the log)", device, i,
      bad);
}

static GstHarness *
infer_harness (const gchar * device, const gchar * extra, GstVideoInfo * vinfo)
{
  gchar *model = build_path ("tests/gst", "id-nchw.onnx");
  gchar *launch = g_strdup_printf ("vkmlinfer model=\"%s\" device=%s "
      "roi=objects %s", model, device, extra ? extra : "");
  GstHarness *h = gst_harness_new_parse (launch);

  gst_video_info_set_format (vinfo, GST_VIDEO_FORMAT_RGB, FW, FH);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (vinfo));
  g_free (launch);
  g_free (model);
  return h;
}

/* Each box cropped and resized into its own meta, roi_id = the box's id. */
GST_START_TEST (test_objects_crop)
{
  guint d, i, n_metas;

  for (d = 0; d < G_N_ELEMENTS (devices); d++) {
    GstVideoInfo vinfo;
    GstHarness *h = infer_harness (devices[d], NULL, &vinfo);
    GstBuffer *in = frame_with_boxes (&vinfo, G_N_ELEMENTS (boxes)), *out;
    GstVideoFrame f;

    out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (out != NULL);
    fail_unless (gst_video_frame_map (&f, &vinfo, in, GST_MAP_READ));
    for (i = 0; i < G_N_ELEMENTS (boxes); i++)
      check_box (out, &f, i, devices[d]);
    gst_video_frame_unmap (&f);
    meta_of_roi (out, -1, &n_metas);
    fail_unless_equals_int (n_metas, G_N_ELEMENTS (boxes));
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* 'model' set while playing with roi=objects: id-nchw swapped for the same identity
 * with 32 MiB of weights (loaded aside): every frame comes out with its three objects'
 * metas, each the box's crop, all three from one model (the swap falls between
 * frames), the new model's from the first frame after it is ready on. */
GST_START_TEST (test_objects_model_swap)
{
  gchar *next = build_path ("tests/gst", "id-ballast.onnx");
  gint64 end = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  GstVideoInfo vinfo;
  GstHarness *h = infer_harness ("0", NULL, &vinfo);
  GstElement *e = gst_harness_find_element (h, "vkmlinfer");
  guint i, k, after = 0, n_metas;

  for (k = 0; after < 3; k++) {
    GstBuffer *in = frame_with_boxes (&vinfo, G_N_ELEMENTS (boxes)), *out;
    guint on_new = 0;
    GstVideoFrame f;

    fail_unless (g_get_monotonic_time () < end, "no swap within 60 s");
    if (k == 2)
      g_object_set (e, "model", next, NULL);
    GST_BUFFER_PTS (in) = k * GST_MSECOND;
    out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (out != NULL);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), k * GST_MSECOND);
    fail_unless (gst_video_frame_map (&f, &vinfo, in, GST_MAP_READ));
    for (i = 0; i < G_N_ELEMENTS (boxes); i++) {
      GstVkmlTensorMeta *meta = meta_of_roi (out, 10 + (gint) i, &n_metas);

      check_box (out, &f, i, "0");
      if (gst_vkml_tensor_meta_get_by_name (meta, "ballast"))
        on_new++;
    }
    gst_video_frame_unmap (&f);
    fail_unless_equals_int (n_metas, G_N_ELEMENTS (boxes));
    fail_unless (on_new == 0 || on_new == G_N_ELEMENTS (boxes),
        "frame %u: %u of its objects on the new model", k, on_new);
    fail_unless (!after || on_new, "frame %u back on the old model", k);
    fail_unless (k >= 2 || !on_new);
    if (on_new)
      after++;
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  gst_object_unref (e);
  g_free (next);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* object-class by label and by class id; min-object-size; ROIs sharing an id. */
GST_START_TEST (test_object_filter)
{
  GstVideoInfo vinfo;
  GstHarness *h = infer_harness ("cpu", "object-class=\"dog, 2\" "
      "min-object-size=7x7", &vinfo);
  GstBuffer *in = frame_with_boxes (&vinfo, G_N_ELEMENTS (boxes)), *out;
  GstVideoRegionOfInterestMeta *r1, *r2;
  GstVkmlTensorMeta *m;
  guint n_metas;

  /* "car" (class 2) is 6x8: below 7x7; "person" is not asked for; "dog" runs */
  out = gst_harness_push_and_pull (h, in);
  fail_unless (meta_of_roi (out, 12, &n_metas) != NULL);
  fail_unless_equals_int (n_metas, 1);
  gst_buffer_unref (out);
  gst_harness_teardown (h);

  /* by class id alone, no minimum: the car; and two ROIs of id 0 get ids of their own */
  h = infer_harness ("cpu", "object-class=2,0", &vinfo);
  in = frame_with_boxes (&vinfo, 2);
  r1 = gst_buffer_get_video_region_of_interest_meta_id (in, 10);
  r2 = gst_buffer_get_video_region_of_interest_meta_id (in, 11);
  r1->id = r2->id = 0;
  out = gst_harness_push_and_pull (h, in);
  meta_of_roi (out, -1, &n_metas);
  fail_unless_equals_int (n_metas, 2);
  m = gst_buffer_get_vkml_tensor_meta (out);
  fail_unless (gst_buffer_get_video_region_of_interest_meta_id (out,
          m->roi_id) != NULL);
  {
    GstVkmlTensorMeta *a = meta_of_roi (out, 0, &n_metas);
    GstVkmlTensorMeta *b = meta_of_roi (out, 1, &n_metas);

    fail_unless (a && b, "the metas name ids 0 and 1");
  }
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A frame with no object (or none asked for) passes with no meta and no run. */
GST_START_TEST (test_no_objects)
{
  GstVideoInfo vinfo;
  GstHarness *h = infer_harness ("0", "object-class=truck", &vinfo);
  GstBuffer *out;
  guint64 processed = 99;
  guint n_metas;

  out = gst_harness_push_and_pull (h, frame_with_boxes (&vinfo, 0));
  meta_of_roi (out, -1, &n_metas);
  fail_unless_equals_int (n_metas, 0);
  gst_buffer_unref (out);
  out = gst_harness_push_and_pull (h, frame_with_boxes (&vinfo, 3));
  meta_of_roi (out, -1, &n_metas);
  fail_unless_equals_int (n_metas, 0);
  gst_buffer_unref (out);
  g_object_get (gst_harness_find_element (h, "vkmlinfer"), "frames-processed",
      &processed, NULL);
  fail_unless_equals_uint64 (processed, 0);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A frame: left half red, right half blue; a "car" box on the left half (id 1), with
 * @n_boxes 2 one on the right half too (id 2). */
static GstBuffer *
two_colour_frame (const GstVideoInfo * vinfo, guint n_boxes)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, vinfo->size, NULL);
  GstVideoRegionOfInterestMeta *roi;
  GstVideoFrame f;
  gint x, y, w = GST_VIDEO_INFO_WIDTH (vinfo);

  fail_unless (gst_video_frame_map (&f, (GstVideoInfo *) vinfo, buf,
          GST_MAP_WRITE));
  for (y = 0; y < GST_VIDEO_INFO_HEIGHT (vinfo); y++)
    for (x = 0; x < w; x++) {
      guint8 *p = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + 3 * x;

      p[0] = x < w / 2 ? 230 : 10;
      p[1] = 10;
      p[2] = x < w / 2 ? 10 : 230;
    }
  gst_video_frame_unmap (&f);
  roi = gst_buffer_add_video_region_of_interest_meta (buf, "car", 4, 30, 20,
      14);
  roi->id = 1;
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new ("detection", "class-id", G_TYPE_INT, 2, NULL));
  if (n_boxes < 2)
    return buf;
  roi = gst_buffer_add_video_region_of_interest_meta (buf, "car", 40, 30, 20,
      14);
  roi->id = 2;
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new ("detection", "class-id", G_TYPE_INT, 2, NULL));
  return buf;
}

static const gchar *
classification_of (GstBuffer * buf, gint id)
{
  GstVideoRegionOfInterestMeta *roi =
      gst_buffer_get_video_region_of_interest_meta_id (buf, id);
  GstStructure *s;

  fail_unless (roi != NULL);
  s = gst_video_region_of_interest_meta_get_param (roi, "classification");
  return s ? gst_structure_get_string (s, "label") : NULL;
}

/* The colour classifier per object: each label on its own ROI, no whole-frame ROI. */
GST_START_TEST (test_classify_objects)
{
  gchar *model = build_path ("pipelines", "color.onnx");
  gchar *labels = build_path ("pipelines", "color-labels.txt");
  guint d;

  for (d = 0; d < G_N_ELEMENTS (devices); d++) {
    gchar *launch = g_strdup_printf ("vkmlinfer model=\"%s\" device=%s "
        "roi=objects ! vkmlclassify labels=\"%s\" post-messages=false", model,
        devices[d], labels);
    GstHarness *h = gst_harness_new_parse (launch);
    GstVideoInfo vinfo;
    GstBuffer *out;
    GstMeta *m;
    gpointer state = NULL;
    guint n_roi = 0;

    gst_video_info_set_format (&vinfo, GST_VIDEO_FORMAT_RGB, 64, 48);
    gst_harness_set_src_caps (h, gst_video_info_to_caps (&vinfo));
    out = gst_harness_push_and_pull (h, two_colour_frame (&vinfo, 2));
    fail_unless_equals_string (classification_of (out, 1), "red");
    fail_unless_equals_string (classification_of (out, 2), "blue");
    while ((m = gst_buffer_iterate_meta_filtered (out, &state,
                GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)))
      n_roi++;
    fail_unless_equals_int (n_roi, 2);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
    g_free (launch);
  }
  g_free (model);
  g_free (labels);
}

GST_END_TEST;

/* two_colour_frame with its object 1 at x = @x (left: red, right: blue) and tracked by
 * vkmltrack as track 7; object 2 (on the blue half) untracked. */
static GstBuffer *
tracked_frame (const GstVideoInfo * vinfo, guint x)
{
  GstBuffer *buf = two_colour_frame (vinfo, 2);
  GstVideoRegionOfInterestMeta *roi =
      gst_buffer_get_video_region_of_interest_meta_id (buf, 1);

  roi->x = x;
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new ("tracking", "id", G_TYPE_UINT64,
          (guint64) 7, "predicted", G_TYPE_BOOLEAN, FALSE, NULL));
  return buf;
}

/* The data buffer of the first tensor of roi_id @id's meta. */
static GstBuffer *
tensor_data_of (GstBuffer * buf, gint id)
{
  guint n_metas;
  GstVkmlTensorMeta *m = meta_of_roi (buf, id, &n_metas);

  fail_unless (m != NULL && m->n_tensors > 0);
  fail_unless_equals_string (m->model_id, "colour");
  return m->tensors[0].data;
}

/* reclassify-interval=3: the tracked object runs on frames 0 and 3 only; frames 1 and 2
 * carry frame 0's outputs (the same data) and so its label "red", though the object
 * moved onto the blue half at frame 1; frame 3 runs again: "blue". The untracked
 * object runs on every frame. */
GST_START_TEST (test_reclassify_interval)
{
  gchar *model = build_path ("pipelines", "color.onnx");
  gchar *labels = build_path ("pipelines", "color-labels.txt");
  gchar *launch = g_strdup_printf ("vkmlinfer model=\"%s\" device=cpu "
      "roi=objects model-id=colour reclassify-interval=3 ! vkmlclassify "
      "model-id=colour labels=\"%s\" post-messages=false", model, labels);
  const gchar *want[] = { "red", "red", "red", "blue", "blue" };
  GstHarness *h = gst_harness_new_parse (launch);
  GstBuffer *out[G_N_ELEMENTS (want)];
  GstElement *infer;
  GstVideoInfo vinfo;
  guint64 processed = 0;
  guint f;

  gst_video_info_set_format (&vinfo, GST_VIDEO_FORMAT_RGB, 64, 48);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&vinfo));
  for (f = 0; f < G_N_ELEMENTS (want); f++) {
    out[f] = gst_harness_push_and_pull (h, tracked_frame (&vinfo,
            f == 0 ? 4 : 40));
    fail_unless (out[f] != NULL);
    fail_unless_equals_string (classification_of (out[f], 1), want[f]);
    fail_unless_equals_string (classification_of (out[f], 2), "blue");
  }
  fail_unless (tensor_data_of (out[1], 1) == tensor_data_of (out[0], 1));
  fail_unless (tensor_data_of (out[2], 1) == tensor_data_of (out[0], 1));
  fail_unless (tensor_data_of (out[3], 1) != tensor_data_of (out[0], 1));
  fail_unless (tensor_data_of (out[4], 1) == tensor_data_of (out[3], 1));
  fail_unless (tensor_data_of (out[1], 2) != tensor_data_of (out[0], 2));
  infer = gst_harness_find_element (h, "vkmlinfer");
  g_object_get (infer, "frames-processed", &processed, NULL);
  gst_object_unref (infer);
  fail_unless_equals_uint64 (processed, G_N_ELEMENTS (want));
  for (f = 0; f < G_N_ELEMENTS (want); f++)
    gst_buffer_unref (out[f]);
  gst_harness_teardown (h);
  g_free (launch);
  g_free (model);
  g_free (labels);
}

GST_END_TEST;

/* Rightmost changed pixel in the rows above the box (its tag), -1: none. */
static gint
tag_right_edge (GstBuffer * before, GstBuffer * after,
    const GstVideoInfo * vinfo)
{
  GstMapInfo a, b;
  gint x, y, right = -1, stride = GST_VIDEO_INFO_PLANE_STRIDE (vinfo, 0);

  fail_unless (gst_buffer_map (before, &a, GST_MAP_READ));
  fail_unless (gst_buffer_map (after, &b, GST_MAP_READ));
  for (y = 0; y < 28; y++)
    for (x = 0; x < 64; x++)
      if (memcmp (a.data + y * stride + 3 * x, b.data + y * stride + 3 * x, 3))
        right = MAX (right, x);
  gst_buffer_unmap (before, &a);
  gst_buffer_unmap (after, &b);
  return right;
}

/* vkmloverlay draws "car: red 0.99", wider than the bare "car" tag. */
GST_START_TEST (test_overlay_draws_classification)
{
  gchar *model = build_path ("pipelines", "color.onnx");
  gchar *labels = build_path ("pipelines", "color-labels.txt");
  gchar *launch = g_strdup_printf ("vkmlinfer model=\"%s\" device=cpu "
      "roi=objects ! vkmlclassify labels=\"%s\" post-messages=false ! "
      "vkmloverlay", model, labels);
  GstHarness *with = gst_harness_new_parse (launch);
  GstHarness *bare = gst_harness_new_parse ("vkmloverlay");
  GstVideoInfo vinfo;
  GstBuffer *in, *out_with, *out_bare;
  gint edge_with, edge_bare;

  gst_video_info_set_format (&vinfo, GST_VIDEO_FORMAT_RGB, 64, 48);
  gst_harness_set_src_caps (with, gst_video_info_to_caps (&vinfo));
  gst_harness_set_src_caps (bare, gst_video_info_to_caps (&vinfo));
  in = two_colour_frame (&vinfo, 1);
  out_with = gst_harness_push_and_pull (with, gst_buffer_copy (in));
  out_bare = gst_harness_push_and_pull (bare, gst_buffer_copy (in));
  edge_with = tag_right_edge (in, out_with, &vinfo);
  edge_bare = tag_right_edge (in, out_bare, &vinfo);
#ifdef HAVE_PANGOCAIRO
  fail_unless (edge_bare > 4 && edge_with > edge_bare + 4,
      "tag to x %d with the classification, %d without", edge_with, edge_bare);
#else
  fail_unless (edge_with == -1 && edge_bare == -1);
#endif
  gst_buffer_unref (in);
  gst_buffer_unref (out_with);
  gst_buffer_unref (out_bare);
  gst_harness_teardown (with);
  gst_harness_teardown (bare);
  g_free (launch);
  g_free (model);
  g_free (labels);
}

GST_END_TEST;

/* A bad min-object-size is refused at start with a message naming it. */
GST_START_TEST (test_bad_min_size)
{
  gchar *model = build_path ("tests/gst", "id-nchw.onnx");
  gchar *launch = g_strdup_printf ("vkmlinfer model=\"%s\" device=cpu "
      "roi=objects min-object-size=7by7", model);
  GstElement *e = gst_parse_launch (launch, NULL);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *gerr = NULL;

  gst_element_set_bus (e, bus);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error");
  gst_message_parse_error (msg, &gerr, NULL);
  fail_unless (g_error_matches (gerr, GST_LIBRARY_ERROR,
          GST_LIBRARY_ERROR_SETTINGS) && strstr (gerr->message,
          "min-object-size") != NULL, "%s", gerr->message);
  g_error_free (gerr);
  gst_message_unref (msg);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
  g_free (launch);
  g_free (model);
}

GST_END_TEST;

static Suite *
vkml_roi_suite (void)
{
  Suite *s = suite_create ("vkml-roi");
  TCase *tc = tcase_create ("general");
  const gchar *build = g_getenv ("VKML_BUILD_ROOT");

  (void) test_failures;         /* testutil.h's counter; GstCheck counts here */
  if (!build) {
    fprintf (stderr, "VKML_BUILD_ROOT is not set: run through meson test\n");
    exit (1);
  }
  build_dir = g_strdup (build);
  gst_test_require_vulkan_device ();
  if (!GST_ELEMENT_REGISTER (vkmlinfer, NULL)
      || !GST_ELEMENT_REGISTER (vkmlclassify, NULL)
      || !GST_ELEMENT_REGISTER (vkmloverlay, NULL)) {
    fprintf (stderr, "could not register the elements\n");
    exit (1);
  }
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_objects_crop);
  tcase_add_test (tc, test_objects_model_swap);
  tcase_add_test (tc, test_object_filter);
  tcase_add_test (tc, test_no_objects);
  tcase_add_test (tc, test_classify_objects);
  tcase_add_test (tc, test_reclassify_interval);
  tcase_add_test (tc, test_overlay_draws_classification);
  tcase_add_test (tc, test_bad_min_size);
  return s;
}

GST_CHECK_MAIN (vkml_roi);
