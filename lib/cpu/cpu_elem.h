#pragma once
/* Element access of any numeric dtype as double or int64, for the CPU kernels that run
 * one routine over every dtype (reductions, normalisations): floats are computed in
 * double, integers in int64 (wrapping as their type does when stored). */
#include "core/common.h"

#include <math.h>
#include <stdint.h>

static inline bool cpu_dtype_is_float(vkml_dtype t)
{
    return t == VKML_DTYPE_FLOAT || t == VKML_DTYPE_FLOAT16 || t == VKML_DTYPE_DOUBLE ||
           t == VKML_DTYPE_BFLOAT16 || vkml_dtype_is_small_float(t);
}

/* The small types: float8/float4 (small_float.c) and the packed integers. Packed stores
 * rewrite a shared byte: callers write them from one thread. */
static inline bool cpu_dtype_is_packed_int(vkml_dtype t)
{
    return t == VKML_DTYPE_INT4 || t == VKML_DTYPE_UINT4 || t == VKML_DTYPE_INT2 ||
           t == VKML_DTYPE_UINT2;
}

static inline unsigned cpu_small_bits(const void *p, vkml_dtype t, int64_t i)
{
    unsigned bits = (unsigned)vkml_dtype_bits(t);
    return bits < 8 ? vkml_packed_get(p, (size_t)i, bits) : ((const uint8_t *)p)[i];
}

static inline void cpu_small_set(void *p, vkml_dtype t, int64_t i, unsigned v)
{
    unsigned bits = (unsigned)vkml_dtype_bits(t);
    if (bits < 8)
        vkml_packed_set(p, (size_t)i, bits, v);
    else
        ((uint8_t *)p)[i] = (uint8_t)v;
}

/* v stored to a small float, saturating or not as Cast's attribute. */
static inline void cpu_store_small_float(void *p, vkml_dtype t, int64_t i, double v, bool saturate)
{
    cpu_small_set(p, t, i, vkml_small_float_encode(t, v, saturate));
}

static inline double cpu_load_f64(const void *p, vkml_dtype t, int64_t i)
{
    switch (t) {
    case VKML_DTYPE_FLOAT: return ((const float *)p)[i];
    case VKML_DTYPE_DOUBLE: return ((const double *)p)[i];
    case VKML_DTYPE_FLOAT16: return vkml_half_to_float(((const uint16_t *)p)[i]);
    case VKML_DTYPE_BFLOAT16: return vkml_bfloat16_to_float(((const uint16_t *)p)[i]);
    case VKML_DTYPE_INT8: return ((const int8_t *)p)[i];
    case VKML_DTYPE_UINT8:
    case VKML_DTYPE_BOOL: return ((const uint8_t *)p)[i];
    case VKML_DTYPE_INT16: return ((const int16_t *)p)[i];
    case VKML_DTYPE_UINT16: return ((const uint16_t *)p)[i];
    case VKML_DTYPE_INT32: return ((const int32_t *)p)[i];
    case VKML_DTYPE_UINT32: return ((const uint32_t *)p)[i];
    case VKML_DTYPE_INT64: return (double)((const int64_t *)p)[i];
    case VKML_DTYPE_UINT64: return (double)((const uint64_t *)p)[i];
    case VKML_DTYPE_INT4:
    case VKML_DTYPE_UINT4:
    case VKML_DTYPE_INT2:
    case VKML_DTYPE_UINT2: return (double)vkml_small_int_decode(t, cpu_small_bits(p, t, i));
    default:
        return vkml_dtype_is_small_float(t) ? vkml_small_float_decode(t, cpu_small_bits(p, t, i))
                                            : 0.0;
    }
}

static inline int64_t cpu_load_i64(const void *p, vkml_dtype t, int64_t i)
{
    switch (t) {
    case VKML_DTYPE_INT8: return ((const int8_t *)p)[i];
    case VKML_DTYPE_UINT8:
    case VKML_DTYPE_BOOL: return ((const uint8_t *)p)[i];
    case VKML_DTYPE_INT16: return ((const int16_t *)p)[i];
    case VKML_DTYPE_UINT16: return ((const uint16_t *)p)[i];
    case VKML_DTYPE_INT32: return ((const int32_t *)p)[i];
    case VKML_DTYPE_UINT32: return ((const uint32_t *)p)[i];
    case VKML_DTYPE_INT64:
    case VKML_DTYPE_UINT64: return ((const int64_t *)p)[i];
    case VKML_DTYPE_INT4:
    case VKML_DTYPE_UINT4:
    case VKML_DTYPE_INT2:
    case VKML_DTYPE_UINT2: return vkml_small_int_decode(t, cpu_small_bits(p, t, i));
    default: return (int64_t)cpu_load_f64(p, t, i);
    }
}

/* Float to integer as a C cast would, without its undefined cases (NaN, out of range). */
static inline int64_t cpu_f64_to_i64(double v)
{
    if (!(v == v))
        return 0;
    if (v >= 9.2233720368547758e18)
        return INT64_MAX;
    if (v <= -9.2233720368547758e18)
        return INT64_MIN;
    return (int64_t)v;
}

static inline void cpu_store_i64(void *p, vkml_dtype t, int64_t i, int64_t v)
{
    switch (t) {
    case VKML_DTYPE_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case VKML_DTYPE_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case VKML_DTYPE_BOOL: ((uint8_t *)p)[i] = v != 0; break;
    case VKML_DTYPE_INT16: ((int16_t *)p)[i] = (int16_t)v; break;
    case VKML_DTYPE_UINT16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case VKML_DTYPE_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    case VKML_DTYPE_UINT32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case VKML_DTYPE_INT64:
    case VKML_DTYPE_UINT64: ((int64_t *)p)[i] = v; break;
    case VKML_DTYPE_FLOAT: ((float *)p)[i] = (float)v; break;
    case VKML_DTYPE_DOUBLE: ((double *)p)[i] = (double)v; break;
    case VKML_DTYPE_FLOAT16: ((uint16_t *)p)[i] = vkml_half_from_float((float)v); break;
    case VKML_DTYPE_BFLOAT16: ((uint16_t *)p)[i] = vkml_bfloat16_from_float((float)v); break;
    case VKML_DTYPE_INT4:
    case VKML_DTYPE_UINT4:
    case VKML_DTYPE_INT2:
    case VKML_DTYPE_UINT2:
        cpu_small_set(p, t, i, vkml_small_int_encode(t, v)); /* wrapping */
        break;
    default:
        if (vkml_dtype_is_small_float(t))
            cpu_store_small_float(p, t, i, (double)v, true);
        break;
    }
}

static inline void cpu_store_f64(void *p, vkml_dtype t, int64_t i, double v)
{
    switch (t) {
    case VKML_DTYPE_FLOAT: ((float *)p)[i] = (float)v; break;
    case VKML_DTYPE_DOUBLE: ((double *)p)[i] = v; break;
    case VKML_DTYPE_FLOAT16: ((uint16_t *)p)[i] = vkml_half_from_float((float)v); break;
    case VKML_DTYPE_BFLOAT16: ((uint16_t *)p)[i] = vkml_bfloat16_from_float((float)v); break;
    default:
        if (vkml_dtype_is_small_float(t))
            cpu_store_small_float(p, t, i, v, true);
        else
            cpu_store_i64(p, t, i, cpu_f64_to_i64(v));
        break;
    }
}

/* Smallest and largest value of an integer dtype (the empty-set identities of Max/Min). */
static inline int64_t cpu_int_min(vkml_dtype t)
{
    switch (t) {
    case VKML_DTYPE_INT8: return INT8_MIN;
    case VKML_DTYPE_INT16: return INT16_MIN;
    case VKML_DTYPE_INT32: return INT32_MIN;
    case VKML_DTYPE_INT64: return INT64_MIN;
    case VKML_DTYPE_INT4: return -8;
    case VKML_DTYPE_INT2: return -2;
    default: return 0;
    }
}

static inline int64_t cpu_int_max(vkml_dtype t)
{
    switch (t) {
    case VKML_DTYPE_INT8: return INT8_MAX;
    case VKML_DTYPE_UINT8: return UINT8_MAX;
    case VKML_DTYPE_BOOL: return 1;
    case VKML_DTYPE_INT16: return INT16_MAX;
    case VKML_DTYPE_UINT16: return UINT16_MAX;
    case VKML_DTYPE_INT32: return INT32_MAX;
    case VKML_DTYPE_UINT32: return UINT32_MAX;
    case VKML_DTYPE_INT4: return 7;
    case VKML_DTYPE_UINT4: return 15;
    case VKML_DTYPE_INT2: return 1;
    case VKML_DTYPE_UINT2: return 3;
    default: return INT64_MAX; /* uint64 max is -1 as stored: use the int64 one */
    }
}
