/* The built plugin file (build/gst/libgstvkml.so) as gst-launch-1.0 uses it. */
#include <gst/check/gstcheck.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gchar *build_root;

static const struct
{
  const gchar *element;
  const gchar *property;
} documented[] = {
  {"vkmlinfer", "model"}, {"vkmlinfer", "device"}, {"vkmlinfer", "cpu-threads"},
  {"vkmlclassify", "labels"}, {"vkmlclassify", "tensor"},
  {"vkmlclassify", "print"}, {"vkmlclassify", "model-id"},
  {"vkmlclassify", "top-k"}, {"vkmlclassify", "threshold"},
  {"vkmlclassify", "post-messages"}, {"vkmlinfer", "model-id"},
  {"vkmldetect", "model-id"}, {"vkmldetect", "format"},
  {"vkmldetect", "score-threshold"}, {"vkmldetect", "iou-threshold"},
  {"vkmldetect", "classes"}, {"vkmldetect", "labels"},
  {"vkmldetect", "max-detections"}, {"vkmldetect", "background-class"},
  {"vkmldetect", "print"}, {"vkmloverlay", "thickness"},
  {"vkmloverlay", "draw-labels"}, {"vkmltrack", "tracker"},
  {"vkmltrack", "matching"}, {"vkmltrack", "iou-threshold"},
  {"vkmltrack", "max-missed"}, {"vkmltrack", "min-hits"},
  {"vkmltrack", "per-class"}, {"vkmltrack", "model-id"},
  {"vkmltrack", "print"}, {"vkmlinfer", "reclassify-interval"},
#ifdef HAVE_VKML_PUBLISH
  {"vkmlpublish", "location"}, {"vkmlpublish", "source-id"},
  {"vkmlpublish", "mqtt-host"}, {"vkmlpublish", "mqtt-port"},
  {"vkmlpublish", "mqtt-topic"}, {"vkmlpublish", "mqtt-client-id"},
  {"vkmlpublish", "mqtt-qos"},
#endif
};

static void
load_plugin (void)
{
  gchar *path = g_build_filename (build_root, "gst", "libgstvkml.so", NULL);
  GError *error = NULL;
  GstPlugin *plugin = gst_plugin_load_file (path, &error);

  fail_unless (plugin != NULL, "%s: %s", path, error ? error->message : "?");
  fail_unless_equals_string (gst_plugin_get_name (plugin), "vkml");
  gst_object_unref (plugin);
  g_free (path);
}

/* The plugin file provides vkmlinfer, vkmlclassify, vkmldetect, vkmloverlay, vkmltrack
 * and (built with json-glib) vkmlpublish, each property with a blurb. */
GST_START_TEST (test_plugin_provides_elements)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (documented); i++) {
    GstElement *e = gst_element_factory_make (documented[i].element, NULL);
    GParamSpec *pspec;

    fail_unless (e != NULL, "no element %s", documented[i].element);
    pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
        documented[i].property);
    fail_unless (pspec != NULL, "%s has no property %s",
        documented[i].element, documented[i].property);
    fail_unless (strlen (g_param_spec_get_blurb (pspec)) > 20,
        "%s::%s has no real blurb", documented[i].element,
        documented[i].property);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* One Klass scheme: the model and its decoders analyse video, the overlay draws. */
GST_START_TEST (test_plugin_klass)
{
  static const gchar *klass[][2] = {
    {"vkmlinfer", "Filter/Analyzer/Video"},
    {"vkmlclassify", "Filter/Analyzer/Video"},
    {"vkmldetect", "Filter/Analyzer/Video"},
    {"vkmloverlay", "Filter/Effect/Video"},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (klass); i++) {
    GstElementFactory *f = gst_element_factory_find (klass[i][0]);

    fail_unless (f != NULL);
    fail_unless_equals_string (gst_element_factory_get_metadata (f,
            GST_ELEMENT_METADATA_KLASS), klass[i][1]);
    gst_object_unref (f);
  }
}

GST_END_TEST;

/* Defaults gst-inspect shows as a person would type them: vkmlclassify's threshold is
 * -1e9 (no threshold), not -3.4e+38; vkmloverlay's thickness goes to 16. */
GST_START_TEST (test_plugin_readable_defaults)
{
  GstElement *cls = gst_element_factory_make ("vkmlclassify", NULL);
  GstElement *ov = gst_element_factory_make ("vkmloverlay", NULL);
  GParamSpecFloat *threshold = G_PARAM_SPEC_FLOAT (g_object_class_find_property
      (G_OBJECT_GET_CLASS (cls), "threshold"));
  GParamSpecUInt *thickness = G_PARAM_SPEC_UINT (g_object_class_find_property
      (G_OBJECT_GET_CLASS (ov), "thickness"));
  gchar *text = g_strdup_printf ("%g", threshold->default_value);

  fail_unless_equals_string (text, "-1e+09");
  fail_unless_equals_int (thickness->maximum, 16);
  g_free (text);
  gst_object_unref (cls);
  gst_object_unref (ov);
}

GST_END_TEST;

/* The demo pipeline through the plugin file: every red test frame is called "red". */
GST_START_TEST (test_plugin_demo_pipeline)
{
  gchar *launch = g_strdup_printf ("videotestsrc pattern=red num-buffers=3 ! "
      "video/x-raw,format=RGB,width=320,height=240 ! "
      "vkmlinfer model=\"%s/pipelines/color.onnx\" ! "
      "vkmlclassify labels=\"%s/pipelines/color-labels.txt\" ! fakesink",
      build_root, build_root);
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (launch, &error);
  GstBus *bus;
  GstMessage *msg;
  guint labels = 0;

  fail_unless (pipeline != NULL, "%s", error ? error->message : "?");
  bus = gst_element_get_bus (pipeline);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while ((msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
              GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT))) {
    GstMessageType type = GST_MESSAGE_TYPE (msg);

    if (type == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, &error, NULL);
      fail ("pipeline error: %s", error->message);
    }
    if (type == GST_MESSAGE_ELEMENT
        && gst_message_has_name (msg, "vkml-classification")) {
      fail_unless_equals_string (gst_structure_get_string
          (gst_message_get_structure (msg), "label"), "red");
      labels++;
    }
    gst_message_unref (msg);
    if (type == GST_MESSAGE_EOS)
      break;
  }
  fail_unless_equals_int (labels, 3);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  g_free (launch);
}

GST_END_TEST;

static Suite *
vkml_plugin_suite (void)
{
  Suite *s = suite_create ("vkml-plugin");
  TCase *tc = tcase_create ("general");

  build_root = g_strdup (g_getenv ("VKML_BUILD_ROOT"));
  if (!build_root) {
    fprintf (stderr, "VKML_BUILD_ROOT is not set: run through meson test\n");
    exit (1);
  }
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_checked_fixture (tc, load_plugin, NULL);
  tcase_add_test (tc, test_plugin_provides_elements);
  tcase_add_test (tc, test_plugin_klass);
  tcase_add_test (tc, test_plugin_readable_defaults);
  tcase_add_test (tc, test_plugin_demo_pipeline);
  return s;
}

GST_CHECK_MAIN (vkml_plugin);
