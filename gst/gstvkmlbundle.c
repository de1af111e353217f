/* Model bundles (see gstvkmlbundle.h): the JSON read with json-glib, each key checked
 * against a table of the keys its section takes. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmlbundle.h"
#include "gstvkmlresults.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

/* Where a key is: the file and the key's path ("decoder.top-k"), for messages. */
typedef struct
{
  GstVkmlBundle *b;
  const gchar *key;
  GError **error;
} Ctx;

typedef gboolean (*KeyFunc) (Ctx * c, JsonNode * node);

typedef struct
{
  const gchar *name;
  KeyFunc read;
} Key;

static gboolean
fail (Ctx * c, const gchar * what)
{
  if (*c->key)
    g_set_error (c->error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "%s: '%s' %s", c->b->path, c->key, what);
  else
    g_set_error (c->error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "%s: the top level %s", c->b->path, what);
  return FALSE;
}

static gboolean
get_number (JsonNode * node, gdouble * out)
{
  GType t = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : 0;

  if (t == G_TYPE_INT64)
    *out = (gdouble) json_node_get_int (node);
  else if (t == G_TYPE_DOUBLE)
    *out = json_node_get_double (node);
  else
    return FALSE;
  return isfinite (*out);
}

static gboolean
number_in (Ctx * c, JsonNode * node, gdouble lo, gdouble hi, gdouble * out)
{
  gchar *what;

  if (get_number (node, out) && *out >= lo && *out <= hi)
    return TRUE;
  what = g_strdup_printf ("must be a number from %g to %g", lo, hi);
  fail (c, what);
  g_free (what);
  return FALSE;
}

static gboolean
integer_in (Ctx * c, JsonNode * node, gint64 lo, gint64 hi, gint64 * out)
{
  gchar *what;

  if (JSON_NODE_HOLDS_VALUE (node)
      && json_node_get_value_type (node) == G_TYPE_INT64
      && (*out = json_node_get_int (node)) >= lo && *out <= hi)
    return TRUE;
  what = g_strdup_printf ("must be a whole number from %" G_GINT64_FORMAT
      " to %" G_GINT64_FORMAT, lo, hi);
  fail (c, what);
  g_free (what);
  return FALSE;
}

static const gchar *
get_string (JsonNode * node)
{
  return JSON_NODE_HOLDS_VALUE (node)
      && json_node_get_value_type (node) == G_TYPE_STRING ?
      json_node_get_string (node) : NULL;
}

/* @text as the index of one of @names (NULL-terminated); -1 after an error naming them. */
static gint
one_of (Ctx * c, JsonNode * node, const gchar * const *names)
{
  const gchar *text = get_string (node);
  gchar *list, *what;
  gint i;

  for (i = 0; text && names[i]; i++)
    if (g_str_equal (text, names[i]))
      return i;
  list = g_strjoinv (", ", (gchar **) names);
  what = g_strdup_printf ("must be one of %s", list);
  fail (c, what);
  g_free (what);
  g_free (list);
  return -1;
}

/* A number in [@lo, @hi] into *@out, marking @field given. */
static gboolean
set_float (Ctx * c, JsonNode * node, gdouble lo, gdouble hi, gfloat * out,
    GstVkmlBundleField field)
{
  gdouble v;

  if (!number_in (c, node, lo, hi, &v))
    return FALSE;
  *out = (gfloat) v;
  c->b->set |= field;
  return TRUE;
}

/* A whole number from @lo (to G_MAXINT) into *@out, marking @field given. */
static gboolean
set_int (Ctx * c, JsonNode * node, gint64 lo, gint * out,
    GstVkmlBundleField field)
{
  gint64 v;

  if (!integer_in (c, node, lo, G_MAXINT, &v))
    return FALSE;
  *out = (gint) v;
  c->b->set |= field;
  return TRUE;
}

/* ---- "input" -------------------------------------------------------------------- */

static gboolean
read_scale (Ctx * c, JsonNode * node)
{
  return set_float (c, node, G_MINFLOAT, G_MAXFLOAT, &c->b->input.scale,
      GST_VKML_BUNDLE_SCALE);
}

/* One number, or one per channel (3), into @out; @nonzero refuses 0 (std). */
static gboolean
read_channels (Ctx * c, JsonNode * node, gfloat out[3], gboolean nonzero)
{
  JsonArray *a = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) :
      NULL;
  guint n = a ? json_array_get_length (a) : 1, i;
  gdouble v[3];
  gboolean ok = n == 1 || n == 3;

  for (i = 0; ok && i < n; i++) {
    ok = get_number (a ? json_array_get_element (a, i) : node, &v[i])
        && (!nonzero || v[i] != 0.0);
    out[i] = (gfloat) v[i];
  }
  if (!ok)
    return fail (c, nonzero ? "must be a number other than 0 or an array of 3 "
        "such numbers" : "must be a number or an array of 3 numbers");
  if (n == 1)
    out[1] = out[2] = out[0];
  return TRUE;
}

static gboolean
read_mean (Ctx * c, JsonNode * node)
{
  c->b->set |= GST_VKML_BUNDLE_MEAN;
  return read_channels (c, node, c->b->input.mean, FALSE);
}

static gboolean
read_std (Ctx * c, JsonNode * node)
{
  c->b->set |= GST_VKML_BUNDLE_STD;
  return read_channels (c, node, c->b->input.std, TRUE);
}

static gboolean
read_channel_order (Ctx * c, JsonNode * node)
{
  static const gchar *names[] = { "rgb", "bgr", NULL };
  gint i = one_of (c, node, names);

  c->b->input.bgr = i == 1;
  c->b->set |= GST_VKML_BUNDLE_CHANNEL_ORDER;
  return i >= 0;
}

static gboolean
read_resize (Ctx * c, JsonNode * node)
{
  /* in vkml_resize_mode's order */
  static const gchar *names[] = { "stretch", "letterbox", "crop", NULL };
  gint i = one_of (c, node, names);

  c->b->input.resize = (vkml_resize_mode) MAX (i, 0);
  c->b->set |= GST_VKML_BUNDLE_RESIZE;
  return i >= 0;
}

static gboolean
read_pad_value (Ctx * c, JsonNode * node)
{
  return set_float (c, node, 0, 255, &c->b->input.pad_value,
      GST_VKML_BUNDLE_PAD_VALUE);
}

static const Key input_keys[] = {
  {"scale", read_scale}, {"mean", read_mean}, {"std", read_std},
  {"channel-order", read_channel_order}, {"resize", read_resize},
  {"pad-value", read_pad_value}, {NULL, NULL}
};

/* ---- "decoder" ------------------------------------------------------------------ */

static gboolean
read_type (Ctx * c, JsonNode * node)
{
  static const gchar *names[] = { "classifier", "detector", NULL };
  gint i = one_of (c, node, names);

  c->b->decoder = i == 0 ? GST_VKML_BUNDLE_DECODER_CLASSIFIER :
      GST_VKML_BUNDLE_DECODER_DETECTOR;
  return i >= 0;
}

static gboolean
read_tensor (Ctx * c, JsonNode * node)
{
  const gchar *s = get_string (node);

  if (!s || !*s)
    return fail (c, "must be the name of an output tensor");
  g_free (c->b->tensor);
  c->b->tensor = g_strdup (s);
  c->b->set |= GST_VKML_BUNDLE_TENSOR;
  return TRUE;
}

static gboolean
read_softmax (Ctx * c, JsonNode * node)
{
  if (!JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return fail (c, "must be true or false");
  c->b->softmax = json_node_get_boolean (node);
  c->b->set |= GST_VKML_BUNDLE_SOFTMAX;
  return TRUE;
}

static gboolean
read_top_k (Ctx * c, JsonNode * node)
{
  return set_int (c, node, 1, &c->b->top_k, GST_VKML_BUNDLE_TOP_K);
}

static gboolean
read_threshold (Ctx * c, JsonNode * node)
{
  return set_float (c, node, -1e9, 1e9, &c->b->threshold,
      GST_VKML_BUNDLE_THRESHOLD);
}

static gboolean
read_format (Ctx * c, JsonNode * node)
{
  /* in GstVkmlDetectFormat's order */
  static const gchar *names[] = { "auto", "yolov5", "yolov8", "yolox", "ssd",
    "torchvision", NULL
  };
  gint i = one_of (c, node, names);

  c->b->format = (GstVkmlDetectFormat) MAX (i, 0);
  c->b->set |= GST_VKML_BUNDLE_FORMAT;
  return i >= 0;
}

static gboolean
read_score_threshold (Ctx * c, JsonNode * node)
{
  return set_float (c, node, 0, 1, &c->b->score_threshold,
      GST_VKML_BUNDLE_SCORE_THRESHOLD);
}

static gboolean
read_iou_threshold (Ctx * c, JsonNode * node)
{
  return set_float (c, node, 0, 1, &c->b->iou_threshold,
      GST_VKML_BUNDLE_IOU_THRESHOLD);
}

static gboolean
read_max_detections (Ctx * c, JsonNode * node)
{
  return set_int (c, node, 0, &c->b->max_detections,
      GST_VKML_BUNDLE_MAX_DETECTIONS);
}

static gboolean
read_background_class (Ctx * c, JsonNode * node)
{
  return set_int (c, node, -1, &c->b->background_class,
      GST_VKML_BUNDLE_BACKGROUND_CLASS);
}

/* An array of 1 .. @max whole numbers from @lo into @out (gint); else @what. */
static gboolean
read_int_array (Ctx * c, JsonNode * node, gint64 lo, guint max, GArray * out,
    const gchar * what)
{
  JsonArray *a = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) :
      NULL;
  guint n = a ? json_array_get_length (a) : 0, i;

  for (i = 0; a && n >= 1 && n <= max && i < n; i++) {
    JsonNode *e = json_array_get_element (a, i);
    gint v;

    if (!JSON_NODE_HOLDS_VALUE (e)
        || json_node_get_value_type (e) != G_TYPE_INT64
        || json_node_get_int (e) < lo || json_node_get_int (e) > G_MAXINT)
      break;
    v = (gint) json_node_get_int (e);
    g_array_append_val (out, v);
  }
  return (a && n >= 1 && n <= max && i == n) || fail (c, what);
}

static gboolean
read_classes (Ctx * c, JsonNode * node)
{
  if (!c->b->classes)
    c->b->classes = g_array_new (FALSE, FALSE, sizeof (gint));
  g_array_set_size (c->b->classes, 0);
  c->b->set |= GST_VKML_BUNDLE_CLASSES;
  return read_int_array (c, node, 0, G_MAXINT, c->b->classes,
      "must be an array of class indices (0 or more)");
}

static gboolean
read_strides (Ctx * c, JsonNode * node)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (gint));
  gboolean ok = read_int_array (c, node, 1, GST_VKML_DETECT_MAX_STRIDES, a,
      "must be an array of 1 to " G_STRINGIFY (GST_VKML_DETECT_MAX_STRIDES)
      " strides in input pixels (1 or more)");
  guint i;

  for (i = 0; ok && i < a->len; i++)
    c->b->strides[i] = (guint) g_array_index (a, gint, i);
  c->b->n_strides = ok ? a->len : 0;
  c->b->set |= GST_VKML_BUNDLE_STRIDES;
  g_array_unref (a);
  return ok;
}

static const Key classifier_keys[] = {
  {"type", read_type}, {"tensor", read_tensor}, {"softmax", read_softmax},
  {"top-k", read_top_k}, {"threshold", read_threshold}, {NULL, NULL}
};

static const Key detector_keys[] = {
  {"type", read_type}, {"format", read_format},
  {"score-threshold", read_score_threshold},
  {"iou-threshold", read_iou_threshold},
  {"max-detections", read_max_detections},
  {"background-class", read_background_class}, {"classes", read_classes},
  {"strides", read_strides}, {NULL, NULL}
};

/* ---- sections ------------------------------------------------------------------- */

/* Every member of @node (an object, at @prefix) through @keys; an unknown key is an
 * error naming it and the keys the section takes. */
static gboolean
read_object (Ctx * c, JsonNode * node, const gchar * prefix, const Key * keys)
{
  JsonObject *o = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) :
      NULL;
  GList *names, *l;
  gboolean ok = TRUE;

  if (!o)
    return fail (c, "must be an object { ... }");
  names = json_object_get_members (o);
  for (l = names; ok && l; l = l->next) {
    gchar *key = *prefix ? g_strdup_printf ("%s.%s", prefix,
        (const gchar *) l->data) : g_strdup (l->data);
    const Key *k;
    Ctx sub = { c->b, key, c->error };

    for (k = keys; k->name && !g_str_equal (k->name, l->data); k++);
    if (k->name) {
      ok = k->read (&sub, json_object_get_member (o, l->data));
    } else {
      GString *known = g_string_new (NULL);

      for (k = keys; k->name; k++)
        g_string_append_printf (known, "%s%s", known->len ? ", " : "", k->name);
      g_set_error (c->error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "%s: unknown key '%s' (%s takes %s)", c->b->path, key,
          *prefix ? prefix : "the top level", known->str);
      g_string_free (known, TRUE);
      ok = FALSE;
    }
    g_free (key);
  }
  g_list_free (names);
  return ok;
}

static gboolean
read_input (Ctx * c, JsonNode * node)
{
  return read_object (c, node, "input", input_keys);
}

/* "type" picks the keys the rest may use. */
static gboolean
read_decoder (Ctx * c, JsonNode * node)
{
  JsonObject *o = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) :
      NULL;
  JsonNode *type = o ? json_object_get_member (o, "type") : NULL;
  Ctx sub = { c->b, "decoder.type", c->error };

  if (o && !type)
    return fail (c, "needs a \"type\": \"classifier\" or \"detector\"");
  if (o && !read_type (&sub, type))
    return FALSE;
  return read_object (c, node, "decoder",
      c->b->decoder == GST_VKML_BUNDLE_DECODER_DETECTOR ? detector_keys :
      classifier_keys);
}

static gboolean
read_labels (Ctx * c, JsonNode * node)
{
  JsonArray *a = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) :
      NULL;
  guint n = a ? json_array_get_length (a) : 0, i;

  if (c->b->labels)
    return fail (c, "and 'labels-file' cannot both be given");
  c->b->labels = g_new0 (gchar *, n + 1);
  for (i = 0; i < n; i++) {
    const gchar *s = get_string (json_array_get_element (a, i));

    if (!s)
      break;
    c->b->labels[i] = g_strdup (s);
  }
  c->b->n_labels = i;
  return (a && i == n) || fail (c, "must be an array of strings, one label a "
      "class");
}

/* Relative to the bundle's folder. */
static gboolean
read_labels_file (Ctx * c, JsonNode * node)
{
  const gchar *s = get_string (node);
  gchar *dir, *path;
  GError *error = NULL;

  if (c->b->labels)
    return fail (c, "and 'labels' cannot both be given");
  if (!s || !*s)
    return fail (c, "must be the path of a labels file");
  dir = g_path_get_dirname (c->b->path);
  path = g_path_is_absolute (s) ? g_strdup (s) : g_build_filename (dir, s,
      NULL);
  c->b->labels = gst_vkml_labels_load (path, &c->b->n_labels, &error);
  if (!c->b->labels) {
    g_set_error (c->error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "%s: '%s': %s", c->b->path, c->key, error->message);
    g_error_free (error);
  }
  g_free (path);
  g_free (dir);
  return c->b->labels != NULL;
}

/* Free text for people; not read. */
static gboolean
read_description (Ctx * c, JsonNode * node)
{
  return get_string (node) != NULL || fail (c, "must be a string");
}

static const Key top_keys[] = {
  {"description", read_description}, {"input", read_input},
  {"labels", read_labels}, {"labels-file", read_labels_file},
  {"decoder", read_decoder}, {NULL, NULL}
};

GstVkmlBundle *
gst_vkml_bundle_load (const gchar * path, GError ** error)
{
  GstVkmlBundle *b = g_new0 (GstVkmlBundle, 1);
  JsonParser *parser = json_parser_new ();
  GError *json_error = NULL;
  Ctx c = { b, "", error };
  gboolean ok;

  b->path = g_strdup (path);
  b->input.std[0] = b->input.std[1] = b->input.std[2] = 1.0f;
  if (!json_parser_load_from_file (parser, path, &json_error)) {
    g_set_error (error, GST_RESOURCE_ERROR,
        json_error->domain == JSON_PARSER_ERROR ? GST_RESOURCE_ERROR_SETTINGS :
        GST_RESOURCE_ERROR_NOT_FOUND, "%s: %s", path, json_error->message);
    g_error_free (json_error);
    ok = FALSE;
  } else {
    ok = read_object (&c, json_parser_get_root (parser), "", top_keys);
  }
  g_object_unref (parser);
  if (!ok)
    g_clear_pointer (&b, gst_vkml_bundle_free);
  return b;
}

void
gst_vkml_bundle_free (GstVkmlBundle * b)
{
  if (!b)
    return;
  g_free (b->path);
  g_strfreev (b->labels);
  g_free (b->tensor);
  if (b->classes)
    g_array_unref (b->classes);
  g_free (b);
}

gchar *
gst_vkml_bundle_path_for_model (const gchar * model_path)
{
  const gchar *base = strrchr (model_path, G_DIR_SEPARATOR);
  const gchar *dot = strrchr (base ? base : model_path, '.');
  gsize stem = dot && dot != (base ? base + 1 : model_path) ?
      (gsize) (dot - model_path) : strlen (model_path);

  return g_strdup_printf ("%.*s.json", (int) stem, model_path);
}

GstVkmlBundle *
gst_vkml_bundle_query (GstPad * pad, const gchar * model_id, GError ** error)
{
  GstQuery *query = gst_query_new_custom (GST_QUERY_CUSTOM,
      gst_structure_new (GST_VKML_BUNDLE_QUERY, "model-id", G_TYPE_STRING,
          model_id, NULL));
  GstVkmlBundle *b = NULL;

  if (gst_pad_peer_query (pad, query)) {
    const gchar *path = gst_structure_get_string (gst_query_get_structure
        (query), "path");

    if (path && *path)
      b = gst_vkml_bundle_load (path, error);
  }
  gst_query_unref (query);
  return b;
}

gboolean
gst_vkml_bundle_answer (GstQuery * query, const gchar * model_id,
    const gchar * path)
{
  GstStructure *s;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CUSTOM
      || !gst_structure_has_name (gst_query_get_structure (query),
          GST_VKML_BUNDLE_QUERY))
    return FALSE;
  s = gst_query_writable_structure (query);
  if (g_strcmp0 (gst_structure_get_string (s, "model-id"), model_id) != 0)
    return FALSE;
  gst_structure_set (s, "path", G_TYPE_STRING, path ? path : "", NULL);
  return TRUE;
}
