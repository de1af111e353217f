#version 450
// bench_ceiling.c's ceiling of fp16 cooperative matrices fed from shared memory, as
// gemm_coop.comp's 128 x 128 block feeds them (GL_KHR_cooperative_matrix): 4 subgroups of
// 32, each a 64 x 64 block of Y as 4 x 4 float32 accumulators of 16 x 16, read their
// fragments anew every turn from one stage of that block's tiles in shared memory (A as
// 128 x 32 and B as 32 x 128 float16, lines padded by 8 halves as gemm_coop.comp pads them):
// per turn one K slice of 16, 4 A and 4 B fragment loads and 16 MulAdds, the slice moving
// between the stage's two halves. With STEP_BARRIER a barrier follows every second turn
// (gemm_coop.comp's one barrier a K step of 32). Every value is 1/64, so a MulAdd adds
// 16 / 64^2 = 1/256 to each element; the accumulators start at 0..15, apart, and their sum
// is stored, one 16x16 block per subgroup; the host checks it.
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
#define SUBGROUPS 4
#define ACCS 16
#define A_LINE 40  // halves per line of A as (m, k): 32 + 8
#define B_LINE 136 // and of B as (k, n): 128 + 8
#define A_HALVES (128 * A_LINE)
#define B_HALVES (32 * B_LINE)
layout(local_size_x = SUBGROUPS * 32) in;
layout(std430, set = 0, binding = 0) readonly buffer Values { float values[]; }; // 512 of 1/64
layout(std430, set = 0, binding = 1) writeonly buffer Result { float result[]; };
layout(push_constant) uniform Push { uint turns; } pc;

// The stage as uvec4 (8 halves), as gemm_coop.comp's SMEM_VEC kernels keep it: fragment
// offsets and strides in units of 8 halves.
shared uvec4 stage[(A_HALVES + B_HALVES) / 8];
shared float staged[SUBGROUPS * 16 * 16];

#define ACC coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>

void main()
{
    for (uint i = gl_LocalInvocationID.x; i < (A_HALVES + B_HALVES) / 8; i += SUBGROUPS * 32) {
        uint h = packHalf2x16(vec2(values[(2 * i) % 512], values[(2 * i + 1) % 512]));
        stage[i] = uvec4(h);
    }
    barrier();
    uint subgroup = gl_LocalInvocationID.x / 32, lane = gl_LocalInvocationID.x % 32;
    uint a_at = (subgroup / 2) * 64 * A_LINE / 8, b_at = A_HALVES / 8 + (subgroup % 2) * 64 / 8;
    // 0 at run time; unknown to the compiler, so that the slice's offset stays a run-time value
    uint salt = floatBitsToUint(values[0]) >> 31;
    ACC acc[ACCS];
    [[unroll]] for (int i = 0; i < ACCS; i++)
        acc[i] = ACC(float(i));
    for (uint t = 0; t < pc.turns; t++) {
        uint kk = ((t + salt) & 1u) * 16u;
        coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a[4];
        coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> b[4];
        [[unroll]] for (uint i = 0; i < 4; i++)
            coopMatLoad(a[i], stage, a_at + (i * 16 * A_LINE + kk) / 8, A_LINE / 8,
                        gl_CooperativeMatrixLayoutRowMajor);
        [[unroll]] for (uint j = 0; j < 4; j++)
            coopMatLoad(b[j], stage, b_at + (kk * B_LINE + j * 16) / 8, B_LINE / 8,
                        gl_CooperativeMatrixLayoutRowMajor);
        [[unroll]] for (uint i = 0; i < 4; i++)
            [[unroll]] for (uint j = 0; j < 4; j++)
                acc[i * 4 + j] = coopMatMulAdd(a[i], b[j], acc[i * 4 + j]);
#ifdef STEP_BARRIER
        if ((t & 1u) == 1u)
            barrier();
#endif
    }
    float sum[16 * 16 / 32];
    [[unroll]] for (int e = 0; e < 16 * 16 / 32; e++)
        sum[e] = 0.0;
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
