#version 450
// The integer products of common/qprod.glsl (MatMulInteger and QLinearMatMul with QCONV=0,
// ConvInteger and QLinearConv as an implicit GEMM with QCONV=1) on int8 cooperative
// matrices (the tensor cores), built on GL_KHR_cooperative_matrix by the glslang_next
// compiler.
//
// Every byte is taken to int8 first: a uint8 operand less 128 (its bits' top bit flipped),
// its zero point less 128 with it, so the products are int8 by int8:
//   acc = sum (a - za)(b - zb) = sum a b - zb sum_k a - za sum_k b + K za zb
// (int32, wrapping: the same bits as the CPU kernel's sum). A workgroup of 4 subgroups
// computes a 64 x 64 block of Y (batch or group gl_WorkGroupID.z), each subgroup 32 x 32 as
// 2 x 2 accumulators of 16 x 16, over K in steps of 32 (one fragment: A 16 x 32, B 32 x 16)
// through two shared stages (one barrier a step). Each step the 128 invocations store into
// the stage the next step reads the block's A tile (64 rows of 32 bytes) and B tile, 16
// bytes each, that they loaded during this step's products (one vector
// load where the operand's rows are whole 16-byte runs, else byte by byte, zero past the
// product), sum them where the sums count (A's per row where zb is not 0, B's per column
// where za is not 0: uint8 activations of zero point 128 by symmetric int8 weights need
// neither), and load the next step's while the subgroups multiply. B's tile is 32 lines of
// 64 bytes (k, col) for a matrix product; for a conv 64 lines of 32 bytes (col, k), each
// invocation gathering 16 taps of one pixel (a tap in the padding reads X's zero point).
// After the K loop those sums meet in shared memory, each subgroup stages its
// accumulators there one at a time, and its invocations finish each result: the sums'
// terms, then qp_result (a conv's bias, QLinear's requantization in double; split-K's
// first pass: the slice's part).
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
#include "qprod.glsl"

#define BM 64
#define BN 64
#define BK 32
#define FM 16 // fragment rows (A, the accumulator)
#define FN 16 // fragment columns (B, the accumulator)
#define SUBGROUP 32
#define THREADS 128
// A's tile as 64 lines of 32 bytes, B's as 32 lines of 64 bytes (a conv's as 64 lines of
// 32), each line padded by 16 bytes (lines spread over the banks); counted in uvec4, so
// that the compiler knows every fragment line starts 16-byte aligned.
#define A_LINE 3
#if QCONV
#define B_LINE 3
#define B_TILE (BN * B_LINE)
#else
#define B_LINE 5
#define B_TILE (BK * B_LINE)
#endif
layout(local_size_x = THREADS, local_size_y = 1, local_size_z = 1) in;

// A's bytes as 16-byte runs (and a matrix product's B's)
layout(std430, set = 0, binding = A_BYTES_BINDING) readonly buffer a4_buf { uvec4 a4[]; };
#if !QCONV
layout(std430, set = 0, binding = 1) readonly buffer b4_buf { uvec4 b4[]; };
#endif

#define A_TILE (BM * A_LINE)
shared uvec4 a_sh[2 * A_TILE]; // two stages
shared uvec4 b_sh[2 * B_TILE];
shared int row_sum[BM];
shared int col_sum[BN];
shared int staged[THREADS / SUBGROUP * FM * FN]; // a fragment a subgroup
shared float line_mult[BM]; // the multipliers of the block's rows (a conv) or columns
#if !QCONV
shared int col_zero[BN]; // B's zero points of the block's columns, as int8 (by_col)
#endif
#if QCONV
shared int row_zero[BM]; // the weights' zero points of the block's rows, as int8
#endif

#define ACC coopmat<int, gl_ScopeSubgroup, FM, FN, gl_MatrixUseAccumulator>
#define A_MAT coopmat<int8_t, gl_ScopeSubgroup, FM, BK, gl_MatrixUseA>
#define B_MAT coopmat<int8_t, gl_ScopeSubgroup, BK, FN, gl_MatrixUseB>

// The sum of a word's 4 bytes as int8.
int byte_sum(uint w)
{
    int v = int(w);
    return bitfieldExtract(v, 0, 8) + bitfieldExtract(v, 8, 8) + bitfieldExtract(v, 16, 8) +
           bitfieldExtract(v, 24, 8);
}

// 16 bytes of a byte buffer from `at` (those at or past `end` zero), packed little-endian.
#define BYTES16(buf, at, end, out)                                                            \
    [[unroll]] for (uint w_ = 0; w_ < 4; w_++) {                                            \
        uint word_ = 0;                                                                     \
        [[unroll]] for (uint b_ = 0; b_ < 4; b_++) {                                        \
            uint i_ = (at) + w_ * 4 + b_;                                                   \
            word_ |= (i_ < (end) ? uint(uint8_t(buf[i_])) : 0u) << (8 * b_);                \
        }                                                                                   \
        out[w_] = word_;                                                                    \
    }

uint row0, col0, a_r, a_k, b_k, b_n, a_flip, b_flip;
bool a_vec, b_vec;

// 16 bytes of a row of A or B from `at` (its bytes up to `end`), as int8: one vector load
// where vec, else byte by byte, zero past the end.
#define LOAD16(buf, buf4, vec, flip, at, end, words)                                            \
    if (vec) {                                                                              \
        uvec4 v_ = buf4[(at) / 16u] ^ uvec4(flip);                                          \
        words = uint[4](v_.x, v_.y, v_.z, v_.w);                                            \
    } else {                                                                                \
        BYTES16(buf, at, end, words);                                                       \
        [[unroll]] for (uint q_ = 0; q_ < 4; q_++) { /* flip only the bytes inside */            \
            uint inside = min((end) - min((at) + q_ * 4, end), 4u);                           \
            words[q_] ^= (flip) & (inside >= 4u ? 0xFFFFFFFFu : (1u << (8u * inside)) - 1u);  \
        }                                                                                   \
    }

// This invocation's 16 bytes of the A tile of the step at k0 (row a_r, from a_k), as int8.
void load_a(uint k0, out uint words[4])
{
    uint gr = row0 + a_r, gk = k0 + a_k;
    if (gr >= qp_m || gk >= qp_k_end) {
        words = uint[4](0u, 0u, 0u, 0u);
    } else {
        uint at = qp_a_off + gr * qp_k + gk, end = qp_a_off + gr * qp_k + qp_k_end;
        LOAD16(A_BYTES, a4, a_vec, a_flip, at, end, words);
    }
}

#if QCONV
// The conv's B tile: this invocation gathers taps [b_k, b_k + 16) of the step for pixel
// column b_n (px_at, px_iy, px_ix: qp_pixel) into b_raw as loaded (X's bits, or x_zero in
// the padding; past K the byte that is 0 as int8), so that the loads are in flight during
// the step's products; b_words packs them when they are stored.
uint px_at;
int px_iy, px_ix, x_zero;
uint b_raw[16];
void load_b(uint k0)
{
    // the first tap's channel and position, then each next one by a step along kx
    uint k = k0 + b_k, taps = p.win.k_h * p.win.k_w, t = k % taps, plane = p.win.in_h * p.win.in_w;
    uint ky = t / p.win.k_w, kx = t % p.win.k_w, at = px_at + (k / taps) * plane;
    int iy = px_iy + int(ky * p.win.dil_h), ix = px_ix + int(kx * p.win.dil_w);
    bool col_in = col0 + b_n < qp_n;
    [[unroll]] for (uint j = 0; j < 16; j++) {
        uint v = k + j < qp_k_end ? uint(x_zero) : b_flip & 255u;
        // negative coordinates wrap to large unsigned ones: one comparison a side
        if (col_in && k + j < qp_k_end && uint(iy) < p.win.in_h && uint(ix) < p.win.in_w)
            v = uint(int(A(x[at + uint(iy) * p.win.in_w + uint(ix)])));
        b_raw[j] = v;
        ix += int(p.win.dil_w);
        if (++kx == p.win.k_w) {
            kx = 0;
            ix = px_ix;
            iy += int(p.win.dil_h);
            if (++ky == p.win.k_h) {
                ky = 0;
                iy = px_iy;
                at += plane;
            }
        }
    }
}

// b_raw's 16 bytes as int8, packed little-endian.
void b_words(out uint words[4])
{
    words = uint[4](0u, 0u, 0u, 0u);
    [[unroll]] for (uint j = 0; j < 16; j++)
        words[j / 4] |= ((b_raw[j] ^ b_flip) & 255u) << (8u * (j % 4));
}
#else
// The same for the B tile (line b_k of the step, columns from b_n).
void load_b(uint k0, out uint words[4])
{
    uint gk = k0 + b_k, gc = col0 + b_n;
    if (gk >= qp_k_end || gc >= qp_n) {
        words = uint[4](0u, 0u, 0u, 0u);
    } else {
        uint at = qp_b_off + gk * qp_n + gc, end = qp_b_off + gk * qp_n + qp_n;
        LOAD16(b, b4, b_vec, b_flip, at, end, words);
    }
}
#endif

#if QCONV
#define B_CSUM int
#else
#define B_CSUM int[16]
#endif
// This invocation's bytes of a step into stage s; its row's and column's byte sums where
// they count (row_sums, col_sums: uniform).
void store_step(uint s, uint aw[4], inout uint bw[4], inout int a_rsum, inout B_CSUM b_csum,
                bool row_sums, bool col_sums)
{
    a_sh[s * A_TILE + a_r * A_LINE + a_k / 16] = uvec4(aw[0], aw[1], aw[2], aw[3]);
    if (row_sums)
        [[unroll]] for (uint wd = 0; wd < 4; wd++)
            a_rsum += byte_sum(aw[wd]);
#if QCONV
    b_words(bw);
    b_sh[s * B_TILE + b_n * B_LINE + b_k / 16] = uvec4(bw[0], bw[1], bw[2], bw[3]);
    if (col_sums)
        [[unroll]] for (uint wd = 0; wd < 4; wd++)
            b_csum += byte_sum(bw[wd]);
#else
    b_sh[s * B_TILE + b_k * B_LINE + b_n / 16] = uvec4(bw[0], bw[1], bw[2], bw[3]);
    if (col_sums)
        [[unroll]] for (uint wd = 0; wd < 4; wd++)
            [[unroll]] for (uint q = 0; q < 4; q++)
                b_csum[wd * 4 + q] += bitfieldExtract(int(bw[wd]), int(8 * q), 8);
#endif
}

void main()
{
    uint tid = gl_LocalInvocationIndex, sg = tid / SUBGROUP, lane = tid % SUBGROUP;
    row0 = gl_WorkGroupID.y * BM;
    col0 = gl_WorkGroupID.x * BN;
    qp_locate(gl_WorkGroupID.z);
    // the operands' bytes and zero points in int8 terms
    a_flip = A_SIGNED ? 0u : 0x80808080u;
    b_flip = B_SIGNED ? 0u : 0x80808080u;
    int raw_zb = qp_b_zero(0u);
    int zb = raw_zb - (B_SIGNED ? 0 : 128);
    bool by_col = qp_b_zero_by_col(), row_sums = by_col || zb != 0; // uniform
    // za: A's zero point as int8 where one for every row; by_row: one a row (row_zero)
    bool by_row = qp_a_zero_by_row();
    int za = by_row ? 0 : qp_a_zero(0u) - (A_SIGNED ? 0 : 128);
    bool col_sums = by_row || za != 0; // uniform
    if (tid < BM) {
        row_sum[tid] = 0;
        col_sum[tid] = 0;
        uint row = row0 + tid;
#if QCONV
        row_zero[tid] = row < qp_m ? qp_a_zero(row) - (A_SIGNED ? 0 : 128) : 0;
        line_mult[tid] = row < qp_m ? qp_multiplier(row, 0u) : 0.0;
#else
        uint col = col0 + tid;
        col_zero[tid] = col < qp_n ? qp_b_zero(col) - (B_SIGNED ? 0 : 128) : 0;
        line_mult[tid] = col < qp_n ? qp_multiplier(0u, col) : 0.0;
#endif
    }

    // This invocation's share of each step: A row a_r, bytes [a_k, a_k + 16) of the step's
    // 32; B line b_k of the step, columns [b_n, b_n + 16) (a conv: column b_n, taps [b_k,
    // b_k + 16)).
    a_r = tid / 2;
    a_k = (tid % 2) * 16;
    a_vec = qp_k % 16u == 0u;
#if QCONV
    b_n = tid % BN;
    b_k = (tid / BN) * 16;
    x_zero = raw_zb;
    if (col0 + b_n < qp_n)
        px_at = qp_pixel(col0 + b_n, px_iy, px_ix);
    int b_csum = 0;
#else
    b_k = tid / 4;
    b_n = (tid % 4) * 16;
    b_vec = qp_n % 16u == 0u;
    int b_csum[16];
    [[unroll]] for (uint j = 0; j < 16; j++)
        b_csum[j] = 0;
#endif
    int a_rsum = 0;

    ACC acc[2][2];
    [[unroll]] for (uint i = 0; i < 2; i++)
        [[unroll]] for (uint j = 0; j < 2; j++)
            acc[i][j] = ACC(0);
    uint sg_row = (sg / 2) * 32, sg_col = (sg % 2) * 32;
    uint aw[4], bw[4];
    load_a(qp_k_begin, aw);
#if QCONV
    load_b(qp_k_begin);
#else
    load_b(qp_k_begin, bw);
#endif
    if (qp_k_begin < qp_k_end)
        store_step(0u, aw, bw, a_rsum, b_csum, row_sums, col_sums);
    barrier();
    uint s = 0; // the stage this step reads
    for (uint k0 = qp_k_begin; k0 < qp_k_end; k0 += BK) {
        bool next = k0 + BK < qp_k_end;
        if (next) { // the next step's bytes in flight during this step's products
            load_a(k0 + BK, aw);
#if QCONV
            load_b(k0 + BK);
#else
            load_b(k0 + BK, bw);
#endif
        }
        A_MAT fa[2];
        B_MAT fb[2];
        [[unroll]] for (uint i = 0; i < 2; i++)
            coopMatLoad(fa[i], a_sh, s * A_TILE + (sg_row + i * FM) * A_LINE, A_LINE,
                        gl_CooperativeMatrixLayoutRowMajor);
        [[unroll]] for (uint j = 0; j < 2; j++)
#if QCONV
            coopMatLoad(fb[j], b_sh, s * B_TILE + (sg_col + j * FN) * B_LINE, B_LINE,
                        gl_CooperativeMatrixLayoutColumnMajor);
#else
            coopMatLoad(fb[j], b_sh, s * B_TILE + (sg_col + j * FN) / 16, B_LINE,
                        gl_CooperativeMatrixLayoutRowMajor);
#endif
        [[unroll]] for (uint i = 0; i < 2; i++)
            [[unroll]] for (uint j = 0; j < 2; j++)
                acc[i][j] = coopMatMulAdd(fa[i], fb[j], acc[i][j]);
        // into the other stage, last read before the previous barrier: one barrier a step
        if (next)
            store_step(s ^ 1u, aw, bw, a_rsum, b_csum, row_sums, col_sums);
        barrier();
        s ^= 1u;
    }

    if (row_sums)
        atomicAdd(row_sum[a_r], a_rsum);
    if (col_sums) {
#if QCONV
        atomicAdd(col_sum[b_n], b_csum);
#else
        [[unroll]] for (uint j = 0; j < 16; j++)
            atomicAdd(col_sum[b_n + j], b_csum[j]);
#endif
    }
    barrier();

    [[unroll]] for (uint i = 0; i < 2; i++) {
        [[unroll]] for (uint j = 0; j < 2; j++) {
            coopMatStore(acc[i][j], staged, sg * FM * FN, FN, gl_CooperativeMatrixLayoutRowMajor);
            subgroupBarrier();
            for (uint e = lane; e < FM * FN; e += SUBGROUP) {
                uint r = sg_row + i * FM + e / FN, c = sg_col + j * FN + e % FN;
                uint row = row0 + r, col = col0 + c;
                if (row >= qp_m || col >= qp_n)
                    continue;
#if QCONV
                int zr = row_zero[r], zc = zb;
                float mult = line_mult[r];
#else
                int zr = za, zc = by_col ? col_zero[c] : zb;
                float mult = line_mult[c];
#endif
                int v = staged[sg * FM * FN + e] - zc * row_sum[r] - zr * col_sum[c] +
                        int(qp_k_end - qp_k_begin) * zr * zc;
                qp_result(row, col, v, mult);
            }
            subgroupBarrier();
        }
    }
}
