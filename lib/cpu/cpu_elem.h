#pragma once
/*
 * Element access by dtype for CPU kernels that compute in double whatever the storage
 * type (resize, grid sampling, transposed conv ...): one kernel body serves float,
 * float16, double and the integer types. Integers are stored truncated toward zero and
 * saturated, as numpy's astype does for in-range values.
 */
#include "core/common.h"

#include <math.h>

static inline double cpu_elem_load(const void *base, vkml_dtype t, int64_t i)
{
    switch (t) {
    case VKML_DTYPE_FLOAT: return ((const float *)base)[i];
    case VKML_DTYPE_DOUBLE: return ((const double *)base)[i];
    case VKML_DTYPE_FLOAT16: return vkml_half_to_float(((const uint16_t *)base)[i]);
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
    case VKML_DTYPE_FLOAT16: ((uint16_t *)base)[i] = vkml_half_from_float((float)v); break;
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
