/* torchvision's detectors: see gstvkmldetecttorchvision.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmldetecttorchvision.h"

#include <math.h>
#include <string.h>

static gboolean
is_rows (const GstVkmlTensor * t, vkml_dtype dtype, guint rank, gint64 last)
{
  return t && t->dtype == dtype && t->rank == rank && t->dims[0] >= 0
      && (last < 0 || t->dims[rank - 1] == last);
}

/* The tensor named @name, else the first of type @dtype and rank @rank (last dim @last
 * when >= 0) not already taken in @taken. */
static const GstVkmlTensor *
pick (const GstVkmlTensorMeta * meta, const gchar * name, vkml_dtype dtype,
    guint rank, gint64 last, const GstVkmlTensor * const *taken, guint n_taken)
{
  const GstVkmlTensor *t = gst_vkml_tensor_meta_get_by_name (meta, name);
  guint i, k;

  if (t)
    return is_rows (t, dtype, rank, last) ? t : NULL;
  for (i = 0; i < meta->n_tensors; i++) {
    gboolean used = FALSE;

    t = &meta->tensors[i];
    for (k = 0; k < n_taken; k++)
      used = used || taken[k] == t;
    if (!used && is_rows (t, dtype, rank, last))
      return t;
  }
  return NULL;
}

gboolean
gst_vkml_torchvision_tensors (const GstVkmlTensorMeta * meta,
    GstVkmlTorchvisionTensors * out)
{
  const GstVkmlTensor *taken[4];
  gint64 n;

  memset (out, 0, sizeof (*out));
  out->boxes = pick (meta, "boxes", VKML_DTYPE_FLOAT, 2, 4, NULL, 0);
  out->labels = pick (meta, "labels", VKML_DTYPE_INT64, 1, -1, NULL, 0);
  taken[0] = out->boxes;
  out->scores = pick (meta, "scores", VKML_DTYPE_FLOAT, 1, -1, taken, 1);
  if (!out->boxes || !out->labels || !out->scores)
    return FALSE;
  n = out->boxes->dims[0];
  if (out->labels->dims[0] != n || out->scores->dims[0] != n)
    return FALSE;
  taken[1] = out->scores;
  out->masks = pick (meta, "masks", VKML_DTYPE_FLOAT, 4, -1, taken, 2);
  out->keypoints = pick (meta, "keypoints", VKML_DTYPE_FLOAT, 3, 3, taken, 2);
  taken[2] = out->keypoints;
  taken[3] = out->masks;
  out->keypoint_scores = pick (meta, "keypoints_scores", VKML_DTYPE_FLOAT, 2,
      -1, taken, 4);
  if (out->masks && (out->masks->dims[0] != n || out->masks->dims[1] != 1))
    out->masks = NULL;
  if (out->keypoints && out->keypoints->dims[0] != n)
    out->keypoints = NULL;
  if (!out->keypoints || (out->keypoint_scores
          && (out->keypoint_scores->dims[0] != n
              || out->keypoint_scores->dims[1] != out->keypoints->dims[1])))
    out->keypoint_scores = NULL;
  return TRUE;
}

/* A tensor mapped for reading, its bytes at least @t's element count of @size. */
static gboolean
map_read (const GstVkmlTensor * t, gsize size, GstMapInfo * map)
{
  if (!gst_buffer_map (t->data, map, GST_MAP_READ))
    return FALSE;
  if (map->size / size >= gst_vkml_tensor_element_count (t))
    return TRUE;
  gst_buffer_unmap (t->data, map);
  return FALSE;
}

gboolean
gst_vkml_torchvision_decode (const GstVkmlTorchvisionTensors * t,
    const GstVkmlDetectParams * p, GArray * out)
{
  GstMapInfo mb, ml, ms;
  gsize n = (gsize) t->boxes->dims[0], i;

  if (!map_read (t->boxes, sizeof (gfloat), &mb))
    return FALSE;
  if (!map_read (t->labels, sizeof (gint64), &ml)) {
    gst_buffer_unmap (t->boxes->data, &mb);
    return FALSE;
  }
  if (!map_read (t->scores, sizeof (gfloat), &ms)) {
    gst_buffer_unmap (t->labels->data, &ml);
    gst_buffer_unmap (t->boxes->data, &mb);
    return FALSE;
  }
  for (i = 0; i < n && i <= G_MAXINT; i++) {
    const gfloat *b = (const gfloat *) mb.data + 4 * i;
    gint64 label = ((const gint64 *) ml.data)[i];
    GstVkmlDetection d = { b[0], b[1], b[2], b[3],
      ((const gfloat *) ms.data)[i], (gint) label, (gint) i
    };

    if (label >= 0 && label <= G_MAXINT
        && gst_vkml_detect_class_allowed (p, (gint) label)
        && d.score >= p->score_threshold && isfinite (d.x0) && isfinite (d.y0)
        && isfinite (d.x1)
        && isfinite (d.y1))
      g_array_append_val (out, d);
  }
  gst_buffer_unmap (t->scores->data, &ms);
  gst_buffer_unmap (t->labels->data, &ml);
  gst_buffer_unmap (t->boxes->data, &mb);
  return TRUE;
}

void
gst_vkml_torchvision_attach_mask (GstVideoRegionOfInterestMeta * roi,
    const GstVkmlTorchvisionTensors * t, const GstVkmlDetection * d,
    const GstVkmlInputGeometry * g, guint frame_width, guint frame_height)
{
  const GstVkmlTensor *m = t->masks;
  gsize mh, mw, plane;
  guint8 *bytes;
  guint x, y;
  GstMapInfo map;

  if (!m || d->row < 0 || d->row >= m->dims[0] || roi->w == 0 || roi->h == 0
      || !map_read (m, sizeof (gfloat), &map))
    return;
  mh = (gsize) m->dims[2];
  mw = (gsize) m->dims[3];
  plane = mh * mw;
  bytes = g_malloc0 ((gsize) roi->w * roi->h);
  for (y = 0; y < roi->h; y++) {
    for (x = 0; x < roi->w; x++) {
      gfloat ix = roi->x + x + 0.5f, iy = roi->y + y + 0.5f, v;

      gst_vkml_detect_map_point (g, frame_width, frame_height, TRUE, &ix, &iy);
      if (!(ix >= 0 && iy >= 0 && ix < mw && iy < mh))
        continue;
      v = ((const gfloat *) map.data)[(gsize) d->row * plane
          + (gsize) iy * mw + (gsize) ix];
      bytes[(gsize) y * roi->w + x] = (guint8) (CLAMP (v, 0.0f, 1.0f) * 255.0f
          + 0.5f);
    }
  }
  gst_buffer_unmap (m->data, &map);
  gst_video_region_of_interest_meta_add_param (roi, gst_structure_new ("mask",
          "width", G_TYPE_UINT, roi->w, "height", G_TYPE_UINT, roi->h,
          "data", G_TYPE_BYTES, g_bytes_new_take (bytes,
              (gsize) roi->w * roi->h), NULL));
}

static void
append_float (GValue * array, gfloat v)
{
  GValue f = G_VALUE_INIT;

  g_value_init (&f, G_TYPE_FLOAT);
  g_value_set_float (&f, v);
  gst_value_array_append_and_take_value (array, &f);
}

void
gst_vkml_torchvision_attach_keypoints (GstVideoRegionOfInterestMeta * roi,
    const GstVkmlTorchvisionTensors * t, const GstVkmlDetection * d,
    const GstVkmlInputGeometry * g, guint frame_width, guint frame_height)
{
  const GstVkmlTensor *kp = t->keypoints, *ks = t->keypoint_scores;
  GValue xs = G_VALUE_INIT, ys = G_VALUE_INIT, scores = G_VALUE_INIT;
  GstMapInfo mk, msc;
  GstStructure *s;
  gsize k, n;

  if (!kp || d->row < 0 || d->row >= kp->dims[0]
      || !map_read (kp, sizeof (gfloat), &mk))
    return;
  if (ks && !map_read (ks, sizeof (gfloat), &msc))
    ks = NULL;
  n = (gsize) kp->dims[1];
  g_value_init (&xs, GST_TYPE_ARRAY);
  g_value_init (&ys, GST_TYPE_ARRAY);
  g_value_init (&scores, GST_TYPE_ARRAY);
  for (k = 0; k < n; k++) {
    const gfloat *p = (const gfloat *) mk.data + ((gsize) d->row * n + k) * 3;
    gfloat x = p[0], y = p[1];

    gst_vkml_detect_map_point (g, frame_width, frame_height, FALSE, &x, &y);
    append_float (&xs, x);
    append_float (&ys, y);
    append_float (&scores, ks ? ((const gfloat *) msc.data)[(gsize) d->row * n
            + k] : p[2]);
  }
  if (ks)
    gst_buffer_unmap (ks->data, &msc);
  gst_buffer_unmap (kp->data, &mk);
  s = gst_structure_new_empty ("keypoints");
  gst_structure_take_value (s, "x", &xs);
  gst_structure_take_value (s, "y", &ys);
  gst_structure_take_value (s, "score", &scores);
  gst_video_region_of_interest_meta_add_param (roi, s);
}
