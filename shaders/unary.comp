#version 450
// Elementwise unary op. -D OP: 0 relu, 1 sigmoid, 2 tanh.
#include "index.glsl"
#include "buffers.glsl"

DECLARE_IN(0, x)
DECLARE_OUT(1, y)

layout(push_constant) uniform Params {
    uint count;
} p;

void main()
{
    uint i = flat_index();
    if (i >= p.count)
        return;
    float v = x[i];
#if OP == 0
    y[i] = max(v, 0.0);
#elif OP == 1
    // exp of a non-positive argument only: no overflow for large |v|.
    float e = exp(-abs(v));
    y[i] = v >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
#else
    float e = exp(-2.0 * abs(v));
    y[i] = sign(v) * (1.0 - e) / (1.0 + e);
#endif
}
