#pragma once
/* TensorProto -> dense host tensor, shared by initializers, tensor attributes and .pb
 * files. */
#include "graph/graph.h"
#include "onnx/onnx_file.h"
#include "onnx/onnx_wire.h"

/* What a graph keeps alive besides its arena: buffers taken over from protobuf-c,
 * subgraphs, the model's mapping and external data files. Items are released in reverse
 * order, then the files, by onnx_backing_release (a graph backing). */
typedef struct onnx_keep {
    void (*release)(void *ctx);
    void *ctx;
} onnx_keep;

typedef struct onnx_backing {
    onnx_keep *items;
    size_t count, capacity;
    onnx_ext_files files;
} onnx_backing;

/* Adds an item; on out of memory releases it at once and returns false. */
bool onnx_backing_add(onnx_backing *b, void (*release)(void *), void *ctx);
/* Releases every item and the backing itself (a malloc'ed onnx_backing). */
void onnx_backing_release(void *backing);

typedef struct onnx_tensor_ctx {
    vkml_arena *arena;     /* names and converted data */
    const char *base_dir;  /* resolves external data; NULL refuses it */
    onnx_backing *backing; /* takes over large raw_data buffers (NULL: they are copied)
                              and keeps external data files mapped (NULL: refused) */
    bool alias_spans;      /* data of an onnx_raw_span may be referenced where it lies
                              (when aligned for its type) instead of copied */
    bool realign_spans;    /* the span's bytes are writable: a misaligned one is moved back
                              over its field's header when that is long enough */
} onnx_tensor_ctx;

/* ONNX element type -> vkml dtype: VKML_ERROR_UNSUPPORTED for valid ONNX types vkml lacks
 * (complex, float8, int4, ...), VKML_ERROR_INVALID_MODEL for unknown values. */
vkml_status onnx_dtype(int32_t elem_type, const char *what, vkml_dtype *out, vkml_error *err);

/* Decodes `tp` into `out` (name, dtype, shape, data in host layout). String tensors get
 * an array of NUL-terminated string pointers (arena copies) as data. Every size is checked; errors
 * start with `what`. May take over tp's raw_data buffer (it is then cleared in tp). */
vkml_status onnx_tensor_decode(const onnx_tensor_ctx *ctx, Onnx__TensorProto *tp, const char *what,
                               graph_tensor *out, vkml_error *err);
/* Same, with the raw_data that onnx_strip_raw_data took out of tp (raw may be NULL). */
vkml_status onnx_tensor_decode_span(const onnx_tensor_ctx *ctx, Onnx__TensorProto *tp,
                                    const onnx_raw_span *raw, const char *what, graph_tensor *out,
                                    vkml_error *err);
