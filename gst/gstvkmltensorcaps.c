/* other/tensors caps; see gstvkmltensorcaps.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmltensorcaps.h"

#include <stdlib.h>
#include <string.h>

static const struct
{
  vkml_dtype dtype;
  const gchar *name;
} type_names[] = {
  {VKML_DTYPE_FLOAT, "float32"}, {VKML_DTYPE_FLOAT16, "float16"},
  {VKML_DTYPE_DOUBLE, "float64"}, {VKML_DTYPE_UINT8, "uint8"},
  {VKML_DTYPE_INT8, "int8"}, {VKML_DTYPE_UINT16, "uint16"},
  {VKML_DTYPE_INT16, "int16"}, {VKML_DTYPE_UINT32, "uint32"},
  {VKML_DTYPE_INT32, "int32"}, {VKML_DTYPE_UINT64, "uint64"},
  {VKML_DTYPE_INT64, "int64"},
};

gboolean
gst_vkml_caps_are_tensors (const GstCaps * caps)
{
  return caps && gst_caps_get_size (caps) > 0
      && gst_structure_has_name (gst_caps_get_structure (caps, 0),
      "other/tensors");
}

const gchar *
gst_vkml_tensor_type_name (vkml_dtype dtype)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (type_names); i++)
    if (type_names[i].dtype == dtype)
      return type_names[i].name;
  return NULL;
}

static vkml_dtype
type_from_name (const gchar * name)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (type_names); i++)
    if (g_str_equal (type_names[i].name, name))
      return type_names[i].dtype;
  return VKML_DTYPE_UNDEFINED;
}

GstCaps *
gst_vkml_tensor_caps_from_infos (const vkml_tensor_info * infos, gsize n,
    gchar ** why)
{
  GString *dims = g_string_new (NULL), *types = g_string_new (NULL);
  GstCaps *caps = NULL;
  gsize i;
  gint d;

  for (i = 0; i < n; i++) {
    const gchar *type = gst_vkml_tensor_type_name (infos[i].dtype);

    if (!type || infos[i].rank < 0) {
      *why = g_strdup_printf ("tensor '%s' is %s%s, which other/tensors cannot "
          "carry", infos[i].name, vkml_dtype_name (infos[i].dtype),
          infos[i].rank < 0 ? " of unknown shape" : "");
      goto done;
    }
    if (i) {
      g_string_append_c (dims, ',');
      g_string_append_c (types, ',');
    }
    g_string_append (types, type);
    for (d = infos[i].rank - 1; d >= 0; d--) {
      if (infos[i].dims[d] < 0) {
        *why = g_strdup_printf ("tensor '%s' has a symbolic dimension",
            infos[i].name);
        goto done;
      }
      g_string_append_printf (dims, "%s%" G_GINT64_FORMAT,
          d == infos[i].rank - 1 ? "" : ":", (gint64) infos[i].dims[d]);
    }
    if (infos[i].rank == 0)
      g_string_append (dims, "1");
  }
  caps = gst_caps_new_simple ("other/tensors", "format", G_TYPE_STRING,
      "static", "num_tensors", G_TYPE_INT, (gint) n, "dimensions",
      G_TYPE_STRING, dims->str, "types", G_TYPE_STRING, types->str, NULL);
done:
  g_string_free (dims, TRUE);
  g_string_free (types, TRUE);
  return caps;
}

/* "6:8:3:1" (innermost first) onto @model's rank, outermost first, into @out. */
static gboolean
dims_to_shape (const gchar * text, const vkml_tensor_info * model,
    vkml_tensor_info * out, gchar ** why)
{
  gchar **parts = g_strsplit (text, ":", -1);
  guint n = g_strv_length (parts), i;
  gint64 d[16];
  gboolean ok = n >= 1 && n <= 16;

  for (i = 0; ok && i < n; i++) {
    gchar *end = NULL;
    guint64 v = g_ascii_strtoull (parts[i], &end, 10);

    ok = end != parts[i] && *end == '\0' && v >= 1 && v <= G_MAXINT32;
    d[i] = (gint64) v;
  }
  g_strfreev (parts);
  if (!ok) {
    *why = g_strdup_printf ("dimensions \"%s\" are not positive numbers "
        "separated by ':'", text);
    return FALSE;
  }
  /* extra dims beyond the model's rank must be 1 (NNStreamer pads to 4 or 8) */
  for (i = (guint) MAX (model->rank, 0); i < n; i++)
    if (d[i] != 1) {
      *why = g_strdup_printf ("dimensions \"%s\" have more than the %d of "
          "input '%s'", text, model->rank, model->name);
      return FALSE;
    }
  *out = *model;
  for (i = 0; i < (guint) MAX (model->rank, 0); i++) {
    gint64 v = i < n ? d[i] : 1;
    gint axis = model->rank - 1 - (gint) i;

    if (model->dims[axis] >= 0 && model->dims[axis] != v) {
      *why = g_strdup_printf ("dimensions \"%s\" do not fit input '%s'", text,
          model->name);
      return FALSE;
    }
    out->dims[axis] = v;
  }
  return TRUE;
}

gboolean
gst_vkml_tensor_caps_to_shapes (const GstCaps * caps,
    const vkml_tensor_info * const *model, gsize n, vkml_tensor_info * shapes,
    gchar ** why)
{
  const GstStructure *s;
  const gchar *format, *dims, *types;
  gchar **dim_list = NULL, **type_list = NULL;
  gint num = -1;
  gboolean ok = FALSE;
  gsize i;

  if (!gst_vkml_caps_are_tensors (caps) || !gst_caps_is_fixed (caps)) {
    *why = g_strdup ("the caps are not fixed other/tensors caps");
    return FALSE;
  }
  s = gst_caps_get_structure (caps, 0);
  format = gst_structure_get_string (s, "format");
  dims = gst_structure_get_string (s, "dimensions");
  types = gst_structure_get_string (s, "types");
  if (!format || !g_str_equal (format, "static")) {
    *why = g_strdup ("only format=static tensors are taken");
    return FALSE;
  }
  if (!gst_structure_get_int (s, "num_tensors", &num) || num < 0
      || (gsize) num != n || !dims || !types) {
    *why = g_strdup_printf ("the caps need num_tensors=%" G_GSIZE_FORMAT
        " (one per model input), dimensions and types", n);
    return FALSE;
  }
  dim_list = g_strsplit (dims, ",", -1);
  type_list = g_strsplit (types, ",", -1);
  if (g_strv_length (dim_list) != n || g_strv_length (type_list) != n) {
    *why = g_strdup_printf ("dimensions and types must list %" G_GSIZE_FORMAT
        " tensors", n);
    goto done;
  }
  for (i = 0; i < n; i++) {
    vkml_dtype t = type_from_name (g_strstrip (type_list[i]));

    if (t != model[i]->dtype) {
      *why = g_strdup_printf ("tensor %" G_GSIZE_FORMAT " is %s; input '%s' "
          "takes %s", i, type_list[i], model[i]->name,
          gst_vkml_tensor_type_name (model[i]->dtype) ?
          gst_vkml_tensor_type_name (model[i]->dtype) :
          vkml_dtype_name (model[i]->dtype));
      goto done;
    }
    if (!dims_to_shape (g_strstrip (dim_list[i]), model[i], &shapes[i], why))
      goto done;
  }
  ok = TRUE;
done:
  g_strfreev (dim_list);
  g_strfreev (type_list);
  return ok;
}
