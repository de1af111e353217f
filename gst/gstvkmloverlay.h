/* vkmloverlay: draws the region-of-interest metas (boxes and labels) onto the frame. */
#ifndef __GST_VKML_OVERLAY_H__
#define __GST_VKML_OVERLAY_H__

#include <gst/video/gstvideofilter.h>

G_BEGIN_DECLS
#define GST_TYPE_VKML_OVERLAY (gst_vkml_overlay_get_type ())
G_DECLARE_FINAL_TYPE (GstVkmlOverlay, gst_vkml_overlay, GST, VKML_OVERLAY,
    GstVideoFilter);

GST_ELEMENT_REGISTER_DECLARE (vkmloverlay);

/* The outline colour (R, G, B) of class @class_id (a fixed palette, cycled). */
void gst_vkml_overlay_class_colour (gint class_id, guint8 rgb[3]);

G_END_DECLS
#endif /* __GST_VKML_OVERLAY_H__ */
