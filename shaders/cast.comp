#version 450
#extension GL_EXT_control_flow_attributes : require
// Cast: y[i] = x[i] converted from T (the variant's dtype) to the destination type of one
// -D DST_<X>. Floats to integers truncate and saturate (NaN gives 0: out-of-range
// conversions are undefined in GLSL); integers to narrower integers wrap; anything to
// bool is x != 0. bfloat16 (source variant bf16, DST_BF16) is stored as uint16_t bits.
#define PUSH_UNARY
#include "buffers.glsl"
#include "push.h"

#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#if defined(DST_F32)
#define D float
#elif defined(DST_F16)
#define D float16_t
#elif defined(DST_F64)
#define D double
#elif defined(DST_I8)
#define D int8_t
#define D_MIN -128
#define D_MAX 127
#elif defined(DST_U8)
#define D uint8_t
#define D_MIN 0
#define D_MAX 255
#elif defined(DST_I16)
#define D int16_t
#define D_MIN -32768
#define D_MAX 32767
#elif defined(DST_U16)
#define D uint16_t
#define D_MIN 0
#define D_MAX 65535
#elif defined(DST_I32)
#define D int
#define D_MIN (-2147483647 - 1)
#define D_MAX 2147483647
#elif defined(DST_U32)
#define D uint
#define D_MIN 0u
#define D_MAX 4294967295u
#elif defined(DST_I64)
#define D int64_t
#define D_MIN (-9223372036854775807l - 1l)
#define D_MAX 9223372036854775807l
#elif defined(DST_U64)
#define D uint64_t
#define D_MIN 0ul
#define D_MAX 18446744073709551615ul
#elif defined(DST_BOOL)
#define D uint8_t
#elif defined(DST_BF16)
#define D uint16_t
#else
#error unknown DST
#endif

#include "index.glsl"

DECLARE_IN(0, x)
DECLARE_OUT_OF(D, 1, y)

// bfloat16 <-> float as lib/core/half.c: the high half, rounded to nearest even; NaN stays
// a (quiet) NaN.
float bf16_to_float(uint16_t b)
{
    return uintBitsToFloat(uint(b) << 16);
}

uint16_t bf16_from_float(float f)
{
    uint u = floatBitsToUint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return uint16_t((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return uint16_t(u >> 16);
}

D convert(A v)
{
#if defined(DST_BF16)
    return bf16_from_float(float(v));
#elif defined(DST_BOOL)
    return v != A(0) ? D(1) : D(0);
#elif defined(DST_F16) && !IS_FLOAT
    return D(float(v));
#elif defined(D_MIN) && IS_FLOAT
    if (isnan(v))
        return D(0);
    return v >= A(D_MAX) ? D(D_MAX) : v <= A(D_MIN) ? D(D_MIN) : D(v);
#else
    return D(v);
#endif
}

#if defined(DTYPE_BF16)
#define SRC float
#define LOAD(i) bf16_to_float(x[i])
#else
#define SRC A
#define LOAD(i) A(x[i])
#endif

void main()
{
    uint g = flat_index(), stride = dense_stride(p.count);
    if (g >= stride)
        return;
    SRC v[DENSE_ELEMS];
    [[unroll]] for (uint e = 0u; e < DENSE_ELEMS; e++) {
        uint i = g + e * stride;
        v[e] = i < p.count ? LOAD(i) : SRC(0);
    }
    [[unroll]] for (uint e = 0u; e < DENSE_ELEMS; e++) {
        uint i = g + e * stride;
        if (i < p.count)
            y[i] = convert(v[e]);
    }
}
