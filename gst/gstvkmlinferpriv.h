/* vkmlinfer's instance and what its files share: gstvkmlinfer.c (properties, states,
 * caps, planning), gstvkmlinferswap.c (model swap on a worker), gstvkmlinferstream.c (frames in flight, events, QoS,
 * latency), gstvkmlinfersettings.c (property types, devices, libvkml's context and log).
 * Private to the plugin. */
#pragma once

#include "gstvkmlinfer.h"
#include "gstvkmlbundle.h"
#include "gstvkmlconvert.h"
#include "gstvkmlinferplan.h"
#include "gstvkmlinflight.h"
#include "gstvkmlinferroi.h"
#include "gstvkmlinferswap.h"
#include "gstvkmlshared.h"

#include <gst/base/gstbasetransform.h>
#include <vkml/vkml.h>

G_BEGIN_DECLS GST_DEBUG_CATEGORY_EXTERN (gst_vkml_infer_debug);
/* libvkml's own log, routed there through vkml_context_params.log_callback */
GST_DEBUG_CATEGORY_EXTERN (gst_vkml_lib_debug);

struct _GstVkmlInfer
{
  GstBaseTransform parent;

  /* properties, under the object lock */
  gchar *model_path;
  gchar *swap_path;             /* set while running: the model for the next frame */
  gchar *device;
  guint64 budget;
  gboolean data_parallel;
  gchar *model_id;              /* NULL: the element's name */
  gchar *instance_id;           /* model-instance-id; NULL: a model of its own */
  guint64 batch_timeout_us;
  gint precision;               /* a vkml_precision */
  guint cpu_threads;            /* cpu-threads; 0: every core */
  guint max_in_flight;
  guint interval;
  guint batch_size;
  gchar *input_tensors;         /* "name=file.pb,..." as set */
  gchar *config;                /* the model bundle's path; NULL: beside the model */
  guint pre_set;                /* GstVkmlBundleField: pre-processing properties set
                                 * (they override the bundle) */

  /* statistics and QoS, under the object lock */
  guint64 frames_processed;
  guint64 frames_skipped_qos;
  guint64 latency_last_us;
  guint64 latency_sum_us;
  guint64 latency_reported_us;  /* the run latency the last LATENCY query added */
  gboolean latency_posted;      /* a LATENCY message went out since that query */
  GstClockTime qos_earliest;    /* running time before which frames are late */
  GstVkmlPreprocessSettings pre;        /* resize, pad_value, bgr, scale */
  gchar *mean, *std, *input_size;       /* as set */
  GstVkmlInferRoi roi;          /* roi=objects (gstvkmlinferroi.c) */

  /* from the first start() to finalize(), or to the stop() after a device loss: the
   * process's shared context (gstvkmlshared.h), or one set on the element; ctx is
   * shared_ctx's vkml_context. set_context may set shared_ctx (object lock) before. */
  GstVkmlSharedContext *shared_ctx;
  vkml_context *ctx;
  gboolean ctx_lost;
  /* from start() to stop() with model-instance-id: the instance (set.instance too) */
  GstVkmlInstance *instance;

  /* from start() to stop(). The streaming thread plans (set_caps, a model swap) and
   * changes `model` and `plan` under plan_lock, once no frame is in flight; the src pad
   * task reads `plan` only for frames in flight. transform_caps (any thread) reads them
   * and keeps a plan for tensor caps in `probe`, under plan_lock. */
  GMutex plan_lock;
  GstVkmlInferSettings set;     /* the properties as start() read them */
  GstVkmlBundle *bundle;        /* the model's bundle, NULL: none (object lock) */
  vkml_model *model;
  GstVkmlInferPlan plan;        /* for the negotiated caps; plan.caps NULL: none */
  GstVkmlInferPlan probe;       /* for tensor caps transform_caps was asked about */
  GstCaps *refused_caps;        /* reported once, not again on each retry */
  GstVkmlInferSwap swap;        /* a model loading aside (gstvkmlinferswap.c) */

  /* frames between arrival and push, and the src pad task (gstvkmlinflight.h) */
  GstVkmlInflight inflight;
  GstPadActivateModeFunction base_src_activate;
  /* streaming thread */
  GstVkmlInflightFrame *pending;        /* arrived, not yet queued */
  GQueue forming;               /* frames of the batch being filled (plan.batch > 1) */
  guint forming_runs;           /* of them, frames with a run */
  guint64 frames_seen;          /* for inference-interval */
};

/* gstvkmlinfersettings.c */
#define GST_TYPE_VKML_RESIZE (gst_vkml_resize_get_type ())
GType gst_vkml_resize_get_type (void);
#define GST_TYPE_VKML_CHANNEL_ORDER (gst_vkml_channel_order_get_type ())
GType gst_vkml_channel_order_get_type (void);
#define GST_TYPE_VKML_PRECISION (gst_vkml_precision_get_type ())
GType gst_vkml_precision_get_type (void);
/* The session's device set from the 'device' text; FALSE (error posted) when it does
 * not parse. "default" (or NULL, or -2) leaves the set to libvkml's default. */
gboolean gst_vkml_infer_parse_devices (GstVkmlInfer * self, const gchar * text,
    int *indices, size_t *n);
/* Names @object (NULL: none) as the element libvkml's log lines on this thread concern
 * (they go to its debug log); returns the one named before, to restore. */
GstObject *gst_vkml_infer_lib_scope (GstObject * object);
/* self->ctx: one set on the element or answered by a peer (GstContext "vkml.context"),
 * else the process's default (posted as HAVE_CONTEXT), with libvkml's log in the "vkml"
 * category; FALSE: error posted. */
gboolean gst_vkml_infer_create_context (GstVkmlInfer * self);
/* Lets go of self->ctx (the device was lost: the next start opens the devices anew). */
void gst_vkml_infer_release_context (GstVkmlInfer * self, gboolean lost);
/* GST_QUERY_CONTEXT: answers with the element's context; FALSE when it has none or the
 * query asks for another type. */
gboolean gst_vkml_infer_answer_context (GstVkmlInfer * self, GstQuery * query);
/* GstElement::set_context. */
void gst_vkml_infer_set_context (GstElement * element, GstContext * context);
/* The pre-processing properties, parsed, with the bundle's input settings for those
 * not set; FALSE (error posted) when one does not parse. */
gboolean gst_vkml_infer_read_settings (GstVkmlInfer * self,
    GstVkmlPreprocessSettings * pre);
/* self->bundle for the model at @model_path: 'config', else the JSON beside the model
 * when there is one. FALSE (error posted) when it cannot be read or is bad. */
gboolean gst_vkml_infer_read_bundle (GstVkmlInfer * self,
    const gchar * model_path);

/* gstvkmlinferbatch.c (streaming thread but finish_frame and latency): frames
 * collected plan.batch at a time into one run. add queues the frame or keeps it in the
 * batch being filled (submitted once full); flush submits a partial batch (padded with
 * its last frame) and queues its frames; drop frees them. */
GstFlowReturn gst_vkml_infer_batch_add (GstVkmlInfer * self,
    GstVkmlInflightFrame * frame);
GstFlowReturn gst_vkml_infer_batch_flush (GstVkmlInfer * self);
void gst_vkml_infer_batch_drop (GstVkmlInfer * self);
/* Task: the batch frame's meta (its slice of the outputs), waiting for the batch's run
 * first; NULL and *ret an error (posted) when the run failed. */
GstVkmlTensorMeta *gst_vkml_infer_batch_finish_frame (GstVkmlInfer * self,
    GstVkmlInflightFrame * frame, GstFlowReturn * ret);
/* With plan_lock held: the latency a batch adds ((N - 1) frame durations). */
GstClockTime gst_vkml_infer_batch_latency (GstVkmlInfer * self);

/* gstvkmlinferstream.c: posts the error of a failed run (naming a lost device). */
void gst_vkml_infer_run_failed (GstVkmlInfer * self, const vkml_error * err);

/* gstvkmlinferswap.c: streaming thread, before a frame is taken: a 'model' set while
 * running goes to the worker to load and plan; a model the worker made ready replaces
 * the running one (after the frames in flight). Returns the flow of that wait. */
GstFlowReturn gst_vkml_infer_swap_model (GstVkmlInfer * self);
/* stop(): cancels and joins the worker; returns the path of a swap requested and not
 * yet made or refused (NULL: none), for the next start. */
gchar *gst_vkml_infer_swap_stop (GstVkmlInfer * self);
/* gstvkmlinfer.c: the plan, for the debug log. */
void gst_vkml_infer_log_plan (GstVkmlInfer * self);

/* gstvkmlinferstream.c: the vfuncs of the streaming path, and the src pad's task. */
void gst_vkml_infer_init_inflight (GstVkmlInfer * self);
GstFlowReturn gst_vkml_infer_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input);
GstFlowReturn gst_vkml_infer_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf);
gboolean gst_vkml_infer_sink_event (GstBaseTransform * trans, GstEvent * event);
gboolean gst_vkml_infer_src_event (GstBaseTransform * trans, GstEvent * event);
gboolean gst_vkml_infer_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);
/* Posts the error of a failed run (a lost device named). */
void gst_vkml_infer_run_failed (GstVkmlInfer * self, const vkml_error * err);
/* Names @meta (of the frame's buffer) by model-id, and mirrors it as GstTensorMeta on
 * GStreamer >= 1.26. */
void gst_vkml_infer_name_meta (GstVkmlInfer * self,
    GstVkmlInflightFrame * frame, GstVkmlTensorMeta * meta);
/* The frame's outputs as a new meta of its buffer, named by model-id; returns it. */
GstVkmlTensorMeta *gst_vkml_infer_attach_meta (GstVkmlInfer * self,
    GstVkmlInflightFrame * frame);
/* A finished frame's run latency (submit_us to done_us) into the statistics. */
void gst_vkml_infer_count_run (GstVkmlInfer * self,
    GstVkmlInflightFrame * frame);

/* gstvkmlinferroi.c: start() reads the roi properties (FALSE: error posted; sets
 * set.roi_objects); the streaming thread runs a frame's objects before queueing it. */
gboolean gst_vkml_infer_roi_start (GstVkmlInfer * self);
GstFlowReturn gst_vkml_infer_roi_run (GstVkmlInfer * self,
    GstVkmlInflightFrame * frame);

G_END_DECLS
