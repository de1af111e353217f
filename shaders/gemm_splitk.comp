#version 450
// The second pass of split-K (common/gemm_operands.glsl with SPLITK=2): Y[z, row, col] of
// a product whose first pass (gemm_tiled.comp with SPLITK=1) left the sums of `splits` K
// slices in binding 0, [splits][Z][M][N] float32: their sum, then gemm_store (alpha, C or
// bias, the fused epilogue) as the product's own kernel would. One invocation per output
// column, workgroups (N / 64, M, Z).
#include "buffers.glsl"
#if CONV
#include "window.glsl"
#endif
#define SPLITK 2
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

#include "gemm_operands.glsl"

void main()
{
    uint z = gemm_z();
    gemm_locate(z);
    uint row = gl_WorkGroupID.y, col = gl_GlobalInvocationID.x;
    if (row >= g_m || col >= g_n)
        return;
    uint batches = gl_NumWorkGroups.z;
    float sum = 0.0;
    for (uint s = 0; s < p.splits; s++)
        sum += part[((s * batches + z) * g_m + row) * g_n + col];
    gemm_store(row, col, z, sum);
}
