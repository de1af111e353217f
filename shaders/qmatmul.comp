#version 450
// Integer matrix products Y [batch, m, n] = A [batch, m, k] x B [batch, k, n]:
//   acc = sum_k (A[b, m, k] - a_zero) * (B[b, k, n] - b_zero)   (int32, wrapping)
// MatMulInteger (-DQLINEAR=0) writes acc as int32; QLinearMatMul (-DQLINEAR=1) writes
// saturate(roundEven(acc * multiplier) + y_zero) as 8-bit (in double: exact like the CPU).
// A is the variant's type T (int8 or uint8); B and Y are read and written as bytes,
// signed per b_signed / y_lo. a_zero comes from binding 2 when a_zero_in_buffer, else
// from the push block; the other zero points and the scales are per tensor, in the block.
//
// Tiled: a workgroup of 16 x 16 invocations computes a BM x BN block of Y (batch
// gl_WorkGroupID.z), each invocation TILE x TILE results strided by 16 rows and columns
// (TILE 4: 64 x 64 blocks; 2: 32 x 32, for products of few blocks). Over
// K in steps of BK the block's A and B tiles come into shared memory as int32 with their
// zero points taken off (each byte read once, coalesced), zero past the product's edges;
// then each invocation multiplies out of shared memory into int32 registers. Wrapping
// int32 sums of the same products are the same bits in any order.
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_control_flow_attributes : require
#define PUSH_QMATMUL
#include "buffers.glsl"
#include "push.h"

#define WG 16
#define TM TILE
#define TN TILE
#define BM (WG * TM)
#define BN (WG * TN)
#define BK 32
layout(local_size_x = WG, local_size_y = WG, local_size_z = 1) in;

DECLARE_IN(0, a)
DECLARE_IN_OF(uint8_t, 1, b)
DECLARE_IN(2, a_zero_buf)
#if QLINEAR
DECLARE_OUT_OF(uint8_t, 3, y)
#else
DECLARE_OUT_OF(int, 3, y)
#endif

// A's tile as [k][row] (a column of padding keeps the stores, which run along k, off a
// single bank), B's as [k][col].
shared int a_tile[BK][BM + 1];
shared int b_tile[BK][BN];

int b_at(uint i)
{
    int v = int(uint(b[i]));
    return p.b_signed != 0 ? (v ^ 128) - 128 : v;
}

void main()
{
    uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y, tid = ty * WG + tx;
    uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN, z = gl_WorkGroupID.z;
    uint rem = z, a_off = 0, b_off = 0;
    for (int d = int(p.batch_rank) - 1; d >= 0; d--) {
        uint idx = rem % p.batch_dims[d];
        rem /= p.batch_dims[d];
        a_off += idx * p.a_batch_strides[d];
        b_off += idx * p.b_batch_strides[d];
    }
    int az = p.a_zero_in_buffer != 0 ? int(A(a_zero_buf[0])) : int(p.a_zero);
    int bz = int(p.b_zero);

    int acc[TM][TN];
    [[unroll]] for (uint i = 0; i < TM; i++)
        [[unroll]] for (uint j = 0; j < TN; j++)
            acc[i][j] = 0;
    for (uint k0 = 0; k0 < p.k; k0 += BK) {
        for (uint e = tid; e < BM * BK; e += WG * WG) {
            uint r = e / BK, kk = e % BK, gr = row0 + r, gk = k0 + kk;
            a_tile[kk][r] = gr < p.m && gk < p.k ? int(A(a[a_off + gr * p.k + gk])) - az : 0;
        }
        for (uint e = tid; e < BK * BN; e += WG * WG) {
            uint kk = e / BN, c = e % BN, gk = k0 + kk, gc = col0 + c;
            b_tile[kk][c] = gk < p.k && gc < p.n ? b_at(b_off + gk * p.n + gc) - bz : 0;
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

    uint y_off = z * p.m * p.n;
    [[unroll]] for (uint i = 0; i < TM; i++) {
        uint row = row0 + ty + WG * i;
        [[unroll]] for (uint j = 0; j < TN; j++) {
            uint col = col0 + tx + WG * j;
            if (row >= p.m || col >= p.n)
                continue;
#if QLINEAR
            double q = roundEven(double(acc[i][j]) * double(p.multiplier)) + double(int(p.y_zero));
            q = clamp(q, double(p.y_lo), double(p.y_hi));
            y[y_off + row * p.n + col] = uint8_t(uint(int(q)) & 255u);
#else
            y[y_off + row * p.n + col] = acc[i][j];
#endif
        }
    }
}
