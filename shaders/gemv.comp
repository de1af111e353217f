#version 450
// Products of few rows (a classifier's [1, K] x [K, N], mnist-8's Times212): gemm_tiled.comp
// would give them one or two workgroups walking all of K serially. Here a workgroup of
// WG_SIZE invocations covers COLS output columns of one row (y) of one batch (z); its
// WG_SIZE / COLS slices of K run in parallel (slice s takes k = s, s + SLICES, ...), then
// the slice sums of each column are added in a fixed order (deterministic). COLS 32 when B's
// columns are adjacent in memory (B [K, N]: a row of B per step, coalesced), -D K_CONTIG=1:
// COLS 4 when K is (B^T, Gemm transB): 64 consecutive k per column and step. -D NARROW=1:
// COLS 8 for B [K, N] of a few columns (a classifier's 10 classes: 32 slices, a quarter of
// the serial steps of COLS 32, whose lanes past N would idle). Same bindings, push block and
// store as matmul.comp (matmul_params.glsl); float variants only.
#include "buffers.glsl"

#define WG_SIZE 256
#if K_CONTIG
#define COLS 4u
#elif NARROW
#define COLS 8u
#else
#define COLS 32u
#endif
#define SLICES (WG_SIZE / COLS)
layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;

#include "matmul_params.glsl"

shared A slice_sum[WG_SIZE];

void main()
{
    uint lid = gl_LocalInvocationID.x, col_in = lid % COLS, slice = lid / COLS;
    uint col = gl_WorkGroupID.x * COLS + col_in, row = gl_WorkGroupID.y,
         batch = gl_WorkGroupID.z, a_off, b_off;
    batch_offsets(batch, a_off, b_off);
    A acc0 = A(0), acc1 = A(0);
    if (col < p.n) {
        uint ai = a_off + row * p.a_sm, bi = b_off + col * p.b_sn;
        uint kk = slice;
        // two products in flight per step
        for (; kk + SLICES < p.k; kk += 2u * SLICES) {
            acc0 += A(a[ai + kk * p.a_sk]) * A(b[bi + kk * p.b_sk]);
            acc1 += A(a[ai + (kk + SLICES) * p.a_sk]) * A(b[bi + (kk + SLICES) * p.b_sk]);
        }
        if (kk < p.k)
            acc0 += A(a[ai + kk * p.a_sk]) * A(b[bi + kk * p.b_sk]);
    }
    slice_sum[lid] = acc0 + acc1;
    barrier();
    if (slice != 0 || col >= p.n)
        return;
    A sum = A(0);
    for (uint s = 0; s < SLICES; s++)
        sum += slice_sum[s * COLS + col_in];
    uint at = (batch * p.m + row) * p.n + col;
    y[at] = epilogue(sum, row, col, at);
}
