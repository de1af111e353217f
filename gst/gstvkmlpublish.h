/* vkmlpublish: writes each frame's results as JSON to a file or stdout and to MQTT. */
#ifndef __GST_VKML_PUBLISH_H__
#define __GST_VKML_PUBLISH_H__

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS
#define GST_TYPE_VKML_PUBLISH (gst_vkml_publish_get_type ())
G_DECLARE_FINAL_TYPE (GstVkmlPublish, gst_vkml_publish, GST, VKML_PUBLISH,
    GstBaseTransform);

GST_ELEMENT_REGISTER_DECLARE (vkmlpublish);

G_END_DECLS
#endif /* __GST_VKML_PUBLISH_H__ */
