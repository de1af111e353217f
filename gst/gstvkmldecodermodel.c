/* A decoder's model: see gstvkmldecodermodel.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmldecodermodel.h"

gboolean
gst_vkml_decoder_model_update (GstVkmlDecoderModel * m,
    GstBaseTransform * trans, const GstVkmlTensorMeta * meta,
    gboolean * changed)
{
  GError *error = NULL;
  gchar *tensors = gst_vkml_tensor_meta_describe (meta);
  const gchar *id = meta->model_id ? meta->model_id : "";

  *changed = !m->model_id || !g_str_equal (m->model_id, id)
      || g_strcmp0 (m->tensors, tensors) != 0;
  if (!*changed) {
    g_free (tensors);
    return TRUE;
  }
  gst_vkml_decoder_model_clear (m);
  m->model_id = g_strdup (id);
  m->tensors = tensors;
  m->bundle = gst_vkml_bundle_query (GST_BASE_TRANSFORM_SINK_PAD (trans),
      m->model_id, &error);
  if (m->bundle)
    GST_INFO_OBJECT (trans, "model \"%s\": bundle %s", m->model_id,
        m->bundle->path);
  if (!error)
    return TRUE;
  GST_ELEMENT_ERROR (trans, RESOURCE, SETTINGS, ("Bad model bundle: %s.",
          error->message), (NULL));
  g_error_free (error);
  return FALSE;
}

void
gst_vkml_decoder_model_clear (GstVkmlDecoderModel * m)
{
  g_clear_pointer (&m->model_id, g_free);
  g_clear_pointer (&m->tensors, g_free);
  g_clear_pointer (&m->bundle, gst_vkml_bundle_free);
}

gboolean
gst_vkml_decoder_model_gives (const GstVkmlDecoderModel * m,
    GstVkmlBundleDecoder type, GstVkmlBundleField field)
{
  return m->bundle && m->bundle->decoder == type
      && (m->bundle->set & field) != 0;
}
