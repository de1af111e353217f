/* vkmlinfer's model swap (gstvkmlinferswap.h).
 *
 * A 'model' set while running is taken by the streaming thread at its next frame and
 * handed to a worker thread (a GThreadPool of one thread), which loads the model and
 * plans its session for the caps negotiated then. Frames keep running on the old
 * session meanwhile. At the first frame after the result is ready the streaming thread
 * flushes a partial batch, waits for the frames in flight on the old session (pushed in
 * order, with the old model's meta), switches, and hands the old session and model to
 * the worker to free. A newer request makes an older one void (its result is dropped);
 * stop() cancels and joins the worker. A load or plan error posts a WARNING naming the
 * file and the reason, and the old model stays.
 *
 * Threads: the streaming thread (request, adopt), the worker (load, plan, free), stop()
 * (cancel, join). swap->lock guards the swap's fields; the worker reads self->ctx and
 * self->set, which stay until stop() joins it. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmlinferpriv.h"

#include <string.h>

typedef struct
{
  GstVkmlInfer *self;
  guint64 number;               /* the request's number; 0: free @old and @old_model */
  gchar *path;
  GstCaps *caps;                /* the caps negotiated at the request; NULL: none */
  GstCaps *out_caps;            /* tensor mode: the negotiated output caps */
  GstVkmlInferPlan old;
  vkml_model *old_model;
} SwapJob;

void
gst_vkml_infer_swap_init (GstVkmlInferSwap * swap)
{
  memset (swap, 0, sizeof (*swap));
  g_mutex_init (&swap->lock);
}

void
gst_vkml_infer_swap_finalize (GstVkmlInferSwap * swap)
{
  g_mutex_clear (&swap->lock);
}

static void
swap_job_free (SwapJob * job)
{
  gst_vkml_infer_plan_clear (&job->old);
  vkml_model_destroy (&job->old_model);
  gst_clear_caps (&job->caps);
  gst_clear_caps (&job->out_caps);
  g_free (job->path);
  g_free (job);
}

/* With the lock held: takes the ready result out (into the caller's variables). */
static void
take_ready_locked (GstVkmlInferSwap * swap, gchar ** path, vkml_model ** model,
    GstVkmlInferPlan * plan)
{
  *path = g_steal_pointer (&swap->ready_path);
  *model = g_steal_pointer (&swap->ready_model);
  *plan = swap->ready_plan;
  memset (&swap->ready_plan, 0, sizeof (swap->ready_plan));
  swap->ready = FALSE;
}

static gboolean
is_current (GstVkmlInferSwap * swap, guint64 number)
{
  gboolean current;

  g_mutex_lock (&swap->lock);
  current = number == swap->wanted && !swap->cancelled;
  g_mutex_unlock (&swap->lock);
  return current;
}

/* @model planned for @caps; with @out_caps (tensor mode) its outputs must keep them. */
static gboolean
plan_for (GstVkmlInfer * self, vkml_model * model, GstCaps * caps,
    GstCaps * out_caps, GstVkmlInferPlan * plan, gchar ** why)
{
  GstCaps *next;
  gchar *ignored = NULL;
  gboolean same;

  GstObject *scope = gst_vkml_infer_lib_scope (GST_OBJECT (self));
  gboolean planned = gst_vkml_infer_plan_make (plan, self->ctx, model,
      &self->set, caps, why);

  gst_vkml_infer_lib_scope (scope);
  if (!planned)
    return FALSE;
  if (!plan->tensor_mode)
    return TRUE;
  next = gst_vkml_infer_plan_output_caps (plan, &ignored);
  g_free (ignored);
  same = next && out_caps && gst_caps_is_equal (out_caps, next);
  gst_clear_caps (&next);
  if (!same)
    *why = g_strdup ("its outputs differ from the negotiated tensor caps");
  return same;
}

static void
warn_refused (GstVkmlInfer * self, const gchar * path, const gchar * why)
{
  GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
      ("Could not swap to the model \"%s\": %s; the running model stays.",
          path, why), (NULL));
}

/* The worker's load: the element's own model, or with model-instance-id the
 * instance's new model for all its elements (the others follow: follow_instance). */
static vkml_status
load_model (GstVkmlInfer * self, const gchar * path, vkml_model ** model,
    vkml_error * err)
{
  guint generation;

  if (!self->instance)
    return gst_vkml_load_model (self, path, model, err);
  if (!gst_vkml_instance_swap (self->instance, path, err))
    return err->status;
  *model = gst_vkml_instance_take_model (self->instance, &generation);
  return VKML_OK;
}

/* The worker: loads and plans a request (unless a newer one or a stop made it void),
 * or frees a retired session and model. */
static void
swap_work (gpointer data, G_GNUC_UNUSED gpointer user)
{
  SwapJob *job = data;
  GstVkmlInfer *self = job->self;
  GstVkmlInferSwap *swap = &self->swap;
  GstVkmlInferPlan plan = { 0 };
  vkml_model *model = NULL;
  vkml_error err = { 0 };
  gchar *why = NULL;
  gboolean current;
  vkml_status st;

  if (!job->number || !is_current (swap, job->number)) {
    swap_job_free (job);        /* a retired session, or a void request */
    return;
  }
  GST_DEBUG_OBJECT (self, "loading model %s aside", job->path);
  gst_vkml_infer_lib_scope (GST_OBJECT (self));
  st = load_model (self, job->path, &model, &err);
  gst_vkml_infer_lib_scope (NULL);
  if (st != VKML_OK)
    why = g_strdup_printf ("%s: %s", vkml_status_name (st), err.message);
  else if (job->caps)
    plan_for (self, model, job->caps, job->out_caps, &plan, &why);

  g_mutex_lock (&swap->lock);
  current = job->number == swap->wanted && !swap->cancelled;
  if (current && why) {
    g_clear_pointer (&swap->pending_path, g_free);
  } else if (current) {
    swap->ready = TRUE;
    swap->ready_path = g_steal_pointer (&job->path);
    swap->ready_model = g_steal_pointer (&model);
    swap->ready_plan = plan;
    memset (&plan, 0, sizeof (plan));
    GST_INFO_OBJECT (self, "model %s ready: switching at the next frame",
        swap->ready_path);
  }
  g_mutex_unlock (&swap->lock);
  if (current && why)
    warn_refused (self, job->path, why);
  g_free (why);
  gst_vkml_infer_plan_clear (&plan);
  vkml_model_destroy (&model);
  swap_job_free (job);
}

/* With the lock held: hands @job to the worker (made at the first job). */
static void
queue_job_locked (GstVkmlInferSwap * swap, SwapJob * job)
{
  if (!swap->worker)
    swap->worker = g_thread_pool_new (swap_work, NULL, 1, FALSE, NULL);
  g_thread_pool_push (swap->worker, job, NULL);
}

/* Streaming thread: @path (taken) to be loaded and planned for the current caps. */
static void
swap_request (GstVkmlInfer * self, gchar * path)
{
  GstVkmlInferSwap *swap = &self->swap;
  SwapJob *job = g_new0 (SwapJob, 1);
  GstVkmlInferPlan stale_plan;
  vkml_model *stale_model;
  gchar *stale_path, *ignored = NULL;

  job->self = self;
  job->path = g_strdup (path);
  if (self->plan.caps)
    job->caps = gst_caps_ref (self->plan.caps);
  if (self->plan.tensor_mode)
    job->out_caps = gst_vkml_infer_plan_output_caps (&self->plan, &ignored);
  g_free (ignored);

  g_mutex_lock (&swap->lock);
  job->number = ++swap->wanted;
  /* a result not yet adopted is superseded too */
  take_ready_locked (swap, &stale_path, &stale_model, &stale_plan);
  g_free (swap->pending_path);
  swap->pending_path = path;
  queue_job_locked (swap, job);
  g_mutex_unlock (&swap->lock);
  GST_INFO_OBJECT (self, "swap to model %s requested (load and plan aside)",
      path);
  g_free (stale_path);
  gst_vkml_infer_plan_clear (&stale_plan);
  vkml_model_destroy (&stale_model);
}

/* Streaming thread: makes @plan and @model the running ones (the frames in flight are
 * out) and gives the old ones to the worker to free. */
static void
swap_adopt (GstVkmlInfer * self, GstVkmlInferPlan * plan, vkml_model * model)
{
  SwapJob *job = g_new0 (SwapJob, 1);

  gst_vkml_inflight_empty (&self->inflight);
  job->self = self;
  g_mutex_lock (&self->plan_lock);
  job->old = self->plan;
  self->plan = *plan;
  memset (plan, 0, sizeof (*plan));
  gst_vkml_infer_plan_clear (&self->probe);
  job->old_model = self->model;
  self->model = model;
  g_mutex_unlock (&self->plan_lock);
  g_mutex_lock (&self->swap.lock);
  queue_job_locked (&self->swap, job);
  g_mutex_unlock (&self->swap.lock);
  gst_vkml_infer_log_plan (self);
}

/* Streaming thread, model-instance-id: another element swapped the instance's model;
 * this one plans the new model for its caps (the first element to do so per input
 * format plans it for all) and switches after its frames in flight. A model that
 * cannot take this stream's caps leaves it on the old one, with a warning. */
static GstFlowReturn
follow_instance (GstVkmlInfer * self)
{
  GstVkmlInferPlan plan = { 0 };
  GstCaps *out_caps = NULL;
  vkml_model *model;
  gchar *why = NULL, *ignored = NULL;
  guint generation;
  GstFlowReturn ret;

  if (!self->plan.shared || !self->plan.caps
      || gst_vkml_instance_generation (self->instance) == self->plan.generation)
    return GST_FLOW_OK;
  model = gst_vkml_instance_take_model (self->instance, &generation);
  if (self->plan.tensor_mode)
    out_caps = gst_vkml_infer_plan_output_caps (&self->plan, &ignored);
  g_free (ignored);
  if (!plan_for (self, model, self->plan.caps, out_caps, &plan, &why)) {
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS, ("The model of instance "
            "\"%s\" was swapped, but the new model cannot take this stream: "
            "%s; the stream stays on the old model.", self->instance_id, why),
        (NULL));
    self->plan.generation = generation;
    ret = GST_FLOW_OK;
  } else if ((ret = gst_vkml_inflight_drain (&self->inflight)) == GST_FLOW_OK) {
    swap_adopt (self, &plan, g_steal_pointer (&model));
    GST_INFO_OBJECT (self, "follows instance \"%s\" to its new model",
        self->instance_id);
  }
  gst_clear_caps (&out_caps);
  gst_vkml_infer_plan_clear (&plan);
  vkml_model_destroy (&model);
  g_free (why);
  return ret;
}

GstFlowReturn
gst_vkml_infer_swap_model (GstVkmlInfer * self)
{
  GstVkmlInferSwap *swap = &self->swap;
  GstVkmlInferPlan plan = { 0 };
  vkml_model *model = NULL;
  GstFlowReturn ret = GST_FLOW_OK;
  gchar *path, *why = NULL, *ignored = NULL;
  GstCaps *out_caps = NULL;

  GST_OBJECT_LOCK (self);
  path = g_steal_pointer (&self->swap_path);
  GST_OBJECT_UNLOCK (self);
  if (path)
    swap_request (self, path);

  g_mutex_lock (&swap->lock);
  if (!swap->ready) {
    gboolean own_swap = swap->pending_path != NULL;

    g_mutex_unlock (&swap->lock);
    return own_swap ? GST_FLOW_OK : follow_instance (self);
  }
  take_ready_locked (swap, &path, &model, &plan);
  g_clear_pointer (&swap->pending_path, g_free);
  g_mutex_unlock (&swap->lock);

  /* the caps changed since the request: planned again here (a new plan anyway),
   * unless only fields that do not reach the model changed */
  if (self->plan.caps && gst_vkml_infer_plan_fits (&plan, model, &self->set,
          self->plan.caps)) {
    gst_caps_replace (&plan.caps, self->plan.caps);
  } else if (self->plan.caps) {
    if (self->plan.tensor_mode)
      out_caps = gst_vkml_infer_plan_output_caps (&self->plan, &ignored);
    g_free (ignored);
    plan_for (self, model, self->plan.caps, out_caps, &plan, &why);
    gst_clear_caps (&out_caps);
  } else if (!self->plan.caps) {
    gst_vkml_infer_plan_clear (&plan);  /* not negotiated now: set_caps plans */
  }
  if (why) {
    warn_refused (self, path, why);
    g_free (why);
    goto drop;
  }
  ret = gst_vkml_infer_batch_flush (self);
  if (ret == GST_FLOW_OK)
    ret = gst_vkml_inflight_drain (&self->inflight);
  if (ret != GST_FLOW_OK)
    goto drop;
  swap_adopt (self, &plan, model);
  GST_INFO_OBJECT (self, "swapped to model %s", path);
  GST_OBJECT_LOCK (self);
  g_free (self->model_path);
  self->model_path = path;
  GST_OBJECT_UNLOCK (self);
  return GST_FLOW_OK;

drop:
  gst_vkml_infer_plan_clear (&plan);
  vkml_model_destroy (&model);
  g_free (path);
  return ret;
}

gchar *
gst_vkml_infer_swap_stop (GstVkmlInfer * self)
{
  GstVkmlInferSwap *swap = &self->swap;
  GstVkmlInferPlan plan;
  vkml_model *model;
  GThreadPool *worker;
  gchar *path, *pending;

  g_mutex_lock (&swap->lock);
  swap->cancelled = TRUE;
  worker = g_steal_pointer (&swap->worker);
  g_mutex_unlock (&swap->lock);
  /* waits for the load in progress; requests still queued are void, retired
   * sessions are freed */
  if (worker)
    g_thread_pool_free (worker, FALSE, TRUE);
  g_mutex_lock (&swap->lock);
  take_ready_locked (swap, &path, &model, &plan);
  pending = g_steal_pointer (&swap->pending_path);
  swap->cancelled = FALSE;
  g_mutex_unlock (&swap->lock);
  g_free (path);
  gst_vkml_infer_plan_clear (&plan);
  vkml_model_destroy (&model);
  return pending;
}
