/* vkmlinfer's streaming path (gstvkmlinferpriv.h): a frame arriving gets its run
 * submitted without waiting (each frame holds its own inputs and outputs) and is queued;
 * the src pad task pushes the frames in arrival order as their runs end
 * (gstvkmlinflight.c). Serialized events wait for the frames before them, a flush drops
 * them; inference-interval and QoS let frames pass without a run; the run latency feeds
 * the statistics and the LATENCY answer. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmlinferpriv.h"
#include "gstvkmltensormeta.h"

#define GST_CAT_DEFAULT gst_vkml_infer_debug
/* GstVkmlInfer derives from GstBaseTransform: its default vfuncs are the parent's */
#define parent_class ((GstBaseTransformClass *) g_type_class_peek (GST_TYPE_BASE_TRANSFORM))

/* Posts the error of a failed run. A lost device gets its own message naming it: its
 * sessions are dead, and restarting the pipeline (a new context) is the way back. */
void
gst_vkml_infer_run_failed (GstVkmlInfer * self, const vkml_error * err)
{
  vkml_device_info info = { 0 };
  vkml_error ignored = { 0 };

  if (err->status != VKML_ERROR_DEVICE_LOST) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
        ("Running the model failed: %s", err->message), (NULL));
    return;
  }
  self->ctx_lost = TRUE;
  vkml_context_device_info (self->ctx, vkml_session_device (self->plan.session),
      &info, &ignored);
  GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
      ("The device \"%s\" (device %d) was lost: %s", info.name,
          vkml_session_device (self->plan.session), err->message),
      ("Restart the pipeline to open the devices again, or set 'device' to "
          "another device (-1 is the CPU)."));
}

/* Whether downstream's last QoS event makes this frame late (see src_event). */
static gboolean
gst_vkml_infer_frame_is_late (GstVkmlInfer * self, GstBuffer * buf)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstClockTime running, earliest;

  if (!gst_base_transform_is_qos_enabled (trans)
      || trans->segment.format != GST_FORMAT_TIME
      || !GST_BUFFER_PTS_IS_VALID (buf))
    return FALSE;
  running = gst_segment_to_running_time (&trans->segment, GST_FORMAT_TIME,
      GST_BUFFER_PTS (buf));
  GST_OBJECT_LOCK (self);
  earliest = self->qos_earliest;
  GST_OBJECT_UNLOCK (self);
  return GST_CLOCK_TIME_IS_VALID (running) && GST_CLOCK_TIME_IS_VALID (earliest)
      && running <= earliest;
}

/* Whether this frame gets a run: every inference-interval-th frame that is not late. */
static gboolean
gst_vkml_infer_wants_run (GstVkmlInfer * self, GstBuffer * buf)
{
  guint interval;
  gboolean due;

  GST_OBJECT_LOCK (self);
  interval = MAX (self->interval, 1);
  GST_OBJECT_UNLOCK (self);
  due = self->frames_seen++ % interval == 0;
  if (!due || !gst_vkml_infer_frame_is_late (self, buf))
    return due;
  GST_OBJECT_LOCK (self);
  self->frames_skipped_qos++;
  GST_OBJECT_UNLOCK (self);
  GST_LOG_OBJECT (self, "frame %" GST_TIME_FORMAT " late: no inference",
      GST_TIME_ARGS (GST_BUFFER_PTS (buf)));
  return FALSE;
}

/* The frame arrives (after a pending model swap): generate_output queues it. */
GstFlowReturn
gst_vkml_infer_submit_input_buffer (GstBaseTransform * trans,
    G_GNUC_UNUSED gboolean is_discont, GstBuffer * input)
{
  GstVkmlInfer *self = GST_VKML_INFER (trans);
  GstFlowReturn ret = gst_vkml_infer_swap_model (self);

  if (ret == GST_FLOW_OK && !self->plan.caps)
    ret = GST_FLOW_NOT_NEGOTIATED;
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (input);
    return ret;
  }
  g_assert (!self->pending);
  self->pending = gst_vkml_inflight_frame_new (input, self->plan.n_outputs);
  self->pending->wants_run = gst_vkml_infer_wants_run (self, input);
  return GST_FLOW_OK;
}

/* Gives the frame its inputs (its own copy of the video's bytes, or its mapped tensors)
 * and output buffers, and submits its run. */
static GstFlowReturn
gst_vkml_infer_submit_run (GstVkmlInfer * self, GstVkmlInflightFrame * frame)
{
  vkml_error err = { 0 };
  vkml_tensor *inputs;
  GstObject *scope;
  gchar *why = NULL;
  vkml_status st;
  gsize n = 0;

  inputs = gst_vkml_infer_plan_frame_inputs (&self->plan, frame, &n, &why);
  if (!inputs) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Could not read a frame: %s.",
            why), (NULL));
    g_free (why);
    return GST_FLOW_ERROR;
  }
  if (!gst_vkml_infer_plan_acquire_outputs (&self->plan, frame)) {
    g_free (inputs);
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not get buffers for the model's outputs."), (NULL));
    return GST_FLOW_ERROR;
  }
  frame->submit_us = g_get_monotonic_time ();
  scope = gst_vkml_infer_lib_scope (GST_OBJECT (self));
  if (self->plan.batcher)       /* a shared instance: one item of its batches */
    st = vkml_batcher_submit (self->plan.batcher, inputs, n, frame->outputs,
        frame->n_outputs, gst_vkml_inflight_frame_completed, frame,
        &frame->run, &err);
  else
    st = vkml_session_submit (self->plan.session, inputs, n, frame->outputs,
        frame->n_outputs, gst_vkml_inflight_frame_completed, frame,
        &frame->run, &err);
  gst_vkml_infer_lib_scope (scope);
  g_free (inputs);              /* copied by the submit; the data stay the frame's */
  if (st != VKML_OK) {
    gst_vkml_infer_run_failed (self, &err);
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

/* Records a finished run's latency; posts a LATENCY message (once until the next query)
 * when the mean run latency moved far from the one the last LATENCY query reported (the
 * pipeline asks again). */
void
gst_vkml_infer_count_run (GstVkmlInfer * self, GstVkmlInflightFrame * frame)
{
  gint64 done = frame->done_us ? frame->done_us : g_get_monotonic_time ();
  guint64 us = (guint64) MAX (done - frame->submit_us, 0), mean, reported;
  gboolean post;

  GST_OBJECT_LOCK (self);
  self->latency_last_us = us;
  self->latency_sum_us += us;
  self->frames_processed++;
  mean = self->latency_sum_us / self->frames_processed;
  reported = self->latency_reported_us;
  post = !self->latency_posted
      && (mean > reported + reported / 2 || mean < reported / 2);
  self->latency_posted |= post;
  GST_OBJECT_UNLOCK (self);
  if (post)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_latency (GST_OBJECT (self)));
}

void
gst_vkml_infer_name_meta (GstVkmlInfer * self, GstVkmlInflightFrame * frame,
    GstVkmlTensorMeta * meta)
{
  GST_OBJECT_LOCK (self);
  gst_vkml_tensor_meta_set_model_id (meta, self->model_id && *self->model_id ?
      self->model_id : GST_OBJECT_NAME (self));
  GST_OBJECT_UNLOCK (self);
  gst_vkml_tensor_meta_attach_upstream (frame->buf, meta);
}

/* A one-frame run's outputs as the frame's meta (roi=objects: one per object). */
GstVkmlTensorMeta *
gst_vkml_infer_attach_meta (GstVkmlInfer * self, GstVkmlInflightFrame * frame)
{
  GstVkmlTensorMeta *meta = gst_vkml_infer_plan_finish_frame (&self->plan,
      frame);

  gst_vkml_infer_name_meta (self, frame, meta);
  return meta;
}

/* The frame's run is over (or waited for here): its buffer, with the meta, to push.
 * The src pad task calls it (a GstVkmlInflightFinish). */
static GstFlowReturn
gst_vkml_infer_finish_frame (gpointer user, GstVkmlInflightFrame * frame,
    GstBuffer ** outbuf)
{
  GstVkmlInfer *self = user;
  vkml_error err = { 0 };
  GstFlowReturn ret = GST_FLOW_OK;

  if (frame->batch) {
    GstVkmlTensorMeta *meta = gst_vkml_infer_batch_finish_frame (self, frame,
        &ret);

    if (meta) {
      gst_vkml_infer_name_meta (self, frame, meta);
      gst_vkml_infer_count_run (self, frame);
    }
  } else if (frame->run) {
    if (vkml_run_wait (&frame->run, &err) != VKML_OK) {
      gst_vkml_infer_run_failed (self, &err);
      ret = GST_FLOW_ERROR;
    } else {
      gst_vkml_infer_attach_meta (self, frame);
      gst_vkml_infer_count_run (self, frame);
    }
  }
  if (ret == GST_FLOW_OK) {
    *outbuf = frame->buf;
    frame->buf = NULL;
  }
  return ret;
}

/* Queues the arrived frame (with its run submitted, once a lane is free); the src pad
 * task pushes it. Gives no buffer here. */
GstFlowReturn
gst_vkml_infer_generate_output (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  GstVkmlInfer *self = GST_VKML_INFER (trans);
  GstVkmlInflightFrame *frame = self->pending;
  GstFlowReturn ret;

  *outbuf = NULL;
  if (!frame)
    return GST_FLOW_OK;
  self->pending = NULL;
  if (!frame->wants_run && self->plan.tensor_mode) {
    /* without its run a tensor buffer would carry the inputs under the outputs' caps */
    gst_vkml_inflight_frame_free (frame);
    return GST_FLOW_OK;
  }
  if (frame->wants_run && self->roi.run_mode == GST_VKML_ROI_OBJECTS
      && !self->plan.tensor_mode
      && (ret = gst_vkml_infer_roi_run (self, frame)) != GST_FLOW_OK) {
    gst_vkml_inflight_frame_free (frame);
    return ret;
  }
  if (self->plan.batch > 1)
    return gst_vkml_infer_batch_add (self, frame);
  ret = gst_vkml_inflight_wait_room (&self->inflight, frame->wants_run,
      self->plan.lanes);
  if (ret == GST_FLOW_OK && frame->wants_run)
    ret = gst_vkml_infer_submit_run (self, frame);
  if (ret != GST_FLOW_OK) {
    gst_vkml_inflight_frame_free (frame);
    return ret;
  }
  ret = gst_vkml_inflight_push (&self->inflight, frame);
  /* One in flight: the frame is out before the next is taken, and the push's result
   * goes upstream with this frame. */
  if (ret == GST_FLOW_OK && self->plan.lanes == 1)
    ret = gst_vkml_inflight_drain (&self->inflight);
  return ret;
}

/* Serialized events (EOS, segment, caps, gap ...) go out after the frames before them;
 * a flush drops the held frames. */
gboolean
gst_vkml_infer_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstVkmlInfer *self = GST_VKML_INFER (trans);
  GstEventType type = GST_EVENT_TYPE (event);
  gboolean ok;

  if (type != GST_EVENT_FLUSH_STOP && GST_EVENT_IS_SERIALIZED (event)) {
    /* a batch being filled runs now, padded: no frame waits for frames to come */
    GstFlowReturn ret = gst_vkml_infer_batch_flush (self);

    if (ret == GST_FLOW_OK)
      ret = gst_vkml_inflight_drain (&self->inflight);

    if (ret != GST_FLOW_OK)
      GST_DEBUG_OBJECT (self, "drained before %" GST_PTR_FORMAT ": %s", event,
          gst_flow_get_name (ret));
  }
  ok = parent_class->sink_event (trans, event);
  if (type == GST_EVENT_FLUSH_START) {
    /* after forwarding it: a push downstream now returns, and the task pauses */
    gst_vkml_inflight_flush_start (&self->inflight);
  } else if (type == GST_EVENT_FLUSH_STOP) {
    gst_vkml_inflight_flush_stop (&self->inflight);
    gst_vkml_infer_batch_drop (self);
    g_clear_pointer (&self->pending, gst_vkml_inflight_frame_free);
    GST_OBJECT_LOCK (self);
    self->qos_earliest = GST_CLOCK_TIME_NONE;
    GST_OBJECT_UNLOCK (self);
  }
  return ok;
}

/* The src pad's task lives while the pad is active. */
static gboolean
gst_vkml_infer_src_activate_mode (GstPad * pad, GstObject * parent,
    GstPadMode mode, gboolean active)
{
  GstVkmlInfer *self = GST_VKML_INFER (parent);

  if (active)
    gst_vkml_inflight_flush_stop (&self->inflight);
  else
    gst_vkml_inflight_stop (&self->inflight);
  return self->base_src_activate (pad, parent, mode, active);
}

void
gst_vkml_infer_init_inflight (GstVkmlInfer * self)
{
  GstPad *srcpad = GST_BASE_TRANSFORM_SRC_PAD (self);

  gst_vkml_inflight_init (&self->inflight, srcpad, gst_vkml_infer_finish_frame,
      self);
  self->base_src_activate = GST_PAD_ACTIVATEMODEFUNC (srcpad);
  gst_pad_set_activatemode_function (srcpad,
      GST_DEBUG_FUNCPTR (gst_vkml_infer_src_activate_mode));
}

/* QoS: a frame whose running time is at or before timestamp + diff of downstream's
 * last QoS event is late (as GstBaseTransform judges it, which would drop it). */
gboolean
gst_vkml_infer_src_event (GstBaseTransform * trans, GstEvent * event)
{
  GstVkmlInfer *self = GST_VKML_INFER (trans);

  if (GST_EVENT_TYPE (event) == GST_EVENT_QOS) {
    GstClockTimeDiff diff;
    GstClockTime timestamp;

    gst_event_parse_qos (event, NULL, NULL, &diff, &timestamp);
    GST_OBJECT_LOCK (self);
    if (diff >= 0 || (GstClockTime) (-diff) <= timestamp)
      self->qos_earliest = timestamp + diff;
    GST_OBJECT_UNLOCK (self);
  }
  return parent_class->src_event (trans, event);
}

/* The latency the element adds: a frame leaves as soon as its run is over, so a frame
 * takes the mean run latency (measured from submit to completion, with the other runs in
 * flight; 0 before the first run: the element then posts a LATENCY message). It may
 * hold up to max-in-flight frames (batches; a data-parallel session's rounded lanes),
 * each that long: the most it can add. With
 * batch-size N, the first frame of a batch also waits for N - 1 frames to come. */
static void
gst_vkml_infer_added_latency (GstVkmlInfer * self, GstClockTime * min,
    GstClockTime * max)
{
  GstClockTime batch_wait;
  guint lanes;

  g_mutex_lock (&self->plan_lock);
  batch_wait = gst_vkml_infer_batch_latency (self);
  lanes = self->plan.lanes;
  g_mutex_unlock (&self->plan_lock);
  GST_OBJECT_LOCK (self);
  self->latency_reported_us = self->frames_processed ?
      self->latency_sum_us / self->frames_processed : 0;
  self->latency_posted = FALSE;
  *min = self->latency_reported_us * GST_USECOND;
  *max = *min * MAX (self->max_in_flight, lanes) + batch_wait;
  *min += batch_wait;
  GST_OBJECT_UNLOCK (self);
}

gboolean
gst_vkml_infer_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstVkmlInfer *self = GST_VKML_INFER (trans);
  GstClockTime min, max, our_min, our_max;
  gboolean live;

  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT
      && gst_vkml_infer_answer_context (self, query))
    return TRUE;
  if (direction == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_CUSTOM) {
    gboolean answered;

    GST_OBJECT_LOCK (self);
    answered = gst_vkml_bundle_answer (query, self->model_id
        && *self->model_id ? self->model_id : GST_OBJECT_NAME (self),
        self->bundle ? self->bundle->path : NULL);
    GST_OBJECT_UNLOCK (self);
    if (answered)
      return TRUE;
  }
  if (!parent_class->query (trans, direction, query))
    return FALSE;
  if (direction != GST_PAD_SRC || GST_QUERY_TYPE (query) != GST_QUERY_LATENCY)
    return TRUE;
  gst_query_parse_latency (query, &live, &min, &max);
  gst_vkml_infer_added_latency (self, &our_min, &our_max);
  GST_DEBUG_OBJECT (self, "adding %" GST_TIME_FORMAT " of latency (at most %"
      GST_TIME_FORMAT ")", GST_TIME_ARGS (our_min), GST_TIME_ARGS (our_max));
  gst_query_set_latency (query, live, min + our_min,
      GST_CLOCK_TIME_IS_VALID (max) ? max + our_max : max);
  return TRUE;
}
