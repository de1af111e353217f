/* gst_vkml_buffer_get_detections (gstvkmltensormeta.h): a buffer's boxes in one call,
 * for applications and bindings that cannot iterate metas (Python on GStreamer 1.22). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmltensormeta.h"

#include <gst/video/video.h>

/* Copies @field of @param (if there) into @out as @name. */
static void
copy_field (GstStructure * out, const gchar * name, const GstStructure * param,
    const gchar * field)
{
  const GValue *v = param ? gst_structure_get_value (param, field) : NULL;

  if (v)
    gst_structure_set_value (out, name, v);
}

static GstStructure *
detection_of (GstVideoRegionOfInterestMeta * roi,
    const GstStructure * detection)
{
  const GstStructure *cls = gst_video_region_of_interest_meta_get_param (roi,
      "classification");
  GstStructure *s = gst_structure_new ("detection",
      "roi-id", G_TYPE_INT, roi->id,
      "label", G_TYPE_STRING, g_quark_to_string (roi->roi_type),
      "x", G_TYPE_UINT, roi->x, "y", G_TYPE_UINT, roi->y,
      "width", G_TYPE_UINT, roi->w, "height", G_TYPE_UINT, roi->h, NULL);

  copy_field (s, "class-id", detection, "class-id");
  copy_field (s, "score", detection, "score");
  copy_field (s, "classification-label", cls, "label");
  copy_field (s, "classification-class-id", cls, "class-id");
  copy_field (s, "classification-score", cls, "score");
  return s;
}

GList *
gst_vkml_buffer_get_detections (GstBuffer * buffer)
{
  GList *out = NULL;
  GstVideoRegionOfInterestMeta *roi;
  gpointer state = NULL;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  while ((roi = (GstVideoRegionOfInterestMeta *)
          gst_buffer_iterate_meta_filtered (buffer, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    const GstStructure *detection =
        gst_video_region_of_interest_meta_get_param (roi, "detection");

    if (detection)
      out = g_list_prepend (out, detection_of (roi, detection));
  }
  return g_list_reverse (out);
}
