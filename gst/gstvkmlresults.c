/* Decoder results: see gstvkmlresults.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmlresults.h"

#include <math.h>
#include <string.h>

#if defined (HAVE_GST_ANALYTICS) && GST_CHECK_VERSION (1, 24, 0)
#include <gst/analytics/analytics.h>
#define VKML_WITH_ANALYTICS 1
#endif

gchar **
gst_vkml_labels_load (const gchar * path, guint * n_labels, GError ** error)
{
  gchar *text = NULL, **labels;
  guint n;

  if (!g_file_get_contents (path, &text, NULL, error))
    return NULL;
  labels = g_strsplit (text, "\n", -1);
  g_free (text);
  for (n = 0; labels[n]; n++)
    g_strchomp (labels[n]);
  if (n > 0 && labels[n - 1][0] == '\0') {
    g_free (labels[n - 1]);
    labels[--n] = NULL;
  }
  *n_labels = n;
  return labels;
}

const gchar *
gst_vkml_label (gchar ** labels, guint n_labels, gint class_id,
    gchar buf[GST_VKML_LABEL_BUF_SIZE])
{
  if (labels && class_id >= 0 && (guint) class_id < n_labels)
    return labels[class_id];
  g_snprintf (buf, GST_VKML_LABEL_BUF_SIZE, "%d", class_id);
  return buf;
}

static gchar *gst_vkml_model_ids (GstBuffer * buf);

GstVkmlTensorMeta *
gst_vkml_decoder_find_meta (GstElement * element, GstBuffer * buf,
    gchar * const *model_id, gboolean * warned, const gchar * element_name)
{
  GstVkmlTensorMeta *meta;
  gchar *id;

  GST_OBJECT_LOCK (element);
  id = g_strdup (*model_id);
  GST_OBJECT_UNLOCK (element);
  meta = gst_buffer_find_vkml_tensor_meta (buf, id);
  if (!meta && !*warned) {
    gchar *present = gst_vkml_model_ids (buf);

    if (present)                /* a model-id that no vkmlinfer upstream has */
      GST_ELEMENT_WARNING (element, STREAM, FORMAT,
          ("A buffer has no tensors of model-id \"%s\"; the buffer has tensors "
              "of model-id %s.", id, present), ("Set %s's model-id to one of "
              "those.", element_name));
    else
      GST_ELEMENT_WARNING (element, STREAM, FORMAT,
          ("A buffer has no tensors%s%s%s; put %s after vkmlinfer.",
              id ? " of model-id \"" : "", id ? id : "", id ? "\"" : "",
              element_name), (NULL));
    g_free (present);
    *warned = TRUE;
  }
  g_free (id);
  return meta;
}

/* The model-ids of @buf's tensor metas, quoted, each once: "\"a\", \"b\""; NULL
 * when it has none. */
static gchar *
gst_vkml_model_ids (GstBuffer * buf)
{
  GString *ids = g_string_new (NULL);
  GstVkmlTensorMeta *m;
  gpointer state = NULL;

  while ((m = (GstVkmlTensorMeta *) gst_buffer_iterate_meta_filtered (buf,
              &state, GST_VKML_TENSOR_META_API_TYPE))) {
    gchar *quoted = g_strdup_printf ("\"%s\"", GST_STR_NULL (m->model_id));

    if (!strstr (ids->str, quoted))
      g_string_append_printf (ids, "%s%s", ids->len ? ", " : "", quoted);
    g_free (quoted);
  }
  return g_string_free (ids, ids->len == 0);
}

void
gst_vkml_frame_size (GstCaps * caps, guint * width, guint * height)
{
  GstVideoInfo info;

  *width = *height = 0;
  if (gst_video_info_from_caps (&info, caps)) {
    *width = GST_VIDEO_INFO_WIDTH (&info);
    *height = GST_VIDEO_INFO_HEIGHT (&info);
  }
}

/* The class index of @entry: a number, or the line of @labels equal to it; -1 when
 * it is neither. */
static gint
class_of (const gchar * entry, gchar ** labels, guint n_labels)
{
  guint64 v;
  guint i;

  if (g_ascii_string_to_unsigned (entry, 10, 0, G_MAXINT, &v, NULL))
    return (gint) v;
  for (i = 0; labels && i < n_labels; i++)
    if (g_str_equal (labels[i], entry))
      return (gint) i;
  return -1;
}

gboolean
gst_vkml_parse_class_list (const gchar * text, gchar ** labels,
    guint n_labels, GArray * out, gboolean * names_left, gchar ** why)
{
  gchar **parts;
  guint i;
  gboolean ok = TRUE;

  if (names_left)
    *names_left = FALSE;
  if (!text || !*text)
    return TRUE;
  parts = g_strsplit (text, ",", -1);
  for (i = 0; parts[i] && ok; i++) {
    gint c = class_of (g_strstrip (parts[i]), labels, n_labels);

    if (c >= 0)
      g_array_append_val (out, c);
    else if (!*parts[i])
      *why = g_strdup ("an empty entry");
    else if (!labels && names_left)
      *names_left = TRUE;
    else if (!labels)
      *why = g_strdup_printf ("\"%s\" is no class index, and there are no "
          "labels to find it in", parts[i]);
    else
      *why = g_strdup_printf ("no class is labelled \"%s\" (%u labels)",
          parts[i], n_labels);
    ok = c >= 0 || (!*why && *parts[i]);
  }
  g_strfreev (parts);
  return ok;
}

/* Float pixels to the ROI meta's unsigned ones: rounded, never negative. */
static guint
to_pixels (gfloat v)
{
  return v > 0 ? (guint) lroundf (v) : 0;
}

static GstVideoRegionOfInterestMeta *
attach_roi (GstBuffer * buf, const gchar * label, gfloat x0, gfloat y0,
    gfloat x1, gfloat y1, const gchar * param_name, gint class_id, gfloat score)
{
  guint x = to_pixels (x0), y = to_pixels (y0);
  guint xe = to_pixels (x1), ye = to_pixels (y1);
  GstVideoRegionOfInterestMeta *roi;

  roi = gst_buffer_add_video_region_of_interest_meta (buf, label, x, y,
      xe > x ? xe - x : 0, ye > y ? ye - y : 0);
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new (param_name, "label", G_TYPE_STRING, label,
          "class-id", G_TYPE_INT, class_id, "score", G_TYPE_FLOAT, score,
          NULL));
  return roi;
}

void
gst_vkml_add_object_classification (GstVideoRegionOfInterestMeta * roi,
    const gchar * label, gint class_id, gfloat score)
{
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new ("classification", "label", G_TYPE_STRING, label,
          "class-id", G_TYPE_INT, class_id, "score", G_TYPE_FLOAT, score,
          NULL));
}

#ifdef VKML_WITH_ANALYTICS
static GstAnalyticsRelationMeta *
relation_meta (GstBuffer * buf)
{
  GstAnalyticsRelationMeta *rmeta =
      gst_buffer_get_analytics_relation_meta (buf);

  return rmeta ? rmeta : gst_buffer_add_analytics_relation_meta (buf);
}
#endif

GstVideoRegionOfInterestMeta *
gst_vkml_attach_classification (GstBuffer * buf, const gchar * label,
    gint class_id, gfloat score, guint frame_width, guint frame_height)
{
#ifdef VKML_WITH_ANALYTICS
  GstAnalyticsRelationMeta *rmeta = relation_meta (buf);
  GstAnalyticsClsMtd cls;

  if (rmeta)
    gst_analytics_relation_meta_add_one_cls_mtd (rmeta, score,
        g_quark_from_string (label), &cls);
#endif
  return attach_roi (buf, label, 0, 0, frame_width, frame_height,
      "classification", class_id, score);
}

GstVideoRegionOfInterestMeta *
gst_vkml_attach_detection (GstBuffer * buf, const gchar * label,
    const GstVkmlDetection * d)
{
#ifdef VKML_WITH_ANALYTICS
  GstAnalyticsRelationMeta *rmeta = relation_meta (buf);
  GstAnalyticsODMtd od;

  if (rmeta)
    gst_analytics_relation_meta_add_od_mtd (rmeta, g_quark_from_string (label),
        (gint) to_pixels (d->x0), (gint) to_pixels (d->y0),
        (gint) to_pixels (d->x1 - d->x0), (gint) to_pixels (d->y1 - d->y0),
        d->score, &od);
#endif
  return attach_roi (buf, label, d->x0, d->y0, d->x1, d->y1, "detection",
      d->class_id, d->score);
}
