#version 450
#extension GL_KHR_shader_subgroup_clustered : require
#extension GL_EXT_control_flow_attributes : require
// LayerNormalization and RMSNormalization over dense lines held in registers: 32 lanes a
// line (a cluster of the subgroup), 4 lines a workgroup. Each lane loads its share of the
// line as 16-byte vectors (8 halves or 4 floats, lane l taking vectors l, l + 32, ...) and
// those of the scale and the bias, every load issued before any is used; the mean and the
// variance are combined within the cluster (no shared memory, no barrier); then the lane
// writes its vectors normalised, scaled and shifted (scale and bias indexed by position in
// the line). norm.comp's NORM=3 does the same for any view; the host takes this kernel
// (lib/vulkan/ops_norm.c, vec_lines) for dense lines of whole vectors, at most VEC_MAX a
// lane (1, 2, 4 or 8: the smallest that holds the line; 8 is 2,048 halves, 1,024 floats),
// scale and bias read by position alone.
// Bindings: x, scale, bias (x again when absent), y; the push block is norm.comp's.
#define PUSH_NORM
#include "push.h"
#include "buffers.glsl"

#define LANES 32u
#define LINES_PER_GROUP 4u
layout(local_size_x = 128, local_size_y = 1, local_size_z = 1) in;

layout(std430, set = 0, binding = 0) readonly buffer x_buf { uvec4 xv[]; };
layout(std430, set = 0, binding = 1) readonly buffer scale_buf { uvec4 sv[]; };
layout(std430, set = 0, binding = 2) readonly buffer bias_buf { uvec4 bv[]; };
layout(std430, set = 0, binding = 3) writeonly buffer y_buf { uvec4 yv[]; };

#if defined(DTYPE_F16)
#define PER_VEC 8
// a vector's 8 halves as floats
void unpack(uvec4 u, out float v[PER_VEC])
{
    for (int i = 0; i < 4; i++) {
        vec2 h = unpackHalf2x16(u[i]);
        v[2 * i] = h.x;
        v[2 * i + 1] = h.y;
    }
}
uvec4 pack(float v[PER_VEC])
{
    uvec4 u;
    for (int i = 0; i < 4; i++)
        u[i] = packHalf2x16(vec2(v[2 * i], v[2 * i + 1]));
    return u;
}
#else
#define PER_VEC 4
void unpack(uvec4 u, out float v[PER_VEC])
{
    for (int i = 0; i < 4; i++)
        v[i] = uintBitsToFloat(u[i]);
}
uvec4 pack(float v[PER_VEC])
{
    return uvec4(floatBitsToUint(v[0]), floatBitsToUint(v[1]), floatBitsToUint(v[2]),
                 floatBitsToUint(v[3]));
}
#endif

void main()
{
    uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    uint line = group * LINES_PER_GROUP + gl_LocalInvocationID.x / LANES;
    uint lane = gl_LocalInvocationID.x % LANES;
    // A line past the end walks line 0 and stores nothing: its cluster stays whole.
    bool live = line < p.lines;
    line = live ? line : 0u;
    uint vecs = p.count / PER_VEC, base = line * vecs;
    // Every load is issued before any is used, none behind a branch: a vector past the
    // line's end reads its last vector (and counts for nothing), scale and bias read x
    // where absent (bound in their place). Loads under a test of their own, unpacked in
    // it, waited for their round trip one after another (H200, 2026-12-02: a [128, 768]
    // float16 LayerNormalization in a chain 5.1 us against 4.2).
    uvec4 xraw[VEC_MAX], sraw[VEC_MAX], braw[VEC_MAX];
    [[unroll]] for (int i = 0; i < VEC_MAX; i++) {
        uint at = min(uint(i) * LANES + lane, vecs - 1u);
        xraw[i] = xv[base + at];
        sraw[i] = sv[at];
        braw[i] = bv[at];
    }
    float v[VEC_MAX][PER_VEC];
    bool has[VEC_MAX]; // whether the lane's i-th vector is in the line
    float sum = 0.0;
    [[unroll]] for (int i = 0; i < VEC_MAX; i++) {
        has[i] = uint(i) * LANES + lane < vecs;
        unpack(xraw[i], v[i]);
        [[unroll]] for (int j = 0; j < PER_VEC; j++)
            sum += has[i] ? v[i][j] : 0.0;
    }
    float n = float(p.count);
    float mean = p.rms != 0 ? 0.0 : subgroupClusteredAdd(sum, LANES) / n;
    float sq = 0.0;
    [[unroll]] for (int i = 0; i < VEC_MAX; i++)
        [[unroll]] for (int j = 0; j < PER_VEC; j++) {
            float d = v[i][j] - mean;
            sq += has[i] ? d * d : 0.0;
        }
    float inv = inversesqrt(subgroupClusteredAdd(sq, LANES) / n + p.epsilon);
    [[unroll]] for (int i = 0; i < VEC_MAX; i++) {
        uint at = uint(i) * LANES + lane;
        float s[PER_VEC], b[PER_VEC];
        unpack(sraw[i], s);
        unpack(braw[i], b);
        [[unroll]] for (int j = 0; j < PER_VEC; j++)
            v[i][j] = (v[i][j] - mean) * inv * (p.has_scale != 0 ? s[j] : 1.0) +
                      (p.has_bias != 0 ? b[j] : 0.0);
        if (live && has[i])
            yv[base + at] = pack(v[i]);
    }
}
