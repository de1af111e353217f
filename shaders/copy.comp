#version 450
// Copies count 32-bit words (any dtype; the host rounds byte sizes up to words).
#define PUSH_COPY
#include "index.glsl"
#include "push.h"

layout(std430, set = 0, binding = 0) readonly buffer src_buf { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer dst_buf { uint dst[]; };

void main()
{
    uint i = flat_index();
    if (i < p.count)
        dst[i] = src[i];
}
