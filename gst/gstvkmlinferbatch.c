/* vkmlinfer's batches (batch-size, gstvkmlinferpriv.h): with a model input of batch N
 * (plan.batch), the frames that get a run are collected N at a time and run as one: the
 * N frames' bytes are the session's frame input [N, bytes] (libvkml's pre-processing
 * converts frame b into image b), and each frame leaves with its own meta holding its
 * slice of the outputs (those whose dim 0 is N; the others whole).
 *
 * Order: the frames that arrive while a batch fills (those that pass without a run too)
 * wait in `forming`, and are queued (gstvkmlinflight.c) in arrival order once the batch
 * is submitted, each run frame holding a reference to the batch. The task finishes them
 * one by one: the first waits for the batch's run. A serialized event (EOS, caps,
 * segment ...) and a model swap submit a partial batch first (the last frame repeated
 * into the empty places, their results dropped); a flush drops it with the held frames.
 *
 * Threads: add, flush and drop run on the streaming thread (drop also from stop, once the
 * src pad is deactivated); finish_frame on the src pad task, one frame at a time; the
 * release of the last reference wherever the last frame is freed (one of those). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmlinferpriv.h"

#include <string.h>

#define GST_CAT_DEFAULT gst_vkml_infer_debug

typedef struct
{
  GstVkmlInflightFrame *carrier;        /* the run: its input, outputs and run */
  guint n_frames;               /* frames in it (the rest repeat the last) */
  gboolean waited;              /* the task waited for the run (then below) */
  gboolean failed;
  vkml_error err;
  GstBuffer **outs;             /* the outputs, unmapped, once waited */
} GstVkmlInferBatch;

static void
batch_clear (gpointer data)
{
  GstVkmlInferBatch *batch = data;
  gsize i;

  for (i = 0; batch->outs && i < batch->carrier->n_outputs; i++)
    gst_clear_buffer (&batch->outs[i]);
  g_free (batch->outs);
  gst_vkml_inflight_frame_free (batch->carrier);        /* waits for the run */
}

static void
batch_release (gpointer batch)
{
  g_atomic_rc_box_release_full (batch, batch_clear);
}

/* Queues the forming frames in order, the run frames holding @batch (may be NULL: no run
 * frame among them). Frees them when the queue refuses them. */
static GstFlowReturn
queue_forming (GstVkmlInfer * self, GstVkmlInferBatch * batch)
{
  GstVkmlInflightFrame *frame;
  GstFlowReturn ret = GST_FLOW_OK;
  guint index = 0;

  while ((frame = g_queue_pop_head (&self->forming))) {
    if (frame->wants_run) {
      frame->batch = g_atomic_rc_box_acquire (batch);
      frame->batch_release = batch_release;
      frame->batch_index = index++;
      frame->submit_us = batch->carrier->submit_us;
      frame->has_geometry = TRUE;
      frame->geometry = self->plan.geometry;
    }
    if (ret == GST_FLOW_OK)
      ret = gst_vkml_inflight_push (&self->inflight, frame);
    else
      gst_vkml_inflight_frame_free (frame);
  }
  self->forming_runs = 0;
  return ret;
}

/* The batch's input (the run frames' bytes, the last repeated to plan.batch) and output
 * buffers, and its run submitted. */
static GstFlowReturn
submit_batch (GstVkmlInfer * self, GstVkmlInferBatch * batch)
{
  GstVkmlInferPlan *plan = &self->plan;
  GstVkmlInflightFrame *carrier = batch->carrier;
  GstBuffer **bufs = g_new0 (GstBuffer *, plan->batch);
  vkml_tensor *in = g_new0 (vkml_tensor, plan->n_inputs + 1);
  GstFlowReturn ret = GST_FLOW_OK;
  vkml_error err = { 0 };
  gchar *why = NULL;
  guint8 *data;
  GList *l;
  guint k = 0;

  for (l = self->forming.head; l; l = l->next) {
    GstVkmlInflightFrame *frame = l->data;

    if (frame->wants_run)
      bufs[k++] = frame->buf;
  }
  batch->n_frames = k;
  for (; k < plan->batch; k++)
    bufs[k] = bufs[batch->n_frames - 1];
  data = gst_vkml_infer_plan_acquire_input (plan, carrier);
  if (!data) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not get a buffer for the frames' bytes."), (NULL));
    ret = GST_FLOW_ERROR;
  } else if (!gst_vkml_infer_plan_video_inputs (plan, bufs, data, in, &why)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Could not read a frame: %s.",
            why), (NULL));
    ret = GST_FLOW_ERROR;
  } else if (!gst_vkml_infer_plan_acquire_outputs (plan, carrier)) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not get buffers for the model's outputs."), (NULL));
    ret = GST_FLOW_ERROR;
  } else {
    carrier->submit_us = g_get_monotonic_time ();
    if (vkml_session_submit (plan->session, in, plan->n_inputs,
            carrier->outputs, carrier->n_outputs,
            gst_vkml_inflight_frame_completed, carrier, &carrier->run,
            &err) != VKML_OK) {
      gst_vkml_infer_run_failed (self, &err);
      ret = GST_FLOW_ERROR;
    }
  }
  g_free (why);
  g_free (in);
  g_free (bufs);
  return ret;
}

GstFlowReturn
gst_vkml_infer_batch_flush (GstVkmlInfer * self)
{
  GstVkmlInferBatch *batch;
  GstFlowReturn ret;
  guint n = self->plan.batch;

  if (!self->forming.length)
    return GST_FLOW_OK;
  if (!self->forming_runs)
    return queue_forming (self, NULL);
  if (self->forming_runs < n)
    GST_DEBUG_OBJECT (self, "a partial batch: %u of %u frames",
        self->forming_runs, n);
  /* room for this batch's runs: the queue holds at most lanes - 1 other batches */
  ret = gst_vkml_inflight_wait_room (&self->inflight, TRUE,
      (self->plan.lanes - 1) * n + 1);
  batch = g_atomic_rc_box_new0 (GstVkmlInferBatch);
  batch->carrier = gst_vkml_inflight_frame_new (NULL, self->plan.n_outputs);
  if (ret == GST_FLOW_OK)
    ret = submit_batch (self, batch);
  if (ret == GST_FLOW_OK)
    ret = queue_forming (self, batch);
  else
    gst_vkml_infer_batch_drop (self);
  batch_release (batch);
  if (ret == GST_FLOW_OK && self->plan.lanes == 1)
    ret = gst_vkml_inflight_drain (&self->inflight);
  return ret;
}

GstFlowReturn
gst_vkml_infer_batch_add (GstVkmlInfer * self, GstVkmlInflightFrame * frame)
{
  GstFlowReturn ret;

  if (!frame->wants_run && !self->forming.length) {
    /* nothing to keep it behind */
    ret = gst_vkml_inflight_wait_room (&self->inflight, FALSE, 0);
    if (ret != GST_FLOW_OK) {
      gst_vkml_inflight_frame_free (frame);
      return ret;
    }
    ret = gst_vkml_inflight_push (&self->inflight, frame);
    if (ret == GST_FLOW_OK && self->plan.lanes == 1)
      ret = gst_vkml_inflight_drain (&self->inflight);
    return ret;
  }
  g_queue_push_tail (&self->forming, frame);
  if (frame->wants_run)
    self->forming_runs++;
  return self->forming_runs == self->plan.batch ?
      gst_vkml_infer_batch_flush (self) : GST_FLOW_OK;
}

void
gst_vkml_infer_batch_drop (GstVkmlInfer * self)
{
  GstVkmlInflightFrame *frame;

  while ((frame = g_queue_pop_head (&self->forming)))
    gst_vkml_inflight_frame_free (frame);
  self->forming_runs = 0;
}

/* Task: the first frame of the batch waits for its run and takes its outputs. */
static gboolean
batch_wait (GstVkmlInferBatch * batch)
{
  GstVkmlInflightFrame *carrier = batch->carrier;
  gsize i;

  if (batch->waited)
    return !batch->failed;
  batch->waited = TRUE;
  if (carrier->run && vkml_run_wait (&carrier->run, &batch->err) != VKML_OK) {
    batch->failed = TRUE;
    return FALSE;
  }
  batch->outs = g_new0 (GstBuffer *, carrier->n_outputs + 1);
  for (i = 0; i < carrier->n_outputs; i++) {
    gst_buffer_unmap (carrier->out_bufs[i], &carrier->out_maps[i]);
    carrier->outputs[i].data = NULL;
    batch->outs[i] = g_steal_pointer (&carrier->out_bufs[i]);
  }
  return TRUE;
}

GstVkmlTensorMeta *
gst_vkml_infer_batch_finish_frame (GstVkmlInfer * self,
    GstVkmlInflightFrame * frame, GstFlowReturn * ret)
{
  GstVkmlInferBatch *batch = frame->batch;
  GstVkmlInflightFrame *carrier = batch->carrier;
  GstVkmlTensorMeta *meta;
  gboolean first = !batch->waited;
  gsize i;

  if (!batch_wait (batch)) {
    if (first)
      gst_vkml_infer_run_failed (self, &batch->err);
    *ret = GST_FLOW_ERROR;
    return NULL;
  }
  frame->done_us = carrier->done_us;
  frame->buf = gst_buffer_make_writable (frame->buf);
  meta = gst_buffer_add_vkml_tensor_meta (frame->buf);
  meta->has_geometry = frame->has_geometry;
  meta->geometry = frame->geometry;
  for (i = 0; i < carrier->n_outputs; i++) {
    const vkml_tensor_info *info = vkml_session_output (self->plan.session, i);
    const vkml_tensor *t = &carrier->outputs[i];
    gint64 dims[VKML_MAX_RANK];
    gsize size = gst_buffer_get_size (batch->outs[i]), slice;
    GstBuffer *part;

    memcpy (dims, t->dims, sizeof (dims));
    if (t->rank < 1 || dims[0] != (gint64) self->plan.batch) {
      gst_vkml_tensor_meta_add (meta, info->name, t->dtype, (guint) t->rank, dims, batch->outs[i]);     /* not per frame: whole, to each */
      continue;
    }
    slice = size / self->plan.batch;
    dims[0] = 1;
    part = gst_buffer_copy_region (batch->outs[i], GST_BUFFER_COPY_MEMORY,
        frame->batch_index * slice, slice);
    gst_vkml_tensor_meta_add (meta, info->name, t->dtype, (guint) t->rank,
        dims, part);
    gst_buffer_unref (part);
  }
  *ret = GST_FLOW_OK;
  return meta;
}

/* The wait a batch adds: the first frame waits for N - 1 more, a frame duration each (by
 * the caps' framerate; 0 when it has none). */
GstClockTime
gst_vkml_infer_batch_latency (GstVkmlInfer * self)
{
  const GstVideoInfo *v = &self->plan.vinfo;

  if (self->plan.batcher)       /* a shared instance: at most its batch-timeout */
    return self->set.batch_timeout_us * GST_USECOND;
  if (self->plan.batch < 2 || self->plan.tensor_mode || v->fps_n <= 0
      || v->fps_d <= 0)
    return 0;
  return gst_util_uint64_scale_int ((self->plan.batch - 1) * GST_SECOND,
      v->fps_d, v->fps_n);
}
