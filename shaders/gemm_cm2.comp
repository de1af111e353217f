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

    // A as (m, k) where k runs along memory, else as (k, m) read through a transpose
    tensorLayoutNV<2, CLAMP> ta = createTensorLayoutNV(2, CLAMP);
    tensorLayoutNV<2, CLAMP> tb = createTensorLayoutNV(2, CLAMP);
    tensorViewNV<2, false, 1, 0> flip = createTensorViewNV(2, false, 1, 0);
    bool a_rows = p.a_sk == 1u, b_rows = p.b_sn == 1u;
    ta = a_rows ? setTensorLayoutDimensionNV(ta, g_m, g_k) : setTensorLayoutDimensionNV(ta, g_k, g_m);
    ta = setTensorLayoutStrideNV(ta, a_rows ? p.a_sm : p.a_sk, 1);
    // B as (k, n) where n runs along memory, else as (n, k) read through a transpose
    tb = b_rows ? setTensorLayoutDimensionNV(tb, g_k, g_n) : setTensorLayoutDimensionNV(tb, g_n, g_k);
    tb = setTensorLayoutStrideNV(tb, b_rows ? p.b_sk : p.b_sn, 1);

    ACC acc = ACC(0.0);
    coopmat<float16_t, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA> ma;
    coopmat<float16_t, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB> mb;
    for (uint k = 0; k < g_k; k += BK) {
        if (a_rows)
            coopMatLoadTensorNV(ma, a, a_base, sliceTensorLayoutNV(ta, block_row, BM, k, BK));
        else
            coopMatLoadTensorNV(ma, a, a_base, sliceTensorLayoutNV(ta, k, BK, block_row, BM), flip);
        if (b_rows)
            coopMatLoadTensorNV(mb, b, b_base, sliceTensorLayoutNV(tb, k, BK, block_col, BN));
        else
            coopMatLoadTensorNV(mb, b, b_base, sliceTensorLayoutNV(tb, block_col, BN, k, BK), flip);
        acc = coopMatMulAdd(ma, mb, acc);
    }

    bool plain = p.alpha == 1.0 && p.has_c == 0u && p.epi_flags == 0u &&
                 p.epi_act == uint(ELT_IDENTITY);
    if (!plain)
        coopMatPerElementNV(acc, acc, finish);
    tensorLayoutNV<2, CLAMP> ty = createTensorLayoutNV(2, CLAMP);
    ty = setTensorLayoutDimensionNV(ty, g_m, g_n);
    coopmat<T, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> result =
        coopmat<T, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>(acc);
    coopMatStoreTensorNV(result, y, block_z * g_m * g_n, sliceTensorLayoutNV(ty, block_row, BM, block_col, BN));
}
