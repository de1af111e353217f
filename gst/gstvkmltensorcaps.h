/* Tensor caps compatible with NNStreamer's other/tensors (format=static): one structure
 * with num_tensors, dimensions ("d0:d1:..." innermost first, tensors separated by ',')
 * and types ("float32,uint8"). Private to the plugin; the functions are thread-safe. */
#pragma once

#include <gst/gst.h>
#include <vkml/vkml.h>

G_BEGIN_DECLS
#define GST_VKML_TENSOR_CAPS "other/tensors, format = (string) static"
/* Whether @caps (fixed or not) are tensor caps. */
    gboolean gst_vkml_caps_are_tensors (const GstCaps * caps);

/* NNStreamer's name of @dtype ("float32", "uint8", ...), or NULL when it has none. */
const gchar *gst_vkml_tensor_type_name (vkml_dtype dtype);

/* Caps for @n tensors of @infos (concrete shapes); NULL (and *why) when a dtype has no
 * NNStreamer name or a dim is symbolic. */
GstCaps *gst_vkml_tensor_caps_from_infos (const vkml_tensor_info * infos,
    gsize n, gchar ** why);

/* Reads fixed tensor @caps for a model of @n inputs @model: each tensor's type must be
 * its input's dtype and its dims fit its shape (NNStreamer's extra trailing 1s ignored);
 * @shapes[i] gets the input's shape with symbolic dims bound from the caps. FALSE (and
 * *why) otherwise. */
gboolean gst_vkml_tensor_caps_to_shapes (const GstCaps * caps,
    const vkml_tensor_info * const *model, gsize n, vkml_tensor_info * shapes,
    gchar ** why);

G_END_DECLS
