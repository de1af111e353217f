#version 450
// Configure-time probe (shaders/meson.build): whether glslc compiles GL_NV_cooperative_matrix
// as gemm_coop.comp uses it. Not a kernel.
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 32) in;
shared float16_t s[256];
shared float t[256];
void main()
{
    fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> a;
    coopMatLoadNV(a, s, 0, 16, false);
    fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> c = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
    c = coopMatMulAddNV(a, a, c);
    coopMatStoreNV(c, t, 0, 16, false);
}
