/* The device context and model instances vkmlinfer elements share (gstvkmlshared.h).
 *
 * One registry lock (`shared_lock`) guards the default context slot, the instance table
 * and every instance's fields; reference counts of contexts are atomic (a GstContext may
 * drop its reference on any thread). Creating an instance loads its model, and creating
 * an instance session plans it, under the lock: an element joining waits for one that
 * is planning, which is the point (the second element reuses the first one's work). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmlshared.h"

#include <string.h>

struct _GstVkmlSharedContext
{
  guint refs;                   /* under shared_lock */
  vkml_context *ctx;
};

struct _GstVkmlInstanceSession
{
  GstVkmlInstance *inst;
  guint refs;                   /* under shared_lock */
  guint generation;             /* the instance's model it was planned for */
  gint gpu;                     /* data parallel: the one GPU it runs on; else -1 */
  gsize n_shapes;
  vkml_tensor_info *shapes;     /* the key: input shapes ... */
  gboolean has_pp;
  vkml_preprocess pp;           /* ... and pre-processing */
  vkml_session *session;
  vkml_batcher *batcher;
};

struct _GstVkmlInstance
{
  gchar *id;
  guint users;                  /* under shared_lock */
  GstVkmlSharedContext *ctx;
  vkml_model *model;
  gchar *model_path;
  guint generation;             /* model swaps so far: written under shared_lock,
                                 * read atomically (every frame asks) */
  GstVkmlInferSettings set;     /* a copy of the first element's */
  gchar *input_tensors;
  GList *sessions;              /* GstVkmlInstanceSession */
};

static GMutex shared_lock;
static GstVkmlSharedContext *default_ctx;       /* not a reference: cleared when its
                                                 * last holder lets go; or NULL */
static GHashTable *instances;   /* id -> GstVkmlInstance */

G_DEFINE_BOXED_TYPE (GstVkmlSharedContext, gst_vkml_shared_context,
    gst_vkml_shared_context_ref, gst_vkml_shared_context_unref);

static GstVkmlSharedContext *
ref_locked (GstVkmlSharedContext * sc)
{
  sc->refs++;
  return sc;
}

GstVkmlSharedContext *
gst_vkml_shared_context_ref (GstVkmlSharedContext * sc)
{
  g_mutex_lock (&shared_lock);
  ref_locked (sc);
  g_mutex_unlock (&shared_lock);
  return sc;
}

/* The last reference frees the context (and empties the default slot it may be in):
 * under the lock, so that gst_vkml_shared_context_default never takes a dying one. */
void
gst_vkml_shared_context_unref (GstVkmlSharedContext * sc)
{
  gboolean last;

  if (!sc)
    return;
  g_mutex_lock (&shared_lock);
  last = --sc->refs == 0;
  if (last && default_ctx == sc)
    default_ctx = NULL;
  g_mutex_unlock (&shared_lock);
  if (!last)
    return;
  vkml_context_destroy (&sc->ctx);
  g_free (sc);
}

vkml_context *
gst_vkml_shared_context_get (const GstVkmlSharedContext * sc)
{
  return sc->ctx;
}

GstVkmlSharedContext *
gst_vkml_shared_context_default (const vkml_context_params * params,
    vkml_error * err)
{
  GstVkmlSharedContext *sc = NULL;
  vkml_context *ctx;

  g_mutex_lock (&shared_lock);
  if (!default_ctx && vkml_context_create (params, &ctx, err) == VKML_OK) {
    default_ctx = g_new0 (GstVkmlSharedContext, 1);
    default_ctx->ctx = ctx;
  }
  if (default_ctx)
    sc = ref_locked (default_ctx);
  g_mutex_unlock (&shared_lock);
  return sc;
}

void
gst_vkml_shared_context_mark_lost (GstVkmlSharedContext * sc)
{
  g_mutex_lock (&shared_lock);
  if (default_ctx == sc)
    default_ctx = NULL;
  g_mutex_unlock (&shared_lock);
}

GstContext *
gst_vkml_shared_context_to_gst (GstVkmlSharedContext * sc)
{
  GstContext *context = gst_context_new (GST_VKML_CONTEXT_TYPE, TRUE);

  gst_structure_set (gst_context_writable_structure (context), "context",
      gst_vkml_shared_context_get_type (), sc, NULL);
  return context;
}

GstVkmlSharedContext *
gst_vkml_shared_context_from_gst (GstContext * context)
{
  GstVkmlSharedContext *sc = NULL;

  if (!context || g_strcmp0 (gst_context_get_context_type (context),
          GST_VKML_CONTEXT_TYPE) != 0)
    return NULL;
  gst_structure_get (gst_context_get_structure (context), "context",
      gst_vkml_shared_context_get_type (), &sc, NULL);
  return sc;                    /* gst_structure_get copied (referenced) it */
}

/* ------------------------------------------------------------------------------- */
/* Instances                                                                         */

static void
instance_free (GstVkmlInstance * inst)
{
  g_assert (!inst->sessions);
  vkml_model_destroy (&inst->model);
  gst_vkml_shared_context_unref (inst->ctx);
  gst_vkml_infer_settings_clear (&inst->set);
  g_free (inst->model_path);
  g_free (inst->input_tensors);
  g_free (inst->id);
  g_free (inst);
}

/* The first setting of @key that differs from @inst's, as "what: here, instance";
 * NULL when they agree. */
static gchar *
instance_difference (const GstVkmlInstance * inst,
    const GstVkmlInstanceKey * key, GstVkmlSharedContext * ctx)
{
  const GstVkmlInferSettings *a = key->set, *b = &inst->set;

  if (g_strcmp0 (key->model_path, inst->model_path))
    return g_strdup_printf ("'model' is \"%s\" here, \"%s\" on the instance",
        key->model_path, inst->model_path);
  if (g_strcmp0 (a->device, b->device))
    return g_strdup_printf ("'device' is \"%s\" here, \"%s\" on the instance",
        a->device, b->device);
  if (a->precision != b->precision)
    return g_strdup_printf ("'precision' is %s here, %s on the instance",
        vkml_precision_name (a->precision), vkml_precision_name (b->precision));
  if (a->cpu_threads != b->cpu_threads)
    return g_strdup_printf ("'cpu-threads' is %u here, %u on the instance",
        a->cpu_threads, b->cpu_threads);
  if (a->batch_size != b->batch_size)
    return g_strdup_printf ("'batch-size' is %u here, %u on the instance",
        a->batch_size, b->batch_size);
  if (a->batch_timeout_us != b->batch_timeout_us)
    return g_strdup_printf ("'batch-timeout' is %" G_GUINT64_FORMAT " here, %"
        G_GUINT64_FORMAT " on the instance", a->batch_timeout_us,
        b->batch_timeout_us);
  if (a->budget != b->budget)
    return g_strdup_printf ("'budget' is %" G_GUINT64_FORMAT " here, %"
        G_GUINT64_FORMAT " on the instance", a->budget, b->budget);
  if (!a->data_parallel != !b->data_parallel)
    return g_strdup_printf ("'data-parallel' is %s here, %s on the instance",
        a->data_parallel ? "true" : "false",
        b->data_parallel ? "true" : "false");
  if (g_strcmp0 (key->input_tensors, inst->input_tensors))
    return g_strdup_printf ("'input-tensors' is \"%s\" here, \"%s\" on the "
        "instance", GST_STR_NULL (key->input_tensors),
        GST_STR_NULL (inst->input_tensors));
  if (ctx != inst->ctx)
    return g_strdup ("the element has another device context (GstContext "
        "\"" GST_VKML_CONTEXT_TYPE "\") than the instance");
  return NULL;
}

static GstVkmlInstance *
instance_new (const gchar * id, const GstVkmlInstanceKey * key,
    GstVkmlSharedContext * ctx, vkml_model * model)
{
  GstVkmlInstance *inst = g_new0 (GstVkmlInstance, 1);

  inst->id = g_strdup (id);
  inst->ctx = ref_locked (ctx);
  inst->model = model;
  inst->model_path = g_strdup (key->model_path);
  inst->set = *key->set;
  inst->set.device = g_strdup (key->set->device);
  memset (&inst->set.extra, 0, sizeof (inst->set.extra));
  inst->input_tensors = g_strdup (key->input_tensors);
  return inst;
}

GstVkmlInstance *
gst_vkml_instance_acquire (const gchar * id, const GstVkmlInstanceKey * key,
    GstVkmlSharedContext * ctx, vkml_error * err, gchar ** why)
{
  GstVkmlInstance *inst;
  vkml_model *model = NULL;

  g_mutex_lock (&shared_lock);
  if (!instances)
    instances = g_hash_table_new (g_str_hash, g_str_equal);
  inst = g_hash_table_lookup (instances, id);
  if (inst && (*why = instance_difference (inst, key, ctx)))
    inst = NULL;
  else if (!inst && gst_vkml_load_model (NULL, key->model_path, &model,
          err) == VKML_OK) {
    inst = instance_new (id, key, ctx, model);
    g_hash_table_insert (instances, inst->id, inst);
  }
  if (inst)
    inst->users++;
  g_mutex_unlock (&shared_lock);
  return inst;
}

void
gst_vkml_instance_release (GstVkmlInstance * inst)
{
  gboolean last;

  if (!inst)
    return;
  g_mutex_lock (&shared_lock);
  last = --inst->users == 0;
  if (last)
    g_hash_table_remove (instances, inst->id);
  g_mutex_unlock (&shared_lock);
  if (last)
    instance_free (inst);
}

guint
gst_vkml_instance_users (GstVkmlInstance * inst)
{
  guint n;

  g_mutex_lock (&shared_lock);
  n = inst->users;
  g_mutex_unlock (&shared_lock);
  return n;
}

/* ------------------------------------------------------------------------------- */
/* An instance's sessions, one per input                                             */

static gboolean
same_shapes (const GstVkmlInstanceSession * is, const vkml_session_params * p)
{
  gsize i;

  for (i = 0; i < is->n_shapes; i++) {
    const vkml_tensor_info *a = &is->shapes[i], *b = &p->input_shapes[i];

    if (a->rank != b->rank || (a->rank > 0 && memcmp (a->dims, b->dims,
                (gsize) a->rank * sizeof (a->dims[0]))))
      return FALSE;
  }
  return TRUE;
}

static gboolean
same_preprocess (const vkml_preprocess * a, const vkml_preprocess * b)
{
  return a->format == b->format && a->width == b->width
      && a->height == b->height && a->pixel_stride == b->pixel_stride
      && !memcmp (a->rgb_offsets, b->rgb_offsets, sizeof (a->rgb_offsets))
      && !memcmp (a->plane_offsets, b->plane_offsets, sizeof (a->plane_offsets))
      && !memcmp (a->plane_strides, b->plane_strides, sizeof (a->plane_strides))
      && a->frame_bytes == b->frame_bytes && a->matrix == b->matrix
      && a->full_range == b->full_range && a->resize == b->resize
      && a->pad_value == b->pad_value && a->bgr == b->bgr
      && a->scale == b->scale && !memcmp (a->mean, b->mean, sizeof (a->mean))
      && !memcmp (a->std, b->std, sizeof (a->std))
      && a->rect_input == b->rect_input;
}

static gboolean
session_matches (const GstVkmlInstanceSession * is,
    const vkml_session_params * p)
{
  if (is->generation != is->inst->generation)
    return FALSE;               /* planned for the model before a swap */
  if (!is->has_pp != !p->preprocess)
    return FALSE;
  if (is->has_pp && !same_preprocess (&is->pp, p->preprocess))
    return FALSE;
  return same_shapes (is, p);
}

static void
instance_session_free (GstVkmlInstanceSession * is)
{
  vkml_batcher_destroy (&is->batcher);  /* runs what is left, waits for it */
  vkml_session_destroy (&is->session);
  g_free (is->shapes);
  g_free (is);
}

/* With @gpu >= 0 the session plans on that GPU alone (a data-parallel instance's). */
static GstVkmlInstanceSession *
instance_session_new (GstVkmlInstance * inst,
    const vkml_session_params * params, gint gpu, vkml_error * err)
{
  GstVkmlInstanceSession *is = g_new0 (GstVkmlInstanceSession, 1);
  vkml_batcher_params bp = {.timeout_us = (int64_t) inst->set.batch_timeout_us
  };
  vkml_session_params one = *params, *p = &one;

  if (gpu >= 0) {
    one.devices = &gpu;
    one.n_devices = 1;
    one.data_parallel = false;
  }
  is->inst = inst;
  is->gpu = gpu;
  is->generation = inst->generation;
  is->n_shapes = vkml_model_input_count (inst->model);
  is->shapes = g_memdup2 (p->input_shapes,
      is->n_shapes * sizeof (vkml_tensor_info));
  is->has_pp = p->preprocess != NULL;
  if (is->has_pp)
    is->pp = *p->preprocess;
  if (vkml_session_create (gst_vkml_shared_context_get (inst->ctx),
          inst->model, p, &is->session, err) != VKML_OK
      || vkml_batcher_create (is->session, &bp, &is->batcher, err) != VKML_OK) {
    instance_session_free (is);
    return NULL;
  }
  return is;
}

/* Under shared_lock: a GPU of a data-parallel device set (several GPUs) that no session
 * for these params runs on yet; -1: none (or not data parallel). */
static gint
unused_gpu (const GstVkmlInstance * inst, const vkml_session_params * p)
{
  gsize i, n = 0;
  GList *l;

  for (i = 0; p->data_parallel && p->devices && i < p->n_devices; i++)
    n += p->devices[i] >= 0;
  for (i = 0; n > 1 && i < p->n_devices; i++) {
    gboolean used = p->devices[i] < 0;

    for (l = inst->sessions; l && !used; l = l->next)
      used = session_matches (l->data, p)
          && ((GstVkmlInstanceSession *) l->data)->gpu == p->devices[i];
    if (!used)
      return p->devices[i];
  }
  return -1;
}

/* A data-parallel instance over several GPUs gives each GPU a session of its own, with
 * its own batcher (so the frames of each GPU are gathered and uploaded beside the
 * other's), and puts each joining element on the GPU with the fewest elements. */
GstVkmlInstanceSession *
gst_vkml_instance_session (GstVkmlInstance * inst,
    const vkml_session_params * params, vkml_error * err)
{
  GstVkmlInstanceSession *is = NULL, *other;
  GList *l;
  gint gpu;

  g_mutex_lock (&shared_lock);
  for (l = inst->sessions; l; l = l->next)
    if (session_matches ((other = l->data), params)
        && (!is || other->refs < is->refs))
      is = other;
  gpu = unused_gpu (inst, params);
  if ((!is || (gpu >= 0 && is->refs > 0))
      && (other = instance_session_new (inst, params, gpu, err))) {
    is = other;
    inst->sessions = g_list_prepend (inst->sessions, is);
  }
  if (is) {
    is->refs++;
    inst->users++;              /* the session holds its instance */
  }
  g_mutex_unlock (&shared_lock);
  return is;
}

void
gst_vkml_instance_session_release (GstVkmlInstanceSession * is)
{
  GstVkmlInstance *inst;
  gboolean last;

  if (!is)
    return;
  inst = is->inst;
  g_mutex_lock (&shared_lock);
  last = --is->refs == 0;
  if (last)
    inst->sessions = g_list_remove (inst->sessions, is);
  g_mutex_unlock (&shared_lock);
  if (last)
    instance_session_free (is);
  gst_vkml_instance_release (inst);
}

vkml_session *
gst_vkml_instance_session_get (GstVkmlInstanceSession * is)
{
  return is->session;
}

vkml_batcher *
gst_vkml_instance_session_batcher (GstVkmlInstanceSession * is)
{
  return is->batcher;
}

guint
gst_vkml_instance_session_generation (GstVkmlInstanceSession * is)
{
  return is->generation;
}

guint
gst_vkml_instance_generation (GstVkmlInstance * inst)
{
  return (guint) g_atomic_int_get (&inst->generation);
}

vkml_model *
gst_vkml_instance_take_model (GstVkmlInstance * inst, guint * generation)
{
  vkml_model *model;

  g_mutex_lock (&shared_lock);
  model = vkml_model_retain (inst->model);
  *generation = inst->generation;
  g_mutex_unlock (&shared_lock);
  return model;
}

gboolean
gst_vkml_instance_swap (GstVkmlInstance * inst, const gchar * path,
    vkml_error * err)
{
  vkml_model *model = NULL;

  if (gst_vkml_load_model (NULL, path, &model, err) != VKML_OK)
    return FALSE;
  g_mutex_lock (&shared_lock);
  g_free (inst->model_path);
  inst->model_path = g_strdup (path);
  vkml_model_destroy (&inst->model);    /* its sessions hold their own references */
  inst->model = model;
  g_atomic_int_inc (&inst->generation);
  g_mutex_unlock (&shared_lock);
  return TRUE;
}
