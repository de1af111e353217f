#version 450
// A Conv's input unfolded into the B operand of a plain product (lib/vulkan/ops_conv.c,
// record_unfolded): cols[n][k][pixel] = X[n][c][oy * stride_h - pad_h + ky * dil_h]
// [ox * stride_w - pad_w + kx * dil_w] for k = (c * k_h + ky) * k_w + kx, 0 where that lies
// in the padding. Then Y[n] = W cols[n] (W as M x k) runs on the product kernels (vector
// loads, split-K, cooperative matrices) instead of the implicit GEMM's gathers.
// Workgroups (pixels / 64, rows, batch): a row's k splits once per workgroup, and the stores
// of a subgroup are adjacent.
#define PUSH_IM2COL
#include "buffers.glsl"
#include "push.h"
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

DECLARE_IN(0, x)
DECLARE_OUT(1, cols)

void main()
{
    uint pix = gl_GlobalInvocationID.x, k = gl_WorkGroupID.y, n = gl_WorkGroupID.z;
    if (pix >= p.pixels)
        return;
    uint taps = p.k_h * p.k_w;
    uint c = k / taps, tap = k % taps;
    uint ky = tap / p.k_w, kx = tap % p.k_w;
    uint oy = pix / p.out_w, ox = pix % p.out_w;
    int iy = int(oy * p.stride_h + ky * p.dil_h) - int(p.pad_h);
    int ix = int(ox * p.stride_w + kx * p.dil_w) - int(p.pad_w);
    T v = T(0);
    if (iy >= 0 && iy < int(p.in_h) && ix >= 0 && ix < int(p.in_w))
        v = x[((n * p.channels + c) * p.in_h + uint(iy)) * p.in_w + uint(ix)];
    cols[(n * p.rows + k) * p.pixels + pix] = v;
}
