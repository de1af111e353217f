/* Outputs carried between runs per track: see gstvkmlreclassify.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/video/video.h>

#include "gstvkmlreclassify.h"

struct _GstVkmlReclassify
{
  guint interval;
  guint64 frame;                /* frames since creation */
  GHashTable *last;             /* guint64 track id -> Carried */
};

typedef struct
{
  guint64 run_frame;
  guint n_tensors;
  GstVkmlTensor *tensors;       /* names owned, data referenced */
} Carried;

static void
carried_free (gpointer p)
{
  Carried *c = p;
  guint i;

  for (i = 0; i < c->n_tensors; i++) {
    g_free (c->tensors[i].name);
    gst_buffer_unref (c->tensors[i].data);
  }
  g_free (c->tensors);
  g_free (c);
}

GstVkmlReclassify *
gst_vkml_reclassify_new (guint interval)
{
  GstVkmlReclassify *r = g_new0 (GstVkmlReclassify, 1);

  r->interval = interval;
  r->last = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
      carried_free);
  return r;
}

void
gst_vkml_reclassify_free (GstVkmlReclassify * r)
{
  if (!r)
    return;
  g_hash_table_unref (r->last);
  g_free (r);
}

static Carried *
fresh (GstVkmlReclassify * r, guint64 track_id)
{
  Carried *c = g_hash_table_lookup (r->last, &track_id);

  return c && r->frame - c->run_frame < r->interval ? c : NULL;
}

gboolean
gst_vkml_reclassify_has (GstVkmlReclassify * r, guint64 track_id)
{
  return fresh (r, track_id) != NULL;
}

GstVkmlTensorMeta *
gst_vkml_reclassify_carry (GstVkmlReclassify * r, guint64 track_id,
    GstBuffer * buf)
{
  Carried *c = fresh (r, track_id);
  GstVkmlTensorMeta *meta;
  guint i;

  if (!c)
    return NULL;
  meta = gst_buffer_add_vkml_tensor_meta (buf);
  for (i = 0; i < c->n_tensors; i++)
    gst_vkml_tensor_meta_add (meta, c->tensors[i].name, c->tensors[i].dtype,
        c->tensors[i].rank, c->tensors[i].dims, c->tensors[i].data);
  return meta;
}

void
gst_vkml_reclassify_remember (GstVkmlReclassify * r, guint64 track_id,
    const GstVkmlTensorMeta * meta)
{
  Carried *c = g_new0 (Carried, 1);
  guint i;

  c->run_frame = r->frame;
  c->n_tensors = meta->n_tensors;
  c->tensors = g_new0 (GstVkmlTensor, MAX (meta->n_tensors, 1));
  for (i = 0; i < meta->n_tensors; i++) {
    c->tensors[i] = meta->tensors[i];
    c->tensors[i].name = g_strdup (meta->tensors[i].name);
    gst_buffer_ref (c->tensors[i].data);
  }
  g_hash_table_replace (r->last, g_memdup2 (&track_id, sizeof (track_id)), c);
}

static gboolean
too_old (G_GNUC_UNUSED gpointer key, gpointer value, gpointer user)
{
  GstVkmlReclassify *r = user;

  return r->frame - ((Carried *) value)->run_frame >= r->interval;
}

void
gst_vkml_reclassify_next_frame (GstVkmlReclassify * r)
{
  r->frame++;
  g_hash_table_foreach_remove (r->last, too_old, r);
}

guint64
gst_vkml_roi_track_id (GstVideoRegionOfInterestMeta * roi)
{
  GstStructure *t = gst_video_region_of_interest_meta_get_param (roi,
      "tracking");
  guint64 id = 0;

  if (t && !gst_structure_get_uint64 (t, "id", &id))
    id = 0;
  return id;
}
