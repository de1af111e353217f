/* Video frame -> model input; see gstvkmlconvert.h. The conversion itself (resize, colour,
 * normalisation) is libvkml's com.vkml.ImagePreprocess, on the model's device. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmlconvert.h"

#include <math.h>
#include <string.h>

gchar *
gst_vkml_tensor_info_to_string (const vkml_tensor_info * info)
{
  GString *s = g_string_new ("'");
  int i;

  g_string_append_printf (s, "%s' ", info->name ? info->name : "");
  if (info->rank < 0)
    g_string_append (s, "[unknown shape]");
  else {
    g_string_append_c (s, '[');
    for (i = 0; i < info->rank; i++) {
      if (i)
        g_string_append_c (s, ',');
      if (info->dims[i] >= 0)
        g_string_append_printf (s, "%" G_GINT64_FORMAT, (gint64) info->dims[i]);
      else
        g_string_append (s, info->dim_names[i] ? info->dim_names[i] : "?");
    }
    g_string_append_c (s, ']');
  }
  g_string_append_printf (s, " %s", vkml_dtype_name (info->dtype));
  return g_string_free (s, FALSE);
}

static void
bind_dim (vkml_tensor_info * t, int axis, gint64 value)
{
  if (t->dims[axis] < 0)
    t->dims[axis] = value;
}

gboolean
gst_vkml_bind_image_shape (const vkml_tensor_info * info,
    const GstVideoInfo * vinfo, const GstVkmlPreprocessSettings * s,
    vkml_tensor_info * bound, gchar ** why)
{
  gint64 w = s->input_width ? s->input_width :
      (gint64) GST_VIDEO_INFO_WIDTH (vinfo);
  gint64 h = s->input_height ? s->input_height :
      (gint64) GST_VIDEO_INFO_HEIGHT (vinfo);
  int h_axis = 2, w_axis = 3;

  *bound = *info;
  if (info->rank != 4) {
    *why = g_strdup ("an image input has rank 4 (NCHW [1,C,H,W] or NHWC "
        "[1,H,W,C]) or 3 (one image [C,H,W] or [H,W,C])");
    return FALSE;
  }
  bind_dim (bound, 0, 1);
  if (!(info->dims[1] == 1 || info->dims[1] == 3)
      && (info->dims[3] == 1 || info->dims[3] == 3)) {
    h_axis = 1;
    w_axis = 2;
  } else {
    bind_dim (bound, 1, 3);
  }
  bind_dim (bound, h_axis, h);
  bind_dim (bound, w_axis, w);
  if (s->input_width && (bound->dims[w_axis] != s->input_width
          || bound->dims[h_axis] != s->input_height)) {
    *why = g_strdup_printf ("'input-size' %ux%u differs from the model's fixed "
        "%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT, s->input_width,
        s->input_height, (gint64) bound->dims[w_axis],
        (gint64) bound->dims[h_axis]);
    return FALSE;
  }
  return TRUE;
}

/* The YUV formats libvkml's pre-processing reads, 8- and 10-bit (the sample depth and
 * shift come from GStreamer's format info). */
static const struct
{
  GstVideoFormat video;
  vkml_frame_format frame;
} yuv_formats[] = {
  {GST_VIDEO_FORMAT_NV12, VKML_FRAME_NV12},
  {GST_VIDEO_FORMAT_P010_10LE, VKML_FRAME_NV12},
  {GST_VIDEO_FORMAT_NV16, VKML_FRAME_NV16},
  {GST_VIDEO_FORMAT_I420, VKML_FRAME_I420},
  {GST_VIDEO_FORMAT_I420_10LE, VKML_FRAME_I420},
  {GST_VIDEO_FORMAT_Y42B, VKML_FRAME_I422},
  {GST_VIDEO_FORMAT_Y444, VKML_FRAME_I444},
  {GST_VIDEO_FORMAT_Y444_10LE, VKML_FRAME_I444},
};

static gboolean
yuv_frame_format (GstVideoFormat format, vkml_frame_format * out)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (yuv_formats); i++)
    if (yuv_formats[i].video == format) {
      *out = yuv_formats[i].frame;
      return TRUE;
    }
  return FALSE;
}

gboolean
gst_vkml_preprocess_from_video (const GstVideoInfo * vinfo,
    const GstVkmlPreprocessSettings * s, vkml_dtype dtype, vkml_preprocess * pp,
    gchar ** why)
{
  const GstVideoFormatInfo *finfo = vinfo->finfo;
  GstVideoFormat format = GST_VIDEO_INFO_FORMAT (vinfo);
  guint i;

  memset (pp, 0, sizeof (*pp));
  if (yuv_frame_format (format, &pp->format)) {
    pp->sample_bits = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0);
    pp->sample_shift = GST_VIDEO_FORMAT_INFO_SHIFT (finfo, 0);
  } else if (format == GST_VIDEO_FORMAT_GRAY8)
    pp->format = VKML_FRAME_GRAY8;
  else if (GST_VIDEO_FORMAT_INFO_IS_RGB (finfo)
      && GST_VIDEO_FORMAT_INFO_N_PLANES (finfo) == 1
      && GST_VIDEO_FORMAT_INFO_BITS (finfo) == 8
      && GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0) == 8) {
    pp->format = VKML_FRAME_PACKED_RGB;
    pp->pixel_stride = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, 0);
    for (i = 0; i < 3; i++)
      pp->rgb_offsets[i] = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, i);
  } else {
    *why = g_strdup_printf ("video format %s is not one of %s",
        GST_VIDEO_FORMAT_INFO_NAME (finfo), GST_VKML_VIDEO_FORMATS);
    return FALSE;
  }
  pp->width = GST_VIDEO_INFO_WIDTH (vinfo);
  pp->height = GST_VIDEO_INFO_HEIGHT (vinfo);
  for (i = 0; i < GST_VIDEO_INFO_N_PLANES (vinfo) && i < 3; i++) {
    pp->plane_offsets[i] = GST_VIDEO_INFO_PLANE_OFFSET (vinfo, i);
    pp->plane_strides[i] = GST_VIDEO_INFO_PLANE_STRIDE (vinfo, i);
  }
  pp->frame_bytes = GST_VIDEO_INFO_SIZE (vinfo);
  pp->matrix = vinfo->colorimetry.matrix == GST_VIDEO_COLOR_MATRIX_BT709 ?
      VKML_YUV_BT709 : VKML_YUV_BT601;
  pp->full_range = vinfo->colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255;
  pp->resize = s->resize;
  pp->pad_value = s->pad_value;
  pp->bgr = s->bgr;
  pp->scale = s->scale != 0.0f ? s->scale :
      dtype == VKML_DTYPE_UINT8 ? 1.0f : 1.0f / 255.0f;
  for (i = 0; i < 3; i++) {
    pp->mean[i] = s->mean[i];
    pp->std[i] = s->std[i];
  }
  return TRUE;
}

gboolean
gst_vkml_frame_pack (const GstVideoInfo * vinfo, GstBuffer * buf, guint8 * dst,
    gsize size)
{
  GstVideoFrame src, out;
  GstBuffer *wrap;
  gboolean ok;

  if (size < GST_VIDEO_INFO_SIZE (vinfo))
    return FALSE;
  if (!gst_video_frame_map (&src, (GstVideoInfo *) vinfo, buf, GST_MAP_READ))
    return FALSE;
  wrap = gst_buffer_new_wrapped_full (0, dst, size, 0, size, NULL, NULL);
  ok = gst_video_frame_map (&out, (GstVideoInfo *) vinfo, wrap, GST_MAP_WRITE);
  if (ok) {
    ok = gst_video_frame_copy (&out, &src);
    gst_video_frame_unmap (&out);
  }
  gst_buffer_unref (wrap);
  gst_video_frame_unmap (&src);
  return ok;
}

gboolean
gst_vkml_parse_channel_values (const gchar * text, gfloat out[3], gchar ** why)
{
  gchar **parts = g_strsplit (text ? text : "", ",", -1);
  guint n = g_strv_length (parts), i;
  gboolean ok = n == 1 || n == 3;

  for (i = 0; ok && i < n; i++) {
    gchar *end = NULL;
    gdouble v = g_ascii_strtod (g_strstrip (parts[i]), &end);

    ok = end != parts[i] && *end == '\0' && isfinite (v);
    out[i] = (gfloat) v;
  }
  if (ok && n == 1)
    out[1] = out[2] = out[0];
  g_strfreev (parts);
  if (!ok)
    *why = g_strdup_printf ("\"%s\" is not one number or three "
        "comma-separated numbers", text ? text : "");
  return ok;
}
