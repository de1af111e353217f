#version 450
// Configure-time probe (shaders/meson.build): whether the glslang_next compiler compiles
// GL_NV_cooperative_matrix2 as gemm_cm2.comp uses it (workgroup-scope matrices, tensor
// layouts and views, per-element operations). Not a kernel.
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 256) in;
layout(binding = 0) readonly buffer A { float16_t a[]; };
layout(binding = 1) writeonly buffer C { float16_t c[]; };

float twice(const in uint row, const in uint col, const in float e)
{
    return 2.0 * e;
}

void main()
{
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> t =
        createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    t = setTensorLayoutDimensionNV(t, 100, 100);
    t = setTensorLayoutStrideNV(t, 100, 1);
    tensorViewNV<2, false, 1, 0> flip = createTensorViewNV(2, false, 1, 0);
    coopmat<float16_t, gl_ScopeWorkgroup, 64, 32, gl_MatrixUseA> x;
    coopmat<float16_t, gl_ScopeWorkgroup, 32, 64, gl_MatrixUseB> y;
    coopMatLoadTensorNV(x, a, 0, sliceTensorLayoutNV(t, 0, 64, 0, 32));
    coopMatLoadTensorNV(y, a, 0, sliceTensorLayoutNV(t, 0, 64, 0, 32), flip);
    coopmat<float, gl_ScopeWorkgroup, 64, 64, gl_MatrixUseAccumulator> s =
        coopmat<float, gl_ScopeWorkgroup, 64, 64, gl_MatrixUseAccumulator>(0.0);
    s = coopMatMulAdd(x, y, s);
    coopMatPerElementNV(s, s, twice);
    coopmat<float16_t, gl_ScopeWorkgroup, 64, 64, gl_MatrixUseAccumulator> h =
        coopmat<float16_t, gl_ScopeWorkgroup, 64, 64, gl_MatrixUseAccumulator>(s);
    coopMatStoreTensorNV(h, c, 0, sliceTensorLayoutNV(t, 0, 64, 0, 64));
}
