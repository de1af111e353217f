#version 450
// Products of few rows (a classifier's [1, K] x [K, N] or [8, K] x [K, N], mnist-8's
// Times212): gemm_tiled.comp would give them one or two workgroups walking all of K
// serially. Here a workgroup of WG_SIZE invocations covers COLS output columns of ROWS rows
// (-D ROWS, default 1; the last workgroup's may run past M) of one batch (z); its WG_SIZE / COLS slices of K run in parallel (slice s
// takes k = s, s + SLICES, ...), each invocation holding one sum per row, then the slice sums
// of each (row, column) are added in a fixed order (deterministic). COLS 32 when B's columns
// are adjacent in memory (B [K, N]: a row of B per step, coalesced), -D K_CONTIG=1: COLS 4
// when K is (B^T, Gemm transB): consecutive k per column and step, 4 at a time as one vector
// where A's rows and B's columns allow it. -D NARROW=1: COLS 8 for B [K, N] of a few columns
// (a classifier's 10 classes: 32 slices, a quarter of the serial steps of COLS 32, whose
// lanes past N would idle). Each invocation issues 4 steps' loads before their products:
// the steps otherwise wait a load's round trip each (ResNet-50's [8, 2048] x [2048, 1000]^T
// took 28 us on the H200 with split-K tiles, [1, 2048] 12 us on 2 loads in flight). Same
// bindings, push block and store as matmul.comp (matmul_params.glsl); float variants only.
#extension GL_EXT_control_flow_attributes : require
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
#ifndef ROWS // rows a workgroup takes (gemv_k_contig_rows: 8, lib/vulkan/ops_matmul.h)
#define ROWS 1u
#endif
#define STEPS 4u // steps whose loads go out together
layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;

#include "matmul_params.glsl"

#if K_CONTIG
#if defined(DTYPE_F16)
#define T4 f16vec4
#else
#define T4 vec4
#endif
// A and B read 4 elements at a time: the allocator aligns every binding to 16 bytes.
DECLARE_IN_OF(T4, 0, a4)
DECLARE_IN_OF(T4, 1, b4)
#endif

shared A slice_sum[ROWS * WG_SIZE];

A acc[ROWS];

// Steps kk, kk + SLICES, ... (n of them, n <= STEPS) of the rows below `rows`, scalar.
void steps(uint ai, uint bi, uint kk, uint n, uint rows)
{
    A bv[STEPS];
    [[unroll]] for (uint u = 0; u < STEPS; u++)
        bv[u] = u < n ? A(b[bi + (kk + u * SLICES) * p.b_sk]) : A(0);
    [[unroll]] for (uint r = 0; r < ROWS; r++) {
        if (r < rows) {
            A av[STEPS];
            [[unroll]] for (uint u = 0; u < STEPS; u++)
                av[u] = u < n ? A(a[ai + r * p.a_sm + (kk + u * SLICES) * p.a_sk]) : A(0);
            [[unroll]] for (uint u = 0; u < STEPS; u++)
                acc[r] += av[u] * bv[u];
        }
    }
}

void main()
{
    uint lid = gl_LocalInvocationID.x, col_in = lid % COLS, slice = lid / COLS;
    uint col = gl_WorkGroupID.x * COLS + col_in, row0 = gl_WorkGroupID.y * ROWS,
         batch = gl_WorkGroupID.z, a_off, b_off;
    batch_offsets(batch, a_off, b_off);
    uint rows = min(ROWS, p.m - row0);
    // the element this invocation stores (if any): its C and residual read now
    bool stores = slice < rows && col < p.n;
    uint at = (batch * p.m + row0 + slice) * p.n + col;
    EpiIn epi;
    if (stores)
        epi = epilogue_inputs(row0 + slice, col, at);
    [[unroll]] for (uint r = 0; r < ROWS; r++)
        acc[r] = A(0);
    if (col < p.n) {
        uint ai = a_off + row0 * p.a_sm, bi = b_off + col * p.b_sn;
        uint kk = slice;
#if K_CONTIG
        // quads of k: A's rows and B's columns contiguous in k and every row and column
        // starting a vector (the same for the whole workgroup)
        if (p.a_sk == 1u && p.k % 4u == 0u && p.a_sm % 4u == 0u && a_off % 4u == 0u &&
            p.b_sn % 4u == 0u && b_off % 4u == 0u) {
            uint quads = p.k / 4u, q = slice;
            for (; q < quads; q += STEPS * SLICES) {
                vec4 bv[STEPS];
                [[unroll]] for (uint u = 0; u < STEPS; u++)
                    bv[u] = q + u * SLICES < quads ? vec4(b4[bi / 4u + q + u * SLICES]) : vec4(0.0);
                [[unroll]] for (uint r = 0; r < ROWS; r++) {
                    if (r < rows) {
                        vec4 av[STEPS];
                        [[unroll]] for (uint u = 0; u < STEPS; u++)
                            av[u] = q + u * SLICES < quads
                                        ? vec4(a4[(ai + r * p.a_sm) / 4u + q + u * SLICES])
                                        : vec4(0.0);
                        [[unroll]] for (uint u = 0; u < STEPS; u++)
                            acc[r] += dot(av[u], bv[u]);
                    }
                }
            }
            kk = p.k; // done
        }
#endif
        for (; kk + (STEPS - 1u) * SLICES < p.k; kk += STEPS * SLICES)
            steps(ai, bi, kk, STEPS, rows);
        if (kk < p.k)
            steps(ai, bi, kk, (p.k - kk + SLICES - 1u) / SLICES, rows);
    }
    [[unroll]] for (uint r = 0; r < ROWS; r++)
        slice_sum[r * WG_SIZE + lid] = acc[r];
    barrier();
    // invocation (column, slice r) adds row r's slice sums
    if (!stores)
        return;
    A sum = A(0);
    for (uint s = 0; s < SLICES; s++)
        sum += slice_sum[slice * WG_SIZE + s * COLS + col_in];
    y[at] = epilogue_of(sum, epi);
}
