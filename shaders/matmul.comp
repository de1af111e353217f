#version 450
// Batched matrix product, tiled through shared memory. Serves MatMul and Gemm:
//   Y[b, m, n] = alpha * sum_k A[b, m, k] * B[b, k, n] + beta * C[m, n]
// Element (m, k) of A is at a_batch + m * a_sm + k * a_sk (strides express Gemm's
// transposes), likewise B and C (C strides 0 where broadcast). Y is dense [batch, M, N].
// Batch b = gl_WorkGroupID.z is split over up to MATMUL_MAX_BATCH_RANK broadcast dims. The
// float32 variant of the tiled path is gemm_tiled.comp; this one serves the other dtypes.
#include "buffers.glsl"

#define TILE 16
#define ROWS_PER_THREAD 2
layout(local_size_x = TILE, local_size_y = TILE / ROWS_PER_THREAD, local_size_z = 1) in;

#include "matmul_params.glsl"

shared A tile_a[TILE][TILE + 1];
shared A tile_b[TILE][TILE + 1];

void main()
{
    uint batch = gl_WorkGroupID.z, rem = batch, a_base = 0, b_base = 0;
    for (int d = int(p.batch_rank) - 1; d >= 0; d--) {
        uint idx = rem % p.batch_dims[d];
        rem /= p.batch_dims[d];
        a_base += idx * p.a_batch_strides[d];
        b_base += idx * p.b_batch_strides[d];
    }
    uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    uint row0 = gl_WorkGroupID.y * TILE, col0 = gl_WorkGroupID.x * TILE;
    A acc[ROWS_PER_THREAD];
    for (uint r = 0; r < ROWS_PER_THREAD; r++)
        acc[r] = A(0);

    for (uint k0 = 0; k0 < p.k; k0 += TILE) {
        for (uint r = 0; r < ROWS_PER_THREAD; r++) {
            uint ly = ty + r * (TILE / ROWS_PER_THREAD);
            uint am = row0 + ly, ak = k0 + tx;
            tile_a[ly][tx] = (am < p.m && ak < p.k) ? A(a[a_base + am * p.a_sm + ak * p.a_sk]) : A(0);
            uint bk = k0 + ly, bn = col0 + tx;
            tile_b[ly][tx] = (bk < p.k && bn < p.n) ? A(b[b_base + bk * p.b_sk + bn * p.b_sn]) : A(0);
        }
        barrier();
        for (uint kk = 0; kk < TILE; kk++) {
            A bv = tile_b[kk][tx];
            for (uint r = 0; r < ROWS_PER_THREAD; r++)
                acc[r] += tile_a[ty + r * (TILE / ROWS_PER_THREAD)][kk] * bv;
        }
        barrier();
    }

    uint col = col0 + tx;
    for (uint r = 0; r < ROWS_PER_THREAD; r++) {
        uint row = row0 + ty + r * (TILE / ROWS_PER_THREAD);
        if (row >= p.m || col >= p.n)
            continue;
        uint at = (batch * p.m + row) * p.n + col;
        y[at] = epilogue(acc[r], row, col, at);
    }
}
