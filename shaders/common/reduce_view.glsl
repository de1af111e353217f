// The reduction view (lib/ops/reduce.h) walked by reduce.comp and norm.comp, and the
// two ways a kernel covers a line: one invocation per line (default), or with -DROWS one
// workgroup of LANES (256) invocations per line that stride over it and combine through
// shared memory (GPUs; lavapipe prefers the former). 256, not 64: EfficientNet's
// squeeze-excitation means are few long lines (32 of 112x112), which 64 lanes walked in 196
// dependent steps each. Needs the push block `p` with the
// VKML_REDUCE_VIEW_PUSH fields (push.h) and ACC, the accumulator type.
#ifndef VKML_REDUCE_VIEW_GLSL
#define VKML_REDUCE_VIEW_GLSL

uint view_offset(uint i, uint n, uint dims[4], uint strides[4])
{
    uint off = 0;
    for (int g = int(min(n, 4u)) - 1; g >= 0; g--) {
        off += (i % dims[g]) * strides[g];
        i /= dims[g];
    }
    return off;
}

uint line_offset(uint line) { return view_offset(line, p.n_keep, p.keep_dims, p.keep_strides); }
// A line of consecutive elements (the last axes of a dense tensor: ReduceMean over H and W,
// a normalisation's row) needs no index arithmetic per element (a uniform branch).
uint elem_offset(uint r)
{
    if (p.n_red == 1u && p.red_strides[0] == 1u)
        return r;
    return view_offset(r, p.n_red, p.red_dims, p.red_strides);
}

#define COMBINE_SUM 0
#define COMBINE_MAX 1
#define COMBINE_MIN 2
#define COMBINE_PROD 3

ACC combine(ACC a, ACC b, uint how)
{
    switch (how) {
    case COMBINE_MAX: return max(a, b);
    case COMBINE_MIN: return min(a, b);
    case COMBINE_PROD: return a * b;
    default: return a + b;
    }
}

#ifdef ROWS
// ROWS=1: 256 lanes a line, one line a workgroup. ROWS=2 (short lines, tens to hundreds of
// elements: the global pools of 7x7 and 14x14 maps): 32 lanes a line, 8 lines a workgroup;
// a line's lanes are adjacent invocations and combine in their own part of shared memory.
#if ROWS == 2
#define LANES 32u
#else
#define LANES 256u
#endif
#define LINES_PER_GROUP (256u / LANES)
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
shared ACC lane_acc[256];
shared uint lane_idx[256];

uint line_index()
{
    return (gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x) * LINES_PER_GROUP +
           gl_LocalInvocationID.x / LANES;
}
uint lane() { return gl_LocalInvocationID.x % LANES; }

#if defined(CLUSTER) && ROWS == 2
// CLUSTER (devices with subgroups of 32 or more and clustered operations: gpu_caps
// subgroup_lanes32): a line's 32 adjacent lanes combine within their subgroup, without
// shared memory or barriers (the kernel enables GL_KHR_shader_subgroup_clustered).
ACC lanes_combine(ACC v, uint how)
{
    switch (how) {
    case COMBINE_MAX: return subgroupClusteredMax(v, 32);
    case COMBINE_MIN: return subgroupClusteredMin(v, 32);
    case COMBINE_PROD: return subgroupClusteredMul(v, 32);
    default: return subgroupClusteredAdd(v, 32);
    }
}
#else
// Tree reduction over a line's lanes; each of them gets the result. Called by every
// invocation of the workgroup (barriers: the kernels keep the control flow uniform).
ACC lanes_combine(ACC v, uint how)
{
    uint t = lane(), at = gl_LocalInvocationID.x, first = at - t;
    barrier();
    lane_acc[at] = v;
    barrier();
    for (uint s = LANES / 2; s > 0; s >>= 1) {
        if (t < s)
            lane_acc[at] = combine(lane_acc[at], lane_acc[at + s], how);
        barrier();
    }
    return lane_acc[first];
}
#endif

// The best (value, index) over the workgroup: larger (want_max) or smaller value, ties to
// the lower index, or the higher with last.
uint lanes_best(ACC v, uint idx, bool want_max, bool last)
{
    uint t = lane(), at = gl_LocalInvocationID.x, first = at - t;
    barrier();
    lane_acc[at] = v;
    lane_idx[at] = idx;
    barrier();
    for (uint s = LANES / 2; s > 0; s >>= 1) {
        if (t < s) {
            ACC a = lane_acc[at], b = lane_acc[at + s];
            uint ia = lane_idx[at], ib = lane_idx[at + s];
            bool take_b = ib != 0xffffffffu &&
                          (ia == 0xffffffffu || (want_max ? b > a : b < a) ||
                           (b == a && (last ? ib > ia : ib < ia)));
            if (take_b) {
                lane_acc[at] = b;
                lane_idx[at] = ib;
            }
        }
        barrier();
    }
    return lane_idx[first];
}
#else
#include "index.glsl"
#define LANES 1u
uint line_index() { return flat_index(); }
uint lane() { return 0u; }
ACC lanes_combine(ACC v, uint how) { return v; }
uint lanes_best(ACC v, uint idx, bool want_max, bool last) { return idx; }
#endif

#endif
