#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
// TopK along an axis of X viewed as [outer, len, inner]: each element counts the elements
// of its line that order before it (largest or smallest first, ties by lower index, NaN
// above every number as the CPU kernel orders them); an element of rank r < k writes
// Values and Indices at position r. The host bounds len (the loop).
// - plain: one invocation per element of X, reading its line from global memory (short
//   lines, or more lines than a grid's y extent);
// - TILED: workgroup (t, l) ranks elements t*WG_SIZE.. of line l, the line passing through
//   shared memory WG_SIZE values at a time (a detector's RPN ranks thousands of anchors in
//   one line: there the plain form's serial global reads took milliseconds).
#if TILED
#define WG_SIZE 128
#endif
#define PUSH_TOPK
#include "index.glsl"
#include "buffers.glsl"
#include "push.h"

DECLARE_IN(0, x)
DECLARE_OUT(1, values)
DECLARE_OUT_OF(int64_t, 2, indices)

// Whether a orders above b by value (largest first).
bool above(A a, A b)
{
#if IS_FLOAT
    if (isnan(a) || isnan(b))
        return isnan(a) && !isnan(b);
#endif
    return a > b;
}

// Whether w, at position j of the line, orders before v at position a.
bool before(A w, uint j, A v, uint a)
{
    bool first = p.largest != 0 ? above(w, v) : above(v, w);
    bool tie = !above(w, v) && !above(v, w);
    return j != a && (first || (tie && j < a));
}

void write_ranked(uint o, uint i, uint a, uint rank, A v)
{
    uint at = (o * p.k + rank) * p.inner + i;
    values[at] = T(v);
    indices[at] = int64_t(a);
}

#if TILED
shared A tile[WG_SIZE];

void main()
{
    uint lane = gl_LocalInvocationID.x, line = gl_WorkGroupID.y;
    uint a = gl_WorkGroupID.x * WG_SIZE + lane;
    uint i = line % p.inner, o = line / p.inner;
    uint base = o * p.len * p.inner + i;
    bool mine = a < p.len;
    A v = mine ? A(x[base + a * p.inner]) : A(0);
    uint rank = 0;
    for (uint t0 = 0; t0 < p.len; t0 += WG_SIZE) {
        if (t0 + lane < p.len)
            tile[lane] = A(x[base + (t0 + lane) * p.inner]);
        barrier();
        uint n = min(uint(WG_SIZE), p.len - t0);
        if (mine && rank < p.k)
            for (uint j = 0; j < n; j++)
                rank += before(tile[j], t0 + j, v, a) ? 1u : 0u;
        barrier();
    }
    if (mine && rank < p.k)
        write_ranked(o, i, a, rank, v);
}
#else
void main()
{
    uint e = flat_index();
    if (e >= p.count)
        return;
    uint i = e % p.inner, a = (e / p.inner) % p.len, o = e / (p.inner * p.len);
    uint base = o * p.len * p.inner + i;
    A v = A(x[e]);
    uint rank = 0;
    for (uint j = 0; j < p.len && rank < p.k; j++)
        rank += before(A(x[base + j * p.inner]), j, v, a) ? 1u : 0u;
    if (rank < p.k)
        write_ranked(o, i, a, rank, v);
}
#endif
