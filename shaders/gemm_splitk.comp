#version 450
// The second pass of split-K (common/gemm_operands.glsl with SPLITK=2): Y[z, row, col] of
// a product whose first pass (gemm_tiled.comp with SPLITK=1) left the sums of `splits` K
// slices in binding 0, [splits][Z][M][N] float32: their sum, then gemm_store (alpha, C or
// bias, the fused epilogue) as the product's own kernel would. Where N is a multiple of 4,
// 4 output columns an invocation (one vector a slice; stored as one vector by
// gemm_store_quad where they lie so in Y), else one; workgroups (vk_splitk_sum_x, M, Z).
// NORM=1: the node's fused LayerNormalization too (graph_epilogue.norm): a workgroup of 256
// a row of Y, one quad of the row an invocation (N a multiple of 4, at most 1,024), so that
// each invocation waits as many rounds of slice loads as in the plain pass; its scale read
// from binding 1 (B's, unused here), its bias from binding 5 (Y where there is none, never
// read); the row's mean, then its variance, each a subgroup sum and one barrier.
#extension GL_EXT_control_flow_attributes : require
#include "buffers.glsl"
#define SPLITK 2
#if defined(NORM) && NORM
#extension GL_KHR_shader_subgroup_arithmetic : require
#define THREADS 256 // lib/vulkan/ops_gemm.h: VK_SPLITK_NORM_MAX_N = 4 x this
#else
#define THREADS 64
#endif
layout(local_size_x = THREADS, local_size_y = 1, local_size_z = 1) in;

#include "gemm_operands.glsl"

#if defined(NORM) && NORM
DECLARE_IN_OF(T, 5, norm_bias)
shared float partial[THREADS]; // one a subgroup: gl_NumSubgroups <= THREADS

// The sum of v over the workgroup (every invocation calls it, and gets it).
float workgroup_sum(float v)
{
    float mine = subgroupAdd(v);
    if (subgroupElect())
        partial[gl_SubgroupID] = mine;
    barrier();
    float total = 0.0;
    for (uint i = 0u; i < gl_NumSubgroups; i++)
        total += partial[i];
    barrier(); // before a next call overwrites partial
    return total;
}

// Row gl_WorkGroupID.y of batch z: the slices' sums with bias and residual as gemm_store_quad
// adds them, normalised, scaled, shifted and stored.
void main()
{
    uint z = gemm_z();
    gemm_locate(z);
    uint row = gl_WorkGroupID.y, batches = gl_NumWorkGroups.z, slice = batches * g_m * g_n;
    uint splits = p.splits & 0x7fffffffu; // bit 31: a bias (push.h)
    bool has_bias = (p.splits >> 31) != 0u;
    float epsilon = uintBitsToFloat(p.k_slice);
    uint col = 4u * gl_LocalInvocationIndex;
    bool inside = col < g_n;
    vec4 v = vec4(0.0);
    if (inside) {
        uint at = (z * g_m + row) * g_n + col;
        vec4 s4 = vec4(0.0);
        for (uint s = 0; s < splits; s += 4u) { // 4 slices' loads in flight together
            vec4 part_s[4];
            [[unroll]] for (uint i = 0; i < 4u; i++)
                part_s[i] = s + i < splits ? part4[(at + (s + i) * slice) / 4u] : vec4(0.0);
            s4 += (part_s[0] + part_s[1]) + (part_s[2] + part_s[3]);
        }
        v = gemm_quad_result(row, col, at, s4);
    }
    float mean = workgroup_sum((v.x + v.y) + (v.z + v.w)) / float(g_n);
    vec4 d = v - mean;
    float inv = inversesqrt(workgroup_sum(inside ? dot(d, d) : 0.0) / float(g_n) + epsilon);
    if (!inside)
        return;
    vec4 y4v;
    [[unroll]] for (uint e = 0u; e < 4u; e++)
        y4v[e] = d[e] * inv * float(b[col + e]) + (has_bias ? float(norm_bias[col + e]) : 0.0);
    y4[((z * g_m + row) * g_n + col) / 4u] = T4(y4v);
}
#else

void main()
{
    uint z = gemm_z();
    gemm_locate(z);
    // 4 columns an invocation where N is a multiple of 4, else one (vk_splitk_sum_x)
    bool quads = (g_n & 3u) == 0u;
    uint row = gl_WorkGroupID.y, col = (quads ? 4u : 1u) * gl_GlobalInvocationID.x;
    if (row >= g_m || col >= g_n)
        return;
    uint batches = gl_NumWorkGroups.z;
    // The slices 4 at a time, their loads issued together: one loop iteration a slice
    // waited a load's round trip each, one after another.
    uint at = ((z * g_m + row) * g_n + col), slice = batches * g_m * g_n;
    if (quads) {
        vec4 sum = vec4(0.0);
        for (uint s = 0; s < p.splits; s += 4u) {
            vec4 part_s[4];
            [[unroll]] for (uint i = 0; i < 4u; i++)
                part_s[i] = s + i < p.splits ? part4[(at + (s + i) * slice) / 4u] : vec4(0.0);
            sum += (part_s[0] + part_s[1]) + (part_s[2] + part_s[3]);
        }
        if (!gemm_store_quad(row, col, z, sum))
            gemm_store_each(row, col, z, sum);
    } else {
        float sum = 0.0;
        for (uint s = 0; s < p.splits; s += 4u) {
            float part_s[4];
            [[unroll]] for (uint i = 0; i < 4u; i++)
                part_s[i] = s + i < p.splits ? part[at + (s + i) * slice] : 0.0;
            sum += (part_s[0] + part_s[1]) + (part_s[2] + part_s[3]);
        }
        gemm_store(row, col, z, sum);
    }
}
#endif
