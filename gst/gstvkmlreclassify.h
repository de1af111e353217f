/* vkmlinfer roi=objects reclassify-interval: a tracked object's last outputs, kept so
 * that the model runs on it only every N frames and the frames between carry them
 * (a new GstVkmlTensorMeta sharing the tensors' data buffers). Keyed by the track id
 * vkmltrack writes ("tracking" parameter of the ROI meta). One per element, used by the
 * streaming thread only; not thread-safe. */
#pragma once

#include "gstvkmltensormeta.h"

#include <gst/video/video.h>

G_BEGIN_DECLS typedef struct _GstVkmlReclassify GstVkmlReclassify;

/* Outputs are carried for @interval - 1 frames after a run (interval >= 2). */
GstVkmlReclassify *gst_vkml_reclassify_new (guint interval);
void gst_vkml_reclassify_free (GstVkmlReclassify * r);

/* Whether track @track_id has outputs from its last interval - 1 frames. */
gboolean gst_vkml_reclassify_has (GstVkmlReclassify * r, guint64 track_id);

/* Those outputs as a new meta on the writable @buf (model_id and seq set by the
 * caller, as for a run); NULL when there are none. */
GstVkmlTensorMeta *gst_vkml_reclassify_carry (GstVkmlReclassify * r,
    guint64 track_id, GstBuffer * buf);

/* Keeps @meta's tensors (a reference to their data) as @track_id's, from this frame. */
void gst_vkml_reclassify_remember (GstVkmlReclassify * r, guint64 track_id,
    const GstVkmlTensorMeta * meta);

/* One frame on: outputs that have become too old are dropped. */
void gst_vkml_reclassify_next_frame (GstVkmlReclassify * r);

/* The track id of @roi from its "tracking" parameter; 0 when it has none. */
guint64 gst_vkml_roi_track_id (GstVideoRegionOfInterestMeta * roi);

G_END_DECLS
