#version 450
// 2-D convolution as an implicit GEMM, tiled through shared memory like matmul.comp:
// per group g, Y[g*Mg + m, col] = sum_k W[g*Mg + m, k] * X_col[k, col] (+ bias), where
// col = (n, oy, ox) runs over the output pixels of every image and k = (c, ky, kx) over
// the group's input window; X_col is read from X on the fly (zero in the padding).
// Same push block as conv2d.comp. Grid: x = col tiles, y = channel tiles, z = group.
#include "buffers.glsl"
#include "window.glsl"

#define TILE 16
#define ROWS_PER_THREAD 2
layout(local_size_x = TILE, local_size_y = TILE / ROWS_PER_THREAD, local_size_z = 1) in;

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

shared float tile_w[TILE][TILE + 1];
shared float tile_x[TILE][TILE + 1];

// X_col[k, col] of group g.
float load_x(uint g, uint k, uint col, uint n_cols, uint kk)
{
    uint ksize = p.win.k_h * p.win.k_w;
    if (k >= kk || col >= n_cols)
        return 0.0;
    uint plane = p.win.out_h * p.win.out_w;
    uint n = col / plane, pix = col % plane;
    uint oy = pix / p.win.out_w, ox = pix % p.win.out_w;
    uint c = k / ksize, kr = k % ksize;
    uint ky = kr / p.win.k_w, kx = kr % p.win.k_w;
    int iy = int(oy * p.win.stride_h + ky * p.win.dil_h) - int(p.win.pad_h);
    int ix = int(ox * p.win.stride_w + kx * p.win.dil_w) - int(p.win.pad_w);
    if (iy < 0 || iy >= int(p.win.in_h) || ix < 0 || ix >= int(p.win.in_w))
        return 0.0;
    uint ch = g * p.group_in_channels + c;
    return x[((n * p.in_channels + ch) * p.win.in_h + uint(iy)) * p.win.in_w + uint(ix)];
}

void main()
{
    uint g = gl_WorkGroupID.z;
    uint kk = p.group_in_channels * p.win.k_h * p.win.k_w;
    uint plane = p.win.out_h * p.win.out_w;
    uint n_cols = p.count / p.out_channels;
    uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    uint row0 = gl_WorkGroupID.y * TILE, col0 = gl_WorkGroupID.x * TILE;
    float acc[ROWS_PER_THREAD];
    for (uint r = 0; r < ROWS_PER_THREAD; r++)
        acc[r] = 0.0;

    for (uint k0 = 0; k0 < kk; k0 += TILE) {
        for (uint r = 0; r < ROWS_PER_THREAD; r++) {
            uint ly = ty + r * (TILE / ROWS_PER_THREAD);
            uint m = row0 + ly, k = k0 + tx;
            tile_w[ly][tx] = (m < p.group_out_channels && k < kk)
                ? w[(g * p.group_out_channels + m) * kk + k] : 0.0;
            tile_x[ly][tx] = load_x(g, k0 + ly, col0 + tx, n_cols, kk);
        }
        barrier();
        for (uint i = 0; i < TILE; i++) {
            float xv = tile_x[i][tx];
            for (uint r = 0; r < ROWS_PER_THREAD; r++)
                acc[r] += tile_w[ty + r * (TILE / ROWS_PER_THREAD)][i] * xv;
        }
        barrier();
    }

    uint col = col0 + tx;
    if (col >= n_cols)
        return;
    uint n = col / plane, pix = col % plane;
    for (uint r = 0; r < ROWS_PER_THREAD; r++) {
        uint m = row0 + ty + r * (TILE / ROWS_PER_THREAD);
        if (m >= p.group_out_channels)
            continue;
        uint oc = g * p.group_out_channels + m;
        float v = acc[r] + (p.has_bias != 0 ? bias[oc] : 0.0);
        y[(n * p.out_channels + oc) * plane + pix] = v;
    }
}
