#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
// TopK along an axis of X viewed as [outer, len, inner]: one invocation per element of X
// counts the elements of its line that order before it (largest or smallest first, ties
// by lower index, NaN above every number as the CPU kernel orders them); an element of
// rank r < k writes Values and Indices at position r. The host bounds len (the loop).
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

void main()
{
    uint e = flat_index();
    if (e >= p.count)
        return;
    uint i = e % p.inner, a = (e / p.inner) % p.len, o = e / (p.inner * p.len);
    uint base = o * p.len * p.inner + i;
    A v = A(x[e]);
    uint rank = 0;
    for (uint j = 0; j < p.len && rank < p.k; j++) {
        if (j == a)
            continue;
        A w = A(x[base + j * p.inner]);
        bool before = p.largest != 0 ? above(w, v) : above(v, w);
        bool tie = !above(w, v) && !above(v, w);
        if (before || (tie && j < a))
            rank++;
    }
    if (rank < p.k) {
        uint at = (o * p.k + rank) * p.inner + i;
        values[at] = x[e];
        indices[at] = int64_t(a);
    }
}
