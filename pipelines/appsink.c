/* An application reading vkmlinfer's results: frames go through vkmlinfer into an
 * appsink; the program takes each sample's GstVkmlTensorMeta (from the meta library,
 * gstreamer-vkml-meta-1.0, as an installed application links it), and prints the top
 * class of its first float tensor:
 *
 *   appsink MODEL LABELS [PATTERN [EXPECT]]
 *   frame 0: red (1.00)
 *
 * PATTERN is videotestsrc's pattern (default red); with EXPECT the exit status is 1
 * unless every frame's top class is that label. Build it against the installed library:
 *
 *   cc appsink.c $(pkg-config --cflags --libs gstreamer-vkml-meta-1.0 gstreamer-app-1.0)
 *
 * (meson builds it as build/pipelines/appsink; CI runs it as gst_appsink_c). vkmlinfer
 * must be on GST_PLUGIN_PATH. */
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gst/vkml/gstvkmltensormeta.h>

#include <stdio.h>
#include <string.h>

#define FRAMES 3

/* The index of the largest of @t's float values, its value in *score; -1 if none. */
static gint
top_class (const GstVkmlTensor * t, gfloat * score)
{
  GstMapInfo map;
  const gfloat *v;
  gsize i, n = gst_vkml_tensor_element_count (t);
  gint best = -1;

  if (t->dtype != VKML_DTYPE_FLOAT || !n
      || !gst_buffer_map (t->data, &map, GST_MAP_READ))
    return -1;
  v = (const gfloat *) map.data;
  for (i = 0; i < n; i++)
    if (best < 0 || v[i] > v[best])
      best = (gint) i;
  *score = v[best];
  gst_buffer_unmap (t->data, &map);
  return best;
}

/* One sample's result, printed; FALSE when it has no meta or no float tensor. */
static gboolean
print_result (GstSample * sample, guint frame, gchar ** labels,
    const gchar * expect, gboolean * matches)
{
  GstBuffer *buf = gst_sample_get_buffer (sample);
  GstVkmlTensorMeta *meta = gst_buffer_find_vkml_tensor_meta (buf, NULL);
  const gchar *label;
  gchar index[16];
  gfloat score = 0;
  gint best;

  if (!meta || !meta->n_tensors) {
    fprintf (stderr, "frame %u: no GstVkmlTensorMeta\n", frame);
    return FALSE;
  }
  best = top_class (gst_vkml_tensor_meta_get (meta, 0), &score);
  if (best < 0) {
    fprintf (stderr, "frame %u: the first tensor is not float\n", frame);
    return FALSE;
  }
  g_snprintf (index, sizeof (index), "%d", best);
  label = (guint) best < g_strv_length (labels) ? labels[best] : index;
  printf ("frame %u: %s (%.2f)\n", frame, label, score);
  if (expect && strcmp (label, expect) != 0)
    *matches = FALSE;
  return TRUE;
}

int
main (int argc, char **argv)
{
  GstElement *pipeline, *sink;
  GstSample *sample;
  GError *error = NULL;
  gchar *launch, *text = NULL, **labels;
  gboolean ok = TRUE, matches = TRUE;
  guint frame = 0;

  gst_init (&argc, &argv);
  if (argc < 3) {
    fprintf (stderr, "usage: %s MODEL LABELS [PATTERN [EXPECT]]\n", argv[0]);
    return 2;
  }
  if (!g_file_get_contents (argv[2], &text, NULL, &error)) {
    fprintf (stderr, "%s\n", error->message);
    return 2;
  }
  labels = g_strsplit_set (g_strstrip (text), "\n", -1);
  launch = g_strdup_printf ("videotestsrc pattern=%s num-buffers=%d "
      "! video/x-raw,format=RGB,width=320,height=240 "
      "! vkmlinfer model=\"%s\" ! appsink name=sink sync=false",
      argc > 3 ? argv[3] : "red", FRAMES, argv[1]);
  pipeline = gst_parse_launch (launch, &error);
  if (!pipeline) {
    fprintf (stderr, "%s\n", error->message);
    return 2;
  }
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while (ok && (sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    ok = print_result (sample, frame++, labels, argc > 4 ? argv[4] : NULL,
        &matches);
    gst_sample_unref (sample);
  }
  if (frame == 0) {
    GstBus *bus = gst_element_get_bus (pipeline);
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

    if (msg) {
      gst_message_parse_error (msg, &error, NULL);
      fprintf (stderr, "error: %s\n", error->message);
      g_clear_error (&error);
      gst_message_unref (msg);
    }
    gst_object_unref (bus);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_strfreev (labels);
  g_free (text);
  g_free (launch);
  /* GStreamer may still hold the pipeline in one of its own asynchronous calls; it is
   * then freed on that thread, and vkml's devices with it. gst_deinit waits for those
   * calls, so that the process does not exit while the devices are being closed. */
  gst_deinit ();
  return ok && matches && frame == FRAMES ? 0 : 1;
}
