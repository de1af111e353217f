#pragma once
/*
 * Element access by dtype for CPU kernels that compute in double whatever the storage
 * type (resize, grid sampling, transposed conv ...): one kernel body serves float,
 * float16, double and the integer types. Integers are stored truncated toward zero and
 * saturated, as numpy's astype does for in-range values.
 */
#include "core/common.h"

#include <math.h>
#include <string.h>

/* IEEE half <-> float, round to nearest even. */
static inline float cpu_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp) {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    } else if (!man) {
        bits = sign;
    } else { /* subnormal: renormalise */
        int e = -1;
        do {
            e++;
            man <<= 1;
        } while (!(man & 0x400u));
        bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ffu) << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

static inline uint16_t cpu_float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof(x));
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t abs = x & 0x7fffffffu;
    if (abs >= 0x7f800000u) /* Inf, NaN (kept quiet) */
        return sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0);
    if (abs >= 0x477ff000u) /* rounds past the largest half */
        return sign | 0x7c00u;
    if (abs < 0x38800000u) { /* subnormal or zero: scale into the 10-bit mantissa */
        float scaled = fabsf(f) * 16777216.0f; /* 2^24: one unit is the smallest subnormal */
        return sign | (uint16_t)lrintf(scaled);
    }
    uint32_t rounded = abs + 0xfffu + ((abs >> 13) & 1u);
    return sign | (uint16_t)((rounded - 0x38000000u) >> 13);
}

static inline double cpu_elem_load(const void *base, vkml_dtype t, int64_t i)
{
    switch (t) {
    case VKML_DTYPE_FLOAT: return ((const float *)base)[i];
    case VKML_DTYPE_DOUBLE: return ((const double *)base)[i];
    case VKML_DTYPE_FLOAT16: return cpu_half_to_float(((const uint16_t *)base)[i]);
    case VKML_DTYPE_INT8: return ((const int8_t *)base)[i];
    case VKML_DTYPE_UINT8: return ((const uint8_t *)base)[i];
    case VKML_DTYPE_INT32: return ((const int32_t *)base)[i];
    case VKML_DTYPE_INT64: return (double)((const int64_t *)base)[i];
    default: return 0.0;
    }
}

static inline double cpu_elem_clamp(double v, double lo, double hi)
{
    return v != v ? 0.0 : v < lo ? lo : v > hi ? hi : v;
}

static inline void cpu_elem_store(void *base, vkml_dtype t, int64_t i, double v)
{
    switch (t) {
    case VKML_DTYPE_FLOAT: ((float *)base)[i] = (float)v; break;
    case VKML_DTYPE_DOUBLE: ((double *)base)[i] = v; break;
    case VKML_DTYPE_FLOAT16: ((uint16_t *)base)[i] = cpu_float_to_half((float)v); break;
    case VKML_DTYPE_INT8: ((int8_t *)base)[i] = (int8_t)cpu_elem_clamp(trunc(v), -128, 127); break;
    case VKML_DTYPE_UINT8: ((uint8_t *)base)[i] = (uint8_t)cpu_elem_clamp(trunc(v), 0, 255); break;
    case VKML_DTYPE_INT32:
        ((int32_t *)base)[i] = (int32_t)cpu_elem_clamp(trunc(v), -2147483648.0, 2147483647.0);
        break;
    case VKML_DTYPE_INT64:
        ((int64_t *)base)[i] = (int64_t)cpu_elem_clamp(trunc(v), -9.2e18, 9.2e18);
        break;
    default: break;
    }
}

/* Whether cpu_elem_load/store handle a dtype. */
#define CPU_ELEM_DTYPES                                                                            \
    (DT(FLOAT) | DT(DOUBLE) | DT(FLOAT16) | DT(INT8) | DT(UINT8) | DT(INT32) | DT(INT64))
