/* torchvision's detectors for vkmldetect (format=torchvision): their outputs as the
 * exporter leaves them (boxes [N,4] in input pixels, labels int64 [N], scores [N]; Mask
 * R-CNN's masks [N,1,H,W]; Keypoint R-CNN's keypoints [N,K,3] and keypoints_scores
 * [N,K]), decoded into detections, and the masks and keypoints of a detection put on its
 * ROI meta. Plain functions, tested on synthetic tensors. Thread-safe (no shared state). */
#ifndef __GST_VKML_DETECT_TORCHVISION_H__
#define __GST_VKML_DETECT_TORCHVISION_H__

#include "gstvkmldetectdecode.h"

#include <gst/video/video.h>

G_BEGIN_DECLS
/* The outputs found on a meta (NULL: absent). */
    typedef struct
{
  const GstVkmlTensor *boxes;   /* float [N,4]: x0, y0, x1, y1 in input pixels */
  const GstVkmlTensor *labels;  /* int64 [N] */
  const GstVkmlTensor *scores;  /* float [N] */
  const GstVkmlTensor *masks;   /* float [N,1,H,W] over the input, 0..1 */
  const GstVkmlTensor *keypoints;       /* float [N,K,3]: x, y, visibility */
  const GstVkmlTensor *keypoint_scores; /* float [N,K] */
} GstVkmlTorchvisionTensors;

/* Finds the outputs on @meta: by name (boxes, labels, scores, masks, keypoints,
 * keypoints_scores), else by shape and type. FALSE when there are no boxes, labels and
 * scores of one N. */
gboolean gst_vkml_torchvision_tensors (const GstVkmlTensorMeta * meta,
    GstVkmlTorchvisionTensors * out);

/* Appends every row of @t to @out (its row index in GstVkmlDetection.row), score-
 * thresholded and class-filtered by @p. FALSE when a tensor cannot be read. */
gboolean gst_vkml_torchvision_decode (const GstVkmlTorchvisionTensors * t,
    const GstVkmlDetectParams * p, GArray * out);

/* Puts detection @d's mask (row d->row of @t->masks) on @roi, whose box is @d's in frame
 * pixels, as a "mask" parameter: width and height (the ROI's, guint) and data (GBytes,
 * width x height bytes, row-major, the mask's value at each frame pixel's centre x 255,
 * nearest sample). @geometry maps input to frame pixels (NULL: none), as for the box.
 * Nothing when @t has no masks. */
void gst_vkml_torchvision_attach_mask (GstVideoRegionOfInterestMeta * roi,
    const GstVkmlTorchvisionTensors * t, const GstVkmlDetection * d,
    const GstVkmlInputGeometry * geometry, guint frame_width,
    guint frame_height);

/* Puts detection @d's keypoints on @roi as a "keypoints" parameter: x, y (frame pixels)
 * and score (keypoints_scores, else the visibility column), each a GstValueArray of K
 * gfloats. Nothing when @t has no keypoints. */
void gst_vkml_torchvision_attach_keypoints (GstVideoRegionOfInterestMeta * roi,
    const GstVkmlTorchvisionTensors * t, const GstVkmlDetection * d,
    const GstVkmlInputGeometry * geometry, guint frame_width,
    guint frame_height);

G_END_DECLS
#endif /* __GST_VKML_DETECT_TORCHVISION_H__ */
