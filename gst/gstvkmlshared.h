/* What the vkmlinfer elements of one process share (docs/element.md, "Many streams").
 *
 * The device context: one vkml_context per process by default (created at first use,
 * freed with its last holder: elements, GstContexts, instances), handed between the elements of a pipeline as a
 * GstContext of type "vkml.context" (NEED_CONTEXT / HAVE_CONTEXT), so that N elements
 * open each device once. An application may set its own with gst_element_set_context.
 *
 * Model instances: elements with the same model-instance-id share one loaded model and,
 * per distinct input (the session's input shapes and pre-processing: the video's
 * format and size, the pre-processing properties), one session and the batcher that
 * gathers their frames into the session's batches. The first element defines the
 * instance (model file, devices, budget, data parallel, precision, batch size and
 * timeout, input tensors); an element asking for others is refused, naming the
 * difference. An instance is freed with its last element.
 *
 * Threads: every function here may be called from any thread (one registry lock). */
#pragma once

#include "gstvkmlinferplan.h"

#include <gst/gst.h>
#include <vkml/vkml.h>

G_BEGIN_DECLS
#define GST_VKML_CONTEXT_TYPE "vkml.context"
/* A reference-counted vkml_context (a GBoxed type, carried in a GstContext). */
typedef struct _GstVkmlSharedContext GstVkmlSharedContext;

GType gst_vkml_shared_context_get_type (void);
GstVkmlSharedContext *gst_vkml_shared_context_ref (GstVkmlSharedContext * sc);
void gst_vkml_shared_context_unref (GstVkmlSharedContext * sc);
vkml_context *gst_vkml_shared_context_get (const GstVkmlSharedContext * sc);
/* A reference to the process's default context, created with @params when there is
 * none (or the last one lost a device); NULL and *err when creating it fails. */
GstVkmlSharedContext *gst_vkml_shared_context_default (const vkml_context_params
    * params, vkml_error * err);
/* A device of @sc was lost: the default is no longer handed out (the next start
 * opens the devices anew); its holders keep it until they let go. */
void gst_vkml_shared_context_mark_lost (GstVkmlSharedContext * sc);
/* A new GstContext holding @sc; the context held by @context (a reference), or NULL. */
GstContext *gst_vkml_shared_context_to_gst (GstVkmlSharedContext * sc);
GstVkmlSharedContext *gst_vkml_shared_context_from_gst (GstContext * context);

/* What defines an instance: a later element must ask for the same. */
typedef struct
{
  const gchar *model_path;
  const GstVkmlInferSettings *set;      /* device, budget, data parallel, precision,
                                         * batch size and timeout, lanes (the first
                                         * element's max-in-flight: batches in flight) */
  const gchar *input_tensors;   /* as set (NULL: none) */
} GstVkmlInstanceKey;

typedef struct _GstVkmlInstance GstVkmlInstance;

/* The instance @id, created (its model loaded) when none exists. NULL when the model
 * does not load (*err) or the instance exists with other settings or another context
 * (*why names the difference). */
GstVkmlInstance *gst_vkml_instance_acquire (const gchar * id,
    const GstVkmlInstanceKey * key, GstVkmlSharedContext * ctx,
    vkml_error * err, gchar ** why);
void gst_vkml_instance_release (GstVkmlInstance * inst);
/* A reference to the instance's model now, and its generation (model swaps so far). */
vkml_model *gst_vkml_instance_take_model (GstVkmlInstance * inst,
    guint * generation);
/* Lock-free: the streaming threads ask at every frame. */
guint gst_vkml_instance_generation (GstVkmlInstance * inst);
/* A model swap for every element of the instance: loads @path (FALSE and *err when it
 * does not load; the old model stays) and makes it the instance's model. Sessions of
 * the old model serve the elements that hold them until they let go; each element
 * plans anew on the new model at its next frame (gstvkmlinferswap.c). */
gboolean gst_vkml_instance_swap (GstVkmlInstance * inst, const gchar * path,
    vkml_error * err);
/* Elements on the instance now. */
guint gst_vkml_instance_users (GstVkmlInstance * inst);

/* One session of an instance and its batcher, for one input. */
typedef struct _GstVkmlInstanceSession GstVkmlInstanceSession;

/* The instance's session for these input shapes (one per model input, batch bound)
 * and pre-processing (NULL: none), created with @params (shapes and pp set by the
 * caller) on the first request; a reference. NULL and *err when it cannot be made. */
GstVkmlInstanceSession *gst_vkml_instance_session (GstVkmlInstance * inst,
    const vkml_session_params * params, vkml_error * err);
void gst_vkml_instance_session_release (GstVkmlInstanceSession * is);
vkml_session *gst_vkml_instance_session_get (GstVkmlInstanceSession * is);
vkml_batcher *gst_vkml_instance_session_batcher (GstVkmlInstanceSession * is);
/* The instance generation the session was planned for. */
guint gst_vkml_instance_session_generation (GstVkmlInstanceSession * is);

/* Loads a model, libvkml's messages on the "vkml" debug category naming @owner (NULL:
 * the element whose call runs on this thread). */
vkml_status gst_vkml_load_model (gpointer owner, const gchar * path,
    vkml_model ** model, vkml_error * err);

G_END_DECLS
