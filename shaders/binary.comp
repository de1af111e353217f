#version 450
// Elementwise binary op with numpy broadcasting: out[i] = a[ia] OP b[ib], where ia/ib are
// the output coordinates dotted with each input's strides (0 where broadcast).
// -D OP: 0 add, 1 sub, 2 mul, 3 div.
#include "index.glsl"
#include "buffers.glsl"
#include "rank.glsl"

DECLARE_IN(0, a)
DECLARE_IN(1, b)
DECLARE_OUT(2, y)

layout(push_constant) uniform Params {
    uint count;
    uint rank;
    uint dims[MAX_RANK];      // output dims, innermost last
    uint a_strides[MAX_RANK];
    uint b_strides[MAX_RANK];
} p;

void main()
{
    uint i = flat_index();
    if (i >= p.count)
        return;
    uint rem = i, ia = 0, ib = 0;
    for (int d = int(p.rank) - 1; d >= 0; d--) {
        uint c = rem % p.dims[d];
        rem /= p.dims[d];
        ia += c * p.a_strides[d];
        ib += c * p.b_strides[d];
    }
    float x = a[ia], z = b[ib];
#if OP == 0
    y[i] = x + z;
#elif OP == 1
    y[i] = x - z;
#elif OP == 2
    y[i] = x * z;
#else
    y[i] = x / z;
#endif
}
