#include "core/common.h"

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
