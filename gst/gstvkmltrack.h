/* vkmltrack: gives the frame's detected objects track ids kept across frames. */
#ifndef __GST_VKML_TRACK_H__
#define __GST_VKML_TRACK_H__

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS
#define GST_TYPE_VKML_TRACK (gst_vkml_track_get_type ())
G_DECLARE_FINAL_TYPE (GstVkmlTrack, gst_vkml_track, GST, VKML_TRACK,
    GstBaseTransform);

GST_ELEMENT_REGISTER_DECLARE (vkmltrack);

G_END_DECLS
#endif /* __GST_VKML_TRACK_H__ */
