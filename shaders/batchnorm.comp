#version 450
// BatchNormalization (inference) over [outer, channels, inner], in two passes because its
// five inputs and output exceed the four bindings of a kernel:
//   PASS=0: y = (x - mean[c]) / sqrt(var[c] + epsilon)   bindings x, mean, var, y
//   PASS=1: y = y * scale[c] + bias[c]                     bindings scale, bias, y (in place)
// and in training mode, once the batch statistics are in the running outputs:
//   PASS=2: out[c] = in[c] * momentum + out[c] * (1 - momentum)   bindings in, out (in place)
#include "index.glsl"
#include "buffers.glsl"
#define PUSH_BATCHNORM
#include "push.h"

#if PASS == 0
DECLARE_IN(0, x)
DECLARE_IN(1, mean)
DECLARE_IN(2, var)
DECLARE_OUT(3, y)
#elif PASS == 1
DECLARE_IN(0, scale)
DECLARE_IN(1, bias)
DECLARE_INOUT(2, y)
#else
DECLARE_IN(0, running)
DECLARE_INOUT(1, y)
#endif

void main()
{
    uint i = flat_index();
    if (i >= p.count)
        return;
    uint c = (i / p.inner) % p.channels;
#if PASS == 0
    y[i] = T((A(x[i]) - A(mean[c])) / sqrt(A(var[c]) + A(p.epsilon)));
#elif PASS == 1
    y[i] = T(A(y[i]) * A(scale[c]) + A(bias[c]));
#else
    y[i] = T(A(running[i]) * A(p.momentum) + A(y[i]) * (A(1) - A(p.momentum)));
#endif
}
