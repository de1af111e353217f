// Storage buffer bindings: every kernel uses set 0, bindings 0..3, fp32 elements.
// Kernels define IN0..IN2 / OUT as the bindings they use before including this file.
#ifndef VKML_BUFFERS_GLSL
#define VKML_BUFFERS_GLSL

#define DECLARE_IN(idx, name) \
    layout(std430, set = 0, binding = idx) readonly buffer name##_buf { float name[]; };
#define DECLARE_OUT(idx, name) \
    layout(std430, set = 0, binding = idx) writeonly buffer name##_buf { float name[]; };

#endif
