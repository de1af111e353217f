/* The MQTT client of vkmlpublish: see gstvkmlmqtt.h. Built without libmosquitto, every
 * call says so. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmlmqtt.h"

#ifdef HAVE_MOSQUITTO
#include <errno.h>
#include <mosquitto.h>

struct _GstVkmlMqtt
{
  struct mosquitto *mosq;
  GMutex lock;
  GCond sent;                   /* signalled when pending drops */
  guint pending;                /* published, not yet acknowledged (under lock) */
};

gboolean
gst_vkml_mqtt_available (void)
{
  return TRUE;
}

gboolean
gst_vkml_mqtt_topic_valid (const gchar * topic)
{
  return topic && *topic
      && mosquitto_pub_topic_check (topic) == MOSQ_ERR_SUCCESS;
}

/* The network thread: QoS 0 once written to the socket, 1 and 2 once acknowledged. */
static void
on_publish (G_GNUC_UNUSED struct mosquitto *mosq, void *user,
    G_GNUC_UNUSED int mid)
{
  GstVkmlMqtt *m = user;

  g_mutex_lock (&m->lock);
  if (m->pending > 0)
    m->pending--;
  g_cond_broadcast (&m->sent);
  g_mutex_unlock (&m->lock);
}

static gpointer
init_library (G_GNUC_UNUSED gpointer unused)
{
  mosquitto_lib_init ();        /* process-wide, kept until exit */
  return NULL;
}

GstVkmlMqtt *
gst_vkml_mqtt_open (const GstVkmlMqttParams * p, gchar ** error)
{
  static GOnce once = G_ONCE_INIT;
  GstVkmlMqtt *m = g_new0 (GstVkmlMqtt, 1);
  int rc;

  g_once (&once, init_library, NULL);
  g_mutex_init (&m->lock);
  g_cond_init (&m->sent);
  m->mosq = mosquitto_new (p->client_id, TRUE, m);
  if (!m->mosq) {
    *error = g_strdup_printf ("could not make an MQTT client: %s",
        g_strerror (errno));
    gst_vkml_mqtt_close (m, 0);
    return NULL;
  }
  mosquitto_publish_callback_set (m->mosq, on_publish);
  rc = mosquitto_connect (m->mosq, p->host, (int) p->port,
      (int) p->keepalive_s);
  if (rc == MOSQ_ERR_SUCCESS)
    rc = mosquitto_loop_start (m->mosq);
  if (rc != MOSQ_ERR_SUCCESS) {
    *error = g_strdup_printf ("could not connect to the MQTT broker at %s:%u:"
        " %s", p->host, p->port, rc == MOSQ_ERR_ERRNO ? g_strerror (errno) :
        mosquitto_strerror (rc));
    gst_vkml_mqtt_close (m, 0);
    return NULL;
  }
  return m;
}

gboolean
gst_vkml_mqtt_publish (GstVkmlMqtt * m, const gchar * topic,
    const gchar * payload, gsize len, guint qos, gchar ** error)
{
  int rc;

  if (len > G_MAXINT) {
    *error = g_strdup ("a message is too long for MQTT");
    return FALSE;
  }
  g_mutex_lock (&m->lock);
  m->pending++;                 /* before the network thread can see it sent */
  g_mutex_unlock (&m->lock);
  rc = mosquitto_publish (m->mosq, NULL, topic, (int) len, payload, (int) qos,
      false);
  if (rc == MOSQ_ERR_SUCCESS)
    return TRUE;
  g_mutex_lock (&m->lock);
  m->pending--;
  g_mutex_unlock (&m->lock);
  *error = g_strdup_printf ("MQTT publish on \"%s\" failed: %s", topic,
      mosquitto_strerror (rc));
  return FALSE;
}

gboolean
gst_vkml_mqtt_close (GstVkmlMqtt * m, guint timeout_ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  gboolean all_sent;

  if (!m)
    return TRUE;
  g_mutex_lock (&m->lock);
  while (m->pending > 0 && g_cond_wait_until (&m->sent, &m->lock, end));
  all_sent = m->pending == 0;
  g_mutex_unlock (&m->lock);
  if (m->mosq) {
    mosquitto_disconnect (m->mosq);
    mosquitto_loop_stop (m->mosq, FALSE);
    mosquitto_destroy (m->mosq);
  }
  g_mutex_clear (&m->lock);
  g_cond_clear (&m->sent);
  g_free (m);
  return all_sent;
}

#else /* !HAVE_MOSQUITTO */

gboolean
gst_vkml_mqtt_available (void)
{
  return FALSE;
}

gboolean
gst_vkml_mqtt_topic_valid (G_GNUC_UNUSED const gchar * topic)
{
  return FALSE;
}

GstVkmlMqtt *
gst_vkml_mqtt_open (G_GNUC_UNUSED const GstVkmlMqttParams * p, gchar ** error)
{
  *error = g_strdup ("the plugin was built without MQTT (meson option "
      "'mqtt', libmosquitto-dev)");
  return NULL;
}

gboolean
gst_vkml_mqtt_publish (G_GNUC_UNUSED GstVkmlMqtt * m,
    G_GNUC_UNUSED const gchar * topic, G_GNUC_UNUSED const gchar * payload,
    G_GNUC_UNUSED gsize len, G_GNUC_UNUSED guint qos, gchar ** error)
{
  *error = g_strdup ("no MQTT");
  return FALSE;
}

gboolean
gst_vkml_mqtt_close (GstVkmlMqtt * m, G_GNUC_UNUSED guint timeout_ms)
{
  return m == NULL;
}

#endif /* HAVE_MOSQUITTO */
