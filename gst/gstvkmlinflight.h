/* The frames vkmlinfer holds between their arrival and their push, and the src pad task
 * that pushes them: in arrival order, each once its model run is over (or at once, for a
 * frame that passes without inference). */
#ifndef __GST_VKML_INFLIGHT_H__
#define __GST_VKML_INFLIGHT_H__

#include <gst/gst.h>
#include <vkml/vkml.h>

#include "gstvkmltensormeta.h"

G_BEGIN_DECLS
/* One frame. Everything but @done_us belongs to whoever holds the frame (the streaming
 * thread, then the task); @done_us is written once by the run's completion callback (a
 * vkml thread) and read after vkml_run_wait, which returns after the callback. */
    typedef struct
{
  GstBuffer *buf;               /* the frame */
  gboolean wants_run;           /* FALSE: it passes with no run and no meta */
  vkml_run *run;                /* the run, once submitted */
  GstBuffer *input;             /* video: the frame's packed bytes, the run's input 0
                                 * (from the plan's input pool), mapped in
                                 * @input_map for writing until the run ends */
  GstMapInfo input_map;
  gsize n_inputs;               /* tensors: @buf's memories, mapped, are the inputs */
  GstMapInfo *in_maps;          /* mapped for reading until the run ends */
  gboolean has_geometry;        /* video: how the model's input maps onto the frame */
  GstVkmlInputGeometry geometry;
  gsize n_outputs;
  vkml_tensor *outputs;         /* data points into out_maps */
  GstBuffer **out_bufs;         /* the output tensors, mapped for writing */
  GstMapInfo *out_maps;
  gint64 submit_us;             /* monotonic time of the submit */
  gint64 done_us;               /* monotonic time of the completion */
  gpointer batch;               /* NULL, or the batch whose run holds this frame (a
                                 * reference; gstvkmlinferbatch.h): then @run is NULL */
  guint batch_index;            /* this frame's place in it */
  GDestroyNotify batch_release; /* drops the reference */
} GstVkmlInflightFrame;

GstVkmlInflightFrame *gst_vkml_inflight_frame_new (GstBuffer * buf,
    gsize n_outputs);
/* Unmaps the tensor inputs (once the run is over). */
void gst_vkml_inflight_frame_unmap_inputs (GstVkmlInflightFrame * frame);
/* Waits for the frame's run (if any) and frees it all, the buffer included. */
void gst_vkml_inflight_frame_free (GstVkmlInflightFrame * frame);
/* The vkml_run_callback of a frame's run (user: the frame). */
void gst_vkml_inflight_frame_completed (void *user, vkml_status status,
    const vkml_error * err);

/* Turns a frame whose run is over (the task waits for it first) into the buffer to push
 * (*outbuf), or returns an error (posted by the callee). Called on the task's thread. */
typedef GstFlowReturn (*GstVkmlInflightFinish) (gpointer user,
    GstVkmlInflightFrame * frame, GstBuffer ** outbuf);

typedef struct
{
  GMutex lock;                  /* guards everything below */
  GCond cond;                   /* signalled on every change of frames, busy, flushing, flow */
  GQueue frames;                /* waiting to be pushed, oldest first */
  guint n_runs;                 /* of them, frames with a run */
  gboolean busy;                /* the task is finishing or pushing a frame it took */
  gboolean flushing;            /* frames are refused; the task stops */
  GstFlowReturn flow;           /* the last push's result when not OK */
  GstPad *srcpad;
  GstVkmlInflightFinish finish;
  gpointer user;
} GstVkmlInflight;

void gst_vkml_inflight_init (GstVkmlInflight * q, GstPad * srcpad,
    GstVkmlInflightFinish finish, gpointer user);
void gst_vkml_inflight_finalize (GstVkmlInflight * q);

/* Streaming thread. Waits until the queue has room for one more frame (with
 * @needs_run: fewer than @max_runs runs held). Returns GST_FLOW_OK, GST_FLOW_FLUSHING
 * when flushing, or the error a push downstream returned. */
GstFlowReturn gst_vkml_inflight_wait_room (GstVkmlInflight * q,
    gboolean needs_run, guint max_runs);
/* Streaming thread. Queues the frame and starts the task; when flushing, frees the
 * frame and returns GST_FLOW_FLUSHING. */
GstFlowReturn gst_vkml_inflight_push (GstVkmlInflight * q,
    GstVkmlInflightFrame * frame);
/* Streaming thread. Waits until every queued frame has been pushed (or a flush or a
 * push error ended that); returns the flow as wait_room does. */
GstFlowReturn gst_vkml_inflight_drain (GstVkmlInflight * q);

/* Streaming thread. Drains; when a flush or a push error ends that first, drops the
 * frames left (waiting for their runs). On return no frame is held. */
GstFlowReturn gst_vkml_inflight_empty (GstVkmlInflight * q);

/* FLUSH_START (any thread): refuse frames, wake the waiters, pause the task. */
void gst_vkml_inflight_flush_start (GstVkmlInflight * q);
/* FLUSH_STOP and activation (streaming thread, task paused): drop the frames (waiting
 * for their runs), accept frames again. */
void gst_vkml_inflight_flush_stop (GstVkmlInflight * q);
/* Src pad deactivation: refuse frames and stop the task (joins it). */
void gst_vkml_inflight_stop (GstVkmlInflight * q);

G_END_DECLS
#endif /* __GST_VKML_INFLIGHT_H__ */
