#version 450
// The integer products (common/qprod.glsl: MatMulInteger and QLinearMatMul with QCONV=0,
// ConvInteger and QLinearConv as an implicit GEMM with QCONV=1) on every device, in int32
// from shared memory.
//
// A workgroup of 16 x 16 invocations computes a BM x BN block of Y (batch or group
// gl_WorkGroupID.z), each invocation TILE x TILE results strided by 16 rows and columns
// (TILE 4: 64 x 64 blocks; 2: 32 x 32, for products of few blocks). Over K in steps of BK
// the block's A and B tiles come into shared memory as int32 with their zero points taken
// off (each element read once; a conv's taps gathered through its window), zero past the
// product's edges; then each invocation multiplies out of shared memory into int32
// registers.
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
#include "qprod.glsl"

#define WG 16
#define TM TILE
#define TN TILE
#define BM (WG * TM)
#define BN (WG * TN)
#define BK 32
layout(local_size_x = WG, local_size_y = WG, local_size_z = 1) in;

// A's tile as [k][row] (a column of padding keeps the stores, which run along k, off a
// single bank), B's as [k][col].
shared int a_tile[BK][BM + 1];
shared int b_tile[BK][BN];

void main()
{
    uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y, tid = ty * WG + tx;
    uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN;
    qp_locate(gl_WorkGroupID.z);
    int bz = qp_b_zero(0u); // a conv's padding

    int acc[TM][TN];
    [[unroll]] for (uint i = 0; i < TM; i++)
        [[unroll]] for (uint j = 0; j < TN; j++)
            acc[i][j] = 0;
    for (uint k0 = qp_k_begin; k0 < qp_k_end; k0 += BK) {
        for (uint e = tid; e < BM * BK; e += WG * WG) {
            uint r = e / BK, kk = e % BK, gr = row0 + r, gk = k0 + kk;
            a_tile[kk][r] = gr < qp_m && gk < qp_k_end ? qp_a_at(gr, gk) - qp_a_zero(gr) : 0;
        }
        for (uint e = tid; e < BK * BN; e += WG * WG) {
            uint kk = e / BN, c = e % BN, gk = k0 + kk, gc = col0 + c;
            b_tile[kk][c] = gk < qp_k_end && gc < qp_n ? qp_b_at(gk, gc, bz) - qp_b_zero(gc) : 0;
        }
        barrier();
        [[unroll]] for (uint kk = 0; kk < BK; kk++) {
            int av[TM], bv[TN];
            [[unroll]] for (uint i = 0; i < TM; i++)
                av[i] = a_tile[kk][ty + WG * i];
            [[unroll]] for (uint j = 0; j < TN; j++)
                bv[j] = b_tile[kk][tx + WG * j];
            [[unroll]] for (uint i = 0; i < TM; i++)
                [[unroll]] for (uint j = 0; j < TN; j++)
                    acc[i][j] += av[i] * bv[j];
        }
        barrier();
    }

    // the multipliers once an invocation: a conv's by row, a matrix product's by column
#if QCONV
    float mult[TM];
    [[unroll]] for (uint t = 0; t < TM; t++) {
        uint row = row0 + ty + WG * t;
        mult[t] = row < qp_m ? qp_multiplier(row, 0u) : 0.0;
    }
#define MULT(i, j) mult[i]
#else
    float mult[TN];
    [[unroll]] for (uint t = 0; t < TN; t++) {
        uint col = col0 + tx + WG * t;
        mult[t] = col < qp_n ? qp_multiplier(0u, col) : 0.0;
    }
#define MULT(i, j) mult[j]
#endif
    [[unroll]] for (uint i = 0; i < TM; i++) {
        uint row = row0 + ty + WG * i;
        if (row >= qp_m)
            continue;
        [[unroll]] for (uint j = 0; j < TN; j++) {
            uint col = col0 + tx + WG * j;
            if (col < qp_n)
                qp_result(row, col, acc[i][j], MULT(i, j));
        }
    }
}
