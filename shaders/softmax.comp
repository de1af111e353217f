#version 450
// Softmax over the middle axis of an [outer, axis_len, inner] view, one invocation per
// (outer, inner) line: max, sum of exp(x - max), then normalise.
#include "index.glsl"
#include "buffers.glsl"

DECLARE_IN(0, x)
DECLARE_OUT(1, y)

layout(push_constant) uniform Params {
    uint lines;     // outer * inner
    uint axis_len;
    uint inner;
} p;

void main()
{
    uint i = flat_index();
    if (i >= p.lines)
        return;
    uint o = i / p.inner, in_ = i % p.inner;
    uint base = o * p.axis_len * p.inner + in_;
    float mx = -1.0 / 0.0;
    for (uint a = 0; a < p.axis_len; a++)
        mx = max(mx, x[base + a * p.inner]);
    float sum = 0.0;
    for (uint a = 0; a < p.axis_len; a++)
        sum += exp(x[base + a * p.inner] - mx);
    for (uint a = 0; a < p.axis_len; a++)
        y[base + a * p.inner] = exp(x[base + a * p.inner] - mx) / sum;
}
