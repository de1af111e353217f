#version 450
// Register-blocked fp32 matrix product, tiled through shared memory: a workgroup computes
// a BM x BN block of Y, each of its (BM/TM) x (BN/TN) invocations a TM x TN micro-tile made
// of TM/4 x TN/4 runs of 4 rows and 4 columns (rows 4 * (ty + i * BM/TM) + 0..3, columns
// 4 * (tx + j * BN/TN) + 0..3): the inner loop reads shared memory as vec4, (TM + TN) / 4
// loads per TM * TN FMAs, conflict-free. Over K in steps of BK through two shared stages
// (one barrier a step): the next step is loaded into registers while the current one is
// multiplied, then stored into the other stage. Tile loads go 4 elements at a time along
// the operand's fast index: one vector load where the whole tile is inside and aligned
// (gemm_operands.glsl: a_runs_fast), else four checked ones. Tile sizes come from -D
// (shaders/meson.build's variants; the host picks one per shape, lib/vulkan/ops_gemm.c).
// Then bias and the fused epilogue.
//
// CONV=0: MatMul and Gemm, as matmul.comp:
//   Y[b, m, n] = epilogue(alpha * sum_k A[b, m, k] * B[b, k, n] + beta * C[m, n])
//   with element strides for A, B, C (Gemm's transposes, broadcast) and batch z.
// CONV=1: 2-D convolution as an implicit GEMM, per group g = z:
//   Y[n, g*Mg + m, pix] = epilogue(sum_k W[g*Mg + m, k] * Xcol[k, (n, pix)] + bias)
//   where k = (c, ky, kx) and Xcol is read from X on the fly (zero in the padding).
#include "buffers.glsl"
#extension GL_EXT_control_flow_attributes : require

#define WG_X (BN / TN)
#define WG_Y (BM / TM)
#define THREADS (WG_X * WG_Y)
layout(local_size_x = WG_X, local_size_y = WG_Y, local_size_z = 1) in;

#include "gemm_operands.glsl"

#define A_QUADS (BM * BK / (4 * THREADS)) // 4-element loads of the A tile per invocation
#define B_QUADS (BK * BN / (4 * THREADS))
#if TM % 4 != 0 || TN % 4 != 0 || BK % 4 != 0 || (BM * BK) % (4 * THREADS) != 0 || \
    (BK * BN) % (4 * THREADS) != 0
#error "gemm_tiled.comp: TM, TN, BK multiples of 4 and whole quads per invocation"
#endif
// A transposed (k, m) and B (k, n), as vec4 of 4 rows or columns; rows padded by one vec4
// so that the transposing stores of k-fast loads spread over the banks.
shared vec4 sa[2][BK][BM / 4 + 1];
shared vec4 sb[2][BK][BN / 4 + 1];

vec4 reg_a[A_QUADS], reg_b[B_QUADS];

void load_tile(uint row0, uint col0, uint k0, uint tid)
{
    bool fast_a = a_runs_fast(row0, k0, BM, BK, 4u), fast_b = b_runs_fast(k0, col0, BK, BN, 4u);
    [[unroll]] for (uint i = 0; i < A_QUADS; i++) {
        uvec2 q = a_quad_at(tid + i * THREADS); // (m, k)
        reg_a[i] = load_a_quad(row0 + q.x, k0 + q.y, fast_a);
    }
    [[unroll]] for (uint i = 0; i < B_QUADS; i++) {
        uvec2 q = b_quad_at(tid + i * THREADS); // (n, k)
        reg_b[i] = b_quad(i, k0 + q.y, col0 + q.x, fast_b);
    }
}

// The invocation's quads (reg_a, reg_b) into stage s, A's and B's layouts as ak and bn.
void stage_quads(bool ak, bool bn, uint s, uint tid)
{
    [[unroll]] for (uint i = 0; i < A_QUADS; i++) {
        uvec2 q = a_quad_of(ak, tid + i * THREADS);
        if (ak) {
            [[unroll]] for (uint c = 0; c < 4; c++)
                sa[s][q.y + c][q.x / 4][q.x % 4] = reg_a[i][c];
        } else {
            sa[s][q.y][q.x / 4] = reg_a[i];
        }
    }
    [[unroll]] for (uint i = 0; i < B_QUADS; i++) {
        uvec2 q = b_quad_of(bn, tid + i * THREADS);
        if (bn) {
            sb[s][q.y][q.x / 4] = reg_b[i];
        } else {
            [[unroll]] for (uint c = 0; c < 4; c++)
                sb[s][q.y + c][q.x / 4][q.x % 4] = reg_b[i][c];
        }
    }
}

void store_tile(uint s, uint tid)
{
    stage_quads(a_k_fast, b_n_fast, s, tid);
}

vec4 acc[TM][TN / 4];

// One step's sums: stage s's BK lines into acc, (TM + TN) / 4 vector reads of shared memory
// per TM * TN FMAs.
void products(uint s, uint tx, uint ty)
{
    [[unroll]] for (uint kk = 0; kk < BK; kk++) {
        vec4 ra[TM / 4], rb[TN / 4];
        [[unroll]] for (uint i = 0; i < TM / 4; i++)
            ra[i] = sa[s][kk][ty + i * WG_Y];
        [[unroll]] for (uint j = 0; j < TN / 4; j++)
            rb[j] = sb[s][kk][tx + j * WG_X];
        [[unroll]] for (uint i = 0; i < TM; i++)
            [[unroll]] for (uint j = 0; j < TN / 4; j++)
                acc[i][j] = fma(vec4(ra[i / 4][i % 4]), rb[j], acc[i][j]);
    }
}

// The K loop of any block: each step's tiles loaded by checked quads where they reach past
// the product or lie unaligned (load_tile).
void k_loop(uint row0, uint col0, uint tid, uint tx, uint ty)
{
    if (k_begin < k_end) {
        load_tile(row0, col0, k_begin, tid);
        store_tile(0, tid);
    }
    barrier();
    uint s = 0;
    for (uint k0 = k_begin; k0 < k_end; k0 += BK) {
        bool more = k0 + BK < k_end;
        if (more)
            load_tile(row0, col0, k0 + BK, tid); // in flight during the products below
        products(s, tx, ty);
        // The other stage was last read before the previous barrier: no second barrier.
        if (more)
            store_tile(s ^ 1u, tid);
        barrier();
        s ^= 1u;
    }
}

#if !CONV && THREADS % (BK / 4) == 0 && THREADS % (BM / 4) == 0 && THREADS % (BN / 4) == 0
#define HAS_FAST_LOOP 1
// The K loop of a block whose every tile lies inside the product as whole aligned quads
// along each operand's fast index, K in whole steps (main's test); ak, bn: a_k_fast and
// b_n_fast as constants. Each quad of an invocation sits at one offset plus a constant
// stride, moved a constant distance a step: no tests and no index arithmetic in the loop.
// Its body is one block: the next step's quads are loaded every step (the last step loads
// its own again) and stored every step (the last into the stage no later step reads), so
// that the compiler keeps the loads in flight across the products and waits for them only
// where they are stored. Behind the general loop's branches it waited for them before the
// products (gemm_coop.comp's conv over taps showed the same: docs/performance.md, "Moves
// that wait").
void k_loop_fast(const bool ak, const bool bn, uint row0, uint col0, uint tid, uint tx, uint ty)
{
    uint steps = (k_end - k_begin) / BK;
    // quad i of A at (m, k) = a_quad_of(ak, tid + i * THREADS), B's at (n, k) likewise:
    // from one i to the next A's m moves THREADS / (BK / 4) (k fast) or its k THREADS / (BM /
    // 4), B's k THREADS / (BN / 4) (n fast) or its n THREADS / (BK / 4)
    uvec2 qa = a_quad_of(ak, tid), qb = b_quad_of(bn, tid);
    uint a_at = (a_base + (row0 + qa.x) * p.a_sm + (k_begin + qa.y) * p.a_sk) / 4u;
    uint a_i = (ak ? (THREADS / (BK / 4)) * p.a_sm : (THREADS / (BM / 4)) * p.a_sk) / 4u;
    uint a_step = BK * p.a_sk / 4u;
    uint b_at = (b_base + (k_begin + qb.y) * p.b_sk + (col0 + qb.x) * p.b_sn) / 4u;
    uint b_i = (bn ? (THREADS / (BN / 4)) * p.b_sk : (THREADS / (BK / 4)) * p.b_sn) / 4u;
    uint b_step = BK * p.b_sk / 4u;
    [[unroll]] for (uint i = 0; i < A_QUADS; i++)
        reg_a[i] = vec4(a4[a_at + i * a_i]);
    [[unroll]] for (uint i = 0; i < B_QUADS; i++)
        reg_b[i] = vec4(b4[b_at + i * b_i]);
    uint s = 0;
    for (uint t = 0; t <= steps; t++) {
        stage_quads(ak, bn, s, tid); // step t's tiles (in registers); t == steps: the end
        barrier();
        if (t == steps)
            break;
        // step t + 1's quads in flight during step t's products (the last step's own again)
        uint next = t + 1u < steps ? 1u : 0u;
        a_at += next * a_step;
        b_at += next * b_step;
        [[unroll]] for (uint i = 0; i < A_QUADS; i++)
            reg_a[i] = vec4(a4[a_at + i * a_i]);
        [[unroll]] for (uint i = 0; i < B_QUADS; i++)
            reg_b[i] = vec4(b4[b_at + i * b_i]);
        products(s, tx, ty);
        s ^= 1u;
    }
}
#else
#define HAS_FAST_LOOP 0
#endif

void main()
{
    uint z = gemm_z();
    gemm_locate(z);
    uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    uint tid = ty * WG_X + tx;
    uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN;
#if CONV
    xcol_init(col0, tid);
#endif
    [[unroll]] for (uint i = 0; i < TM; i++)
        [[unroll]] for (uint j = 0; j < TN / 4; j++)
            acc[i][j] = vec4(0.0);
#if HAS_FAST_LOOP
    bool all_fast = k_begin < k_end && (k_end - k_begin) % BK == 0u &&
                    a_runs_fast(row0, k_begin, BM, k_end - k_begin, 4u) &&
                    b_runs_fast(k_begin, col0, k_end - k_begin, BN, 4u);
    if (all_fast) {
        if (a_k_fast) {
            if (b_n_fast)
                k_loop_fast(true, true, row0, col0, tid, tx, ty);
            else
                k_loop_fast(true, false, row0, col0, tid, tx, ty);
        } else {
            if (b_n_fast)
                k_loop_fast(false, true, row0, col0, tid, tx, ty);
            else
                k_loop_fast(false, false, row0, col0, tid, tx, ty);
        }
    } else
#endif
        k_loop(row0, col0, tid, tx, ty);

    // The results copied once into an array indexed at run time (the driver keeps it in
    // local memory, read once a quad), so that the store loop stays rolled and the
    // epilogue's code is there once, not once per quad and element (acc itself is indexed
    // by constants only: indexed at run time it left the registers, 13x slower on the H200).
    vec4 quads[TM * (TN / 4)];
    [[unroll]] for (uint i = 0; i < TM; i++)
        [[unroll]] for (uint j = 0; j < TN / 4; j++)
            quads[i * (TN / 4) + j] = acc[i][j];
    [[dont_unroll]] for (uint q = 0; q < TM * (TN / 4); q++) {
        uint i = q / (TN / 4), j = q % (TN / 4);
        uint row = row0 + (ty + (i / 4) * WG_Y) * 4 + i % 4;
        uint col4 = col0 + (tx + j * WG_X) * 4;
        vec4 r = quads[q];
        if (row < g_m && !gemm_store_quad(row, col4, z, r))
            gemm_store_each(row, col4, z, r);
    }
}
