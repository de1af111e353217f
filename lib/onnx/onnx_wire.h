#pragma once
/* Safe protobuf decoding: a bounded walk of the wire format before protobuf-c unpacks. */
#include "core/common.h"
#include "onnx/onnx.pb-c.h"

/* Deepest message nesting accepted (a subgraph costs 3 levels: attribute, graph, node).
 * protobuf-c's unpack recurses once per level, so this bounds its stack use. */
#define ONNX_MAX_NESTING 96

/* Unpacks `size` bytes as a `desc` message. Before protobuf-c sees the bytes, they are
 * walked once: truncated or malformed fields, nesting deeper than ONNX_MAX_NESTING and
 * messages whose decoded size would dwarf the input are refused with
 * VKML_ERROR_INVALID_MODEL, the message starting with `what`. Free the result with
 * protobuf_c_message_free_unpacked(msg, NULL). */
/* One field of an encoded message. */
typedef struct onnx_field {
    uint32_t number;
    int wire;             /* 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32 */
    const uint8_t *start; /* the tag */
    const uint8_t *value; /* the payload (after the length of a length-delimited field) */
    const uint8_t *end;   /* one past the field */
} onnx_field;

/* Reads the field at *p and moves past it; false when malformed or truncated. */
bool onnx_wire_next(const uint8_t **p, const uint8_t *end, onnx_field *f);

vkml_status onnx_unpack(const ProtobufCMessageDescriptor *desc, const void *bytes, size_t size,
                        const char *what, ProtobufCMessage **out, vkml_error *err);

/* Where the raw_data of one initializer of the main graph lies in the model's bytes. */
typedef struct onnx_raw_span {
    const uint8_t *data;
    size_t len;
    size_t head; /* bytes of the field's tag and length just before data */
    bool present;
} onnx_raw_span;

/* A ModelProto re-encoded without the raw_data of its main graph's initializers (so that
 * protobuf-c never copies the weights), and where each of those lies in the original:
 * spans[i] belongs to GraphProto.initializer[i]. */
typedef struct onnx_stripped {
    uint8_t *bytes;
    size_t size;
    onnx_raw_span *spans;
    size_t n_spans;
} onnx_stripped;

/* VKML_ERROR_INVALID_MODEL (naming `what`) when the encoding is malformed. */
vkml_status onnx_strip_raw_data(const void *bytes, size_t size, const char *what,
                                onnx_stripped *out, vkml_error *err);
void onnx_stripped_free(onnx_stripped *s);
