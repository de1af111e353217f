#pragma once
/* vkml_model: a loaded graph plus the public view of its inputs and outputs. */
#include "graph/graph.h"

#include <stdatomic.h>

struct vkml_model {
    atomic_int refs;          /* vkml_model_destroy and sessions drop references */
    graph *graph;             /* owned */
    vkml_tensor_info *inputs; /* declared graph inputs (in graph arena) */
    vkml_tensor_info *outputs;
    size_t n_inputs, n_outputs;
};

/* Wraps a sorted graph (takes ownership, also on failure): resolves each node's op from
 * the op table (VKML_ERROR_UNSUPPORTED naming node and op when absent or its opset is
 * outside the implemented range) and builds the input/output infos. Used by the loader and
 * by tests that build graphs in code. */
vkml_status model_from_graph(graph *g, vkml_model **out, vkml_error *err);
/* Same; with allow_unsupported, nodes whose op is missing keep op NULL instead of failing. */
vkml_status model_wrap_graph(graph *g, bool allow_unsupported, vkml_model **out,
                             vkml_error *err);
/* Reference counting; model_unref destroys at zero. Thread-safe. */
vkml_model *model_ref(vkml_model *m);
void model_unref(vkml_model *m);

/* Decodes an ONNX ModelProto into a graph (lib/onnx/onnx_load.c). `base_dir` resolves
 * external data (NULL refuses it). The bytes must stay valid until the graph is destroyed
 * unless `copy_constants` is true (initializers then may point into them; see
 * onnx_graph_keep). Errors: VKML_ERROR_INVALID_MODEL for malformed or inconsistent
 * models, VKML_ERROR_UNSUPPORTED for valid ONNX vkml lacks (element types, opset newer
 * than VKML_MAX_OPSET, segmented or sparse initializers), each naming what and where. */
vkml_status onnx_load_graph(const void *bytes, size_t size, const char *base_dir,
                            bool copy_constants, graph **out, vkml_error *err);
/* Ties release(ctx) to a graph from onnx_load_graph (e.g. the mapping its constants point
 * into): called when the graph is destroyed. On failure (out of memory, or a graph the
 * loader did not make) release(ctx) is called at once and false returned. */
bool onnx_graph_keep(graph *g, void (*release)(void *), void *ctx);
