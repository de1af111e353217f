#version 450
// Batched matrix product without shared memory: one invocation per output element,
// a plain loop over k. Same bindings and push block as matmul.comp. For devices where
// workgroup barriers are expensive (CPU implementations such as lavapipe).
// Grid: x over M * N outputs (1-D, y spill), z = batch.
#include "buffers.glsl"

#define WG_SIZE 64
#define MAX_BATCH_RANK 4
layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;

DECLARE_IN(0, a)
DECLARE_IN(1, b)
DECLARE_IN(2, c)
DECLARE_IN(3, res) // the fused residual (epilogue.glsl)
DECLARE_OUT(4, y)

layout(push_constant) uniform Params {
    uint m, n, k;
    uint a_sm, a_sk, b_sk, b_sn, c_sm, c_sn;
    float alpha, beta;
    uint has_c;
    uint batch_rank;
    uint batch_dims[MAX_BATCH_RANK];
    uint a_batch_strides[MAX_BATCH_RANK];
    uint b_batch_strides[MAX_BATCH_RANK];
    uint epi_act;
    float epi_alpha, epi_beta;
    uint epi_flags;
} p;
#include "epilogue.glsl"

// alpha * acc + beta * C, then the fused epilogue (output element at). Integer variants:
// the host only sends alpha = beta = 1 (exact) and no fused epilogue.
T epilogue(A acc, uint row, uint col, uint at)
{
#if IS_FLOAT
    A v = A(p.alpha) * acc;
    if (p.has_c != 0)
        v += A(p.beta) * A(c[row * p.c_sm + col * p.c_sn]);
#else
    A v = acc;
    if (p.has_c != 0)
        v += A(c[row * p.c_sm + col * p.c_sn]);
#endif
    return T(epilogue_apply(v, at));
}

void main()
{
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * WG_SIZE;
    if (i >= p.m * p.n)
        return;
    uint batch = gl_WorkGroupID.z, rem = batch, a_off = 0, b_off = 0;
    for (int d = int(p.batch_rank) - 1; d >= 0; d--) {
        uint idx = rem % p.batch_dims[d];
        rem /= p.batch_dims[d];
        a_off += idx * p.a_batch_strides[d];
        b_off += idx * p.b_batch_strides[d];
    }
    uint row = i / p.n, col = i % p.n;
    a_off += row * p.a_sm;
    b_off += col * p.b_sn;
    A acc = A(0);
    for (uint kk = 0; kk < p.k; kk++)
        acc += A(a[a_off + kk * p.a_sk]) * A(b[b_off + kk * p.b_sk]);
    y[batch * p.m * p.n + i] = epilogue(acc, row, col, batch * p.m * p.n + i);
}
