#include "core/common.h"

#include <math.h>
#include <string.h>

typedef struct dtype_row {
    vkml_dtype dtype;
    const char *name;
    size_t size;
} dtype_row;

static const dtype_row dtype_table[] = {
    {VKML_DTYPE_FLOAT, "float", 4},     {VKML_DTYPE_UINT8, "uint8", 1},
    {VKML_DTYPE_INT8, "int8", 1},       {VKML_DTYPE_UINT16, "uint16", 2},
    {VKML_DTYPE_INT16, "int16", 2},     {VKML_DTYPE_INT32, "int32", 4},
    {VKML_DTYPE_INT64, "int64", 8},     {VKML_DTYPE_STRING, "string", 0},
    {VKML_DTYPE_BOOL, "bool", 1},       {VKML_DTYPE_FLOAT16, "float16", 2},
    {VKML_DTYPE_DOUBLE, "double", 8},   {VKML_DTYPE_UINT32, "uint32", 4},
    {VKML_DTYPE_UINT64, "uint64", 8},   {VKML_DTYPE_BFLOAT16, "bfloat16", 2},
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

size_t vkml_dtype_size(vkml_dtype dtype)
{
    const dtype_row *row = dtype_find(dtype);
    return row ? row->size : 0;
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
    size_t elem = vkml_dtype_size(dtype);
    if (elem == 0 || rank < 0 || rank > VKML_MAX_RANK)
        return false;
    size_t count = 1;
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 0 || !vkml_mul_size(count, (size_t)dims[i], &count))
            return false;
    }
    return vkml_mul_size(count, elem, out);
}

/* IEEE half <-> single, round to nearest even; NaN stays NaN, overflow goes to inf. */
float vkml_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (mant << 13);
    } else if (exp) {
        bits = sign | ((exp + 112) << 23) | (mant << 13);
    } else if (mant) { /* subnormal: mant * 2^-24, exact in float */
        float f = ldexpf((float)mant, -24);
        return sign ? -f : f;
    } else {
        bits = sign;
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

uint16_t vkml_float_to_half(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000);
    uint32_t abs = bits & 0x7fffffffu;
    if (abs >= 0x7f800000u) /* inf or NaN */
        return sign | 0x7c00 | (abs > 0x7f800000u ? 0x200 : 0);
    if (abs >= 0x477ff000u) /* rounds to >= 65520: inf */
        return sign | 0x7c00;
    if (abs < 0x38800000u) { /* below the smallest normal half: subnormal or zero */
        if (abs < 0x33000000u)
            return sign;
        uint32_t mant = (abs & 0x7fffff) | 0x800000, shift = 126 - (abs >> 23);
        uint32_t half = mant >> shift, rest = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rest > mid || (rest == mid && (half & 1)))
            half++;
        return sign | (uint16_t)half;
    }
    uint32_t h = ((abs >> 13) - (112u << 10)), rest = abs & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
        h++;
    return sign | (uint16_t)h;
}

float vkml_bfloat16_to_float(uint16_t b)
{
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

uint16_t vkml_float_to_bfloat16(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    if ((bits & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((bits >> 16) | 0x40);
    bits += 0x7fff + ((bits >> 16) & 1);
    return (uint16_t)(bits >> 16);
}
