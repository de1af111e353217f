#include "core/common.h"

typedef struct dtype_row {
    vkml_dtype dtype;
    const char *name;
    size_t bits;
} dtype_row;

static const dtype_row dtype_table[] = {
    {VKML_DTYPE_FLOAT, "float", 32},
    {VKML_DTYPE_UINT8, "uint8", 8},
    {VKML_DTYPE_INT8, "int8", 8},
    {VKML_DTYPE_UINT16, "uint16", 16},
    {VKML_DTYPE_INT16, "int16", 16},
    {VKML_DTYPE_INT32, "int32", 32},
    {VKML_DTYPE_INT64, "int64", 64},
    {VKML_DTYPE_STRING, "string", 0},
    {VKML_DTYPE_BOOL, "bool", 8},
    {VKML_DTYPE_FLOAT16, "float16", 16},
    {VKML_DTYPE_DOUBLE, "double", 64},
    {VKML_DTYPE_UINT32, "uint32", 32},
    {VKML_DTYPE_UINT64, "uint64", 64},
    {VKML_DTYPE_BFLOAT16, "bfloat16", 16},
    {VKML_DTYPE_FLOAT8E4M3FN, "float8e4m3fn", 8},
    {VKML_DTYPE_FLOAT8E4M3FNUZ, "float8e4m3fnuz", 8},
    {VKML_DTYPE_FLOAT8E5M2, "float8e5m2", 8},
    {VKML_DTYPE_FLOAT8E5M2FNUZ, "float8e5m2fnuz", 8},
    {VKML_DTYPE_UINT4, "uint4", 4},
    {VKML_DTYPE_INT4, "int4", 4},
    {VKML_DTYPE_FLOAT4E2M1, "float4e2m1", 4},
    {VKML_DTYPE_FLOAT8E8M0, "float8e8m0", 8},
    {VKML_DTYPE_UINT2, "uint2", 2},
    {VKML_DTYPE_INT2, "int2", 2},
};

static const dtype_row *dtype_find(vkml_dtype dtype)
{
    for (size_t i = 0; i < VKML_ARRAY_SIZE(dtype_table); i++)
        if (dtype_table[i].dtype == dtype)
            return &dtype_table[i];
    return NULL;
}

const char *vkml_dtype_name(vkml_dtype dtype)
{
    const dtype_row *row = dtype_find(dtype);
    return row ? row->name : "undefined";
}

size_t vkml_dtype_bits(vkml_dtype dtype)
{
    const dtype_row *row = dtype_find(dtype);
    return row ? row->bits : 0;
}

size_t vkml_dtype_size(vkml_dtype dtype)
{
    size_t bits = vkml_dtype_bits(dtype);
    return bits % 8 == 0 ? bits / 8 : 0;
}

bool vkml_dtype_bytes(vkml_dtype dtype, size_t count, size_t *out)
{
    /* A string tensor's storage is its array of pointers (see vkml_tensor in vkml.h). */
    size_t bits = dtype == VKML_DTYPE_STRING ? sizeof(const char *) * 8 : vkml_dtype_bits(dtype);
    size_t total;
    if (bits == 0 || !vkml_mul_size(count, bits, &total))
        return false;
    *out = total / 8 + (total % 8 != 0);
    return true;
}

bool vkml_mul_size(size_t a, size_t b, size_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}

size_t vkml_tensor_element_count(int rank, const int64_t *dims)
{
    size_t count = 1;
    if (rank < 0 || rank > VKML_MAX_RANK || (rank > 0 && !dims))
        return 0;
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 0 || !vkml_mul_size(count, (size_t)dims[i], &count))
            return 0;
    }
    return count;
}

bool vkml_tensor_bytes(vkml_dtype dtype, int rank, const int64_t *dims, size_t *out)
{
    if (rank < 0 || rank > VKML_MAX_RANK)
        return false;
    size_t count = 1;
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 0 || !vkml_mul_size(count, (size_t)dims[i], &count))
            return false;
    }
    return vkml_dtype_bytes(dtype, count, out);
}

bool vkml_dtype_value(vkml_dtype dtype, const void *data, size_t i, double *out)
{
    size_t bits = vkml_dtype_bits(dtype);
    const char *p = (const char *)data + i * (bits / 8);
    switch (dtype) {
    case VKML_DTYPE_FLOAT: *out = *(const float *)p; return true;
    case VKML_DTYPE_DOUBLE: *out = *(const double *)p; return true;
    case VKML_DTYPE_FLOAT16: *out = vkml_half_to_float(*(const uint16_t *)p); return true;
    case VKML_DTYPE_BFLOAT16: *out = vkml_bfloat16_to_float(*(const uint16_t *)p); return true;
    case VKML_DTYPE_UINT8:
    case VKML_DTYPE_BOOL: *out = *(const uint8_t *)p; return true;
    case VKML_DTYPE_INT8: *out = *(const int8_t *)p; return true;
    case VKML_DTYPE_UINT16: *out = *(const uint16_t *)p; return true;
    case VKML_DTYPE_INT16: *out = *(const int16_t *)p; return true;
    case VKML_DTYPE_INT32: *out = *(const int32_t *)p; return true;
    case VKML_DTYPE_UINT32: *out = *(const uint32_t *)p; return true;
    case VKML_DTYPE_INT64: *out = (double)*(const int64_t *)p; return true;
    case VKML_DTYPE_UINT64: *out = (double)*(const uint64_t *)p; return true;
    case VKML_DTYPE_INT4:
    case VKML_DTYPE_UINT4:
    case VKML_DTYPE_INT2:
    case VKML_DTYPE_UINT2:
        *out = (double)vkml_small_int_decode(dtype, vkml_packed_get(data, i, (unsigned)bits));
        return true;
    case VKML_DTYPE_FLOAT4E2M1:
        *out = vkml_small_float_decode(dtype, vkml_packed_get(data, i, (unsigned)bits));
        return true;
    default:
        if (!vkml_dtype_is_small_float(dtype))
            return false;
        *out = vkml_small_float_decode(dtype, *(const uint8_t *)p);
        return true;
    }
}
