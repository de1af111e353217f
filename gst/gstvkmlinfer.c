/**
 * SECTION:element-vkmlinfer
 * @title: vkmlinfer
 *
 * Runs an ONNX model with libvkml (Vulkan compute, or vkml's CPU device) on every video
 * frame and attaches the model's outputs to the frame as a #GstVkmlTensorMeta. The
 * video passes through unchanged.
 *
 * Each frame is converted to the model's single image input: bilinear resize to its
 * height and width, RGB channel order (gray is replicated to 3 channels, RGB becomes
 * luma for 1-channel models), 8-bit values divided by 255 (so 0..1), NCHW or NHWC as
 * the model's input shape says.
 *
 * Runs go in flight (max-in-flight, default 2): each frame is submitted without waiting,
 * and a task on the src pad pushes the frames in arrival order as their runs end
 * (gstvkmlinflight.c). Serialized events wait for the frames before them; a flush drops
 * the held frames. inference-interval runs every Nth frame; frames downstream's QoS
 * reports late pass without inference. 'model' set while playing swaps at the next
 * frame.
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
#include "gstvkmlinflight.h"
#include "gstvkmltensormeta.h"

#include <gst/video/video.h>
#include <vkml/vkml.h>

GST_DEBUG_CATEGORY_STATIC (gst_vkml_infer_debug);
#define GST_CAT_DEFAULT gst_vkml_infer_debug
/* libvkml's own log, routed here through vkml_context_params.log_callback */
GST_DEBUG_CATEGORY_STATIC (gst_vkml_lib_debug);

#define DEFAULT_MODEL NULL
#define DEFAULT_DEVICE "default"
#define DEFAULT_BUDGET 0
#define DEFAULT_MODEL_ID NULL   /* the element's name */
#define DEFAULT_PRECISION VKML_PRECISION_FP32
#define DEFAULT_MAX_IN_FLIGHT 2
#define DEFAULT_INFERENCE_INTERVAL 1

enum
{
  PROP_0,
  PROP_MODEL,
  PROP_DEVICE,
  PROP_BUDGET,
  PROP_MODEL_ID,
  PROP_PRECISION,
  PROP_MAX_IN_FLIGHT,
  PROP_INFERENCE_INTERVAL,
  PROP_FRAMES_PROCESSED,
  PROP_FRAMES_SKIPPED_QOS,
  PROP_LATENCY_LAST_US,
  PROP_LATENCY_MEAN_US,
};

struct _GstVkmlInfer
{
  GstBaseTransform parent;

  /* properties, under the object lock */
  gchar *model_path;
  gchar *swap_path;             /* set while running: the model for the next frame */
  gchar *device;
  guint64 budget;
  gchar *model_id;              /* NULL: the element's name */
  gint precision;               /* a vkml_precision */
  guint max_in_flight;
  guint interval;

  /* statistics and QoS, under the object lock */
  guint64 frames_processed;
  guint64 frames_skipped_qos;
  guint64 latency_last_us;
  guint64 latency_sum_us;
  guint64 latency_reported_us;  /* the run latency the last LATENCY query added */
  gboolean latency_posted;      /* a LATENCY message went out since that query */
  GstClockTime qos_earliest;    /* running time before which frames are late */

  /* from the first start() to finalize(), or to the stop() after a device loss */
  vkml_context *ctx;
  gboolean ctx_lost;

  /* from start() to stop() */
  vkml_model *model;
  vkml_session *session;
  gsize n_outputs;
  vkml_tensor *outputs;         /* shapes, set once; each frame copies them */
  GstBufferPool **out_pools;    /* one per output: the tensors go downstream */
  guint session_lanes;          /* the session's runs_in_flight */

  /* frames between arrival and push, and the src pad task (gstvkmlinflight.h) */
  GstVkmlInflight inflight;
  GstPadActivateModeFunction base_src_activate;
  /* streaming thread */
  GstVkmlInflightFrame *pending;        /* arrived, not yet queued */
  guint64 frames_seen;          /* for inference-interval */

  /* from set_caps() */
  GstVkmlConverter *conv;
  GstVideoInfo vinfo;
  vkml_tensor input;            /* data: g_malloc'ed, reused every frame */
  GstCaps *refused_caps;        /* reported once, not again on each retry */
};

#define VIDEO_CAPS \
    GST_VIDEO_CAPS_MAKE ("{ GRAY8, RGB, BGR, RGBA, BGRA, RGBx, BGRx }")

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (VIDEO_CAPS));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (VIDEO_CAPS));

#define GST_TYPE_VKML_PRECISION (gst_vkml_precision_get_type ())
static GType
gst_vkml_precision_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {VKML_PRECISION_FP32, "float32, exact to ONNX", "fp32"},
    {VKML_PRECISION_FP32_FAST, "float32, faster math where the device allows",
        "fp32-fast"},
    {VKML_PRECISION_FP16, "float16 tensors and weights, float32 accumulation",
        "fp16"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstVkmlPrecision",
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
static gboolean gst_vkml_infer_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query);
static GstFlowReturn gst_vkml_infer_submit_input_buffer (GstBaseTransform *
    trans, gboolean is_discont, GstBuffer * input);
static GstFlowReturn gst_vkml_infer_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf);
static gboolean gst_vkml_infer_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static gboolean gst_vkml_infer_src_event (GstBaseTransform * trans,
    GstEvent * event);
static gboolean gst_vkml_infer_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);

#define STAT_FLAGS (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)

static void gst_vkml_infer_init_inflight (GstVkmlInfer * self);

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
          "Path of the ONNX model file to run (required). Set in PAUSED or "
          "PLAYING, the model is swapped at the next frame (the frames in "
          "flight finish on the old one); a model that fails to load is "
          "refused with a warning and the old one stays", DEFAULT_MODEL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_DEVICE,
      g_param_spec_string ("device", "Device",
          "Devices to plan the model over, in order of preference, as "
          "`vkml run --device` takes them: \"default\" (the fastest: every "
          "discrete or integrated GPU, the first one first, a model that fits "
          "it stays on it; with none, vkml's CPU device; lavapipe only by "
          "index), \"all\", \"cpu\" "
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
  g_object_class_install_property (gobject_class, PROP_MODEL_ID,
      g_param_spec_string ("model-id", "Model id",
          "Names the tensors' meta (GstVkmlTensorMeta model_id), so decoders "
          "downstream pick this model's outputs (default: the element's name)",
          DEFAULT_MODEL_ID, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_PRECISION,
      g_param_spec_enum ("precision", "Precision",
          "Arithmetic of the model: fp32 (exact), fp32-fast, or fp16 (float16 "
          "tensors and weights, float32 accumulation; outputs stay float32)",
          GST_TYPE_VKML_PRECISION, DEFAULT_PRECISION,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_MAX_IN_FLIGHT,
      g_param_spec_uint ("max-in-flight", "Max in flight",
          "Model runs that may be in flight at once: frame N+1 is converted "
          "and submitted while N's run goes on, and a task on the src pad "
          "pushes the frames in arrival order as their runs end; with this "
          "many runs in flight the next frame waits. 1: each frame is pushed "
          "before the next is taken", 1,
          VKML_MAX_RUNS_IN_FLIGHT, DEFAULT_MAX_IN_FLIGHT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_INFERENCE_INTERVAL,
      g_param_spec_uint ("inference-interval", "Inference interval",
          "Run the model on every Nth frame (the 1st, N+1th, ...); the frames "
          "between pass unchanged with no meta", 1, G_MAXUINT,
          DEFAULT_INFERENCE_INTERVAL, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_FRAMES_PROCESSED,
      g_param_spec_uint64 ("frames-processed", "Frames processed",
          "Frames the model ran on (they carry the meta) since the element "
          "was created", 0, G_MAXUINT64, 0, STAT_FLAGS));
  g_object_class_install_property (gobject_class, PROP_FRAMES_SKIPPED_QOS,
      g_param_spec_uint64 ("frames-skipped-qos", "Frames skipped for QoS",
          "Frames that passed without inference because downstream reported "
          "them late (QoS events; 'qos' property, on by default)", 0,
          G_MAXUINT64, 0, STAT_FLAGS));
  g_object_class_install_property (gobject_class, PROP_LATENCY_LAST_US,
      g_param_spec_uint64 ("latency-last-us", "Last latency",
          "Microseconds from the last run's submit to its completion", 0,
          G_MAXUINT64, 0, STAT_FLAGS));
  g_object_class_install_property (gobject_class, PROP_LATENCY_MEAN_US,
      g_param_spec_uint64 ("latency-mean-us", "Mean latency",
          "Mean of latency-last-us over every run so far (0 before the first)",
          0, G_MAXUINT64, 0, STAT_FLAGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "vkml inference", "Filter/Effect/Video",
      "Runs an ONNX model on video frames with libvkml (Vulkan) and attaches "
      "the output tensors as GstVkmlTensorMeta", "vkml developers");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_vkml_infer_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_vkml_infer_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_vkml_infer_set_caps);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_vkml_infer_propose_allocation);
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_vkml_infer_submit_input_buffer);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_vkml_infer_generate_output);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_vkml_infer_sink_event);
  trans_class->src_event = GST_DEBUG_FUNCPTR (gst_vkml_infer_src_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_vkml_infer_query);

  GST_DEBUG_CATEGORY_INIT (gst_vkml_infer_debug, "vkmlinfer", 0,
      "vkml inference element");
  GST_DEBUG_CATEGORY_INIT (gst_vkml_lib_debug, "vkml", 0,
      "libvkml's log (loading, planning, devices)");
}

static void
gst_vkml_infer_init (GstVkmlInfer * self)
{
  self->model_path = g_strdup (DEFAULT_MODEL);
  self->device = g_strdup (DEFAULT_DEVICE);
  self->budget = DEFAULT_BUDGET;
  self->precision = DEFAULT_PRECISION;
  self->max_in_flight = DEFAULT_MAX_IN_FLIGHT;
  self->interval = DEFAULT_INFERENCE_INTERVAL;
  self->qos_earliest = GST_CLOCK_TIME_NONE;
  gst_vkml_infer_init_inflight (self);
  /* Late frames pass without inference (see submit_input_buffer), never dropped. */
  gst_base_transform_set_qos_enabled (GST_BASE_TRANSFORM (self), TRUE);
  /* The video is never modified; buffers are only made writable for the meta. */
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), FALSE);
}

static void
gst_vkml_infer_finalize (GObject * object)
{
  GstVkmlInfer *self = GST_VKML_INFER (object);

  gst_vkml_inflight_finalize (&self->inflight);
  vkml_context_destroy (&self->ctx);
  g_free (self->model_path);
  g_free (self->swap_path);
  g_free (self->device);
  g_free (self->model_id);
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
      /* While running, the streaming thread swaps at its next frame. */
      if (GST_STATE (self) > GST_STATE_READY
          || GST_STATE_PENDING (self) > GST_STATE_READY) {
        g_free (self->swap_path);
        self->swap_path = g_value_dup_string (value);
        break;
      }
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
    case PROP_MODEL_ID:
      g_free (self->model_id);
      self->model_id = g_value_dup_string (value);
      break;
    case PROP_PRECISION:
      self->precision = g_value_get_enum (value);
      break;
    case PROP_MAX_IN_FLIGHT:
      self->max_in_flight = g_value_get_uint (value);
      break;
    case PROP_INFERENCE_INTERVAL:
      self->interval = g_value_get_uint (value);
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
    case PROP_MODEL_ID:
      g_value_set_string (value, self->model_id && *self->model_id ?
          self->model_id : GST_OBJECT_NAME (self));
      break;
    case PROP_PRECISION:
      g_value_set_enum (value, self->precision);
      break;
    case PROP_MAX_IN_FLIGHT:
      g_value_set_uint (value, self->max_in_flight);
      break;
    case PROP_INFERENCE_INTERVAL:
      g_value_set_uint (value, self->interval);
      break;
    case PROP_FRAMES_PROCESSED:
      g_value_set_uint64 (value, self->frames_processed);
      break;
    case PROP_FRAMES_SKIPPED_QOS:
      g_value_set_uint64 (value, self->frames_skipped_qos);
      break;
    case PROP_LATENCY_LAST_US:
      g_value_set_uint64 (value, self->latency_last_us);
      break;
    case PROP_LATENCY_MEAN_US:
      g_value_set_uint64 (value, self->frames_processed ?
          self->latency_sum_us / self->frames_processed : 0);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* The output shapes and pools of the session. */
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
  g_clear_pointer (&self->outputs, g_free);
  self->n_outputs = 0;
}

/* Frees everything start() and set_caps() made; safe on a partly started element. The
 * context stays for the next start (device discovery and pipeline compilation are the
 * costly part of a start, and some drivers keep a little memory per Vulkan instance for
 * good), unless a device was lost: then the next start opens the devices anew. */
static void
gst_vkml_infer_teardown (GstVkmlInfer * self)
{
  /* The queued frames went when the src pad was deactivated (before this stop). */
  g_clear_pointer (&self->pending, gst_vkml_inflight_frame_free);
  gst_vkml_infer_free_outputs (self);
  GST_OBJECT_LOCK (self);
  if (self->swap_path) {        /* set while running, never swapped: the next start's */
    g_free (self->model_path);
    self->model_path = g_steal_pointer (&self->swap_path);
  }
  GST_OBJECT_UNLOCK (self);
  g_clear_pointer (&self->conv, gst_vkml_converter_free);
  g_clear_pointer (&self->input.data, g_free);
  gst_clear_caps (&self->refused_caps);
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

/* libvkml's messages into the "vkml" debug category. */
static void
gst_vkml_infer_lib_log (G_GNUC_UNUSED void *user, vkml_log_level level,
    const char *message)
{
  static const GstDebugLevel levels[] = {
    [VKML_LOG_ERROR] = GST_LEVEL_ERROR,
    [VKML_LOG_WARN] = GST_LEVEL_WARNING,
    [VKML_LOG_INFO] = GST_LEVEL_INFO,
    [VKML_LOG_DEBUG] = GST_LEVEL_DEBUG,
  };

  if ((guint) level < G_N_ELEMENTS (levels))
    GST_CAT_LEVEL_LOG (gst_vkml_lib_debug, levels[level], NULL, "%s", message);
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

static gboolean
gst_vkml_infer_create_context (GstVkmlInfer * self)
{
  vkml_context_params params = {.log_callback = gst_vkml_infer_lib_log,
    .log_level = gst_vkml_infer_lib_log_level (),
    .log_level_set = TRUE
  };
  vkml_error err = { 0 };

  if (vkml_context_create (&params, &self->ctx, &err) != VKML_OK) {
    GST_ELEMENT_ERROR (self, LIBRARY, INIT,
        ("Could not initialise libvkml: %s", err.message), (NULL));
    return FALSE;
  }
  return TRUE;
}

static gboolean
gst_vkml_infer_load (GstVkmlInfer * self, const gchar * path,
    const gchar * device, guint64 budget, guint lanes)
{
  vkml_session_params params = {.device = VKML_DEVICE_DEFAULT,
    .device_budget = budget,.runs_in_flight = (int) lanes
  };
  int indices[VKML_MAX_SESSION_DEVICES];
  size_t n_devices;
  vkml_error err = { 0 };
  vkml_status st;
  size_t p;

  if (!self->ctx && !gst_vkml_infer_create_context (self))
    return FALSE;
  if (!gst_vkml_infer_parse_devices (self, device, indices, &n_devices))
    return FALSE;
  GST_OBJECT_LOCK (self);
  params.precision = (vkml_precision) self->precision;
  GST_OBJECT_UNLOCK (self);
  params.devices = n_devices ? indices : NULL;
  params.n_devices = n_devices;
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
  if (vkml_session_create (self->ctx, self->model, &params, &self->session,
          &err) != VKML_OK) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("Could not prepare the model \"%s\" on device %s: %s", path,
            device ? device : DEFAULT_DEVICE, err.message),
        ("Try another 'device' (cpu is vkml's CPU device) or 'budget'."));
    return FALSE;
  }
  self->session_lanes = lanes;
  GST_INFO_OBJECT (self, "model %s on device %d, %u run(s) in flight", path,
      vkml_session_device (self->session), lanes);
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

static gboolean
gst_vkml_infer_start (GstBaseTransform * trans)
{
  GstVkmlInfer *self = GST_VKML_INFER (trans);
  gchar *path, *device;
  guint64 budget;
  guint lanes;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  path = g_strdup (self->model_path);
  device = g_strdup (self->device);
  budget = self->budget;
  lanes = self->max_in_flight;
  self->qos_earliest = GST_CLOCK_TIME_NONE;
  GST_OBJECT_UNLOCK (self);
  self->frames_seen = 0;

  if (!path || !*path) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("No model set."),
        ("Set the 'model' property to an ONNX file."));
    g_free (path);
    g_free (device);
    return FALSE;
  }
  ok = gst_vkml_infer_load (self, path, device, budget, lanes)
      && gst_vkml_infer_prepare_outputs (self);
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

/* Why the model cannot take this video, or NULL when it can (then *shape is set). */
static gchar *
gst_vkml_infer_check_input (GstVkmlInfer * self, GstVkmlImageShape * shape)
{
  gsize n = vkml_model_input_count (self->model);
  gchar *why = NULL;

  if (n != 1)
    return g_strdup_printf ("the model has %" G_GSIZE_FORMAT " inputs; "
        "vkmlinfer feeds exactly one image input", n);
  if (!gst_vkml_image_shape_from_info (vkml_model_input (self->model, 0),
          shape, &why))
    return why;
  return NULL;
}

static void
gst_vkml_infer_set_input_tensor (GstVkmlInfer * self,
    const GstVkmlImageShape * shape)
{
  vkml_tensor *in = &self->input;
  gint64 c = shape->channels, h = shape->height, w = shape->width;
  gint64 nchw[4] = { 1, c, h, w }, nhwc[4] = { 1, h, w, c };

  in->dtype = VKML_DTYPE_FLOAT;
  in->rank = 4;
  memcpy (in->dims, shape->layout == GST_VKML_LAYOUT_NCHW ? nchw : nhwc,
      sizeof (nchw));
  in->size = gst_vkml_converter_output_count (self->conv) * sizeof (gfloat);
  g_free (in->data);
  in->data = g_malloc (in->size);
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
      ("The model's input %s cannot take video %" GST_PTR_FORMAT ": %s.",
          input, caps, why),
      ("vkmlinfer feeds float NCHW [1,C,H,W] or NHWC [1,H,W,C] inputs, "
          "C = 1 or 3."));
  g_free (input);
}

static gboolean
gst_vkml_infer_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    G_GNUC_UNUSED GstCaps * outcaps)
{
  GstVkmlInfer *self = GST_VKML_INFER (trans);
  GstVkmlImageShape shape;
  GstVkmlConverter *conv = NULL;
  GstVideoInfo vinfo;
  gchar *why = NULL;

  if (!gst_video_info_from_caps (&vinfo, incaps))
    why = g_strdup ("the caps are not valid video caps");
  if (!why)
    why = gst_vkml_infer_check_input (self, &shape);
  if (!why)
    conv = gst_vkml_converter_new (&vinfo, &shape, &why);
  if (!conv) {
    gst_vkml_infer_refuse_caps (self, incaps, why);
    g_free (why);
    return FALSE;
  }
  gst_vkml_converter_free (self->conv);
  self->conv = conv;
  self->vinfo = vinfo;
  gst_vkml_infer_set_input_tensor (self, &shape);
  GST_DEBUG_OBJECT (self, "input %s, %ux%u, %u channel(s)",
      shape.layout == GST_VKML_LAYOUT_NCHW ? "NCHW" : "NHWC", shape.width,
      shape.height, shape.channels);
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

/* Takes the frame's output buffers from the pools, mapped for writing. */
static gboolean
gst_vkml_infer_acquire_outputs (GstVkmlInfer * self,
    GstVkmlInflightFrame * frame)
{
  gsize i;

  for (i = 0; i < self->n_outputs; i++) {
    frame->outputs[i] = self->outputs[i];
    if (gst_buffer_pool_acquire_buffer (self->out_pools[i],
            &frame->out_bufs[i], NULL) != GST_FLOW_OK)
      return FALSE;
    if (!gst_buffer_map (frame->out_bufs[i], &frame->out_maps[i],
            GST_MAP_WRITE)) {
      gst_clear_buffer (&frame->out_bufs[i]);
      return FALSE;
    }
    frame->outputs[i].data = frame->out_maps[i].data;
  }
  return TRUE;
}

/* Unmaps the frame's output buffers and hands them to @meta. */
static void
gst_vkml_infer_release_outputs (GstVkmlInfer * self,
    GstVkmlInflightFrame * frame, GstVkmlTensorMeta * meta)
{
  gsize i;

  for (i = 0; i < frame->n_outputs && frame->out_bufs[i]; i++) {
    const vkml_tensor_info *info = vkml_session_output (self->session, i);

    gst_buffer_unmap (frame->out_bufs[i], &frame->out_maps[i]);
    frame->outputs[i].data = NULL;
    gst_vkml_tensor_meta_add (meta, info->name, info->dtype,
        (guint) info->rank, frame->outputs[i].dims, frame->out_bufs[i]);
    gst_clear_buffer (&frame->out_bufs[i]);
  }
}

/* The frame's outputs as its buffer's meta, named by model-id (and as GstTensorMeta on
 * GStreamer >= 1.26). */
static void
gst_vkml_infer_attach_meta (GstVkmlInfer * self, GstVkmlInflightFrame * frame)
{
  GstVkmlTensorMeta *meta;

  frame->buf = gst_buffer_make_writable (frame->buf);
  meta = gst_buffer_add_vkml_tensor_meta (frame->buf);
  gst_vkml_infer_release_outputs (self, frame, meta);
  GST_OBJECT_LOCK (self);
  gst_vkml_tensor_meta_set_model_id (meta, self->model_id && *self->model_id ?
      self->model_id : GST_OBJECT_NAME (self));
  GST_OBJECT_UNLOCK (self);
  gst_vkml_tensor_meta_attach_upstream (frame->buf, meta);
}

static gboolean
gst_vkml_infer_convert (GstVkmlInfer * self, GstBuffer * buf)
{
  GstVideoFrame frame;

  if (!gst_video_frame_map (&frame, &self->vinfo, buf, GST_MAP_READ))
    return FALSE;
  gst_vkml_converter_run (self->conv, &frame, self->input.data);
  gst_video_frame_unmap (&frame);
  return TRUE;
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

/* Whether downstream's last QoS event makes this frame late (see src_event). */
static gboolean
gst_vkml_infer_frame_is_late (GstVkmlInfer * self, GstBuffer * buf)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstClockTime running, earliest;

  if (!gst_base_transform_is_qos_enabled (trans)
      || trans->segment.format != GST_FORMAT_TIME
      || !GST_BUFFER_PTS_IS_VALID (buf))
    return FALSE;
  running = gst_segment_to_running_time (&trans->segment, GST_FORMAT_TIME,
      GST_BUFFER_PTS (buf));
  GST_OBJECT_LOCK (self);
  earliest = self->qos_earliest;
  GST_OBJECT_UNLOCK (self);
  return GST_CLOCK_TIME_IS_VALID (running) && GST_CLOCK_TIME_IS_VALID (earliest)
      && running <= earliest;
}

/* Whether this frame gets a run: every inference-interval-th frame that is not late. */
static gboolean
gst_vkml_infer_wants_run (GstVkmlInfer * self, GstBuffer * buf)
{
  guint interval;
  gboolean due;

  GST_OBJECT_LOCK (self);
  interval = MAX (self->interval, 1);
  GST_OBJECT_UNLOCK (self);
  due = self->frames_seen++ % interval == 0;
  if (!due || !gst_vkml_infer_frame_is_late (self, buf))
    return due;
  GST_OBJECT_LOCK (self);
  self->frames_skipped_qos++;
  GST_OBJECT_UNLOCK (self);
  GST_LOG_OBJECT (self, "frame %" GST_TIME_FORMAT " late: no inference",
      GST_TIME_ARGS (GST_BUFFER_PTS (buf)));
  return FALSE;
}

/* The new model and its session, built while the old one still runs; FALSE (a
 * warning posted, nothing changed) when it cannot be. */
static gboolean
gst_vkml_infer_build_swap (GstVkmlInfer * self, const gchar * path,
    vkml_model ** model, vkml_session ** session)
{
  vkml_session_params params = {.device = VKML_DEVICE_DEFAULT,
    .runs_in_flight = (int) self->session_lanes
  };
  int indices[VKML_MAX_SESSION_DEVICES];
  size_t n = 0;
  vkml_error err = { 0 };
  gchar *device;
  vkml_status st;

  GST_OBJECT_LOCK (self);
  device = g_strdup (self->device);
  params.device_budget = self->budget;
  params.precision = (vkml_precision) self->precision;
  GST_OBJECT_UNLOCK (self);
  /* the same text parsed at start: "default" leaves the set to libvkml */
  st = (!device || g_str_equal (device, "default") || g_str_equal (device, "-2"))
      ? VKML_OK : vkml_context_parse_devices (self->ctx,
      g_str_equal (device, "-1") ? "cpu" : device, indices,
      VKML_MAX_SESSION_DEVICES, &n, &err);
  params.devices = n ? indices : NULL;
  params.n_devices = n;
  if (st == VKML_OK)
    st = vkml_model_load_file (path, model, &err);
  if (st == VKML_OK)
    st = vkml_session_create (self->ctx, *model, &params, session, &err);
  g_free (device);
  if (st == VKML_OK)
    return TRUE;
  vkml_model_destroy (model);
  GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
      ("Could not swap to the model \"%s\" (%s): %s; the running model stays.",
          path, vkml_status_name (st), err.message), (NULL));
  return FALSE;
}

/* A 'model' set while running: the frames in flight finish on the old model, then the
 * new one (built first, so a bad file changes nothing) replaces it. */
static GstFlowReturn
gst_vkml_infer_swap_model (GstVkmlInfer * self)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  vkml_model *model = NULL;
  vkml_session *session = NULL;
  GstFlowReturn ret;
  GstCaps *caps;
  gchar *path;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  path = g_steal_pointer (&self->swap_path);
  GST_OBJECT_UNLOCK (self);
  if (!path)
    return GST_FLOW_OK;
  if (!gst_vkml_infer_build_swap (self, path, &model, &session)) {
    g_free (path);
    return GST_FLOW_OK;
  }
  ret = gst_vkml_inflight_drain (&self->inflight);
  if (ret != GST_FLOW_OK) {
    vkml_session_destroy (&session);
    vkml_model_destroy (&model);
    g_free (path);
    return ret;
  }
  gst_vkml_infer_free_outputs (self);
  vkml_session_destroy (&self->session);
  vkml_model_destroy (&self->model);
  self->model = model;
  self->session = session;
  GST_INFO_OBJECT (self, "swapped to model %s", path);
  GST_OBJECT_LOCK (self);
  g_free (self->model_path);
  self->model_path = path;
  GST_OBJECT_UNLOCK (self);
  if (!gst_vkml_infer_prepare_outputs (self))
    return GST_FLOW_ERROR;
  /* the input conversion for the new model's input (a negotiation error if it cannot
   * take this video) */
  caps = gst_pad_get_current_caps (GST_BASE_TRANSFORM_SINK_PAD (trans));
  ok = caps && gst_vkml_infer_set_caps (trans, caps, NULL);
  gst_clear_caps (&caps);
  if (!ok)
    g_clear_pointer (&self->conv, gst_vkml_converter_free);
  return ok ? GST_FLOW_OK : GST_FLOW_NOT_NEGOTIATED;
}

/* The frame arrives (after a pending model swap): generate_output queues it. */
static GstFlowReturn
gst_vkml_infer_submit_input_buffer (GstBaseTransform * trans,
    G_GNUC_UNUSED gboolean is_discont, GstBuffer * input)
{
  GstVkmlInfer *self = GST_VKML_INFER (trans);
  GstFlowReturn ret = gst_vkml_infer_swap_model (self);

  if (ret != GST_FLOW_OK || !self->conv) {
    gst_buffer_unref (input);
    return ret != GST_FLOW_OK ? ret : GST_FLOW_NOT_NEGOTIATED;
  }
  g_assert (!self->pending);
  self->pending = gst_vkml_inflight_frame_new (input, self->n_outputs);
  self->pending->wants_run = gst_vkml_infer_wants_run (self, input);
  return GST_FLOW_OK;
}

/* Converts the frame and submits its run; the frame then owns the input data. */
static GstFlowReturn
gst_vkml_infer_submit_run (GstVkmlInfer * self, GstVkmlInflightFrame * frame)
{
  vkml_error err = { 0 };

  if (!gst_vkml_infer_convert (self, frame->buf)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map a video frame."),
        (NULL));
    return GST_FLOW_ERROR;
  }
  if (!gst_vkml_infer_acquire_outputs (self, frame)) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not get buffers for the model's outputs."), (NULL));
    return GST_FLOW_ERROR;
  }
  frame->submit_us = g_get_monotonic_time ();
  if (vkml_session_submit (self->session, &self->input, 1, frame->outputs,
          frame->n_outputs, gst_vkml_inflight_frame_completed, frame,
          &frame->run, &err) != VKML_OK) {
    gst_vkml_infer_run_failed (self, &err);
    return GST_FLOW_ERROR;
  }
  /* The run reads its input until it ends: the frame keeps it, the next frame gets a
   * new one. */
  frame->input = self->input.data;
  self->input.data = g_malloc (self->input.size);
  return GST_FLOW_OK;
}

/* Records a finished run's latency; posts a LATENCY message (once until the next query)
 * when the mean run latency moved far from the one the last LATENCY query reported (the
 * pipeline asks again). */
static void
gst_vkml_infer_count_run (GstVkmlInfer * self, GstVkmlInflightFrame * frame)
{
  gint64 done = frame->done_us ? frame->done_us : g_get_monotonic_time ();
  guint64 us = (guint64) MAX (done - frame->submit_us, 0), mean, reported;
  gboolean post;

  GST_OBJECT_LOCK (self);
  self->latency_last_us = us;
  self->latency_sum_us += us;
  self->frames_processed++;
  mean = self->latency_sum_us / self->frames_processed;
  reported = self->latency_reported_us;
  post = !self->latency_posted
      && (mean > reported + reported / 2 || mean < reported / 2);
  self->latency_posted |= post;
  GST_OBJECT_UNLOCK (self);
  if (post)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_latency (GST_OBJECT (self)));
}

/* The frame's run is over (or waited for here): its buffer, with the meta, to push.
 * The src pad task calls it (a GstVkmlInflightFinish). */
static GstFlowReturn
gst_vkml_infer_finish_frame (gpointer user, GstVkmlInflightFrame * frame,
    GstBuffer ** outbuf)
{
  GstVkmlInfer *self = user;
  vkml_error err = { 0 };
  GstFlowReturn ret = GST_FLOW_OK;

  if (frame->run) {
    if (vkml_run_wait (&frame->run, &err) != VKML_OK) {
      gst_vkml_infer_run_failed (self, &err);
      ret = GST_FLOW_ERROR;
    } else {
      gst_vkml_infer_attach_meta (self, frame);
      gst_vkml_infer_count_run (self, frame);
    }
  }
  if (ret == GST_FLOW_OK) {
    *outbuf = frame->buf;
    frame->buf = NULL;
  }
  return ret;
}

/* Queues the arrived frame (with its run submitted, once a lane is free); the src pad
 * task pushes it. Gives no buffer here. */
static GstFlowReturn
gst_vkml_infer_generate_output (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  GstVkmlInfer *self = GST_VKML_INFER (trans);
  GstVkmlInflightFrame *frame = self->pending;
  GstFlowReturn ret;

  *outbuf = NULL;
  if (!frame)
    return GST_FLOW_OK;
  self->pending = NULL;
  ret = gst_vkml_inflight_wait_room (&self->inflight, frame->wants_run,
      self->session_lanes);
  if (ret == GST_FLOW_OK && frame->wants_run)
    ret = gst_vkml_infer_submit_run (self, frame);
  if (ret != GST_FLOW_OK) {
    gst_vkml_inflight_frame_free (frame);
    return ret;
  }
  ret = gst_vkml_inflight_push (&self->inflight, frame);
  /* One in flight: the frame is out before the next is taken, and the push's result
   * goes upstream with this frame. */
  if (ret == GST_FLOW_OK && self->session_lanes == 1)
    ret = gst_vkml_inflight_drain (&self->inflight);
  return ret;
}

/* Serialized events (EOS, segment, caps, gap ...) go out after the frames before them;
 * a flush drops the held frames. */
static gboolean
gst_vkml_infer_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstVkmlInfer *self = GST_VKML_INFER (trans);
  GstEventType type = GST_EVENT_TYPE (event);
  gboolean ok;

  if (type != GST_EVENT_FLUSH_STOP && GST_EVENT_IS_SERIALIZED (event)) {
    GstFlowReturn ret = gst_vkml_inflight_drain (&self->inflight);

    if (ret != GST_FLOW_OK)
      GST_DEBUG_OBJECT (self, "drained before %" GST_PTR_FORMAT ": %s", event,
          gst_flow_get_name (ret));
  }
  ok = GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
  if (type == GST_EVENT_FLUSH_START) {
    /* after forwarding it: a push downstream now returns, and the task pauses */
    gst_vkml_inflight_flush_start (&self->inflight);
  } else if (type == GST_EVENT_FLUSH_STOP) {
    gst_vkml_inflight_flush_stop (&self->inflight);
    g_clear_pointer (&self->pending, gst_vkml_inflight_frame_free);
    GST_OBJECT_LOCK (self);
    self->qos_earliest = GST_CLOCK_TIME_NONE;
    GST_OBJECT_UNLOCK (self);
  }
  return ok;
}

/* The src pad's task lives while the pad is active. */
static gboolean
gst_vkml_infer_src_activate_mode (GstPad * pad, GstObject * parent,
    GstPadMode mode, gboolean active)
{
  GstVkmlInfer *self = GST_VKML_INFER (parent);

  if (active)
    gst_vkml_inflight_flush_stop (&self->inflight);
  else
    gst_vkml_inflight_stop (&self->inflight);
  return self->base_src_activate (pad, parent, mode, active);
}

static void
gst_vkml_infer_init_inflight (GstVkmlInfer * self)
{
  GstPad *srcpad = GST_BASE_TRANSFORM_SRC_PAD (self);

  gst_vkml_inflight_init (&self->inflight, srcpad, gst_vkml_infer_finish_frame,
      self);
  self->base_src_activate = GST_PAD_ACTIVATEMODEFUNC (srcpad);
  gst_pad_set_activatemode_function (srcpad,
      GST_DEBUG_FUNCPTR (gst_vkml_infer_src_activate_mode));
}

/* QoS: a frame whose running time is at or before timestamp + diff of downstream's
 * last QoS event is late (as GstBaseTransform judges it, which would drop it). */
static gboolean
gst_vkml_infer_src_event (GstBaseTransform * trans, GstEvent * event)
{
  GstVkmlInfer *self = GST_VKML_INFER (trans);

  if (GST_EVENT_TYPE (event) == GST_EVENT_QOS) {
    GstClockTimeDiff diff;
    GstClockTime timestamp;

    gst_event_parse_qos (event, NULL, NULL, &diff, &timestamp);
    GST_OBJECT_LOCK (self);
    if (diff >= 0 || (GstClockTime) (-diff) <= timestamp)
      self->qos_earliest = timestamp + diff;
    GST_OBJECT_UNLOCK (self);
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->src_event (trans, event);
}

/* The latency the element adds: a frame leaves as soon as its run is over, so a frame
 * takes the mean run latency (measured from submit to completion, with the other runs in
 * flight; 0 before the first run: the element then posts a LATENCY message). It may
 * hold up to max-in-flight frames, each that long: the most it can add. */
static void
gst_vkml_infer_added_latency (GstVkmlInfer * self, GstClockTime * min,
    GstClockTime * max)
{
  GST_OBJECT_LOCK (self);
  self->latency_reported_us = self->frames_processed ?
      self->latency_sum_us / self->frames_processed : 0;
  self->latency_posted = FALSE;
  *min = self->latency_reported_us * GST_USECOND;
  *max = *min * self->max_in_flight;
  GST_OBJECT_UNLOCK (self);
}

static gboolean
gst_vkml_infer_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstVkmlInfer *self = GST_VKML_INFER (trans);
  GstClockTime min, max, our_min, our_max;
  gboolean live;

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction, query))
    return FALSE;
  if (direction != GST_PAD_SRC || GST_QUERY_TYPE (query) != GST_QUERY_LATENCY)
    return TRUE;
  gst_query_parse_latency (query, &live, &min, &max);
  gst_vkml_infer_added_latency (self, &our_min, &our_max);
  GST_DEBUG_OBJECT (self, "adding %" GST_TIME_FORMAT " of latency (at most %"
      GST_TIME_FORMAT ")", GST_TIME_ARGS (our_min), GST_TIME_ARGS (our_max));
  gst_query_set_latency (query, live, min + our_min,
      GST_CLOCK_TIME_IS_VALID (max) ? max + our_max : max);
  return TRUE;
}
