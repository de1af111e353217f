#version 450
// Register-blocked fp32 matrix product, tiled through shared memory: a workgroup computes
// a BM x BN block of Y, each of its (BM/TM) x (BN/TN) invocations a TM x TN micro-tile
// (rows ty + i * BM/TM, columns tx + j * BN/TN: conflict-free shared reads, coalesced
// stores), over K in steps of BK; the next K step is loaded into registers while the
// current one is multiplied. Tile sizes come from -D (shaders/meson.build's variants; the
// host picks one per shape, lib/vulkan/ops_gemm.c). Then bias and the fused epilogue.
//
// CONV=0: MatMul and Gemm, as matmul.comp:
//   Y[b, m, n] = epilogue(alpha * sum_k A[b, m, k] * B[b, k, n] + beta * C[m, n])
//   with element strides for A, B, C (Gemm's transposes, broadcast) and batch z.
// CONV=1: 2-D convolution as an implicit GEMM, per group g = z:
//   Y[n, g*Mg + m, pix] = epilogue(sum_k W[g*Mg + m, k] * Xcol[k, (n, pix)] + bias)
//   where k = (c, ky, kx) and Xcol is read from X on the fly (zero in the padding).
#include "buffers.glsl"
#if CONV
#include "window.glsl"
#endif

#define WG_X (BN / TN)
#define WG_Y (BM / TM)
#define THREADS (WG_X * WG_Y)
#define MAX_BATCH_RANK 4
layout(local_size_x = WG_X, local_size_y = WG_Y, local_size_z = 1) in;

DECLARE_IN(0, a)   // A; conv: X
DECLARE_IN(1, b)   // B; conv: W
DECLARE_IN(2, c)   // C; conv: bias
DECLARE_IN(3, res) // the fused residual
DECLARE_OUT(4, y)

#if CONV
layout(push_constant) uniform Params {
    Window win;
    uint count;               // N * M * OH * OW
    uint in_channels;         // C
    uint out_channels;        // M
    uint group_in_channels;   // C / group
    uint group_out_channels;  // M / group
    uint has_bias;
    uint epi_act;
    float epi_alpha, epi_beta;
    uint epi_flags;
} p;
#else
layout(push_constant) uniform Params {
    uint m, n, k;
    uint a_sm, a_sk, b_sk, b_sn, c_sm, c_sn;
    float alpha, beta;
    uint has_c;
    uint batch_rank;
    uint batch_dims[MAX_BATCH_RANK];
    uint a_batch_strides[MAX_BATCH_RANK];
    uint b_batch_strides[MAX_BATCH_RANK];
    uint epi_act;
    float epi_alpha, epi_beta;
    uint epi_flags;
} p;
#endif
#include "epilogue.glsl"

#define A_LOADS (BM * BK / THREADS)
#define B_LOADS (BK * BN / THREADS)
shared float sa[BK][BM + 1];
shared float sb[BK][BN + 1];

uint g_m, g_n, g_k; // the product's M, N, K
uint a_base, b_base;
bool a_k_fast, b_n_fast; // which index of a tile load runs along memory

#if CONV
uint plane;
// Xcol[k, col] of group g (X is binding 0; the "B" operand of the product).
float load_b(uint k, uint col)
{
    if (k >= g_k || col >= g_n)
        return 0.0;
    uint ksize = p.win.k_h * p.win.k_w;
    uint n = col / plane, pix = col % plane;
    uint oy = pix / p.win.out_w, ox = pix % p.win.out_w;
    uint ch = k / ksize, kr = k % ksize;
    uint ky = kr / p.win.k_w, kx = kr % p.win.k_w;
    int iy = int(oy * p.win.stride_h + ky * p.win.dil_h) - int(p.win.pad_h);
    int ix = int(ox * p.win.stride_w + kx * p.win.dil_w) - int(p.win.pad_w);
    if (iy < 0 || iy >= int(p.win.in_h) || ix < 0 || ix >= int(p.win.in_w))
        return 0.0;
    return a[((n * p.in_channels + a_base + ch) * p.win.in_h + uint(iy)) * p.win.in_w + uint(ix)];
}
// W[g*Mg + m, k] (binding 1; the "A" operand).
float load_a(uint m, uint k)
{
    return m < g_m && k < g_k ? b[(b_base + m) * g_k + k] : 0.0;
}
#else
float load_a(uint m, uint k)
{
    return m < g_m && k < g_k ? float(a[a_base + m * p.a_sm + k * p.a_sk]) : 0.0;
}
float load_b(uint k, uint n)
{
    return k < g_k && n < g_n ? float(b[b_base + k * p.b_sk + n * p.b_sn]) : 0.0;
}
#endif

float reg_a[A_LOADS], reg_b[B_LOADS];

void load_tile(uint row0, uint col0, uint k0, uint tid)
{
    for (uint i = 0; i < A_LOADS; i++) {
        uint l = tid + i * THREADS;
        uint kk = a_k_fast ? l % BK : l / BM, mm = a_k_fast ? l / BK : l % BM;
        reg_a[i] = load_a(row0 + mm, k0 + kk);
    }
    for (uint i = 0; i < B_LOADS; i++) {
        uint l = tid + i * THREADS;
        uint kk = b_n_fast ? l / BN : l % BK, nn = b_n_fast ? l % BN : l / BK;
        reg_b[i] = load_b(k0 + kk, col0 + nn);
    }
}

void store_tile(uint tid)
{
    for (uint i = 0; i < A_LOADS; i++) {
        uint l = tid + i * THREADS;
        uint kk = a_k_fast ? l % BK : l / BM, mm = a_k_fast ? l / BK : l % BM;
        sa[kk][mm] = reg_a[i];
    }
    for (uint i = 0; i < B_LOADS; i++) {
        uint l = tid + i * THREADS;
        uint kk = b_n_fast ? l / BN : l % BK, nn = b_n_fast ? l % BN : l / BK;
        sb[kk][nn] = reg_b[i];
    }
}

void main()
{
    uint z = gl_WorkGroupID.z;
#if CONV
    plane = p.win.out_h * p.win.out_w;
    g_m = p.group_out_channels;
    g_n = p.count / p.out_channels;
    g_k = p.group_in_channels * p.win.k_h * p.win.k_w;
    a_base = z * p.group_in_channels; // first input channel of the group
    b_base = z * p.group_out_channels; // first weight row of the group
    a_k_fast = true;
    b_n_fast = true;
#else
    g_m = p.m;
    g_n = p.n;
    g_k = p.k;
    a_base = 0;
    b_base = 0;
    uint rem = z;
    for (int d = int(p.batch_rank) - 1; d >= 0; d--) {
        uint idx = rem % p.batch_dims[d];
        rem /= p.batch_dims[d];
        a_base += idx * p.a_batch_strides[d];
        b_base += idx * p.b_batch_strides[d];
    }
    a_k_fast = p.a_sk == 1u || p.a_sm != 1u;
    b_n_fast = p.b_sn == 1u || p.b_sk != 1u;
#endif
    uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    uint tid = ty * WG_X + tx;
    uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN;
    float acc[TM][TN];
    for (uint i = 0; i < TM; i++)
        for (uint j = 0; j < TN; j++)
            acc[i][j] = 0.0;

    load_tile(row0, col0, 0, tid);
    for (uint k0 = 0; k0 < g_k; k0 += BK) {
        store_tile(tid);
        barrier();
        if (k0 + BK < g_k)
            load_tile(row0, col0, k0 + BK, tid); // in flight during the products below
        for (uint kk = 0; kk < BK; kk++) {
            float ra[TM], rb[TN];
            for (uint i = 0; i < TM; i++)
                ra[i] = sa[kk][ty + i * WG_Y];
            for (uint j = 0; j < TN; j++)
                rb[j] = sb[kk][tx + j * WG_X];
            for (uint i = 0; i < TM; i++)
                for (uint j = 0; j < TN; j++)
                    acc[i][j] = fma(ra[i], rb[j], acc[i][j]);
        }
        barrier();
    }

    for (uint i = 0; i < TM; i++) {
        uint row = row0 + ty + i * WG_Y;
        if (row >= g_m)
            continue;
        for (uint j = 0; j < TN; j++) {
            uint col = col0 + tx + j * WG_X;
            if (col >= g_n)
                continue;
#if CONV
            uint oc = b_base + row;
            uint n = col / plane, pix = col % plane;
            uint at = (n * p.out_channels + oc) * plane + pix;
            float v = acc[i][j] + (p.has_bias != 0u ? float(c[oc]) : 0.0);
#else
            uint at = (z * g_m + row) * g_n + col;
            float v = p.alpha * acc[i][j];
            if (p.has_c != 0u)
                v += p.beta * float(c[row * p.c_sm + col * p.c_sn]);
#endif
            y[at] = T(epilogue_apply(v, at));
        }
    }
}
