/* vkmlinfer's property types, its devices and libvkml's context with its log, the
 * pre-processing properties parsed (gstvkmlinferpriv.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmlinferpriv.h"

#include <stdio.h>
#include <string.h>

#define GST_CAT_DEFAULT gst_vkml_infer_debug
GST_DEBUG_CATEGORY (gst_vkml_lib_debug);

GType
gst_vkml_resize_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {VKML_RESIZE_STRETCH, "Whole frame onto the whole input", "stretch"},
    {VKML_RESIZE_LETTERBOX, "Aspect kept, centred, padded with pad-value",
        "letterbox"},
    {VKML_RESIZE_CROP, "Aspect kept, centre crop", "crop"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstVkmlResize", values));
  return type;
}

GType
gst_vkml_channel_order_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {0, "R, G, B", "rgb"},
    {1, "B, G, R", "bgr"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstVkmlChannelOrder",
            values));
  return type;
}

GType
gst_vkml_precision_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {VKML_PRECISION_FP32, "float32, exact to ONNX", "fp32"},
    {VKML_PRECISION_FP32_FAST, "float32, faster math where the device allows",
        "fp32-fast"},
    {VKML_PRECISION_FP16,
        "float16 where it ran no slower than float32 when the "
          "session was made, else float32", "fp16"},
    {VKML_PRECISION_FP16_ALWAYS,
          "float16 tensors and weights, float32 accumulation",
        "fp16-always"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstVkmlPrecision",
            values));
  return type;
}

/* The session's device set from the 'device' text; FALSE (error posted) when it does not
 * parse. "default" (or NULL, or -2) leaves the set to libvkml's default. */
gboolean
gst_vkml_infer_parse_devices (GstVkmlInfer * self, const gchar * text,
    int *indices, size_t *n)
{
  vkml_error err = { 0 };

  *n = 0;
  if (!text || !*text || g_str_equal (text, "default")
      || g_str_equal (text, "-2"))
    return TRUE;
  if (g_str_equal (text, "-1"))
    text = "cpu";
  if (vkml_context_parse_devices (self->ctx, text, indices,
          VKML_MAX_SESSION_DEVICES, n, &err) != VKML_OK) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("Bad 'device' \"%s\": %s", text, err.message),
        ("Use default, all, cpu, a GPU index from `vkml devices`, or a list "
            "such as 0,1,cpu."));
    return FALSE;
  }
  return TRUE;
}

/* The element whose call into libvkml runs on this thread (gst_vkml_infer_lib_scope):
 * libvkml's messages from there name it. */
static GPrivate lib_scope;

GstObject *
gst_vkml_infer_lib_scope (GstObject * object)
{
  GstObject *previous = g_private_get (&lib_scope);

  g_private_set (&lib_scope, object);
  return previous;
}

/* libvkml's messages into the "vkml" debug category, on @user: the element whose own
 * session or model load made them (vkml_session_params.log_user,
 * vkml_model_params.log_user), else the element whose call runs on this thread
 * (gst_vkml_infer_lib_scope; a shared instance's work); a message from a libvkml thread
 * working for a shared instance names none. */
static void
gst_vkml_infer_lib_log (void *user, vkml_log_level level, const char *message)
{
  static const GstDebugLevel levels[] = {
    [VKML_LOG_ERROR] = GST_LEVEL_ERROR,
    [VKML_LOG_WARN] = GST_LEVEL_WARNING,
    [VKML_LOG_INFO] = GST_LEVEL_INFO,
    [VKML_LOG_DEBUG] = GST_LEVEL_DEBUG,
  };

  if ((guint) level < G_N_ELEMENTS (levels))
    GST_CAT_LEVEL_LOG (gst_vkml_lib_debug, levels[level],
        user ? user : g_private_get (&lib_scope), "%s", message);
}

/* The library's log level from the "vkml" category's threshold (VKML_LOG still wins). */
static vkml_log_level
gst_vkml_infer_lib_log_level (void)
{
  GstDebugLevel t = gst_debug_category_get_threshold (gst_vkml_lib_debug);

  if (t >= GST_LEVEL_DEBUG)
    return VKML_LOG_DEBUG;
  if (t >= GST_LEVEL_INFO)
    return VKML_LOG_INFO;
  return t >= GST_LEVEL_WARNING ? VKML_LOG_WARN : VKML_LOG_ERROR;
}

vkml_status
gst_vkml_load_model (gpointer owner, const gchar * path, vkml_model ** model,
    vkml_error * err)
{
  vkml_model_params params = {.path = path,
    .log_callback = gst_vkml_infer_lib_log,
    .log_user = owner,
    .log_level = gst_vkml_infer_lib_log_level (),
    .log_level_set = TRUE
  };

  return vkml_model_load (&params, model, err);
}

/* A context a peer element holds (downstream first, then upstream), or one the
 * application sets while handling NEED_CONTEXT (gst_vkml_infer_set_context); NULL. */
static GstVkmlSharedContext *
gst_vkml_infer_find_context (GstVkmlInfer * self)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstQuery *query = gst_query_new_context (GST_VKML_CONTEXT_TYPE);
  GstPad *pads[2] = { trans->srcpad, trans->sinkpad };
  GstVkmlSharedContext *sc = NULL;
  GstContext *context = NULL;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (pads) && !sc; i++)
    if (gst_pad_peer_query (pads[i], query)) {
      gst_query_parse_context (query, &context);
      sc = gst_vkml_shared_context_from_gst (context);
    }
  gst_query_unref (query);
  if (!sc)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_need_context (GST_OBJECT (self),
            GST_VKML_CONTEXT_TYPE));
  GST_OBJECT_LOCK (self);
  if (!sc && self->shared_ctx)  /* set by the application meanwhile */
    sc = gst_vkml_shared_context_ref (self->shared_ctx);
  GST_OBJECT_UNLOCK (self);
  return sc;
}

gboolean
gst_vkml_infer_create_context (GstVkmlInfer * self)
{
  vkml_context_params params = {.log_callback = gst_vkml_infer_lib_log,
    .log_level = gst_vkml_infer_lib_log_level (),
    .log_level_set = TRUE
  };
  GstVkmlSharedContext *sc;
  vkml_error err = { 0 };

  GST_OBJECT_LOCK (self);
  sc = self->shared_ctx ? gst_vkml_shared_context_ref (self->shared_ctx) : NULL;
  GST_OBJECT_UNLOCK (self);
  if (!sc && !(sc = gst_vkml_infer_find_context (self))) {
    sc = gst_vkml_shared_context_default (&params, &err);
    if (!sc) {
      GST_ELEMENT_ERROR (self, LIBRARY, INIT,
          ("Could not initialise libvkml: %s", err.message), (NULL));
      return FALSE;
    }
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_have_context (GST_OBJECT (self),
            gst_vkml_shared_context_to_gst (sc)));
  }
  GST_OBJECT_LOCK (self);
  if (self->shared_ctx)
    gst_vkml_shared_context_unref (self->shared_ctx);
  self->shared_ctx = sc;
  self->ctx = gst_vkml_shared_context_get (sc);
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

void
gst_vkml_infer_release_context (GstVkmlInfer * self, gboolean lost)
{
  GstVkmlSharedContext *sc;

  GST_OBJECT_LOCK (self);
  sc = g_steal_pointer (&self->shared_ctx);
  self->ctx = NULL;
  GST_OBJECT_UNLOCK (self);
  if (sc && lost)
    gst_vkml_shared_context_mark_lost (sc);
  if (sc)
    gst_vkml_shared_context_unref (sc);
}

gboolean
gst_vkml_infer_answer_context (GstVkmlInfer * self, GstQuery * query)
{
  const gchar *type = NULL;
  GstContext *context = NULL;

  if (!gst_query_parse_context_type (query, &type)
      || g_strcmp0 (type, GST_VKML_CONTEXT_TYPE) != 0)
    return FALSE;
  GST_OBJECT_LOCK (self);
  if (self->shared_ctx && !self->ctx_lost)
    context = gst_vkml_shared_context_to_gst (self->shared_ctx);
  GST_OBJECT_UNLOCK (self);
  if (!context)
    return FALSE;
  gst_query_set_context (query, context);
  gst_context_unref (context);
  return TRUE;
}

void
gst_vkml_infer_set_context (GstElement * element, GstContext * context)
{
  GstVkmlInfer *self = GST_VKML_INFER (element);
  GstVkmlSharedContext *sc = gst_vkml_shared_context_from_gst (context);

  GST_OBJECT_LOCK (self);
  /* the first one holds: an element keeps its devices while it lives */
  if (sc && !self->shared_ctx)
    self->shared_ctx = g_steal_pointer (&sc);
  GST_OBJECT_UNLOCK (self);
  if (sc)
    gst_vkml_shared_context_unref (sc);
  GST_ELEMENT_CLASS (g_type_class_peek (GST_TYPE_BASE_TRANSFORM))->set_context
      (element, context);
}

/* The bundle's input settings into @pre where the property was not set (object lock). */
static void
gst_vkml_infer_apply_bundle (GstVkmlInfer * self,
    GstVkmlPreprocessSettings * pre)
{
  const GstVkmlBundle *b = self->bundle;
  guint take = b ? b->set & ~self->pre_set : 0;

  if (take & GST_VKML_BUNDLE_RESIZE)
    pre->resize = b->input.resize;
  if (take & GST_VKML_BUNDLE_PAD_VALUE)
    pre->pad_value = b->input.pad_value;
  if (take & GST_VKML_BUNDLE_CHANNEL_ORDER)
    pre->bgr = b->input.bgr;
  if (take & GST_VKML_BUNDLE_SCALE)
    pre->scale = b->input.scale;
  if (take & GST_VKML_BUNDLE_MEAN)
    memcpy (pre->mean, b->input.mean, sizeof (pre->mean));
  if (take & GST_VKML_BUNDLE_STD)
    memcpy (pre->std, b->input.std, sizeof (pre->std));
}

gboolean
gst_vkml_infer_read_bundle (GstVkmlInfer * self, const gchar * model_path)
{
  GstVkmlBundle *bundle = NULL;
  GError *error = NULL;
  gchar *path;
  gboolean given, ok;

  GST_OBJECT_LOCK (self);
  given = self->config && *self->config;
  path = given ? g_strdup (self->config) :
      gst_vkml_bundle_path_for_model (model_path);
  GST_OBJECT_UNLOCK (self);
  if (given || g_file_test (path, G_FILE_TEST_EXISTS))
    bundle = gst_vkml_bundle_load (path, &error);
  ok = error == NULL;
  if (error && error->code == GST_RESOURCE_ERROR_NOT_FOUND)
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("Could not read the model "
            "bundle: %s.", error->message), ("Check the 'config' property."));
  else if (error)
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("Bad model bundle: %s.",
            error->message), ("The schema is in docs/element.md (Model "
            "bundles); the JSON beside a model is read as its bundle unless "
            "'config' names another."));
  else if (bundle)
    GST_INFO_OBJECT (self, "model bundle %s", path);
  g_clear_error (&error);
  g_free (path);
  GST_OBJECT_LOCK (self);
  gst_vkml_bundle_free (self->bundle);
  self->bundle = bundle;
  GST_OBJECT_UNLOCK (self);
  return ok;
}

/* The pre-processing properties, parsed, the bundle filling those not set; FALSE (error
 * posted) when one does not parse. */
gboolean
gst_vkml_infer_read_settings (GstVkmlInfer * self,
    GstVkmlPreprocessSettings * pre)
{
  gchar *why = NULL, *what = NULL;
  guint w = 0, h = 0;
  int i;

  GST_OBJECT_LOCK (self);
  *pre = self->pre;
  if (!gst_vkml_parse_channel_values (self->mean, pre->mean, &why))
    what = "mean";
  else if (!gst_vkml_parse_channel_values (self->std, pre->std, &why))
    what = "std";
  if (!why)
    gst_vkml_infer_apply_bundle (self, pre);
  for (i = 0; !why && i < 3; i++)
    if (pre->std[i] == 0.0f) {
      why = g_strdup ("a std of 0");
      what = "std";
    }
  if (!why && self->input_size && *self->input_size) {
    gchar end;

    if (sscanf (self->input_size, "%ux%u%c", &w, &h, &end) != 2 || !w || !h
        || w > VKML_PREPROCESS_MAX_SIDE || h > VKML_PREPROCESS_MAX_SIDE) {
      why = g_strdup_printf ("\"%s\" is not WxH with sides 1 .. %d",
          self->input_size, VKML_PREPROCESS_MAX_SIDE);
      what = "input-size";
    }
  }
  GST_OBJECT_UNLOCK (self);
  pre->input_width = w;
  pre->input_height = h;
  if (why) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("Bad '%s': %s.", what, why),
        (NULL));
    g_free (why);
    return FALSE;
  }
  return TRUE;
}
