#pragma once
/* vkml_model: a loaded graph plus the public view of its inputs and outputs. */
#include "graph/graph.h"

#include <stdatomic.h>

/* The model's shapes with every symbolic dim 1: what questions about single nodes
 * (vkml_context_device_supports_node) are answered from. Made once, on first use. */
typedef struct model_probe {
    graph_value *values; /* a clone of the graph's values, inferred (constants folded) */
    vkml_arena *arena;   /* folded constants */
    int n_inferred;      /* nodes (in order) whose outputs are known */
    vkml_error error;    /* why inference stopped, when n_inferred < the node count */
} model_probe;

/* What one measurement of VKML_PRECISION_FP16 found (plan/session_fp16.c): for the devices
 * and input shapes in `key`, whether the float16 plan ran faster than the float32 one. */
typedef struct model_fp16_choice {
    char key[256];
    bool half;
    double us_half, us_float; /* a run's time at each, as measured */
    struct model_fp16_choice *next;
} model_fp16_choice;

struct vkml_model {
    atomic_int refs;                           /* vkml_model_destroy and sessions drop references */
    _Atomic(model_probe *) probe;              /* NULL until model_get_probe first runs */
    _Atomic(model_fp16_choice *) fp16_choices; /* measured so far, newest first */
    graph *graph;                              /* owned */
    vkml_tensor_info *inputs;                  /* declared graph inputs (in graph arena) */
    vkml_tensor_info *outputs;
    size_t n_inputs, n_outputs;
};

/* Wraps a sorted graph (takes ownership, also on failure): resolves each node's op from
 * the op table (VKML_ERROR_UNSUPPORTED naming node and op when absent or its opset is
 * outside the implemented range) and builds the input/output infos. Used by the loader and
 * by tests that build graphs in code. */
vkml_status model_from_graph(graph *g, vkml_model **out, vkml_error *err);
/* Same; with allow_unsupported, nodes whose op is missing keep op NULL instead of failing. */
vkml_status model_wrap_graph(graph *g, bool allow_unsupported, vkml_model **out, vkml_error *err);
/* The probe, made on first use; NULL on out of memory. Thread-safe (racing first calls
 * each infer, one result is kept). */
const model_probe *model_get_probe(const vkml_model *m);
/* The measured float16 choice for `key`, or NULL. Thread-safe. */
const model_fp16_choice *model_fp16_choice_find(const vkml_model *m, const char *key);
/* Keeps a copy of `c` (nothing on out of memory). Thread-safe. */
void model_fp16_choice_add(vkml_model *m, const model_fp16_choice *c);
/* Reference counting; model_unref destroys at zero. Thread-safe. */
vkml_model *model_ref(vkml_model *m);
void model_unref(vkml_model *m);

/* How the loader treats the weights in the model's bytes. */
typedef enum onnx_const_mode {
    ONNX_CONST_ALIAS = 0,  /* point into the bytes where aligned for their type, else copy */
    ONNX_CONST_COPY = 1,   /* copy: the bytes need not outlive the load */
    ONNX_CONST_REALIGN = 2 /* as ALIAS, and the bytes are the loader's to write: a misaligned
                              weight is moved back over its own field's tag and length
                              (already decoded) instead of copied, so weights are never held
                              twice */
} onnx_const_mode;

/* Decodes an ONNX ModelProto into a graph (lib/onnx/onnx_load.c). `base_dir` resolves
 * external data (NULL refuses it). The bytes must stay valid until the graph is destroyed
 * unless `mode` is ONNX_CONST_COPY (initializers then may point into them; see
 * onnx_graph_keep). Errors: VKML_ERROR_INVALID_MODEL for malformed or inconsistent
 * models, VKML_ERROR_UNSUPPORTED for valid ONNX vkml lacks (element types, opset newer
 * than VKML_MAX_OPSET, segmented or sparse initializers), each naming what and where. */
vkml_status onnx_load_graph(const void *bytes, size_t size, const char *base_dir,
                            onnx_const_mode mode, graph **out, vkml_error *err);
/* Ties release(ctx) to a graph from onnx_load_graph (e.g. the mapping its constants point
 * into): called when the graph is destroyed. On failure (out of memory, or a graph the
 * loader did not make) release(ctx) is called at once and false returned. */
bool onnx_graph_keep(graph *g, void (*release)(void *), void *ctx);
