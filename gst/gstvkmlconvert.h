/* Video frame -> model input tensor, on the CPU: bilinear resize, channel order,
 * u8 -> float in 0..1, NCHW or NHWC. Private to the plugin. Not thread-safe per
 * converter; converters are independent of each other. */
#pragma once

#include <gst/video/video.h>
#include <vkml/vkml.h>

G_BEGIN_DECLS

typedef enum
{
  GST_VKML_LAYOUT_NCHW,
  GST_VKML_LAYOUT_NHWC,
} GstVkmlLayout;

/* What an image input of a model looks like. */
typedef struct
{
  GstVkmlLayout layout;
  guint channels;               /* 1 (gray) or 3 (RGB) */
  guint height;
  guint width;
} GstVkmlImageShape;

typedef struct _GstVkmlConverter GstVkmlConverter;

/* Reads the layout of a model input: float, rank 4, batch 1, NCHW (dims[1] is 1 or 3)
 * or NHWC (dims[3] is 1 or 3), fixed height and width. NCHW wins when both fit. On
 * failure returns FALSE and a reason in *why (g_free it). */
gboolean gst_vkml_image_shape_from_info (const vkml_tensor_info * info,
    GstVkmlImageShape * shape, gchar ** why);

/* "[1,3,64,64] float" into a newly allocated string. */
gchar *gst_vkml_tensor_info_to_string (const vkml_tensor_info * info);

/* A converter from frames described by @vinfo (GRAY8 or packed 8-bit RGB family) to
 * @shape. NULL (and *why set) when the video format cannot be read. */
GstVkmlConverter *gst_vkml_converter_new (const GstVideoInfo * vinfo,
    const GstVkmlImageShape * shape, gchar ** why);
void gst_vkml_converter_free (GstVkmlConverter * conv);

/* Number of floats the converter writes. */
gsize gst_vkml_converter_output_count (const GstVkmlConverter * conv);

/* Converts a mapped frame into @dst (gst_vkml_converter_output_count floats). */
void gst_vkml_converter_run (const GstVkmlConverter * conv,
    const GstVideoFrame * frame, gfloat * dst);

G_END_DECLS
