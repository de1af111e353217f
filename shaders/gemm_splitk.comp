#version 450
// The second pass of split-K (common/gemm_operands.glsl with SPLITK=2): Y[z, row, col] of
// a product whose first pass (gemm_tiled.comp with SPLITK=1) left the sums of `splits` K
// slices in binding 0, [splits][Z][M][N] float32: their sum, then gemm_store (alpha, C or
// bias, the fused epilogue) as the product's own kernel would. Where N is a multiple of 4,
// 4 output columns an invocation (one vector a slice; stored as one vector by
// gemm_store_quad where they lie so in Y), else one; workgroups (vk_splitk_sum_x, M, Z).
#extension GL_EXT_control_flow_attributes : require
#include "buffers.glsl"
#define SPLITK 2
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

#include "gemm_operands.glsl"

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
