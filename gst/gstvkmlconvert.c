/* Video frame -> model input tensor; see gstvkmlconvert.h.
 *
 * Resize: bilinear with half-pixel centres (as OpenCV's INTER_LINEAR and ONNX Resize
 * with coordinate_transformation_mode=half_pixel), edges clamped. At equal sizes it is
 * an exact copy. Channels: RGB order; GRAY8 into a 3-channel model is replicated, RGB
 * into a 1-channel model becomes luma (BT.601: 0.299 R + 0.587 G + 0.114 B). Values:
 * u8 / 255, so 0..1. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmlconvert.h"

#define MAX_SRC_CHANNELS 3

/* One axis of the resize: for each output index, the two source indices and the
 * weight of the second. */
typedef struct
{
  guint *i0;
  guint *i1;
  gfloat *w1;
} ResizeAxis;

struct _GstVkmlConverter
{
  GstVkmlImageShape shape;
  guint src_channels;           /* 1 (GRAY8) or 3 (R, G, B) */
  guint comp_offset[MAX_SRC_CHANNELS];  /* byte offset of R, G, B in a pixel */
  guint pixel_stride;           /* bytes per source pixel */
  ResizeAxis x;                 /* i0/i1 in bytes from the row start */
  ResizeAxis y;                 /* i0/i1 in rows */
  gsize dst_channel_stride;     /* floats between channels of one pixel */
  gsize dst_pixel_stride;       /* floats between neighbouring pixels */
};

static gboolean
dims_fit (const int64_t * dims, int c_axis, int h_axis, int w_axis)
{
  return (dims[c_axis] == 1 || dims[c_axis] == 3) && dims[h_axis] > 0
      && dims[w_axis] > 0 && dims[h_axis] <= G_MAXINT
      && dims[w_axis] <= G_MAXINT;
}

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

gboolean
gst_vkml_image_shape_from_info (const vkml_tensor_info * info,
    GstVkmlImageShape * shape, gchar ** why)
{
  const int64_t *d = info->dims;

  if (info->dtype != VKML_DTYPE_FLOAT || info->rank != 4) {
    *why = g_strdup ("an image input must be float with rank 4 (NCHW or NHWC)");
    return FALSE;
  }
  if (d[0] != 1) {
    *why = g_strdup ("the batch dimension must be 1");
    return FALSE;
  }
  if (dims_fit (d, 1, 2, 3)) {
    shape->layout = GST_VKML_LAYOUT_NCHW;
    shape->channels = (guint) d[1];
    shape->height = (guint) d[2];
    shape->width = (guint) d[3];
    return TRUE;
  }
  if (dims_fit (d, 3, 1, 2)) {
    shape->layout = GST_VKML_LAYOUT_NHWC;
    shape->channels = (guint) d[3];
    shape->height = (guint) d[1];
    shape->width = (guint) d[2];
    return TRUE;
  }
  *why = g_strdup ("the input is neither NCHW [1,C,H,W] nor NHWC [1,H,W,C] "
      "with C = 1 or 3 and fixed H, W");
  return FALSE;
}

static void
resize_axis_init (ResizeAxis * axis, guint src, guint dst, guint scale)
{
  guint i;

  axis->i0 = g_new (guint, dst);
  axis->i1 = g_new (guint, dst);
  axis->w1 = g_new (gfloat, dst);
  for (i = 0; i < dst; i++) {
    gdouble s = ((gdouble) i + 0.5) * src / dst - 0.5;
    guint lo;

    s = CLAMP (s, 0.0, (gdouble) (src - 1));
    lo = (guint) s;
    axis->i0[i] = lo * scale;
    axis->i1[i] = MIN (lo + 1, src - 1) * scale;
    axis->w1[i] = (gfloat) (s - lo);
  }
}

static void
resize_axis_clear (ResizeAxis * axis)
{
  g_free (axis->i0);
  g_free (axis->i1);
  g_free (axis->w1);
}

static gboolean
read_source_format (GstVkmlConverter * conv, const GstVideoInfo * vinfo,
    gchar ** why)
{
  const GstVideoFormatInfo *finfo = vinfo->finfo;
  guint c;

  if (GST_VIDEO_FORMAT_INFO_N_PLANES (finfo) != 1
      || GST_VIDEO_FORMAT_INFO_BITS (finfo) != 8
      || !(GST_VIDEO_FORMAT_INFO_IS_GRAY (finfo)
          || GST_VIDEO_FORMAT_INFO_IS_RGB (finfo))) {
    *why = g_strdup_printf ("video format %s is not 8-bit packed gray or RGB",
        GST_VIDEO_FORMAT_INFO_NAME (finfo));
    return FALSE;
  }
  conv->src_channels = GST_VIDEO_FORMAT_INFO_IS_GRAY (finfo) ? 1 : 3;
  conv->pixel_stride = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, 0);
  for (c = 0; c < conv->src_channels; c++)
    conv->comp_offset[c] = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, c);
  return TRUE;
}

GstVkmlConverter *
gst_vkml_converter_new (const GstVideoInfo * vinfo,
    const GstVkmlImageShape * shape, gchar ** why)
{
  GstVkmlConverter *conv = g_new0 (GstVkmlConverter, 1);

  if (!read_source_format (conv, vinfo, why)) {
    g_free (conv);
    return NULL;
  }
  conv->shape = *shape;
  resize_axis_init (&conv->x, GST_VIDEO_INFO_WIDTH (vinfo), shape->width,
      conv->pixel_stride);
  resize_axis_init (&conv->y, GST_VIDEO_INFO_HEIGHT (vinfo), shape->height, 1);
  if (shape->layout == GST_VKML_LAYOUT_NCHW) {
    conv->dst_channel_stride = (gsize) shape->height * shape->width;
    conv->dst_pixel_stride = 1;
  } else {
    conv->dst_channel_stride = 1;
    conv->dst_pixel_stride = shape->channels;
  }
  return conv;
}

void
gst_vkml_converter_free (GstVkmlConverter * conv)
{
  if (!conv)
    return;
  resize_axis_clear (&conv->x);
  resize_axis_clear (&conv->y);
  g_free (conv);
}

gsize
gst_vkml_converter_output_count (const GstVkmlConverter * conv)
{
  return (gsize) conv->shape.channels * conv->shape.height * conv->shape.width;
}

static inline gfloat
lerp (gfloat a, gfloat b, gfloat w)
{
  return a + (b - a) * w;
}

/* One output pixel's source channels (0..255), bilinearly sampled. */
static inline void
sample_pixel (const GstVkmlConverter * conv, const guint8 * row0,
    const guint8 * row1, gfloat wy, guint x, gfloat * out)
{
  guint x0 = conv->x.i0[x], x1 = conv->x.i1[x];
  gfloat wx = conv->x.w1[x];
  guint c;

  for (c = 0; c < conv->src_channels; c++) {
    guint off = conv->comp_offset[c];
    gfloat top = lerp (row0[x0 + off], row0[x1 + off], wx);
    gfloat bottom = lerp (row1[x0 + off], row1[x1 + off], wx);

    out[c] = lerp (top, bottom, wy);
  }
}

/* Source channels -> model channels, scaled to 0..1 (a division, not a multiplication
 * by 1/255, so that the values are exactly pixel / 255.0f). */
static inline void
store_pixel (const GstVkmlConverter * conv, const gfloat * src, gfloat * dst)
{
  gsize cs = conv->dst_channel_stride;
  guint c;

  if (conv->shape.channels == 1 && conv->src_channels == 3) {
    dst[0] = (0.299f * src[0] + 0.587f * src[1] + 0.114f * src[2]) / 255.0f;
    return;
  }
  for (c = 0; c < conv->shape.channels; c++)
    dst[c * cs] = src[conv->src_channels == 1 ? 0 : c] / 255.0f;
}

void
gst_vkml_converter_run (const GstVkmlConverter * conv,
    const GstVideoFrame * frame, gfloat * dst)
{
  const guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (frame, 0);
  gsize stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0);
  guint y, x;

  for (y = 0; y < conv->shape.height; y++) {
    const guint8 *row0 = data + conv->y.i0[y] * stride;
    const guint8 *row1 = data + conv->y.i1[y] * stride;
    gfloat *out = dst + (gsize) y * conv->shape.width * conv->dst_pixel_stride;

    for (x = 0; x < conv->shape.width; x++) {
      gfloat px[MAX_SRC_CHANNELS];

      sample_pixel (conv, row0, row1, conv->y.w1[y], x, px);
      store_pixel (conv, px, out + (gsize) x * conv->dst_pixel_stride);
    }
  }
}
