/* vkmlinfer roi=objects: secondary inference, the model run once per object an upstream
 * detector attached (GstVideoRegionOfInterestMeta, as vkmldetect writes them), the
 * object's box cropped and resized by libvkml's pre-processing kernel
 * (vkml_preprocess.rect_input: one session serves every box). Private to the plugin. */
#pragma once

#include "gstvkmlreclassify.h"

#include <gst/gst.h>

G_BEGIN_DECLS typedef enum
{
  GST_VKML_ROI_FRAME = 0,       /* the whole frame, one run per frame */
  GST_VKML_ROI_OBJECTS,         /* one run per object's box */
} GstVkmlRoiMode;

#define GST_TYPE_VKML_ROI_MODE (gst_vkml_roi_mode_get_type ())
GType gst_vkml_roi_mode_get_type (void);

typedef struct
{
  /* properties, under the element's object lock */
  GstVkmlRoiMode mode;
  gchar *object_class;          /* comma-separated labels / class ids; NULL: all */
  gchar *min_object_size;       /* "WxH"; NULL: no minimum */
  guint reclassify_interval;    /* run on a tracked object every Nth frame */
  /* what start() read, until the next start; streaming thread */
  GstVkmlRoiMode run_mode;
  gchar **classes;              /* NULL: every object */
  guint min_width, min_height;
  GstVkmlReclassify *carried;   /* reclassify-interval >= 2; until stop */
} GstVkmlInferRoi;

/* The properties roi, object-class, min-object-size, reclassify-interval, as ids
 * first_id .. first_id + 3. */
void gst_vkml_infer_roi_install_properties (GObjectClass * klass,
    guint first_id);
/* Under the object lock: sets/gets property @id - first_id; FALSE when it is not one
 * of these. */
gboolean gst_vkml_infer_roi_set_property (GstVkmlInferRoi * roi, guint id,
    const GValue * value);
gboolean gst_vkml_infer_roi_get_property (GstVkmlInferRoi * roi, guint id,
    GValue * value);
void gst_vkml_infer_roi_clear (GstVkmlInferRoi * roi);
/* Drops the outputs kept for reclassify-interval (at stop). */
void gst_vkml_infer_roi_stop (GstVkmlInferRoi * roi);

G_END_DECLS
