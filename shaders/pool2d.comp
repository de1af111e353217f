#version 450
// 2-D max/average pooling, one invocation per output element of Y [N*C, OH, OW].
// -D IS_MAX: 1 max, 0 average. Average divisor: the window's elements inside the input,
// or (count_include_pad) inside the padded input [-pad_begin, in + pad_end). Only the
// window's taps inside the input are walked (window_taps), as the CPU kernel does: a huge
// kernel over a small input costs what the input costs.
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
    uint ky0, ky1, kx0, kx1, py0, py1, px0, px1;
    window_taps(iy0, p.win.dil_h, p.win.k_h, 0, int(p.win.in_h), ky0, ky1);
    window_taps(ix0, p.win.dil_w, p.win.k_w, 0, int(p.win.in_w), kx0, kx1);
    window_taps(iy0, p.win.dil_h, p.win.k_h, -int(p.win.pad_h), int(p.win.in_h + p.pad_end_h),
                py0, py1);
    window_taps(ix0, p.win.dil_w, p.win.k_w, -int(p.win.pad_w), int(p.win.in_w + p.pad_end_w),
                px0, px1);

#if IS_MAX
    A acc = A(-1.0 / 0.0);
#else
    A acc = A(0.0);
#endif
    for (uint ky = ky0; ky < ky1; ky++) {
        uint row = (plane * p.win.in_h + uint(iy0 + int(ky * p.win.dil_h))) * p.win.in_w;
        for (uint kx = kx0; kx < kx1; kx++) {
            A v = A(x[row + uint(ix0 + int(kx * p.win.dil_w))]);
#if IS_MAX
            acc = max(acc, v);
#else
            acc += v;
#endif
        }
    }
#if IS_MAX
    y[i] = T(acc);
#else
    float inside = float(ky1 - ky0) * float(kx1 - kx0);
    float padded = float(py1 - py0) * float(px1 - px0);
    float div = p.count_include_pad != 0 ? padded : inside;
    y[i] = T(div > 0.0 ? acc / div : uintBitsToFloat(0x7fc00000u)); // NaN, as the CPU kernel
#endif
}
