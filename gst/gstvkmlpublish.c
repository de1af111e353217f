/**
 * SECTION:element-vkmlpublish
 * @title: vkmlpublish
 *
 * Writes one JSON object per frame, the frame's results (objects with their box, label,
 * score, track id and classifications; whole-frame classifications; the model ids of
 * its tensors; timestamp and source id), one per line, to `location` (a file, or "-"
 * for stdout), and publishes it on `mqtt-topic` of the MQTT broker at `mqtt-host`
 * (libmosquitto; the plugin is built with it when the meson option `mqtt` finds it).
 * The frames pass through untouched. docs/element.md gives the JSON schema.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=5 ! video/x-raw,format=RGB,width=320,height=240 ! \
 *     vkmlinfer model=yolov8n.onnx ! vkmldetect labels=coco.txt ! vkmltrack ! \
 *     vkmlpublish location=results.jsonl mqtt-host=localhost mqtt-topic=cam1/objects ! \
 *     fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmlpublish.h"
#include "gstvkmlmqtt.h"
#include "gstvkmlpublishjson.h"
#include "gstvkmlresults.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_vkml_publish_debug);
#define GST_CAT_DEFAULT gst_vkml_publish_debug

#define DEFAULT_LOCATION NULL
#define DEFAULT_SOURCE_ID NULL
#define DEFAULT_MQTT_HOST NULL
#define DEFAULT_MQTT_PORT 1883
#define DEFAULT_MQTT_TOPIC "vkml/results"
#define DEFAULT_MQTT_CLIENT_ID NULL
#define DEFAULT_MQTT_QOS 1
/* MQTT keepalive, seconds */
#define MQTT_KEEPALIVE_S 60
/* At stop, how long the messages still queued may take to reach the broker, ms */
#define MQTT_FLUSH_TIMEOUT_MS 5000

enum
{
  PROP_0,
  PROP_LOCATION,
  PROP_SOURCE_ID,
  PROP_MQTT_HOST,
  PROP_MQTT_PORT,
  PROP_MQTT_TOPIC,
  PROP_MQTT_CLIENT_ID,
  PROP_MQTT_QOS,
};

struct _GstVkmlPublish
{
  GstBaseTransform parent;

  /* properties, under the object lock */
  gchar *location;
  gchar *source_id;
  gchar *mqtt_host;
  guint mqtt_port;
  gchar *mqtt_topic;
  gchar *mqtt_client_id;
  guint mqtt_qos;

  /* from start() to stop(): the streaming thread's */
  FILE *file;                   /* NULL: none; stdout is not closed */
  GstVkmlMqtt *mqtt;
  gchar *topic;
  guint qos;
  gchar *stream_id;             /* the STREAM_START's, when source-id is not set */
  guint64 frames;

  /* from set_caps(); 0 when the caps are not video */
  guint frame_width, frame_height;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

#define gst_vkml_publish_parent_class parent_class
G_DEFINE_TYPE (GstVkmlPublish, gst_vkml_publish, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (vkmlpublish, "vkmlpublish", GST_RANK_NONE,
    GST_TYPE_VKML_PUBLISH);

static void gst_vkml_publish_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_vkml_publish_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_vkml_publish_finalize (GObject * object);
static gboolean gst_vkml_publish_start (GstBaseTransform * trans);
static gboolean gst_vkml_publish_stop (GstBaseTransform * trans);
static gboolean gst_vkml_publish_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static gboolean gst_vkml_publish_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static GstFlowReturn gst_vkml_publish_transform_ip (GstBaseTransform * trans,
    GstBuffer * buf);

#define PARAM_FLAGS \
    (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)

static void
install_string (GObjectClass * klass, guint id, const gchar * name,
    const gchar * nick, const gchar * blurb, const gchar * def)
{
  g_object_class_install_property (klass, id, g_param_spec_string (name, nick,
          blurb, def, PARAM_FLAGS));
}

static void
gst_vkml_publish_class_init (GstVkmlPublishClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_vkml_publish_set_property;
  gobject_class->get_property = gst_vkml_publish_get_property;
  gobject_class->finalize = gst_vkml_publish_finalize;

  install_string (gobject_class, PROP_LOCATION, "location", "Location",
      "File to write the frames' JSON to, one line per frame (\"-\": "
      "stdout; empty: no file)", DEFAULT_LOCATION);
  install_string (gobject_class, PROP_SOURCE_ID, "source-id", "Source id",
      "The \"source\" of every frame's JSON (default: the stream id)",
      DEFAULT_SOURCE_ID);
  install_string (gobject_class, PROP_MQTT_HOST, "mqtt-host", "MQTT host",
      "MQTT broker to publish each frame's JSON to (empty: no MQTT)",
      DEFAULT_MQTT_HOST);
  g_object_class_install_property (gobject_class, PROP_MQTT_PORT,
      g_param_spec_uint ("mqtt-port", "MQTT port", "The broker's TCP port", 1,
          65535, DEFAULT_MQTT_PORT, PARAM_FLAGS));
  install_string (gobject_class, PROP_MQTT_TOPIC, "mqtt-topic", "MQTT topic",
      "Topic the frames' JSON is published on", DEFAULT_MQTT_TOPIC);
  install_string (gobject_class, PROP_MQTT_CLIENT_ID, "mqtt-client-id",
      "MQTT client id", "Client id given to the broker (default: a random "
      "one)", DEFAULT_MQTT_CLIENT_ID);
  g_object_class_install_property (gobject_class, PROP_MQTT_QOS,
      g_param_spec_uint ("mqtt-qos", "MQTT QoS",
          "MQTT quality of service: 0 at most once, 1 at least once, 2 "
          "exactly once", 0, 2, DEFAULT_MQTT_QOS, PARAM_FLAGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "vkml results publisher", "Sink/Analyzer/Network",
      "Writes each frame's results (objects, track ids, classifications) as "
      "one JSON object to a file or stdout and to an MQTT broker",
      "vkml developers");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_vkml_publish_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_vkml_publish_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_vkml_publish_set_caps);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_vkml_publish_sink_event);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_vkml_publish_transform_ip);

  GST_DEBUG_CATEGORY_INIT (gst_vkml_publish_debug, "vkmlpublish", 0,
      "vkml results publisher");
}

static void
gst_vkml_publish_init (GstVkmlPublish * self)
{
  self->location = g_strdup (DEFAULT_LOCATION);
  self->source_id = g_strdup (DEFAULT_SOURCE_ID);
  self->mqtt_host = g_strdup (DEFAULT_MQTT_HOST);
  self->mqtt_port = DEFAULT_MQTT_PORT;
  self->mqtt_topic = g_strdup (DEFAULT_MQTT_TOPIC);
  self->mqtt_client_id = g_strdup (DEFAULT_MQTT_CLIENT_ID);
  self->mqtt_qos = DEFAULT_MQTT_QOS;
  /* the frames are read, never changed: no writable buffer needed */
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
}

static void
gst_vkml_publish_finalize (GObject * object)
{
  GstVkmlPublish *self = GST_VKML_PUBLISH (object);

  g_free (self->location);
  g_free (self->source_id);
  g_free (self->mqtt_host);
  g_free (self->mqtt_topic);
  g_free (self->mqtt_client_id);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* The string property @prop_id's field of @self, or NULL. */
static gchar **
string_field (GstVkmlPublish * self, guint prop_id)
{
  switch (prop_id) {
    case PROP_LOCATION:
      return &self->location;
    case PROP_SOURCE_ID:
      return &self->source_id;
    case PROP_MQTT_HOST:
      return &self->mqtt_host;
    case PROP_MQTT_TOPIC:
      return &self->mqtt_topic;
    case PROP_MQTT_CLIENT_ID:
      return &self->mqtt_client_id;
    default:
      return NULL;
  }
}

static void
gst_vkml_publish_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstVkmlPublish *self = GST_VKML_PUBLISH (object);
  gchar **field = string_field (self, prop_id);

  GST_OBJECT_LOCK (self);
  if (field) {
    g_free (*field);
    *field = g_value_dup_string (value);
  } else if (prop_id == PROP_MQTT_PORT) {
    self->mqtt_port = g_value_get_uint (value);
  } else if (prop_id == PROP_MQTT_QOS) {
    self->mqtt_qos = g_value_get_uint (value);
  } else {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_vkml_publish_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstVkmlPublish *self = GST_VKML_PUBLISH (object);
  gchar **field = string_field (self, prop_id);

  GST_OBJECT_LOCK (self);
  if (field)
    g_value_set_string (value, *field);
  else if (prop_id == PROP_MQTT_PORT)
    g_value_set_uint (value, self->mqtt_port);
  else if (prop_id == PROP_MQTT_QOS)
    g_value_set_uint (value, self->mqtt_qos);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  GST_OBJECT_UNLOCK (self);
}

static gboolean
open_file (GstVkmlPublish * self, const gchar * location)
{
  if (!location || !*location)
    return TRUE;
  if (g_strcmp0 (location, "-") == 0) {
    self->file = stdout;
    return TRUE;
  }
  self->file = fopen (location, "w");
  if (!self->file) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Could not open \"%s\" to write the results: %s.", location,
            g_strerror (errno)), ("Check the 'location' property."));
    return FALSE;
  }
  return TRUE;
}

static gboolean
open_mqtt (GstVkmlPublish * self, const GstVkmlMqttParams * p)
{
  gchar *error = NULL;

  if (!p->host || !*p->host)
    return TRUE;
  if (gst_vkml_mqtt_available () && !gst_vkml_mqtt_topic_valid (self->topic)) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("\"%s\" is not an MQTT topic "
            "to publish on.", self->topic ? self->topic : ""),
        ("Set 'mqtt-topic' to a topic without the wildcards + and #."));
    return FALSE;
  }
  self->mqtt = gst_vkml_mqtt_open (p, &error);
  if (!self->mqtt) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE, ("vkmlpublish %s.", error),
        ("Check 'mqtt-host' and 'mqtt-port', and that the broker runs."));
    g_free (error);
    return FALSE;
  }
  GST_INFO_OBJECT (self, "publishing on %s:%u, topic \"%s\"", p->host, p->port,
      self->topic);
  return TRUE;
}

static gboolean
gst_vkml_publish_start (GstBaseTransform * trans)
{
  GstVkmlPublish *self = GST_VKML_PUBLISH (trans);
  GstVkmlMqttParams p = { NULL, 0, NULL, MQTT_KEEPALIVE_S };
  gchar *location, *host, *client_id;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  location = g_strdup (self->location);
  host = g_strdup (self->mqtt_host);
  client_id = g_strdup (self->mqtt_client_id);
  p.port = self->mqtt_port;
  self->topic = g_strdup (self->mqtt_topic);
  self->qos = self->mqtt_qos;
  GST_OBJECT_UNLOCK (self);
  p.host = host;
  p.client_id = client_id && *client_id ? client_id : NULL;
  self->frames = 0;

  ok = open_file (self, location) && open_mqtt (self, &p);
  g_free (location);
  g_free (host);
  g_free (client_id);
  if (!ok)                      /* a failed start gets no stop() */
    gst_vkml_publish_stop (trans);
  return ok;
}

static gboolean
gst_vkml_publish_stop (GstBaseTransform * trans)
{
  GstVkmlPublish *self = GST_VKML_PUBLISH (trans);

  if (self->mqtt && !gst_vkml_mqtt_close (self->mqtt, MQTT_FLUSH_TIMEOUT_MS))
    GST_ELEMENT_WARNING (self, RESOURCE, WRITE, ("Some results did not reach "
            "the MQTT broker within %d ms.", MQTT_FLUSH_TIMEOUT_MS), (NULL));
  self->mqtt = NULL;
  if (self->file && self->file != stdout)
    fclose (self->file);
  self->file = NULL;
  g_clear_pointer (&self->topic, g_free);
  g_clear_pointer (&self->stream_id, g_free);
  return TRUE;
}

static gboolean
gst_vkml_publish_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    G_GNUC_UNUSED GstCaps * outcaps)
{
  GstVkmlPublish *self = GST_VKML_PUBLISH (trans);

  gst_vkml_frame_size (incaps, &self->frame_width, &self->frame_height);
  return TRUE;
}

static gboolean
gst_vkml_publish_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstVkmlPublish *self = GST_VKML_PUBLISH (trans);

  if (GST_EVENT_TYPE (event) == GST_EVENT_STREAM_START) {
    const gchar *id = NULL;

    gst_event_parse_stream_start (event, &id);
    g_free (self->stream_id);
    self->stream_id = g_strdup (id);
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static GstFlowReturn
gst_vkml_publish_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstVkmlPublish *self = GST_VKML_PUBLISH (trans);
  GstVkmlPublishFrame f = { NULL, self->frames++, self->frame_width,
    self->frame_height
  };
  gchar *source, *json, *error = NULL;
  gboolean ok = TRUE;

  GST_OBJECT_LOCK (self);
  source = g_strdup (self->source_id && *self->source_id ? self->source_id :
      self->stream_id);
  GST_OBJECT_UNLOCK (self);
  f.source_id = source;
  json = gst_vkml_publish_json (buf, &f);
  if (self->file && (fputs (json, self->file) < 0
          || fputc ('\n', self->file) < 0 || fflush (self->file) != 0)) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("Could not write the results: "
            "%s.", g_strerror (errno)), (NULL));
    ok = FALSE;
  }
  if (ok && self->mqtt && !gst_vkml_mqtt_publish (self->mqtt, self->topic,
          json, strlen (json), self->qos, &error)) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("vkmlpublish: %s.", error),
        (NULL));
    g_free (error);
    ok = FALSE;
  }
  g_free (json);
  g_free (source);
  return ok ? GST_FLOW_OK : GST_FLOW_ERROR;
}
