// Storage buffer bindings: every kernel uses set 0, bindings 0..3, elements of the
// variant's storage type T (dtype.glsl). DECLARE_IN_OF/DECLARE_OUT_OF take another type
// (int64_t indices, uint8_t conditions, ...).
#ifndef VKML_BUFFERS_GLSL
#define VKML_BUFFERS_GLSL
#include "dtype.glsl"

#define DECLARE_IN_OF(type, idx, name) \
    layout(std430, set = 0, binding = idx) readonly buffer name##_buf { type name[]; };
#define DECLARE_OUT_OF(type, idx, name) \
    layout(std430, set = 0, binding = idx) writeonly buffer name##_buf { type name[]; };
/* Read and written by the same dispatch (a second pass over an output). */
#define DECLARE_INOUT(idx, name) \
    layout(std430, set = 0, binding = idx) buffer name##_buf { T name[]; };
#define DECLARE_IN(idx, name) DECLARE_IN_OF(T, idx, name)
#define DECLARE_OUT(idx, name) DECLARE_OUT_OF(T, idx, name)

#endif
