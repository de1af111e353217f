/* vkmlinfer's 'input-tensors': constant tensors (TensorProto files, read with
 * vkml_tensor_read_file) for the model inputs other than the image, checked against the
 * model's declared inputs. Private to the plugin; thread-safe (no state of its own). */
#pragma once

#include <glib.h>
#include <vkml/vkml.h>

G_BEGIN_DECLS typedef struct
{
  gsize n;
  gchar **names;                /* the model input each tensor feeds */
  vkml_tensor *tensors;         /* read-only once read */
} GstVkmlExtraInputs;

/* Parses "name=file.pb,name2=file2.pb" (NULL or "": none) and reads the files. FALSE and
 * *why naming the entry or file when one does not parse or read. */
gboolean gst_vkml_extra_inputs_read (const gchar * text,
    GstVkmlExtraInputs * out, gchar ** why);
void gst_vkml_extra_inputs_clear (GstVkmlExtraInputs * x);

/* Each tensor names an input of @model other than input 0 (the image), once, and fits
 * its declared dtype, rank and fixed dims. FALSE and *why naming the input otherwise. */
gboolean gst_vkml_extra_inputs_check (const GstVkmlExtraInputs * x,
    vkml_model * model, gchar ** why);

/* Video mode: the tensor for each model input 1 .. n-1 into @feeds[i] (feeds[0] NULL)
 * and its shape into @shapes[i]. FALSE and *why naming the first input that has none. */
gboolean gst_vkml_extra_inputs_bind (const GstVkmlExtraInputs * x,
    vkml_model * model, const vkml_tensor ** feeds, vkml_tensor_info * shapes,
    gchar ** why);

G_END_DECLS
