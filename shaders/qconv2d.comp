#version 450
// Integer 2-D convolutions, one invocation per output element of Y [N, M, OH, OW]:
//   acc = sum (X - x_zero) * (W[m] - w_zero)   over the window (padding contributes 0)
// ConvInteger (-DQLINEAR=0) writes acc (int32). Binding 2 holds, as bytes, X's zero point
// at run time (aux_is_x_zero) or W's zero point (aux_is_w_zero: 1 one, 2 per channel);
// otherwise both come from the push block.
// QLinearConv (-DQLINEAR=1): binding 2 is the int32 bias (has_bias); writes
// saturate(roundEven((acc + bias) * multiplier) + y_zero) as bytes, in double like the
// CPU. X is the variant's type T (int8/uint8), W bytes signed per w_signed.
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#define PUSH_QCONV
#include "index.glsl"
#include "buffers.glsl"
#include "push.h"

DECLARE_IN(0, x)
DECLARE_IN_OF(uint8_t, 1, w)
#if QLINEAR
DECLARE_IN_OF(int, 2, bias)
DECLARE_OUT_OF(uint8_t, 3, y)
#else
DECLARE_IN_OF(uint8_t, 2, aux)
DECLARE_OUT_OF(int, 3, y)
#endif

int byte_value(uint8_t v, bool is_signed)
{
    int b = int(uint(v));
    return is_signed ? (b ^ 128) - 128 : b;
}

void main()
{
    uint i = flat_index();
    if (i >= p.count)
        return;
    uint ox = i % p.win.out_w;
    uint oy = (i / p.win.out_w) % p.win.out_h;
    uint m = (i / (p.win.out_w * p.win.out_h)) % p.out_channels;
    uint n = i / (p.win.out_w * p.win.out_h * p.out_channels);
    uint c0 = (m / p.group_out_channels) * p.group_in_channels;
    int iy0 = int(oy * p.win.stride_h) - int(p.win.pad_h);
    int ix0 = int(ox * p.win.stride_w) - int(p.win.pad_w);
    int xz = int(p.x_zero), wz = int(p.w_zero);
#if !QLINEAR
    if (p.aux_is_x_zero != 0)
        xz = byte_value(aux[0], IS_SIGNED != 0);
    if (p.aux_is_w_zero != 0) /* 2: one per output channel */
        wz = byte_value(aux[p.aux_is_w_zero == 2 ? m : 0], p.w_signed != 0);
#endif
    int acc = 0;
    for (uint c = 0; c < p.group_in_channels; c++) {
        uint x_plane = (n * p.in_channels + c0 + c) * p.win.in_h;
        uint w_plane = (m * p.group_in_channels + c) * p.win.k_h;
        for (uint ky = 0; ky < p.win.k_h; ky++) {
            int iy = iy0 + int(ky * p.win.dil_h);
            if (iy < 0 || iy >= int(p.win.in_h))
                continue;
            uint x_row = (x_plane + uint(iy)) * p.win.in_w;
            uint w_row = (w_plane + ky) * p.win.k_w;
            for (uint kx = 0; kx < p.win.k_w; kx++) {
                int ix = ix0 + int(kx * p.win.dil_w);
                if (ix >= 0 && ix < int(p.win.in_w))
                    acc += (int(A(x[x_row + uint(ix)])) - xz) *
                           (byte_value(w[w_row + kx], p.w_signed != 0) - wz);
            }
        }
    }
#if QLINEAR
    if (p.has_bias != 0)
        acc += bias[m];
    double q = roundEven(double(acc) * double(p.multiplier)) + double(int(p.y_zero));
    q = clamp(q, double(p.y_lo), double(p.y_hi));
    y[i] = uint8_t(uint(int(q)) & 255u);
#else
    y[i] = acc;
#endif
}
