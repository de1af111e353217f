/* GstVkmlTensorMeta and the frame -> tensor converter, without a model. */
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include "gstvkmlconvert.h"
#include "gstvkmltensormeta.h"

#include <string.h>

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

/* Converts @pixels (rows of @stride bytes) of a @format frame with @shape. */
static void
convert (GstVideoFormat format, guint width, guint height,
    const guint8 * pixels, gsize stride, const GstVkmlImageShape * shape,
    gfloat * out)
{
  GstVideoInfo vinfo;
  GstVideoFrame frame;
  GstVkmlConverter *conv;
  GstBuffer *buf;
  gchar *why = NULL;
  guint y;

  gst_video_info_set_format (&vinfo, format, width, height);
  fail_unless_equals_int (GST_VIDEO_INFO_PLANE_STRIDE (&vinfo, 0), stride);
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&vinfo), NULL);
  fail_unless (gst_video_frame_map (&frame, &vinfo, buf, GST_MAP_WRITE));
  for (y = 0; y < height; y++)
    memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) + y * stride,
        pixels + y * stride, stride);
  gst_video_frame_unmap (&frame);

  conv = gst_vkml_converter_new (&vinfo, shape, &why);
  fail_unless (conv != NULL, "%s", why);
  fail_unless_equals_int (gst_vkml_converter_output_count (conv),
      shape->channels * shape->height * shape->width);
  fail_unless (gst_video_frame_map (&frame, &vinfo, buf, GST_MAP_READ));
  gst_vkml_converter_run (conv, &frame, out);
  gst_video_frame_unmap (&frame);
  gst_vkml_converter_free (conv);
  gst_buffer_unref (buf);
}

/* BGR at the model's size is copied exactly, reordered to RGB, planar (NCHW). */
GST_START_TEST (test_convert_bgr_nchw)
{
  /* 2x1 BGR, stride 8 (6 bytes of pixels, 2 of padding) */
  const guint8 px[] = { 10, 20, 30, 40, 50, 60, 0xee, 0xee };
  const GstVkmlImageShape shape = { GST_VKML_LAYOUT_NCHW, 3, 1, 2 };
  const gfloat want[] = { 30, 60, 20, 50, 10, 40 };
  gfloat out[6];
  guint i;

  convert (GST_VIDEO_FORMAT_BGR, 2, 1, px, 8, &shape, out);
  for (i = 0; i < 6; i++)
    fail_unless_equals_float (out[i], want[i] / 255.0f);
}

GST_END_TEST;

/* RGBx into NHWC keeps pixels interleaved and skips the padding byte. */
GST_START_TEST (test_convert_rgbx_nhwc)
{
  const guint8 px[] = { 1, 2, 3, 99, 4, 5, 6, 99 };
  const GstVkmlImageShape shape = { GST_VKML_LAYOUT_NHWC, 3, 1, 2 };
  gfloat out[6];
  guint i;

  convert (GST_VIDEO_FORMAT_RGBx, 2, 1, px, 8, &shape, out);
  for (i = 0; i < 6; i++)
    fail_unless_equals_float (out[i], (i + 1) / 255.0f);
}

GST_END_TEST;

/* Bilinear 3x2 -> 1x1 samples the centre (x = 1, y = 0.5) with half-pixel centres;
 * GRAY8 rows are read through the stride (width 3, stride 4); gray is replicated to
 * 3 channels. */
GST_START_TEST (test_convert_gray_resize_and_replicate)
{
  /* column 1 holds 100 and 200: the sample is their mean */
  const guint8 px[] = { 0, 100, 255, 0xee, 0, 200, 255, 0xee };
  const GstVkmlImageShape shape = { GST_VKML_LAYOUT_NCHW, 3, 1, 1 };
  gfloat out[3];
  guint c;

  convert (GST_VIDEO_FORMAT_GRAY8, 3, 2, px, 4, &shape, out);
  for (c = 0; c < 3; c++)
    fail_unless_equals_float (out[c], 150.0f / 255.0f);
}

GST_END_TEST;

/* RGB into a 1-channel model becomes BT.601 luma. */
GST_START_TEST (test_convert_rgb_to_luma)
{
  const guint8 px[] = { 255, 0, 0, 0 };
  const GstVkmlImageShape shape = { GST_VKML_LAYOUT_NCHW, 1, 1, 1 };
  gfloat out[1];

  convert (GST_VIDEO_FORMAT_RGB, 1, 1, px, 4, &shape, out);
  fail_unless (fabsf (out[0] - 0.299f) < 1e-6f, "luma of red is %f", out[0]);
}

GST_END_TEST;

/* Model inputs: NCHW and NHWC found; other shapes refused with a reason. */
GST_START_TEST (test_image_shape_from_info)
{
  vkml_tensor_info info = {.name = "x",.dtype = VKML_DTYPE_FLOAT,.rank = 4,
    .dims = {1, 28, 28, 1}
  };
  GstVkmlImageShape shape;
  gchar *why = NULL;

  fail_unless (gst_vkml_image_shape_from_info (&info, &shape, &why));
  fail_unless_equals_int (shape.layout, GST_VKML_LAYOUT_NHWC);
  fail_unless_equals_int (shape.channels, 1);
  fail_unless_equals_int (shape.height, 28);
  info.dims[1] = 3;
  fail_unless (gst_vkml_image_shape_from_info (&info, &shape, &why));
  fail_unless_equals_int (shape.layout, GST_VKML_LAYOUT_NCHW);
  info.dims[1] = 5;
  info.dims[3] = 4;
  fail_if (gst_vkml_image_shape_from_info (&info, &shape, &why));
  fail_unless (why != NULL && strstr (why, "NCHW") != NULL);
  g_free (why);
  why = NULL;
  info.rank = 2;
  fail_if (gst_vkml_image_shape_from_info (&info, &shape, &why));
  fail_unless (why != NULL);
  g_free (why);
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
  tcase_add_test (tc, test_convert_bgr_nchw);
  tcase_add_test (tc, test_convert_rgbx_nhwc);
  tcase_add_test (tc, test_convert_gray_resize_and_replicate);
  tcase_add_test (tc, test_convert_rgb_to_luma);
  tcase_add_test (tc, test_image_shape_from_info);
  return s;
}

GST_CHECK_MAIN (vkml_meta);
