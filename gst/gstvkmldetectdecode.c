/* Detector output decoding: see gstvkmldetectdecode.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmldetectdecode.h"
#include "gstvkmldetecttorchvision.h"

#include <math.h>
#include <string.h>

/* YOLOX's output strides by default (its P3, P4 and P5 heads). */
static const guint yolox_strides[] = { 8, 16, 32 };

static const guint *
strides_of (const GstVkmlDetectParams * p, guint * n)
{
  *n = p->n_strides ? p->n_strides : G_N_ELEMENTS (yolox_strides);
  return p->n_strides ? p->strides : yolox_strides;
}

GType
gst_vkml_detect_format_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_VKML_DETECT_FORMAT_AUTO, "Choose by the tensors' shapes", "auto"},
    {GST_VKML_DETECT_FORMAT_YOLOV5, "YOLOv5: [1,N,5+C] with objectness",
        "yolov5"},
    {GST_VKML_DETECT_FORMAT_YOLOV8, "YOLOv8: [1,4+C,N], no objectness",
        "yolov8"},
    {GST_VKML_DETECT_FORMAT_YOLOX,
        "YOLOX raw head: [1,N,5+C], grid/stride decoding", "yolox"},
    {GST_VKML_DETECT_FORMAT_SSD,
          "SSD: boxes [1,N,4] + scores [1,N,C], or boxes/classes/scores/count",
        "ssd"},
    {GST_VKML_DETECT_FORMAT_TORCHVISION,
        "torchvision's detectors: boxes [N,4], labels [N], scores [N] (masks, "
          "keypoints)", "torchvision"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstVkmlDetectFormat", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

const gchar *
gst_vkml_detect_format_name (GstVkmlDetectFormat format)
{
  static const gchar *names[] = { "auto", "yolov5", "yolov8", "yolox", "ssd",
    "torchvision"
  };

  return (guint) format < G_N_ELEMENTS (names) ? names[format] : "unknown";
}

/* A float tensor mapped for reading. */
typedef struct
{
  const GstVkmlTensor *t;
  GstMapInfo map;
  const gfloat *v;
} Mapped;

static gboolean
map_tensor (Mapped * m, const GstVkmlTensor * t)
{
  m->t = t;
  if (t->dtype != VKML_DTYPE_FLOAT || !gst_buffer_map (t->data, &m->map,
          GST_MAP_READ)) {
    m->t = NULL;
    return FALSE;
  }
  m->v = (const gfloat *) m->map.data;
  return TRUE;
}

static void
unmap_tensor (Mapped * m)
{
  if (m->t)
    gst_buffer_unmap (m->t->data, &m->map);
  m->t = NULL;
}

gboolean
gst_vkml_detect_class_allowed (const GstVkmlDetectParams * p, gint class_id)
{
  guint i;

  if (class_id == p->background_class && p->background_class >= 0)
    return FALSE;
  if (p->n_classes == 0)
    return TRUE;
  for (i = 0; i < p->n_classes; i++) {
    if (p->classes[i] == class_id)
      return TRUE;
  }
  return FALSE;
}

/* The best allowed class of @n scores @stride apart; -1 when none is allowed. */
static gint
best_class (const GstVkmlDetectParams * p, const gfloat * scores, gsize n,
    gsize stride, gfloat * best)
{
  gint idx = -1;
  gsize c;

  for (c = 0; c < n && c <= G_MAXINT; c++) {
    gfloat s = scores[c * stride];

    if (gst_vkml_detect_class_allowed (p, (gint) c) && (idx < 0 || s > *best)) {
      idx = (gint) c;
      *best = s;
    }
  }
  return idx;
}

static void
add_detection (GArray * out, const GstVkmlDetectParams * p, gfloat x0,
    gfloat y0, gfloat x1, gfloat y1, gfloat score, gint class_id)
{
  GstVkmlDetection d = { x0, y0, x1, y1, score, class_id, -1 };

  if (class_id < 0 || !(score >= p->score_threshold) || !isfinite (x0)
      || !isfinite (y0) || !isfinite (x1) || !isfinite (y1))
    return;
  g_array_append_val (out, d);
}

static void
add_centre_box (GArray * out, const GstVkmlDetectParams * p, gfloat cx,
    gfloat cy, gfloat w, gfloat h, gfloat score, gint class_id)
{
  add_detection (out, p, cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2,
      score, class_id);
}

static gboolean
is_shape3 (const GstVkmlTensor * t, gint64 last)
{
  return t->rank == 3 && t->dims[0] == 1 && (last < 0 || t->dims[2] == last);
}

/* Fills @cells with the (x, y, stride) of each of YOLOX's N anchor points over a
 * @w x @h input, in its output order; FALSE when they are not N. */
static gboolean
yolox_grid (const GstVkmlDetectParams * p, guint w, guint h, gsize n,
    gfloat * cells)
{
  guint n_strides, i;
  const guint *strides = strides_of (p, &n_strides);
  gsize k = 0;

  for (i = 0; i < n_strides; i++) {
    guint s = strides[i], gw = w / s, gh = h / s, x, y;

    for (y = 0; y < gh; y++) {
      for (x = 0; x < gw; x++) {
        if (k >= n)
          return FALSE;
        cells[3 * k] = x;
        cells[3 * k + 1] = y;
        cells[3 * k + 2] = s;
        k++;
      }
    }
  }
  return k == n;
}

/* YOLOX's grid for @n anchors: over the input size, else over the square input that
 * has n anchors (n = S*S * the sum of 1/stride^2: 21/1024 for 8, 16, 32). */
static gfloat *
yolox_cells (const GstVkmlDetectParams * p, gsize n, gchar ** error)
{
  gfloat *cells = g_new (gfloat, 3 * n);
  guint n_strides, i;
  const guint *strides = strides_of (p, &n_strides);
  gdouble per_pixel = 0;
  guint side;
  GString *list = g_string_new (NULL);

  for (i = 0; i < n_strides; i++)
    per_pixel += 1.0 / ((gdouble) strides[i] * strides[i]);
  side = (guint) (sqrt ((gdouble) n / per_pixel) + 0.5);
  if ((p->input_width && yolox_grid (p, p->input_width, p->input_height, n,
              cells)) || yolox_grid (p, side, side, n, cells)) {
    g_string_free (list, TRUE);
    return cells;
  }
  g_free (cells);
  for (i = 0; i < n_strides; i++)
    g_string_append_printf (list, "%s%u", i ? ", " : "", strides[i]);
  *error = g_strdup_printf ("yolox: %" G_GSIZE_FORMAT " anchors fit neither "
      "the %ux%u input nor a square one (strides %s)", n,
      p->input_width, p->input_height, list->str);
  g_string_free (list, TRUE);
  return NULL;
}

/* [1,N,5+C] (YOLOv5, YOLOX): rows of cx,cy,w,h, objectness, C class scores. */
static gboolean
decode_rows (const GstVkmlTensor * t, const GstVkmlDetectParams * p,
    gboolean yolox, GArray * out, gchar ** error)
{
  gsize n = (gsize) t->dims[1], row = (gsize) t->dims[2], i;
  gfloat *cells = NULL;
  Mapped m;

  if (yolox && !(cells = yolox_cells (p, n, error)))
    return FALSE;
  if (!map_tensor (&m, t)) {
    g_free (cells);
    *error = g_strdup_printf ("tensor '%s' cannot be read as float", t->name);
    return FALSE;
  }
  for (i = 0; i < n; i++) {
    const gfloat *r = m.v + i * row;
    gfloat best = 0, cx = r[0], cy = r[1], w = r[2], h = r[3];
    gint c = best_class (p, r + 5, row - 5, 1, &best);

    if (cells) {
      cx = (cx + cells[3 * i]) * cells[3 * i + 2];
      cy = (cy + cells[3 * i + 1]) * cells[3 * i + 2];
      w = expf (w) * cells[3 * i + 2];
      h = expf (h) * cells[3 * i + 2];
    }
    add_centre_box (out, p, cx, cy, w, h, r[4] * best, c);
  }
  unmap_tensor (&m);
  g_free (cells);
  return TRUE;
}

/* [1,4+C,N] (YOLOv8): channel-major, no objectness. */
static gboolean
decode_columns (const GstVkmlTensor * t, const GstVkmlDetectParams * p,
    GArray * out, gchar ** error)
{
  gsize rows = (gsize) t->dims[1], n = (gsize) t->dims[2], i;
  Mapped m;

  if (!map_tensor (&m, t)) {
    *error = g_strdup_printf ("tensor '%s' cannot be read as float", t->name);
    return FALSE;
  }
  for (i = 0; i < n; i++) {
    const gfloat *c0 = m.v + i;
    gfloat best = 0;
    gint c = best_class (p, c0 + 4 * n, rows - 4, n, &best);

    add_centre_box (out, p, c0[0], c0[n], c0[2 * n], c0[3 * n], best, c);
  }
  unmap_tensor (&m);
  return TRUE;
}

/* The tensor whose name contains @word, else @fallback. */
static const GstVkmlTensor *
by_name_or (const GstVkmlTensorMeta * meta, const gchar * word,
    const GstVkmlTensor * fallback)
{
  guint i;

  for (i = 0; i < meta->n_tensors; i++) {
    if (strstr (meta->tensors[i].name, word))
      return &meta->tensors[i];
  }
  return fallback;
}

/* boxes [1,N,4] (x0,y0,x1,y1, 0..1) + scores [1,N,C]. */
static gboolean
decode_ssd2 (const GstVkmlTensor * boxes, const GstVkmlTensor * scores,
    const GstVkmlDetectParams * p, GArray * out)
{
  gsize n = (gsize) boxes->dims[1], nc = (gsize) scores->dims[2], i;
  gfloat w = p->input_width, h = p->input_height;
  Mapped mb, ms;

  if (!map_tensor (&mb, boxes))
    return FALSE;
  if (!map_tensor (&ms, scores)) {
    unmap_tensor (&mb);
    return FALSE;
  }
  for (i = 0; i < n; i++) {
    const gfloat *b = mb.v + 4 * i;
    gfloat best = 0;
    gint c = best_class (p, ms.v + nc * i, nc, 1, &best);

    add_detection (out, p, b[0] * w, b[1] * h, b[2] * w, b[3] * h, best, c);
  }
  unmap_tensor (&ms);
  unmap_tensor (&mb);
  return TRUE;
}

/* TF's four outputs: boxes [1,M,4] (y0,x0,y1,x1, 0..1), classes [1,M], scores [1,M],
 * count [1]; the first count entries are valid. */
static gboolean
decode_ssd4 (const GstVkmlTensor * boxes, const GstVkmlTensor * classes,
    const GstVkmlTensor * scores, const GstVkmlTensor * count,
    const GstVkmlDetectParams * p, GArray * out)
{
  gsize n = (gsize) boxes->dims[1], i;
  gfloat w = p->input_width, h = p->input_height;
  Mapped m[4] = { 0 };
  const GstVkmlTensor *ts[4] = { boxes, classes, scores, count };
  gboolean ok = TRUE;

  for (i = 0; i < 4; i++)
    ok = ok && map_tensor (&m[i], ts[i]);
  if (ok) {
    gfloat c = m[3].v[0];

    if (c >= 0 && c < n)
      n = (gsize) c;
    for (i = 0; i < n; i++) {
      const gfloat *b = m[0].v + 4 * i;
      gfloat cls = m[1].v[i];
      gint id = (cls >= 0 && cls < G_MAXINT) ? (gint) cls : -1;

      if (id >= 0 && gst_vkml_detect_class_allowed (p, id))
        add_detection (out, p, b[1] * w, b[0] * h, b[3] * w, b[2] * h,
            m[2].v[i], id);
    }
  }
  for (i = 0; i < 4; i++)
    unmap_tensor (&m[i]);
  return ok;
}

/* Picks the SSD form by the tensors' shapes and decodes it. */
static gboolean
decode_ssd (const GstVkmlTensorMeta * meta, const GstVkmlDetectParams * p,
    GArray * out, gchar ** error)
{
  const GstVkmlTensor *boxes = NULL, *scores = NULL, *classes = NULL,
      *count = NULL;
  const GstVkmlTensor *pair[2] = { NULL, NULL };
  guint i, n_pair = 0;

  for (i = 0; i < meta->n_tensors; i++) {
    const GstVkmlTensor *t = &meta->tensors[i];

    if (is_shape3 (t, 4) && !boxes)
      boxes = t;
    else if (t->rank == 3 && t->dims[0] == 1)
      scores = t;
    else if (gst_vkml_tensor_element_count (t) == 1 && !count)
      count = t;
    else if (t->rank == 2 && t->dims[0] == 1 && n_pair < 2)
      pair[n_pair++] = t;
  }
  if (boxes && scores && scores->dims[1] == boxes->dims[1]
      && scores->dims[2] > 0) {
    boxes = by_name_or (meta, "box", boxes);
    if (decode_ssd2 (boxes, scores, p, out))
      return TRUE;
  } else if (boxes && count && n_pair == 2 && pair[0]->dims[1] == boxes->dims[1]
      && pair[1]->dims[1] == boxes->dims[1]) {
    /* TF's order is boxes, classes, scores, count; names win when they say. */
    classes = strstr (pair[1]->name, "class") ? pair[1] : pair[0];
    scores = classes == pair[0] ? pair[1] : pair[0];
    if (decode_ssd4 (boxes, classes, scores, count, p, out))
      return TRUE;
  }
  *error = g_strdup ("ssd: expected float boxes [1,N,4] with scores [1,N,C], "
      "or boxes [1,N,4], classes [1,N], scores [1,N] and count [1]");
  return FALSE;
}

/* Auto: one [1,A,B] tensor is YOLOv5 when A > B (N rows of 5+C), YOLOv8 when B > A;
 * several tensors with a [1,N,4] one are SSD. */
static GstVkmlDetectFormat
guess_format (const GstVkmlTensorMeta * meta)
{
  const GstVkmlTensor *t = gst_vkml_tensor_meta_get (meta, 0);
  GstVkmlTorchvisionTensors tv;

  if (gst_vkml_torchvision_tensors (meta, &tv))
    return GST_VKML_DETECT_FORMAT_TORCHVISION;
  if (meta->n_tensors >= 2)
    return GST_VKML_DETECT_FORMAT_SSD;
  if (t && is_shape3 (t, -1) && t->dims[1] > t->dims[2] && t->dims[2] >= 6)
    return GST_VKML_DETECT_FORMAT_YOLOV5;
  if (t && is_shape3 (t, -1) && t->dims[2] > t->dims[1] && t->dims[1] >= 5)
    return GST_VKML_DETECT_FORMAT_YOLOV8;
  return GST_VKML_DETECT_FORMAT_AUTO;
}

/* A YOLO format asked for against a tensor of the other YOLO layout (rows of 5+C
 * against channel-major 4+C), whose scores would come out as coordinates: FALSE and
 * @error naming the tensor and the format that fits. */
static gboolean
yolo_layout_fits (const GstVkmlTensorMeta * meta, GstVkmlDetectFormat f,
    gchar ** error)
{
  GstVkmlDetectFormat fits = guess_format (meta);
  gboolean rows = f == GST_VKML_DETECT_FORMAT_YOLOV5
      || f == GST_VKML_DETECT_FORMAT_YOLOX;
  gchar *have;

  if (!(rows && fits == GST_VKML_DETECT_FORMAT_YOLOV8)
      && !(f == GST_VKML_DETECT_FORMAT_YOLOV8
          && fits == GST_VKML_DETECT_FORMAT_YOLOV5))
    return TRUE;
  have = gst_vkml_tensor_meta_describe (meta);
  *error =
      g_strdup_printf ("%s expects %s, but the tensor is %s, which is %s's "
      "layout (%s): use format=%s or auto", gst_vkml_detect_format_name (f),
      rows ? "[1,N,5+C] (a row per box)" : "[1,4+C,N] (a column per box)", have,
      gst_vkml_detect_format_name (fits),
      rows ? "more columns than rows" : "more rows than columns",
      gst_vkml_detect_format_name (fits));
  g_free (have);
  return FALSE;
}

gboolean
gst_vkml_detect_decode (const GstVkmlTensorMeta * meta,
    const GstVkmlDetectParams * params, GArray * out,
    GstVkmlDetectFormat * chosen, gchar ** error)
{
  GstVkmlDetectFormat f = params->format;
  const GstVkmlTensor *t = gst_vkml_tensor_meta_get (meta, 0);
  gboolean ok = FALSE;
  gchar *why = NULL, *have;

  if (f == GST_VKML_DETECT_FORMAT_AUTO)
    f = guess_format (meta);
  *chosen = f;
  if (!yolo_layout_fits (meta, f, error))
    return FALSE;
  switch (f) {
    case GST_VKML_DETECT_FORMAT_YOLOV5:
    case GST_VKML_DETECT_FORMAT_YOLOX:
      if (t && is_shape3 (t, -1) && t->dims[2] >= 6 && t->dims[1] >= 0)
        ok = decode_rows (t, params, f == GST_VKML_DETECT_FORMAT_YOLOX, out,
            &why);
      else
        why = g_strdup_printf ("%s: expected one float tensor [1,N,5+C]",
            gst_vkml_detect_format_name (f));
      break;
    case GST_VKML_DETECT_FORMAT_YOLOV8:
      if (t && is_shape3 (t, -1) && t->dims[1] >= 5 && t->dims[2] >= 0)
        ok = decode_columns (t, params, out, &why);
      else
        why = g_strdup ("yolov8: expected one float tensor [1,4+C,N]");
      break;
    case GST_VKML_DETECT_FORMAT_SSD:
      ok = decode_ssd (meta, params, out, &why);
      break;
    case GST_VKML_DETECT_FORMAT_TORCHVISION:{
      GstVkmlTorchvisionTensors tv;

      ok = gst_vkml_torchvision_tensors (meta, &tv)
          && gst_vkml_torchvision_decode (&tv, params, out);
      if (!ok)
        why = g_strdup ("torchvision: expected float boxes [N,4], int64 "
            "labels [N] and float scores [N]");
      break;
    }
    default:
      why = g_strdup ("auto: no known detector layout (yolov5 [1,N,5+C], "
          "yolov8 [1,4+C,N], ssd boxes [1,N,4] + scores, torchvision boxes [N,4] + "
          "labels [N] + scores [N])");
      break;
  }
  if (!ok) {
    have = gst_vkml_tensor_meta_describe (meta);
    *error = g_strdup_printf ("%s; the tensors are: %s", why, have);
    g_free (have);
  }
  g_free (why);
  return ok;
}

static gint
by_score_desc (gconstpointer a, gconstpointer b)
{
  const GstVkmlDetection *da = a, *db = b;

  return (da->score < db->score) - (da->score > db->score);
}

static gfloat
iou (const GstVkmlDetection * a, const GstVkmlDetection * b)
{
  gfloat iw = MIN (a->x1, b->x1) - MAX (a->x0, b->x0);
  gfloat ih = MIN (a->y1, b->y1) - MAX (a->y0, b->y0);
  gfloat inter, uni;

  if (iw <= 0 || ih <= 0)
    return 0;
  inter = iw * ih;
  uni = (a->x1 - a->x0) * (a->y1 - a->y0) + (b->x1 - b->x0) * (b->y1 - b->y0)
      - inter;
  return uni > 0 ? inter / uni : 0;
}

void
gst_vkml_detect_nms (GArray * dets, gfloat iou_threshold, guint max_detections)
{
  guint i, j, kept = 0;

  g_array_sort (dets, by_score_desc);   /* stable: ties keep their order */
  for (i = 0; i < dets->len; i++) {
    const GstVkmlDetection *d = &g_array_index (dets, GstVkmlDetection, i);
    gboolean keep = TRUE;

    for (j = 0; j < kept && keep; j++) {
      const GstVkmlDetection *k = &g_array_index (dets, GstVkmlDetection, j);

      keep = k->class_id != d->class_id || iou (k, d) <= iou_threshold;
    }
    if (keep)
      g_array_index (dets, GstVkmlDetection, kept++) = *d;
  }
  if (max_detections && kept > max_detections)
    kept = max_detections;
  g_array_set_size (dets, kept);
}

void
gst_vkml_detect_map_point (const GstVkmlInputGeometry * g, guint frame_width,
    guint frame_height, gboolean to_input, gfloat * x, gfloat * y)
{
  /* The frame the model saw, scaled since (videoscale between vkmlinfer and here):
   * its pixels onto this frame's. */
  gdouble kx = g && g->frame_width ? (gdouble) frame_width / g->frame_width : 1;
  gdouble ky = g && g->frame_height ? (gdouble) frame_height /
      g->frame_height : 1;

  if (!g || !(g->scale_x > 0) || !(g->scale_y > 0))
    return;
  if (to_input) {
    *x = (gfloat) (*x / kx * g->scale_x + g->offset_x);
    *y = (gfloat) (*y / ky * g->scale_y + g->offset_y);
  } else {
    *x = (gfloat) ((*x - g->offset_x) / g->scale_x * kx);
    *y = (gfloat) ((*y - g->offset_y) / g->scale_y * ky);
  }
}

void
gst_vkml_detect_map_to_frame (GArray * dets,
    const GstVkmlInputGeometry * g, guint frame_width, guint frame_height)
{
  guint i, kept = 0;

  for (i = 0; i < dets->len; i++) {
    GstVkmlDetection d = g_array_index (dets, GstVkmlDetection, i);

    gst_vkml_detect_map_point (g, frame_width, frame_height, FALSE, &d.x0,
        &d.y0);
    gst_vkml_detect_map_point (g, frame_width, frame_height, FALSE, &d.x1,
        &d.y1);
    d.x0 = CLAMP (d.x0, 0, (gfloat) frame_width);
    d.x1 = CLAMP (d.x1, 0, (gfloat) frame_width);
    d.y0 = CLAMP (d.y0, 0, (gfloat) frame_height);
    d.y1 = CLAMP (d.y1, 0, (gfloat) frame_height);
    if (d.x1 > d.x0 && d.y1 > d.y0)
      g_array_index (dets, GstVkmlDetection, kept++) = d;
  }
  g_array_set_size (dets, kept);
}
