#version 450
// Global max/average pooling: one invocation per (n, c) plane of `size` elements.
// -D IS_MAX: 1 max, 0 average.
#define PUSH_GLOBAL_POOL
#include "index.glsl"
#include "buffers.glsl"
#include "push.h"

DECLARE_IN(0, x)
DECLARE_OUT(1, y)

void main()
{
    uint i = flat_index();
    if (i >= p.planes)
        return;
    uint base = i * p.size;
#if IS_MAX
    A acc = A(-1.0 / 0.0);
    for (uint j = 0; j < p.size; j++)
        acc = max(acc, A(x[base + j]));
    y[i] = T(acc);
#else
    A acc = A(0.0);
    for (uint j = 0; j < p.size; j++)
        acc += A(x[base + j]);
    y[i] = T(acc / A(p.size));
#endif
}
