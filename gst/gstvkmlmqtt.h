/* vkmlpublish's MQTT client (libmosquitto): connects at start, publishes each frame's
 * JSON from the streaming thread, and at close waits until the broker has every message
 * (or a timeout) before disconnecting. One per element; gst_vkml_mqtt_publish and
 * gst_vkml_mqtt_close from one thread at a time, the network loop runs on its own. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS typedef struct _GstVkmlMqtt GstVkmlMqtt;

typedef struct
{
  const gchar *host;
  guint port;
  const gchar *client_id;       /* NULL: libmosquitto makes one up */
  guint keepalive_s;
} GstVkmlMqttParams;

/* Whether the plugin was built with MQTT (libmosquitto). */
gboolean gst_vkml_mqtt_available (void);

/* Whether @topic is one a message may be published on (UTF-8, no wildcards); FALSE
 * without MQTT. */
gboolean gst_vkml_mqtt_topic_valid (const gchar * topic);

/* Connected (the TCP connection is up; MQTT's handshake follows on the loop), or NULL
 * with *@error set to a sentence naming the broker. */
GstVkmlMqtt *gst_vkml_mqtt_open (const GstVkmlMqttParams * p, gchar ** error);

/* Queues @len bytes of @payload on @topic; FALSE with *@error on a refusal. */
gboolean gst_vkml_mqtt_publish (GstVkmlMqtt * m, const gchar * topic,
    const gchar * payload, gsize len, guint qos, gchar ** error);

/* Waits up to @timeout_ms for the queued messages to go out, disconnects and frees
 * @m; FALSE when some did not go out in time. NULL is fine. */
gboolean gst_vkml_mqtt_close (GstVkmlMqtt * m, guint timeout_ms);

G_END_DECLS
