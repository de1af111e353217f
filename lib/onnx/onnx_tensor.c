#include "onnx/onnx_tensor.h"

#include "onnx/onnx_file.h"
#include "onnx/onnx_wire.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the loader assumes a little-endian host (ONNX raw_data is little-endian)"
#endif

/* raw_data buffers at least this large are taken over from protobuf-c instead of copied. */
#define ONNX_ADOPT_MIN_BYTES 4096

bool onnx_backing_add(onnx_backing *b, void (*release)(void *), void *ctx)
{
    if (b->count == b->capacity) {
        size_t capacity = b->capacity ? b->capacity * 2 : 16;
        onnx_keep *items = realloc(b->items, capacity * sizeof(*items));
        if (!items) {
            release(ctx);
            return false;
        }
        b->items = items;
        b->capacity = capacity;
    }
    b->items[b->count++] = (onnx_keep){release, ctx};
    return true;
}

void onnx_backing_release(void *backing)
{
    onnx_backing *b = backing;
    if (!b)
        return;
    while (b->count > 0) {
        onnx_keep *item = &b->items[--b->count];
        item->release(item->ctx);
    }
    onnx_ext_files_release(&b->files);
    free(b->items);
    free(b);
}

vkml_status onnx_dtype(int32_t elem_type, const char *what, vkml_dtype *out, vkml_error *err)
{
    static const char *const unsupported[] = {[14] = "complex64", [15] = "complex128"};
    if (elem_type > 0 && vkml_dtype_bits((vkml_dtype)elem_type) > 0) {
        *out = (vkml_dtype)elem_type;
        return VKML_OK;
    }
    if (elem_type == VKML_DTYPE_STRING) {
        *out = VKML_DTYPE_STRING;
        return VKML_OK;
    }
    if (elem_type > 0 && elem_type < (int32_t)VKML_ARRAY_SIZE(unsupported) &&
        unsupported[elem_type])
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "%s: element type %s is not supported by vkml", what,
                         unsupported[elem_type]);
    if (elem_type > 0) /* a type from a newer ONNX than vkml knows */
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "%s: element type %d is not supported by vkml", what, (int)elem_type);
    return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: invalid element type %d", what,
                     (int)elem_type);
}

/* Bytes an element's address must be a multiple of to be read in place. */
static size_t dtype_align(vkml_dtype dtype)
{
    size_t size = vkml_dtype_size(dtype);
    return size ? size : 1;
}

/* Element count of a shape, false on a negative dim or overflow (a zero dim wins). */
static bool element_count(int rank, const int64_t *dims, size_t *out)
{
    size_t count = 1;
    bool overflow = false;
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 0)
            return false;
        if (dims[i] == 0) {
            *out = 0;
            return true;
        }
        overflow |= !vkml_mul_size(count, (size_t)dims[i], &count);
    }
    *out = count;
    return !overflow;
}

static vkml_status decode_shape(const Onnx__TensorProto *tp, const char *what, graph_tensor *out,
                                size_t *count, vkml_error *err)
{
    if (tp->n_dims > VKML_MAX_RANK)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s: rank %zu exceeds vkml's maximum of %d",
                         what, tp->n_dims, VKML_MAX_RANK);
    out->rank = (int)tp->n_dims;
    for (size_t i = 0; i < tp->n_dims; i++) {
        out->dims[i] = tp->dims[i];
        if (out->dims[i] < 0)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: dimension %zu is %lld", what, i,
                             (long long)out->dims[i]);
    }
    char shape[160];
    if (!element_count(out->rank, out->dims, count))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: shape %s is too large", what,
                         graph_shape_string(out->rank, out->dims, shape, sizeof(shape)));
    return VKML_OK;
}

/* Typed-field storage of each dtype: which repeated field, and its element width. */
typedef struct typed_field {
    const void *data;
    size_t count, width;
    const char *field;
} typed_field;

static typed_field typed_field_of(const Onnx__TensorProto *tp, vkml_dtype dtype)
{
    switch (dtype) {
    case VKML_DTYPE_FLOAT: return (typed_field){tp->float_data, tp->n_float_data, 4, "float_data"};
    case VKML_DTYPE_INT64: return (typed_field){tp->int64_data, tp->n_int64_data, 8, "int64_data"};
    case VKML_DTYPE_DOUBLE:
        return (typed_field){tp->double_data, tp->n_double_data, 8, "double_data"};
    case VKML_DTYPE_UINT32:
    case VKML_DTYPE_UINT64:
        return (typed_field){tp->uint64_data, tp->n_uint64_data, 8, "uint64_data"};
    default: /* int32 and everything narrower, float16/bfloat16 bit patterns included */
        return (typed_field){tp->int32_data, tp->n_int32_data, 4, "int32_data"};
    }
}

/* Little-endian narrowing: the low `elem` bytes of each field element. */
static void narrow_copy(void *dst, const typed_field *f, size_t elem)
{
    const unsigned char *src = f->data;
    unsigned char *d = dst;
    if (elem == f->width) {
        memcpy(d, src, f->count * elem);
        return;
    }
    for (size_t i = 0; i < f->count; i++)
        memcpy(d + i * elem, src + i * f->width, elem);
}

static vkml_status decode_typed(const onnx_tensor_ctx *ctx, const Onnx__TensorProto *tp,
                                const char *what, size_t count, size_t bytes, graph_tensor *out,
                                vkml_error *err)
{
    typed_field f = typed_field_of(tp, out->dtype);
    /* Packed types (4- and 2-bit) keep one packed byte per int32_data entry. */
    bool packed = vkml_dtype_size(out->dtype) == 0;
    size_t want = packed ? bytes : count;
    if (f.count != want)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: holds %zu values in %s, its shape needs %zu", what, f.count, f.field,
                         want);
    void *data = vkml_arena_alloc(ctx->arena, bytes);
    if (!data)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
    if (want)
        narrow_copy(data, &f, bytes / want);
    out->data = data;
    return VKML_OK;
}

static vkml_status decode_raw(const onnx_tensor_ctx *ctx, Onnx__TensorProto *tp, const char *what,
                              size_t bytes, graph_tensor *out, vkml_error *err)
{
    if (tp->raw_data.len != bytes)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: raw_data holds %zu bytes, its shape and type need %zu", what,
                         tp->raw_data.len, bytes);
    if (ctx->backing && bytes >= ONNX_ADOPT_MIN_BYTES) {
        /* protobuf-c malloc'ed this copy of the bytes: keep it instead of copying again. */
        void *data = tp->raw_data.data;
        tp->raw_data.data = NULL;
        tp->raw_data.len = 0;
        tp->has_raw_data = 0;
        if (!onnx_backing_add(ctx->backing, free, data))
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
        out->data = data;
        return VKML_OK;
    }
    out->data = vkml_arena_memdup(ctx->arena, tp->raw_data.data, bytes);
    if (!out->data)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
    return VKML_OK;
}

/* raw_data left where it lies in the model's bytes (see onnx_strip.c). */
static vkml_status decode_span(const onnx_tensor_ctx *ctx, const onnx_raw_span *raw,
                               const char *what, size_t bytes, graph_tensor *out, vkml_error *err)
{
    if (raw->len != bytes)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: raw_data holds %zu bytes, its shape and type need %zu", what,
                         raw->len, bytes);
    size_t shift = (uintptr_t)raw->data % dtype_align(out->dtype);
    if (ctx->alias_spans && shift == 0) {
        out->data = raw->data;
        return VKML_OK;
    }
    if (ctx->realign_spans && shift <= raw->head) {
        /* The header's bytes were decoded already and nothing reads them again: the
         * weight moves back onto an aligned address within its own field. */
        uint8_t *moved = (uint8_t *)raw->data - shift;
        memmove(moved, raw->data, bytes);
        out->data = moved;
        return VKML_OK;
    }
    out->data = vkml_arena_memdup(ctx->arena, raw->data, bytes);
    if (!out->data)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
    return VKML_OK;
}

/* string_data: one NUL-terminated copy per element, and the array of their pointers (the
 * tensor's data, as vkml keeps every string tensor). A string holding a NUL byte is
 * refused: vkml's strings end at their first NUL. */
static vkml_status decode_strings(const onnx_tensor_ctx *ctx, const Onnx__TensorProto *tp,
                                  const char *what, size_t count, graph_tensor *out,
                                  vkml_error *err)
{
    if (tp->has_raw_data ||
        (tp->has_data_location && tp->data_location != ONNX__TENSOR_PROTO__DATA_LOCATION__DEFAULT))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: a string tensor keeps its values in string_data", what);
    if (tp->n_string_data != count)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: holds %zu values in string_data, its shape needs %zu", what,
                         tp->n_string_data, count);
    const char **strings = vkml_arena_calloc(ctx->arena, count ? count : 1, sizeof(char *));
    if (!strings)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
    for (size_t i = 0; i < count; i++) {
        const ProtobufCBinaryData *b = &tp->string_data[i];
        if (b->len && memchr(b->data, '\0', b->len))
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                             "%s: string %zu holds a NUL byte, which vkml's strings cannot", what,
                             i);
        const char *text = b->len ? (const char *)b->data : ""; /* data may be NULL */
        if (!(strings[i] = vkml_arena_strndup(ctx->arena, text, b->len)))
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
    }
    out->data = strings;
    out->size = count * sizeof(char *);
    return VKML_OK;
}

static vkml_status decode_external(const onnx_tensor_ctx *ctx, const Onnx__TensorProto *tp,
                                   const char *what, size_t bytes, graph_tensor *out,
                                   vkml_error *err)
{
    onnx_external_ref ref = {.location = NULL};
    for (size_t i = 0; i < tp->n_external_data; i++) {
        const Onnx__StringStringEntryProto *e = tp->external_data[i];
        const char *key = e->key ? e->key : "", *value = e->value ? e->value : "";
        char *end;
        if (strcmp(key, "location") == 0) {
            ref.location = value;
            continue;
        }
        bool is_offset = strcmp(key, "offset") == 0, is_length = strcmp(key, "length") == 0;
        if (!is_offset && !is_length)
            continue; /* checksum and others are not needed */
        errno = 0;
        unsigned long long n = strtoull(value, &end, 10);
        if (!value[0] || *end || errno || value[0] == '-')
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "%s: external data %s '%s' is not a number", what, key, value);
        if (is_offset)
            ref.offset = n;
        else {
            ref.length = n;
            ref.has_length = true;
        }
    }
    if (!ref.location)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: external data without a location",
                         what);
    const void *src;
    vkml_status st = onnx_external_data(ctx->base_dir, ctx->backing ? &ctx->backing->files : NULL,
                                        &ref, bytes, what, &src, err);
    if (st != VKML_OK)
        return st;
    /* Aligned data stays in the file's mapping, which the backing keeps. */
    if (src && (uintptr_t)src % dtype_align(out->dtype) == 0)
        out->data = src;
    else
        out->data = vkml_arena_memdup(ctx->arena, src ? src : "", bytes);
    if (!out->data)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
    return VKML_OK;
}

vkml_status onnx_tensor_decode(const onnx_tensor_ctx *ctx, Onnx__TensorProto *tp, const char *what,
                               graph_tensor *out, vkml_error *err)
{
    return onnx_tensor_decode_span(ctx, tp, NULL, what, out, err);
}

vkml_status onnx_tensor_decode_span(const onnx_tensor_ctx *ctx, Onnx__TensorProto *tp,
                                    const onnx_raw_span *raw, const char *what, graph_tensor *out,
                                    vkml_error *err)
{
    memset(out, 0, sizeof(*out));
    out->name = vkml_arena_strdup(ctx->arena, tp->name);
    if (!out->name)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
    if (!tp->has_data_type)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: has no data type", what);
    vkml_status st = onnx_dtype(tp->data_type, what, &out->dtype, err);
    size_t count = 0, bytes;
    if (st == VKML_OK)
        st = decode_shape(tp, what, out, &count, err);
    if (st != VKML_OK)
        return st;
    if (tp->segment)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s: segmented tensors are not supported",
                         what);
    if (out->dtype == VKML_DTYPE_STRING)
        return decode_strings(ctx, tp, what, count, out, err);
    if (!vkml_dtype_bytes(out->dtype, count, &bytes))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: size overflows", what);
    out->size = bytes;
    if (tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
        return decode_external(ctx, tp, what, bytes, out, err);
    if (tp->has_data_location && tp->data_location != ONNX__TENSOR_PROTO__DATA_LOCATION__DEFAULT)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: invalid data_location %d", what,
                         (int)tp->data_location);
    if (raw && raw->present)
        return decode_span(ctx, raw, what, bytes, out, err);
    if (tp->has_raw_data)
        return decode_raw(ctx, tp, what, bytes, out, err);
    return decode_typed(ctx, tp, what, count, bytes, out, err);
}

/* ------------------------------------------------------------------------------------- */
/* Public .pb reading                                                                     */

/* A string tensor as one malloc'ed block (vkml_tensor_release frees it): the pointer
 * array, then the strings it points to. */
static void *strings_block(const graph_tensor *t)
{
    size_t n = t->size / sizeof(char *), bytes = t->size;
    const char *const *src = t->data;
    for (size_t i = 0; i < n; i++)
        if (__builtin_add_overflow(bytes, strlen(src[i]) + 1, &bytes))
            return NULL;
    char **block = malloc(bytes ? bytes : 1);
    char *text = block ? (char *)(block + n) : NULL;
    for (size_t i = 0; block && i < n; i++) {
        size_t len = strlen(src[i]) + 1;
        memcpy(text, src[i], len);
        block[i] = text;
        text += len;
    }
    return block;
}

static vkml_status tensor_to_public(const graph_tensor *t, vkml_tensor *out, char **name,
                                    vkml_error *err)
{
    bool strings = t->dtype == VKML_DTYPE_STRING;
    void *data = strings ? strings_block(t) : malloc(t->size ? t->size : 1);
    char *copy = name ? strdup(t->name) : NULL;
    if (!data || (name && !copy)) {
        free(data);
        free(copy);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "tensor '%s': out of memory", t->name);
    }
    if (t->size && !strings)
        memcpy(data, t->data, t->size);
    out->dtype = t->dtype;
    out->rank = t->rank;
    memcpy(out->dims, t->dims, sizeof(out->dims));
    out->data = data;
    out->size = t->size;
    if (name)
        *name = copy;
    return VKML_OK;
}

vkml_status vkml_tensor_read_memory(const void *bytes, size_t size, vkml_tensor *out, char **name,
                                    vkml_error *err)
{
    if (!out)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "vkml_tensor_read_memory: out is NULL");
    memset(out, 0, sizeof(*out));
    if (name)
        *name = NULL;
    ProtobufCMessage *msg;
    vkml_status st = onnx_unpack(&onnx__tensor_proto__descriptor, bytes, size, "tensor", &msg, err);
    if (st != VKML_OK)
        return st;
    onnx_tensor_ctx ctx = {.arena = vkml_arena_create()};
    graph_tensor t;
    if (!ctx.arena)
        st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "tensor: out of memory");
    else
        st = onnx_tensor_decode(&ctx, (Onnx__TensorProto *)msg, "tensor", &t, err);
    if (st == VKML_OK)
        st = tensor_to_public(&t, out, name, err);
    vkml_arena_destroy(&ctx.arena);
    protobuf_c_message_free_unpacked(msg, NULL);
    return st;
}

vkml_status vkml_tensor_read_file(const char *path, vkml_tensor *out, char **name, vkml_error *err)
{
    if (!path || !out)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "vkml_tensor_read_file: path and out must not be NULL");
    onnx_mapping map;
    vkml_status st = onnx_map_file(path, false, &map, err);
    if (st != VKML_OK)
        return st;
    st = vkml_tensor_read_memory(map.data, map.size, out, name, err);
    if (st != VKML_OK)
        vkml_error_prefix(err, "%s", path);
    onnx_unmap(&map);
    return st;
}

void vkml_tensor_release(vkml_tensor *tensor)
{
    if (!tensor)
        return;
    free(tensor->data);
    tensor->data = NULL;
    tensor->size = 0;
}
