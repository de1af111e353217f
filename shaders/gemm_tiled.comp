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
layout(local_size_x = WG_X, local_size_y = WG_Y, local_size_z = 1) in;

#include "gemm_operands.glsl"

#define A_LOADS (BM * BK / THREADS)
#define B_LOADS (BK * BN / THREADS)
shared float sa[BK][BM + 1];
shared float sb[BK][BN + 1];

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
    uint z = gemm_z();
    gemm_locate(z);
    uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    uint tid = ty * WG_X + tx;
    uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN;
    float acc[TM][TN];
    for (uint i = 0; i < TM; i++)
        for (uint j = 0; j < TN; j++)
            acc[i][j] = 0.0;

    load_tile(row0, col0, k_begin, tid);
    for (uint k0 = k_begin; k0 < k_end; k0 += BK) {
        store_tile(tid);
        barrier();
        if (k0 + BK < k_end)
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
            gemm_store(row, col, z, acc[i][j]);
        }
    }
}
