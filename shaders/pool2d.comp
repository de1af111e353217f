#version 450
// 2-D max/average pooling, one invocation per output element of Y [N*C, OH, OW].
// -D IS_MAX: 1 max, 0 average. Average divisor: the window's elements inside the input,
// or (count_include_pad) inside the padded input [-pad_begin, in + pad_end).
#include "index.glsl"
#include "buffers.glsl"
#include "window.glsl"

DECLARE_IN(0, x)
DECLARE_OUT(1, y)

layout(push_constant) uniform Params {
    Window win;
    uint count;              // N * C * OH * OW
    uint pad_end_h, pad_end_w;
    uint count_include_pad;
} p;

void main()
{
    uint i = flat_index();
    if (i >= p.count)
        return;
    uint ox = i % p.win.out_w;
    uint oy = (i / p.win.out_w) % p.win.out_h;
    uint plane = i / (p.win.out_w * p.win.out_h);
    int iy0 = int(oy * p.win.stride_h) - int(p.win.pad_h);
    int ix0 = int(ox * p.win.stride_w) - int(p.win.pad_w);
    int lim_h = int(p.win.in_h + p.pad_end_h), lim_w = int(p.win.in_w + p.pad_end_w);

#if IS_MAX
    float acc = -1.0 / 0.0;
#else
    float acc = 0.0;
#endif
    uint inside = 0, padded = 0;
    for (uint ky = 0; ky < p.win.k_h; ky++) {
        int iy = iy0 + int(ky * p.win.dil_h);
        for (uint kx = 0; kx < p.win.k_w; kx++) {
            int ix = ix0 + int(kx * p.win.dil_w);
            if (iy < lim_h && ix < lim_w)
                padded++;
            if (iy < 0 || iy >= int(p.win.in_h) || ix < 0 || ix >= int(p.win.in_w))
                continue;
            float v = x[(plane * p.win.in_h + uint(iy)) * p.win.in_w + uint(ix)];
            inside++;
#if IS_MAX
            acc = max(acc, v);
#else
            acc += v;
#endif
        }
    }
#if IS_MAX
    y[i] = acc;
#else
    uint div = p.count_include_pad != 0 ? padded : inside;
    y[i] = div > 0 ? acc / float(div) : uintBitsToFloat(0x7fc00000u); // NaN, as the CPU kernel
#endif
}
