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
vkml_status onnx_unpack(const ProtobufCMessageDescriptor *desc, const void *bytes, size_t size,
                        const char *what, ProtobufCMessage **out, vkml_error *err);
