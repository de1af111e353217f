#version 450
// Elementwise binary op with numpy broadcasting: out[i] = a[ia] OP b[ib], where ia/ib are
// the output coordinates dotted with each input's strides (0 where broadcast).
// -D OP: 0 add, 1 sub, 2 mul, 3 div.
#define PUSH_BINARY
#include "index.glsl"
#include "buffers.glsl"
#include "push.h"

DECLARE_IN(0, a)
DECLARE_IN(1, b)
DECLARE_OUT(2, y)

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
    A x = A(a[ia]), z = A(b[ib]);
#if OP == 0
    y[i] = T(x + z);
#elif OP == 1
    y[i] = T(x - z);
#elif OP == 2
    y[i] = T(x * z);
#else
    y[i] = T(x / z);
#endif
}
