#version 450
// Configure-time probe (shaders/meson.build): whether the glslang_next compiler compiles
// GL_KHR_cooperative_matrix as gemm_coop.comp uses it (COOP_KHR=1). Not a kernel.
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 32) in;
shared uvec4 s[32];
shared float t[256];
void main()
{
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a;
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> b;
    coopMatLoad(a, s, 0, 2, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(b, s, 0, 2, gl_CooperativeMatrixLayoutColumnMajor);
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> c =
        coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0.0);
    c = coopMatMulAdd(a, b, c);
    coopMatStore(c, t, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
}
