#include "onnx/onnx_wire.h"

/* Decoded structs may take this many times the input size (plus a fixed allowance)
 * before the input is called hostile: real models are mostly tensor bytes. */
#define ONNX_DECODED_RATIO 32
#define ONNX_DECODED_SLACK ((size_t)64 << 20)
/* What protobuf-c spends on an unknown field or a string/bytes element besides its bytes
 * (a record or pointer, and a heap block). */
#define ONNX_FIELD_OVERHEAD 64

typedef struct wire_walk {
    size_t decoded; /* bytes of message structs protobuf-c would allocate */
    size_t budget;
    const char *problem;
} wire_walk;

enum { WIRE_VARINT = 0, WIRE_FIXED64 = 1, WIRE_BYTES = 2, WIRE_FIXED32 = 5 };

static bool read_varint(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
    uint64_t value = 0;
    for (int shift = 0; shift < 64 && *p < end; shift += 7) {
        uint8_t byte = *(*p)++;
        value |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *out = value;
            return true;
        }
    }
    return false;
}

static bool skip_bytes(const uint8_t **p, const uint8_t *end, uint64_t n)
{
    if (n > (uint64_t)(end - *p))
        return false;
    *p += n;
    return true;
}

bool onnx_wire_next(const uint8_t **p, const uint8_t *end, onnx_field *f)
{
    uint64_t tag, len;
    f->start = *p;
    if (!read_varint(p, end, &tag) || (tag >> 3) == 0 || (tag >> 3) > UINT32_MAX)
        return false;
    f->number = (uint32_t)(tag >> 3);
    f->wire = (int)(tag & 7);
    bool ok;
    switch (f->wire) {
    case WIRE_VARINT: ok = read_varint(p, end, &len); break;
    case WIRE_FIXED64: ok = skip_bytes(p, end, 8); break;
    case WIRE_FIXED32: ok = skip_bytes(p, end, 4); break;
    case WIRE_BYTES:
        ok = read_varint(p, end, &len);
        f->value = *p;
        ok = ok && skip_bytes(p, end, len);
        break;
    default: ok = false; break;
    }
    if (f->wire != WIRE_BYTES)
        f->value = f->start;
    f->end = *p;
    return ok;
}

static bool walk_message(wire_walk *w, const ProtobufCMessageDescriptor *desc, const uint8_t *p,
                         const uint8_t *end, int depth)
{
    if (depth > ONNX_MAX_NESTING) {
        w->problem = "messages are nested too deeply";
        return false;
    }
    w->decoded += desc->sizeof_message + ONNX_FIELD_OVERHEAD;
    while (p < end) {
        onnx_field f;
        if (!onnx_wire_next(&p, end, &f)) {
            w->problem = "a field is malformed or runs past the end of the data (truncated?)";
            return false;
        }
        const ProtobufCFieldDescriptor *field =
            protobuf_c_message_descriptor_get_field(desc, f.number);
        if (!field || field->type == PROTOBUF_C_TYPE_STRING || field->type == PROTOBUF_C_TYPE_BYTES)
            w->decoded += ONNX_FIELD_OVERHEAD;
        if (w->decoded > w->budget) {
            w->problem = "it holds far more fields than its size allows";
            return false;
        }
        if (f.wire == WIRE_BYTES && field && field->type == PROTOBUF_C_TYPE_MESSAGE &&
            !walk_message(w, field->descriptor, f.value, f.end, depth + 1))
            return false;
    }
    return true;
}

vkml_status onnx_unpack(const ProtobufCMessageDescriptor *desc, const void *bytes, size_t size,
                        const char *what, ProtobufCMessage **out, vkml_error *err)
{
    *out = NULL;
    if (!bytes || size == 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: the data is empty", what);
    wire_walk w = {.budget = ONNX_DECODED_SLACK};
    if (size > (SIZE_MAX - ONNX_DECODED_SLACK) / ONNX_DECODED_RATIO)
        w.budget = SIZE_MAX;
    else
        w.budget += size * ONNX_DECODED_RATIO;
    const uint8_t *p = bytes;
    if (!walk_message(&w, desc, p, p + size, 0))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: not a valid %s: %s", what,
                         desc->short_name, w.problem);
    *out = protobuf_c_message_unpack(desc, NULL, size, bytes);
    if (!*out)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: not a valid %s (protobuf decoding failed)", what, desc->short_name);
    return VKML_OK;
}
