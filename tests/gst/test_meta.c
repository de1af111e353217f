/* GstVkmlTensorMeta and the video -> pre-processing description, without a model. */
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include "gstvkmlconvert.h"
#include "gstvkmltensormeta.h"

#include <string.h>

#if defined (HAVE_GST_TENSOR_META) && GST_CHECK_VERSION (1, 26, 0)
#include <gst/analytics/analytics.h>
#define VKML_WITH_TENSOR_META 1
#endif

static GstBuffer *
float_buffer (const gfloat * values, gsize n)
{
  return gst_buffer_new_memdup (values, n * sizeof (gfloat));
}

/* A buffer with two tensors: "scores" [1,3] and "box" [4]. */
static GstBuffer *
buffer_with_two_tensors (void)
{
  static const gfloat scores[] = { 0.1f, 0.7f, 0.2f };
  static const gfloat box[] = { 1, 2, 3, 4 };
  const gint64 scores_dims[] = { 1, 3 }, box_dims[] = { 4 };
  GstBuffer *buf = gst_buffer_new ();
  GstVkmlTensorMeta *meta = gst_buffer_add_vkml_tensor_meta (buf);
  GstBuffer *data;

  data = float_buffer (scores, 3);
  fail_unless (gst_vkml_tensor_meta_add (meta, "scores", VKML_DTYPE_FLOAT, 2,
          scores_dims, data) != NULL);
  gst_buffer_unref (data);
  data = float_buffer (box, 4);
  fail_unless (gst_vkml_tensor_meta_add (meta, "box", VKML_DTYPE_FLOAT, 1,
          box_dims, data) != NULL);
  gst_buffer_unref (data);
  return buf;
}

static gfloat
tensor_value (const GstVkmlTensor * t, gsize i)
{
  gfloat v = NAN;

  fail_unless (gst_buffer_extract (t->data, i * sizeof (gfloat), &v,
          sizeof (v)) == sizeof (v));
  return v;
}

/* One meta holds several tensors, found by index and by name, with their shapes. */
GST_START_TEST (test_meta_holds_tensors)
{
  GstBuffer *buf = buffer_with_two_tensors ();
  GstVkmlTensorMeta *meta = gst_buffer_get_vkml_tensor_meta (buf);
  const GstVkmlTensor *t;

  fail_unless (meta != NULL);
  fail_unless_equals_int (meta->n_tensors, 2);
  t = gst_vkml_tensor_meta_get_by_name (meta, "box");
  fail_unless (t == gst_vkml_tensor_meta_get (meta, 1));
  fail_unless_equals_int (t->rank, 1);
  fail_unless_equals_int64 (t->dims[0], 4);
  fail_unless_equals_float (tensor_value (t, 3), 4.0f);
  t = gst_vkml_tensor_meta_get (meta, 0);
  fail_unless_equals_string (t->name, "scores");
  fail_unless_equals_int (t->dtype, VKML_DTYPE_FLOAT);
  fail_unless_equals_int (gst_vkml_tensor_element_count (t), 3);
  fail_unless_equals_float (tensor_value (t, 1), 0.7f);
  fail_unless (gst_vkml_tensor_meta_get_by_name (meta, "nope") == NULL);
  fail_unless (gst_vkml_tensor_meta_get (meta, 2) == NULL);
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* The meta survives gst_buffer_copy (its transform function), sharing the data. */
GST_START_TEST (test_meta_survives_copy)
{
  GstBuffer *buf = buffer_with_two_tensors ();
  GstBuffer *copy = gst_buffer_copy (buf);
  GstVkmlTensorMeta *a = gst_buffer_get_vkml_tensor_meta (buf);
  GstVkmlTensorMeta *b = gst_buffer_get_vkml_tensor_meta (copy);
  guint i;

  fail_unless (b != NULL && b != a);
  fail_unless_equals_int (b->n_tensors, a->n_tensors);
  for (i = 0; i < a->n_tensors; i++) {
    fail_unless_equals_string (b->tensors[i].name, a->tensors[i].name);
    fail_unless_equals_int (b->tensors[i].rank, a->tensors[i].rank);
    fail_unless (memcmp (b->tensors[i].dims, a->tensors[i].dims,
            sizeof (a->tensors[i].dims)) == 0);
    fail_unless (b->tensors[i].data == a->tensors[i].data);
  }
  /* The original goes away; the copy's tensors stay valid. */
  gst_buffer_unref (buf);
  fail_unless_equals_float (tensor_value (&b->tensors[1], 0), 1.0f);
  gst_buffer_unref (copy);
}

GST_END_TEST;

/* The API and implementation are vkml's own names, not GStreamer's GstTensorMeta. */
GST_START_TEST (test_meta_names)
{
  fail_unless_equals_string (g_type_name (GST_VKML_TENSOR_META_API_TYPE),
      "GstVkmlTensorMetaAPI");
  fail_unless_equals_string (g_type_name (GST_VKML_TENSOR_META_INFO->type),
      "GstVkmlTensorMeta");
}

GST_END_TEST;

/* Data smaller than the shape says, or a rank over the maximum, is refused. */
GST_START_TEST (test_meta_rejects_bad_tensor)
{
  const gint64 dims[GST_VKML_TENSOR_MAX_RANK + 1] = { 2, 3 };
  GstBuffer *buf = gst_buffer_new ();
  GstBuffer *small = gst_buffer_new_allocate (NULL, 5 * sizeof (gfloat), NULL);
  GstVkmlTensorMeta *meta = gst_buffer_add_vkml_tensor_meta (buf);

  fail_unless (gst_vkml_tensor_meta_add (meta, "x", VKML_DTYPE_FLOAT, 2, dims,
          small) == NULL);
  fail_unless (gst_vkml_tensor_meta_add (meta, "x", VKML_DTYPE_UINT8,
          GST_VKML_TENSOR_MAX_RANK + 1, dims, small) == NULL);
  fail_unless (gst_vkml_tensor_meta_add (meta, "x", VKML_DTYPE_UINT8, 2, dims,
          small) != NULL);
  fail_unless_equals_int (meta->n_tensors, 1);
  gst_buffer_unref (small);
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* What the element tells libvkml about a video: plane offsets and strides as
 * GstVideoInfo lays them out, component bytes of packed RGB, matrix and range from the
 * colorimetry, scale by the input's dtype. */
GST_START_TEST (test_preprocess_from_video)
{
  GstVkmlPreprocessSettings s = {.resize = VKML_RESIZE_LETTERBOX,
    .pad_value = 114,.std = {1, 1, 1}
  };
  GstVideoInfo vinfo;
  vkml_preprocess pp;
  gchar *why = NULL;

  /* NV12 7x5: Y stride 8, rows rounded up to 6 (GStreamer's layout); UV stride 8
   * (4 pairs), 3 rows, after 48 bytes */
  fail_unless (gst_video_info_set_format (&vinfo, GST_VIDEO_FORMAT_NV12, 7, 5));
  vinfo.colorimetry.matrix = GST_VIDEO_COLOR_MATRIX_BT709;
  vinfo.colorimetry.range = GST_VIDEO_COLOR_RANGE_16_235;
  fail_unless (gst_vkml_preprocess_from_video (&vinfo, &s, VKML_DTYPE_FLOAT,
          &pp, &why), "%s", why);
  fail_unless_equals_int (pp.format, VKML_FRAME_NV12);
  fail_unless_equals_int (pp.plane_strides[0], 8);
  fail_unless_equals_int (pp.plane_offsets[1], 48);
  fail_unless_equals_int (pp.plane_strides[1], 8);
  fail_unless_equals_int (pp.frame_bytes, 48 + 3 * 8);
  fail_unless_equals_int (pp.matrix, VKML_YUV_BT709);
  fail_if (pp.full_range);
  fail_unless_equals_int (pp.resize, VKML_RESIZE_LETTERBOX);
  fail_unless_equals_float (pp.pad_value, 114.0f);
  fail_unless_equals_float (pp.scale, 1.0f / 255.0f);

  /* xBGR: 4-byte pixels, R at byte 3, G at 2, B at 1; full range BT.601 */
  fail_unless (gst_video_info_set_format (&vinfo, GST_VIDEO_FORMAT_xBGR, 3, 2));
  vinfo.colorimetry.matrix = GST_VIDEO_COLOR_MATRIX_BT601;
  vinfo.colorimetry.range = GST_VIDEO_COLOR_RANGE_0_255;
  fail_unless (gst_vkml_preprocess_from_video (&vinfo, &s, VKML_DTYPE_UINT8,
          &pp, &why), "%s", why);
  fail_unless_equals_int (pp.format, VKML_FRAME_PACKED_RGB);
  fail_unless_equals_int (pp.pixel_stride, 4);
  fail_unless_equals_int (pp.rgb_offsets[0], 3);
  fail_unless_equals_int (pp.rgb_offsets[1], 2);
  fail_unless_equals_int (pp.rgb_offsets[2], 1);
  fail_unless_equals_int (pp.matrix, VKML_YUV_BT601);
  fail_unless (pp.full_range);
  fail_unless_equals_float (pp.scale, 1.0f);    /* uint8 input: pixel values */

  /* a format the kernel does not read is refused by name */
  fail_unless (gst_video_info_set_format (&vinfo, GST_VIDEO_FORMAT_YUY2, 4, 2));
  fail_if (gst_vkml_preprocess_from_video (&vinfo, &s, VKML_DTYPE_FLOAT, &pp,
          &why));
  fail_unless (why && strstr (why, "YUY2"), "%s", why);
  g_free (why);
}

GST_END_TEST;

/* The image input's shape: symbolic batch becomes 1, symbolic H and W the video's or
 * input-size's; NHWC is found by its channel axis; a fixed size that input-size
 * contradicts and a rank other than 4 are refused. */
GST_START_TEST (test_bind_image_shape)
{
  vkml_tensor_info info = {.name = "x",.dtype = VKML_DTYPE_FLOAT,.rank = 4,
    .dims = {-1, 3, -1, -1}
  };
  GstVkmlPreprocessSettings s = { 0 };
  vkml_tensor_info bound;
  GstVideoInfo vinfo;
  gchar *why = NULL;

  fail_unless (gst_video_info_set_format (&vinfo, GST_VIDEO_FORMAT_RGB, 40,
          30));
  fail_unless (gst_vkml_bind_image_shape (&info, &vinfo, &s, &bound, &why));
  fail_unless_equals_int (bound.dims[0], 1);
  fail_unless_equals_int (bound.dims[1], 3);
  fail_unless_equals_int (bound.dims[2], 30);
  fail_unless_equals_int (bound.dims[3], 40);
  s.input_width = 16;
  s.input_height = 8;
  fail_unless (gst_vkml_bind_image_shape (&info, &vinfo, &s, &bound, &why));
  fail_unless_equals_int (bound.dims[2], 8);
  fail_unless_equals_int (bound.dims[3], 16);

  /* NHWC [batch,H,W,1] */
  info.dims[1] = -1;
  info.dims[3] = 1;
  fail_unless (gst_vkml_bind_image_shape (&info, &vinfo, &s, &bound, &why));
  fail_unless_equals_int (bound.dims[1], 8);
  fail_unless_equals_int (bound.dims[2], 16);
  fail_unless_equals_int (bound.dims[3], 1);

  /* fixed 64x64 and input-size 16x8 */
  info.dims[1] = 3;
  info.dims[2] = info.dims[3] = 64;
  fail_if (gst_vkml_bind_image_shape (&info, &vinfo, &s, &bound, &why));
  fail_unless (why && strstr (why, "input-size"), "%s", why);
  g_clear_pointer (&why, g_free);
  info.rank = 2;
  fail_if (gst_vkml_bind_image_shape (&info, &vinfo, &s, &bound, &why));
  fail_unless (why && strstr (why, "rank 4"), "%s", why);
  g_free (why);
}

GST_END_TEST;

/* mean/std text: one value repeated, three values, bad text refused. */
GST_START_TEST (test_parse_channel_values)
{
  gfloat v[3];
  gchar *why = NULL;

  fail_unless (gst_vkml_parse_channel_values ("0.5", v, &why));
  fail_unless (v[0] == 0.5f && v[1] == 0.5f && v[2] == 0.5f);
  fail_unless (gst_vkml_parse_channel_values ("0.485, 0.456,0.406", v, &why));
  fail_unless (v[0] == 0.485f && v[1] == 0.456f && v[2] == 0.406f);
  fail_if (gst_vkml_parse_channel_values ("1,2", v, &why));
  g_clear_pointer (&why, g_free);
  fail_if (gst_vkml_parse_channel_values ("a,b,c", v, &why));
  fail_unless (why != NULL);
  g_free (why);
}

GST_END_TEST;

/* A frame with padded rows (a GstVideoMeta stride of 16 for an I420 Y plane of 6) is
 * packed into GstVideoInfo's layout: every plane's rows land where the info says. */
GST_START_TEST (test_frame_pack_strides)
{
  GstVideoInfo vinfo, padded;
  GstVideoFrame frame;
  GstBuffer *buf;
  gsize offsets[4] = { 0 };
  gint strides[4] = { 16, 8, 8, 0 };
  guint8 *packed;
  guint p, x, y;

  fail_unless (gst_video_info_set_format (&vinfo, GST_VIDEO_FORMAT_I420, 6, 4));
  offsets[1] = 16 * 4;
  offsets[2] = offsets[1] + 8 * 2;
  buf = gst_buffer_new_allocate (NULL, offsets[2] + 8 * 2, NULL);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_I420, 6, 4, 3, offsets, strides);
  padded = vinfo;
  fail_unless (gst_video_frame_map (&frame, &padded, buf, GST_MAP_WRITE));
  for (p = 0; p < 3; p++)
    for (y = 0; y < (p ? 2u : 4u); y++)
      for (x = 0; x < (p ? 3u : 6u); x++)
        ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, p))[y *
            GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p) + x] =
            100 * p + 10 * y + x;
  gst_video_frame_unmap (&frame);

  packed = g_malloc0 (GST_VIDEO_INFO_SIZE (&vinfo));
  fail_unless (gst_vkml_frame_pack (&vinfo, buf, packed,
          GST_VIDEO_INFO_SIZE (&vinfo)));
  fail_if (gst_vkml_frame_pack (&vinfo, buf, packed, 10));
  for (p = 0; p < 3; p++)
    for (y = 0; y < (p ? 2u : 4u); y++)
      for (x = 0; x < (p ? 3u : 6u); x++)
        fail_unless_equals_int (packed[GST_VIDEO_INFO_PLANE_OFFSET (&vinfo, p) +
                y * GST_VIDEO_INFO_PLANE_STRIDE (&vinfo, p) + x],
            100 * p + 10 * y + x);
  g_free (packed);
  gst_buffer_unref (buf);
}

GST_END_TEST;

#ifdef VKML_WITH_TENSOR_META
/* @up is @t as GstTensorMeta has it: name quark, @type, row-major dims, the same bytes. */
static void
check_upstream_tensor (const GstTensor * up, const GstVkmlTensor * t,
    GstTensorDataType type)
{
  GstMapInfo a, b;
  guint d;

  fail_unless (up != NULL);
  fail_unless_equals_string (g_quark_to_string (up->id), t->name);
  fail_unless_equals_int (up->data_type, type);
  fail_unless_equals_int (up->dims_order, GST_TENSOR_DIM_ORDER_ROW_MAJOR);
  fail_unless_equals_int (up->num_dims, t->rank);
  for (d = 0; d < t->rank; d++)
    fail_unless_equals_int64 ((gint64) up->dims[d], t->dims[d]);
  fail_unless (gst_buffer_map (up->data, &a, GST_MAP_READ));
  fail_unless (gst_buffer_map (t->data, &b, GST_MAP_READ));
  fail_unless_equals_int (a.size, b.size);
  fail_unless (memcmp (a.data, b.data, a.size) == 0);
  gst_buffer_unmap (t->data, &b);
  gst_buffer_unmap (up->data, &a);
}

/* GStreamer >= 1.26: the tensors mirrored into one GstTensorMeta (a bool tensor, which
 * GstTensor has no type for, and a scalar, which it has no shape for, left out); a
 * second call adds nothing. */
GST_START_TEST (test_meta_upstream_tensor_meta)
{
  static const gint64 ids[] = { 7, -3 };
  static const guint8 mask[] = { 1, 0 };
  static const gfloat scalar = 2.5f;
  const gint64 two[] = { 2 };
  GstBuffer *buf = buffer_with_two_tensors (), *data;
  GstVkmlTensorMeta *meta = gst_buffer_get_vkml_tensor_meta (buf);
  GstTensorMeta *tmeta;

  data = gst_buffer_new_memdup (mask, sizeof (mask));
  fail_unless (gst_vkml_tensor_meta_add (meta, "mask", VKML_DTYPE_BOOL, 1,
          two, data) != NULL);
  gst_buffer_unref (data);
  data = gst_buffer_new_memdup (ids, sizeof (ids));
  fail_unless (gst_vkml_tensor_meta_add (meta, "ids", VKML_DTYPE_INT64, 1,
          two, data) != NULL);
  gst_buffer_unref (data);
  data = float_buffer (&scalar, 1);
  fail_unless (gst_vkml_tensor_meta_add (meta, "scalar", VKML_DTYPE_FLOAT, 0,
          two, data) != NULL);
  gst_buffer_unref (data);

  fail_unless (gst_vkml_tensor_meta_attach_upstream (buf, meta));
  tmeta = gst_buffer_get_tensor_meta (buf);
  fail_unless (tmeta != NULL);
  fail_unless_equals_int (tmeta->num_tensors, 3);
  check_upstream_tensor (gst_tensor_meta_get (tmeta, 0),
      gst_vkml_tensor_meta_get (meta, 0), GST_TENSOR_DATA_TYPE_FLOAT32);
  check_upstream_tensor (gst_tensor_meta_get (tmeta, 1),
      gst_vkml_tensor_meta_get (meta, 1), GST_TENSOR_DATA_TYPE_FLOAT32);
  check_upstream_tensor (gst_tensor_meta_get (tmeta, 2),
      gst_vkml_tensor_meta_get (meta, 3), GST_TENSOR_DATA_TYPE_INT64);

  fail_if (gst_vkml_tensor_meta_attach_upstream (buf, meta));
  fail_unless (gst_buffer_get_tensor_meta (buf) == tmeta);
  fail_unless_equals_int (tmeta->num_tensors, 3);
  gst_buffer_unref (buf);
}

GST_END_TEST;
#endif

/* gst_vkml_buffer_get_detections: every ROI with a "detection" parameter, in order,
 * with its box, detection and (secondary) classification; others left out. */
GST_START_TEST (test_buffer_get_detections)
{
  GstBuffer *buf = gst_buffer_new ();
  GstVideoRegionOfInterestMeta *roi;
  GList *list;
  const GstStructure *d;
  gint id = -1, cls_id = -1;
  guint x = 0, w = 0;
  gfloat score = 0, cls_score = 0;

  roi = gst_buffer_add_video_region_of_interest_meta (buf, "car", 10, 20, 30,
      40);
  roi->id = 7;
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new ("detection", "label", G_TYPE_STRING, "car",
          "class-id", G_TYPE_INT, 2, "score", G_TYPE_FLOAT, 0.75f, NULL));
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new ("classification", "label", G_TYPE_STRING, "red",
          "class-id", G_TYPE_INT, 0, "score", G_TYPE_FLOAT, 0.5f, NULL));
  /* a whole-frame classification: no detection, not listed */
  gst_buffer_add_video_region_of_interest_meta (buf, "cat", 0, 0, 64, 48);
  roi = gst_buffer_add_video_region_of_interest_meta (buf, "bus", 1, 2, 3, 4);
  roi->id = 8;
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new ("detection", "class-id", G_TYPE_INT, 5, "score",
          G_TYPE_FLOAT, 0.25f, NULL));

  list = gst_vkml_buffer_get_detections (buf);
  fail_unless_equals_int (g_list_length (list), 2);
  d = list->data;
  fail_unless (gst_structure_get (d, "roi-id", G_TYPE_INT, &id, "x",
          G_TYPE_UINT, &x, "width", G_TYPE_UINT, &w, "score", G_TYPE_FLOAT,
          &score, "classification-class-id", G_TYPE_INT, &cls_id,
          "classification-score", G_TYPE_FLOAT, &cls_score, NULL));
  fail_unless (id == 7 && x == 10 && w == 30 && score == 0.75f && cls_id == 0
      && cls_score == 0.5f);
  fail_unless_equals_string (gst_structure_get_string (d, "label"), "car");
  fail_unless_equals_string (gst_structure_get_string (d,
          "classification-label"), "red");
  d = list->next->data;
  fail_unless_equals_string (gst_structure_get_string (d, "label"), "bus");
  fail_unless (gst_structure_get (d, "roi-id", G_TYPE_INT, &id, "class-id",
          G_TYPE_INT, &cls_id, NULL) && id == 8 && cls_id == 5);
  fail_if (gst_structure_has_field (d, "classification-label"));
  g_list_free_full (list, (GDestroyNotify) gst_structure_free);
  gst_buffer_unref (buf);
}

GST_END_TEST;

static Suite *
vkml_meta_suite (void)
{
  Suite *s = suite_create ("vkml-meta");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_meta_holds_tensors);
  tcase_add_test (tc, test_meta_survives_copy);
  tcase_add_test (tc, test_meta_names);
  tcase_add_test (tc, test_meta_rejects_bad_tensor);
  tcase_add_test (tc, test_preprocess_from_video);
  tcase_add_test (tc, test_bind_image_shape);
  tcase_add_test (tc, test_parse_channel_values);
  tcase_add_test (tc, test_frame_pack_strides);
  tcase_add_test (tc, test_buffer_get_detections);
#ifdef VKML_WITH_TENSOR_META
  tcase_add_test (tc, test_meta_upstream_tensor_meta);
#endif
  return s;
}

GST_CHECK_MAIN (vkml_meta);
