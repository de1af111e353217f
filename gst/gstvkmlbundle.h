/* Model bundles: a JSON file beside a model (m.onnx -> m.json, or vkmlinfer's 'config')
 * holding what a pipeline would otherwise spell out in properties: the input's
 * pre-processing, the labels, and the output decoder with its settings. vkmlinfer reads
 * the input part; vkmlclassify and vkmldetect ask the vkmlinfer of the meta's model-id
 * for the file (a "vkml-bundle" custom query) and read the rest. Properties a user sets
 * override the bundle. The schema is in docs/element.md. Thread-safe (no shared state). */
#pragma once

#include "gstvkmlconvert.h"
#include "gstvkmldetectdecode.h"

G_BEGIN_DECLS
/* Which settings a bundle gives (GstVkmlBundle.set). */
    typedef enum
{
  GST_VKML_BUNDLE_SCALE = 1 << 0,
  GST_VKML_BUNDLE_MEAN = 1 << 1,
  GST_VKML_BUNDLE_STD = 1 << 2,
  GST_VKML_BUNDLE_CHANNEL_ORDER = 1 << 3,
  GST_VKML_BUNDLE_RESIZE = 1 << 4,
  GST_VKML_BUNDLE_PAD_VALUE = 1 << 5,
  GST_VKML_BUNDLE_TENSOR = 1 << 6,
  GST_VKML_BUNDLE_SOFTMAX = 1 << 7,
  GST_VKML_BUNDLE_TOP_K = 1 << 8,
  GST_VKML_BUNDLE_THRESHOLD = 1 << 9,
  GST_VKML_BUNDLE_FORMAT = 1 << 10,
  GST_VKML_BUNDLE_SCORE_THRESHOLD = 1 << 11,
  GST_VKML_BUNDLE_IOU_THRESHOLD = 1 << 12,
  GST_VKML_BUNDLE_MAX_DETECTIONS = 1 << 13,
  GST_VKML_BUNDLE_BACKGROUND_CLASS = 1 << 14,
  GST_VKML_BUNDLE_CLASSES = 1 << 15,
  GST_VKML_BUNDLE_STRIDES = 1 << 16,
} GstVkmlBundleField;

typedef enum
{
  GST_VKML_BUNDLE_DECODER_NONE,
  GST_VKML_BUNDLE_DECODER_CLASSIFIER,
  GST_VKML_BUNDLE_DECODER_DETECTOR,
} GstVkmlBundleDecoder;

/* The custom query a decoder sends upstream: "model-id" (string) asks, the vkmlinfer of
 * that model-id answers "path" (string; "" when it has no bundle). */
#define GST_VKML_BUNDLE_QUERY "vkml-bundle"

typedef struct
{
  gchar *path;
  guint set;                    /* GstVkmlBundleField: what the file gives */
  /* "input": resize, pad_value, bgr, scale, mean, std (input size not used) */
  GstVkmlPreprocessSettings input;
  /* "labels" or "labels-file"; NULL when neither */
  gchar **labels;
  guint n_labels;
  /* "decoder" */
  GstVkmlBundleDecoder decoder;
  gchar *tensor;                /* classifier */
  gboolean softmax;
  gint top_k;                   /* >= 1 */
  gfloat threshold;
  GstVkmlDetectFormat format;   /* detector */
  gfloat score_threshold;
  gfloat iou_threshold;
  gint max_detections;          /* >= 0 */
  gint background_class;
  GArray *classes;              /* gint; NULL when not given */
  guint strides[GST_VKML_DETECT_MAX_STRIDES];
  guint n_strides;
} GstVkmlBundle;

/* The bundle at @path; NULL and @error (GST_RESOURCE_ERROR: NOT_FOUND when it cannot be
 * read, SETTINGS when it does not fit the schema) naming the file and the key. */
GstVkmlBundle *gst_vkml_bundle_load (const gchar * path, GError ** error);
void gst_vkml_bundle_free (GstVkmlBundle * bundle);

/* The bundle path beside @model_path: its extension replaced by ".json" (m.onnx ->
 * m.json), ".json" appended when it has none. */
gchar *gst_vkml_bundle_path_for_model (const gchar * model_path);

/* Decoders: asks upstream of @pad for the bundle of @model_id and loads it. NULL when no
 * element answers or it has none; NULL and @error when the file is bad. */
GstVkmlBundle *gst_vkml_bundle_query (GstPad * pad, const gchar * model_id,
    GError ** error);

/* vkmlinfer: answers @query when it is the bundle query for @model_id (with @path,
 * NULL: none). FALSE: not that query, or another model-id's. */
gboolean gst_vkml_bundle_answer (GstQuery * query, const gchar * model_id,
    const gchar * path);

G_END_DECLS
