/* vkmlinfer's session for one model and the negotiated caps: planned with the settings
 * start() read; for video, libvkml's pre-processing of the frame's bytes in front of the
 * model (vkml_session_params.preprocess); for tensor caps, the caps' shapes. Also how a
 * frame in flight gets its inputs and output buffers, and its outputs back as a meta.
 * Private to the plugin; a plan is used by one thread at a time (vkmlinfer's locking). */
#pragma once

#include "gstvkmlconvert.h"
#include "gstvkmlinferinputs.h"
#include "gstvkmlinflight.h"
#include "gstvkmltensormeta.h"

#include <gst/video/video.h>
#include <vkml/vkml.h>

G_BEGIN_DECLS
/* Most frames per run ('batch-size'). */
#define GST_VKML_MAX_BATCH 64
/* A model instance elements share (gstvkmlshared.h) and one of its sessions. */
typedef struct _GstVkmlInstance GstVkmlInstance;
typedef struct _GstVkmlInstanceSession GstVkmlInstanceSession;

/* The properties start() read: every plan until the next start uses them. */
typedef struct
{
  gchar *device;                /* the 'device' text, for messages */
  int devices[VKML_MAX_SESSION_DEVICES];
  size_t n_devices;             /* 0: libvkml's default set */
  guint64 budget;
  gboolean data_parallel;       /* a copy of the model per GPU of the set */
  vkml_precision precision;
  guint cpu_threads;            /* the session's cpu_threads (cpu-threads) */
  guint lanes;                  /* the session's runs_in_flight (max-in-flight) */
  GstVkmlPreprocessSettings pre;
  gboolean roi_objects;         /* roi=objects: the box is a run-time input */
  guint batch_size;             /* batch-size: frames per run (video) */
  guint64 batch_timeout_us;     /* batch-timeout: a shared instance's batcher */
  gpointer log_owner;           /* the element: libvkml's messages of its own sessions */
  GstVkmlInstance *instance;    /* model-instance-id: plans take the instance's
                                 * sessions (not owned here); NULL: their own */
  GstVkmlExtraInputs extra;     /* input-tensors: the model's other inputs */
} GstVkmlInferSettings;

typedef struct
{
  GstCaps *caps;                /* the caps planned for; NULL: nothing planned */
  gboolean tensor_mode;         /* tensor caps: the buffer's memories are the inputs */
  vkml_session *session;        /* owned, or the instance session's */
  GstVkmlInstanceSession *shared;       /* a reference, or NULL: the session is ours */
  vkml_batcher *batcher;        /* the shared session's: each frame is one item of
                                 * its batches (plan.batch is then 1) */
  guint generation;             /* the instance's model the shared session runs */
  guint lanes;                  /* runs in flight: the session's (set.lanes, rounded up
                                 * to a multiple of a data-parallel session's GPUs) */
  /* video */
  GstVideoInfo vinfo;
  vkml_preprocess pp;
  vkml_tensor_info bound;       /* the model input's shape planned for */
  guint batch;                  /* frames per run: bound.dims[0] (1 in tensor mode) */
  vkml_tensor_info *shapes;     /* every input's shape planned for (bound first) */
  const vkml_tensor **feeds;    /* inputs 1 .. n-1: set.extra's tensors */
  gsize n_inputs;
  GstVkmlInputGeometry geometry;
  gsize input_size;             /* bytes of a frame's input 0 (packed frame, to 4) */
  GstBufferPool *in_pool;       /* input 0 of a run (batch * input_size bytes), recycled */
  /* outputs: shapes (data NULL; each frame maps its own) and one pool each */
  gsize n_outputs;
  vkml_tensor *outputs;
  GstBufferPool **out_pools;
  gint pool_buffers;            /* buffers the pools made (atomic): new ones only while
                                 * more frames are in flight than ever before */
} GstVkmlInferPlan;

void gst_vkml_infer_settings_clear (GstVkmlInferSettings * set);

/* Plans @model for @caps (video or tensor caps) into @plan (cleared first). FALSE and
 * *why (what does not fit, for a negotiation error) when it cannot. */
gboolean gst_vkml_infer_plan_make (GstVkmlInferPlan * plan, vkml_context * ctx,
    vkml_model * model, const GstVkmlInferSettings * set, GstCaps * caps,
    gchar ** why);
/* Whether @plan, planned for @model, would be planned the same for @caps (only the
 * framerate or other caps fields that do not reach the model changed). */
gboolean gst_vkml_infer_plan_fits (const GstVkmlInferPlan * plan,
    vkml_model * model, const GstVkmlInferSettings * set, GstCaps * caps);
void gst_vkml_infer_plan_clear (GstVkmlInferPlan * plan);
/* Tensor mode: the caps of the outputs (NULL and *why when they have none). */
GstCaps *gst_vkml_infer_plan_output_caps (const GstVkmlInferPlan * plan,
    gchar ** why);

/* Video: the session's inputs for @frames (plan->batch of them, the frame input first,
 * then the extra inputs), into @in (plan->n_inputs); @data is plan->batch *
 * plan->input_size bytes. FALSE and *why when a frame cannot be read. */
gboolean gst_vkml_infer_plan_video_inputs (const GstVkmlInferPlan * plan,
    GstBuffer ** frames, guint8 * data, vkml_tensor * in, gchar ** why);

/* The frame's inputs for its run (*n of them; g_free the array after the submit): video,
 * the frame packed into frame->input; tensors, the buffer's memories mapped into
 * frame->in_maps. NULL and *why when the buffer cannot be read. */
vkml_tensor *gst_vkml_infer_plan_frame_inputs (GstVkmlInferPlan * plan,
    GstVkmlInflightFrame * frame, gsize * n, gchar ** why);
/* Takes the frame's output buffers from the pools, mapped for writing. The pools
 * (input and outputs) recycle their buffers: after the first frames no frame
 * allocates its input or output bytes. */
gboolean gst_vkml_infer_plan_acquire_outputs (GstVkmlInferPlan * plan,
    GstVkmlInflightFrame * frame);
/* Video: a run's input 0 bytes (plan->batch * plan->input_size) from the input pool,
 * held in frame->input, mapped for writing; NULL when the pool has none. */
guint8 *gst_vkml_infer_plan_acquire_input (GstVkmlInferPlan * plan,
    GstVkmlInflightFrame * frame);
/* The frame's run is over: its outputs on a new meta of its (now writable) buffer, with
 * the geometry for video; in tensor mode they also replace the buffer's memories. */
GstVkmlTensorMeta *gst_vkml_infer_plan_finish_frame (const GstVkmlInferPlan *
    plan, GstVkmlInflightFrame * frame);

G_END_DECLS
