/* vkmlinfer: runs an ONNX model with libvkml on each video frame. */
#ifndef __GST_VKML_INFER_H__
#define __GST_VKML_INFER_H__

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS
#define GST_TYPE_VKML_INFER (gst_vkml_infer_get_type ())
G_DECLARE_FINAL_TYPE (GstVkmlInfer, gst_vkml_infer, GST, VKML_INFER,
    GstBaseTransform);

GST_ELEMENT_REGISTER_DECLARE (vkmlinfer);

G_END_DECLS
#endif /* __GST_VKML_INFER_H__ */
