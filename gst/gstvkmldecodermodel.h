/* What a decoder (vkmlclassify, vkmldetect) knows of the model whose meta it decodes:
 * its model-id, its tensors' shapes, and its bundle (gstvkmlbundle.h), asked for again
 * when the model-id or the shapes change (another vkmlinfer, a model swap). Streaming
 * thread only. */
#pragma once

#include "gstvkmlbundle.h"
#include "gstvkmltensormeta.h"

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS typedef struct
{
  gchar *model_id;              /* of the last meta decoded; NULL: none yet */
  gchar *tensors;               /* its tensors, as gst_vkml_tensor_meta_describe */
  GstVkmlBundle *bundle;        /* that model's bundle; NULL: none */
} GstVkmlDecoderModel;

/* Updates @m for @meta: when its model-id or tensors differ from the last meta's, asks
 * upstream of @trans for the model's bundle and returns TRUE in *@changed. FALSE after
 * posting a RESOURCE/SETTINGS error on @trans when the bundle cannot be read. */
gboolean gst_vkml_decoder_model_update (GstVkmlDecoderModel * m,
    GstBaseTransform * trans, const GstVkmlTensorMeta * meta,
    gboolean * changed);
void gst_vkml_decoder_model_clear (GstVkmlDecoderModel * m);

/* Whether the bundle gives @field for a decoder of @type (labels: any type). */
gboolean gst_vkml_decoder_model_gives (const GstVkmlDecoderModel * m,
    GstVkmlBundleDecoder type, GstVkmlBundleField field);

G_END_DECLS
