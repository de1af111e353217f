/* vkmlinfer's model swap: a 'model' set while running is loaded and planned on a worker
 * thread while frames keep running on the old session; the streaming thread switches at
 * the first frame after the new one is ready. Private to the plugin. */
#pragma once

#include "gstvkmlinferplan.h"

#include <gst/gst.h>
#include <vkml/vkml.h>

G_BEGIN_DECLS typedef struct
{
  GMutex lock;                  /* guards everything below */
  GThreadPool *worker;          /* one thread; made at the first request */
  guint64 wanted;               /* number of the newest request; older ones are void */
  gboolean cancelled;           /* stopping: the worker drops what it gets */
  gchar *pending_path;          /* the newest request, until adopted or refused */
  /* the newest request's result, once the worker made it */
  gboolean ready;
  gchar *ready_path;
  vkml_model *ready_model;
  GstVkmlInferPlan ready_plan;  /* for ready_caps; caps NULL: not negotiated then */
} GstVkmlInferSwap;

void gst_vkml_infer_swap_init (GstVkmlInferSwap * swap);
void gst_vkml_infer_swap_finalize (GstVkmlInferSwap * swap);

G_END_DECLS
