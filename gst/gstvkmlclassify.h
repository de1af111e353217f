/* vkmlclassify: turns a classifier's output tensor into a label per frame. */
#ifndef __GST_VKML_CLASSIFY_H__
#define __GST_VKML_CLASSIFY_H__

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS
#define GST_TYPE_VKML_CLASSIFY (gst_vkml_classify_get_type ())
G_DECLARE_FINAL_TYPE (GstVkmlClassify, gst_vkml_classify, GST, VKML_CLASSIFY,
    GstBaseTransform);

GST_ELEMENT_REGISTER_DECLARE (vkmlclassify);

G_END_DECLS
#endif /* __GST_VKML_CLASSIFY_H__ */
