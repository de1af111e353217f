/*
 * Keeps the weights out of protobuf-c: the ModelProto is re-encoded without the raw_data
 * of its main graph's initializers (ModelProto.graph = 7, GraphProto.initializer = 5,
 * TensorProto.raw_data = 9), and the loader reads those bytes where they lie, so a
 * memory-mapped model's weights can stay in the mapping.
 */
#include "onnx/onnx_wire.h"

#include <stdlib.h>
#include <string.h>

enum { LEVEL_MODEL, LEVEL_GRAPH, LEVEL_TENSOR };
enum { MODEL_GRAPH = 7, GRAPH_INITIALIZER = 5, TENSOR_RAW_DATA = 9, WIRE_LEN = 2 };

typedef struct stripper {
    onnx_raw_span *spans;
    size_t count, capacity;
    bool out_of_memory;
} stripper;

static int child_level(int level, const onnx_field *f)
{
    if (f->wire != WIRE_LEN)
        return -1;
    if (level == LEVEL_MODEL && f->number == MODEL_GRAPH)
        return LEVEL_GRAPH;
    if (level == LEVEL_GRAPH && f->number == GRAPH_INITIALIZER)
        return LEVEL_TENSOR;
    return -1;
}

static size_t put_varint(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    do {
        uint8_t byte = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (out)
            out[n] = byte | (v ? 0x80 : 0);
        n++;
    } while (v);
    return n;
}

static void add_span(stripper *s, onnx_raw_span span)
{
    if (s->count == s->capacity) {
        size_t capacity = s->capacity ? s->capacity * 2 : 64;
        onnx_raw_span *spans = realloc(s->spans, capacity * sizeof(*spans));
        if (!spans) {
            s->out_of_memory = true;
            return;
        }
        s->spans = spans;
        s->capacity = capacity;
    }
    s->spans[s->count++] = span;
}

/* Re-encodes [p, end) at `level` into out (NULL: only measures) and sets *written.
 * Spans are recorded while writing, so each initializer adds exactly one. */
static bool strip_message(stripper *s, int level, const uint8_t *p, const uint8_t *end,
                          uint8_t *out, size_t *written)
{
    size_t n = 0;
    onnx_raw_span raw = {.present = false};
    while (p < end) {
        onnx_field f;
        if (!onnx_wire_next(&p, end, &f))
            return false;
        if (level == LEVEL_TENSOR && f.number == TENSOR_RAW_DATA && f.wire == WIRE_LEN) {
            raw = (onnx_raw_span){f.value, (size_t)(f.end - f.value), (size_t)(f.value - f.start),
                                  true}; /* last one wins */
            continue;
        }
        int child = child_level(level, &f);
        if (child < 0) {
            if (out)
                memcpy(out + n, f.start, (size_t)(f.end - f.start));
            n += (size_t)(f.end - f.start);
            continue;
        }
        size_t inner, tag_len = put_varint(NULL, ((uint64_t)f.number << 3) | WIRE_LEN);
        if (!strip_message(s, child, f.value, f.end, NULL, &inner))
            return false;
        if (out) {
            put_varint(out + n, ((uint64_t)f.number << 3) | WIRE_LEN);
            size_t len_len = put_varint(out + n + tag_len, inner);
            if (!strip_message(s, child, f.value, f.end, out + n + tag_len + len_len, &inner))
                return false;
        }
        n += tag_len + put_varint(NULL, inner) + inner;
    }
    if (out && level == LEVEL_TENSOR)
        add_span(s, raw);
    *written = n;
    return true;
}

vkml_status onnx_strip_raw_data(const void *bytes, size_t size, const char *what,
                                onnx_stripped *out, vkml_error *err)
{
    memset(out, 0, sizeof(*out));
    if (!bytes || size == 0) /* no pointer arithmetic on NULL below */
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: the data is empty", what);
    stripper s = {.spans = NULL};
    size_t measured = 0;
    /* A re-encoded field is never longer than the original (its tag and length get the
     * shortest encoding), so measuring first bounds the output by the input. */
    if (!strip_message(&s, LEVEL_MODEL, bytes, (const uint8_t *)bytes + size, NULL, &measured))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: not a valid ModelProto: a field is malformed or runs past the end "
                         "of the data (truncated?)",
                         what);
    out->bytes = malloc(measured ? measured : 1);
    if (!out->bytes)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
    strip_message(&s, LEVEL_MODEL, bytes, (const uint8_t *)bytes + size, out->bytes, &out->size);
    out->spans = s.spans;
    out->n_spans = s.count;
    if (s.out_of_memory) {
        onnx_stripped_free(out);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
    }
    return VKML_OK;
}

void onnx_stripped_free(onnx_stripped *s)
{
    free(s->bytes);
    free(s->spans);
    memset(s, 0, sizeof(*s));
}
