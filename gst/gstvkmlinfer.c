/**
 * SECTION:element-vkmlinfer
 * @title: vkmlinfer
 *
 * Runs an ONNX model with libvkml (Vulkan compute, or vkml's CPU device) on every video
 * frame and attaches the model's outputs to the frame as a #GstVkmlTensorMeta. The
 * video passes through unchanged.
 *
 * Each frame (NV12, I420, GRAY8 or packed 8-bit RGB, any size and stride, no
 * videoconvert needed) is turned into the model's single image input by one kernel on
 * the model's device (libvkml's pre-processing, see docs/element.md): colour
 * conversion, resize (stretch, letterbox or crop), channel order, (x * scale - mean) /
 * std, NCHW or NHWC and the input's dtype (float, float16, uint8). Symbolic batch is
 * bound to 1, symbolic height and width to 'input-size' or the video's size; a new
 * video size plans the model again.
 *
 * The element opens libvkml's devices at its first start and keeps them until it is
 * freed, so a pipeline that goes to NULL and back only plans its model again. When a
 * run reports that the device was lost, it posts a RESOURCE/FAILED error naming the
 * device; the next start then opens the devices anew.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc pattern=red num-buffers=10 ! \
 *     video/x-raw,format=RGB,width=320,height=240 ! \
 *     vkmlinfer model=color.onnx ! vkmlclassify labels=color-labels.txt print=true ! \
 *     fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmlinfer.h"
#include "gstvkmlconvert.h"
#include "gstvkmltensormeta.h"
#include "gstvkmltensorcaps.h"

#include <gst/video/video.h>
#include <vkml/vkml.h>

#include <stdio.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_vkml_infer_debug);
#define GST_CAT_DEFAULT gst_vkml_infer_debug

#define DEFAULT_MODEL NULL
#define DEFAULT_DEVICE "default"
#define DEFAULT_BUDGET 0
#define DEFAULT_RESIZE VKML_RESIZE_STRETCH
#define DEFAULT_PAD_VALUE 0.0
#define DEFAULT_CHANNEL_ORDER 0
#define DEFAULT_SCALE 0.0
#define DEFAULT_MEAN "0"
#define DEFAULT_STD "1"
#define DEFAULT_INPUT_SIZE NULL

enum
{
  PROP_0,
  PROP_MODEL,
  PROP_DEVICE,
  PROP_BUDGET,
  PROP_RESIZE,
  PROP_PAD_VALUE,
  PROP_CHANNEL_ORDER,
  PROP_SCALE,
  PROP_MEAN,
  PROP_STD,
  PROP_INPUT_SIZE,
};

struct _GstVkmlInfer
{
  GstBaseTransform parent;

  /* properties, under the object lock */
  gchar *model_path;
  gchar *device;
  guint64 budget;
  GstVkmlPreprocessSettings pre;        /* resize, pad_value, bgr, scale */
  gchar *mean, *std, *input_size;       /* as set */

  /* from the first start() to finalize(), or to the stop() after a device loss */
  vkml_context *ctx;
  gboolean ctx_lost;

  /* from start() to stop() */
  GstVkmlPreprocessSettings pre_now;    /* the properties as start() read them */
  vkml_model *model;
  vkml_session *session;
  gsize n_outputs;
  vkml_tensor *outputs;         /* shapes set once; data points into out_maps */
  GstBufferPool **out_pools;    /* one per output: the tensors go downstream */
  GstBuffer **out_bufs;         /* this frame's output buffers */
  GstMapInfo *out_maps;

  /* from set_caps(): the session is planned for the video and its pre-processing, or
   * for tensors (tensor_mode: the buffers' memories are the inputs, then the outputs) */
  gboolean negotiated;
  gboolean tensor_mode;
  GstCaps *tensor_caps;         /* the tensor caps the session is planned for */
  GstVideoInfo vinfo;
  vkml_preprocess pp;
  vkml_tensor_info bound;       /* the model input's shape planned for */
  GstVkmlInputGeometry geometry;
  vkml_tensor input;            /* the frame's bytes: g_malloc'ed, reused every frame */
  GstCaps *refused_caps;        /* reported once, not again on each retry */
};

#define VIDEO_CAPS \
    GST_VIDEO_CAPS_MAKE ("{ NV12, I420, RGB, BGR, RGBA, BGRA, RGBx, BGRx, " \
        "xRGB, xBGR, ARGB, ABGR, GRAY8 }")

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (VIDEO_CAPS "; " GST_VKML_TENSOR_CAPS));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (VIDEO_CAPS "; " GST_VKML_TENSOR_CAPS));

#define GST_TYPE_VKML_RESIZE (gst_vkml_resize_get_type ())
static GType
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

#define GST_TYPE_VKML_CHANNEL_ORDER (gst_vkml_channel_order_get_type ())
static GType
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

#define gst_vkml_infer_parent_class parent_class
G_DEFINE_TYPE (GstVkmlInfer, gst_vkml_infer, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (vkmlinfer, "vkmlinfer", GST_RANK_NONE,
    GST_TYPE_VKML_INFER);

static void gst_vkml_infer_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_vkml_infer_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_vkml_infer_finalize (GObject * object);
static gboolean gst_vkml_infer_start (GstBaseTransform * trans);
static gboolean gst_vkml_infer_stop (GstBaseTransform * trans);
static gboolean gst_vkml_infer_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static GstCaps *gst_vkml_infer_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static gboolean gst_vkml_infer_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query);
static GstFlowReturn gst_vkml_infer_transform_ip (GstBaseTransform * trans,
    GstBuffer * buf);

static void
gst_vkml_infer_class_init (GstVkmlInferClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_vkml_infer_set_property;
  gobject_class->get_property = gst_vkml_infer_get_property;
  gobject_class->finalize = gst_vkml_infer_finalize;

  g_object_class_install_property (gobject_class, PROP_MODEL,
      g_param_spec_string ("model", "Model",
          "Path of the ONNX model file to run (required)", DEFAULT_MODEL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_DEVICE,
      g_param_spec_string ("device", "Device",
          "Devices to plan the model over, in order of preference, as "
          "`vkml run --device` takes them: \"default\" (every GPU, the default "
          "one first; a model that fits it stays on it), \"all\", \"cpu\" "
          "(vkml's CPU device), a Vulkan device index (see `vkml devices`) or a "
          "list such as \"0,1,cpu\"; -1 and -2 are read as cpu and default",
          DEFAULT_DEVICE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_BUDGET,
      g_param_spec_uint64 ("budget", "Budget",
          "Bytes the model may take on each GPU (weights and tensors); a model "
          "larger than one GPU's budget is split over the next devices. 0: each "
          "device's own budget (95% of its free memory)", 0, G_MAXUINT64,
          DEFAULT_BUDGET, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_RESIZE,
      g_param_spec_enum ("resize", "Resize",
          "How the frame becomes the model's input image: stretch (aspect not "
          "kept), letterbox (aspect kept, centred, pad-value around) or crop "
          "(aspect kept, centre crop)", GST_TYPE_VKML_RESIZE, DEFAULT_RESIZE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_PAD_VALUE,
      g_param_spec_double ("pad-value", "Pad value",
          "Pixel value (0..255, before scale/mean/std) of the letterbox border",
          0.0, 255.0, DEFAULT_PAD_VALUE, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_CHANNEL_ORDER,
      g_param_spec_enum ("channel-order", "Channel order",
          "Order of the colour channels in the model's input",
          GST_TYPE_VKML_CHANNEL_ORDER, DEFAULT_CHANNEL_ORDER,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_SCALE,
      g_param_spec_double ("scale", "Scale",
          "Factor on the 0..255 pixel values before mean and std: input = "
          "(pixel * scale - mean) / std. 0: 1/255 for float and float16 inputs, "
          "1 for uint8 inputs", -G_MAXFLOAT, G_MAXFLOAT, DEFAULT_SCALE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_MEAN,
      g_param_spec_string ("mean", "Mean",
          "Subtracted after scale: one value, or one per channel of the model's "
          "input order (\"0.485,0.456,0.406\")", DEFAULT_MEAN,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_STD,
      g_param_spec_string ("std", "Std",
          "Divides after mean: one value, or one per channel "
          "(\"0.229,0.224,0.225\"); none may be 0", DEFAULT_STD,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_INPUT_SIZE,
      g_param_spec_string ("input-size", "Input size",
          "WxH (e.g. 640x480) for a model whose input height and width are "
          "symbolic; NULL: the video's size", DEFAULT_INPUT_SIZE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "vkml inference", "Filter/Effect/Video",
      "Runs an ONNX model on video frames with libvkml (Vulkan) and attaches "
      "the output tensors as GstVkmlTensorMeta", "vkml developers");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_vkml_infer_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_vkml_infer_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_vkml_infer_set_caps);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_vkml_infer_transform_caps);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_vkml_infer_propose_allocation);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_vkml_infer_transform_ip);

  GST_DEBUG_CATEGORY_INIT (gst_vkml_infer_debug, "vkmlinfer", 0,
      "vkml inference element");
}

static void
gst_vkml_infer_init (GstVkmlInfer * self)
{
  self->model_path = g_strdup (DEFAULT_MODEL);
  self->device = g_strdup (DEFAULT_DEVICE);
  self->budget = DEFAULT_BUDGET;
  self->pre.resize = DEFAULT_RESIZE;
  self->pre.pad_value = DEFAULT_PAD_VALUE;
  self->pre.scale = DEFAULT_SCALE;
  self->pre.std[0] = self->pre.std[1] = self->pre.std[2] = 1.0f;
  self->mean = g_strdup (DEFAULT_MEAN);
  self->std = g_strdup (DEFAULT_STD);
  /* The video is never modified; buffers are only made writable for the meta. */
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), FALSE);
}

static void
gst_vkml_infer_finalize (GObject * object)
{
  GstVkmlInfer *self = GST_VKML_INFER (object);

  vkml_context_destroy (&self->ctx);
  g_free (self->model_path);
  g_free (self->device);
  g_free (self->mean);
  g_free (self->std);
  g_free (self->input_size);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_vkml_infer_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstVkmlInfer *self = GST_VKML_INFER (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODEL:
      g_free (self->model_path);
      self->model_path = g_value_dup_string (value);
      break;
    case PROP_DEVICE:
      g_free (self->device);
      self->device = g_value_dup_string (value);
      break;
    case PROP_BUDGET:
      self->budget = g_value_get_uint64 (value);
      break;
    case PROP_RESIZE:
      self->pre.resize = g_value_get_enum (value);
      break;
    case PROP_PAD_VALUE:
      self->pre.pad_value = (gfloat) g_value_get_double (value);
      break;
    case PROP_CHANNEL_ORDER:
      self->pre.bgr = g_value_get_enum (value) == 1;
      break;
    case PROP_SCALE:
      self->pre.scale = (gfloat) g_value_get_double (value);
      break;
    case PROP_MEAN:
      g_free (self->mean);
      self->mean = g_value_dup_string (value);
      break;
    case PROP_STD:
      g_free (self->std);
      self->std = g_value_dup_string (value);
      break;
    case PROP_INPUT_SIZE:
      g_free (self->input_size);
      self->input_size = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_vkml_infer_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstVkmlInfer *self = GST_VKML_INFER (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODEL:
      g_value_set_string (value, self->model_path);
      break;
    case PROP_DEVICE:
      g_value_set_string (value, self->device);
      break;
    case PROP_BUDGET:
      g_value_set_uint64 (value, self->budget);
      break;
    case PROP_RESIZE:
      g_value_set_enum (value, self->pre.resize);
      break;
    case PROP_PAD_VALUE:
      g_value_set_double (value, self->pre.pad_value);
      break;
    case PROP_CHANNEL_ORDER:
      g_value_set_enum (value, self->pre.bgr ? 1 : 0);
      break;
    case PROP_SCALE:
      g_value_set_double (value, self->pre.scale);
      break;
    case PROP_MEAN:
      g_value_set_string (value, self->mean);
      break;
    case PROP_STD:
      g_value_set_string (value, self->std);
      break;
    case PROP_INPUT_SIZE:
      g_value_set_string (value, self->input_size);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* Frees everything start() and set_caps() made; safe on a partly started element. The
 * context stays for the next start (device discovery and pipeline compilation are the
 * costly part of a start, and some drivers keep a little memory per Vulkan instance for
 * good), unless a device was lost: then the next start opens the devices anew. */
static void
gst_vkml_infer_free_outputs (GstVkmlInfer * self)
{
  gsize i;

  for (i = 0; i < self->n_outputs; i++) {
    if (self->out_pools && self->out_pools[i]) {
      gst_buffer_pool_set_active (self->out_pools[i], FALSE);
      gst_object_unref (self->out_pools[i]);
    }
  }
  g_clear_pointer (&self->out_pools, g_free);
  g_clear_pointer (&self->out_bufs, g_free);
  g_clear_pointer (&self->out_maps, g_free);
  g_clear_pointer (&self->outputs, g_free);
  self->n_outputs = 0;
}

static void
gst_vkml_infer_teardown (GstVkmlInfer * self)
{
  gst_vkml_infer_free_outputs (self);
  self->negotiated = FALSE;
  g_clear_pointer (&self->input.data, g_free);
  gst_clear_caps (&self->refused_caps);
  gst_clear_caps (&self->tensor_caps);
  vkml_session_destroy (&self->session);
  vkml_model_destroy (&self->model);
  if (self->ctx_lost)
    vkml_context_destroy (&self->ctx);
  self->ctx_lost = FALSE;
}

static GstBufferPool *
make_output_pool (gsize size)
{
  GstBufferPool *pool = gst_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_set_params (config, NULL, (guint) MAX (size, 1), 0, 0);
  if (!gst_buffer_pool_set_config (pool, config)
      || !gst_buffer_pool_set_active (pool, TRUE)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

/* Output shapes and one buffer pool per output. */
static gboolean
gst_vkml_infer_prepare_outputs (GstVkmlInfer * self)
{
  gsize i, n = vkml_session_output_count (self->session);

  self->outputs = g_new0 (vkml_tensor, n);
  self->out_pools = g_new0 (GstBufferPool *, n);
  self->out_bufs = g_new0 (GstBuffer *, n);
  self->out_maps = g_new0 (GstMapInfo, n);
  self->n_outputs = n;
  for (i = 0; i < n; i++) {
    const vkml_tensor_info *info = vkml_session_output (self->session, i);
    vkml_tensor *t = &self->outputs[i];
    gsize count;

    t->dtype = info->dtype;
    t->rank = info->rank;
    memcpy (t->dims, info->dims, sizeof (t->dims));
    count = vkml_tensor_element_count (info->rank, info->dims);
    t->size = count * vkml_dtype_size (info->dtype);
    if ((count && !t->size) || t->size > G_MAXUINT) {
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
          ("Output '%s' of the model has type %s or a size vkmlinfer cannot "
              "hold.", info->name, vkml_dtype_name (info->dtype)), (NULL));
      return FALSE;
    }
    self->out_pools[i] = make_output_pool (t->size);
    if (!self->out_pools[i]) {
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Could not allocate buffers for output '%s'.", info->name), (NULL));
      return FALSE;
    }
  }
  return TRUE;
}

/* The session's device set from the 'device' text; FALSE (error posted) when it does not
 * parse. "default" (or NULL, or -2) leaves the set to libvkml's default. */
static gboolean
gst_vkml_infer_parse_devices (GstVkmlInfer * self, const gchar * text,
    int *indices, size_t *n)
{
  vkml_error err = { 0 };

  *n = 0;
  if (!text || !*text || g_str_equal (text, "default") || g_str_equal (text, "-2"))
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

static gboolean
gst_vkml_infer_load (GstVkmlInfer * self, const gchar * path,
    const gchar * device)
{
  int indices[VKML_MAX_SESSION_DEVICES];
  size_t n_devices;
  vkml_error err = { 0 };
  vkml_status st;

  if (!self->ctx && vkml_context_create (NULL, &self->ctx, &err) != VKML_OK) {
    GST_ELEMENT_ERROR (self, LIBRARY, INIT,
        ("Could not initialise libvkml: %s", err.message), (NULL));
    return FALSE;
  }
  if (!gst_vkml_infer_parse_devices (self, device, indices, &n_devices))
    return FALSE;
  st = vkml_model_load_file (path, &self->model, &err);
  if (st == VKML_ERROR_IO) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("Could not read the model file \"%s\": %s", path, err.message),
        ("Check the 'model' property."));
    return FALSE;
  } else if (st != VKML_OK) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("Could not load the model \"%s\" (%s): %s", path,
            vkml_status_name (st), err.message), (NULL));
    return FALSE;
  }
  return TRUE;
}

/* Plans the model for the negotiated video: its input 0 fed by libvkml's pre-processing
 * of the frame's bytes (planned again for each new video size or layout). */
static gboolean
gst_vkml_infer_create_session (GstVkmlInfer * self,
    const vkml_tensor_info * shapes, const vkml_preprocess * pp, gchar ** why)
{
  vkml_session_params params = {.device = VKML_DEVICE_DEFAULT };
  int indices[VKML_MAX_SESSION_DEVICES];
  size_t n_devices, p;
  vkml_error err = { 0 };
  gchar *path, *device;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  path = g_strdup (self->model_path);
  device = g_strdup (self->device);
  params.device_budget = self->budget;
  GST_OBJECT_UNLOCK (self);
  params.input_shapes = shapes;
  params.preprocess = pp;
  vkml_session_destroy (&self->session);
  ok = gst_vkml_infer_parse_devices (self, device, indices, &n_devices);
  params.devices = n_devices ? indices : NULL;
  params.n_devices = n_devices;
  if (ok && vkml_session_create (self->ctx, self->model, &params,
          &self->session, &err) != VKML_OK) {
    *why = g_strdup_printf ("could not plan the model \"%s\" on device %s: %s",
        path, device ? device : DEFAULT_DEVICE, err.message);
    ok = FALSE;
  }
  g_free (path);
  g_free (device);
  if (!ok)
    return FALSE;
  GST_INFO_OBJECT (self, "model %s on device %d", path,
      vkml_session_device (self->session));
  /* The plan, for the debug log: which device runs which nodes, what crosses. */
  for (p = 0; p < vkml_session_plan_part_count (self->session); p++) {
    vkml_plan_part part;

    if (vkml_session_plan_part (self->session, p, &part))
      GST_DEBUG_OBJECT (self, "plan: device %d: %" G_GSIZE_FORMAT " nodes (%s .. "
          "%s), weights %" G_GUINT64_FORMAT " bytes, peak tensors %"
          G_GUINT64_FORMAT " bytes", part.device, part.n_nodes,
          part.first_node, part.last_node, part.weight_bytes, part.peak_bytes);
  }
  for (p = 0; p < vkml_session_plan_transfer_count (self->session); p++) {
    vkml_plan_transfer t;

    if (vkml_session_plan_transfer (self->session, p, &t))
      GST_DEBUG_OBJECT (self, "plan: copy of %s from device %d to %d, %"
          G_GUINT64_FORMAT " bytes per frame", t.value, t.from, t.to, t.bytes);
  }
  return TRUE;
}

/* The pre-processing properties, parsed; FALSE (error posted) when one does not parse. */
static gboolean
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

static gboolean
gst_vkml_infer_start (GstBaseTransform * trans)
{
  GstVkmlInfer *self = GST_VKML_INFER (trans);
  gchar *path, *device;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  path = g_strdup (self->model_path);
  device = g_strdup (self->device);
  GST_OBJECT_UNLOCK (self);

  if (!path || !*path) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("No model set."),
        ("Set the 'model' property to an ONNX file."));
    g_free (path);
    g_free (device);
    return FALSE;
  }
  ok = gst_vkml_infer_read_settings (self, &self->pre_now)
      && gst_vkml_infer_load (self, path, device);
  g_free (path);
  g_free (device);
  if (!ok)
    gst_vkml_infer_teardown (self);
  return ok;
}

static gboolean
gst_vkml_infer_stop (GstBaseTransform * trans)
{
  gst_vkml_infer_teardown (GST_VKML_INFER (trans));
  return TRUE;
}

/* Why the model cannot take this video, or NULL when it can: then self->bound, pp,
 * geometry and the input tensor are set for it. */
static gchar *
gst_vkml_infer_check_input (GstVkmlInfer * self, const GstVideoInfo * vinfo,
    vkml_tensor_info * bound, vkml_preprocess * pp)
{
  gsize n = vkml_model_input_count (self->model);
  const vkml_tensor_info *info = vkml_model_input (self->model, 0);
  gchar *why = NULL;

  if (n != 1)
    return g_strdup_printf ("the model has %" G_GSIZE_FORMAT " inputs; "
        "vkmlinfer feeds exactly one image input", n);
  if (!gst_vkml_bind_image_shape (info, vinfo, &self->pre_now, bound, &why)
      || !gst_vkml_preprocess_from_video (vinfo, &self->pre_now, info->dtype,
          pp, &why))
    return why;
  return NULL;
}

/* Posts the negotiation error, once per caps (base transform retries). */
static void
gst_vkml_infer_refuse_caps (GstVkmlInfer * self, GstCaps * caps,
    const gchar * why)
{
  const vkml_tensor_info *info = vkml_model_input (self->model, 0);
  gchar *input;

  if (self->refused_caps && gst_caps_is_equal (caps, self->refused_caps))
    return;
  gst_caps_replace (&self->refused_caps, caps);
  input = info ? gst_vkml_tensor_info_to_string (info) : g_strdup ("(none)");
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("The model's input %s cannot take %" GST_PTR_FORMAT ": %s.",
          input, caps, why),
      ("vkmlinfer feeds float, float16 or uint8 NCHW [1,C,H,W] or NHWC "
          "[1,H,W,C] inputs, C = 1 or 3; symbolic height and width take "
          "'input-size' or the video's size."));
  g_free (input);
}

static void
gst_vkml_infer_set_geometry (GstVkmlInfer * self)
{
  const vkml_tensor_info *in = &self->bound;
  gboolean nhwc = !(in->dims[1] == 1 || in->dims[1] == 3);
  guint iw = (guint) in->dims[nhwc ? 2 : 3], ih = (guint) in->dims[nhwc ? 1 : 2];
  vkml_preprocess_geometry g;

  vkml_preprocess_get_geometry (&self->pp, iw, ih, &g);
  self->geometry.frame_width = self->pp.width;
  self->geometry.frame_height = self->pp.height;
  self->geometry.input_width = iw;
  self->geometry.input_height = ih;
  self->geometry.scale_x = g.scale_x;
  self->geometry.scale_y = g.scale_y;
  self->geometry.offset_x = g.offset_x;
  self->geometry.offset_y = g.offset_y;
}

/* Tensor caps in (no pre-processing): plans the model for the caps' shapes, unless it
 * is planned for them already (transform_caps plans, so that the output caps are known
 * before set_caps). FALSE: refused (error posted). */
static gboolean
gst_vkml_infer_plan_tensors (GstVkmlInfer * self, GstCaps * caps)
{
  gsize i, n = vkml_model_input_count (self->model);
  const vkml_tensor_info **model;
  vkml_tensor_info *shapes;
  gchar *why = NULL;
  gboolean ok;

  if (self->tensor_caps && gst_caps_is_equal (caps, self->tensor_caps))
    return TRUE;
  model = g_new0 (const vkml_tensor_info *, n + 1);
  shapes = g_new0 (vkml_tensor_info, n + 1);
  for (i = 0; i < n; i++)
    model[i] = vkml_model_input (self->model, i);
  self->negotiated = FALSE;
  gst_clear_caps (&self->tensor_caps);
  gst_vkml_infer_free_outputs (self);
  ok = gst_vkml_tensor_caps_to_shapes (caps, model, n, shapes, &why)
      && gst_vkml_infer_create_session (self, shapes, NULL, &why);
  g_free (model);
  g_free (shapes);
  if (!ok) {
    vkml_session_destroy (&self->session);
    if (!why)
      return FALSE;             /* error posted */
    gst_vkml_infer_refuse_caps (self, caps, why);
    g_free (why);
    return FALSE;
  }
  if (!gst_vkml_infer_prepare_outputs (self))
    return FALSE;
  self->tensor_caps = gst_caps_ref (caps);
  return TRUE;
}

static gboolean
gst_vkml_infer_set_tensor_caps (GstVkmlInfer * self, GstCaps * incaps)
{
  if (!gst_vkml_infer_plan_tensors (self, incaps))
    return FALSE;
  self->tensor_mode = TRUE;
  self->negotiated = TRUE;
  return TRUE;
}

/* Video caps pass through unchanged; tensor caps in become the model's output tensors
 * out (and the other way: any tensor caps, the model's input tensors when it is loaded). */
static GstCaps *
gst_vkml_infer_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstVkmlInfer *self = GST_VKML_INFER (trans);
  GstCaps *out = gst_caps_new_empty (), *tensors = NULL, *result;
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);

    if (!gst_structure_has_name (s, "other/tensors")) {
      gst_caps_append_structure_full (out, gst_structure_copy (s),
          gst_caps_features_copy (gst_caps_get_features (caps, i)));
      continue;
    }
    if (tensors)
      continue;
    /* The model's outputs for fixed input tensors; any static tensors else. */
    if (direction == GST_PAD_SINK && self->model && gst_caps_is_fixed (caps)
        && gst_vkml_infer_plan_tensors (self, caps)) {
      gsize n = vkml_session_output_count (self->session), k;
      vkml_tensor_info *infos = g_new0 (vkml_tensor_info, n + 1);
      gchar *why = NULL;

      for (k = 0; k < n; k++)
        infos[k] = *vkml_session_output (self->session, k);
      tensors = gst_vkml_tensor_caps_from_infos (infos, n, &why);
      g_free (why);
      g_free (infos);
    }
    if (!tensors)
      tensors = gst_caps_from_string (GST_VKML_TENSOR_CAPS);
  }
  if (tensors)
    gst_caps_append (out, tensors);
  if (filter) {
    result = gst_caps_intersect_full (filter, out, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (out);
    out = result;
  }
  return out;
}

static gboolean
gst_vkml_infer_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    G_GNUC_UNUSED GstCaps * outcaps)
{
  GstVkmlInfer *self = GST_VKML_INFER (trans);
  vkml_tensor_info bound;
  vkml_preprocess pp;
  GstVideoInfo vinfo;
  gchar *why = NULL;

  if (gst_vkml_caps_are_tensors (incaps))
    return gst_vkml_infer_set_tensor_caps (self, incaps);
  self->tensor_mode = FALSE;
  if (self->tensor_caps) {      /* the session was planned for tensors */
    gst_clear_caps (&self->tensor_caps);
    self->negotiated = FALSE;
  }
  if (!gst_video_info_from_caps (&vinfo, incaps))
    why = g_strdup ("the caps are not valid video caps");
  if (!why)
    why = gst_vkml_infer_check_input (self, &vinfo, &bound, &pp);
  if (!why && self->negotiated && memcmp (&pp, &self->pp, sizeof (pp)) == 0
      && memcmp (bound.dims, self->bound.dims, sizeof (bound.dims)) == 0)
    return TRUE;                /* same plan */
  if (!why) {
    self->negotiated = FALSE;
    self->bound = bound;
    self->pp = pp;
    gst_vkml_infer_free_outputs (self);
    if (gst_vkml_infer_create_session (self, &self->bound, &self->pp, &why)) {
      if (!gst_vkml_infer_prepare_outputs (self))
        return FALSE;           /* error posted */
    } else if (!why) {
      return FALSE;             /* error posted */
    }
  }
  if (why) {
    gst_vkml_infer_refuse_caps (self, incaps, why);
    g_free (why);
    return FALSE;
  }
  self->vinfo = vinfo;
  self->input.dtype = VKML_DTYPE_UINT8;
  self->input.rank = 1;
  self->input.dims[0] = (gint64) ((pp.frame_bytes + 3) & ~(guint64) 3);
  self->input.size = (gsize) self->input.dims[0];
  g_free (self->input.data);
  self->input.data = g_malloc0 (self->input.size);
  gst_vkml_infer_set_geometry (self);
  self->negotiated = TRUE;
  GST_DEBUG_OBJECT (self, "video %s %ux%u into input %ux%u",
      GST_VIDEO_INFO_NAME (&vinfo), pp.width, pp.height,
      self->geometry.input_width, self->geometry.input_height);
  return TRUE;
}

/* Upstream may hand over frames with padded strides: they are read through their
 * GstVideoMeta. */
static gboolean
gst_vkml_infer_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
          decide_query, query))
    return FALSE;
  if (!gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL))
    gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  return TRUE;
}

/* Takes this frame's output buffers from the pools, mapped for writing. */
static gboolean
gst_vkml_infer_acquire_outputs (GstVkmlInfer * self)
{
  gsize i;

  for (i = 0; i < self->n_outputs; i++) {
    if (gst_buffer_pool_acquire_buffer (self->out_pools[i], &self->out_bufs[i],
            NULL) != GST_FLOW_OK)
      return FALSE;
    if (!gst_buffer_map (self->out_bufs[i], &self->out_maps[i],
            GST_MAP_WRITE)) {
      gst_clear_buffer (&self->out_bufs[i]);
      return FALSE;
    }
    self->outputs[i].data = self->out_maps[i].data;
  }
  return TRUE;
}

/* Unmaps the output buffers; when @meta is set, hands them to it. Drops them all. */
static void
gst_vkml_infer_release_outputs (GstVkmlInfer * self, GstVkmlTensorMeta * meta)
{
  gsize i;

  for (i = 0; i < self->n_outputs && self->out_bufs[i]; i++) {
    const vkml_tensor_info *info = vkml_session_output (self->session, i);

    gst_buffer_unmap (self->out_bufs[i], &self->out_maps[i]);
    self->outputs[i].data = NULL;
    if (meta)
      gst_vkml_tensor_meta_add (meta, info->name, info->dtype,
          (guint) info->rank, self->outputs[i].dims, self->out_bufs[i]);
    gst_clear_buffer (&self->out_bufs[i]);
  }
}

static gboolean
gst_vkml_infer_convert (GstVkmlInfer * self, GstBuffer * buf)
{
  return gst_vkml_frame_pack (&self->vinfo, buf, self->input.data,
      self->input.size);
}

/* Posts the error of a failed run. A lost device gets its own message naming it: its
 * sessions are dead, and restarting the pipeline (a new context) is the way back. */
static void
gst_vkml_infer_run_failed (GstVkmlInfer * self, const vkml_error * err)
{
  vkml_device_info info = { 0 };
  vkml_error ignored = { 0 };

  if (err->status != VKML_ERROR_DEVICE_LOST) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
        ("Running the model failed: %s", err->message), (NULL));
    return;
  }
  self->ctx_lost = TRUE;
  vkml_context_device_info (self->ctx, vkml_session_device (self->session),
      &info, &ignored);
  GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
      ("The device \"%s\" (device %d) was lost: %s", info.name,
          vkml_session_device (self->session), err->message),
      ("Restart the pipeline to open the devices again, or set 'device' to "
          "another device (-1 is the CPU)."));
}

/* Tensor mode: the buffer's memories are the inputs (one each, in order); they are
 * replaced by the outputs (and the meta carries them too). */
static GstFlowReturn
gst_vkml_infer_run_tensors (GstVkmlInfer * self, GstBuffer * buf)
{
  gsize i, n = vkml_session_input_count (self->session);
  vkml_tensor *inputs = g_new0 (vkml_tensor, n + 1);
  GstMapInfo *maps = g_new0 (GstMapInfo, n + 1);
  GstBuffer **outs = g_new0 (GstBuffer *, self->n_outputs + 1);
  GstFlowReturn ret = GST_FLOW_OK;
  vkml_error err = { 0 };
  gsize mapped = 0;
  vkml_status st;

  if (gst_buffer_n_memory (buf) != n) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("A tensor buffer has %u "
            "memories; the model takes %" G_GSIZE_FORMAT " inputs.",
            gst_buffer_n_memory (buf), n), (NULL));
    ret = GST_FLOW_ERROR;
    goto done;
  }
  for (i = 0; i < n; i++, mapped++) {
    const vkml_tensor_info *info = vkml_session_input (self->session, i);

    if (!gst_buffer_map_range (buf, (guint) i, 1, &maps[i], GST_MAP_READ))
      break;
    inputs[i].dtype = info->dtype;
    inputs[i].rank = info->rank;
    memcpy (inputs[i].dims, info->dims, sizeof (inputs[i].dims));
    inputs[i].data = maps[i].data;
    inputs[i].size = maps[i].size;
  }
  if (mapped != n || !gst_vkml_infer_acquire_outputs (self)) {
    gst_vkml_infer_release_outputs (self, NULL);
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not map a tensor buffer or get output buffers."), (NULL));
    ret = GST_FLOW_ERROR;
    goto done;
  }
  st = vkml_session_run (self->session, inputs, n, self->outputs,
      self->n_outputs, &err);
  if (st != VKML_OK) {
    gst_vkml_infer_release_outputs (self, NULL);
    gst_vkml_infer_run_failed (self, &err);
    ret = GST_FLOW_ERROR;
    goto done;
  }
  for (i = 0; i < self->n_outputs; i++)
    outs[i] = gst_buffer_ref (self->out_bufs[i]);
  for (i = 0; i < mapped; i++)
    gst_buffer_unmap (buf, &maps[i]);
  mapped = 0;
  gst_vkml_infer_release_outputs (self, gst_buffer_add_vkml_tensor_meta (buf));
  gst_buffer_remove_all_memory (buf);
  for (i = 0; i < self->n_outputs; i++) {
    gst_buffer_append_memory (buf, gst_buffer_get_all_memory (outs[i]));
    gst_buffer_unref (outs[i]);
  }
done:
  for (i = 0; i < mapped; i++)
    gst_buffer_unmap (buf, &maps[i]);
  g_free (inputs);
  g_free (maps);
  g_free (outs);
  return ret;
}

static GstFlowReturn
gst_vkml_infer_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstVkmlInfer *self = GST_VKML_INFER (trans);
  vkml_error err = { 0 };

  GstVkmlTensorMeta *meta;

  if (!self->negotiated)
    return GST_FLOW_NOT_NEGOTIATED;
  if (self->tensor_mode)
    return gst_vkml_infer_run_tensors (self, buf);
  if (!gst_vkml_infer_convert (self, buf)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map a video frame."),
        (NULL));
    return GST_FLOW_ERROR;
  }
  if (!gst_vkml_infer_acquire_outputs (self)) {
    gst_vkml_infer_release_outputs (self, NULL);
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not get buffers for the model's outputs."), (NULL));
    return GST_FLOW_ERROR;
  }
  if (vkml_session_run (self->session, &self->input, 1, self->outputs,
          self->n_outputs, &err) != VKML_OK) {
    gst_vkml_infer_release_outputs (self, NULL);
    gst_vkml_infer_run_failed (self, &err);
    return GST_FLOW_ERROR;
  }
  meta = gst_buffer_add_vkml_tensor_meta (buf);
  meta->has_geometry = TRUE;
  meta->geometry = self->geometry;
  gst_vkml_infer_release_outputs (self, meta);
  return GST_FLOW_OK;
}
