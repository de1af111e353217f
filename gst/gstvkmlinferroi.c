/* vkmlinfer roi=objects (gstvkmlinferroi.h). The streaming thread takes the frame's
 * objects (filtered by object-class and min-object-size), packs the frame once, and runs
 * the session once per object with the object's box as the pre-processing's source
 * rectangle (the session's last input, int32 [4]); each run's outputs go on the frame as
 * a GstVkmlTensorMeta whose roi_id is the object's ROI meta id. The runs are synchronous
 * (vkml_session_run), one after another; the frame is then queued as one that needs no
 * run. A frame without such objects passes with no inference. With reclassify-interval
 * N >= 2, an object vkmltrack tracks runs once every N frames; the frames between get
 * its last outputs again (gstvkmlreclassify.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmlinferpriv.h"

#include <gst/video/video.h>

#define GST_CAT_DEFAULT gst_vkml_infer_debug

enum
{
  ROI_PROP_MODE,
  ROI_PROP_OBJECT_CLASS,
  ROI_PROP_MIN_OBJECT_SIZE,
  ROI_PROP_RECLASSIFY_INTERVAL,
};

GType
gst_vkml_roi_mode_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {GST_VKML_ROI_FRAME, "The whole frame, one run per frame", "frame"},
    {GST_VKML_ROI_OBJECTS, "Each object (GstVideoRegionOfInterestMeta) of the "
          "frame, one run per object", "objects"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&id))
    g_once_init_leave (&id, g_enum_register_static ("GstVkmlRoiMode", values));
  return (GType) id;
}

void
gst_vkml_infer_roi_install_properties (GObjectClass * klass, guint first_id)
{
  g_object_class_install_property (klass, first_id + ROI_PROP_MODE,
      g_param_spec_enum ("roi", "Region of interest",
          "What the model sees: the whole frame, or each object an upstream "
          "detector attached (secondary inference; the box is cropped and "
          "resized by the pre-processing, one run per object)",
          GST_TYPE_VKML_ROI_MODE, GST_VKML_ROI_FRAME,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (klass, first_id + ROI_PROP_OBJECT_CLASS,
      g_param_spec_string ("object-class", "Object class",
          "roi=objects: comma-separated labels (the ROI's type) or class ids "
          "(its \"detection\" class-id) of the objects to run on; empty: every "
          "object", NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (klass, first_id + ROI_PROP_MIN_OBJECT_SIZE,
      g_param_spec_string ("min-object-size", "Minimum object size",
          "roi=objects: WxH in frame pixels; objects narrower or lower (after "
          "clipping to the frame) are skipped; empty: no minimum", NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (klass,
      first_id + ROI_PROP_RECLASSIFY_INTERVAL,
      g_param_spec_uint ("reclassify-interval", "Reclassify interval",
          "roi=objects: run the model on an object vkmltrack tracks only every "
          "Nth frame; the frames between carry its last outputs (0 or 1: "
          "every frame)", 0, G_MAXINT, 1,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
}

gboolean
gst_vkml_infer_roi_set_property (GstVkmlInferRoi * roi, guint id,
    const GValue * value)
{
  switch (id) {
    case ROI_PROP_MODE:
      roi->mode = (GstVkmlRoiMode) g_value_get_enum (value);
      return TRUE;
    case ROI_PROP_OBJECT_CLASS:
      g_free (roi->object_class);
      roi->object_class = g_value_dup_string (value);
      return TRUE;
    case ROI_PROP_MIN_OBJECT_SIZE:
      g_free (roi->min_object_size);
      roi->min_object_size = g_value_dup_string (value);
      return TRUE;
    case ROI_PROP_RECLASSIFY_INTERVAL:
      roi->reclassify_interval = g_value_get_uint (value);
      return TRUE;
    default:
      return FALSE;
  }
}

gboolean
gst_vkml_infer_roi_get_property (GstVkmlInferRoi * roi, guint id,
    GValue * value)
{
  switch (id) {
    case ROI_PROP_MODE:
      g_value_set_enum (value, roi->mode);
      return TRUE;
    case ROI_PROP_OBJECT_CLASS:
      g_value_set_string (value, roi->object_class);
      return TRUE;
    case ROI_PROP_MIN_OBJECT_SIZE:
      g_value_set_string (value, roi->min_object_size);
      return TRUE;
    case ROI_PROP_RECLASSIFY_INTERVAL:
      g_value_set_uint (value, roi->reclassify_interval);
      return TRUE;
    default:
      return FALSE;
  }
}

void
gst_vkml_infer_roi_clear (GstVkmlInferRoi * roi)
{
  g_clear_pointer (&roi->object_class, g_free);
  g_clear_pointer (&roi->min_object_size, g_free);
  g_clear_pointer (&roi->classes, g_strfreev);
  gst_vkml_infer_roi_stop (roi);
}

void
gst_vkml_infer_roi_stop (GstVkmlInferRoi * roi)
{
  g_clear_pointer (&roi->carried, gst_vkml_reclassify_free);
}

/* "WxH" (each 0 .. 65535), or empty for 0x0. */
static gboolean
parse_min_size (const gchar * text, guint * w, guint * h)
{
  gchar **parts;
  guint64 v[2] = { 0, 0 };
  gboolean ok;

  *w = *h = 0;
  if (!text || !*text)
    return TRUE;
  parts = g_strsplit (text, "x", -1);
  ok = g_strv_length (parts) == 2
      && g_ascii_string_to_unsigned (g_strstrip (parts[0]), 10, 0, 65535,
      &v[0], NULL)
      && g_ascii_string_to_unsigned (g_strstrip (parts[1]), 10, 0, 65535,
      &v[1], NULL);
  g_strfreev (parts);
  *w = (guint) v[0];
  *h = (guint) v[1];
  return ok;
}

gboolean
gst_vkml_infer_roi_start (GstVkmlInfer * self)
{
  GstVkmlInferRoi *roi = &self->roi;
  gchar *classes, *size;
  guint interval;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  roi->run_mode = roi->mode;
  interval = roi->reclassify_interval;
  classes = g_strdup (roi->object_class);
  size = g_strdup (roi->min_object_size);
  GST_OBJECT_UNLOCK (self);
  g_clear_pointer (&roi->classes, g_strfreev);
  if (classes && *classes) {
    gchar **c;

    roi->classes = g_strsplit (classes, ",", -1);
    for (c = roi->classes; *c; c++)
      g_strstrip (*c);
  }
  self->set.roi_objects = roi->run_mode == GST_VKML_ROI_OBJECTS;
  gst_vkml_infer_roi_stop (roi);
  if (self->set.roi_objects && interval >= 2)
    roi->carried = gst_vkml_reclassify_new (interval);
  ok = parse_min_size (size, &roi->min_width, &roi->min_height);
  if (!ok)
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("min-object-size \"%s\" is not WxH (e.g. 32x32, each 0 .. 65535).",
            size), (NULL));
  g_free (classes);
  g_free (size);
  return ok;
}

/* Whether object-class lets @roi through: its label, or its detection class-id. */
static gboolean
class_wanted (gchar ** classes, GstVideoRegionOfInterestMeta * roi)
{
  GstStructure *det;
  const gchar *label = g_quark_to_string (roi->roi_type);
  gint id = -1;
  gchar **c;

  if (!classes)
    return TRUE;
  det = gst_video_region_of_interest_meta_get_param (roi, "detection");
  if (det)
    gst_structure_get_int (det, "class-id", &id);
  for (c = classes; *c; c++) {
    guint64 v;

    if (**c && g_strcmp0 (*c, label) == 0)
      return TRUE;
    if (id >= 0 && g_ascii_string_to_unsigned (*c, 10, 0, G_MAXINT, &v, NULL)
        && (gint) v == id)
      return TRUE;
  }
  return FALSE;
}

typedef struct
{
  gint id;                      /* the ROI meta's */
  gint32 rect[4];               /* x, y, w, h within the frame */
  guint64 track_id;             /* vkmltrack's; 0: untracked */
  gboolean carried;             /* gets its last outputs again, no run */
} GstVkmlRoiBox;

/* Gives ROI metas sharing an id (detectors that leave it 0) ids of their own, so each
 * result names one object. */
static void
make_ids_unique (GstBuffer * buf)
{
  GstVideoRegionOfInterestMeta *roi;
  GHashTable *seen = g_hash_table_new (NULL, NULL);
  gpointer state = NULL;
  gint next = 0;

  while ((roi = (GstVideoRegionOfInterestMeta *)
          gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)))
    next = MAX (next, roi->id);
  state = NULL;
  while ((roi = (GstVideoRegionOfInterestMeta *)
          gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    if (g_hash_table_contains (seen, GINT_TO_POINTER (roi->id))
        && next < G_MAXINT)
      roi->id = ++next;
    g_hash_table_add (seen, GINT_TO_POINTER (roi->id));
  }
  g_hash_table_unref (seen);
}

/* The frame's objects to run on: clipped to the frame, filtered. */
static GArray *
collect_boxes (GstVkmlInfer * self, GstBuffer * buf, guint frame_w,
    guint frame_h)
{
  GstVkmlInferRoi *r = &self->roi;
  GArray *boxes = g_array_new (FALSE, FALSE, sizeof (GstVkmlRoiBox));
  GstVideoRegionOfInterestMeta *roi;
  gpointer state = NULL;

  while ((roi = (GstVideoRegionOfInterestMeta *)
          gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVkmlRoiBox b = { roi->id, {0, 0, 0, 0}, gst_vkml_roi_track_id (roi),
    FALSE
    };
    guint w, h;

    if (roi->x >= frame_w || roi->y >= frame_h)
      continue;                 /* outside the frame: nothing to see */
    w = MIN (roi->w, frame_w - roi->x);
    h = MIN (roi->h, frame_h - roi->y);
    if (w == 0 || h == 0 || w < r->min_width || h < r->min_height
        || !class_wanted (r->classes, roi))
      continue;
    b.rect[0] = (gint32) roi->x;
    b.rect[1] = (gint32) roi->y;
    b.rect[2] = (gint32) w;
    b.rect[3] = (gint32) h;
    b.carried = r->carried && b.track_id
        && gst_vkml_reclassify_has (r->carried, b.track_id);
    g_array_append_val (boxes, b);
  }
  return boxes;
}

/* How the model's input maps onto the frame for @box: the frame geometry of a frame
 * the box's size, moved to the box. */
static void
box_geometry (const GstVkmlInferPlan * plan, const GstVkmlRoiBox * box,
    GstVkmlInputGeometry * out)
{
  vkml_preprocess pp = plan->pp;
  vkml_preprocess_geometry g;

  pp.width = (uint32_t) box->rect[2];
  pp.height = (uint32_t) box->rect[3];
  *out = plan->geometry;
  vkml_preprocess_get_geometry (&pp, out->input_width, out->input_height, &g);
  out->scale_x = g.scale_x;
  out->scale_y = g.scale_y;
  out->offset_x = g.offset_x - box->rect[0] * g.scale_x;
  out->offset_y = g.offset_y - box->rect[1] * g.scale_y;
}

/* One run on @box; its outputs on the frame as a meta of roi_id = the box's id. */
static GstFlowReturn
run_box (GstVkmlInfer * self, GstVkmlInflightFrame * frame,
    vkml_tensor * inputs, gsize n, const GstVkmlRoiBox * box)
{
  vkml_error err = { 0 };
  GstVkmlTensorMeta *meta;

  memset (&inputs[n], 0, sizeof (inputs[n]));
  inputs[n].dtype = VKML_DTYPE_INT32;
  inputs[n].rank = 1;
  inputs[n].dims[0] = G_N_ELEMENTS (box->rect);
  inputs[n].data = (void *) box->rect;
  inputs[n].size = sizeof (box->rect);
  if (!gst_vkml_infer_plan_acquire_outputs (&self->plan, frame)) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not get buffers for the model's outputs."), (NULL));
    return GST_FLOW_ERROR;
  }
  if (vkml_session_run (self->plan.session, inputs, n + 1, frame->outputs,
          frame->n_outputs, &err) != VKML_OK) {
    gst_vkml_infer_run_failed (self, &err);
    return GST_FLOW_ERROR;
  }
  box_geometry (&self->plan, box, &frame->geometry);
  meta = gst_vkml_infer_attach_meta (self, frame);
  meta->roi_id = box->id;
  if (self->roi.carried && box->track_id)
    gst_vkml_reclassify_remember (self->roi.carried, box->track_id, meta);
  return GST_FLOW_OK;
}

/* @box's last outputs again, mapped through its box of this frame. */
static void
carry_box (GstVkmlInfer * self, GstVkmlInflightFrame * frame,
    const GstVkmlRoiBox * box)
{
  GstVkmlTensorMeta *meta = gst_vkml_reclassify_carry (self->roi.carried,
      box->track_id, frame->buf);

  meta->has_geometry = TRUE;
  box_geometry (&self->plan, box, &meta->geometry);
  meta->roi_id = box->id;
  gst_vkml_infer_name_meta (self, frame, meta);
}

/* The boxes that need a run; the others get their carried outputs now. */
static guint
carry_boxes (GstVkmlInfer * self, GstVkmlInflightFrame * frame, GArray * boxes)
{
  guint i, runs = 0;

  for (i = 0; i < boxes->len; i++) {
    const GstVkmlRoiBox *b = &g_array_index (boxes, GstVkmlRoiBox, i);

    if (b->carried)
      carry_box (self, frame, b);
    else
      runs++;
  }
  return runs;
}

GstFlowReturn
gst_vkml_infer_roi_run (GstVkmlInfer * self, GstVkmlInflightFrame * frame)
{
  GstFlowReturn ret = GST_FLOW_OK;
  vkml_tensor *inputs, *all;
  gchar *why = NULL;
  GArray *boxes;
  gsize n = 0;
  guint i;

  frame->buf = gst_buffer_make_writable (frame->buf);
  make_ids_unique (frame->buf);
  if (self->roi.carried)
    gst_vkml_reclassify_next_frame (self->roi.carried);
  boxes = collect_boxes (self, frame->buf, self->plan.pp.width,
      self->plan.pp.height);
  frame->wants_run = FALSE;     /* queued as done: the runs are over when queued */
  if (carry_boxes (self, frame, boxes) == 0) {
    GST_LOG_OBJECT (self, "no object to run on (%u carried)", boxes->len);
    g_array_unref (boxes);
    return GST_FLOW_OK;
  }
  inputs = gst_vkml_infer_plan_frame_inputs (&self->plan, frame, &n, &why);
  if (!inputs) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Could not read a frame: %s.",
            why), (NULL));
    g_free (why);
    g_array_unref (boxes);
    return GST_FLOW_ERROR;
  }
  all = g_new0 (vkml_tensor, n + 1);
  memcpy (all, inputs, n * sizeof (vkml_tensor));
  g_free (inputs);
  frame->submit_us = g_get_monotonic_time ();
  for (i = 0; i < boxes->len && ret == GST_FLOW_OK; i++)
    if (!g_array_index (boxes, GstVkmlRoiBox, i).carried)
      ret = run_box (self, frame, all, n,
          &g_array_index (boxes, GstVkmlRoiBox, i));
  frame->done_us = g_get_monotonic_time ();
  if (ret == GST_FLOW_OK)
    gst_vkml_infer_count_run (self, frame);
  GST_LOG_OBJECT (self, "%u objects in %" G_GINT64_FORMAT " us", boxes->len,
      frame->done_us - frame->submit_us);
  g_free (all);
  g_array_unref (boxes);
  return ret;
}
