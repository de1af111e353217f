/**
 * SECTION:element-vkmloverlay
 * @title: vkmloverlay
 *
 * Draws every #GstVideoRegionOfInterestMeta of a frame onto it, in place: the box as a
 * 1-3 pixel outline in its class's colour, and its label (the roi_type) on a tag of
 * that colour above the box. The class is the "class-id" of the ROI's "detection" or
 * "classification" parameter (vkmldetect, vkmlclassify set it), else a hash of the
 * label. A "classification" ROI (the whole frame) gets its label at the top-left
 * corner and no box. An object's ROI that also has a "classification" parameter
 * (vkmlclassify after vkmlinfer roi=objects) gets it after its label: "car: red 0.93";
 * a tracked object (vkmltrack) its track id before: "#3 car: red 0.93".
 * An ROI with a "mask" parameter (vkmldetect on Mask R-CNN) gets the pixels of its mask
 * (value >= 128 of 255) filled half-transparent in its colour, under the outline; one
 * with "keypoints" (Keypoint R-CNN) a dot, 2 x thickness + 1 pixels square, at each
 * keypoint.
 * Labels are drawn with Pango/Cairo when the plugin was built
 * with pangocairo; without it only the boxes are drawn.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=5 ! video/x-raw,format=RGB,width=320,height=240 ! \
 *     vkmlinfer model=detector.onnx ! vkmldetect ! vkmloverlay ! pngenc ! \
 *     multifilesink location=frame-%02d.png
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmloverlay.h"

#include <gst/video/video.h>
#include <math.h>

#ifdef HAVE_PANGOCAIRO
#include <pango/pangocairo.h>
#endif

GST_DEBUG_CATEGORY_STATIC (gst_vkml_overlay_debug);
#define GST_CAT_DEFAULT gst_vkml_overlay_debug

#define DEFAULT_THICKNESS 2
#define MAX_THICKNESS 16
#define DEFAULT_DRAW_LABELS TRUE
#define LABEL_FONT "Sans 9"
/* Mask fill: the share of the class colour in a masked pixel, out of 256. */
#define MASK_ALPHA 128
/* Mask samples at or above this (of 255) are inside the object. */
#define MASK_INSIDE 128
/* Rendered tags kept per (label, colour); the cache is emptied when it reaches this. */
#define MAX_CACHED_TAGS 256

enum
{
  PROP_0,
  PROP_THICKNESS,
  PROP_DRAW_LABELS,
};

struct _GstVkmlOverlay
{
  GstVideoFilter parent;

  /* properties, under the object lock */
  guint thickness;
  gboolean draw_labels;

#ifdef HAVE_PANGOCAIRO
  /* from start() to stop() */
  PangoFontMap *font_map;
  PangoContext *pango;
  GHashTable *tags;             /* "R,G,B:label" -> Tag: Pango runs once per label */
#endif
};

#define OVERLAY_CAPS GST_VIDEO_CAPS_MAKE ("{ RGB, BGR, RGBA, BGRA, RGBx, BGRx, " \
    "xRGB, xBGR, ARGB, ABGR, NV12, I420 }")

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (OVERLAY_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (OVERLAY_CAPS));

#define gst_vkml_overlay_parent_class parent_class
G_DEFINE_TYPE (GstVkmlOverlay, gst_vkml_overlay, GST_TYPE_VIDEO_FILTER);
GST_ELEMENT_REGISTER_DEFINE (vkmloverlay, "vkmloverlay", GST_RANK_NONE,
    GST_TYPE_VKML_OVERLAY);

static void gst_vkml_overlay_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_vkml_overlay_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static gboolean gst_vkml_overlay_start (GstBaseTransform * trans);
static gboolean gst_vkml_overlay_stop (GstBaseTransform * trans);
static GstFlowReturn gst_vkml_overlay_transform_frame_ip (GstVideoFilter *
    filter, GstVideoFrame * frame);

static void
gst_vkml_overlay_class_init (GstVkmlOverlayClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (klass);

  gobject_class->set_property = gst_vkml_overlay_set_property;
  gobject_class->get_property = gst_vkml_overlay_get_property;

  g_object_class_install_property (gobject_class, PROP_THICKNESS,
      g_param_spec_uint ("thickness", "Thickness",
          "Width of the box outlines in pixels, drawn inside the box", 1,
          MAX_THICKNESS, DEFAULT_THICKNESS, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_DRAW_LABELS,
      g_param_spec_boolean ("draw-labels", "Draw labels",
          "Draw each box's label above it (needs the plugin built with "
          "pangocairo)", DEFAULT_DRAW_LABELS, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "vkml overlay", "Filter/Effect/Video",
      "Draws the boxes and labels of the frame's GstVideoRegionOfInterestMeta",
      "vkml developers");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_vkml_overlay_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_vkml_overlay_stop);
  filter_class->transform_frame_ip =
      GST_DEBUG_FUNCPTR (gst_vkml_overlay_transform_frame_ip);

  GST_DEBUG_CATEGORY_INIT (gst_vkml_overlay_debug, "vkmloverlay", 0,
      "vkml overlay");
}

static void
gst_vkml_overlay_init (GstVkmlOverlay * self)
{
  self->thickness = DEFAULT_THICKNESS;
  self->draw_labels = DEFAULT_DRAW_LABELS;
}

static void
gst_vkml_overlay_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstVkmlOverlay *self = GST_VKML_OVERLAY (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_THICKNESS:
      self->thickness = g_value_get_uint (value);
      break;
    case PROP_DRAW_LABELS:
      self->draw_labels = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_vkml_overlay_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstVkmlOverlay *self = GST_VKML_OVERLAY (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_THICKNESS:
      g_value_set_uint (value, self->thickness);
      break;
    case PROP_DRAW_LABELS:
      g_value_set_boolean (value, self->draw_labels);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static gboolean
gst_vkml_overlay_start (G_GNUC_UNUSED GstBaseTransform * trans)
{
#ifdef HAVE_PANGOCAIRO
  GstVkmlOverlay *self = GST_VKML_OVERLAY (trans);

  PangoFontFamily **families = NULL;
  int n_families = 0;

  self->font_map = pango_cairo_font_map_new ();
  /* A machine with no font configured (no fontconfig file, no fonts) cannot lay out
   * text; Pango then fails inside rendering. Draw the boxes alone and say why. */
  pango_font_map_list_families (self->font_map, &families, &n_families);
  g_free (families);
  if (n_families > 0)
    self->pango = pango_font_map_create_context (self->font_map);
  else
    GST_ELEMENT_WARNING (self, RESOURCE, NOT_FOUND,
        ("no fonts found (fontconfig): labels are not drawn, only the boxes"),
        (NULL));
  self->tags = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
#endif
  return TRUE;
}

static gboolean
gst_vkml_overlay_stop (G_GNUC_UNUSED GstBaseTransform * trans)
{
#ifdef HAVE_PANGOCAIRO
  GstVkmlOverlay *self = GST_VKML_OVERLAY (trans);

  g_clear_object (&self->pango);
  g_clear_object (&self->font_map);
  g_clear_pointer (&self->tags, g_hash_table_unref);
#endif
  return TRUE;
}

void
gst_vkml_overlay_class_colour (gint class_id, guint8 rgb[3])
{
  /* Distinct, saturated colours (Tableau 10). */
  static const guint8 palette[][3] = {
    {31, 119, 180}, {255, 127, 14}, {44, 160, 44}, {214, 39, 40},
    {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {127, 127, 127},
    {188, 189, 34}, {23, 190, 207},
  };
  guint i = (guint) ABS (class_id) % G_N_ELEMENTS (palette);

  rgb[0] = palette[i][0];
  rgb[1] = palette[i][1];
  rgb[2] = palette[i][2];
}

/* A colour in the frame's own terms: R,G,B or Y,U,V (BT.601, limited range), as the
 * values of the frame's components 0, 1 and 2. */
typedef struct
{
  guint8 c[3];
} Ink;

/* Where components 0, 1 and 2 of a mapped frame are, looked up once per frame. Every
 * listed format has 8-bit components, so one path serves packed and planar. */
typedef struct
{
  guint8 *data[3];
  gint stride[3], pstride[3];
  guint wsub[3], hsub[3];
  gint width, height;
  gboolean yuv;
} Canvas;

static void
canvas_init (Canvas * cv, GstVideoFrame * frame)
{
  guint c;

  for (c = 0; c < 3; c++) {
    cv->data[c] = GST_VIDEO_FRAME_COMP_DATA (frame, c);
    cv->stride[c] = GST_VIDEO_FRAME_COMP_STRIDE (frame, c);
    cv->pstride[c] = GST_VIDEO_FRAME_COMP_PSTRIDE (frame, c);
    cv->wsub[c] = GST_VIDEO_FORMAT_INFO_W_SUB (frame->info.finfo, c);
    cv->hsub[c] = GST_VIDEO_FORMAT_INFO_H_SUB (frame->info.finfo, c);
  }
  cv->width = GST_VIDEO_FRAME_WIDTH (frame);
  cv->height = GST_VIDEO_FRAME_HEIGHT (frame);
  cv->yuv = GST_VIDEO_INFO_IS_YUV (&frame->info);
}

static Ink
ink_for (const Canvas * cv, const guint8 rgb[3])
{
  Ink ink = { {rgb[0], rgb[1], rgb[2]} };
  gint r = rgb[0], g = rgb[1], b = rgb[2];

  if (cv->yuv) {
    ink.c[0] = (guint8) CLAMP ((66 * r + 129 * g + 25 * b + 128) / 256 + 16,
        0, 255);
    ink.c[1] = (guint8) CLAMP ((-38 * r - 74 * g + 112 * b + 128) / 256 + 128,
        0, 255);
    ink.c[2] = (guint8) CLAMP ((112 * r - 94 * g - 18 * b + 128) / 256 + 128,
        0, 255);
  }
  return ink;
}

/* Sets pixel (x, y), clipped to the frame; subsampled chroma at (x >> wsub, y >> hsub). */
static inline void
put_pixel (const Canvas * cv, gint x, gint y, const Ink * ink)
{
  guint c;

  if (x < 0 || y < 0 || x >= cv->width || y >= cv->height)
    return;
  for (c = 0; c < 3; c++)
    cv->data[c][(gsize) ((guint) y >> cv->hsub[c]) * cv->stride[c]
        + (gsize) ((guint) x >> cv->wsub[c]) * cv->pstride[c]] = ink->c[c];
}

/* Mixes @ink into pixel (x, y) at MASK_ALPHA; a subsampled chroma sample only at the
 * top-left pixel of the block it covers, so that it is mixed once. */
static inline void
blend_pixel (const Canvas * cv, gint x, gint y, const Ink * ink)
{
  guint c;

  if (x < 0 || y < 0 || x >= cv->width || y >= cv->height)
    return;
  for (c = 0; c < 3; c++) {
    guint8 *px;

    if ((x & ((1 << cv->wsub[c]) - 1)) || (y & ((1 << cv->hsub[c]) - 1)))
      continue;
    px = &cv->data[c][(gsize) ((guint) y >> cv->hsub[c]) * cv->stride[c]
        + (gsize) ((guint) x >> cv->wsub[c]) * cv->pstride[c]];
    *px = (guint8) ((*px * (256 - MASK_ALPHA) + ink->c[c] * MASK_ALPHA) >> 8);
  }
}

/* The "mask" parameter of @roi (width x height bytes over the ROI), blended in. */
static void
draw_mask (const Canvas * cv, GstVideoRegionOfInterestMeta * roi,
    const Ink * ink)
{
  GstStructure *s = gst_video_region_of_interest_meta_get_param (roi, "mask");
  const guint8 *m;
  GBytes *bytes = NULL;
  guint w, h, x, y;
  gsize size;

  if (!s || !gst_structure_get (s, "width", G_TYPE_UINT, &w, "height",
          G_TYPE_UINT, &h, "data", G_TYPE_BYTES, &bytes, NULL))
    return;
  m = g_bytes_get_data (bytes, &size);
  if (size / MAX (w, 1) >= h)
    for (y = 0; y < h && roi->y + y < (guint) cv->height; y++)
      for (x = 0; x < w && roi->x + x < (guint) cv->width; x++)
        if (m[(gsize) y * w + x] >= MASK_INSIDE)
          blend_pixel (cv, (gint) (roi->x + x), (gint) (roi->y + y), ink);
  g_bytes_unref (bytes);
}

static void
fill_rect (const Canvas * cv, gint x0, gint y0, gint x1, gint y1,
    const Ink * ink)
{
  gint x, y;

  x0 = MAX (x0, 0);
  y0 = MAX (y0, 0);
  x1 = MIN (x1, cv->width);
  y1 = MIN (y1, cv->height);
  for (y = y0; y < y1; y++)
    for (x = x0; x < x1; x++)
      put_pixel (cv, x, y, ink);
}

/* The outline of [x, x+w) x [y, y+h), @t pixels wide, inside the box. */
static void
draw_box (const Canvas * cv, gint x, gint y, gint w, gint h, gint t,
    const Ink * ink)
{
  t = MIN (t, MIN ((w + 1) / 2, (h + 1) / 2));
  fill_rect (cv, x, y, x + w, y + t, ink);
  fill_rect (cv, x, y + h - t, x + w, y + h, ink);
  fill_rect (cv, x, y + t, x + t, y + h - t, ink);
  fill_rect (cv, x + w - t, y + t, x + w, y + h - t, ink);
}

/* A dot of (2t+1) x (2t+1) pixels at each point of the "keypoints" parameter of @roi. */
static void
draw_keypoints (const Canvas * cv, GstVideoRegionOfInterestMeta * roi, gint t,
    const Ink * ink)
{
  GstStructure *s =
      gst_video_region_of_interest_meta_get_param (roi, "keypoints");
  const GValue *xs = s ? gst_structure_get_value (s, "x") : NULL;
  const GValue *ys = s ? gst_structure_get_value (s, "y") : NULL;
  guint k, n;

  if (!xs || !ys || !GST_VALUE_HOLDS_ARRAY (xs) || !GST_VALUE_HOLDS_ARRAY (ys))
    return;
  n = MIN (gst_value_array_get_size (xs), gst_value_array_get_size (ys));
  for (k = 0; k < n; k++) {
    const GValue *vx = gst_value_array_get_value (xs, k);
    const GValue *vy = gst_value_array_get_value (ys, k);
    gfloat x, y;

    if (!G_VALUE_HOLDS_FLOAT (vx) || !G_VALUE_HOLDS_FLOAT (vy))
      continue;
    x = g_value_get_float (vx);
    y = g_value_get_float (vy);
    if (x > -t - 1 && y > -t - 1 && x < cv->width + t && y < cv->height + t)
      fill_rect (cv, (gint) floorf (x) - t, (gint) floorf (y) - t,
          (gint) floorf (x) + t + 1, (gint) floorf (y) + t + 1, ink);
  }
}

#ifdef HAVE_PANGOCAIRO
/* A label rendered once: white text on its class's colour, w x h pixels of R, G, B
 * (allocated with the struct). */
typedef struct
{
  gint w, h;
  guint8 rgb[];
} Tag;

static Tag *
render_tag (GstVkmlOverlay * self, const gchar * text, const guint8 rgb[3])
{
  PangoLayout *layout = pango_layout_new (self->pango);
  PangoFontDescription *font = pango_font_description_from_string (LABEL_FONT);
  gchar *valid = g_utf8_make_valid (text, -1);  /* labels files are not checked */
  cairo_surface_t *surface;
  cairo_t *cr;
  gint tw, th, i, j, stride;
  const guint8 *data;
  Tag *tag;

  pango_layout_set_font_description (layout, font);
  pango_font_description_free (font);
  pango_layout_set_text (layout, valid, -1);
  g_free (valid);
  pango_layout_get_pixel_size (layout, &tw, &th);
  tag = g_malloc (sizeof (Tag) + (gsize) (tw + 4) * MAX (th, 1) * 3);
  tag->w = tw + 4;
  tag->h = MAX (th, 1);
  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, tag->w, tag->h);
  cr = cairo_create (surface);
  cairo_set_source_rgb (cr, rgb[0] / 255.0, rgb[1] / 255.0, rgb[2] / 255.0);
  cairo_paint (cr);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_move_to (cr, 2, 0);
  pango_cairo_show_layout (cr, layout);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  data = cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface);
  for (j = 0; j < tag->h; j++) {
    const guint32 *row = (const guint32 *) (data + j * stride);
    guint8 *out = tag->rgb + (gsize) j * tag->w * 3;

    for (i = 0; i < tag->w; i++) {
      out[3 * i] = (row[i] >> 16) & 0xff;
      out[3 * i + 1] = (row[i] >> 8) & 0xff;
      out[3 * i + 2] = row[i] & 0xff;
    }
  }
  cairo_surface_destroy (surface);
  g_object_unref (layout);
  return tag;
}

/* The label's tag, its bottom-left at (x, y) (or its top at 0 when there is no room
 * above). */
static void
draw_label (GstVkmlOverlay * self, const Canvas * cv, const gchar * text,
    gint x, gint y, const guint8 rgb[3])
{
  gchar *key = g_strdup_printf ("%u,%u,%u:%s", rgb[0], rgb[1], rgb[2], text);
  Tag *tag = g_hash_table_lookup (self->tags, key);
  gint i, j;

  if (!tag) {
    if (g_hash_table_size (self->tags) >= MAX_CACHED_TAGS)
      g_hash_table_remove_all (self->tags);
    tag = render_tag (self, text, rgb);
    g_hash_table_insert (self->tags, key, tag);
  } else {
    g_free (key);
  }
  y = y - tag->h >= 0 ? y - tag->h : 0;
  for (j = 0; j < tag->h; j++) {
    for (i = 0; i < tag->w; i++) {
      Ink ink = ink_for (cv, tag->rgb + ((gsize) j * tag->w + i) * 3);

      put_pixel (cv, x + i, y + j, &ink);
    }
  }
}
#endif

/* The class of @roi: "class-id" of its detection/classification param, else a hash
 * of its label; @whole_frame says whether it is a classification. */
static gint
roi_class (GstVideoRegionOfInterestMeta * roi, gboolean * whole_frame)
{
  GstStructure *s;
  gint id;

  *whole_frame = FALSE;
  s = gst_video_region_of_interest_meta_get_param (roi, "detection");
  if (!s && (s = gst_video_region_of_interest_meta_get_param (roi,
              "classification")))
    *whole_frame = TRUE;
  if (s && gst_structure_get_int (s, "class-id", &id))
    return id;
  return (gint) (g_str_hash (g_quark_to_string (roi->roi_type)) & 0xffff);
}

/* The tag of @roi: its track id (vkmltrack) and label, and for an object its
 * classification (secondary inference) with the score: "#3 car: red 0.93". g_free it. */
static gchar *
roi_text (GstVideoRegionOfInterestMeta * roi, gboolean whole_frame)
{
  GstStructure *track =
      gst_video_region_of_interest_meta_get_param (roi, "tracking");
  const gchar *cls_label;
  GstStructure *cls;
  gfloat score = 0;
  guint64 id;
  gchar *label, *text;

  label = track && gst_structure_get_uint64 (track, "id", &id) ?
      g_strdup_printf ("#%" G_GUINT64_FORMAT " %s", id,
      g_quark_to_string (roi->roi_type)) :
      g_strdup (g_quark_to_string (roi->roi_type));
  cls = whole_frame ? NULL :
      gst_video_region_of_interest_meta_get_param (roi, "classification");
  if (!cls || !(cls_label = gst_structure_get_string (cls, "label")))
    return label;
  if (!gst_structure_get (cls, "score", G_TYPE_FLOAT, &score, NULL))
    text = g_strdup_printf ("%s: %s", label, cls_label);
  else
    text = g_strdup_printf ("%s: %s %.2f", label, cls_label, score);
  g_free (label);
  return text;
}

static GstFlowReturn
gst_vkml_overlay_transform_frame_ip (GstVideoFilter * filter,
    GstVideoFrame * frame)
{
  GstVkmlOverlay *self = GST_VKML_OVERLAY (filter);
  GstVideoRegionOfInterestMeta *roi;
  gpointer state = NULL;
  gboolean labels, whole;
  Canvas cv;
  gint t;

  GST_OBJECT_LOCK (self);
  t = (gint) self->thickness;
  labels = self->draw_labels;
  GST_OBJECT_UNLOCK (self);
  canvas_init (&cv, frame);

  while ((roi = (GstVideoRegionOfInterestMeta *)
          gst_buffer_iterate_meta_filtered (frame->buffer, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    guint8 rgb[3];
    Ink ink;

    gst_vkml_overlay_class_colour (roi_class (roi, &whole), rgb);
    ink = ink_for (&cv, rgb);
    if (!whole)
      draw_mask (&cv, roi, &ink);
    if (!whole)
      draw_box (&cv, (gint) MIN (roi->x, G_MAXINT / 2),
          (gint) MIN (roi->y, G_MAXINT / 2), (gint) MIN (roi->w, G_MAXINT / 4),
          (gint) MIN (roi->h, G_MAXINT / 4), t, &ink);
    draw_keypoints (&cv, roi, t, &ink);
#ifdef HAVE_PANGOCAIRO
    if (labels && self->pango) {
      gchar *text = roi_text (roi, whole);

      draw_label (self, &cv, text,
          whole ? 0 : (gint) MIN (roi->x, G_MAXINT / 2),
          whole ? 0 : (gint) MIN (roi->y, G_MAXINT / 2), rgb);
      g_free (text);
    }
#else
    (void) labels;
#endif
  }
  return GST_FLOW_OK;
}
