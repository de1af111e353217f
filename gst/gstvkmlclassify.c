/**
 * SECTION:element-vkmlclassify
 * @title: vkmlclassify
 *
 * Reads a classifier's output tensor from the #GstVkmlTensorMeta that vkmlinfer
 * attached (the one of its `model-id`, by default the last one) and takes its `top-k`
 * best classes scoring at least `threshold`. Each goes on the buffer as a whole-frame
 * #GstVideoRegionOfInterestMeta (roi_type = the label) with a "classification"
 * parameter (label, class-id, score), and, with post-messages=true (the default), as
 * an element message "vkml-classification" with the fields frame (guint64), timestamp
 * (guint64, the buffer's PTS), label (string), index (gint), score (gfloat, the
 * tensor's value there) and rank (guint, 0 for the best). With print=true it also
 * writes one line per result to stdout: "frame 3: red (0.98)". The video is not
 * touched.
 *
 * After `vkmlinfer roi=objects` (one meta per object, GstVkmlTensorMeta.roi_id set),
 * it classifies every object's meta of that model-id and adds the results as
 * "classification" parameters (label, class-id, score) to the object's own ROI meta
 * instead of whole-frame ROIs (vkmloverlay then draws "car: red 0.93"); its messages
 * carry the object's "roi-id" (-1 for the whole frame).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc pattern=green num-buffers=5 ! \
 *     video/x-raw,format=RGB,width=320,height=240 ! \
 *     vkmlinfer model=color.onnx ! vkmlclassify labels=color-labels.txt print=true ! \
 *     fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmlclassify.h"
#include "gstvkmldecodermodel.h"
#include "gstvkmlresults.h"
#include "gstvkmltensormeta.h"

#include <math.h>
#include <stdio.h>

GST_DEBUG_CATEGORY_STATIC (gst_vkml_classify_debug);
#define GST_CAT_DEFAULT gst_vkml_classify_debug

#define DEFAULT_LABELS NULL
#define DEFAULT_TENSOR NULL
#define DEFAULT_PRINT FALSE
#define DEFAULT_MODEL_ID NULL
#define DEFAULT_TOP_K 1
/* below any score a model gives: no threshold, in a form gst-inspect shows plainly */
#define DEFAULT_THRESHOLD (-1e9f)
#define DEFAULT_POST_MESSAGES TRUE
#define DEFAULT_SOFTMAX FALSE

enum
{
  PROP_0,
  PROP_LABELS,
  PROP_TENSOR,
  PROP_PRINT,
  PROP_MODEL_ID,
  PROP_TOP_K,
  PROP_THRESHOLD,
  PROP_POST_MESSAGES,
  PROP_SOFTMAX,
};

struct _GstVkmlClassify
{
  GstBaseTransform parent;

  /* properties, under the object lock */
  gchar *labels_path;
  gchar *tensor_name;
  gboolean print;
  gchar *model_id;
  guint top_k;
  gfloat threshold;
  gboolean post_messages;
  gboolean softmax;
  guint props_set;              /* bit N: property N was set (it overrides the bundle) */

  /* from start() to stop() */
  gchar **labels;               /* NULL when no labels file is set */
  guint n_labels;
  guint64 frames;
  gboolean warned_no_meta;
  GArray *order;                /* guint class indices, reused per frame */
  GArray *probs;                /* gfloat: softmax of the scores, reused per frame */
  GstVkmlDecoderModel model;    /* the model decoded, and its bundle */

  /* from set_caps(); 0 when the caps are not video */
  guint frame_width, frame_height;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS_ANY);

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS_ANY);

#define gst_vkml_classify_parent_class parent_class
G_DEFINE_TYPE (GstVkmlClassify, gst_vkml_classify, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (vkmlclassify, "vkmlclassify", GST_RANK_NONE,
    GST_TYPE_VKML_CLASSIFY);

static void gst_vkml_classify_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_vkml_classify_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_vkml_classify_finalize (GObject * object);
static gboolean gst_vkml_classify_start (GstBaseTransform * trans);
static gboolean gst_vkml_classify_stop (GstBaseTransform * trans);
static gboolean gst_vkml_classify_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static GstFlowReturn gst_vkml_classify_transform_ip (GstBaseTransform * trans,
    GstBuffer * buf);

static void
gst_vkml_classify_class_init (GstVkmlClassifyClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_vkml_classify_set_property;
  gobject_class->get_property = gst_vkml_classify_get_property;
  gobject_class->finalize = gst_vkml_classify_finalize;

  g_object_class_install_property (gobject_class, PROP_LABELS,
      g_param_spec_string ("labels", "Labels",
          "Text file with one label per line, line N naming class N; without "
          "it the label is the class index", DEFAULT_LABELS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_TENSOR,
      g_param_spec_string ("tensor", "Tensor",
          "Name of the float output tensor holding the class scores "
          "(default: the first tensor)", DEFAULT_TENSOR,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_PRINT,
      g_param_spec_boolean ("print", "Print",
          "Print one line per result to stdout: \"frame 3: red (0.98)\", or "
          "for an object (after vkmlinfer roi=objects) \"frame 3 object 7 "
          "(car): red (0.98)\"",
          DEFAULT_PRINT, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MODEL_ID,
      g_param_spec_string ("model-id", "Model id",
          "Read the tensors of the vkmlinfer with this model-id (default: the "
          "last tensor meta on the buffer)", DEFAULT_MODEL_ID,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_TOP_K,
      g_param_spec_uint ("top-k", "Top k",
          "Report the k best classes per frame, best first", 1, G_MAXINT,
          DEFAULT_TOP_K, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_THRESHOLD,
      g_param_spec_float ("threshold", "Threshold",
          "Report only classes scoring at least this (a probability with "
          "softmax, else the model's score); the default, -1e9, lets every "
          "class through", -1e9f, 1e9f, DEFAULT_THRESHOLD, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_SOFTMAX,
      g_param_spec_boolean ("softmax", "Softmax",
          "Apply softmax to the scores first (for a model that outputs logits): "
          "the scores reported are probabilities", DEFAULT_SOFTMAX,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post a \"vkml-classification\" element message per result",
          DEFAULT_POST_MESSAGES, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "vkml classification decoder", "Filter/Analyzer/Video",
      "Turns a classifier's output tensor (GstVkmlTensorMeta) into labels per "
      "frame, as GstVideoRegionOfInterestMeta and \"vkml-classification\" "
      "element messages", "vkml developers");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_vkml_classify_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_vkml_classify_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_vkml_classify_set_caps);
  trans_class->transform_ip =
      GST_DEBUG_FUNCPTR (gst_vkml_classify_transform_ip);

  GST_DEBUG_CATEGORY_INIT (gst_vkml_classify_debug, "vkmlclassify", 0,
      "vkml classification decoder");
}

static void
gst_vkml_classify_init (GstVkmlClassify * self)
{
  self->labels_path = g_strdup (DEFAULT_LABELS);
  self->tensor_name = g_strdup (DEFAULT_TENSOR);
  self->print = DEFAULT_PRINT;
  self->model_id = g_strdup (DEFAULT_MODEL_ID);
  self->top_k = DEFAULT_TOP_K;
  self->threshold = DEFAULT_THRESHOLD;
  self->post_messages = DEFAULT_POST_MESSAGES;
  self->softmax = DEFAULT_SOFTMAX;
  /* The video is not touched; the buffer is made writable for the ROI metas. */
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
}

static void
gst_vkml_classify_finalize (GObject * object)
{
  GstVkmlClassify *self = GST_VKML_CLASSIFY (object);

  g_free (self->labels_path);
  g_free (self->tensor_name);
  g_free (self->model_id);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_vkml_classify_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstVkmlClassify *self = GST_VKML_CLASSIFY (object);

  GST_OBJECT_LOCK (self);
  self->props_set |= 1u << prop_id;
  switch (prop_id) {
    case PROP_LABELS:
      g_free (self->labels_path);
      self->labels_path = g_value_dup_string (value);
      break;
    case PROP_SOFTMAX:
      self->softmax = g_value_get_boolean (value);
      break;
    case PROP_TENSOR:
      g_free (self->tensor_name);
      self->tensor_name = g_value_dup_string (value);
      break;
    case PROP_PRINT:
      self->print = g_value_get_boolean (value);
      break;
    case PROP_MODEL_ID:
      g_free (self->model_id);
      self->model_id = g_value_dup_string (value);
      break;
    case PROP_TOP_K:
      self->top_k = g_value_get_uint (value);
      break;
    case PROP_THRESHOLD:
      self->threshold = g_value_get_float (value);
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
gst_vkml_classify_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstVkmlClassify *self = GST_VKML_CLASSIFY (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LABELS:
      g_value_set_string (value, self->labels_path);
      break;
    case PROP_TENSOR:
      g_value_set_string (value, self->tensor_name);
      break;
    case PROP_PRINT:
      g_value_set_boolean (value, self->print);
      break;
    case PROP_MODEL_ID:
      g_value_set_string (value, self->model_id);
      break;
    case PROP_TOP_K:
      g_value_set_uint (value, self->top_k);
      break;
    case PROP_THRESHOLD:
      g_value_set_float (value, self->threshold);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, self->post_messages);
      break;
    case PROP_SOFTMAX:
      g_value_set_boolean (value, self->softmax);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static gboolean
gst_vkml_classify_load_labels (GstVkmlClassify * self, const gchar * path)
{
  GError *error = NULL;

  self->labels = gst_vkml_labels_load (path, &self->n_labels, &error);
  if (!self->labels) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("Could not read the labels file: %s", error->message),
        ("Check the 'labels' property."));
    g_error_free (error);
    return FALSE;
  }
  GST_INFO_OBJECT (self, "%u labels from %s", self->n_labels, path);
  return TRUE;
}

static gboolean
gst_vkml_classify_start (GstBaseTransform * trans)
{
  GstVkmlClassify *self = GST_VKML_CLASSIFY (trans);
  gchar *path;
  gboolean ok = TRUE;

  GST_OBJECT_LOCK (self);
  path = g_strdup (self->labels_path);
  GST_OBJECT_UNLOCK (self);

  self->frames = 0;
  self->warned_no_meta = FALSE;
  self->order = g_array_new (FALSE, FALSE, sizeof (guint));
  self->probs = g_array_new (FALSE, FALSE, sizeof (gfloat));
  if (path && *path)
    ok = gst_vkml_classify_load_labels (self, path);
  g_free (path);
  if (!ok)                      /* a failed start gets no stop() */
    gst_vkml_classify_stop (trans);
  return ok;
}

static gboolean
gst_vkml_classify_stop (GstBaseTransform * trans)
{
  GstVkmlClassify *self = GST_VKML_CLASSIFY (trans);

  g_clear_pointer (&self->labels, g_strfreev);
  self->n_labels = 0;
  g_clear_pointer (&self->order, g_array_unref);
  g_clear_pointer (&self->probs, g_array_unref);
  gst_vkml_decoder_model_clear (&self->model);
  return TRUE;
}

static gboolean
gst_vkml_classify_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    G_GNUC_UNUSED GstCaps * outcaps)
{
  GstVkmlClassify *self = GST_VKML_CLASSIFY (trans);

  gst_vkml_frame_size (incaps, &self->frame_width, &self->frame_height);
  return TRUE;
}

/* What a frame is decoded with: the properties, and the model bundle's classifier
 * settings and labels for those not set. */
typedef struct
{
  gchar *tensor;                /* NULL: the first */
  guint k;
  gfloat threshold;
  gboolean softmax, post, print;
  gchar **labels;               /* not owned */
  guint n_labels;
} Settings;

#define FROM_BUNDLE(self, prop, field) (!((self)->props_set & (1u << (prop))) \
    && gst_vkml_decoder_model_gives (&(self)->model, \
        GST_VKML_BUNDLE_DECODER_CLASSIFIER, (field)))

static void
gst_vkml_classify_settings (GstVkmlClassify * self, Settings * s)
{
  const GstVkmlBundle *b = self->model.bundle;

  GST_OBJECT_LOCK (self);
  s->tensor = g_strdup (FROM_BUNDLE (self, PROP_TENSOR, GST_VKML_BUNDLE_TENSOR)
      ? b->tensor : self->tensor_name);
  s->k = FROM_BUNDLE (self, PROP_TOP_K, GST_VKML_BUNDLE_TOP_K) ?
      (guint) b->top_k : self->top_k;
  s->threshold = FROM_BUNDLE (self, PROP_THRESHOLD, GST_VKML_BUNDLE_THRESHOLD)
      ? b->threshold : self->threshold;
  s->softmax = FROM_BUNDLE (self, PROP_SOFTMAX, GST_VKML_BUNDLE_SOFTMAX) ?
      b->softmax : self->softmax;
  s->post = self->post_messages;
  s->print = self->print;
  GST_OBJECT_UNLOCK (self);
  s->labels = self->labels;
  s->n_labels = self->n_labels;
  if (!s->labels && b && b->labels) {
    s->labels = b->labels;
    s->n_labels = b->n_labels;
  }
}

/* The tensor to read: by name, else the first. NULL after posting an error naming the
 * tensor asked for and the ones the meta has. */
static const GstVkmlTensor *
gst_vkml_classify_find_tensor (GstVkmlClassify * self,
    const GstVkmlTensorMeta * meta, const gchar * name)
{
  const GstVkmlTensor *t;
  gchar *have;

  if (name && *name)
    t = gst_vkml_tensor_meta_get_by_name (meta, name);
  else
    t = gst_vkml_tensor_meta_get (meta, 0);
  if (!t || t->dtype != VKML_DTYPE_FLOAT) {
    have = gst_vkml_tensor_meta_describe (meta);
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("%s tensor '%s' of model '%s': the model's tensors are %s.",
            t ? "Cannot classify the non-float" : "There is no",
            name && *name ? name : (t ? t->name : "(first)"),
            GST_STR_NULL (meta->model_id), have),
        ("Set the 'tensor' property to a float output of the model."));
    g_free (have);
    t = NULL;
  }
  return t;
}

static gint
by_score_desc (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const gfloat *v = user_data;
  gfloat sa = v[*(const guint *) a], sb = v[*(const guint *) b];

  return (sa < sb) - (sa > sb);
}

/* Fills self->order with the classes of @n scores @v at or over @threshold, best
 * first (the lower index first on ties), at most @k. */
static void
gst_vkml_classify_rank (GstVkmlClassify * self, const gfloat * v, gsize n,
    gfloat threshold, guint k)
{
  guint i;

  g_array_set_size (self->order, 0);
  for (i = 0; i < n && i <= G_MAXINT; i++) {
    if (v[i] >= threshold)
      g_array_append_val (self->order, i);
  }
  g_array_sort_with_data (self->order, by_score_desc, (gpointer) v);
  if (self->order->len > k)
    g_array_set_size (self->order, k);
}

/* Softmax of @n scores @v into self->probs (max subtracted first, so no overflow). */
static const gfloat *
gst_vkml_classify_softmax (GstVkmlClassify * self, const gfloat * v, gsize n)
{
  gfloat *p, top = -INFINITY;
  gdouble sum = 0;
  gsize i;

  g_array_set_size (self->probs, n);
  p = (gfloat *) self->probs->data;
  for (i = 0; i < n; i++)
    top = MAX (top, v[i]);
  for (i = 0; i < n; i++) {
    p[i] = expf (v[i] - top);
    sum += p[i];
  }
  for (i = 0; i < n; i++)
    p[i] = (gfloat) (p[i] / sum);
  return p;
}

/* One result: on @roi (an object) when given, else as a whole-frame ROI. */
static void
gst_vkml_classify_report (GstVkmlClassify * self, GstBuffer * buf,
    GstVideoRegionOfInterestMeta * roi, gint index, gfloat score, guint rank,
    const Settings * s)
{
  gchar num[GST_VKML_LABEL_BUF_SIZE];
  const gchar *label = gst_vkml_label (s->labels, s->n_labels, index, num);
  gint roi_id = roi ? roi->id : -1;

  if (roi)
    gst_vkml_add_object_classification (roi, label, index, score);
  else
    gst_vkml_attach_classification (buf, label, index, score,
        self->frame_width, self->frame_height);
  if (s->post) {
    GstStructure *st = gst_structure_new ("vkml-classification",
        "frame", G_TYPE_UINT64, self->frames,
        "timestamp", G_TYPE_UINT64, GST_BUFFER_PTS (buf),
        "label", G_TYPE_STRING, label,
        "index", G_TYPE_INT, index, "score", G_TYPE_FLOAT, score,
        "rank", G_TYPE_UINT, rank, "roi-id", G_TYPE_INT, roi_id, NULL);

    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self), st));
  }
  if (s->print && roi)
    g_print ("frame %" G_GUINT64_FORMAT " object %d (%s): %s (%.2f)\n",
        self->frames, roi_id, g_quark_to_string (roi->roi_type), label, score);
  else if (s->print) {
    g_print ("frame %" G_GUINT64_FORMAT ": %s (%.2f)\n", self->frames, label,
        score);
    fflush (stdout);
  }
}

/* Classifies one meta's tensor; results on @roi when given. */
static GstFlowReturn
gst_vkml_classify_meta (GstVkmlClassify * self, GstBuffer * buf,
    const GstVkmlTensorMeta * meta, GstVideoRegionOfInterestMeta * roi,
    const Settings * s)
{
  const GstVkmlTensor *t;
  const gfloat *v;
  GstMapInfo map;
  gsize n;
  guint i;

  if (!(t = gst_vkml_classify_find_tensor (self, meta, s->tensor)))
    return GST_FLOW_ERROR;
  if (!gst_buffer_map (t->data, &map, GST_MAP_READ))
    return GST_FLOW_ERROR;
  n = MIN (gst_vkml_tensor_element_count (t), map.size / sizeof (gfloat));
  v = (const gfloat *) map.data;
  if (s->softmax)
    v = gst_vkml_classify_softmax (self, v, n);
  gst_vkml_classify_rank (self, v, n, s->threshold, s->k);
  for (i = 0; i < self->order->len; i++) {
    guint c = g_array_index (self->order, guint, i);

    gst_vkml_classify_report (self, buf, roi, (gint) c, v[c], i, s);
  }
  gst_buffer_unmap (t->data, &map);
  return GST_FLOW_OK;
}

/* Secondary inference: every object's meta of @newest's model-id, each onto its ROI. */
static GstFlowReturn
gst_vkml_classify_objects (GstVkmlClassify * self, GstBuffer * buf,
    const GstVkmlTensorMeta * newest, const Settings * s)
{
  GstFlowReturn ret = GST_FLOW_OK;
  GstVkmlTensorMeta *m;
  gpointer state = NULL;

  while (ret == GST_FLOW_OK && (m = (GstVkmlTensorMeta *)
          gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VKML_TENSOR_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi;

    if (m->roi_id < 0 || g_strcmp0 (m->model_id, newest->model_id) != 0)
      continue;
    roi = gst_buffer_get_video_region_of_interest_meta_id (buf, m->roi_id);
    if (!roi) {
      GST_DEBUG_OBJECT (self, "no ROI meta of id %d any more", m->roi_id);
      continue;
    }
    ret = gst_vkml_classify_meta (self, buf, m, roi, s);
  }
  return ret;
}

/* A new model (another model-id, or new tensor shapes after a model swap): its bundle,
 * and a warning when its class count does not match the labels. */
static gboolean
gst_vkml_classify_check_model (GstVkmlClassify * self,
    const GstVkmlTensorMeta * meta)
{
  gboolean changed;
  const GstVkmlTensor *t;
  Settings s;

  if (!gst_vkml_decoder_model_update (&self->model, GST_BASE_TRANSFORM (self),
          meta, &changed))
    return FALSE;
  if (!changed)
    return TRUE;
  gst_vkml_classify_settings (self, &s);
  t = s.tensor && *s.tensor ? gst_vkml_tensor_meta_get_by_name (meta, s.tensor)
      : gst_vkml_tensor_meta_get (meta, 0);
  if (t && s.labels && gst_vkml_tensor_element_count (t) != s.n_labels) {
    gchar *have = gst_vkml_tensor_meta_describe (meta);

    GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("Model '%s' has %"
            G_GSIZE_FORMAT " classes in tensor '%s' but there are %u labels: "
            "the labels may not be this model's.",
            GST_STR_NULL (meta->model_id), gst_vkml_tensor_element_count (t),
            t->name, s.n_labels), ("The model's tensors are %s.", have));
    g_free (have);
  }
  g_free (s.tensor);
  return TRUE;
}

static GstFlowReturn
gst_vkml_classify_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstVkmlClassify *self = GST_VKML_CLASSIFY (trans);
  GstVkmlTensorMeta *meta = gst_vkml_decoder_find_meta (GST_ELEMENT (self),
      buf, &self->model_id, &self->warned_no_meta, "vkmlclassify");
  GstFlowReturn ret;
  Settings s;

  if (!meta)
    return GST_FLOW_OK;
  if (!gst_vkml_classify_check_model (self, meta))
    return GST_FLOW_ERROR;
  gst_vkml_classify_settings (self, &s);
  ret = meta->roi_id >= 0 ? gst_vkml_classify_objects (self, buf, meta, &s)
      : gst_vkml_classify_meta (self, buf, meta, NULL, &s);
  g_free (s.tensor);
  self->frames++;
  return ret;
}
