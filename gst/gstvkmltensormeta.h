/* GstVkmlTensorMeta: the output tensors of a model, attached to the buffer they were
 * computed from.
 *
 * Installed with the plugin (gstreamer-1.0/gst/vkml/gstvkmltensormeta.h) so that
 * applications can read the tensors; the meta is registered under vkml's own names
 * ("GstVkmlTensorMetaAPI" / "GstVkmlTensorMeta"), not GStreamer's "GstTensorMeta", whose
 * layout differs between GStreamer versions.
 *
 * The meta and its GType/GstMetaInfo getters are thread-safe to call; one meta is not
 * thread-safe to modify from several threads (as with every GstMeta, modify it only while
 * the buffer is writable). */
#ifndef __GST_VKML_TENSOR_META_H__
#define __GST_VKML_TENSOR_META_H__

#include <gst/gst.h>
#include <vkml/vkml.h>

G_BEGIN_DECLS
/* Highest rank a tensor of the meta may have (same as libvkml's). */
#define GST_VKML_TENSOR_MAX_RANK VKML_MAX_RANK
/**
 * GstVkmlTensor:
 * @name: the model's name for the tensor (e.g. "probabilities")
 * @dtype: element type; values are libvkml's vkml_dtype (ONNX TensorProto.DataType)
 * @rank: number of dimensions (0 .. GST_VKML_TENSOR_MAX_RANK)
 * @dims: the dimensions, outermost first; dense row-major layout
 * @data: the elements, host memory, native endianness (the meta holds a reference);
 *   treat it as read-only: it may be shared with copies of the buffer
 */
    typedef struct _GstVkmlTensor
{
  gchar *name;
  vkml_dtype dtype;
  guint rank;
  gint64 dims[GST_VKML_TENSOR_MAX_RANK];
  GstBuffer *data;
} GstVkmlTensor;

/**
 * GstVkmlInputGeometry:
 * @frame_width: width of the video frame the model's input was made from
 * @frame_height: its height
 * @input_width: width of the model's input image
 * @input_height: its height
 * @scale_x: model input pixels per frame pixel, horizontally
 * @scale_y: the same, vertically
 * @offset_x: model input x of the frame's left edge (letterbox padding; negative
 *   for a centre crop)
 * @offset_y: model input y of the frame's top edge
 *
 * Maps the model's input image back onto the frame: frame
 * x = (input x - offset_x) / scale_x, frame y = (input y - offset_y) / scale_y.
 */
typedef struct _GstVkmlInputGeometry
{
  guint frame_width, frame_height;
  guint input_width, input_height;
  gdouble scale_x, scale_y;
  gdouble offset_x, offset_y;
} GstVkmlInputGeometry;

/**
 * GstVkmlTensorMeta:
 * @meta: parent
 * @n_tensors: number of tensors
 * @tensors: (array length=n_tensors): the tensors, in the model's output order
 * @model_id: which model and element made the tensors (the element's `model-id`,
 *   by default its name); NULL when not set. Owned by the meta.
 * @has_geometry: whether @geometry is set (the tensors came from a video frame)
 * @geometry: how the model's input image maps onto the frame
 * @seq: when the meta was made, process-wide and increasing; copies keep it, so the
 *   newest of several metas is found after buffer copies too (which reverse the
 *   buffer's meta list)
 * @roi_id: -1 when the tensors are of the whole frame; else the model ran on one
 *   object (vkmlinfer roi=objects): the id of that object's
 *   #GstVideoRegionOfInterestMeta on the buffer
 *   (gst_buffer_get_video_region_of_interest_meta_id), and @geometry maps the model's
 *   input onto the frame through the object's box
 */
typedef struct _GstVkmlTensorMeta
{
  GstMeta meta;
  guint n_tensors;
  GstVkmlTensor *tensors;
  gchar *model_id;
  gboolean has_geometry;
  GstVkmlInputGeometry geometry;
  guint64 seq;
  gint roi_id;
} GstVkmlTensorMeta;

GType gst_vkml_tensor_meta_api_get_type (void);
#define GST_VKML_TENSOR_META_API_TYPE (gst_vkml_tensor_meta_api_get_type ())

const GstMetaInfo *gst_vkml_tensor_meta_get_info (void);
#define GST_VKML_TENSOR_META_INFO (gst_vkml_tensor_meta_get_info ())

/* The first GstVkmlTensorMeta of @buffer, or NULL. */
#define gst_buffer_get_vkml_tensor_meta(buffer) \
  ((GstVkmlTensorMeta *) gst_buffer_get_meta ((buffer), GST_VKML_TENSOR_META_API_TYPE))

/* Adds an empty meta to a writable @buffer; fill it with gst_vkml_tensor_meta_add. */
GstVkmlTensorMeta *gst_buffer_add_vkml_tensor_meta (GstBuffer * buffer);

/* Appends a tensor. @data holds at least the tensor's bytes; the meta takes a new
 * reference to it (transfer none). Returns the new tensor, or NULL (and logs why) when
 * @rank is too high or @data is too small. */
GstVkmlTensor *gst_vkml_tensor_meta_add (GstVkmlTensorMeta * meta,
    const gchar * name, vkml_dtype dtype, guint rank, const gint64 * dims,
    GstBuffer * data);

/* Sets the meta's model_id (copied; NULL clears it). */
void gst_vkml_tensor_meta_set_model_id (GstVkmlTensorMeta * meta,
    const gchar * model_id);

/* The tensor called @name, or NULL. */
const GstVkmlTensor *gst_vkml_tensor_meta_get_by_name (const GstVkmlTensorMeta *
    meta, const gchar * name);

/* Tensor number @index, or NULL when out of range. */
const GstVkmlTensor *gst_vkml_tensor_meta_get (const GstVkmlTensorMeta * meta,
    guint index);

/* Number of elements of @tensor (1 for rank 0; 0 for negative dims or overflow). */
gsize gst_vkml_tensor_element_count (const GstVkmlTensor * tensor);

/**
 * gst_buffer_find_vkml_tensor_meta:
 * @buffer: a buffer
 * @model_id: (nullable): the model_id asked for; NULL or "" for any
 *
 * Returns: (transfer none) (nullable): the newest meta (highest seq, the nearest
 *   model upstream) whose model_id is @model_id, or of any model_id with NULL or "";
 *   NULL if none.
 */
GstVkmlTensorMeta *gst_buffer_find_vkml_tensor_meta (GstBuffer * buffer,
    const gchar * model_id);

/**
 * gst_vkml_tensor_meta_describe:
 * @meta: a meta
 *
 * Returns: (transfer full): its tensors for messages, e.g.
 *   "scores [1,3] float, boxes [1,100,4] float" ("no tensors" when empty).
 */
gchar *gst_vkml_tensor_meta_describe (const GstVkmlTensorMeta * meta);

/**
 * gst_vkml_tensor_get_dims:
 * @tensor: a tensor
 * @n_dims: (out): its rank
 *
 * Returns: (array length=n_dims) (transfer none): its dimensions (for bindings).
 */
const gint64 *gst_vkml_tensor_get_dims (const GstVkmlTensor * tensor,
    guint * n_dims);

/**
 * gst_vkml_tensor_get_data:
 * @tensor: a tensor
 *
 * Returns: (transfer none): the buffer holding its elements (for bindings).
 */
GstBuffer *gst_vkml_tensor_get_data (const GstVkmlTensor * tensor);

/**
 * gst_vkml_tensor_get_dtype_name:
 * @tensor: a tensor
 *
 * Returns: (transfer none): its element type's ONNX name ("float", "int64", ...).
 */
const gchar *gst_vkml_tensor_get_dtype_name (const GstVkmlTensor * tensor);

/**
 * gst_vkml_tensor_meta_attach_upstream:
 * @buffer: the writable buffer @meta is on
 * @meta: a meta
 *
 * Built against GStreamer >= 1.26: adds GStreamer's own GstTensorMeta to @buffer with
 * @meta's tensors (ids = tensor names, row-major, sharing the data buffers), so the
 * upstream tensor decoders read vkml's outputs. Tensors of a type GstTensorMeta has no
 * name for (string, bool, float8) are left out.
 *
 * Returns: whether a GstTensorMeta was added (always FALSE before 1.26).
 */
gboolean gst_vkml_tensor_meta_attach_upstream (GstBuffer * buffer,
    const GstVkmlTensorMeta * meta);

/**
 * gst_vkml_buffer_get_detections:
 * @buffer: a buffer vkmldetect went through
 *
 * Every box on @buffer: one "detection" structure per GstVideoRegionOfInterestMeta
 * with a "detection" parameter (as vkmldetect adds them), in the buffer's order, with
 * roi-id (gint), label (string), x, y, width, height (guint, frame pixels), class-id
 * (gint), score (gfloat) and, when vkmlclassify classified the object,
 * classification-label, classification-class-id and classification-score. For
 * applications and bindings (Python on GStreamer 1.22) that cannot iterate metas.
 *
 * Returns: (transfer full) (element-type Gst.Structure): the boxes (NULL: none); free
 * with g_list_free_full (list, (GDestroyNotify) gst_structure_free).
 */
GList *gst_vkml_buffer_get_detections (GstBuffer * buffer);

G_END_DECLS
#endif /* __GST_VKML_TENSOR_META_H__ */
