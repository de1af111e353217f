#version 450
// Direct 2-D convolution, one invocation per output element of Y [N, M, OH, OW].
// X [N, C, H, W], W [M, C/group, KH, KW], B [M] (binding 2; ignored unless has_bias).
#include "index.glsl"
#include "buffers.glsl"
#include "window.glsl"

DECLARE_IN(0, x)
DECLARE_IN(1, w)
DECLARE_IN(2, bias)
DECLARE_OUT(3, y)

layout(push_constant) uniform Params {
    Window win;
    uint count;               // N * M * OH * OW
    uint in_channels;         // C
    uint out_channels;        // M
    uint group_in_channels;   // C / group
    uint group_out_channels;  // M / group
    uint has_bias;
} p;

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

    float acc = p.has_bias != 0 ? bias[m] : 0.0;
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
                    acc += x[x_row + uint(ix)] * w[w_row + kx];
            }
        }
    }
    y[i] = acc;
}
