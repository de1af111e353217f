#version 450
// gemm_tiled.comp's products (MatMul/Gemm with CONV=0, implicit-GEMM conv with CONV=1; the
// same operands, loaders and epilogue: common/gemm_operands.glsl) with the inner product on
// cooperative matrices (GL_NV_cooperative_matrix: the tensor cores of NVIDIA GPUs):
// float16 A and B fragments of 16x16, float32 accumulators.
//
// A workgroup computes a BM x BN block of Y with (BM/WM) x (BN/WN) subgroups of 32
// invocations (the host requires subgroupSize 32), each a WM x WN block as (WM/16) x
// (WN/16) accumulators of 16x16. Over K in steps of BK, every invocation loads its share of
// the A and B tiles into registers (the next step's during the current products) and
// stores them to shared memory as float16: float32 storage (precision fp32-fast) is rounded
// there, finite values past float16's range saturating at +-65504. The tiles' rows are
// padded by 8 halves (16 bytes): fragment loads stay 16-byte aligned, rows spread over the
// banks. After the K loop each subgroup stages its accumulators one at a time in its own
// 16 x 20 floats of shared memory, and its invocations store them through gemm_store
// (alpha, C or bias, the fused epilogue, bounds checks).
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
#include "buffers.glsl"
#if CONV
#include "window.glsl"
#endif

#define SUBGROUP 32        // invocations per subgroup (checked by the host)
#define FRAG 16            // fragment M = N = K
#define SG_X (BN / WN)     // subgroups along N
#define SG_Y (BM / WM)     // subgroups along M
#define THREADS (SG_X * SG_Y * SUBGROUP)
#define FM (WM / FRAG)     // accumulators per subgroup along M
#define FN (WN / FRAG)     // and along N
layout(local_size_x = THREADS, local_size_y = 1, local_size_z = 1) in;

#include "gemm_operands.glsl"

#define A_LOADS (BM * BK / THREADS)
#define B_LOADS (BK * BN / THREADS)
#define SA_STRIDE (BK + 8)    // halves per row of the A tile (m, k)
#define SB_STRIDE (BN + 8)    // halves per row of the B tile (k, n)
#define SC_STRIDE (FRAG + 4)  // floats per row of a subgroup's staged result fragment
shared float16_t sa[BM * SA_STRIDE];
shared float16_t sb[BK * SB_STRIDE];
shared float sc[SG_X * SG_Y * FRAG * SC_STRIDE];

#define HALF_MAX 65504.0
float16_t to_half(float v)
{
#if defined(DTYPE_F16)
    return float16_t(v); // float16 storage: in range already
#else
    return float16_t(isnan(v) || isinf(v) ? v : clamp(v, -HALF_MAX, HALF_MAX));
#endif
}

float reg_a[A_LOADS], reg_b[B_LOADS];

void load_tile(uint row0, uint col0, uint k0, uint tid)
{
    [[unroll]] for (uint i = 0; i < A_LOADS; i++) {
        uint l = tid + i * THREADS;
        uint kk = a_k_fast ? l % BK : l / BM, mm = a_k_fast ? l / BK : l % BM;
        reg_a[i] = load_a(row0 + mm, k0 + kk);
    }
    [[unroll]] for (uint i = 0; i < B_LOADS; i++) {
        uint l = tid + i * THREADS;
        uint kk = b_n_fast ? l / BN : l % BK, nn = b_n_fast ? l % BN : l / BK;
        reg_b[i] = load_b(k0 + kk, col0 + nn);
    }
}

void store_tile(uint tid)
{
    [[unroll]] for (uint i = 0; i < A_LOADS; i++) {
        uint l = tid + i * THREADS;
        uint kk = a_k_fast ? l % BK : l / BM, mm = a_k_fast ? l / BK : l % BM;
        sa[mm * SA_STRIDE + kk] = to_half(reg_a[i]);
    }
    [[unroll]] for (uint i = 0; i < B_LOADS; i++) {
        uint l = tid + i * THREADS;
        uint kk = b_n_fast ? l / BN : l % BK, nn = b_n_fast ? l % BN : l / BK;
        sb[kk * SB_STRIDE + nn] = to_half(reg_b[i]);
    }
}

void main()
{
    uint z = gemm_z();
    gemm_locate(z);
    uint tid = gl_LocalInvocationID.x;
    uint sg = gl_SubgroupID, lane = gl_SubgroupInvocationID;
    uint sg_row = (sg / SG_X) * WM, sg_col = (sg % SG_X) * WN; // the subgroup's block
    uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN;
    fcoopmatNV<32, gl_ScopeSubgroup, FRAG, FRAG> acc[FM][FN];
    [[unroll]] for (uint i = 0; i < FM; i++)
        [[unroll]] for (uint j = 0; j < FN; j++)
            acc[i][j] = fcoopmatNV<32, gl_ScopeSubgroup, FRAG, FRAG>(0.0);

    load_tile(row0, col0, k_begin, tid);
    for (uint k0 = k_begin; k0 < k_end; k0 += BK) {
        store_tile(tid);
        barrier();
        if (k0 + BK < k_end)
            load_tile(row0, col0, k0 + BK, tid); // in flight during the products below
        [[unroll]] for (uint kk = 0; kk < BK; kk += FRAG) {
            fcoopmatNV<16, gl_ScopeSubgroup, FRAG, FRAG> fa[FM], fb[FN];
            [[unroll]] for (uint i = 0; i < FM; i++)
                coopMatLoadNV(fa[i], sa, (sg_row + i * FRAG) * SA_STRIDE + kk, SA_STRIDE, false);
            [[unroll]] for (uint j = 0; j < FN; j++)
                coopMatLoadNV(fb[j], sb, kk * SB_STRIDE + sg_col + j * FRAG, SB_STRIDE, false);
            [[unroll]] for (uint i = 0; i < FM; i++)
                [[unroll]] for (uint j = 0; j < FN; j++)
                    acc[i][j] = coopMatMulAddNV(fa[i], fb[j], acc[i][j]);
        }
        barrier();
    }

    uint stage = sg * FRAG * SC_STRIDE;
    [[unroll]] for (uint i = 0; i < FM; i++) {
        [[unroll]] for (uint j = 0; j < FN; j++) {
            coopMatStoreNV(acc[i][j], sc, stage, SC_STRIDE, false);
            subgroupMemoryBarrierShared();
            subgroupBarrier(); // the fragment is in sc for every invocation of the subgroup
            for (uint e = lane; e < FRAG * FRAG; e += SUBGROUP) {
                uint r = e / FRAG, cc = e % FRAG;
                uint row = row0 + sg_row + i * FRAG + r, col = col0 + sg_col + j * FRAG + cc;
                if (row < g_m && col < g_n)
                    gemm_store(row, col, z, sc[stage + r * SC_STRIDE + cc]);
            }
            subgroupBarrier(); // read before the next fragment overwrites it
        }
    }
}
