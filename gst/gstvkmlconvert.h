/* Video frame -> model input: what the element tells libvkml's pre-processing
 * (vkml_session_params.preprocess, one kernel on the model's device) about the video, the
 * model's image input shape bound from the video, and the frame's bytes. Private to the
 * plugin. The functions are thread-safe (no state). */
#pragma once

#include <gst/video/video.h>
#include <vkml/vkml.h>

G_BEGIN_DECLS
/* The video formats vkmlinfer takes (its sink caps), as caps list them. */
#define GST_VKML_VIDEO_FORMATS "{ NV12, I420, NV16, Y42B, Y444, P010_10LE, " \
    "I420_10LE, Y444_10LE, RGB, BGR, RGBA, BGRA, RGBx, BGRx, xRGB, xBGR, ARGB, " \
    "ABGR, GRAY8 }"
/* The element's pre-processing properties. */
    typedef struct
{
  vkml_resize_mode resize;
  gfloat pad_value;             /* 0..255 */
  gboolean bgr;
  gfloat scale;                 /* 0: 1/255 for float inputs, 1 for uint8 inputs */
  gfloat mean[3];
  gfloat std[3];
  guint input_width;            /* 0: the model's, else the video's */
  guint input_height;
} GstVkmlPreprocessSettings;

/* "[1,3,64,64] float" into a newly allocated string. */
gchar *gst_vkml_tensor_info_to_string (const vkml_tensor_info * info);

/* The shape of the model's image input @info to plan for: batch 1, 3 channels where
 * symbolic, height and width from @s (input-size) or else the video. FALSE (and *why) when
 * the input is not rank 4. */
gboolean gst_vkml_bind_image_shape (const vkml_tensor_info * info,
    const GstVideoInfo * vinfo, const GstVkmlPreprocessSettings * s,
    vkml_tensor_info * bound, gchar ** why);

/* The pre-processing of frames of @vinfo (GST_VKML_VIDEO_FORMATS; planes as @vinfo lays
 * them out) into an input of @dtype. FALSE (and *why) for other
 * formats. */
gboolean gst_vkml_preprocess_from_video (const GstVideoInfo * vinfo,
    const GstVkmlPreprocessSettings * s, vkml_dtype dtype, vkml_preprocess * pp,
    gchar ** why);

/* Copies the frame in @buf (any strides, through its GstVideoMeta) into @dst laid out as
 * @vinfo says (@size >= vinfo's size). */
gboolean gst_vkml_frame_pack (const GstVideoInfo * vinfo, GstBuffer * buf,
    guint8 * dst, gsize size);

/* "0.5" or "0.485,0.456,0.406" into 3 values (one value is repeated). */
gboolean gst_vkml_parse_channel_values (const gchar * text, gfloat out[3],
    gchar ** why);

G_END_DECLS
