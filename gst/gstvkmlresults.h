/* What the decoders (vkmlclassify, vkmldetect) share: labels files, finding the meta to
 * decode, and attaching results to buffers as GstVideoRegionOfInterestMeta (and, built
 * against GStreamer >= 1.24, GstAnalyticsRelationMeta). Thread-safe (no shared state). */
#ifndef __GST_VKML_RESULTS_H__
#define __GST_VKML_RESULTS_H__

#include "gstvkmldetectdecode.h"
#include "gstvkmltensormeta.h"

#include <gst/video/video.h>

G_BEGIN_DECLS
/* Room for a class index written as the label. */
#define GST_VKML_LABEL_BUF_SIZE 16
/* One label per line (line N names class N); trailing whitespace and a final empty
 * line dropped. NULL (and @error set) when the file cannot be read. */
    gchar ** gst_vkml_labels_load (const gchar * path, guint * n_labels,
    GError ** error);

/* @labels[@class_id] when there is one, else the index written into @buf. */
const gchar *gst_vkml_label (gchar ** labels, guint n_labels, gint class_id,
    gchar buf[GST_VKML_LABEL_BUF_SIZE]);

/* The meta of *@model_id (read under @element's object lock; NULL or "": the newest) on
 * @buf. None: NULL, after one STREAM/FORMAT warning per stream (*@warned) telling to put
 * @element_name after vkmlinfer. */
GstVkmlTensorMeta *gst_vkml_decoder_find_meta (GstElement * element,
    GstBuffer * buf, gchar * const *model_id, gboolean * warned,
    const gchar * element_name);

/* Width and height of video @caps; 0 x 0 for other caps. */
void gst_vkml_frame_size (GstCaps * caps, guint * width, guint * height);

/* "0,2,car" into @out (gint): each comma-separated entry a class index or a label,
 * found in @labels (NULL: none). With @names_left, labels that cannot be found yet
 * (no @labels) are left out and *@names_left set, for a later call with the labels.
 * FALSE and *@why on an empty entry or a label not among @labels. */
gboolean gst_vkml_parse_class_list (const gchar * text, gchar ** labels,
    guint n_labels, GArray * out, gboolean * names_left, gchar ** why);

/* A whole-frame ROI (roi_type = @label) with a "classification" param: label (string),
 * class-id (gint), score (gfloat). Returns the ROI meta. */
GstVideoRegionOfInterestMeta *gst_vkml_attach_classification (GstBuffer * buf,
    const gchar * label, gint class_id, gfloat score, guint frame_width,
    guint frame_height);

/* The box @d (frame pixels) as an ROI (roi_type = @label) with a "detection" param:
 * label (string), class-id (gint), score (gfloat). Returns the ROI meta. */
/* A "classification" param (label, class-id, score) on an object's ROI @roi (secondary
 * inference: vkmlinfer roi=objects); the ROI keeps its own type and params. */
void gst_vkml_add_object_classification (GstVideoRegionOfInterestMeta * roi,
    const gchar * label, gint class_id, gfloat score);

GstVideoRegionOfInterestMeta *gst_vkml_attach_detection (GstBuffer * buf,
    const gchar * label, const GstVkmlDetection * d);

G_END_DECLS
#endif /* __GST_VKML_RESULTS_H__ */
