/**
 * SECTION:element-vkmlclassify
 * @title: vkmlclassify
 *
 * Reads a classifier's output tensor from the #GstVkmlTensorMeta that vkmlinfer
 * attached, takes its argmax and posts an element message "vkml-classification" with
 * the fields frame (guint64), timestamp (guint64, the buffer's PTS), label (string),
 * index (gint) and score (gfloat, the tensor's value at the argmax). With print=true it
 * also writes one line per frame to stdout: "frame 3: red (0.98)". Buffers pass through
 * unchanged.
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
#include "gstvkmltensormeta.h"

#include <stdio.h>

GST_DEBUG_CATEGORY_STATIC (gst_vkml_classify_debug);
#define GST_CAT_DEFAULT gst_vkml_classify_debug

#define DEFAULT_LABELS NULL
#define DEFAULT_TENSOR NULL
#define DEFAULT_PRINT FALSE

enum
{
  PROP_0,
  PROP_LABELS,
  PROP_TENSOR,
  PROP_PRINT,
};

struct _GstVkmlClassify
{
  GstBaseTransform parent;

  /* properties, under the object lock */
  gchar *labels_path;
  gchar *tensor_name;
  gboolean print;

  /* from start() to stop() */
  gchar **labels;               /* NULL when no labels file is set */
  guint n_labels;
  guint64 frames;
  gboolean warned_no_meta;
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
          "Print one line per frame to stdout, e.g. \"frame 3: red (0.98)\"",
          DEFAULT_PRINT, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "vkml classification decoder", "Filter/Analyzer",
      "Turns a classifier's output tensor (GstVkmlTensorMeta) into a label per "
      "frame, posted as a \"vkml-classification\" element message",
      "vkml developers");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_vkml_classify_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_vkml_classify_stop);
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
  /* Only the metadata is read: buffers go on untouched, writable or not. */
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
}

static void
gst_vkml_classify_finalize (GObject * object)
{
  GstVkmlClassify *self = GST_VKML_CLASSIFY (object);

  g_free (self->labels_path);
  g_free (self->tensor_name);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_vkml_classify_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstVkmlClassify *self = GST_VKML_CLASSIFY (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LABELS:
      g_free (self->labels_path);
      self->labels_path = g_value_dup_string (value);
      break;
    case PROP_TENSOR:
      g_free (self->tensor_name);
      self->tensor_name = g_value_dup_string (value);
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
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* One label per line; trailing whitespace (and a final empty line) dropped. */
static gboolean
gst_vkml_classify_load_labels (GstVkmlClassify * self, const gchar * path)
{
  gchar *text = NULL;
  GError *error = NULL;
  guint n;

  if (!g_file_get_contents (path, &text, NULL, &error)) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("Could not read the labels file: %s", error->message),
        ("Check the 'labels' property."));
    g_error_free (error);
    return FALSE;
  }
  self->labels = g_strsplit (text, "\n", -1);
  g_free (text);
  for (n = 0; self->labels[n]; n++)
    g_strchomp (self->labels[n]);
  if (n > 0 && self->labels[n - 1][0] == '\0') {
    g_free (self->labels[n - 1]);
    self->labels[--n] = NULL;
  }
  self->n_labels = n;
  GST_INFO_OBJECT (self, "%u labels from %s", n, path);
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
  if (path && *path)
    ok = gst_vkml_classify_load_labels (self, path);
  g_free (path);
  return ok;
}

static gboolean
gst_vkml_classify_stop (GstBaseTransform * trans)
{
  GstVkmlClassify *self = GST_VKML_CLASSIFY (trans);

  g_clear_pointer (&self->labels, g_strfreev);
  self->n_labels = 0;
  return TRUE;
}

/* The tensor to read: by the 'tensor' property, else the first. */
static const GstVkmlTensor *
gst_vkml_classify_find_tensor (GstVkmlClassify * self,
    const GstVkmlTensorMeta * meta)
{
  const GstVkmlTensor *t;

  GST_OBJECT_LOCK (self);
  if (self->tensor_name && *self->tensor_name)
    t = gst_vkml_tensor_meta_get_by_name (meta, self->tensor_name);
  else
    t = gst_vkml_tensor_meta_get (meta, 0);
  GST_OBJECT_UNLOCK (self);
  return t;
}

/* Index of the highest of @n floats (the first on ties); -1 when @n is 0. */
static gint
argmax (const gfloat * v, gsize n, gfloat * best)
{
  gint idx = -1;
  gsize i;

  for (i = 0; i < n && i <= G_MAXINT; i++) {
    if (idx < 0 || v[i] > *best) {
      idx = (gint) i;
      *best = v[i];
    }
  }
  return idx;
}

static void
gst_vkml_classify_report (GstVkmlClassify * self, GstBuffer * buf, gint index,
    gfloat score)
{
  gchar *fallback = NULL;
  const gchar *label;
  gboolean print;
  GstStructure *s;

  if (self->labels && (guint) index < self->n_labels)
    label = self->labels[index];
  else
    label = fallback = g_strdup_printf ("%d", index);

  s = gst_structure_new ("vkml-classification",
      "frame", G_TYPE_UINT64, self->frames,
      "timestamp", G_TYPE_UINT64, GST_BUFFER_PTS (buf),
      "label", G_TYPE_STRING, label,
      "index", G_TYPE_INT, index, "score", G_TYPE_FLOAT, score, NULL);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));

  GST_OBJECT_LOCK (self);
  print = self->print;
  GST_OBJECT_UNLOCK (self);
  if (print) {
    g_print ("frame %" G_GUINT64_FORMAT ": %s (%.2f)\n", self->frames, label,
        score);
    fflush (stdout);
  }
  g_free (fallback);
}

static GstFlowReturn
gst_vkml_classify_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstVkmlClassify *self = GST_VKML_CLASSIFY (trans);
  GstVkmlTensorMeta *meta = gst_buffer_get_vkml_tensor_meta (buf);
  const GstVkmlTensor *t;
  GstMapInfo map;
  gfloat score = 0.0f;
  gint index;

  if (!meta) {
    if (!self->warned_no_meta)
      GST_ELEMENT_WARNING (self, STREAM, FORMAT,
          ("A buffer has no tensors; put vkmlclassify after vkmlinfer."),
          (NULL));
    self->warned_no_meta = TRUE;
    return GST_FLOW_OK;
  }
  t = gst_vkml_classify_find_tensor (self, meta);
  if (!t || t->dtype != VKML_DTYPE_FLOAT) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("%s", t ? "The tensor to classify is not float." :
            "The model has no such output tensor."),
        ("Set the 'tensor' property to a float output of the model."));
    return GST_FLOW_ERROR;
  }
  if (!gst_buffer_map (t->data, &map, GST_MAP_READ))
    return GST_FLOW_ERROR;
  index = argmax ((const gfloat *) map.data, gst_vkml_tensor_element_count (t),
      &score);
  gst_buffer_unmap (t->data, &map);

  if (index >= 0)
    gst_vkml_classify_report (self, buf, index, score);
  self->frames++;
  return GST_FLOW_OK;
}
