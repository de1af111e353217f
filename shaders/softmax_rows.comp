#version 450
// Softmax of contiguous rows (inner == 1), one workgroup per row: the threads stride
// over the row and reduce the max and the sum of exp(x - max) through shared memory.
// Same push block as softmax.comp. Grid: x (and y spill) over rows.
#include "buffers.glsl"

#define WG 64
layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

DECLARE_IN(0, x)
DECLARE_OUT(1, y)

layout(push_constant) uniform Params {
    uint lines;     // rows
    uint axis_len;  // row length
    uint inner;     // 1
} p;

shared float partial[WG];

// Tree reduction of partial[]; op 0: max, 1: sum. Every thread gets the result.
float reduce(float v, uint op)
{
    uint t = gl_LocalInvocationID.x;
    partial[t] = v;
    barrier();
    for (uint s = WG / 2; s > 0; s >>= 1) {
        if (t < s)
            partial[t] = op == 0 ? max(partial[t], partial[t + s]) : partial[t] + partial[t + s];
        barrier();
    }
    float r = partial[0];
    barrier();
    return r;
}

void main()
{
    uint row = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (row >= p.lines)
        return; // uniform across the workgroup: no barrier is skipped by part of it
    uint base = row * p.axis_len, t = gl_LocalInvocationID.x;
    float mx = -1.0 / 0.0;
    for (uint a = t; a < p.axis_len; a += WG)
        mx = max(mx, x[base + a]);
    mx = reduce(mx, 0);
    float sum = 0.0;
    for (uint a = t; a < p.axis_len; a += WG)
        sum += exp(x[base + a] - mx);
    sum = reduce(sum, 1);
    for (uint a = t; a < p.axis_len; a += WG)
        y[base + a] = exp(x[base + a] - mx) / sum;
}
