#version 450
// Copies count 32-bit words (any 4-byte dtype; the host rounds byte sizes up to words).
#include "index.glsl"

layout(std430, set = 0, binding = 0) readonly buffer src_buf { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer dst_buf { uint dst[]; };

layout(push_constant) uniform Params {
    uint count;
} p;

void main()
{
    uint i = flat_index();
    if (i < p.count)
        dst[i] = src[i];
}
