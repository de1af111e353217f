#version 450
// Elementwise unary op. -D OP: 0 relu, 1 sigmoid, 2 tanh.
#define PUSH_UNARY
#include "index.glsl"
#include "buffers.glsl"
#include "push.h"

DECLARE_IN(0, x)
DECLARE_OUT(1, y)

void main()
{
    uint i = flat_index();
    if (i >= p.count)
        return;
    A v = A(x[i]);
#if OP == 0
    y[i] = T(max(v, A(0)));
#elif OP == 1
    // exp of a non-positive argument only: no overflow for large |v|.
    A e = exp(-abs(v));
    y[i] = T(v >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e));
#else
    A e = exp(-2.0 * abs(v));
    y[i] = T(sign(v) * (1.0 - e) / (1.0 + e));
#endif
}
