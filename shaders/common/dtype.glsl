// The element type of a kernel variant, from one -D DTYPE_<x> the variant table passes
// (shaders/meson.build; none means DTYPE_F32):
//   T      the storage type of the tensors in buffers (DECLARE_IN/DECLARE_OUT)
//   A      the arithmetic type values are computed in (float for float16, int/uint for
//          8- and 16-bit integers)
//   UA     for integer types: the unsigned type of A (magnitudes, wrapping arithmetic)
//   IS_FLOAT, IS_SIGNED  1 or 0
// and the GLSL extensions that type needs. The device features behind them are checked
// on the C side (vk_dtype_supported) before a variant is chosen.
#ifndef VKML_DTYPE_GLSL
#define VKML_DTYPE_GLSL

#if !defined(DTYPE_F32) && !defined(DTYPE_F16) && !defined(DTYPE_F64) && \
    !defined(DTYPE_I8) && !defined(DTYPE_U8) && !defined(DTYPE_I16) && \
    !defined(DTYPE_U16) && !defined(DTYPE_I32) && !defined(DTYPE_U32) && \
    !defined(DTYPE_I64) && !defined(DTYPE_U64) && !defined(DTYPE_BOOL) && !defined(DTYPE_BF16)
#define DTYPE_F32 1
#endif

#if defined(DTYPE_F16)
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define T float16_t
#define A float
#define IS_FLOAT 1
#define IS_SIGNED 1
#elif defined(DTYPE_BF16)
// bfloat16: 16-bit storage of a float's high half; a kernel with a bf16 variant converts
// with bf16_to_float/bf16_from_float (cast.comp), T(a) is not a conversion.
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#define T uint16_t
#define A float
#define IS_FLOAT 1
#define IS_SIGNED 1
#elif defined(DTYPE_F64)
#define T double
#define A double
#define IS_FLOAT 1
#define IS_SIGNED 1
#elif defined(DTYPE_I8)
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#define T int8_t
#define A int
#define UA uint
#define IS_FLOAT 0
#define IS_SIGNED 1
#elif defined(DTYPE_U8) || defined(DTYPE_BOOL)
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#define T uint8_t
#define A uint
#define UA uint
#define IS_FLOAT 0
#define IS_SIGNED 0
#elif defined(DTYPE_I16)
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#define T int16_t
#define A int
#define UA uint
#define IS_FLOAT 0
#define IS_SIGNED 1
#elif defined(DTYPE_U16)
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#define T uint16_t
#define A uint
#define UA uint
#define IS_FLOAT 0
#define IS_SIGNED 0
#elif defined(DTYPE_I32)
#define T int
#define A int
#define UA uint
#define IS_FLOAT 0
#define IS_SIGNED 1
#elif defined(DTYPE_U32)
#define T uint
#define A uint
#define UA uint
#define IS_FLOAT 0
#define IS_SIGNED 0
#elif defined(DTYPE_I64)
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define T int64_t
#define A int64_t
#define UA uint64_t
#define IS_FLOAT 0
#define IS_SIGNED 1
#elif defined(DTYPE_U64)
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define T uint64_t
#define A uint64_t
#define UA uint64_t
#define IS_FLOAT 0
#define IS_SIGNED 0
#else
#define T float
#define A float
#define IS_FLOAT 1
#define IS_SIGNED 1
#endif

#endif
