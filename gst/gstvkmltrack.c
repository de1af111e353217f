/**
 * SECTION:element-vkmltrack
 * @title: vkmltrack
 *
 * Follows the objects a detector put on the frames (#GstVideoRegionOfInterestMeta with
 * a "detection" parameter, as vkmldetect writes them) from frame to frame, and gives
 * each a track id kept as long as the object is seen: a "tracking" parameter on its ROI
 * meta with id (guint64, from 1), age (frames since the track began), hits (frames it
 * was detected on) and predicted (FALSE). `tracker=sort` (the default) predicts every
 * track's box with a constant-velocity Kalman filter, `tracker=iou` keeps it where it was
 * last seen; tracks and detections are paired by overlap (`iou-threshold`), optimally
 * (`matching=hungarian`) or best first (`greedy`). A track lives `max-missed` frames
 * without a detection. On a frame the detector skipped (`vkmlinfer
 * inference-interval=N` upstream: no tensors and no detections on the frame) the tracks
 * seen on the detector's last frame go out at their predicted boxes, as new ROI metas
 * with the track's label, a "detection" parameter (its last class-id and score) and a
 * "tracking" parameter with predicted=TRUE. Built against GStreamer >= 1.24 each track
 * also gets a GstAnalyticsTrackingMtd. The video is not touched.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 filesrc location=in.mp4 ! decodebin ! \
 *     vkmlinfer model=yolov8n.onnx inference-interval=3 ! vkmldetect labels=coco.txt ! \
 *     vkmltrack ! vkmloverlay ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmltrack.h"
#include "gstvkmltensormeta.h"
#include "gstvkmltracker.h"

#include <gst/video/video.h>
#include <stdio.h>

#if defined (HAVE_GST_ANALYTICS) && GST_CHECK_VERSION (1, 24, 0)
#include <gst/analytics/analytics.h>
#define VKML_WITH_ANALYTICS 1
#endif

GST_DEBUG_CATEGORY_STATIC (gst_vkml_track_debug);
#define GST_CAT_DEFAULT gst_vkml_track_debug

#define DEFAULT_TRACKER GST_VKML_MOTION_SORT
#define DEFAULT_MATCHING GST_VKML_MATCHING_HUNGARIAN
#define DEFAULT_IOU_THRESHOLD 0.3f
#define DEFAULT_MAX_MISSED 30
#define DEFAULT_MIN_HITS 1
#define DEFAULT_PER_CLASS TRUE
#define DEFAULT_MODEL_ID NULL
#define DEFAULT_PRINT FALSE

enum
{
  PROP_0,
  PROP_TRACKER,
  PROP_MATCHING,
  PROP_IOU_THRESHOLD,
  PROP_MAX_MISSED,
  PROP_MIN_HITS,
  PROP_PER_CLASS,
  PROP_MODEL_ID,
  PROP_PRINT,
};

struct _GstVkmlTrack
{
  GstBaseTransform parent;

  /* properties, under the object lock */
  GstVkmlTrackerParams params;
  gchar *model_id;
  gboolean print;

  /* from start() to stop(): the streaming thread's */
  GstVkmlTracker *tracker;
  GArray *dets;                 /* GstVkmlTrackDetection, reused per frame */
  GPtrArray *rois;              /* the detections' ROI metas, in dets' order */
  GArray *ids;                  /* guint64 */
  guint64 frames;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw(ANY)"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw(ANY)"));

#define gst_vkml_track_parent_class parent_class
G_DEFINE_TYPE (GstVkmlTrack, gst_vkml_track, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (vkmltrack, "vkmltrack", GST_RANK_NONE,
    GST_TYPE_VKML_TRACK);

static void gst_vkml_track_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_vkml_track_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_vkml_track_finalize (GObject * object);
static gboolean gst_vkml_track_start (GstBaseTransform * trans);
static gboolean gst_vkml_track_stop (GstBaseTransform * trans);
static gboolean gst_vkml_track_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static GstFlowReturn gst_vkml_track_transform_ip (GstBaseTransform * trans,
    GstBuffer * buf);

#define PARAM_FLAGS \
    (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)

static void
gst_vkml_track_class_init (GstVkmlTrackClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_vkml_track_set_property;
  gobject_class->get_property = gst_vkml_track_get_property;
  gobject_class->finalize = gst_vkml_track_finalize;

  g_object_class_install_property (gobject_class, PROP_TRACKER,
      g_param_spec_enum ("tracker", "Tracker",
          "How a track's box moves between detections: sort predicts it (Kalman "
          "filter, constant velocity), iou keeps it where it was last detected",
          GST_TYPE_VKML_MOTION, DEFAULT_TRACKER, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_MATCHING,
      g_param_spec_enum ("matching", "Matching",
          "How tracks and detections are paired: the best assignment over the "
          "frame (hungarian) or the best overlap first (greedy)",
          GST_TYPE_VKML_MATCHING, DEFAULT_MATCHING, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_IOU_THRESHOLD,
      g_param_spec_float ("iou-threshold", "IoU threshold",
          "Least overlap (intersection over union) of a track's box and a "
          "detection for the detection to continue the track", 0.0f, 1.0f,
          DEFAULT_IOU_THRESHOLD, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_MAX_MISSED,
      g_param_spec_uint ("max-missed", "Max missed",
          "Frames a track is kept without a detection (it keeps its id when "
          "the object is found again within them)", 0, G_MAXINT,
          DEFAULT_MAX_MISSED, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_MIN_HITS,
      g_param_spec_uint ("min-hits", "Min hits",
          "Detections a track needs before it gets its id out (1: from the "
          "first; more keeps one-frame false detections out)", 1, G_MAXINT,
          DEFAULT_MIN_HITS, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_PER_CLASS,
      g_param_spec_boolean ("per-class", "Per class",
          "Continue a track only with detections of its class",
          DEFAULT_PER_CLASS, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_MODEL_ID,
      g_param_spec_string ("model-id", "Model id",
          "The detector's vkmlinfer model-id: a frame without its tensors is "
          "one the detector skipped (default: a frame without any whole-frame "
          "tensors and without detections)", DEFAULT_MODEL_ID, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_PRINT,
      g_param_spec_boolean ("print", "Print",
          "Print one line per tracked object to stdout, e.g. \"frame 3: track "
          "5 car at 10,20 64x48\", \"(predicted)\" after a predicted box",
          DEFAULT_PRINT, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "vkml object tracker", "Filter/Analyzer/Video",
      "Gives the detected objects (GstVideoRegionOfInterestMeta) track ids "
      "kept across frames, and predicted boxes on frames the detector skipped",
      "vkml developers");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_vkml_track_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_vkml_track_stop);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_vkml_track_sink_event);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_vkml_track_transform_ip);

  GST_DEBUG_CATEGORY_INIT (gst_vkml_track_debug, "vkmltrack", 0,
      "vkml object tracker");
}

static void
gst_vkml_track_init (GstVkmlTrack * self)
{
  self->params.motion = DEFAULT_TRACKER;
  self->params.matching = DEFAULT_MATCHING;
  self->params.iou_threshold = DEFAULT_IOU_THRESHOLD;
  self->params.max_missed = DEFAULT_MAX_MISSED;
  self->params.min_hits = DEFAULT_MIN_HITS;
  self->params.per_class = DEFAULT_PER_CLASS;
  self->model_id = g_strdup (DEFAULT_MODEL_ID);
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
}

static void
gst_vkml_track_finalize (GObject * object)
{
  GstVkmlTrack *self = GST_VKML_TRACK (object);

  g_free (self->model_id);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_vkml_track_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstVkmlTrack *self = GST_VKML_TRACK (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_TRACKER:
      self->params.motion = g_value_get_enum (value);
      break;
    case PROP_MATCHING:
      self->params.matching = g_value_get_enum (value);
      break;
    case PROP_IOU_THRESHOLD:
      self->params.iou_threshold = g_value_get_float (value);
      break;
    case PROP_MAX_MISSED:
      self->params.max_missed = g_value_get_uint (value);
      break;
    case PROP_MIN_HITS:
      self->params.min_hits = g_value_get_uint (value);
      break;
    case PROP_PER_CLASS:
      self->params.per_class = g_value_get_boolean (value);
      break;
    case PROP_MODEL_ID:
      g_free (self->model_id);
      self->model_id = g_value_dup_string (value);
      break;
    case PROP_PRINT:
      self->print = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_vkml_track_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstVkmlTrack *self = GST_VKML_TRACK (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_TRACKER:
      g_value_set_enum (value, self->params.motion);
      break;
    case PROP_MATCHING:
      g_value_set_enum (value, self->params.matching);
      break;
    case PROP_IOU_THRESHOLD:
      g_value_set_float (value, self->params.iou_threshold);
      break;
    case PROP_MAX_MISSED:
      g_value_set_uint (value, self->params.max_missed);
      break;
    case PROP_MIN_HITS:
      g_value_set_uint (value, self->params.min_hits);
      break;
    case PROP_PER_CLASS:
      g_value_set_boolean (value, self->params.per_class);
      break;
    case PROP_MODEL_ID:
      g_value_set_string (value, self->model_id);
      break;
    case PROP_PRINT:
      g_value_set_boolean (value, self->print);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static gboolean
gst_vkml_track_start (GstBaseTransform * trans)
{
  GstVkmlTrack *self = GST_VKML_TRACK (trans);
  GstVkmlTrackerParams params;

  GST_OBJECT_LOCK (self);
  params = self->params;
  GST_OBJECT_UNLOCK (self);
  self->tracker = gst_vkml_tracker_new (&params);
  self->dets = g_array_new (FALSE, FALSE, sizeof (GstVkmlTrackDetection));
  self->rois = g_ptr_array_new ();
  self->ids = g_array_new (FALSE, TRUE, sizeof (guint64));
  self->frames = 0;
  return TRUE;
}

static gboolean
gst_vkml_track_stop (GstBaseTransform * trans)
{
  GstVkmlTrack *self = GST_VKML_TRACK (trans);

  g_clear_pointer (&self->tracker, gst_vkml_tracker_free);
  g_clear_pointer (&self->dets, g_array_unref);
  g_clear_pointer (&self->rois, g_ptr_array_unref);
  g_clear_pointer (&self->ids, g_array_unref);
  return TRUE;
}

/* After a flush (a seek) the objects are elsewhere: the tracks end, their ids are not
 * given again. */
static gboolean
gst_vkml_track_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstVkmlTrack *self = GST_VKML_TRACK (trans);

  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP && self->tracker)
    gst_vkml_tracker_clear (self->tracker);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

/* The frame's detections (ROIs with a "detection" parameter, none yet tracked) into
 * self->dets and self->rois. */
static void
collect_detections (GstVkmlTrack * self, GstBuffer * buf)
{
  GstVideoRegionOfInterestMeta *roi;
  gpointer state = NULL;

  g_array_set_size (self->dets, 0);
  g_ptr_array_set_size (self->rois, 0);
  while ((roi = (GstVideoRegionOfInterestMeta *)
          gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstStructure *det =
        gst_video_region_of_interest_meta_get_param (roi, "detection");
    GstVkmlTrackDetection d = { {roi->x, roi->y, roi->w, roi->h}, -1,
    roi->roi_type, 0, GST_BUFFER_PTS (buf)
    };

    if (!det || gst_video_region_of_interest_meta_get_param (roi, "tracking"))
      continue;
    gst_structure_get_int (det, "class-id", &d.class_id);
    gst_structure_get (det, "score", G_TYPE_FLOAT, &d.score, NULL);
    g_array_append_val (self->dets, d);
    g_ptr_array_add (self->rois, roi);
  }
}

/* Whether the detector ran on @buf: its detections, or its (whole-frame) tensors. */
static gboolean
detector_ran (GstVkmlTrack * self, GstBuffer * buf)
{
  GstVkmlTensorMeta *meta;
  gpointer state = NULL;
  gchar *id;
  gboolean ran = self->dets->len > 0;

  GST_OBJECT_LOCK (self);
  id = g_strdup (self->model_id);
  GST_OBJECT_UNLOCK (self);
  while (!ran && (meta = (GstVkmlTensorMeta *)
          gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VKML_TENSOR_META_API_TYPE)))
    ran = id && *id ? g_strcmp0 (meta->model_id, id) == 0 : meta->roi_id < 0;
  g_free (id);
  return ran;
}

/* GStreamer >= 1.24: the track as a GstAnalyticsTrackingMtd too. */
static void
add_tracking_mtd (GstBuffer * buf, const GstVkmlTrackState * t)
{
#ifdef VKML_WITH_ANALYTICS
  GstAnalyticsRelationMeta *rmeta =
      gst_buffer_get_analytics_relation_meta (buf);
  GstAnalyticsTrackingMtd trk;

  if (!rmeta)
    rmeta = gst_buffer_add_analytics_relation_meta (buf);
  if (rmeta && gst_analytics_relation_meta_add_tracking_mtd (rmeta, t->id,
          t->first_time, &trk))
    gst_analytics_tracking_mtd_update_last_seen (&trk, GST_BUFFER_PTS (buf));
#else
  (void) buf;
  (void) t;
#endif
}

static void
add_tracking_param (GstVkmlTrack * self, GstBuffer * buf,
    GstVideoRegionOfInterestMeta * roi, const GstVkmlTrackState * t,
    gboolean predicted)
{
  gboolean print;

  add_tracking_mtd (buf, t);
  GST_OBJECT_LOCK (self);
  print = self->print;
  GST_OBJECT_UNLOCK (self);
  if (print)
    g_print ("frame %" G_GUINT64_FORMAT ": track %" G_GUINT64_FORMAT
        " %s at %u,%u %ux%u%s\n", self->frames, t->id,
        g_quark_to_string (roi->roi_type), roi->x, roi->y, roi->w, roi->h,
        predicted ? " (predicted)" : "");
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new ("tracking", "id", G_TYPE_UINT64, t->id,
          "age", G_TYPE_UINT, t->age, "hits", G_TYPE_UINT, t->hits,
          "predicted", G_TYPE_BOOLEAN, predicted, NULL));
}

static const GstVkmlTrackState *
find_track (GstVkmlTracker * tracker, guint64 id)
{
  guint n, i;
  const GstVkmlTrackState *t = gst_vkml_tracker_tracks (tracker, &n);

  for (i = 0; i < n; i++)
    if (t[i].id == id)
      return &t[i];
  return NULL;
}

static void
track_detected_frame (GstVkmlTrack * self, GstBuffer * buf)
{
  guint i;

  g_array_set_size (self->ids, self->dets->len);
  gst_vkml_tracker_update (self->tracker,
      (const GstVkmlTrackDetection *) self->dets->data, self->dets->len,
      (guint64 *) self->ids->data);
  for (i = 0; i < self->dets->len; i++) {
    guint64 id = g_array_index (self->ids, guint64, i);
    const GstVkmlTrackState *t = id ? find_track (self->tracker, id) : NULL;

    if (t)
      add_tracking_param (self, buf, g_ptr_array_index (self->rois, i), t,
          FALSE);
  }
}

/* Float pixels to the ROI meta's: rounded, clamped to 0 .. G_MAXINT (a prediction
 * may run far off the frame). */
static guint
to_pixels (gfloat v)
{
  if (!(v > 0))
    return 0;
  return v < (gfloat) G_MAXINT ? (guint) (v + 0.5f) : (guint) G_MAXINT;
}

static void
track_skipped_frame (GstVkmlTrack * self, GstBuffer * buf)
{
  const GstVkmlTrackState *t;
  guint n, i;

  gst_vkml_tracker_skip (self->tracker);
  t = gst_vkml_tracker_tracks (self->tracker, &n);
  for (i = 0; i < n; i++) {
    guint x = to_pixels (t[i].box.x), y = to_pixels (t[i].box.y);
    guint xe = to_pixels (t[i].box.x + t[i].box.w);
    guint ye = to_pixels (t[i].box.y + t[i].box.h);
    GstVideoRegionOfInterestMeta *roi;

    if (!gst_vkml_tracker_shows_predicted (self->tracker, &t[i]))
      continue;
    roi = gst_buffer_add_video_region_of_interest_meta_id (buf, t[i].label, x,
        y, xe > x ? xe - x : 0, ye > y ? ye - y : 0);
    gst_video_region_of_interest_meta_add_param (roi,
        gst_structure_new ("detection", "label", G_TYPE_STRING,
            g_quark_to_string (t[i].label), "class-id", G_TYPE_INT,
            t[i].class_id, "score", G_TYPE_FLOAT, t[i].score, NULL));
    add_tracking_param (self, buf, roi, &t[i], TRUE);
  }
}

static GstFlowReturn
gst_vkml_track_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstVkmlTrack *self = GST_VKML_TRACK (trans);
  guint n_tracks;

  collect_detections (self, buf);
  if (detector_ran (self, buf))
    track_detected_frame (self, buf);
  else
    track_skipped_frame (self, buf);
  gst_vkml_tracker_tracks (self->tracker, &n_tracks);
  GST_LOG_OBJECT (self, "%u detections, %u tracks", self->dets->len, n_tracks);
  self->frames++;
  return GST_FLOW_OK;
}
