/* vkmlinfer's frames in flight and the src pad task that pushes them (see
 * gstvkmlinflight.h).
 *
 * The streaming thread converts a frame, submits its run (vkml_session_submit) and
 * queues it; the task takes the oldest frame, waits for its run (vkml_run_wait), and
 * pushes it downstream. So frame N+1 is converted and submitted while N's run goes on,
 * frames leave in arrival order as soon as their run is over, and only the task pushes
 * buffers. Serialized events wait (drain) until the frames before them are out, then go
 * from the streaming thread while the task is idle.
 *
 * Which calls may run at the same time (all take q->lock for the shared fields):
 *   wait_room, push, drain, flush_stop   streaming thread (one at a time)
 *   the task loop                        the src pad's task thread
 *   flush_start                          the thread sending FLUSH_START
 *   stop                                 the thread deactivating the src pad
 *   frame_completed                      a vkml thread, once per run
 * flush_stop runs while the task is paused (after flush_start) or stopped, so the
 * frames it drops are not in the task's hands. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmlinflight.h"

#include <stdlib.h>

/* Frames held at most (runs and frames waiting behind them) before the streaming thread
 * waits, whatever the runs allowed in flight and inference-interval. */
#define MAX_HELD_FRAMES 64

GstVkmlInflightFrame *
gst_vkml_inflight_frame_new (GstBuffer * buf, gsize n_outputs)
{
  GstVkmlInflightFrame *frame = g_new0 (GstVkmlInflightFrame, 1);

  frame->buf = buf;
  frame->n_outputs = n_outputs;
  frame->outputs = g_new0 (vkml_tensor, n_outputs);
  frame->out_bufs = g_new0 (GstBuffer *, n_outputs);
  frame->out_maps = g_new0 (GstMapInfo, n_outputs);
  return frame;
}

void
gst_vkml_inflight_frame_unmap_inputs (GstVkmlInflightFrame * frame)
{
  gsize i;

  for (i = 0; i < frame->n_inputs; i++)
    gst_buffer_unmap (frame->buf, &frame->in_maps[i]);
  frame->n_inputs = 0;
  g_clear_pointer (&frame->in_maps, g_free);
}

void
gst_vkml_inflight_frame_free (GstVkmlInflightFrame * frame)
{
  gsize i;

  if (frame->run)
    vkml_run_wait (&frame->run, NULL);
  if (frame->batch)
    frame->batch_release (frame->batch);
  gst_vkml_inflight_frame_unmap_inputs (frame);
  for (i = 0; i < frame->n_outputs; i++) {
    if (!frame->out_bufs[i]) {
      free (frame->outputs[i].data);    /* an unbounded output the run allocated */
      continue;
    }
    gst_buffer_unmap (frame->out_bufs[i], &frame->out_maps[i]);
    gst_buffer_unref (frame->out_bufs[i]);
  }
  g_free (frame->outputs);
  g_free (frame->out_bufs);
  g_free (frame->out_maps);
  if (frame->input) {
    gst_buffer_unmap (frame->input, &frame->input_map);
    gst_buffer_unref (frame->input);    /* back to its pool */
  }
  gst_clear_buffer (&frame->buf);
  g_free (frame);
}

void
gst_vkml_inflight_frame_completed (void *user,
    G_GNUC_UNUSED vkml_status status, G_GNUC_UNUSED const vkml_error * err)
{
  GstVkmlInflightFrame *frame = user;

  /* Read only after vkml_run_wait, which returns after this callback (its lock orders
   * this write before the read). The status comes from vkml_run_wait too. */
  frame->done_us = g_get_monotonic_time ();
}

void
gst_vkml_inflight_init (GstVkmlInflight * q, GstPad * srcpad,
    GstVkmlInflightFinish finish, gpointer user)
{
  g_mutex_init (&q->lock);
  g_cond_init (&q->cond);
  g_queue_init (&q->frames);
  q->n_runs = 0;
  q->busy = FALSE;
  q->flushing = TRUE;           /* until the pad is activated (flush_stop) */
  q->flow = GST_FLOW_OK;
  q->srcpad = srcpad;
  q->finish = finish;
  q->user = user;
}

/* Drops every queued frame; with the lock held. */
static void
clear_locked (GstVkmlInflight * q)
{
  GstVkmlInflightFrame *frame;

  while ((frame = g_queue_pop_head (&q->frames)))
    gst_vkml_inflight_frame_free (frame);
  q->n_runs = 0;
}

void
gst_vkml_inflight_finalize (GstVkmlInflight * q)
{
  clear_locked (q);
  g_cond_clear (&q->cond);
  g_mutex_clear (&q->lock);
}

/* The flow the streaming thread returns when it cannot go on; with the lock held. */
static GstFlowReturn
blocked_flow_locked (GstVkmlInflight * q)
{
  return q->flushing ? GST_FLOW_FLUSHING : q->flow;
}

GstFlowReturn
gst_vkml_inflight_wait_room (GstVkmlInflight * q, gboolean needs_run,
    guint max_runs)
{
  GstFlowReturn ret;

  g_mutex_lock (&q->lock);
  while (blocked_flow_locked (q) == GST_FLOW_OK
      && ((needs_run && q->n_runs >= max_runs)
          || q->frames.length >= MAX_HELD_FRAMES))
    g_cond_wait (&q->cond, &q->lock);
  ret = blocked_flow_locked (q);
  g_mutex_unlock (&q->lock);
  return ret;
}

/* The task: pushes the oldest frame once its run is over. */
static void
task_loop (gpointer data)
{
  GstVkmlInflight *q = data;
  GstVkmlInflightFrame *frame;
  GstBuffer *buf = NULL;
  GstFlowReturn ret;

  g_mutex_lock (&q->lock);
  while (!q->flushing && !q->frames.length)
    g_cond_wait (&q->cond, &q->lock);
  if (q->flushing) {
    g_mutex_unlock (&q->lock);
    gst_pad_pause_task (q->srcpad);
    return;
  }
  frame = g_queue_pop_head (&q->frames);
  q->busy = TRUE;
  g_mutex_unlock (&q->lock);

  ret = q->finish (q->user, frame, &buf);       /* waits for the run */
  if (ret == GST_FLOW_OK)
    ret = gst_pad_push (q->srcpad, buf);

  g_mutex_lock (&q->lock);
  if (frame->wants_run)
    q->n_runs--;
  q->busy = FALSE;
  if (ret != GST_FLOW_OK && q->flow == GST_FLOW_OK)
    q->flow = ret;              /* the streaming thread returns it upstream */
  g_cond_broadcast (&q->cond);
  g_mutex_unlock (&q->lock);
  gst_vkml_inflight_frame_free (frame);
  if (ret != GST_FLOW_OK) {
    GST_DEBUG_OBJECT (q->srcpad, "pausing: %s", gst_flow_get_name (ret));
    gst_pad_pause_task (q->srcpad);
  }
}

GstFlowReturn
gst_vkml_inflight_push (GstVkmlInflight * q, GstVkmlInflightFrame * frame)
{
  GstFlowReturn ret;

  g_mutex_lock (&q->lock);
  ret = blocked_flow_locked (q);
  if (ret == GST_FLOW_OK) {
    g_queue_push_tail (&q->frames, frame);
    if (frame->wants_run)
      q->n_runs++;
    g_cond_broadcast (&q->cond);
    /* Under the lock: a stop (which sets flushing under it first) cannot slip between
     * the check and the start and leave a started task behind. */
    gst_pad_start_task (q->srcpad, task_loop, q, NULL);
  }
  g_mutex_unlock (&q->lock);
  if (ret != GST_FLOW_OK)
    gst_vkml_inflight_frame_free (frame);
  return ret;
}

GstFlowReturn
gst_vkml_inflight_drain (GstVkmlInflight * q)
{
  GstFlowReturn ret;

  g_mutex_lock (&q->lock);
  while (blocked_flow_locked (q) == GST_FLOW_OK && (q->frames.length
          || q->busy))
    g_cond_wait (&q->cond, &q->lock);
  ret = blocked_flow_locked (q);
  g_mutex_unlock (&q->lock);
  return ret;
}

GstFlowReturn
gst_vkml_inflight_empty (GstVkmlInflight * q)
{
  GstFlowReturn ret = gst_vkml_inflight_drain (q);

  g_mutex_lock (&q->lock);
  /* not OK: the task is paused or pausing; its frame is done once busy is FALSE */
  while (q->busy)
    g_cond_wait (&q->cond, &q->lock);
  clear_locked (q);
  g_mutex_unlock (&q->lock);
  return ret;
}

static void
set_flushing (GstVkmlInflight * q)
{
  g_mutex_lock (&q->lock);
  q->flushing = TRUE;
  g_cond_broadcast (&q->cond);
  g_mutex_unlock (&q->lock);
}

void
gst_vkml_inflight_flush_start (GstVkmlInflight * q)
{
  set_flushing (q);
  gst_pad_pause_task (q->srcpad);       /* waits for the task's current frame */
}

void
gst_vkml_inflight_flush_stop (GstVkmlInflight * q)
{
  g_mutex_lock (&q->lock);
  clear_locked (q);
  q->flushing = FALSE;
  q->flow = GST_FLOW_OK;
  g_mutex_unlock (&q->lock);
}

void
gst_vkml_inflight_stop (GstVkmlInflight * q)
{
  set_flushing (q);
  gst_pad_stop_task (q->srcpad);
  g_mutex_lock (&q->lock);
  clear_locked (q);
  g_mutex_unlock (&q->lock);
}
