/**
 * SECTION:element-vkmlinfer
 * @title: vkmlinfer
 *
 * Runs an ONNX model with libvkml (Vulkan compute, or vkml's CPU device) on every video
 * frame and attaches the model's outputs to the frame as a #GstVkmlTensorMeta. The
 * video passes through unchanged.
 *
 * Each frame (8- and 10-bit YUV 4:2:0, 4:2:2 and 4:4:4, GRAY8 or packed 8-bit RGB, any
 * size and stride, no videoconvert needed) is turned into the model's single image
 * input by one kernel on the model's device (libvkml's pre-processing, see docs/element.md): colour
 * conversion, resize (stretch, letterbox or crop), channel order, (x * scale - mean) /
 * std, NCHW or NHWC and the input's dtype (float, float16, uint8). A symbolic batch is
 * bound to 'batch-size' (frames per run, gstvkmlinferbatch.c), symbolic height and width
 * to 'input-size' or the video's size; a new video size plans the model again. The
 * model's other inputs are constants from 'input-tensors' (gstvkmlinferinputs.c).
 *
 * Runs go in flight (max-in-flight, default 2): each frame is submitted without waiting,
 * and a task on the src pad pushes the frames in arrival order as their runs end
 * (gstvkmlinflight.c). Serialized events wait for the frames before them; a flush drops
 * the held frames. inference-interval runs every Nth frame; frames downstream's QoS
 * reports late pass without inference. 'model' set while playing is loaded and planned
 * on a worker thread, and swapped in at the first frame after it is ready
 * (gstvkmlinferswap.c).
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

#include "gstvkmlinferpriv.h"
#include "gstvkmltensormeta.h"
#include "gstvkmltensorcaps.h"

#include <gst/video/video.h>
#include <vkml/vkml.h>

#include <string.h>

GST_DEBUG_CATEGORY (gst_vkml_infer_debug);
#define GST_CAT_DEFAULT gst_vkml_infer_debug

#define DEFAULT_MODEL NULL
#define DEFAULT_DEVICE "default"
#define DEFAULT_BUDGET 0
#define DEFAULT_DATA_PARALLEL FALSE
#define DEFAULT_MODEL_ID NULL   /* the element's name */
#define DEFAULT_PRECISION VKML_PRECISION_FP32
#define DEFAULT_MAX_IN_FLIGHT 2
#define DEFAULT_INFERENCE_INTERVAL 1
#define DEFAULT_RESIZE VKML_RESIZE_STRETCH
#define DEFAULT_PAD_VALUE 0.0
#define DEFAULT_CHANNEL_ORDER 0
#define DEFAULT_SCALE 0.0
#define DEFAULT_MEAN "0"
#define DEFAULT_STD "1"
#define DEFAULT_INPUT_SIZE NULL
#define DEFAULT_BATCH_SIZE 1
#define DEFAULT_INPUT_TENSORS NULL
#define DEFAULT_INSTANCE_ID NULL
#define DEFAULT_BATCH_TIMEOUT 0 /* microseconds */

enum
{
  PROP_0,
  PROP_MODEL,
  PROP_DEVICE,
  PROP_BUDGET,
  PROP_DATA_PARALLEL,
  PROP_MODEL_ID,
  PROP_PRECISION,
  PROP_CPU_THREADS,
  PROP_MAX_IN_FLIGHT,
  PROP_INFERENCE_INTERVAL,
  PROP_FRAMES_PROCESSED,
  PROP_FRAMES_SKIPPED_QOS,
  PROP_LATENCY_LAST_US,
  PROP_LATENCY_MEAN_US,
  PROP_POOL_BUFFERS,
  PROP_RESIZE,
  PROP_PAD_VALUE,
  PROP_CHANNEL_ORDER,
  PROP_SCALE,
  PROP_MEAN,
  PROP_STD,
  PROP_INPUT_SIZE,
  PROP_BATCH_SIZE,
  PROP_INPUT_TENSORS,
  PROP_INSTANCE_ID,
  PROP_BATCH_TIMEOUT,
  PROP_INSTANCE_FRAMES_PER_RUN,
  PROP_CONFIG,
  PROP_ROI_FIRST,               /* roi, object-class, min-object-size,
                                 * reclassify-interval (gstvkmlinferroi.c) */
};


#define VIDEO_CAPS GST_VIDEO_CAPS_MAKE (GST_VKML_VIDEO_FORMATS)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (VIDEO_CAPS "; " GST_VKML_TENSOR_CAPS));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (VIDEO_CAPS "; " GST_VKML_TENSOR_CAPS));

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
static gboolean gst_vkml_infer_accept_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps);

#define STAT_FLAGS (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)


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
          "PLAYING, the new model is loaded and planned on a worker thread "
          "while frames keep running on the old one, and takes over at the "
          "first frame after it is ready (the frames in flight finish on the "
          "old one); a model that fails to load is refused with a warning "
          "and the old one stays", DEFAULT_MODEL,
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
  g_object_class_install_property (gobject_class, PROP_DATA_PARALLEL,
      g_param_spec_boolean ("data-parallel", "Data parallel",
          "With several GPUs in 'device': a copy of the model on each, the "
          "frames going to them in turn, instead of one plan over them (which "
          "splits the model only where it fits no one GPU). For throughput: "
          "max-in-flight is rounded up to a multiple of the GPU count, and that "
          "many frames are kept in flight", DEFAULT_DATA_PARALLEL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
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
  g_object_class_install_property (gobject_class, PROP_CPU_THREADS,
      g_param_spec_uint ("cpu-threads", "CPU threads",
          "Threads each node the CPU device runs may use at once (its oneDNN "
          "and C kernels alike): vkml_session_params.cpu_threads. 0: every core the "
          "process may run on", 0, VKML_MAX_CPU_THREADS, 0,
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
  g_object_class_install_property (gobject_class, PROP_POOL_BUFFERS,
      g_param_spec_uint ("pool-buffers", "Pool buffers",
          "Buffers the current plan's pools made for the frames' packed bytes "
          "and output tensors; they are recycled, so this stops growing once "
          "max-in-flight frames (and the ones downstream holds) are out. 0: "
          "nothing planned", 0, G_MAXUINT, 0, STAT_FLAGS));
  g_object_class_install_property (gobject_class, PROP_LATENCY_LAST_US,
      g_param_spec_uint64 ("latency-last-us", "Last latency",
          "Microseconds from the last run's submit to its completion", 0,
          G_MAXUINT64, 0, STAT_FLAGS));
  g_object_class_install_property (gobject_class, PROP_LATENCY_MEAN_US,
      g_param_spec_uint64 ("latency-mean-us", "Mean latency",
          "Mean of latency-last-us over every run so far (0 before the first)",
          0, G_MAXUINT64, 0, STAT_FLAGS));
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
  gst_vkml_infer_roi_install_properties (gobject_class, PROP_ROI_FIRST);

  g_object_class_install_property (gobject_class, PROP_BATCH_SIZE,
      g_param_spec_uint ("batch-size", "Batch size",
          "Frames per model run, for a model whose input 0 has a symbolic "
          "batch: N frames are collected and run as one, each leaving with its "
          "slice of the outputs; a partial batch runs at EOS, caps or other "
          "serialized events. A model with a fixed batch N runs N frames per "
          "run when this is 1, and refuses another value", 1,
          GST_VKML_MAX_BATCH, DEFAULT_BATCH_SIZE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_INPUT_TENSORS,
      g_param_spec_string ("input-tensors", "Input tensors",
          "The model's inputs other than the image (input 0), as constant "
          "TensorProto files: \"name=file.pb,name2=file2.pb\"; each must fit "
          "its input's declared type and shape", DEFAULT_INPUT_TENSORS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_CONFIG,
      g_param_spec_string ("config", "Config",
          "The model bundle: a JSON file with the input's pre-processing, the "
          "labels and the output decoder's settings (docs/element.md), which "
          "vkmlclassify and vkmldetect read too; properties set on the "
          "elements override it. Default: the model's path with .json for "
          ".onnx, when that file exists", NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_INSTANCE_ID,
      g_param_spec_string ("model-instance-id", "Model instance id",
          "Elements of one process with the same id share one loaded model "
          "and one session per input format, and their frames are batched "
          "together (up to batch-size frames per run, from any of them; each "
          "frame's outputs return to its own stream in order). The first "
          "element defines the instance (model, device, budget, "
          "data-parallel, precision, cpu-threads, batch-size, batch-timeout, "
          "input-tensors, and its max-in-flight the batches in flight); an "
          "element asking for others is refused. NULL: a model of its own",
          DEFAULT_INSTANCE_ID, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_BATCH_TIMEOUT,
      g_param_spec_uint64 ("batch-timeout", "Batch timeout",
          "With model-instance-id: microseconds a partial batch may wait for "
          "more frames while another batch of its session runs, from its "
          "oldest frame (an idle GPU takes a partial batch at once). 0: a "
          "partial batch runs as soon as a lane is free", 0,
          VKML_BATCHER_MAX_TIMEOUT_US,
          DEFAULT_BATCH_TIMEOUT, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_INSTANCE_FRAMES_PER_RUN,
      g_param_spec_double ("instance-frames-per-run", "Instance frames per run",
          "With model-instance-id: the mean frames per model run of the "
          "instance's session this element uses, over all its streams so far "
          "(batch-size when batches are full; 0: no run yet, or no instance)",
          0, G_MAXDOUBLE, 0, STAT_FLAGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "vkml inference", "Filter/Analyzer/Video",
      "Runs an ONNX model on video frames with libvkml (Vulkan) and attaches "
      "the output tensors as GstVkmlTensorMeta", "vkml developers");

  element_class->set_context = GST_DEBUG_FUNCPTR (gst_vkml_infer_set_context);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_vkml_infer_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_vkml_infer_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_vkml_infer_set_caps);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_vkml_infer_transform_caps);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_vkml_infer_propose_allocation);
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_vkml_infer_submit_input_buffer);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_vkml_infer_generate_output);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_vkml_infer_sink_event);
  trans_class->src_event = GST_DEBUG_FUNCPTR (gst_vkml_infer_src_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_vkml_infer_query);
  trans_class->accept_caps = GST_DEBUG_FUNCPTR (gst_vkml_infer_accept_caps);

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
  self->data_parallel = DEFAULT_DATA_PARALLEL;
  self->precision = DEFAULT_PRECISION;
  self->max_in_flight = DEFAULT_MAX_IN_FLIGHT;
  self->interval = DEFAULT_INFERENCE_INTERVAL;
  self->batch_size = DEFAULT_BATCH_SIZE;
  self->batch_timeout_us = DEFAULT_BATCH_TIMEOUT;
  self->qos_earliest = GST_CLOCK_TIME_NONE;
  g_mutex_init (&self->plan_lock);
  gst_vkml_infer_swap_init (&self->swap);
  gst_vkml_infer_init_inflight (self);
  /* Late frames pass without inference (see submit_input_buffer), never dropped. */
  gst_base_transform_set_qos_enabled (GST_BASE_TRANSFORM (self), TRUE);
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

  gst_vkml_inflight_finalize (&self->inflight);
  g_mutex_clear (&self->plan_lock);
  gst_vkml_infer_swap_finalize (&self->swap);
  gst_vkml_infer_release_context (self, FALSE);
  g_free (self->model_path);
  g_free (self->instance_id);
  g_free (self->swap_path);
  g_free (self->device);
  g_free (self->model_id);
  gst_vkml_infer_roi_clear (&self->roi);
  g_free (self->mean);
  g_free (self->std);
  g_free (self->input_size);
  g_free (self->input_tensors);
  g_free (self->config);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* A property read at start (GST_PARAM_MUTABLE_READY) set in PAUSED or PLAYING would
 * change nothing until the next start: refused with a warning instead. */
static gboolean
gst_vkml_infer_refuse_running (GstVkmlInfer * self, GParamSpec * pspec)
{
  GstState state;

  if (!(pspec->flags & GST_PARAM_MUTABLE_READY))
    return FALSE;
  GST_OBJECT_LOCK (self);
  state = MAX (GST_STATE (self), GST_STATE_PENDING (self));
  GST_OBJECT_UNLOCK (self);
  if (state < GST_STATE_PAUSED)
    return FALSE;
  GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("'%s' cannot change while the "
          "element is %s: it is read at start; the value stays.",
          g_param_spec_get_name (pspec), gst_element_state_get_name (state)),
      ("Set it in NULL or READY."));
  return TRUE;
}

static void
gst_vkml_infer_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstVkmlInfer *self = GST_VKML_INFER (object);

  if (gst_vkml_infer_refuse_running (self, pspec))
    return;
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
    case PROP_DATA_PARALLEL:
      self->data_parallel = g_value_get_boolean (value);
      break;
    case PROP_MODEL_ID:
      g_free (self->model_id);
      self->model_id = g_value_dup_string (value);
      break;
    case PROP_PRECISION:
      self->precision = g_value_get_enum (value);
      break;
    case PROP_CPU_THREADS:
      self->cpu_threads = g_value_get_uint (value);
      break;
    case PROP_MAX_IN_FLIGHT:
      self->max_in_flight = g_value_get_uint (value);
      break;
    case PROP_INFERENCE_INTERVAL:
      self->interval = g_value_get_uint (value);
      break;
    case PROP_RESIZE:
      self->pre.resize = g_value_get_enum (value);
      self->pre_set |= GST_VKML_BUNDLE_RESIZE;
      break;
    case PROP_PAD_VALUE:
      self->pre.pad_value = (gfloat) g_value_get_double (value);
      self->pre_set |= GST_VKML_BUNDLE_PAD_VALUE;
      break;
    case PROP_CHANNEL_ORDER:
      self->pre.bgr = g_value_get_enum (value) == 1;
      self->pre_set |= GST_VKML_BUNDLE_CHANNEL_ORDER;
      break;
    case PROP_SCALE:
      self->pre.scale = (gfloat) g_value_get_double (value);
      self->pre_set |= GST_VKML_BUNDLE_SCALE;
      break;
    case PROP_MEAN:
      g_free (self->mean);
      self->mean = g_value_dup_string (value);
      self->pre_set |= GST_VKML_BUNDLE_MEAN;
      break;
    case PROP_STD:
      g_free (self->std);
      self->std = g_value_dup_string (value);
      self->pre_set |= GST_VKML_BUNDLE_STD;
      break;
    case PROP_CONFIG:
      g_free (self->config);
      self->config = g_value_dup_string (value);
      break;
    case PROP_INPUT_SIZE:
      g_free (self->input_size);
      self->input_size = g_value_dup_string (value);
      break;
    case PROP_BATCH_SIZE:
      self->batch_size = g_value_get_uint (value);
      break;
    case PROP_INPUT_TENSORS:
      g_free (self->input_tensors);
      self->input_tensors = g_value_dup_string (value);
      break;
    case PROP_INSTANCE_ID:
      g_free (self->instance_id);
      self->instance_id = g_value_dup_string (value);
      break;
    case PROP_BATCH_TIMEOUT:
      self->batch_timeout_us = g_value_get_uint64 (value);
      break;
    default:
      if (!gst_vkml_infer_roi_set_property (&self->roi,
              prop_id - PROP_ROI_FIRST, value))
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

  if (prop_id == PROP_POOL_BUFFERS) {   /* the plan, not the object lock */
    g_mutex_lock (&self->plan_lock);
    g_value_set_uint (value,
        (guint) g_atomic_int_get (&self->plan.pool_buffers));
    g_mutex_unlock (&self->plan_lock);
    return;
  }
  if (prop_id == PROP_INSTANCE_FRAMES_PER_RUN) {
    vkml_batcher_stats stats = { 0 };

    g_mutex_lock (&self->plan_lock);
    if (self->plan.batcher)
      vkml_batcher_get_stats (self->plan.batcher, &stats);
    g_mutex_unlock (&self->plan_lock);
    g_value_set_double (value, stats.batches ?
        (gdouble) stats.items / (gdouble) stats.batches : 0.0);
    return;
  }
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
    case PROP_DATA_PARALLEL:
      g_value_set_boolean (value, self->data_parallel);
      break;
    case PROP_MODEL_ID:
      g_value_set_string (value, self->model_id && *self->model_id ?
          self->model_id : GST_OBJECT_NAME (self));
      break;
    case PROP_PRECISION:
      g_value_set_enum (value, self->precision);
      break;
    case PROP_CPU_THREADS:
      g_value_set_uint (value, self->cpu_threads);
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
    case PROP_BATCH_SIZE:
      g_value_set_uint (value, self->batch_size);
      break;
    case PROP_INPUT_TENSORS:
      g_value_set_string (value, self->input_tensors);
      break;
    case PROP_CONFIG:
      g_value_set_string (value, self->config);
      break;
    case PROP_INSTANCE_ID:
      g_value_set_string (value, self->instance_id);
      break;
    case PROP_BATCH_TIMEOUT:
      g_value_set_uint64 (value, self->batch_timeout_us);
      break;
    default:
      if (!gst_vkml_infer_roi_get_property (&self->roi,
              prop_id - PROP_ROI_FIRST, value))
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
gst_vkml_infer_teardown (GstVkmlInfer * self)
{
  gchar *pending;

  /* The queued frames went when the src pad was deactivated (before this stop). */
  g_clear_pointer (&self->pending, gst_vkml_inflight_frame_free);
  gst_vkml_infer_batch_drop (self);
  gst_vkml_infer_roi_stop (&self->roi);
  pending = gst_vkml_infer_swap_stop (self);
  GST_OBJECT_LOCK (self);
  /* set while running, never swapped (the newest): the next start's model */
  if (self->swap_path || pending) {
    g_free (self->model_path);
    self->model_path = self->swap_path ? g_steal_pointer (&self->swap_path)
        : g_steal_pointer (&pending);
  }
  GST_OBJECT_UNLOCK (self);
  g_free (pending);
  g_mutex_lock (&self->plan_lock);
  gst_vkml_infer_plan_clear (&self->plan);
  gst_vkml_infer_plan_clear (&self->probe);
  vkml_model_destroy (&self->model);
  g_mutex_unlock (&self->plan_lock);
  gst_vkml_instance_release (g_steal_pointer (&self->instance));
  gst_vkml_infer_settings_clear (&self->set);
  GST_OBJECT_LOCK (self);
  g_clear_pointer (&self->bundle, gst_vkml_bundle_free);
  GST_OBJECT_UNLOCK (self);
  gst_clear_caps (&self->refused_caps);
  if (self->ctx_lost)
    gst_vkml_infer_release_context (self, TRUE);
  self->ctx_lost = FALSE;
}

/* Posts why the model at @path did not load (st is not VKML_OK); returns FALSE. */
static gboolean
gst_vkml_infer_load_failed (GstVkmlInfer * self, const gchar * path,
    vkml_status st, const vkml_error * err)
{
  if (st == VKML_ERROR_IO) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("Could not read the model file \"%s\": %s", path, err->message),
        ("Check the 'model' property."));
  } else {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("Could not load the model \"%s\" (%s): %s", path,
            vkml_status_name (st), err->message), (NULL));
  }
  return FALSE;
}

static gboolean
gst_vkml_infer_load (GstVkmlInfer * self, const gchar * path,
    vkml_model ** model)
{
  vkml_error err = { 0 };
  vkml_status st = gst_vkml_load_model (self, path, model, &err);

  return st == VKML_OK || gst_vkml_infer_load_failed (self, path, st, &err);
}

/* model-instance-id: joins the instance (made, its model loaded, if it is the first
 * element), whose model becomes the element's (a reference); FALSE: error posted. */
static gboolean
gst_vkml_infer_join_instance (GstVkmlInfer * self, const gchar * id,
    const gchar * path, vkml_model ** model)
{
  GstVkmlInstanceKey key = {.model_path = path,.set = &self->set };
  vkml_error err = { 0 };
  gchar *why = NULL;
  guint generation;

  if (self->set.roi_objects) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("roi=objects runs the model "
            "once per object on the element's own session: it cannot share "
            "model instance \"%s\".", id), ("Unset model-instance-id."));
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  key.input_tensors = self->input_tensors;
  self->instance = gst_vkml_instance_acquire (id, &key, self->shared_ctx, &err,
      &why);
  GST_OBJECT_UNLOCK (self);
  if (!self->instance && why) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("Cannot join model instance "
            "\"%s\": %s.", id, why), ("Elements sharing a model-instance-id "
            "must ask for the same model, devices and batching."));
    g_free (why);
    return FALSE;
  }
  if (!self->instance)
    return gst_vkml_infer_load_failed (self, path, err.status, &err);
  self->set.instance = self->instance;
  *model = gst_vkml_instance_take_model (self->instance, &generation);
  GST_INFO_OBJECT (self, "joined model instance \"%s\" (%u element(s) on it)",
      id, gst_vkml_instance_users (self->instance));
  return TRUE;
}

/* The plan, for the debug log: which device runs which nodes, what crosses. */
void
gst_vkml_infer_log_plan (GstVkmlInfer * self)
{
  vkml_session *session = self->plan.session;
  int replicas[VKML_MAX_SESSION_DEVICES];
  int n_replicas;
  size_t p;

  if (!session)
    return;
  GST_INFO_OBJECT (self, "planned for %" GST_PTR_FORMAT ": device %d, %u "
      "run(s) in flight", self->plan.caps, vkml_session_device (session),
      self->plan.lanes);
  n_replicas = vkml_session_replica_count (session, replicas,
      VKML_MAX_SESSION_DEVICES);
  for (p = 0; n_replicas > 1 && p < (size_t) n_replicas; p++)
    GST_INFO_OBJECT (self, "data parallel: copy %" G_GSIZE_FORMAT " of %d on "
        "device %d", p + 1, n_replicas, replicas[p]);
  for (p = 0; p < vkml_session_plan_part_count (session); p++) {
    vkml_plan_part part;

    if (vkml_session_plan_part (session, p, &part))
      GST_DEBUG_OBJECT (self,
          "plan: device %d: %" G_GSIZE_FORMAT " nodes (%s .. " "%s), weights %"
          G_GUINT64_FORMAT " bytes, peak tensors %" G_GUINT64_FORMAT " bytes",
          part.device, part.n_nodes, part.first_node, part.last_node,
          part.weight_bytes, part.peak_bytes);
  }
  for (p = 0; p < vkml_session_plan_transfer_count (session); p++) {
    vkml_plan_transfer t;

    if (vkml_session_plan_transfer (session, p, &t))
      GST_DEBUG_OBJECT (self, "plan: copy of %s from device %d to %d, %"
          G_GUINT64_FORMAT " bytes per frame", t.value, t.from, t.to, t.bytes);
  }
}

/* 'input-tensors' read and checked against the model; FALSE: error posted. */
static gboolean
gst_vkml_infer_read_inputs (GstVkmlInfer * self, vkml_model * model)
{
  gchar *text, *why = NULL;

  GST_OBJECT_LOCK (self);
  text = g_strdup (self->input_tensors);
  GST_OBJECT_UNLOCK (self);
  if (gst_vkml_extra_inputs_read (text, &self->set.extra, &why)
      && gst_vkml_extra_inputs_check (&self->set.extra, model, &why)) {
    g_free (text);
    return TRUE;
  }
  GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("Bad 'input-tensors': %s.",
          why), ("input-tensors=\"%s\"", text));
  g_free (why);
  g_free (text);
  return FALSE;
}

/* Reads the properties a run keeps until the next stop, opens the devices (first start)
 * and loads the model; the session is planned when the caps are known. */
static gboolean
gst_vkml_infer_start (GstBaseTransform * trans)
{
  GstVkmlInfer *self = GST_VKML_INFER (trans);
  vkml_model *model = NULL;
  gchar *path, *instance_id;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  path = g_strdup (self->model_path);
  self->set.device = g_strdup (self->device);
  self->set.budget = self->budget;
  self->set.data_parallel = self->data_parallel;
  self->set.precision = (vkml_precision) self->precision;
  self->set.cpu_threads = self->cpu_threads;
  self->set.lanes = self->max_in_flight;
  self->set.log_owner = self;
  self->set.batch_size = self->batch_size;
  self->set.batch_timeout_us = self->batch_timeout_us;
  instance_id = g_strdup (self->instance_id);
  self->qos_earliest = GST_CLOCK_TIME_NONE;
  GST_OBJECT_UNLOCK (self);
  self->frames_seen = 0;

  if (!path || !*path) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("No model set."),
        ("Set the 'model' property to an ONNX file."));
    ok = FALSE;
  } else {
    GstObject *scope = gst_vkml_infer_lib_scope (GST_OBJECT (self));

    ok = gst_vkml_infer_read_bundle (self, path)
        && gst_vkml_infer_read_settings (self, &self->set.pre)
        && (self->ctx || gst_vkml_infer_create_context (self))
        && gst_vkml_infer_parse_devices (self, self->set.device,
        self->set.devices, &self->set.n_devices)
        && gst_vkml_infer_roi_start (self)
        && (instance_id && *instance_id
        ? gst_vkml_infer_join_instance (self, instance_id, path, &model)
        : gst_vkml_infer_load (self, path, &model))
        && gst_vkml_infer_read_inputs (self, model);
    gst_vkml_infer_lib_scope (scope);
  }
  g_free (path);
  g_free (instance_id);
  g_mutex_lock (&self->plan_lock);
  self->model = model;
  g_mutex_unlock (&self->plan_lock);
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
      ("vkmlinfer feeds float, float16 or uint8 NCHW [N,C,H,W] or NHWC "
          "[N,H,W,C] inputs, or one image [C,H,W] or [H,W,C], C = 1 or 3; a symbolic batch takes 'batch-size', "
          "symbolic height and width 'input-size' or the video's size; the "
          "model's other inputs come from 'input-tensors'."));
  g_free (input);
}

/* Fixed raw video caps of a format the element does not take get an error naming the
 * formats it does (once per caps), rather than upstream's bare not-negotiated. */
static gboolean
gst_vkml_infer_accept_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps)
{
  GstVkmlInfer *self = GST_VKML_INFER (trans);
  const GstStructure *s;
  const gchar *format;

  if (GST_BASE_TRANSFORM_CLASS (parent_class)->accept_caps (trans, direction,
          caps))
    return TRUE;
  if (direction != GST_PAD_SINK || !gst_caps_is_fixed (caps))
    return FALSE;
  s = gst_caps_get_structure (caps, 0);
  format = gst_structure_get_string (s, "format");
  if (!gst_structure_has_name (s, "video/x-raw") || !format
      || !gst_caps_features_is_equal (gst_caps_get_features (caps, 0),
          GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY)
      || (self->refused_caps && gst_caps_is_equal (caps, self->refused_caps)))
    return FALSE;
  gst_caps_replace (&self->refused_caps, caps);
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("vkmlinfer does not take video in format %s; it takes video/x-raw in "
          "%s, or other/tensors.", format, GST_VKML_VIDEO_FORMATS),
      ("refused %" GST_PTR_FORMAT "; put videoconvert in front for other "
          "formats", caps));
  return FALSE;
}

/* Streaming thread. Makes @plan (and @model, for a swap: NULL keeps the model) the one
 * frames run on, once no frame in flight holds a run of the old one. */
static void
gst_vkml_infer_adopt (GstVkmlInfer * self, GstVkmlInferPlan * plan,
    vkml_model * model)
{
  gst_vkml_inflight_empty (&self->inflight);
  g_mutex_lock (&self->plan_lock);
  gst_vkml_infer_plan_clear (&self->plan);
  self->plan = *plan;
  memset (plan, 0, sizeof (*plan));
  if (model) {
    gst_vkml_infer_plan_clear (&self->probe);
    vkml_model_destroy (&self->model);
    self->model = model;
  }
  g_mutex_unlock (&self->plan_lock);
  gst_vkml_infer_log_plan (self);
}

/* The model's output tensor caps for fixed input tensor caps: from the plan when it is
 * for them, else from a plan made now and kept for set_caps (so that the output caps are
 * known before set_caps). NULL when the model cannot take them. */
static GstCaps *
gst_vkml_infer_tensor_output_caps (GstVkmlInfer * self, GstCaps * caps)
{
  GstCaps *out = NULL;
  gchar *why = NULL;

  g_mutex_lock (&self->plan_lock);
  if (!self->model) {
    /* not started: any tensors */
  } else if (self->plan.caps && gst_caps_is_equal (caps, self->plan.caps)) {
    out = gst_vkml_infer_plan_output_caps (&self->plan, &why);
  } else if ((self->probe.caps && gst_caps_is_equal (caps, self->probe.caps))
      || gst_vkml_infer_plan_make (&self->probe, self->ctx, self->model,
          &self->set, caps, &why)) {
    out = gst_vkml_infer_plan_output_caps (&self->probe, &why);
  }
  g_mutex_unlock (&self->plan_lock);
  if (why)
    GST_DEBUG_OBJECT (self, "%" GST_PTR_FORMAT ": %s", caps, why);
  g_free (why);
  return out;
}

/* Video caps pass through unchanged; tensor caps in become the model's output tensors
 * out (and the other way: any tensor caps). */
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
    if (direction == GST_PAD_SINK && gst_caps_is_fixed (caps))
      tensors = gst_vkml_infer_tensor_output_caps (self, caps);
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

/* Plans the model for the caps (after the frames before them went out): video through
 * libvkml's pre-processing, planned again for a new size or layout; tensor caps as the
 * inputs' shapes. A refusal leaves no plan: frames return NOT_NEGOTIATED. */
static gboolean
gst_vkml_infer_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    G_GNUC_UNUSED GstCaps * outcaps)
{
  GstVkmlInfer *self = GST_VKML_INFER (trans);
  GstVkmlInferPlan plan = { 0 };
  gboolean fits, probed, planned;
  GstObject *scope;
  gchar *why = NULL;

  if (!self->model)
    return FALSE;
  g_mutex_lock (&self->plan_lock);
  fits = gst_vkml_infer_plan_fits (&self->plan, self->model, &self->set,
      incaps);
  if (fits)
    gst_caps_replace (&self->plan.caps, incaps);
  probed = !fits && self->probe.caps
      && gst_caps_is_equal (incaps, self->probe.caps);
  if (probed) {
    plan = self->probe;
    memset (&self->probe, 0, sizeof (self->probe));
  }
  g_mutex_unlock (&self->plan_lock);
  if (fits)
    return TRUE;
  scope = gst_vkml_infer_lib_scope (GST_OBJECT (self));
  planned = probed || gst_vkml_infer_plan_make (&plan, self->ctx, self->model,
      &self->set, incaps, &why);
  gst_vkml_infer_lib_scope (scope);
  if (!planned) {
    gst_vkml_infer_adopt (self, &plan, NULL);   /* none */
    gst_vkml_infer_refuse_caps (self, incaps, why);
    g_free (why);
    return FALSE;
  }
  gst_vkml_infer_adopt (self, &plan, NULL);
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
