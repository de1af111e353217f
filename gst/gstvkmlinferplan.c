/* vkmlinfer's session for a model and caps, and a frame's inputs and outputs for it
 * (gstvkmlinferplan.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmlinferplan.h"
#include "gstvkmlshared.h"
#include "gstvkmltensorcaps.h"

#include <stdlib.h>
#include <string.h>

void
gst_vkml_infer_settings_clear (GstVkmlInferSettings * set)
{
  g_clear_pointer (&set->device, g_free);
  set->n_devices = 0;
  gst_vkml_extra_inputs_clear (&set->extra);
}

/* What one frame's run takes and gives: the session's inputs and outputs, or with a
 * shared instance the batcher's (one item of its batches: dim 0 is 1). */
static const vkml_tensor_info *
plan_input_info (const GstVkmlInferPlan * plan, gsize i)
{
  return plan->batcher ? vkml_batcher_input (plan->batcher, i)
      : vkml_session_input (plan->session, i);
}

static const vkml_tensor_info *
plan_output_info (const GstVkmlInferPlan * plan, gsize i)
{
  return plan->batcher ? vkml_batcher_output (plan->batcher, i)
      : vkml_session_output (plan->session, i);
}

static GstBufferPool *
make_pool (gsize size)
{
  GstBufferPool *pool = gst_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_set_params (config, NULL, (guint) MAX (size, 1), 0, 0);
  if (!gst_buffer_pool_set_config (pool, config)
      || !gst_buffer_pool_set_active (pool, TRUE)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

/* Output shapes and one buffer pool per output; none for an unbounded output (sized by
 * each run: the run allocates its data, which the frame's buffer then wraps). */
static gboolean
prepare_outputs (GstVkmlInferPlan * plan, gchar ** why)
{
  gsize i, n = vkml_session_output_count (plan->session);

  plan->outputs = g_new0 (vkml_tensor, n);
  plan->out_pools = g_new0 (GstBufferPool *, n);
  plan->n_outputs = n;
  for (i = 0; i < n; i++) {
    const vkml_tensor_info *info = plan_output_info (plan, i);
    vkml_tensor *t = &plan->outputs[i];
    gsize count;

    t->dtype = info->dtype;
    t->rank = info->rank;
    memcpy (t->dims, info->dims, sizeof (t->dims));
    count = vkml_tensor_element_count (info->rank, info->dims);
    t->size = count * vkml_dtype_size (info->dtype);
    if ((count && !t->size) || t->size > G_MAXUINT) {
      *why = g_strdup_printf ("output '%s' of the model has type %s or a size "
          "vkmlinfer cannot hold", info->name, vkml_dtype_name (info->dtype));
      return FALSE;
    }
    if (info->unbounded)
      continue;
    plan->out_pools[i] = make_pool (t->size);
    if (!plan->out_pools[i]) {
      *why = g_strdup_printf ("could not allocate buffers for output '%s'",
          info->name);
      return FALSE;
    }
  }
  return TRUE;
}

static gboolean
create_session (GstVkmlInferPlan * plan, vkml_context * ctx,
    vkml_model * model, const GstVkmlInferSettings * set,
    const vkml_tensor_info * shapes, const vkml_preprocess * pp, gchar ** why)
{
  vkml_session_params params = {.device = VKML_DEVICE_DEFAULT,
    .device_budget = set->budget,
    .data_parallel = set->data_parallel,
    .runs_in_flight = (int) set->lanes,
    .precision = set->precision,
    .cpu_threads = (int) set->cpu_threads,
    .input_shapes = shapes,
    .preprocess = pp,
    .devices = set->n_devices ? set->devices : NULL,
    .n_devices = set->n_devices,
    /* a shared instance's session is every member's: its messages name none */
    .log_user = set->instance ? NULL : set->log_owner
  };
  vkml_error err = { 0 };

  if (set->instance) {
    plan->shared = gst_vkml_instance_session (set->instance, &params, &err);
    if (plan->shared) {
      plan->session = gst_vkml_instance_session_get (plan->shared);
      plan->batcher = gst_vkml_instance_session_batcher (plan->shared);
      plan->generation = gst_vkml_instance_session_generation (plan->shared);
      plan->lanes = MAX (set->lanes, 1);        /* this stream's frames in flight */
      return TRUE;
    }
  } else if (vkml_session_create (ctx, model, &params, &plan->session,
          &err) == VKML_OK) {
    plan->lanes = (guint) vkml_session_runs_in_flight (plan->session);
    return TRUE;
  }
  *why = g_strdup_printf ("could not plan the model on device %s: %s",
      set->device ? set->device : "default", err.message);
  return FALSE;
}

static void
set_geometry (GstVkmlInferPlan * plan)
{
  const vkml_tensor_info *in = &plan->bound;
  gboolean nhwc = !(in->dims[1] == 1 || in->dims[1] == 3);
  guint iw = (guint) in->dims[nhwc ? 2 : 3], ih =
      (guint) in->dims[nhwc ? 1 : 2];
  vkml_preprocess_geometry g;

  vkml_preprocess_get_geometry (&plan->pp, iw, ih, &g);
  plan->geometry.frame_width = plan->pp.width;
  plan->geometry.frame_height = plan->pp.height;
  plan->geometry.input_width = iw;
  plan->geometry.input_height = ih;
  plan->geometry.scale_x = g.scale_x;
  plan->geometry.scale_y = g.scale_y;
  plan->geometry.offset_x = g.offset_x;
  plan->geometry.offset_y = g.offset_y;
}

/* The frames per run: batch-size for a symbolic batch; a fixed batch N taken as it is
 * when batch-size is 1 (its default), else it must equal batch-size. */
static gboolean
bind_batch (GstVkmlInferPlan * plan, const vkml_tensor_info * info,
    const GstVkmlInferSettings * set, gchar ** why)
{
  guint want = MAX (set->batch_size, 1);

  if (info->dims[0] < 0)
    plan->bound.dims[0] = want;
  else if (want > 1 && info->dims[0] != (gint64) want) {
    *why = g_strdup_printf ("'batch-size' %u differs from the model's fixed "
        "batch %" G_GINT64_FORMAT, want, (gint64) info->dims[0]);
    return FALSE;
  }
  if (plan->bound.dims[0] < 1 || plan->bound.dims[0] > GST_VKML_MAX_BATCH) {
    *why = g_strdup_printf ("a batch of %" G_GINT64_FORMAT " (vkmlinfer runs "
        "1 .. %d frames at once)", (gint64) plan->bound.dims[0],
        GST_VKML_MAX_BATCH);
    return FALSE;
  }
  plan->batch = (guint) plan->bound.dims[0];
  return TRUE;
}

/* The video, the model's input shapes bound for it (the others from input-tensors) and
 * the pre-processing; no session. */
static gboolean
video_input (GstVkmlInferPlan * plan, vkml_model * model,
    const GstVkmlInferSettings * set, GstCaps * caps, gchar ** why)
{
  gsize n = vkml_model_input_count (model);
  vkml_tensor_info image = { 0 };
  const vkml_tensor_info *info = &image;
  gboolean unbatched;

  if (n > 0)
    image = *vkml_model_input (model, 0);
  /* one image [C,H,W] or [H,W,C] (torchvision's detectors): a batch of 1 here */
  unbatched = image.rank == 3;
  if (unbatched) {
    memmove (image.dims + 1, image.dims, 3 * sizeof (image.dims[0]));
    image.dims[0] = 1;
    image.rank = 4;
  }
  if (!gst_video_info_from_caps (&plan->vinfo, caps)) {
    *why = g_strdup ("the caps are not valid video caps");
    return FALSE;
  }
  plan->n_inputs = n;
  plan->shapes = g_new0 (vkml_tensor_info, n + 1);
  plan->feeds = g_new0 (const vkml_tensor *, n + 1);
  if (!gst_vkml_bind_image_shape (info, &plan->vinfo, &set->pre,
          &plan->bound, why) || !bind_batch (plan, info, set, why)
      || !gst_vkml_extra_inputs_bind (&set->extra, model, plan->feeds,
          plan->shapes, why))
    return FALSE;
  if (set->roi_objects && plan->batch > 1) {
    *why = g_strdup_printf ("roi=objects runs the model once per object: it "
        "takes no batch (batch-size or the model's fixed batch is %u)",
        plan->batch);
    return FALSE;
  }
  plan->shapes[0] = plan->bound;
  if (unbatched) {
    plan->shapes[0].rank = 3;
    memmove (plan->shapes[0].dims, plan->shapes[0].dims + 1,
        3 * sizeof (image.dims[0]));
  }
  if (!gst_vkml_preprocess_from_video (&plan->vinfo, &set->pre, info->dtype,
          &plan->pp, why))
    return FALSE;
  /* roi=objects: each run's box is one more input (gstvkmlinferroi.c) */
  plan->pp.rect_input = set->roi_objects;
  return TRUE;
}

static gboolean
plan_video (GstVkmlInferPlan * plan, vkml_context * ctx, vkml_model * model,
    const GstVkmlInferSettings * set, GstCaps * caps, gchar ** why)
{
  if (!video_input (plan, model, set, caps, why)
      || !create_session (plan, ctx, model, set, plan->shapes, &plan->pp, why))
    return FALSE;
  if (plan->pp.frame_bytes > G_MAXSIZE - 3) {
    *why = g_strdup ("the frame is too large");
    return FALSE;
  }
  if (plan->batcher)
    plan->batch = 1;            /* the instance's batcher gathers the frames */
  plan->input_size = (gsize) ((plan->pp.frame_bytes + 3) & ~(guint64) 3);
  if (plan->input_size > G_MAXUINT / plan->batch
      || !(plan->in_pool = make_pool (plan->input_size * plan->batch))) {
    *why = g_strdup ("could not allocate buffers for the frames' bytes");
    return FALSE;
  }
  set_geometry (plan);
  return TRUE;
}

static gboolean
plan_tensors (GstVkmlInferPlan * plan, vkml_context * ctx, vkml_model * model,
    const GstVkmlInferSettings * set, GstCaps * caps, gchar ** why)
{
  gsize i, n = vkml_model_input_count (model);
  const vkml_tensor_info **inputs = g_new0 (const vkml_tensor_info *, n + 1);
  vkml_tensor_info *shapes = g_new0 (vkml_tensor_info, n + 1);
  gboolean ok;

  for (i = 0; i < n; i++)
    inputs[i] = vkml_model_input (model, i);
  plan->tensor_mode = TRUE;
  plan->batch = 1;
  ok = gst_vkml_tensor_caps_to_shapes (caps, inputs, n, shapes, why);
  /* a shared instance batches tensor buffers of one item too */
  if (ok && set->instance && set->batch_size > 1 && shapes[0].rank > 0
      && shapes[0].dims[0] == 1)
    shapes[0].dims[0] = set->batch_size;
  ok = ok && create_session (plan, ctx, model, set, shapes, NULL, why);
  g_free (inputs);
  g_free (shapes);
  return ok;
}

gboolean
gst_vkml_infer_plan_make (GstVkmlInferPlan * plan, vkml_context * ctx,
    vkml_model * model, const GstVkmlInferSettings * set, GstCaps * caps,
    gchar ** why)
{
  gboolean ok;

  gst_vkml_infer_plan_clear (plan);
  ok = gst_vkml_caps_are_tensors (caps)
      ? plan_tensors (plan, ctx, model, set, caps, why)
      : plan_video (plan, ctx, model, set, caps, why);
  if (ok)
    ok = prepare_outputs (plan, why);
  if (!ok) {
    gst_vkml_infer_plan_clear (plan);
    return FALSE;
  }
  plan->caps = gst_caps_ref (caps);
  return TRUE;
}

gboolean
gst_vkml_infer_plan_fits (const GstVkmlInferPlan * plan, vkml_model * model,
    const GstVkmlInferSettings * set, GstCaps * caps)
{
  GstVkmlInferPlan probe = { 0 };
  gchar *why = NULL;
  gboolean same;

  if (!plan->caps)
    return FALSE;
  if (plan->tensor_mode || gst_vkml_caps_are_tensors (caps))
    return gst_caps_is_equal (caps, plan->caps);
  same = video_input (&probe, model, set, caps, &why)
      && memcmp (&probe.pp, &plan->pp, sizeof (probe.pp)) == 0
      && memcmp (probe.bound.dims, plan->bound.dims, sizeof (probe.bound.dims))
      == 0;
  g_free (why);
  gst_vkml_infer_plan_clear (&probe);
  return same;
}

void
gst_vkml_infer_plan_clear (GstVkmlInferPlan * plan)
{
  gsize i;

  for (i = 0; i < plan->n_outputs; i++) {
    if (plan->out_pools && plan->out_pools[i]) {
      gst_buffer_pool_set_active (plan->out_pools[i], FALSE);
      gst_object_unref (plan->out_pools[i]);
    }
  }
  if (plan->in_pool) {
    gst_buffer_pool_set_active (plan->in_pool, FALSE);
    gst_object_unref (plan->in_pool);
  }
  g_free (plan->out_pools);
  g_free (plan->outputs);
  g_free (plan->shapes);
  g_free (plan->feeds);
  if (plan->shared)
    gst_vkml_instance_session_release (plan->shared);
  else
    vkml_session_destroy (&plan->session);
  gst_clear_caps (&plan->caps);
  memset (plan, 0, sizeof (*plan));
}

GstCaps *
gst_vkml_infer_plan_output_caps (const GstVkmlInferPlan * plan, gchar ** why)
{
  gsize n = vkml_session_output_count (plan->session), k;
  vkml_tensor_info *infos = g_new0 (vkml_tensor_info, n + 1);
  GstCaps *caps;

  for (k = 0; k < n; k++)
    infos[k] = *plan_output_info (plan, k);
  caps = gst_vkml_tensor_caps_from_infos (infos, n, why);
  g_free (infos);
  return caps;
}

gboolean
gst_vkml_infer_plan_video_inputs (const GstVkmlInferPlan * plan,
    GstBuffer ** frames, guint8 * data, vkml_tensor * in, gchar ** why)
{
  gsize i, slot = plan->input_size;

  for (i = 0; i < plan->batch; i++) {
    guint8 *dst = data + i * slot;

    /* the bytes past the frame (to a multiple of 4) are read, never used */
    memset (dst + plan->pp.frame_bytes, 0, slot - (gsize) plan->pp.frame_bytes);
    if (!gst_vkml_frame_pack (&plan->vinfo, frames[i], dst, slot)) {
      *why = g_strdup ("could not map a video frame");
      return FALSE;
    }
  }
  in[0].dtype = VKML_DTYPE_UINT8;
  in[0].rank = plan->batch > 1 ? 2 : 1;
  in[0].dims[0] = plan->batch;
  in[0].dims[in[0].rank - 1] = (gint64) slot;
  in[0].size = slot * plan->batch;
  in[0].data = data;
  for (i = 1; i < plan->n_inputs; i++)
    in[i] = *plan->feeds[i];    /* read-only: the session copies it in */
  return TRUE;
}

/* A buffer of @pool; counts the buffers seen for the first time (a quark on each). */
static gboolean
acquire_buffer (GstVkmlInferPlan * plan, GstBufferPool * pool, GstBuffer ** buf)
{
  static GQuark seen;

  if (gst_buffer_pool_acquire_buffer (pool, buf, NULL) != GST_FLOW_OK)
    return FALSE;
  if (!seen)
    seen = g_quark_from_static_string ("GstVkmlInferPoolSeen");
  if (!gst_mini_object_get_qdata (GST_MINI_OBJECT (*buf), seen)) {
    gst_mini_object_set_qdata (GST_MINI_OBJECT (*buf), seen,
        GINT_TO_POINTER (1), NULL);
    g_atomic_int_inc (&plan->pool_buffers);
  }
  return TRUE;
}

guint8 *
gst_vkml_infer_plan_acquire_input (GstVkmlInferPlan * plan,
    GstVkmlInflightFrame * frame)
{
  g_return_val_if_fail (!frame->input, NULL);
  if (!plan->in_pool || !acquire_buffer (plan, plan->in_pool, &frame->input))
    return NULL;
  if (!gst_buffer_map (frame->input, &frame->input_map, GST_MAP_WRITE)) {
    gst_clear_buffer (&frame->input);
    return NULL;
  }
  return frame->input_map.data;
}

/* Whether the frame's bytes already lie as the packed frame input (the caps' own plane
 * offsets and strides, at least input_size bytes). */
static gboolean
frame_is_packed (const GstVkmlInferPlan * plan, GstBuffer * buf)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buf);
  guint i;

  if (gst_buffer_get_size (buf) < plan->input_size)
    return FALSE;
  if (!meta)
    return TRUE;
  if (meta->n_planes != GST_VIDEO_INFO_N_PLANES (&plan->vinfo))
    return FALSE;
  for (i = 0; i < meta->n_planes; i++)
    if (meta->offset[i] != GST_VIDEO_INFO_PLANE_OFFSET (&plan->vinfo, i)
        || meta->stride[i] != GST_VIDEO_INFO_PLANE_STRIDE (&plan->vinfo, i))
      return FALSE;
  return TRUE;
}

/* A shared instance's batcher copies the frame into its batch at submit, so a packed
 * frame goes as it is, mapped (no copy of ours); NULL when it is not packed. */
static vkml_tensor *
mapped_frame_inputs (GstVkmlInferPlan * plan, GstVkmlInflightFrame * frame)
{
  vkml_tensor *in;
  gsize i;

  if (!plan->batcher || !frame_is_packed (plan, frame->buf))
    return NULL;
  frame->in_maps = g_new0 (GstMapInfo, 1);
  if (!gst_buffer_map (frame->buf, &frame->in_maps[0], GST_MAP_READ)) {
    g_clear_pointer (&frame->in_maps, g_free);
    return NULL;
  }
  frame->n_inputs = 1;          /* unmapped with the tensor inputs */
  in = g_new0 (vkml_tensor, plan->n_inputs + 1);
  in[0].dtype = VKML_DTYPE_UINT8;
  in[0].rank = 1;
  in[0].dims[0] = (gint64) plan->input_size;
  in[0].size = plan->input_size;
  in[0].data = frame->in_maps[0].data;
  for (i = 1; i < plan->n_inputs; i++)
    in[i] = *plan->feeds[i];
  return in;
}

static vkml_tensor *
video_inputs (GstVkmlInferPlan * plan, GstVkmlInflightFrame * frame,
    gsize * n, gchar ** why)
{
  vkml_tensor *in = mapped_frame_inputs (plan, frame);
  guint8 *data;

  if (in)
    goto done;
  data = gst_vkml_infer_plan_acquire_input (plan, frame);
  if (!data) {
    *why = g_strdup ("no buffer for the frame's bytes");
    return NULL;
  }
  in = g_new0 (vkml_tensor, plan->n_inputs + 1);
  if (!gst_vkml_infer_plan_video_inputs (plan, &frame->buf, data, in, why)) {
    g_free (in);
    return NULL;
  }
done:
  frame->has_geometry = TRUE;
  frame->geometry = plan->geometry;
  *n = plan->n_inputs;
  return in;
}

static vkml_tensor *
tensor_inputs (const GstVkmlInferPlan * plan, GstVkmlInflightFrame * frame,
    gsize * n, gchar ** why)
{
  gsize i, count = vkml_session_input_count (plan->session);
  vkml_tensor *in;

  if (gst_buffer_n_memory (frame->buf) != count) {
    *why = g_strdup_printf ("a tensor buffer has %u memories; the model takes %"
        G_GSIZE_FORMAT " inputs", gst_buffer_n_memory (frame->buf), count);
    return NULL;
  }
  in = g_new0 (vkml_tensor, count + 1);
  frame->in_maps = g_new0 (GstMapInfo, count + 1);
  for (i = 0; i < count; i++) {
    const vkml_tensor_info *info = plan_input_info (plan, i);

    if (!gst_buffer_map_range (frame->buf, (guint) i, 1, &frame->in_maps[i],
            GST_MAP_READ)) {
      gst_vkml_inflight_frame_unmap_inputs (frame);
      g_free (in);
      *why = g_strdup ("could not map a tensor buffer");
      return NULL;
    }
    frame->n_inputs = i + 1;
    in[i].dtype = info->dtype;
    in[i].rank = info->rank;
    memcpy (in[i].dims, info->dims, sizeof (in[i].dims));
    in[i].data = frame->in_maps[i].data;
    in[i].size = frame->in_maps[i].size;
  }
  *n = count;
  return in;
}

vkml_tensor *
gst_vkml_infer_plan_frame_inputs (GstVkmlInferPlan * plan,
    GstVkmlInflightFrame * frame, gsize * n, gchar ** why)
{
  return plan->tensor_mode ? tensor_inputs (plan, frame, n, why)
      : video_inputs (plan, frame, n, why);
}

gboolean
gst_vkml_infer_plan_acquire_outputs (GstVkmlInferPlan * plan,
    GstVkmlInflightFrame * frame)
{
  gsize i;

  if (frame->n_outputs != plan->n_outputs)
    return FALSE;
  for (i = 0; i < plan->n_outputs; i++) {
    frame->outputs[i] = plan->outputs[i];
    if (!plan->out_pools[i])
      continue;                 /* unbounded: the run allocates it */
    if (!acquire_buffer (plan, plan->out_pools[i], &frame->out_bufs[i]))
      return FALSE;
    if (!gst_buffer_map (frame->out_bufs[i], &frame->out_maps[i],
            GST_MAP_WRITE)) {
      gst_clear_buffer (&frame->out_bufs[i]);
      return FALSE;
    }
    frame->outputs[i].data = frame->out_maps[i].data;
  }
  return TRUE;
}

GstVkmlTensorMeta *
gst_vkml_infer_plan_finish_frame (const GstVkmlInferPlan * plan,
    GstVkmlInflightFrame * frame)
{
  GstBuffer **outs = g_new0 (GstBuffer *, frame->n_outputs + 1);
  GstVkmlTensorMeta *meta;
  gsize i, n = 0;

  gst_vkml_inflight_frame_unmap_inputs (frame);
  frame->buf = gst_buffer_make_writable (frame->buf);
  meta = gst_buffer_add_vkml_tensor_meta (frame->buf);
  meta->has_geometry = frame->has_geometry;
  meta->geometry = frame->geometry;
  for (i = 0; i < frame->n_outputs; i++, n++) {
    const vkml_tensor_info *info = plan_output_info (plan, i);
    vkml_tensor *t = &frame->outputs[i];

    if (!plan->out_pools[i] && t->data) {       /* unbounded: the run's malloc */
      frame->out_bufs[i] = gst_buffer_new_wrapped_full (0, t->data, t->size, 0,
          t->size, t->data, free);
    } else if (frame->out_bufs[i]) {
      gst_buffer_unmap (frame->out_bufs[i], &frame->out_maps[i]);
    } else {
      break;
    }
    t->data = NULL;
    gst_vkml_tensor_meta_add (meta, info->name, info->dtype,
        (guint) info->rank, frame->outputs[i].dims, frame->out_bufs[i]);
    outs[i] = g_steal_pointer (&frame->out_bufs[i]);
  }
  /* tensor mode: the outputs are the buffer's data too (the meta shares them) */
  if (plan->tensor_mode)
    gst_buffer_remove_all_memory (frame->buf);
  for (i = 0; i < n; i++) {
    if (plan->tensor_mode)
      gst_buffer_append_memory (frame->buf,
          gst_buffer_get_all_memory (outs[i]));
    gst_buffer_unref (outs[i]);
  }
  g_free (outs);
  return meta;
}
