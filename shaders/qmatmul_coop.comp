#version 450
// qmatmul.comp's integer products (MatMulInteger, QLinearMatMul: the same push block,
// bindings and results) on int8 cooperative matrices (the tensor cores), built on
// GL_KHR_cooperative_matrix by the glslang_next compiler.
//
// Every byte is taken to int8 first: a uint8 operand less 128 (its bits' top bit flipped),
// its zero point less 128 with it, so the products are int8 by int8:
//   acc = sum (a - za)(b - zb) = sum a b - zb sum_k a - za sum_k b + K za zb
// (int32, wrapping: the same bits as the CPU kernel's sum). A workgroup of 4 subgroups
// computes a 64 x 64 block of Y (batch gl_WorkGroupID.z), each subgroup 32 x 32 as 2 x 2
// accumulators of 16 x 16, over K in steps of 32 (one fragment: A 16 x 32, B 32 x 16).
// Each step the 128 invocations store into shared memory the block's A tile (64 rows of 32
// bytes) and B tile (32 rows of 64 bytes), 16 bytes each, that they loaded during the step
// before (one vector load where the operand's rows are whole 16-byte runs, else byte by
// byte, zero past the product), sum them where the sums count (A's per row where zb is not
// 0, B's per column where za is not 0: uint8 activations of zero point 128 by symmetric
// int8 weights need neither), and load the next step's while the subgroups multiply. After
// the K loop those sums meet in shared memory, each subgroup stages its accumulators there
// one at a time, and its invocations finish each result: the sums' terms, then
// QLinearMatMul's requantization in double.
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
#define PUSH_QMATMUL
#include "buffers.glsl"
#include "push.h"

#define BM 64
#define BN 64
#define BK 32
#define FM 16 // fragment rows (A, the accumulator)
#define FN 16 // fragment columns (B, the accumulator)
#define SUBGROUP 32
#define THREADS 128
// A's tile as 64 lines of 32 bytes, B's as 32 lines of 64 bytes, each line padded by 16
// bytes (lines stay 16-byte aligned for the fragment loads and spread over the banks);
// counted in uints.
#define A_LINE 12
#define B_LINE 20
layout(local_size_x = THREADS, local_size_y = 1, local_size_z = 1) in;

DECLARE_IN(0, a)
DECLARE_IN_OF(uint8_t, 1, b)
DECLARE_IN(2, a_zero_buf)
#if QLINEAR
DECLARE_OUT_OF(uint8_t, 3, y)
#else
DECLARE_OUT_OF(int, 3, y)
#endif
// The same A and B as 16-byte runs
layout(std430, set = 0, binding = 0) readonly buffer a4_buf { uvec4 a4[]; };
layout(std430, set = 0, binding = 1) readonly buffer b4_buf { uvec4 b4[]; };

shared uint a_sh[BM * A_LINE];
shared uint b_sh[BK * B_LINE];
shared int row_sum[BM];
shared int col_sum[BN];
shared int staged[THREADS / SUBGROUP * FM * FN]; // a fragment a subgroup

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

uint row0, col0, a_off, b_off, a_r, a_k, b_k, b_n, a_flip, b_flip;
bool a_vec, b_vec;

// This invocation's 16 bytes of the A tile of the step at k0 (row a_r, from a_k), as int8.
void load_a(uint k0, out uint words[4])
{
    uint gr = row0 + a_r, gk = k0 + a_k;
    if (gr >= p.m || gk >= p.k) {
        words = uint[4](0u, 0u, 0u, 0u);
    } else if (a_vec) {
        uvec4 v = a4[(a_off + gr * p.k + gk) / 16u] ^ uvec4(a_flip);
        words = uint[4](v.x, v.y, v.z, v.w);
    } else {
        uint at = a_off + gr * p.k + gk, end = a_off + gr * p.k + p.k;
        BYTES16(a, at, end, words);
        [[unroll]] for (uint w = 0; w < 4; w++) { // flip only the bytes inside
            uint inside = min(end - min(at + w * 4, end), 4u);
            words[w] ^= a_flip & (inside >= 4u ? 0xFFFFFFFFu : (1u << (8u * inside)) - 1u);
        }
    }
}

// The same for the B tile (line b_k of the step, columns from b_n).
void load_b(uint k0, out uint words[4])
{
    uint gk = k0 + b_k, gc = col0 + b_n;
    if (gk >= p.k || gc >= p.n) {
        words = uint[4](0u, 0u, 0u, 0u);
    } else if (b_vec) {
        uvec4 v = b4[(b_off + gk * p.n + gc) / 16u] ^ uvec4(b_flip);
        words = uint[4](v.x, v.y, v.z, v.w);
    } else {
        uint at = b_off + gk * p.n + gc, end = b_off + gk * p.n + p.n;
        BYTES16(b, at, end, words);
        [[unroll]] for (uint w = 0; w < 4; w++) {
            uint inside = min(end - min(at + w * 4, end), 4u);
            words[w] ^= b_flip & (inside >= 4u ? 0xFFFFFFFFu : (1u << (8u * inside)) - 1u);
        }
    }
}

void main()
{
    uint tid = gl_LocalInvocationIndex, sg = tid / SUBGROUP, lane = tid % SUBGROUP;
    row0 = gl_WorkGroupID.y * BM;
    col0 = gl_WorkGroupID.x * BN;
    uint z = gl_WorkGroupID.z, rem = z;
    a_off = 0;
    b_off = 0;
    for (int d = int(p.batch_rank) - 1; d >= 0; d--) {
        uint idx = rem % p.batch_dims[d];
        rem /= p.batch_dims[d];
        a_off += idx * p.a_batch_strides[d];
        b_off += idx * p.b_batch_strides[d];
    }
    // the operands' bytes and zero points in int8 terms
    a_flip = IS_SIGNED != 0 ? 0u : 0x80808080u;
    b_flip = p.b_signed != 0 ? 0u : 0x80808080u;
    int za = (p.a_zero_in_buffer != 0 ? int(A(a_zero_buf[0])) : int(p.a_zero)) -
             (IS_SIGNED != 0 ? 0 : 128);
    int zb = int(p.b_zero) - (p.b_signed != 0 ? 0 : 128);
    if (tid < BM) {
        row_sum[tid] = 0;
        col_sum[tid] = 0;
    }

    // This invocation's share of each step: A row a_r, bytes [a_k, a_k + 16) of the step's
    // 32; B line b_k of the step, columns [b_n, b_n + 16).
    a_r = tid / 2;
    a_k = (tid % 2) * 16;
    b_k = tid / 4;
    b_n = (tid % 4) * 16;
    a_vec = p.k % 16u == 0u;
    b_vec = p.n % 16u == 0u;
    int a_rsum = 0;
    int b_csum[16];
    [[unroll]] for (uint j = 0; j < 16; j++)
        b_csum[j] = 0;

    ACC acc[2][2];
    [[unroll]] for (uint i = 0; i < 2; i++)
        [[unroll]] for (uint j = 0; j < 2; j++)
            acc[i][j] = ACC(0);
    uint sg_row = (sg / 2) * 32, sg_col = (sg % 2) * 32;
    uint aw[4], bw[4];
    load_a(0u, aw);
    load_b(0u, bw);
    for (uint k0 = 0; k0 < p.k; k0 += BK) {
        [[unroll]] for (uint w = 0; w < 4; w++)
            a_sh[a_r * A_LINE + a_k / 4 + w] = aw[w];
        if (zb != 0) // uniform
            [[unroll]] for (uint w = 0; w < 4; w++)
                a_rsum += byte_sum(aw[w]);
        [[unroll]] for (uint w = 0; w < 4; w++)
            b_sh[b_k * B_LINE + b_n / 4 + w] = bw[w];
        if (za != 0) // uniform
            [[unroll]] for (uint w = 0; w < 4; w++)
                [[unroll]] for (uint q = 0; q < 4; q++)
                    b_csum[w * 4 + q] += bitfieldExtract(int(bw[w]), int(8 * q), 8);
        barrier();
        if (k0 + BK < p.k) { // the next step's bytes in flight during this step's products
            load_a(k0 + BK, aw);
            load_b(k0 + BK, bw);
        }
        A_MAT fa[2];
        B_MAT fb[2];
        [[unroll]] for (uint i = 0; i < 2; i++)
            coopMatLoad(fa[i], a_sh, (sg_row + i * FM) * A_LINE, A_LINE,
                        gl_CooperativeMatrixLayoutRowMajor);
        [[unroll]] for (uint j = 0; j < 2; j++)
            coopMatLoad(fb[j], b_sh, (sg_col + j * FN) / 4, B_LINE,
                        gl_CooperativeMatrixLayoutRowMajor);
        [[unroll]] for (uint i = 0; i < 2; i++)
            [[unroll]] for (uint j = 0; j < 2; j++)
                acc[i][j] = coopMatMulAdd(fa[i], fb[j], acc[i][j]);
        barrier();
    }

    if (zb != 0)
        atomicAdd(row_sum[a_r], a_rsum);
    if (za != 0)
        [[unroll]] for (uint j = 0; j < 16; j++)
            atomicAdd(col_sum[b_n + j], b_csum[j]);
    barrier();

    int constant_term = int(p.k) * za * zb;
    uint y_off = z * p.m * p.n;
    [[unroll]] for (uint i = 0; i < 2; i++) {
        [[unroll]] for (uint j = 0; j < 2; j++) {
            coopMatStore(acc[i][j], staged, sg * FM * FN, FN, gl_CooperativeMatrixLayoutRowMajor);
            subgroupBarrier();
            for (uint e = lane; e < FM * FN; e += SUBGROUP) {
                uint r = sg_row + i * FM + e / FN, c = sg_col + j * FN + e % FN;
                uint row = row0 + r, col = col0 + c;
                if (row >= p.m || col >= p.n)
                    continue;
                int v = staged[sg * FM * FN + e] - zb * row_sum[r] - za * col_sum[c] + constant_term;
#if QLINEAR
                double q = roundEven(double(v) * double(p.multiplier)) + double(int(p.y_zero));
                q = clamp(q, double(p.y_lo), double(p.y_hi));
                y[y_off + row * p.n + col] = uint8_t(uint(int(q)) & 255u);
#else
                y[y_off + row * p.n + col] = v;
#endif
            }
            subgroupBarrier();
        }
    }
}
