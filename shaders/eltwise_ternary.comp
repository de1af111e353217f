#version 450
// Elementwise op of three broadcast inputs: y[i] = OP(a[ia], b[ib], c[ic]), strides as in
// eltwise_binary.comp (rank VKML_TERNARY_MAX_RANK at most).
//   OP_WHERE: a is the uint8 condition; y = a ? b : c.
//   OP_CLIP:  y = min(max(a, b), c) (max wins when b > c, like numpy); p.flags bit 0 says
//             b (min) is present, bit 1 c (max); an absent one is bound to a and unread.
#define PUSH_TERNARY
#include "buffers.glsl"
#include "push.h"

#ifdef OP_WHERE
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#endif
#include "index.glsl"

#ifdef OP_WHERE
DECLARE_IN_OF(uint8_t, 0, a)
#else
DECLARE_IN(0, a)
#endif
DECLARE_IN(1, b)
DECLARE_IN(2, c)
DECLARE_OUT(3, y)

void main()
{
    uint i = flat_index();
    if (i >= p.count)
        return;
    uint rem = i, ia = 0, ib = 0, ic = 0;
    for (int d = int(min(p.rank, VKML_TERNARY_MAX_RANK)) - 1; d >= 0; d--) {
        uint k = rem % p.dims[d];
        rem /= p.dims[d];
        ia += k * p.strides[d];
        ib += k * p.strides[VKML_TERNARY_MAX_RANK + d];
        ic += k * p.strides[2 * VKML_TERNARY_MAX_RANK + d];
    }
#ifdef OP_WHERE
    y[i] = a[ia] != uint8_t(0) ? b[ib] : c[ic];
#else
    A v = A(a[ia]);
    if ((p.flags & 1u) != 0u && v < A(b[ib]))
        v = A(b[ib]);
    if ((p.flags & 2u) != 0u && v > A(c[ic]))
        v = A(c[ic]);
    y[i] = T(v);
#endif
}
