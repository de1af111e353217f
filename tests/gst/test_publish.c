/* vkmlpublish: the JSON of frames with hand-made results (objects with detection,
 * tracking and classification parameters, a whole-frame classification, tensor metas
 * of two models) written to a file, and published to a real MQTT broker (mosquitto on
 * 127.0.0.1 at a free port) read back by a libmosquitto subscriber; refusals (a file
 * that cannot be opened, no broker there). With CI=true a missing mosquitto or a
 * plugin built without MQTT fails. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <json-glib/json-glib.h>

#include "gstvkmlpublish.h"
#include "gstvkmltensormeta.h"

#include <arpa/inet.h>
#include <glib/gstdio.h>
#include <netinet/in.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef HAVE_MOSQUITTO
#include <mosquitto.h>
#endif

#define N_FRAMES 3

static gboolean
in_ci (void)
{
  return g_strcmp0 (g_getenv ("CI"), "true") == 0;
}

/* Frame @i: a "car" (detection class 2, score 0.75, track 7, classified "red" 0.5) at
 * (10 + i, 20) 30x40, a whole-frame "day" classification, tensors of "det" and "col". */
static GstBuffer *
results_frame (guint i)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 64 * 48 * 3, NULL);
  GstVideoRegionOfInterestMeta *roi;

  GST_BUFFER_PTS (buf) = i * 40 * GST_MSECOND;
  GST_BUFFER_DURATION (buf) = 40 * GST_MSECOND;
  gst_vkml_tensor_meta_set_model_id (gst_buffer_add_vkml_tensor_meta (buf),
      "det");
  gst_vkml_tensor_meta_set_model_id (gst_buffer_add_vkml_tensor_meta (buf),
      "col");
  roi = gst_buffer_add_video_region_of_interest_meta (buf, "car", 10 + i, 20,
      30, 40);
  roi->id = 4;
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new ("detection", "label", G_TYPE_STRING, "car",
          "class-id", G_TYPE_INT, 2, "score", G_TYPE_FLOAT, 0.75f, NULL));
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new ("tracking", "id", G_TYPE_UINT64, (guint64) 7,
          "predicted", G_TYPE_BOOLEAN, i == 1, NULL));
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new ("classification", "label", G_TYPE_STRING, "red",
          "class-id", G_TYPE_INT, 0, "score", G_TYPE_FLOAT, 0.5f, NULL));
  roi = gst_buffer_add_video_region_of_interest_meta (buf, "day", 0, 0, 64, 48);
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new ("classification", "label", G_TYPE_STRING, "day",
          "class-id", G_TYPE_INT, 1, "score", G_TYPE_FLOAT, 0.25f, NULL));
  return buf;
}

/* Pushes N_FRAMES results frames through vkmlpublish @props; the frames pass as they
 * are. */
static void
publish_frames (const gchar * props)
{
  gchar *launch = g_strdup_printf ("vkmlpublish %s", props);
  GstHarness *h = gst_harness_new_parse (launch);
  GstVideoInfo vinfo;
  guint i;

  gst_video_info_set_format (&vinfo, GST_VIDEO_FORMAT_RGB, 64, 48);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&vinfo));
  for (i = 0; i < N_FRAMES; i++) {
    GstBuffer *in = results_frame (i);
    GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));

    fail_unless (out == in, "the frame did not pass through as it was");
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  gst_harness_teardown (h);
  g_free (launch);
}

/* Frame @i's JSON against what results_frame (i) holds. */
static void
check_frame_json (const gchar * text, guint i, const gchar * source)
{
  JsonParser *parser = json_parser_new ();
  JsonObject *f, *o, *box, *c;
  JsonArray *objects, *models, *cls;
  GError *error = NULL;

  fail_unless (json_parser_load_from_data (parser, text, -1, &error),
      "not JSON: %s", text);
  f = json_node_get_object (json_parser_get_root (parser));
  fail_unless_equals_int (json_object_get_int_member (f, "timestamp"),
      i * 40 * GST_MSECOND);
  fail_unless_equals_int (json_object_get_int_member (f, "duration"),
      40 * GST_MSECOND);
  fail_unless_equals_int (json_object_get_int_member (f, "frame"), i);
  fail_unless_equals_string (json_object_get_string_member (f, "source"),
      source);
  fail_unless_equals_int (json_object_get_int_member (f, "width"), 64);
  fail_unless_equals_int (json_object_get_int_member (f, "height"), 48);
  models = json_object_get_array_member (f, "models");
  fail_unless_equals_int (json_array_get_length (models), 2);
  fail_unless_equals_string (json_array_get_string_element (models, 0), "det");
  fail_unless_equals_string (json_array_get_string_element (models, 1), "col");

  objects = json_object_get_array_member (f, "objects");
  fail_unless_equals_int (json_array_get_length (objects), 1);
  o = json_array_get_object_element (objects, 0);
  fail_unless_equals_int (json_object_get_int_member (o, "id"), 4);
  fail_unless_equals_string (json_object_get_string_member (o, "label"), "car");
  fail_unless_equals_int (json_object_get_int_member (o, "class-id"), 2);
  fail_unless (json_object_get_double_member (o, "score") == 0.75);
  box = json_object_get_object_member (o, "box");
  fail_unless_equals_int (json_object_get_int_member (box, "x"), 10 + i);
  fail_unless_equals_int (json_object_get_int_member (box, "y"), 20);
  fail_unless_equals_int (json_object_get_int_member (box, "w"), 30);
  fail_unless_equals_int (json_object_get_int_member (box, "h"), 40);
  fail_unless_equals_int (json_object_get_int_member (o, "track-id"), 7);
  fail_unless (json_object_get_boolean_member (o, "predicted") == (i == 1));
  cls = json_object_get_array_member (o, "classifications");
  fail_unless_equals_int (json_array_get_length (cls), 1);
  c = json_array_get_object_element (cls, 0);
  fail_unless_equals_string (json_object_get_string_member (c, "label"), "red");
  fail_unless (json_object_get_double_member (c, "score") == 0.5);

  cls = json_object_get_array_member (f, "classifications");
  fail_unless_equals_int (json_array_get_length (cls), 1);
  c = json_array_get_object_element (cls, 0);
  fail_unless_equals_string (json_object_get_string_member (c, "label"), "day");
  fail_unless_equals_int (json_object_get_int_member (c, "class-id"), 1);
  g_object_unref (parser);
}

/* One line of JSON per frame in the file, each with the frame's results. */
GST_START_TEST (test_file)
{
  gchar *dir = g_dir_make_tmp ("vkml-publish-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "results.jsonl", NULL);
  gchar *props = g_strdup_printf ("location=\"%s\" source-id=cam1", path);
  gchar *text = NULL, **lines;
  guint i;

  publish_frames (props);
  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  fail_unless_equals_int (g_strv_length (lines), N_FRAMES + 1);
  fail_unless_equals_string (lines[N_FRAMES], "");
  for (i = 0; i < N_FRAMES; i++)
    check_frame_json (lines[i], i, "cam1");
  g_strfreev (lines);
  g_free (text);
  g_unlink (path);
  g_rmdir (dir);
  g_free (props);
  g_free (path);
  g_free (dir);
}

GST_END_TEST;

/* A frame without results: empty arrays, the stream id as source; then an object with
 * neither detection nor tracking parameter: its box and label, a null track id, no
 * class or score. */
GST_START_TEST (test_sparse_frames)
{
  gchar *dir = g_dir_make_tmp ("vkml-publish-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "empty.jsonl", NULL);
  gchar *launch = g_strdup_printf ("vkmlpublish location=\"%s\"", path);
  GstHarness *h = gst_harness_new_parse (launch);
  JsonParser *parser = json_parser_new ();
  JsonObject *f, *o;
  GstBuffer *in;
  gchar *text = NULL, **lines;

  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGB,width=8,height=8,"
      "framerate=30/1");
  gst_buffer_unref (gst_harness_push_and_pull (h,
          gst_buffer_new_allocate (NULL, 8 * 8 * 3, NULL)));
  in = gst_buffer_new_allocate (NULL, 8 * 8 * 3, NULL);
  gst_buffer_add_video_region_of_interest_meta (in, "thing", 1, 2, 3, 4);
  gst_buffer_unref (gst_harness_push_and_pull (h, in));
  gst_harness_teardown (h);
  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  fail_unless_equals_int (g_strv_length (lines), 3);
  fail_unless (json_parser_load_from_data (parser, lines[1], -1, NULL));
  f = json_node_get_object (json_parser_get_root (parser));
  o = json_array_get_object_element (json_object_get_array_member (f,
          "objects"), 0);
  fail_unless_equals_string (json_object_get_string_member (o, "label"),
      "thing");
  fail_unless_equals_int (json_object_get_int_member
      (json_object_get_object_member (o, "box"), "h"), 4);
  fail_unless (json_object_get_null_member (o, "track-id"));
  fail_unless (!json_object_has_member (o, "class-id")
      && !json_object_has_member (o, "score"));
  fail_unless (json_parser_load_from_data (parser, lines[0], -1, NULL));
  f = json_node_get_object (json_parser_get_root (parser));
  fail_unless (json_object_get_null_member (f, "timestamp"));
  fail_unless (strlen (json_object_get_string_member (f, "source")) > 0);
  fail_unless_equals_int (json_array_get_length (json_object_get_array_member
          (f, "objects")), 0);
  fail_unless_equals_int (json_array_get_length (json_object_get_array_member
          (f, "models")), 0);
  g_object_unref (parser);
  g_strfreev (lines);
  g_free (text);
  g_unlink (path);
  g_rmdir (dir);
  g_free (launch);
  g_free (path);
  g_free (dir);
}

GST_END_TEST;

/* The error message a pipeline "videotestsrc num-buffers=1 ! vkmlpublish @props !
 * fakesink" posts going to PLAYING; NULL when it plays. */
static gchar *
start_error (const gchar * props)
{
  gchar *launch = g_strdup_printf ("videotestsrc num-buffers=1 ! vkmlpublish "
      "%s ! fakesink", props);
  GstElement *pipeline = gst_parse_launch (launch, NULL);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  gchar *text = NULL;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;

    gst_message_parse_error (msg, &err, NULL);
    text = g_strdup (err->message);
    g_error_free (err);
  }
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  g_free (launch);
  return text;
}

/* A free TCP port on 127.0.0.1 (bound once by the kernel's choice, then let go). */
static guint
free_port (void)
{
  struct sockaddr_in a = { 0 };
  socklen_t len = sizeof (a);
  int fd = socket (AF_INET, SOCK_STREAM, 0);

  fail_unless (fd >= 0);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  fail_unless (bind (fd, (struct sockaddr *) &a, sizeof (a)) == 0);
  fail_unless (getsockname (fd, (struct sockaddr *) &a, &len) == 0);
  close (fd);
  return ntohs (a.sin_port);
}

GST_START_TEST (test_refusals)
{
  gchar *err = start_error ("location=/nonexistent-dir/results.jsonl");
  gchar *props;

  fail_unless (err && strstr (err, "/nonexistent-dir/results.jsonl"), "%s",
      err);
  g_free (err);
  props = g_strdup_printf ("mqtt-host=127.0.0.1 mqtt-port=%u", free_port ());
  err = start_error (props);
#ifdef HAVE_MOSQUITTO
  fail_unless (err && strstr (err, "127.0.0.1:"), "%s", err);
#else
  fail_unless (err && strstr (err, "without MQTT"), "%s", err);
#endif
  g_free (err);
  g_free (props);
#ifdef HAVE_MOSQUITTO
  err = start_error ("mqtt-host=127.0.0.1 mqtt-topic=cams/+/objects");
  fail_unless (err && strstr (err, "cams/+/objects"), "%s", err);
  g_free (err);
#endif
}

GST_END_TEST;

#ifdef HAVE_MOSQUITTO
/* mosquitto from PATH or /usr/sbin (Debian's package puts it there). */
static gchar *
find_mosquitto (void)
{
  gchar *path = g_find_program_in_path ("mosquitto");

  if (!path && g_file_test ("/usr/sbin/mosquitto", G_FILE_TEST_IS_EXECUTABLE))
    path = g_strdup ("/usr/sbin/mosquitto");
  return path;
}

typedef struct
{
  GMutex lock;
  GPtrArray *messages;          /* gchar *, payloads in order */
  gboolean subscribed;
} Inbox;

static void
on_message (G_GNUC_UNUSED struct mosquitto *m, void *user,
    const struct mosquitto_message *msg)
{
  Inbox *in = user;

  g_mutex_lock (&in->lock);
  g_ptr_array_add (in->messages, g_strndup (msg->payload, msg->payloadlen));
  g_mutex_unlock (&in->lock);
}

static void
on_subscribe (G_GNUC_UNUSED struct mosquitto *m, void *user,
    G_GNUC_UNUSED int mid, G_GNUC_UNUSED int n, G_GNUC_UNUSED const int *q)
{
  Inbox *in = user;

  g_mutex_lock (&in->lock);
  in->subscribed = TRUE;
  g_mutex_unlock (&in->lock);
}

/* Waits up to @seconds for @cond over @in (under its lock). */
#define WAIT_FOR(in, cond, seconds) G_STMT_START {                  \
  gint64 end_ = g_get_monotonic_time () + (seconds) * G_USEC_PER_SEC; \
  gboolean ok_ = FALSE;                                               \
  while (!ok_ && g_get_monotonic_time () < end_) {                    \
    g_mutex_lock (&(in)->lock);                                       \
    ok_ = (cond);                                                     \
    g_mutex_unlock (&(in)->lock);                                     \
    if (!ok_)                                                         \
      g_usleep (20000);                                               \
  }                                                                   \
} G_STMT_END

/* A broker on @port: mosquitto with a configuration of its own (loopback only). */
static GPid
start_broker (const gchar * mosquitto, guint port, gchar ** conf_path)
{
  gchar *conf =
      g_strdup_printf ("listener %u 127.0.0.1\nallow_anonymous true\n",
      port);
  gchar *argv[] = { (gchar *) mosquitto, (gchar *) "-c", NULL, NULL };
  GError *error = NULL;
  gint fd = g_file_open_tmp ("vkml-mosquitto-XXXXXX.conf", conf_path, NULL);
  GPid pid;

  fail_unless (fd >= 0);
  close (fd);
  fail_unless (g_file_set_contents (*conf_path, conf, -1, NULL));
  argv[2] = *conf_path;
  fail_unless (g_spawn_async (NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
          &pid, &error), "cannot start mosquitto: %s",
      error ? error->message : "?");
  g_free (conf);
  return pid;
}

/* A subscriber to @topic on the broker at @port, connected and subscribed (retries
 * while the broker starts). */
static struct mosquitto *
subscribe (guint port, const gchar * topic, Inbox * in)
{
  struct mosquitto *sub = mosquitto_new (NULL, TRUE, in);
  gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  int rc;

  fail_unless (sub != NULL);
  mosquitto_message_callback_set (sub, on_message);
  mosquitto_subscribe_callback_set (sub, on_subscribe);
  while ((rc = mosquitto_connect (sub, "127.0.0.1", (int) port, 30))
      != MOSQ_ERR_SUCCESS && g_get_monotonic_time () < end)
    g_usleep (50000);
  fail_unless (rc == MOSQ_ERR_SUCCESS, "no broker on port %u: %s", port,
      mosquitto_strerror (rc));
  fail_unless (mosquitto_loop_start (sub) == MOSQ_ERR_SUCCESS);
  fail_unless (mosquitto_subscribe (sub, NULL, topic, 1) == MOSQ_ERR_SUCCESS);
  WAIT_FOR (in, in->subscribed, 10);
  fail_unless (in->subscribed, "not subscribed");
  return sub;
}
#endif

/* The frames' JSON through a real broker: a subscriber gets one message per frame, in
 * order, each the frame's JSON, and the same as the file's line. */
GST_START_TEST (test_mqtt)
{
#ifdef HAVE_MOSQUITTO
  gchar *mosquitto = find_mosquitto (), *conf = NULL, *props, *text = NULL;
  gchar *dir, *path, **lines;
  guint port = free_port (), i;
  Inbox in = { 0 };
  struct mosquitto *sub;
  GPid broker;

  if (!mosquitto) {
    fail_if (in_ci (), "CI=true and no mosquitto (Debian: mosquitto)");
    g_print ("test_mqtt: SKIPPED, no mosquitto broker installed\n");
    return;
  }
  mosquitto_lib_init ();
  g_mutex_init (&in.lock);
  in.messages = g_ptr_array_new_with_free_func (g_free);
  broker = start_broker (mosquitto, port, &conf);
  sub = subscribe (port, "vkml/test/results", &in);

  dir = g_dir_make_tmp ("vkml-publish-XXXXXX", NULL);
  path = g_build_filename (dir, "results.jsonl", NULL);
  props = g_strdup_printf ("location=\"%s\" source-id=cam2 mqtt-host=127.0.0.1 "
      "mqtt-port=%u mqtt-topic=vkml/test/results", path, port);
  publish_frames (props);
  WAIT_FOR (&in, in.messages->len >= N_FRAMES, 10);
  fail_unless_equals_int (in.messages->len, N_FRAMES);
  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; i < N_FRAMES; i++) {
    check_frame_json (g_ptr_array_index (in.messages, i), i, "cam2");
    fail_unless_equals_string (g_ptr_array_index (in.messages, i), lines[i]);
  }

  g_strfreev (lines);
  g_free (text);
  mosquitto_disconnect (sub);
  mosquitto_loop_stop (sub, FALSE);
  mosquitto_destroy (sub);
  kill (broker, SIGTERM);
  waitpid (broker, NULL, 0);
  g_spawn_close_pid (broker);
  g_unlink (conf);
  g_unlink (path);
  g_rmdir (dir);
  g_ptr_array_unref (in.messages);
  g_mutex_clear (&in.lock);
  mosquitto_lib_cleanup ();
  g_free (conf);
  g_free (props);
  g_free (path);
  g_free (dir);
  g_free (mosquitto);
#else
  fail_if (in_ci (), "CI=true and the plugin was built without MQTT");
  g_print ("test_mqtt: SKIPPED, built without MQTT (libmosquitto-dev)\n");
#endif
}

GST_END_TEST;

static Suite *
vkml_publish_suite (void)
{
  Suite *s = suite_create ("vkml_publish");
  TCase *tc = tcase_create ("general");

  if (!GST_ELEMENT_REGISTER (vkmlpublish, NULL))
    g_error ("cannot register vkmlpublish");
  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_file);
  tcase_add_test (tc, test_sparse_frames);
  tcase_add_test (tc, test_refusals);
  tcase_add_test (tc, test_mqtt);
  return s;
}

GST_CHECK_MAIN (vkml_publish);
