#version 450
// Batched matrix product without shared memory: one invocation per output element,
// a plain loop over k. Same bindings and push block as matmul.comp. For devices where
// workgroup barriers are expensive (CPU implementations such as lavapipe).
// Grid: x over M * N outputs (1-D, y spill), z = batch.
#include "buffers.glsl"

#define WG_SIZE 64
layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;

#include "matmul_params.glsl"

void main()
{
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * WG_SIZE;
    if (i >= p.m * p.n)
        return;
    uint batch = gl_WorkGroupID.z, a_off, b_off;
    batch_offsets(batch, a_off, b_off);
    uint row = i / p.n, col = i % p.n;
    a_off += row * p.a_sm;
    b_off += col * p.b_sn;
    A acc = A(0);
    for (uint kk = 0; kk < p.k; kk++)
        acc += A(a[a_off + kk * p.a_sk]) * A(b[b_off + kk * p.b_sk]);
    y[batch * p.m * p.n + i] = epilogue(acc, row, col, batch * p.m * p.n + i);
}
