/* The tracking maths of vkmltrack: tracks with ids over a stream of frames' boxes, an
 * IoU tracker (a track's box is its last detection) or a SORT-style one (each track a
 * constant-velocity Kalman filter on its box's centre, width and height), tracks matched
 * to detections by overlap (gstvkmlassign.h). No GStreamer; one tracker per stream, not
 * thread-safe (the caller serialises). */
#pragma once

#include "gstvkmlassign.h"

G_BEGIN_DECLS typedef enum
{
  GST_VKML_MOTION_IOU = 0,      /* a track stays where it was last detected */
  GST_VKML_MOTION_SORT,         /* a Kalman filter predicts where it goes */
} GstVkmlMotion;

#define GST_TYPE_VKML_MOTION (gst_vkml_motion_get_type ())
GType gst_vkml_motion_get_type (void);

typedef struct
{
  gfloat x, y, w, h;            /* top-left corner and size, in pixels */
} GstVkmlBox;

/* Overlap of two boxes: intersection / union, 0 .. 1 (0 for empty boxes). */
gfloat gst_vkml_box_iou (const GstVkmlBox * a, const GstVkmlBox * b);

/* Position and velocity of one coordinate with their covariance. */
typedef struct
{
  gdouble pos, vel;
  gdouble p_pp, p_pv, p_vv;
} GstVkmlKalmanAxis;

typedef struct
{
  guint64 id;                   /* 1, 2, ... in order of creation */
  gint class_id;
  guint32 label;                /* its last detection's, as given */
  gfloat score;                 /* its last detection's */
  guint64 first_time;           /* its first detection's time, as given */
  GstVkmlBox box;               /* this frame's: its detection, else the prediction */
  guint age;                    /* frames since the track began */
  guint hits;                   /* frames with a detection */
  guint missed;                 /* frames since the last detection */
  gboolean detected;            /* matched to a detection this frame */
  gboolean seen_last_run;       /* matched on the detector's last frame */
  GstVkmlKalmanAxis axes[4];    /* SORT: centre x, centre y, width, height */
} GstVkmlTrackState;

typedef struct
{
  GstVkmlMotion motion;
  GstVkmlMatching matching;
  gfloat iou_threshold;         /* least overlap to continue a track, 0 .. 1 */
  guint max_missed;             /* frames a track lives without a detection */
  guint min_hits;               /* detections before a track gets an id out */
  gboolean per_class;           /* match only boxes of the track's class */
} GstVkmlTrackerParams;

typedef struct
{
  GstVkmlBox box;
  gint class_id;
  guint32 label;                /* the caller's name of the class (a GQuark) */
  gfloat score;
  guint64 time;                 /* when it was seen, in the caller's unit */
} GstVkmlTrackDetection;

typedef struct _GstVkmlTracker GstVkmlTracker;

GstVkmlTracker *gst_vkml_tracker_new (const GstVkmlTrackerParams * params);
void gst_vkml_tracker_free (GstVkmlTracker * tracker);

/* A frame the detector ran on, with its @n detections: tracks move on one frame, take
 * the detections they match, new tracks start from the others, tracks missed for more
 * than max_missed frames end. track_ids[i] is the id of detection i's track, 0 while
 * that track has fewer than min_hits detections. */
void gst_vkml_tracker_update (GstVkmlTracker * tracker,
    const GstVkmlTrackDetection * dets, guint n, guint64 * track_ids);

/* Ends every track (a flush, a seek); ids go on from where they were, never reused. */
void gst_vkml_tracker_clear (GstVkmlTracker * tracker);

/* A frame the detector skipped: tracks move on one frame (SORT: to the prediction). */
void gst_vkml_tracker_skip (GstVkmlTracker * tracker);

/* The live tracks, @n_tracks of them, valid until the next call. */
const GstVkmlTrackState *gst_vkml_tracker_tracks (GstVkmlTracker * tracker,
    guint * n_tracks);

/* Whether @track goes out on a skipped frame: confirmed (min_hits) and matched on the
 * detector's last frame. */
gboolean gst_vkml_tracker_shows_predicted (const GstVkmlTracker * tracker,
    const GstVkmlTrackState * track);

G_END_DECLS
