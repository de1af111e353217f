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
#define LANES 256u
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
shared ACC lane_acc[LANES];
shared uint lane_idx[LANES];

uint line_index() { return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; }
uint lane() { return gl_LocalInvocationID.x; }

// Tree reduction over the workgroup; every invocation gets the result. Called by all
// invocations of the workgroup (the line test before it is uniform).
ACC lanes_combine(ACC v, uint how)
{
    uint t = lane();
    barrier();
    lane_acc[t] = v;
    barrier();
    for (uint s = LANES / 2; s > 0; s >>= 1) {
        if (t < s)
            lane_acc[t] = combine(lane_acc[t], lane_acc[t + s], how);
        barrier();
    }
    return lane_acc[0];
}

// The best (value, index) over the workgroup: larger (want_max) or smaller value, ties to
// the lower index, or the higher with last.
uint lanes_best(ACC v, uint idx, bool want_max, bool last)
{
    uint t = lane();
    barrier();
    lane_acc[t] = v;
    lane_idx[t] = idx;
    barrier();
    for (uint s = LANES / 2; s > 0; s >>= 1) {
        if (t < s) {
            ACC a = lane_acc[t], b = lane_acc[t + s];
            uint ia = lane_idx[t], ib = lane_idx[t + s];
            bool take_b = ib != 0xffffffffu &&
                          (ia == 0xffffffffu || (want_max ? b > a : b < a) ||
                           (b == a && (last ? ib > ia : ib < ia)));
            if (take_b) {
                lane_acc[t] = b;
                lane_idx[t] = ib;
            }
        }
        barrier();
    }
    return lane_idx[0];
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
