#version 450
// ConvInteger and QLinearConv (common/qprod.glsl with QCONV=1) one invocation an output
// (Y's order: adjacent invocations store adjacent pixels), for convs whose groups have few
// output channels (depthwise ones): the implicit GEMM's blocks would hold a row or a few of
// 64. The taps in the padding are skipped: there X less its zero point is 0.
#extension GL_GOOGLE_include_directive : require
#define QCONV 1
#include "qprod.glsl"
#include "index.glsl"

void main()
{
    uint i = flat_index();
    if (i >= p.count)
        return;
    uint plane = p.win.out_h * p.win.out_w;
    uint m = (i / plane) % p.out_channels, col = (i / (plane * p.out_channels)) * plane + i % plane;
    qp_locate((m / p.group_out_channels) * p.splits);
    uint row = m % p.group_out_channels;
    int xz = qp_b_zero(0u), wz = qp_a_zero(row), iy0, ix0;
    uint at = qp_pixel(col, iy0, ix0), k = 0;
    int acc = 0;
    for (uint c = 0; c < p.group_in_channels; c++) {
        for (uint ky = 0; ky < p.win.k_h; ky++, k += p.win.k_w) {
            int iy = iy0 + int(ky * p.win.dil_h);
            if (uint(iy) >= p.win.in_h) // negative ones wrap
                continue;
            uint x_row = (c * p.win.in_h + uint(iy)) * p.win.in_w;
            for (uint kx = 0; kx < p.win.k_w; kx++) {
                int ix = ix0 + int(kx * p.win.dil_w);
                if (uint(ix) < p.win.in_w)
                    acc += (int(A(x[at + x_row + uint(ix)])) - xz) * (qp_a_at(row, k + kx) - wz);
            }
        }
    }
    qp_result(row, col, acc, qp_multiplier(row, col));
}
