#version 450
// FusedAttention (lib/ops/fused_attention.h): Y[b] = softmax(scale * A[b] B[b]) V[b], the
// scores kept in shared memory (ATTENTION_MASK: masked first, attention_mask.glsl). A
// workgroup takes ROWS query rows of batch index gl_WorkGroupID.y: their queries into shared
// memory; each invocation the scores of keys tid, tid + WG_SIZE, ... against all ROWS
// queries (a key's elements read once for the ROWS rows); the rows' maxima and sums by a
// tree in shared memory; then each output element (row, column) the weighted sum of V's
// column over the keys (adjacent invocations read adjacent columns). Up to MAX_KEYS keys and
// MAX_K query elements (the host checks: lib/vulkan/ops_attention.c), 14 KiB of shared
// memory in all.
#extension GL_EXT_control_flow_attributes : require
#define PUSH_ATTENTION_FUSED
#define WG_SIZE 128
#include "index.glsl"
#include "buffers.glsl"
#include "push.h"

#define ROWS 4
#define MAX_KEYS 512
#define MAX_K 256

#ifdef ATTENTION_MASK
#define Y_BINDING 4 // the mask at 3
#else
#define Y_BINDING 3
#endif
DECLARE_IN(0, a)
DECLARE_IN(1, b)
DECLARE_IN(2, v)
DECLARE_OUT(Y_BINDING, y)
#include "attention_mask.glsl"

shared float qs[ROWS][MAX_K];
shared float s[ROWS][MAX_KEYS];
shared float red[ROWS][WG_SIZE];

// The rows' maxima (take_max) or sums of red, in red[r][0], read by every invocation.
void combine(bool take_max, uint tid)
{
    barrier();
    for (uint h = WG_SIZE / 2u; h > 0u; h >>= 1u) {
        if (tid < h)
            for (uint r = 0u; r < ROWS; r++)
                red[r][tid] = take_max ? max(red[r][tid], red[r][tid + h])
                                       : red[r][tid] + red[r][tid + h];
        barrier();
    }
}

void main()
{
    uint tid = gl_LocalInvocationID.x, row0 = gl_WorkGroupID.x * ROWS, batch = gl_WorkGroupID.y;
    uint ao = p.a_offset, bo = p.b_offset, vo = p.v_offset, yo = 0u, mo = 0u, rest = batch;
    for (int d = int(p.batch_rank) - 1; d >= 0; d--) {
        uint i = rest % p.batch_dims[d];
        rest /= p.batch_dims[d];
        ao += i * p.a_batch[d];
        bo += i * p.b_batch[d];
        vo += i * p.v_batch[d];
        yo += i * p.y_batch[d];
        mo += MASK_BATCH(i, d);
    }
    for (uint x = tid; x < ROWS * p.k; x += WG_SIZE) {
        uint r = x / p.k, d = x % p.k;
        qs[r][d] = row0 + r < p.m ? float(a[ao + (row0 + r) * p.a_sm + d * p.a_sk]) : 0.0;
    }
    barrier();
    float top[ROWS];
    for (uint r = 0u; r < ROWS; r++)
        top[r] = -1.0 / 0.0;
    for (uint t = tid; t < p.n; t += WG_SIZE) {
        float dot[ROWS];
        for (uint r = 0u; r < ROWS; r++)
            dot[r] = 0.0;
        uint at = bo + t * p.b_sn;
        for (uint d = 0u; d < p.k; d++) {
            float key = float(b[at + d * p.b_sk]);
            for (uint r = 0u; r < ROWS; r++)
                dot[r] += qs[r][d] * key;
        }
        for (uint r = 0u; r < ROWS; r++) {
            s[r][t] = dot[r] * p.scale;
#ifdef ATTENTION_MASK // a row past m reads the last row's mask
            s[r][t] = masked_score(s[r][t], mo + min(row0 + r, p.m - 1u) * p.mask_sm, t);
#endif
            top[r] = max(top[r], s[r][t]);
        }
    }
    for (uint r = 0u; r < ROWS; r++)
        red[r][tid] = top[r];
    combine(true, tid);
    for (uint r = 0u; r < ROWS; r++)
        top[r] = red[r][0];
    barrier(); // every invocation has read the maxima before red is reused
    float sum[ROWS];
    for (uint r = 0u; r < ROWS; r++)
        sum[r] = 0.0;
    for (uint t = tid; t < p.n; t += WG_SIZE)
        for (uint r = 0u; r < ROWS; r++) {
            float w = exp(s[r][t] - top[r]);
            s[r][t] = w;
            sum[r] += w;
        }
    for (uint r = 0u; r < ROWS; r++)
        red[r][tid] = sum[r];
    combine(false, tid); // its barriers also order the weights in s before the reads below
    for (uint x = tid; x < ROWS * p.e; x += WG_SIZE) {
        uint r = x / p.e, c = x % p.e;
        if (row0 + r >= p.m)
            continue;
        float acc = 0.0;
        uint at = vo + c * p.v_se;
        for (uint t = 0u; t < p.n; t++)
            acc += s[r][t] * float(v[at + t * p.v_sn]);
        y[yo + (row0 + r) * p.y_sm + c] = T(acc / red[r][0]);
    }
}
