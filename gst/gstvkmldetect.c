/**
 * SECTION:element-vkmldetect
 * @title: vkmldetect
 *
 * Reads a detector's output tensors from the #GstVkmlTensorMeta that vkmlinfer
 * attached (the one of its `model-id`, by default the last one), decodes them (YOLOv5,
 * YOLOv8, YOLOX or SSD layouts, `format=auto` picks by the shapes), keeps the boxes
 * over `score-threshold` of the `classes` asked for, runs greedy per-class NMS and maps
 * the boxes back to frame pixels through the meta's input geometry (letterbox). Each box
 * goes on the buffer as a #GstVideoRegionOfInterestMeta whose roi_type is the label,
 * with a "detection" parameter (label, class-id, score).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=5 ! video/x-raw,format=RGB,width=320,height=240 ! \
 *     vkmlinfer model=yolov8n.onnx ! vkmldetect labels=coco.txt ! vkmloverlay ! \
 *     videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmldetect.h"
#include "gstvkmldecodermodel.h"
#include "gstvkmldetectdecode.h"
#include "gstvkmldetecttorchvision.h"
#include "gstvkmlresults.h"

#include <gst/video/video.h>
#include <stdio.h>

GST_DEBUG_CATEGORY_STATIC (gst_vkml_detect_debug);
#define GST_CAT_DEFAULT gst_vkml_detect_debug

#define DEFAULT_MODEL_ID NULL
#define DEFAULT_FORMAT GST_VKML_DETECT_FORMAT_AUTO
#define DEFAULT_SCORE_THRESHOLD 0.25f
#define DEFAULT_IOU_THRESHOLD 0.45f
#define DEFAULT_CLASSES NULL
#define DEFAULT_LABELS NULL
#define DEFAULT_MAX_DETECTIONS 100
#define DEFAULT_BACKGROUND_CLASS -1
#define DEFAULT_PRINT FALSE
#define DEFAULT_POST_MESSAGES FALSE

enum
{
  PROP_0,
  PROP_MODEL_ID,
  PROP_FORMAT,
  PROP_SCORE_THRESHOLD,
  PROP_IOU_THRESHOLD,
  PROP_CLASSES,
  PROP_LABELS,
  PROP_MAX_DETECTIONS,
  PROP_BACKGROUND_CLASS,
  PROP_PRINT,
  PROP_POST_MESSAGES,
};

struct _GstVkmlDetect
{
  GstBaseTransform parent;

  /* properties, under the object lock */
  gchar *model_id;
  GstVkmlDetectFormat format;
  gfloat score_threshold;
  gfloat iou_threshold;
  gchar *classes_text;
  gchar *labels_path;
  guint max_detections;
  gint background_class;
  gboolean print;
  gboolean post_messages;
  guint props_set;              /* bit N: property N was set (it overrides the bundle) */

  /* from start() to stop() */
  GArray *classes;              /* gint; empty: every class */
  gchar *start_classes;         /* 'classes' as start read it */
  gboolean classes_by_label;    /* it names labels that only a bundle can give */
  gchar **labels;
  guint n_labels;
  GArray *dets;                 /* GstVkmlDetection, reused per frame */
  gboolean warned_no_meta;
  gboolean told_format;
  guint64 frames;
  GstVkmlDecoderModel model;    /* the model decoded, and its bundle */

  /* from set_caps(); 0 when the caps are not video */
  guint frame_width, frame_height;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

#define gst_vkml_detect_parent_class parent_class
G_DEFINE_TYPE (GstVkmlDetect, gst_vkml_detect, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (vkmldetect, "vkmldetect", GST_RANK_NONE,
    GST_TYPE_VKML_DETECT);

static void gst_vkml_detect_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_vkml_detect_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_vkml_detect_finalize (GObject * object);
static gboolean gst_vkml_detect_start (GstBaseTransform * trans);
static gboolean gst_vkml_detect_stop (GstBaseTransform * trans);
static gboolean gst_vkml_detect_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static GstFlowReturn gst_vkml_detect_transform_ip (GstBaseTransform * trans,
    GstBuffer * buf);

#define PARAM_FLAGS \
    (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)

static void
gst_vkml_detect_class_init (GstVkmlDetectClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_vkml_detect_set_property;
  gobject_class->get_property = gst_vkml_detect_get_property;
  gobject_class->finalize = gst_vkml_detect_finalize;

  g_object_class_install_property (gobject_class, PROP_MODEL_ID,
      g_param_spec_string ("model-id", "Model id",
          "Decode the tensors of the vkmlinfer with this model-id (default: "
          "the last tensor meta on the buffer)", DEFAULT_MODEL_ID,
          PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_FORMAT,
      g_param_spec_enum ("format", "Format",
          "Layout of the detector's outputs; auto picks by the tensors' shapes "
          "and says which in an INFO message", GST_TYPE_VKML_DETECT_FORMAT,
          DEFAULT_FORMAT, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_SCORE_THRESHOLD,
      g_param_spec_float ("score-threshold", "Score threshold",
          "Keep boxes whose score (objectness x class score for YOLOv5/YOLOX) "
          "is at least this", 0.0f, 1.0f, DEFAULT_SCORE_THRESHOLD,
          PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_IOU_THRESHOLD,
      g_param_spec_float ("iou-threshold", "IoU threshold",
          "Non-maximum suppression: drop a box whose intersection over union "
          "with a better box of its class is above this (1: no NMS)", 0.0f,
          1.0f, DEFAULT_IOU_THRESHOLD, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_CLASSES,
      g_param_spec_string ("classes", "Classes",
          "Report only these classes: class indices or labels (as 'labels' "
          "or the model's bundle name them), e.g. \"0,2\" or \"person,car\" "
          "(default: all)", DEFAULT_CLASSES, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_LABELS,
      g_param_spec_string ("labels", "Labels",
          "Text file with one label per line, line N naming class N; without "
          "it the label is the class index", DEFAULT_LABELS, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_MAX_DETECTIONS,
      g_param_spec_uint ("max-detections", "Max detections",
          "Keep at most this many boxes per frame, the best ones (0: all)", 0,
          G_MAXUINT, DEFAULT_MAX_DETECTIONS, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_BACKGROUND_CLASS,
      g_param_spec_int ("background-class", "Background class",
          "Class index never reported (an SSD's background class, often 0); "
          "-1: none", -1, G_MAXINT, DEFAULT_BACKGROUND_CLASS, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post one \"vkml-detection\" element message per frame: frame, "
          "timestamp, model-id and 'objects', an array of structures (roi-id, "
          "label, class-id, score, x, y, width, height), every box of the frame",
          DEFAULT_POST_MESSAGES, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_PRINT,
      g_param_spec_boolean ("print", "Print",
          "Print one line per box to stdout, e.g. \"frame 3: car 0.91 at "
          "10,20 64x48\"", DEFAULT_PRINT, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "vkml detection decoder", "Filter/Analyzer/Video",
      "Turns a detector's output tensors (GstVkmlTensorMeta) into boxes on the "
      "frame, as GstVideoRegionOfInterestMeta", "vkml developers");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_vkml_detect_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_vkml_detect_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_vkml_detect_set_caps);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_vkml_detect_transform_ip);

  GST_DEBUG_CATEGORY_INIT (gst_vkml_detect_debug, "vkmldetect", 0,
      "vkml detection decoder");
}

static void
gst_vkml_detect_init (GstVkmlDetect * self)
{
  self->model_id = g_strdup (DEFAULT_MODEL_ID);
  self->format = DEFAULT_FORMAT;
  self->score_threshold = DEFAULT_SCORE_THRESHOLD;
  self->iou_threshold = DEFAULT_IOU_THRESHOLD;
  self->classes_text = g_strdup (DEFAULT_CLASSES);
  self->labels_path = g_strdup (DEFAULT_LABELS);
  self->max_detections = DEFAULT_MAX_DETECTIONS;
  self->background_class = DEFAULT_BACKGROUND_CLASS;
  self->print = DEFAULT_PRINT;
  self->post_messages = DEFAULT_POST_MESSAGES;
  /* The video is not touched; the buffer is made writable for the ROI metas. */
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
}

static void
gst_vkml_detect_finalize (GObject * object)
{
  GstVkmlDetect *self = GST_VKML_DETECT (object);

  g_free (self->model_id);
  g_free (self->classes_text);
  g_free (self->labels_path);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_vkml_detect_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstVkmlDetect *self = GST_VKML_DETECT (object);

  GST_OBJECT_LOCK (self);
  self->props_set |= 1u << prop_id;
  switch (prop_id) {
    case PROP_MODEL_ID:
      g_free (self->model_id);
      self->model_id = g_value_dup_string (value);
      break;
    case PROP_FORMAT:
      self->format = g_value_get_enum (value);
      break;
    case PROP_SCORE_THRESHOLD:
      self->score_threshold = g_value_get_float (value);
      break;
    case PROP_IOU_THRESHOLD:
      self->iou_threshold = g_value_get_float (value);
      break;
    case PROP_CLASSES:
      g_free (self->classes_text);
      self->classes_text = g_value_dup_string (value);
      break;
    case PROP_LABELS:
      g_free (self->labels_path);
      self->labels_path = g_value_dup_string (value);
      break;
    case PROP_MAX_DETECTIONS:
      self->max_detections = g_value_get_uint (value);
      break;
    case PROP_BACKGROUND_CLASS:
      self->background_class = g_value_get_int (value);
      break;
    case PROP_PRINT:
      self->print = g_value_get_boolean (value);
      break;
    case PROP_POST_MESSAGES:
      self->post_messages = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_vkml_detect_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstVkmlDetect *self = GST_VKML_DETECT (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODEL_ID:
      g_value_set_string (value, self->model_id);
      break;
    case PROP_FORMAT:
      g_value_set_enum (value, self->format);
      break;
    case PROP_SCORE_THRESHOLD:
      g_value_set_float (value, self->score_threshold);
      break;
    case PROP_IOU_THRESHOLD:
      g_value_set_float (value, self->iou_threshold);
      break;
    case PROP_CLASSES:
      g_value_set_string (value, self->classes_text);
      break;
    case PROP_LABELS:
      g_value_set_string (value, self->labels_path);
      break;
    case PROP_MAX_DETECTIONS:
      g_value_set_uint (value, self->max_detections);
      break;
    case PROP_BACKGROUND_CLASS:
      g_value_set_int (value, self->background_class);
      break;
    case PROP_PRINT:
      g_value_set_boolean (value, self->print);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, self->post_messages);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static gboolean
gst_vkml_detect_start (GstBaseTransform * trans)
{
  GstVkmlDetect *self = GST_VKML_DETECT (trans);
  gchar *labels, *why = NULL;
  GError *error = NULL;
  gboolean ok = TRUE;

  GST_OBJECT_LOCK (self);
  labels = g_strdup (self->labels_path);
  self->start_classes = g_strdup (self->classes_text);
  GST_OBJECT_UNLOCK (self);

  self->classes = g_array_new (FALSE, FALSE, sizeof (gint));
  self->dets = g_array_new (FALSE, FALSE, sizeof (GstVkmlDetection));
  self->warned_no_meta = FALSE;
  self->told_format = FALSE;
  self->frames = 0;
  if (labels && *labels
      && !(self->labels = gst_vkml_labels_load (labels, &self->n_labels,
              &error))) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("Could not read the labels file: %s", error->message),
        ("Check the 'labels' property."));
    g_error_free (error);
    ok = FALSE;
  } else if (!gst_vkml_parse_class_list (self->start_classes, self->labels,
          self->n_labels, self->classes, &self->classes_by_label, &why)) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Bad 'classes' value \"%s\": %s.", self->start_classes, why),
        ("Give class indices or labels separated by commas, e.g. \"0,2\" or "
            "\"person,car\"."));
    g_free (why);
    ok = FALSE;
  }
  g_free (labels);
  if (!ok)                      /* a failed start gets no stop() */
    gst_vkml_detect_stop (trans);
  return ok;
}

static gboolean
gst_vkml_detect_stop (GstBaseTransform * trans)
{
  GstVkmlDetect *self = GST_VKML_DETECT (trans);

  g_clear_pointer (&self->labels, g_strfreev);
  self->n_labels = 0;
  g_clear_pointer (&self->classes, g_array_unref);
  g_clear_pointer (&self->start_classes, g_free);
  g_clear_pointer (&self->dets, g_array_unref);
  gst_vkml_decoder_model_clear (&self->model);
  return TRUE;
}

static gboolean
gst_vkml_detect_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    G_GNUC_UNUSED GstCaps * outcaps)
{
  GstVkmlDetect *self = GST_VKML_DETECT (trans);

  gst_vkml_frame_size (incaps, &self->frame_width, &self->frame_height);
  return TRUE;
}

#define FROM_BUNDLE(self, prop, field) (!((self)->props_set & (1u << (prop))) \
    && gst_vkml_decoder_model_gives (&(self)->model, \
        GST_VKML_BUNDLE_DECODER_DETECTOR, (field)))

/* What a frame is decoded with: the properties, and the model bundle's detector
 * settings and labels for those not set. @p's classes and strides point into self or
 * the bundle. */
static void
gst_vkml_detect_settings (GstVkmlDetect * self, GstVkmlDetectParams * p,
    gfloat * iou, guint * max, gboolean * print, gchar *** labels,
    guint * n_labels)
{
  const GstVkmlBundle *b = self->model.bundle;
  GArray *classes = FROM_BUNDLE (self, PROP_CLASSES, GST_VKML_BUNDLE_CLASSES) ?
      b->classes : self->classes;

  GST_OBJECT_LOCK (self);
  p->format = FROM_BUNDLE (self, PROP_FORMAT, GST_VKML_BUNDLE_FORMAT) ?
      b->format : self->format;
  p->score_threshold = FROM_BUNDLE (self, PROP_SCORE_THRESHOLD,
      GST_VKML_BUNDLE_SCORE_THRESHOLD) ? b->score_threshold :
      self->score_threshold;
  p->background_class = FROM_BUNDLE (self, PROP_BACKGROUND_CLASS,
      GST_VKML_BUNDLE_BACKGROUND_CLASS) ? b->background_class :
      self->background_class;
  *iou = FROM_BUNDLE (self, PROP_IOU_THRESHOLD, GST_VKML_BUNDLE_IOU_THRESHOLD)
      ? b->iou_threshold : self->iou_threshold;
  *max = FROM_BUNDLE (self, PROP_MAX_DETECTIONS,
      GST_VKML_BUNDLE_MAX_DETECTIONS) ? (guint) b->max_detections :
      self->max_detections;
  *print = self->print;
  GST_OBJECT_UNLOCK (self);
  p->classes = (const gint *) classes->data;
  p->n_classes = classes->len;
  if (gst_vkml_decoder_model_gives (&self->model,
          GST_VKML_BUNDLE_DECODER_DETECTOR, GST_VKML_BUNDLE_STRIDES)) {
    p->strides = b->strides;
    p->n_strides = b->n_strides;
  }
  *labels = self->labels;
  *n_labels = self->n_labels;
  if (!*labels && b && b->labels) {
    *labels = b->labels;
    *n_labels = b->n_labels;
  }
}

/* 'classes' naming labels, with the labels of the model's bundle (there were none at
 * start). FALSE: error posted. */
static gboolean
gst_vkml_detect_classes_from_bundle (GstVkmlDetect * self)
{
  const GstVkmlBundle *b = self->model.bundle;
  gchar *why = NULL;

  g_array_set_size (self->classes, 0);
  if (gst_vkml_parse_class_list (self->start_classes, b ? b->labels : NULL,
          b ? b->n_labels : 0, self->classes, NULL, &why))
    return TRUE;
  GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("Bad 'classes' value \"%s\" "
          "for model \"%s\": %s.", self->start_classes, self->model.model_id,
          why), ("Set 'labels', or give class indices."));
  g_free (why);
  return FALSE;
}

/* A new model (another model-id, new tensor shapes): its bundle; the format is told
 * again. FALSE: error posted. */
static gboolean
gst_vkml_detect_check_model (GstVkmlDetect * self,
    const GstVkmlTensorMeta * meta)
{
  gboolean changed;

  if (!gst_vkml_decoder_model_update (&self->model, GST_BASE_TRANSFORM (self),
          meta, &changed))
    return FALSE;
  if (changed)
    self->told_format = FALSE;
  return !changed || !self->classes_by_label
      || gst_vkml_detect_classes_from_bundle (self);
}

/* The largest ROI meta id on @buf, -1 when none: new ROIs get ids above it. */
static gint
gst_vkml_detect_last_roi_id (GstBuffer * buf)
{
  GstVideoRegionOfInterestMeta *roi;
  gpointer state = NULL;
  gint last = -1;

  while ((roi = (GstVideoRegionOfInterestMeta *)
          gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)))
    last = MAX (last, roi->id);
  return last;
}

/* Appends @roi's box to @objects (a GstValueArray) as an "object" structure. */
static void
gst_vkml_detect_add_object (GValue * objects,
    const GstVideoRegionOfInterestMeta * roi, const GstVkmlDetection * d)
{
  GValue v = G_VALUE_INIT;

  g_value_init (&v, GST_TYPE_STRUCTURE);
  g_value_take_boxed (&v, gst_structure_new ("object",
          "roi-id", G_TYPE_INT, roi->id,
          "label", G_TYPE_STRING, g_quark_to_string (roi->roi_type),
          "class-id", G_TYPE_INT, d->class_id, "score", G_TYPE_FLOAT, d->score,
          "x", G_TYPE_UINT, roi->x, "y", G_TYPE_UINT, roi->y,
          "width", G_TYPE_UINT, roi->w, "height", G_TYPE_UINT, roi->h, NULL));
  gst_value_array_append_and_take_value (objects, &v);
}

/* The frame's "vkml-detection" message; takes @objects. */
static void
gst_vkml_detect_post (GstVkmlDetect * self, GstBuffer * buf,
    const GstVkmlTensorMeta * meta, GValue * objects)
{
  GstStructure *s = gst_structure_new ("vkml-detection",
      "frame", G_TYPE_UINT64, self->frames,
      "timestamp", G_TYPE_UINT64, GST_BUFFER_PTS (buf),
      "model-id", G_TYPE_STRING, GST_STR_NULL (meta->model_id), NULL);

  gst_structure_take_value (s, "objects", objects);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

/* A torchvision detection's mask and keypoints, when the model gives them. */
static void
gst_vkml_detect_attach_extras (GstVkmlDetect * self,
    const GstVkmlTensorMeta * meta, GstVideoRegionOfInterestMeta * roi,
    const GstVkmlDetection * d)
{
  const GstVkmlInputGeometry *g = meta->has_geometry ? &meta->geometry : NULL;
  GstVkmlTorchvisionTensors tv;

  if (!gst_vkml_torchvision_tensors (meta, &tv))
    return;
  gst_vkml_torchvision_attach_mask (roi, &tv, d, g, self->frame_width,
      self->frame_height);
  gst_vkml_torchvision_attach_keypoints (roi, &tv, d, g, self->frame_width,
      self->frame_height);
}

static GstFlowReturn
gst_vkml_detect_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstVkmlDetect *self = GST_VKML_DETECT (trans);
  GstVkmlTensorMeta *meta = gst_vkml_decoder_find_meta (GST_ELEMENT (self),
      buf, &self->model_id, &self->warned_no_meta, "vkmldetect");
  GstVkmlDetectParams p = { 0 };
  GstVkmlDetectFormat chosen;
  GValue objects = G_VALUE_INIT;
  gboolean print, post;
  gfloat iou;
  guint max, i, n_labels;
  gchar *error = NULL, **labels;
  gint id;

  if (!meta)
    return GST_FLOW_OK;
  if (!gst_vkml_detect_check_model (self, meta))
    return GST_FLOW_ERROR;
  gst_vkml_detect_settings (self, &p, &iou, &max, &print, &labels, &n_labels);
  /* Without geometry the model's input is taken to be the frame (stretched). */
  p.input_width = meta->has_geometry ? meta->geometry.input_width :
      self->frame_width;
  p.input_height = meta->has_geometry ? meta->geometry.input_height :
      self->frame_height;

  g_array_set_size (self->dets, 0);
  if (!gst_vkml_detect_decode (meta, &p, self->dets, &chosen, &error)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Cannot decode the detector's "
            "outputs: %s.", error), ("Set 'format' to the detector's layout."));
    g_free (error);
    return GST_FLOW_ERROR;
  }
  if (!self->told_format) {
    /* gst-launch prints an INFO message's debug text: the same words there */
    GST_ELEMENT_INFO (self, STREAM, FORMAT, ("Decoding the tensors as %s.",
            gst_vkml_detect_format_name (chosen)), ("Decoding the tensors of "
            "model \"%s\" as %s.", GST_STR_NULL (meta->model_id),
            gst_vkml_detect_format_name (chosen)));
    self->told_format = TRUE;
  }
  /* torchvision's detectors ran their own NMS: their boxes are kept as they are */
  gst_vkml_detect_nms (self->dets,
      chosen == GST_VKML_DETECT_FORMAT_TORCHVISION ? 1.0f : iou, max);
  if (self->frame_width && self->frame_height)
    gst_vkml_detect_map_to_frame (self->dets,
        meta->has_geometry ? &meta->geometry : NULL, self->frame_width,
        self->frame_height);

  GST_OBJECT_LOCK (self);
  post = self->post_messages;
  GST_OBJECT_UNLOCK (self);
  if (post)
    g_value_init (&objects, GST_TYPE_ARRAY);
  id = gst_vkml_detect_last_roi_id (buf);
  for (i = 0; i < self->dets->len; i++) {
    const GstVkmlDetection *d =
        &g_array_index (self->dets, GstVkmlDetection, i);
    gchar num[GST_VKML_LABEL_BUF_SIZE];
    const gchar *label = gst_vkml_label (labels, n_labels, d->class_id, num);
    GstVideoRegionOfInterestMeta *roi =
        gst_vkml_attach_detection (buf, label, d);

    roi->id = ++id;             /* each box its own id on the frame */
    if (chosen == GST_VKML_DETECT_FORMAT_TORCHVISION)
      gst_vkml_detect_attach_extras (self, meta, roi, d);
    if (post)
      gst_vkml_detect_add_object (&objects, roi, d);
    if (print)
      g_print ("frame %" G_GUINT64_FORMAT ": %s %.2f at %u,%u %ux%u%s%s\n",
          self->frames, label, d->score, roi->x, roi->y, roi->w, roi->h,
          gst_video_region_of_interest_meta_get_param (roi, "mask") ?
          " mask" : "",
          gst_video_region_of_interest_meta_get_param (roi, "keypoints") ?
          " keypoints" : "");
  }
  if (print)
    fflush (stdout);
  if (post)
    gst_vkml_detect_post (self, buf, meta, &objects);
  GST_LOG_OBJECT (self, "%u boxes", self->dets->len);
  self->frames++;
  return GST_FLOW_OK;
}
