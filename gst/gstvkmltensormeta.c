/* GstVkmlTensorMeta: see gstvkmltensormeta.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmltensormeta.h"

#include <string.h>

#if defined (HAVE_GST_TENSOR_META) && GST_CHECK_VERSION (1, 26, 0)
#include <gst/analytics/analytics.h>
#define VKML_WITH_TENSOR_META 1
#endif

GST_DEBUG_CATEGORY_STATIC (gst_vkml_tensor_meta_debug);
#define GST_CAT_DEFAULT gst_vkml_tensor_meta_debug

GType
gst_vkml_tensor_meta_api_get_type (void)
{
  static GType type = 0;
  /* No tags: the tensors describe the whole buffer, not its memory layout, so elements
   * that rescale or convert video may keep them. */
  static const gchar *tags[] = { NULL };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GstVkmlTensorMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* Source of GstVkmlTensorMeta.seq (a pointer-sized atomic: GLib has no 64-bit add). */
static gsize meta_seq = 1;

static gboolean
gst_vkml_tensor_meta_init (GstMeta * meta, G_GNUC_UNUSED gpointer params,
    G_GNUC_UNUSED GstBuffer * buffer)
{
  GstVkmlTensorMeta *tmeta = (GstVkmlTensorMeta *) meta;

  tmeta->n_tensors = 0;
  tmeta->tensors = NULL;
  tmeta->model_id = NULL;
  tmeta->has_geometry = FALSE;
  tmeta->roi_id = -1;
  memset (&tmeta->geometry, 0, sizeof (tmeta->geometry));
  tmeta->seq = (guint64) g_atomic_pointer_add (&meta_seq, 1);
  return TRUE;
}

static void
gst_vkml_tensor_meta_free (GstMeta * meta, G_GNUC_UNUSED GstBuffer * buffer)
{
  GstVkmlTensorMeta *tmeta = (GstVkmlTensorMeta *) meta;
  guint i;

  for (i = 0; i < tmeta->n_tensors; i++) {
    g_free (tmeta->tensors[i].name);
    gst_buffer_unref (tmeta->tensors[i].data);
  }
  g_free (tmeta->tensors);
  tmeta->tensors = NULL;
  tmeta->n_tensors = 0;
  g_clear_pointer (&tmeta->model_id, g_free);
}

/* Copies share the (read-only) tensor data buffers; other transforms drop the meta. */
static gboolean
gst_vkml_tensor_meta_transform (GstBuffer * dest, GstMeta * meta,
    G_GNUC_UNUSED GstBuffer * buffer, GQuark type, G_GNUC_UNUSED gpointer data)
{
  GstVkmlTensorMeta *src = (GstVkmlTensorMeta *) meta;
  GstVkmlTensorMeta *dst;
  guint i;

  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;

  dst = gst_buffer_add_vkml_tensor_meta (dest);
  if (!dst)
    return FALSE;
  for (i = 0; i < src->n_tensors; i++) {
    const GstVkmlTensor *t = &src->tensors[i];

    if (!gst_vkml_tensor_meta_add (dst, t->name, t->dtype, t->rank, t->dims,
            t->data))
      return FALSE;
  }
  gst_vkml_tensor_meta_set_model_id (dst, src->model_id);
  dst->has_geometry = src->has_geometry;
  dst->geometry = src->geometry;
  dst->seq = src->seq;
  dst->roi_id = src->roi_id;
  return TRUE;
}

const GstMetaInfo *
gst_vkml_tensor_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi = gst_meta_register (GST_VKML_TENSOR_META_API_TYPE,
        "GstVkmlTensorMeta", sizeof (GstVkmlTensorMeta),
        gst_vkml_tensor_meta_init, gst_vkml_tensor_meta_free,
        gst_vkml_tensor_meta_transform);

    GST_DEBUG_CATEGORY_INIT (gst_vkml_tensor_meta_debug, "vkmltensormeta", 0,
        "vkml tensor metadata");
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

GstVkmlTensorMeta *
gst_buffer_add_vkml_tensor_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  return (GstVkmlTensorMeta *) gst_buffer_add_meta (buffer,
      GST_VKML_TENSOR_META_INFO, NULL);
}

void
gst_vkml_tensor_meta_set_model_id (GstVkmlTensorMeta * meta,
    const gchar * model_id)
{
  g_return_if_fail (meta != NULL);

  g_free (meta->model_id);
  meta->model_id = g_strdup (model_id);
}

static gsize
element_count (guint rank, const gint64 * dims)
{
  gsize n = 1;
  guint i;

  for (i = 0; i < rank; i++) {
    if (dims[i] < 0 || (dims[i] > 0 && n > G_MAXSIZE / (gsize) dims[i]))
      return G_MAXSIZE;
    n *= (gsize) dims[i];
  }
  return n;
}

GstVkmlTensor *
gst_vkml_tensor_meta_add (GstVkmlTensorMeta * meta, const gchar * name,
    vkml_dtype dtype, guint rank, const gint64 * dims, GstBuffer * data)
{
  GstVkmlTensor *t;
  gsize count, esize;

  g_return_val_if_fail (meta != NULL, NULL);
  g_return_val_if_fail (GST_IS_BUFFER (data), NULL);
  g_return_val_if_fail (rank == 0 || dims != NULL, NULL);

  if (rank > GST_VKML_TENSOR_MAX_RANK) {
    GST_WARNING ("tensor '%s' has rank %u, more than %d", GST_STR_NULL (name),
        rank, GST_VKML_TENSOR_MAX_RANK);
    return NULL;
  }
  count = element_count (rank, dims);
  esize = vkml_dtype_size (dtype);
  if (count == G_MAXSIZE
      || (esize && count > gst_buffer_get_size (data) / esize)) {
    GST_WARNING ("tensor '%s': %" G_GSIZE_FORMAT " bytes of data for %"
        G_GSIZE_FORMAT " elements of %s", GST_STR_NULL (name),
        gst_buffer_get_size (data), count, vkml_dtype_name (dtype));
    return NULL;
  }

  meta->tensors = g_renew (GstVkmlTensor, meta->tensors, meta->n_tensors + 1);
  t = &meta->tensors[meta->n_tensors++];
  memset (t, 0, sizeof (*t));
  t->name = g_strdup (name ? name : "");
  t->dtype = dtype;
  t->rank = rank;
  if (rank)
    memcpy (t->dims, dims, rank * sizeof (gint64));
  t->data = gst_buffer_ref (data);
  return t;
}

const GstVkmlTensor *
gst_vkml_tensor_meta_get_by_name (const GstVkmlTensorMeta * meta,
    const gchar * name)
{
  guint i;

  g_return_val_if_fail (meta != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  for (i = 0; i < meta->n_tensors; i++) {
    if (g_strcmp0 (meta->tensors[i].name, name) == 0)
      return &meta->tensors[i];
  }
  return NULL;
}

const GstVkmlTensor *
gst_vkml_tensor_meta_get (const GstVkmlTensorMeta * meta, guint index)
{
  g_return_val_if_fail (meta != NULL, NULL);

  return index < meta->n_tensors ? &meta->tensors[index] : NULL;
}

gsize
gst_vkml_tensor_element_count (const GstVkmlTensor * tensor)
{
  gsize n;

  g_return_val_if_fail (tensor != NULL, 0);

  n = element_count (tensor->rank, tensor->dims);
  return n == G_MAXSIZE ? 0 : n;
}

typedef struct
{
  const gchar *model_id;
  GstVkmlTensorMeta *found;
} FindMetaData;

static gboolean
find_meta_cb (G_GNUC_UNUSED GstBuffer * buffer, GstMeta ** meta,
    gpointer user_data)
{
  FindMetaData *d = user_data;
  GstVkmlTensorMeta *tmeta = (GstVkmlTensorMeta *) * meta;

  if ((*meta)->info->api != GST_VKML_TENSOR_META_API_TYPE)
    return TRUE;
  if ((!d->model_id || !*d->model_id
          || g_strcmp0 (tmeta->model_id, d->model_id) == 0)
      && (!d->found || tmeta->seq > d->found->seq))
    d->found = tmeta;
  return TRUE;
}

GstVkmlTensorMeta *
gst_buffer_find_vkml_tensor_meta (GstBuffer * buffer, const gchar * model_id)
{
  FindMetaData d = { model_id, NULL };

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  gst_buffer_foreach_meta (buffer, find_meta_cb, &d);
  return d.found;
}

gchar *
gst_vkml_tensor_meta_describe (const GstVkmlTensorMeta * meta)
{
  GString *s = g_string_new (NULL);
  guint i, d;

  g_return_val_if_fail (meta != NULL, NULL);

  for (i = 0; i < meta->n_tensors; i++) {
    const GstVkmlTensor *t = &meta->tensors[i];

    g_string_append_printf (s, "%s'%s' [", i ? ", " : "", t->name);
    for (d = 0; d < t->rank; d++)
      g_string_append_printf (s, "%s%" G_GINT64_FORMAT, d ? "," : "",
          t->dims[d]);
    g_string_append_printf (s, "] %s", vkml_dtype_name (t->dtype));
  }
  if (meta->n_tensors == 0)
    g_string_append (s, "no tensors");
  return g_string_free (s, FALSE);
}

const gint64 *
gst_vkml_tensor_get_dims (const GstVkmlTensor * tensor, guint * n_dims)
{
  g_return_val_if_fail (tensor != NULL && n_dims != NULL, NULL);

  *n_dims = tensor->rank;
  return tensor->dims;
}

GstBuffer *
gst_vkml_tensor_get_data (const GstVkmlTensor * tensor)
{
  g_return_val_if_fail (tensor != NULL, NULL);

  return tensor->data;
}

const gchar *
gst_vkml_tensor_get_dtype_name (const GstVkmlTensor * tensor)
{
  g_return_val_if_fail (tensor != NULL, NULL);

  return vkml_dtype_name (tensor->dtype);
}

#ifdef VKML_WITH_TENSOR_META
/* GstTensorMeta's name for @dtype; FALSE when it has none. */
static gboolean
upstream_dtype (vkml_dtype dtype, GstTensorDataType * out)
{
  static const struct
  {
    vkml_dtype vkml;
    GstTensorDataType gst;
  } map[] = {
    {VKML_DTYPE_FLOAT, GST_TENSOR_DATA_TYPE_FLOAT32},
    {VKML_DTYPE_DOUBLE, GST_TENSOR_DATA_TYPE_FLOAT64},
    {VKML_DTYPE_FLOAT16, GST_TENSOR_DATA_TYPE_FLOAT16},
    {VKML_DTYPE_BFLOAT16, GST_TENSOR_DATA_TYPE_BFLOAT16},
    {VKML_DTYPE_INT4, GST_TENSOR_DATA_TYPE_INT4},
    {VKML_DTYPE_INT8, GST_TENSOR_DATA_TYPE_INT8},
    {VKML_DTYPE_INT16, GST_TENSOR_DATA_TYPE_INT16},
    {VKML_DTYPE_INT32, GST_TENSOR_DATA_TYPE_INT32},
    {VKML_DTYPE_INT64, GST_TENSOR_DATA_TYPE_INT64},
    {VKML_DTYPE_UINT4, GST_TENSOR_DATA_TYPE_UINT4},
    {VKML_DTYPE_UINT8, GST_TENSOR_DATA_TYPE_UINT8},
    {VKML_DTYPE_UINT16, GST_TENSOR_DATA_TYPE_UINT16},
    {VKML_DTYPE_UINT32, GST_TENSOR_DATA_TYPE_UINT32},
    {VKML_DTYPE_UINT64, GST_TENSOR_DATA_TYPE_UINT64},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (map); i++) {
    if (map[i].vkml == dtype) {
      *out = map[i].gst;
      return TRUE;
    }
  }
  return FALSE;
}

gboolean
gst_vkml_tensor_meta_attach_upstream (GstBuffer * buffer,
    const GstVkmlTensorMeta * meta)
{
  GstTensor **tensors;
  GstTensorMeta *tmeta;
  guint i, n = 0, d;

  /* One GstTensorMeta per buffer: the first model's tensors stay there. */
  if (gst_buffer_get_tensor_meta (buffer))
    return FALSE;
  tensors = g_new0 (GstTensor *, MAX (meta->n_tensors, 1));
  for (i = 0; i < meta->n_tensors; i++) {
    const GstVkmlTensor *t = &meta->tensors[i];
    gsize dims[GST_VKML_TENSOR_MAX_RANK];
    GstTensorDataType type;

    GstTensor *up;

    /* GstTensor has no scalars (num_dims > 0) and no type for some dtypes. */
    if (t->rank == 0 || !upstream_dtype (t->dtype, &type)) {
      GST_DEBUG ("tensor '%s' (%s, rank %u) has no GstTensor form", t->name,
          vkml_dtype_name (t->dtype), t->rank);
      continue;
    }
    for (d = 0; d < t->rank; d++)
      dims[d] = (gsize) t->dims[d];
    up = gst_tensor_new_simple (g_quark_from_string (t->name), type,
        gst_buffer_ref (t->data), GST_TENSOR_DIM_ORDER_ROW_MAJOR, t->rank,
        dims);
    if (up)
      tensors[n++] = up;
    else
      gst_buffer_unref (t->data);
  }
  tmeta = gst_buffer_add_tensor_meta (buffer);
  if (!tmeta) {
    for (i = 0; i < n; i++)
      gst_tensor_free (tensors[i]);
    g_free (tensors);
    return FALSE;
  }
  gst_tensor_meta_set (tmeta, n, tensors);
  return TRUE;
}
#else
gboolean
gst_vkml_tensor_meta_attach_upstream (G_GNUC_UNUSED GstBuffer * buffer,
    G_GNUC_UNUSED const GstVkmlTensorMeta * meta)
{
  return FALSE;
}
#endif
