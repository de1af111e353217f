#version 450
// MatMul and Gemm (gemm_tiled.comp's products with CONV=0: the same push block, bindings,
// batch location and epilogue, common/gemm_operands.glsl) on workgroup-scope cooperative
// matrices (GL_NV_cooperative_matrix2; compiled by the glslang_next compiler, SPIR-V 1.6).
// A workgroup computes a BM x BN block of Y of batch z as one float32 accumulator matrix,
// over K in steps of BK: the A and B tiles come in through tensor layouts (the operand's
// dims and its outer stride; the inner stride is 1, the host checks it), a transposing
// view where the operand's memory runs along the other index. Outside the product, loads
// read zero (clamp mode constant) and stores are dropped, so ragged edges need no care.
// The driver stages the tiles through shared memory and spreads the matrix over the
// workgroup's subgroups. After the K loop a per-element operation gives each result alpha,
// C (beta, broadcast strides) and the fused epilogue where the node has one; then the block
// is stored, converted to Y's type, in one tensor store.
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
#include "buffers.glsl"

layout(local_size_x = THREADS, local_size_y = 1, local_size_z = 1) in;

#include "gemm_operands.glsl"

#define CLAMP gl_CooperativeMatrixClampModeConstantNV
// K steps unrolled in the aligned inner loop.
#define UNROLL 4
#define ACC coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>

uint block_row, block_col, block_z;

// The result at (r, c) of the block: alpha, C, the epilogue (a row or column past the
// product keeps its sum: the store drops it).
float finish(const in uint r, const in uint c, const in float sum)
{
    uint row = block_row + r, col = block_col + c;
    if (row >= g_m || col >= g_n)
        return sum;
    float v = p.alpha * sum + gemm_addend(row, col);
    return float(epilogue_with(A(v), gemm_residual(gemm_at(row, col, block_z))));
}

void main()
{
    block_z = gemm_z();
    gemm_locate(block_z);
    block_row = gl_WorkGroupID.y * BM;
    block_col = gl_WorkGroupID.x * BN;

    // A as (m, k) where k runs along memory, else as (k, m) read through a transpose; B as
    // (k, n) where n runs along memory, else as (n, k) through a transpose. The clamped
    // layouts read zero past the product (ragged blocks, K's last step); the plain ones,
    // for steps wholly inside, let the driver take its fast loads.
    bool a_rows = p.a_sk == 1u, b_rows = p.b_sn == 1u;
    uint a_d0 = a_rows ? g_m : g_k, a_d1 = a_rows ? g_k : g_m, a_st = a_rows ? p.a_sm : p.a_sk;
    uint b_d0 = b_rows ? g_k : g_n, b_d1 = b_rows ? g_n : g_k, b_st = b_rows ? p.b_sk : p.b_sn;
    tensorLayoutNV<2> fa = createTensorLayoutNV(2), fb = createTensorLayoutNV(2);
    fa = setTensorLayoutStrideNV(setTensorLayoutDimensionNV(fa, a_d0, a_d1), a_st, 1);
    fb = setTensorLayoutStrideNV(setTensorLayoutDimensionNV(fb, b_d0, b_d1), b_st, 1);
    tensorLayoutNV<2, CLAMP> ca = createTensorLayoutNV(2, CLAMP), cb = createTensorLayoutNV(2, CLAMP);
    ca = setTensorLayoutStrideNV(setTensorLayoutDimensionNV(ca, a_d0, a_d1), a_st, 1);
    cb = setTensorLayoutStrideNV(setTensorLayoutDimensionNV(cb, b_d0, b_d1), b_st, 1);
    tensorViewNV<2, false, 1, 0> flip = createTensorViewNV(2, false, 1, 0);

    ACC acc = ACC(0.0);
    coopmat<float16_t, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA> ma;
    coopmat<float16_t, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB> mb;
    // One K step through layouts la and lb, the operands from a_at and b_at.
#define STEP_AT(la, lb, a_at, b_at)                                                            \
    if (a_rows)                                                                                \
        coopMatLoadTensorNV(ma, a, a_at, sliceTensorLayoutNV(la, block_row, BM, k, BK));       \
    else                                                                                       \
        coopMatLoadTensorNV(ma, a, a_at, sliceTensorLayoutNV(la, k, BK, block_row, BM), flip); \
    if (b_rows)                                                                                \
        coopMatLoadTensorNV(mb, b, b_at, sliceTensorLayoutNV(lb, k, BK, block_col, BN));       \
    else                                                                                       \
        coopMatLoadTensorNV(mb, b, b_at, sliceTensorLayoutNV(lb, block_col, BN, k, BK), flip); \
    acc = coopMatMulAdd(ma, mb, acc)
#define STEP(la, lb) STEP_AT(la, lb, a_base, b_base)
    uint k = 0;
    if (block_row + BM <= g_m && block_col + BN <= g_n) {
        if (a_st % 8u == 0u && b_st % 8u == 0u && a_base % 8u == 0u && b_base % 8u == 0u) {
            // Every row starts on 16 bytes: the strides and bases masked to say so, which
            // lets the driver load each tile in 16-byte pieces (unmasked, it cannot know,
            // and loads a half at a time).
            uint a_at = a_base & ~7u, b_at = b_base & ~7u;
            tensorLayoutNV<2> va = setTensorLayoutStrideNV(
                setTensorLayoutDimensionNV(createTensorLayoutNV(2), a_d0, a_d1), a_st & ~7u, 1);
            tensorLayoutNV<2> vb = setTensorLayoutStrideNV(
                setTensorLayoutDimensionNV(createTensorLayoutNV(2), b_d0, b_d1), b_st & ~7u, 1);
            for (; k + BK * UNROLL <= g_k;) {
                [[unroll]] for (uint u = 0; u < UNROLL; u++, k += BK) {
                    STEP_AT(va, vb, a_at, b_at);
                }
            }
        }
        for (; k + BK <= g_k; k += BK) {
            STEP(fa, fb);
        }
    }
    for (; k < g_k; k += BK) {
        STEP(ca, cb);
    }

    bool plain = p.alpha == 1.0 && p.has_c == 0u && EPI_FLAGS == 0u &&
                 EPI_ACT == uint(ELT_IDENTITY);
    if (!plain)
        coopMatPerElementNV(acc, acc, finish);
    coopmat<T, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> result =
        coopmat<T, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>(acc);
    uint y_at = block_z * g_m * g_n;
    if (block_row + BM <= g_m && block_col + BN <= g_n) {
        tensorLayoutNV<2> fy = setTensorLayoutDimensionNV(createTensorLayoutNV(2), g_m, g_n);
        coopMatStoreTensorNV(result, y, y_at, sliceTensorLayoutNV(fy, block_row, BM, block_col, BN));
    } else {
        tensorLayoutNV<2, CLAMP> cy =
            setTensorLayoutDimensionNV(createTensorLayoutNV(2, CLAMP), g_m, g_n);
        coopMatStoreTensorNV(result, y, y_at, sliceTensorLayoutNV(cy, block_row, BM, block_col, BN));
    }
}
