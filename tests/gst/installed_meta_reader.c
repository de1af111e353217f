/* Built by test_installed_meta.sh against the *installed* libgstvkmlmeta-1.0, with
 * only what `pkg-config --cflags --libs gstreamer-vkml-meta-1.0` gives: attaches a
 * tensor, copies the buffer, finds the meta by model id and reads the values back.
 * Exit status 0 when every value is as written. */
#include <gst/gst.h>
#include <gst/vkml/gstvkmltensormeta.h>

#include <string.h>

int
main (int argc, char **argv)
{
  const gfloat values[6] = { 0.5f, -1.0f, 2.0f, 3.5f, 4.0f, -6.25f };
  const gint64 dims[2] = { 2, 3 };
  GstBuffer *buf, *copy, *data;
  GstVkmlTensorMeta *meta;
  const GstVkmlTensor *t;
  gfloat got[6];
  gchar *text;
  int ok;

  gst_init (&argc, &argv);
  buf = gst_buffer_new ();
  meta = gst_buffer_add_vkml_tensor_meta (buf);
  gst_vkml_tensor_meta_set_model_id (meta, "reader");
  data = gst_buffer_new_memdup (values, sizeof (values));
  gst_vkml_tensor_meta_add (meta, "scores", VKML_DTYPE_FLOAT, 2, dims, data);
  gst_buffer_unref (data);

  copy = gst_buffer_copy (buf);
  gst_buffer_unref (buf);
  meta = gst_buffer_find_vkml_tensor_meta (copy, "reader");
  t = meta ? gst_vkml_tensor_meta_get_by_name (meta, "scores") : NULL;
  ok = t && t->rank == 2 && t->dims[0] == 2 && t->dims[1] == 3
      && gst_vkml_tensor_element_count (t) == 6
      && gst_buffer_extract (t->data, 0, got, sizeof (got)) == sizeof (got)
      && memcmp (got, values, sizeof (got)) == 0;
  text = meta ? gst_vkml_tensor_meta_describe (meta) : g_strdup ("no meta");
  g_print ("%s: %s\n", ok ? "read" : "WRONG", text);
  g_free (text);
  gst_buffer_unref (copy);
  return ok ? 0 : 1;
}
