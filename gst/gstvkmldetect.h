/* vkmldetect: turns a detector's output tensors into boxes on the frame. */
#ifndef __GST_VKML_DETECT_H__
#define __GST_VKML_DETECT_H__

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS
#define GST_TYPE_VKML_DETECT (gst_vkml_detect_get_type ())
G_DECLARE_FINAL_TYPE (GstVkmlDetect, gst_vkml_detect, GST, VKML_DETECT,
    GstBaseTransform);

GST_ELEMENT_REGISTER_DECLARE (vkmldetect);

G_END_DECLS
#endif /* __GST_VKML_DETECT_H__ */
