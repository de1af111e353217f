/* Detector output decoding for vkmldetect: tensors -> boxes, NMS, map to the frame.
 * Plain functions over a GstVkmlTensorMeta, no element, so the unit tests call them
 * on synthetic tensors. Thread-safe (no shared state). */
#ifndef __GST_VKML_DETECT_DECODE_H__
#define __GST_VKML_DETECT_DECODE_H__

#include "gstvkmltensormeta.h"

G_BEGIN_DECLS typedef enum
{
  GST_VKML_DETECT_FORMAT_AUTO,
  GST_VKML_DETECT_FORMAT_YOLOV5,        /* [1,N,5+C]: cx,cy,w,h, objectness, C scores */
  GST_VKML_DETECT_FORMAT_YOLOV8,        /* [1,4+C,N]: cx,cy,w,h, C scores; no objectness */
  GST_VKML_DETECT_FORMAT_YOLOX, /* [1,N,5+C] raw: grid/stride (8,16,32) decoding */
  GST_VKML_DETECT_FORMAT_SSD,   /* boxes + scores, or boxes/classes/scores/count */
  GST_VKML_DETECT_FORMAT_TORCHVISION,   /* boxes [N,4], labels [N], scores [N] */
} GstVkmlDetectFormat;

/* Most YOLOX grid strides GstVkmlDetectParams takes. */
#define GST_VKML_DETECT_MAX_STRIDES 8

GType gst_vkml_detect_format_get_type (void);
#define GST_TYPE_VKML_DETECT_FORMAT (gst_vkml_detect_format_get_type ())

/* One box: corners (x0,y0) top-left, (x1,y1) bottom-right, in model input pixels after
 * decoding and in frame pixels after gst_vkml_detect_map_to_frame. */
typedef struct
{
  gfloat x0, y0, x1, y1;
  gfloat score;
  gint class_id;
  gint row;                     /* torchvision: its row of the model's outputs (masks,
                                   keypoints); -1 for the other formats */
} GstVkmlDetection;


typedef struct
{
  GstVkmlDetectFormat format;
  gfloat score_threshold;       /* keep scores >= this */
  gint background_class;        /* SSD scores [1,N,C]: this class is never reported; -1 none */
  const gint *classes;          /* report only these classes ... */
  guint n_classes;              /* ... when n_classes > 0 */
  guint input_width;            /* model input size: SSD's normalised boxes are */
  guint input_height;           /* scaled by it, YOLOX's grids built over it */
  const guint *strides;         /* YOLOX: the heads' strides in input pixels, in output */
  guint n_strides;              /* order; 0: 8, 16, 32 */
} GstVkmlDetectParams;

/* Decodes @meta's tensors into @out (GstVkmlDetection, appended), score-thresholded and
 * class-filtered, before NMS. @chosen gets the format used (auto resolved). On a tensor
 * layout that does not fit, returns FALSE and sets @error (free with g_free) to a
 * message naming the tensors expected and the ones the meta has. */
gboolean gst_vkml_detect_decode (const GstVkmlTensorMeta * meta,
    const GstVkmlDetectParams * params, GArray * out,
    GstVkmlDetectFormat * chosen, gchar ** error);

/* Greedy per-class NMS: highest score first; a box whose IoU with a kept box of its
 * class is above @iou_threshold is dropped. Then keeps the @max_detections best
 * (0: all). Leaves @dets sorted by score, highest first. */
void gst_vkml_detect_nms (GArray * dets, gfloat iou_threshold,
    guint max_detections);

/* Maps model input pixels to frame pixels through @geometry (letterbox or stretch),
 * or not at all when @geometry is NULL; then, when the frame is no longer the size
 * the geometry names (scaled since), onto the @frame_width x @frame_height frame;
 * clips to it and drops boxes left empty. */
void gst_vkml_detect_map_to_frame (GArray * dets,
    const GstVkmlInputGeometry * geometry, guint frame_width,
    guint frame_height);

/* One point from model input pixels to frame pixels (not clipped), as
 * gst_vkml_detect_map_to_frame maps corners; and back (@to_input). */
void gst_vkml_detect_map_point (const GstVkmlInputGeometry * geometry,
    guint frame_width, guint frame_height, gboolean to_input, gfloat * x,
    gfloat * y);

const gchar *gst_vkml_detect_format_name (GstVkmlDetectFormat format);

/* Whether @p reports class @class_id (not the background, in 'classes' when set). */
gboolean gst_vkml_detect_class_allowed (const GstVkmlDetectParams * p,
    gint class_id);

G_END_DECLS
#endif /* __GST_VKML_DETECT_DECODE_H__ */
