#version 450
// bench_ceiling.c's fp16 cooperative-matrix ceiling (GL_NV_cooperative_matrix, as
// gemm_coop.comp uses it): each subgroup of 32 loads float16 16x16 fragments A and B once
// (from `values` through shared memory), then runs pc.turns loop turns of ACCS independent
// MulAdds acc[i] = A x B + acc[i] into float32 accumulators that start apart (acc[i] = i:
// nothing merges), and stores their sum, one 16x16 block per subgroup; the host checks it.
// The sum goes through shared memory: glslc -O (Debian 12) crashes on coopmat additions.
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
#define SUBGROUPS 4
#define FRAG 16
#define ACCS 8
layout(local_size_x = SUBGROUPS * 32) in;
layout(std430, set = 0, binding = 0) readonly buffer Values { float values[]; }; // A, B
layout(std430, set = 0, binding = 1) writeonly buffer Result { float result[]; };
layout(push_constant) uniform Push { uint turns; } pc;

shared float16_t ab[2 * FRAG * FRAG];
shared float staged[SUBGROUPS * FRAG * FRAG];

void main()
{
    for (uint i = gl_LocalInvocationID.x; i < 2 * FRAG * FRAG; i += SUBGROUPS * 32)
        ab[i] = float16_t(values[i]);
    barrier();
    fcoopmatNV<16, gl_ScopeSubgroup, FRAG, FRAG> a, b;
    coopMatLoadNV(a, ab, 0, FRAG, false);
    coopMatLoadNV(b, ab, FRAG * FRAG, FRAG, false);
    fcoopmatNV<32, gl_ScopeSubgroup, FRAG, FRAG> acc[ACCS];
    [[unroll]] for (int i = 0; i < ACCS; i++)
        acc[i] = fcoopmatNV<32, gl_ScopeSubgroup, FRAG, FRAG>(float(i));
    for (uint t = 0; t < pc.turns; t++) {
        [[unroll]] for (int i = 0; i < ACCS; i++)
            acc[i] = coopMatMulAddNV(a, b, acc[i]);
    }
    uint subgroup = gl_LocalInvocationID.x / 32, lane = gl_LocalInvocationID.x % 32;
    float sum[FRAG * FRAG / 32];
    [[unroll]] for (int e = 0; e < FRAG * FRAG / 32; e++)
        sum[e] = 0.0;
    [[unroll]] for (int i = 0; i < ACCS; i++) {
        coopMatStoreNV(acc[i], staged, subgroup * FRAG * FRAG, FRAG, false);
        barrier();
        [[unroll]] for (int e = 0; e < FRAG * FRAG / 32; e++)
            sum[e] += staged[subgroup * FRAG * FRAG + e * 32 + lane];
        barrier();
    }
    uint base = (gl_WorkGroupID.x * SUBGROUPS + subgroup) * FRAG * FRAG;
    [[unroll]] for (int e = 0; e < FRAG * FRAG / 32; e++)
        result[base + e * 32 + lane] = sum[e];
}
