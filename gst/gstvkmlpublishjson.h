/* vkmlpublish's JSON: one object per frame from the frame's ROI metas (vkmldetect's
 * "detection", vkmltrack's "tracking", vkmlclassify's "classification" parameters) and
 * the model ids of its GstVkmlTensorMetas. Thread-safe (no shared state). */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS typedef struct
{
  const gchar *source_id;       /* NULL: written as null */
  guint64 frame;                /* frames before this one */
  guint width, height;          /* the frame's; 0 when unknown */
} GstVkmlPublishFrame;

/* The JSON text (one line, no newline) of @buf. g_free it. */
gchar *gst_vkml_publish_json (GstBuffer * buf, const GstVkmlPublishFrame * f);

G_END_DECLS
