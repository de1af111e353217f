#version 450
// bench_ceiling.c's int8 cooperative-matrix ceiling (GL_KHR_cooperative_matrix, as
// qmatmul_coop.comp uses it): each subgroup of 32 loads int8 fragments A (16 x 32) and B
// (32 x 16) once (from `values` through shared memory), then runs pc.turns loop turns of
// ACCS independent MulAdds acc[i] = A x B + acc[i] into int32 accumulators that start apart
// (acc[i] = i: nothing merges), and stores their sum, one 16x16 block per subgroup; the
// host checks it.
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_control_flow_attributes : require
#define SUBGROUPS 4
#define ACCS 8
layout(local_size_x = SUBGROUPS * 32) in;
layout(std430, set = 0, binding = 0) readonly buffer Values { uint values[]; }; // A, B bytes
layout(std430, set = 0, binding = 1) writeonly buffer Result { int result[]; };
layout(push_constant) uniform Push { uint turns; } pc;

shared uint ab[2 * 16 * 32 / 4];
shared int staged[SUBGROUPS * 16 * 16];

#define ACC coopmat<int, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>

void main()
{
    for (uint i = gl_LocalInvocationID.x; i < 2 * 16 * 32 / 4; i += SUBGROUPS * 32)
        ab[i] = values[i];
    barrier();
    coopmat<int8_t, gl_ScopeSubgroup, 16, 32, gl_MatrixUseA> a;
    coopmat<int8_t, gl_ScopeSubgroup, 32, 16, gl_MatrixUseB> b;
    coopMatLoad(a, ab, 0, 32 / 4, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(b, ab, 16 * 32 / 4, 16 / 4, gl_CooperativeMatrixLayoutRowMajor);
    ACC acc[ACCS];
    [[unroll]] for (int i = 0; i < ACCS; i++)
        acc[i] = ACC(i);
    for (uint t = 0; t < pc.turns; t++) {
        [[unroll]] for (int i = 0; i < ACCS; i++)
            acc[i] = coopMatMulAdd(a, b, acc[i]);
    }
    uint subgroup = gl_LocalInvocationID.x / 32, lane = gl_LocalInvocationID.x % 32;
    int sum[16 * 16 / 32];
    [[unroll]] for (int e = 0; e < 16 * 16 / 32; e++)
        sum[e] = 0;
    [[unroll]] for (int i = 0; i < ACCS; i++) {
        coopMatStore(acc[i], staged, subgroup * 16 * 16, 16, gl_CooperativeMatrixLayoutRowMajor);
        barrier();
        [[unroll]] for (int e = 0; e < 16 * 16 / 32; e++)
            sum[e] += staged[subgroup * 16 * 16 + e * 32 + lane];
        barrier();
    }
    uint base = (gl_WorkGroupID.x * SUBGROUPS + subgroup) * 16 * 16;
    [[unroll]] for (int e = 0; e < 16 * 16 / 32; e++)
        result[base + e * 32 + lane] = sum[e];
}
