/* The frame as JSON: see gstvkmlpublishjson.h. The schema is in docs/element.md. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmlpublishjson.h"
#include "gstvkmltensormeta.h"

#include <gst/video/video.h>
#include <json-glib/json-glib.h>

/* "label", "class-id" and "score" of a detection or classification parameter, those
 * it has. */
static void
add_result_fields (JsonBuilder * b, const GstStructure * s)
{
  const gchar *label = gst_structure_get_string (s, "label");
  gint class_id;
  gfloat score;

  if (label) {
    json_builder_set_member_name (b, "label");
    json_builder_add_string_value (b, label);
  }
  if (gst_structure_get_int (s, "class-id", &class_id)) {
    json_builder_set_member_name (b, "class-id");
    json_builder_add_int_value (b, class_id);
  }
  if (gst_structure_get (s, "score", G_TYPE_FLOAT, &score, NULL)) {
    json_builder_set_member_name (b, "score");
    json_builder_add_double_value (b, score);
  }
}

/* Every "classification" parameter of @roi, as an array member "classifications". */
static void
add_classifications (JsonBuilder * b, GstVideoRegionOfInterestMeta * roi)
{
  GList *p;

  json_builder_set_member_name (b, "classifications");
  json_builder_begin_array (b);
  for (p = roi->params; p; p = p->next)
    if (gst_structure_has_name (p->data, "classification")) {
      json_builder_begin_object (b);
      add_result_fields (b, p->data);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
add_int_member (JsonBuilder * b, const gchar * name, gint64 v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, v);
}

static void
add_tracking (JsonBuilder * b, GstVideoRegionOfInterestMeta * roi)
{
  GstStructure *t = gst_video_region_of_interest_meta_get_param (roi,
      "tracking");
  guint64 id;
  gboolean predicted = FALSE;

  json_builder_set_member_name (b, "track-id");
  if (t && gst_structure_get_uint64 (t, "id", &id))
    json_builder_add_int_value (b, (gint64) id);
  else
    json_builder_add_null_value (b);
  if (t)
    gst_structure_get_boolean (t, "predicted", &predicted);
  json_builder_set_member_name (b, "predicted");
  json_builder_add_boolean_value (b, predicted);
}

static void
add_object (JsonBuilder * b, GstVideoRegionOfInterestMeta * roi)
{
  GstStructure *det = gst_video_region_of_interest_meta_get_param (roi,
      "detection");

  json_builder_begin_object (b);
  add_int_member (b, "id", roi->id);
  json_builder_set_member_name (b, "label");
  json_builder_add_string_value (b, g_quark_to_string (roi->roi_type));
  if (det)
    add_result_fields (b, det);
  json_builder_set_member_name (b, "box");
  json_builder_begin_object (b);
  add_int_member (b, "x", roi->x);
  add_int_member (b, "y", roi->y);
  add_int_member (b, "w", roi->w);
  add_int_member (b, "h", roi->h);
  json_builder_end_object (b);
  add_tracking (b, roi);
  add_classifications (b, roi);
  json_builder_end_object (b);
}

/* A whole-frame classification (vkmlclassify without roi=objects): a "classification"
 * parameter and no "detection". */
static gboolean
is_frame_classification (GstVideoRegionOfInterestMeta * roi)
{
  return gst_video_region_of_interest_meta_get_param (roi, "classification")
      && !gst_video_region_of_interest_meta_get_param (roi, "detection");
}

/* The ROIs: objects (in "objects") or whole-frame results (in "classifications"). */
static void
add_rois (JsonBuilder * b, GstBuffer * buf, gboolean frame_results)
{
  GstVideoRegionOfInterestMeta *roi;
  gpointer state = NULL;

  json_builder_begin_array (b);
  while ((roi = (GstVideoRegionOfInterestMeta *)
          gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    if (is_frame_classification (roi) != frame_results)
      continue;
    if (!frame_results) {
      add_object (b, roi);
      continue;
    }
    json_builder_begin_object (b);
    add_result_fields (b, gst_video_region_of_interest_meta_get_param (roi,
            "classification"));
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
}

/* The model ids of the frame's tensor metas, each once, in the order first seen. */
static void
add_models (JsonBuilder * b, GstBuffer * buf)
{
  GPtrArray *ids = g_ptr_array_new ();
  GstVkmlTensorMeta *m;
  gpointer state = NULL;
  guint i;

  while ((m = (GstVkmlTensorMeta *) gst_buffer_iterate_meta_filtered (buf,
              &state, GST_VKML_TENSOR_META_API_TYPE)))
    if (m->model_id && !g_ptr_array_find_with_equal_func (ids, m->model_id,
            g_str_equal, NULL))
      g_ptr_array_add (ids, m->model_id);
  json_builder_begin_array (b);
  for (i = 0; i < ids->len; i++)
    json_builder_add_string_value (b, g_ptr_array_index (ids, i));
  json_builder_end_array (b);
  g_ptr_array_unref (ids);
}

static void
add_time (JsonBuilder * b, const gchar * name, GstClockTime t)
{
  json_builder_set_member_name (b, name);
  if (GST_CLOCK_TIME_IS_VALID (t))
    json_builder_add_int_value (b, (gint64) t);
  else
    json_builder_add_null_value (b);
}

gchar *
gst_vkml_publish_json (GstBuffer * buf, const GstVkmlPublishFrame * f)
{
  JsonBuilder *b = json_builder_new ();
  JsonGenerator *gen = json_generator_new ();
  JsonNode *root;
  gchar *text;

  json_builder_begin_object (b);
  add_time (b, "timestamp", GST_BUFFER_PTS (buf));
  add_time (b, "duration", GST_BUFFER_DURATION (buf));
  add_int_member (b, "frame", (gint64) f->frame);
  json_builder_set_member_name (b, "source");
  if (f->source_id)
    json_builder_add_string_value (b, f->source_id);
  else
    json_builder_add_null_value (b);
  add_int_member (b, "width", f->width);
  add_int_member (b, "height", f->height);
  json_builder_set_member_name (b, "models");
  add_models (b, buf);
  json_builder_set_member_name (b, "objects");
  add_rois (b, buf, FALSE);
  json_builder_set_member_name (b, "classifications");
  add_rois (b, buf, TRUE);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  text = json_generator_to_data (gen, NULL);
  json_node_unref (root);
  g_object_unref (gen);
  g_object_unref (b);
  return text;
}
