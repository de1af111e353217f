/* vkmlinfer's 'input-tensors' (gstvkmlinferinputs.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmlinferinputs.h"
#include "gstvkmlconvert.h"

#include <string.h>

void
gst_vkml_extra_inputs_clear (GstVkmlExtraInputs * x)
{
  gsize i;

  for (i = 0; i < x->n; i++)
    vkml_tensor_release (&x->tensors[i]);
  g_strfreev (x->names);
  g_free (x->tensors);
  memset (x, 0, sizeof (*x));
}

gboolean
gst_vkml_extra_inputs_read (const gchar * text, GstVkmlExtraInputs * out,
    gchar ** why)
{
  gchar **entries;
  guint i, n;

  memset (out, 0, sizeof (*out));
  if (!text || !*text)
    return TRUE;
  entries = g_strsplit (text, ",", -1);
  n = g_strv_length (entries);
  out->names = g_new0 (gchar *, n + 1);
  out->tensors = g_new0 (vkml_tensor, n + 1);
  for (i = 0; i < n && !*why; i++) {
    gchar *eq = strchr (entries[i], '=');
    vkml_error err = { 0 };
    gchar *name, *path;

    if (!eq || eq == entries[i] || !eq[1]) {
      *why = g_strdup_printf ("\"%s\" is not name=file.pb", entries[i]);
      break;
    }
    name = g_strstrip (g_strndup (entries[i], (gsize) (eq - entries[i])));
    path = g_strstrip (g_strdup (eq + 1));
    if (vkml_tensor_read_file (path, &out->tensors[i], NULL, &err) != VKML_OK)
      *why = g_strdup_printf ("could not read the tensor for input '%s' from "
          "\"%s\": %s", name, path, err.message);
    else
      out->n = i + 1;
    out->names[i] = name;
    g_free (path);
  }
  g_strfreev (entries);
  if (*why) {
    gst_vkml_extra_inputs_clear (out);
    return FALSE;
  }
  return TRUE;
}

/* The index of model input @name, or -1. */
static gssize
model_input_index (vkml_model * model, const gchar * name)
{
  gsize i, n = vkml_model_input_count (model);

  for (i = 0; i < n; i++)
    if (g_strcmp0 (vkml_model_input (model, i)->name, name) == 0)
      return (gssize) i;
  return -1;
}

static gchar *
describe_tensor (const gchar * name, const vkml_tensor * t)
{
  vkml_tensor_info info = {.name = name,.dtype = t->dtype,.rank = t->rank };

  memcpy (info.dims, t->dims, sizeof (info.dims));
  return gst_vkml_tensor_info_to_string (&info);
}

/* Whether @t fits the declared @info: dtype, rank, and every fixed dim. */
static gboolean
fits_declared (const vkml_tensor_info * info, const vkml_tensor * t)
{
  int d;

  if (t->dtype != info->dtype || t->rank != info->rank)
    return FALSE;
  for (d = 0; d < t->rank; d++)
    if (info->dims[d] >= 0 && info->dims[d] != t->dims[d])
      return FALSE;
  return TRUE;
}

gboolean
gst_vkml_extra_inputs_check (const GstVkmlExtraInputs * x, vkml_model * model,
    gchar ** why)
{
  gsize i, j;

  for (i = 0; i < x->n; i++) {
    gssize k = model_input_index (model, x->names[i]);
    const vkml_tensor_info *info;
    gchar *want, *got;

    for (j = 0; j < i; j++)
      if (g_strcmp0 (x->names[j], x->names[i]) == 0) {
        *why = g_strdup_printf ("input '%s' is given twice", x->names[i]);
        return FALSE;
      }
    if (k < 0) {
      *why = g_strdup_printf ("the model has no input '%s'", x->names[i]);
      return FALSE;
    }
    if (k == 0) {
      *why = g_strdup_printf ("input '%s' is the image input, fed by the "
          "frames", x->names[i]);
      return FALSE;
    }
    info = vkml_model_input (model, (gsize) k);
    if (fits_declared (info, &x->tensors[i]))
      continue;
    want = gst_vkml_tensor_info_to_string (info);
    got = describe_tensor (x->names[i], &x->tensors[i]);
    *why = g_strdup_printf ("the model's input %s cannot take the tensor "
        "given, %s", want, got);
    g_free (want);
    g_free (got);
    return FALSE;
  }
  return TRUE;
}

gboolean
gst_vkml_extra_inputs_bind (const GstVkmlExtraInputs * x, vkml_model * model,
    const vkml_tensor ** feeds, vkml_tensor_info * shapes, gchar ** why)
{
  gsize i, j, n = vkml_model_input_count (model);

  for (i = 1; i < n; i++) {
    const vkml_tensor_info *info = vkml_model_input (model, i);

    for (j = 0; j < x->n && g_strcmp0 (x->names[j], info->name) != 0; j++);
    if (j == x->n) {
      gchar *s = gst_vkml_tensor_info_to_string (info);

      *why = g_strdup_printf ("the model's input %s is not the image input "
          "(input 0) and 'input-tensors' gives no tensor for it "
          "(input-tensors=\"%s=file.pb\")", s, info->name);
      g_free (s);
      return FALSE;
    }
    feeds[i] = &x->tensors[j];
    shapes[i] = *info;
    memcpy (shapes[i].dims, x->tensors[j].dims, sizeof (shapes[i].dims));
  }
  return TRUE;
}
