#version 450
// FusedAttention (lib/ops/fused_attention.h) on cooperative matrices (GL_KHR_cooperative_matrix:
// float16 fragments of 16x16, float32 sums), for float16 tensors whose query rows, keys,
// query size and value size are multiples of 16 and whose inner dims are dense (the host
// checks: lib/vulkan/ops_attention.c). A workgroup is one subgroup of 32 invocations and
// takes 16 query rows of batch index gl_WorkGroupID.y:
//   1. the scores S = Q K^T, a 16x16 accumulator per 16 keys summed over the query size in
//      steps of 16, Q and K fragments loaded from memory (K column-major: B = K^T), S stored
//      in shared memory as float32;
//   2. the softmax of each row by two invocations (the maximum, then float32 weights and
//      their sum), the weights rounded to float16 into shared memory;
//   3. O = P V, a 16x16 accumulator per 16 value columns summed over the keys, P from
//      shared memory and V from memory, O staged in shared memory (where S was), and each
//      element written divided by its row's sum.
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
#define PUSH_ATTENTION_FUSED
#include "buffers.glsl"
#include "push.h"

#define F 16            // fragment rows, columns and depth
#define LANES 32        // invocations: one subgroup
#define MAX_KEYS 256    // keys, and value columns (the host checks both)
#define S_LINE (MAX_KEYS + 4) // floats per row of S (and of O): 16-byte aligned rows
#define P_LINE (MAX_KEYS + 8) // halves per row of P
layout(local_size_x = LANES, local_size_y = 1, local_size_z = 1) in;

#define ACC coopmat<float, gl_ScopeSubgroup, F, F, gl_MatrixUseAccumulator>
#define MAT_A coopmat<float16_t, gl_ScopeSubgroup, F, F, gl_MatrixUseA>
#define MAT_B coopmat<float16_t, gl_ScopeSubgroup, F, F, gl_MatrixUseB>

DECLARE_IN(0, a)
DECLARE_IN(1, b)
DECLARE_IN(2, v)
DECLARE_OUT(3, y)

shared float s[F * S_LINE];
shared float16_t pw[F * P_LINE];
shared float part[LANES];
shared float row_sum[F];

void main()
{
    uint lane = gl_LocalInvocationID.x, row0 = gl_WorkGroupID.x * F, batch = gl_WorkGroupID.y;
    uint ao = 0u, bo = 0u, vo = 0u, rest = batch;
    for (int d = int(p.batch_rank) - 1; d >= 0; d--) {
        uint i = rest % p.batch_dims[d];
        rest /= p.batch_dims[d];
        ao += i * p.a_batch[d];
        bo += i * p.b_batch[d];
        vo += i * p.v_batch[d];
    }
    ao += row0 * p.a_sm;
    for (uint t0 = 0u; t0 < p.n; t0 += F) {
        ACC acc = ACC(0.0);
        for (uint d0 = 0u; d0 < p.k; d0 += F) {
            MAT_A q;
            MAT_B kt;
            coopMatLoad(q, a, ao + d0, p.a_sm, gl_CooperativeMatrixLayoutRowMajor);
            coopMatLoad(kt, b, bo + t0 * p.b_sn + d0, p.b_sn, gl_CooperativeMatrixLayoutColumnMajor);
            acc = coopMatMulAdd(q, kt, acc);
        }
        coopMatStore(acc, s, t0, S_LINE, gl_CooperativeMatrixLayoutRowMajor);
    }
    barrier();
    // two invocations a row: columns side, side + 2, ...
    uint r = lane >> 1u, side = lane & 1u, at = r * S_LINE;
    float top = -1.0 / 0.0;
    for (uint t = side; t < p.n; t += 2u)
        top = max(top, s[at + t] * p.scale);
    part[lane] = top;
    barrier();
    top = max(part[lane], part[lane ^ 1u]);
    barrier();
    float sum = 0.0;
    for (uint t = side; t < p.n; t += 2u) {
        float w = exp(s[at + t] * p.scale - top);
        sum += w;
        pw[r * P_LINE + t] = float16_t(w);
    }
    part[lane] = sum;
    barrier();
    if (side == 0u)
        row_sum[r] = part[lane] + part[lane + 1u];
    barrier();
    for (uint c0 = 0u; c0 < p.e; c0 += F) {
        ACC acc = ACC(0.0);
        for (uint t0 = 0u; t0 < p.n; t0 += F) {
            MAT_A w;
            MAT_B val;
            coopMatLoad(w, pw, t0, P_LINE, gl_CooperativeMatrixLayoutRowMajor);
            coopMatLoad(val, v, vo + t0 * p.v_sn + c0, p.v_sn, gl_CooperativeMatrixLayoutRowMajor);
            acc = coopMatMulAdd(w, val, acc);
        }
        coopMatStore(acc, s, c0, S_LINE, gl_CooperativeMatrixLayoutRowMajor);
    }
    barrier();
    uint out0 = (batch * p.m + row0) * p.e;
    for (uint x = lane; x < F * p.e; x += LANES) {
        uint row = x / p.e, c = x % p.e;
        y[out0 + x] = T(s[row * S_LINE + c] / row_sum[row]);
    }
}
