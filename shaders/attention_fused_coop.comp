#version 450
// FusedAttention (lib/ops/fused_attention.h) on cooperative matrices (GL_KHR_cooperative_matrix:
// float16 fragments of 16x16, float32 sums): float16 tensors of any strides whose operands
// fit shared memory (the host checks and picks the variant: lib/vulkan/ops_attention.c,
// fused_coop_subgroups). A workgroup is SUBGROUPS subgroups of 32 invocations (4, or 2 where
// 4 do not fit) and takes 16 query rows a subgroup of batch index gl_WorkGroupID.y.
//
// Attention's workgroups are few (BERT-base: 24 for 132 SMs), so each SM runs a subgroup or
// four and every load's round trip and every dependent instruction shows. Hence:
// everything the products read is staged in shared memory by all invocations, in rounds of
// ROUND loads an invocation that are all in flight together (unconditional loads: a branch
// around a load made each wait for the one before; one uvec4 of 8 halves a load where the
// operand is dense and aligned), zero past the tensors' ends; and the products run WIDE
// accumulators at once.
//   1. the workgroup's queries and the keys staged; the values' first round issued, held in
//      registers while the scores and softmax run. Each subgroup on its own: the scores
//      S = scale * Q K^T, rounded to float16 into the subgroup's rows of shared memory (as
//      the product apart stores them);
//   2. (ATTENTION_MASK: the scores masked, attention_mask.glsl) the softmax of each row by
//      two invocations, combined by a subgroup shuffle: the
//      weights divided by their row's sum and rounded to float16 in place (as the Softmax
//      apart writes them);
//   3. the values stored where the keys were (the workgroup waits for every subgroup's
//      scores first); O = P V, each block of 16 value columns staged through the
//      subgroup's query rows and written 8 elements an invocation.
// Keys past n read 0 scores and get weight 0; query rows past m compute and are not written.
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
#define PUSH_ATTENTION_FUSED
#include "buffers.glsl"
#include "push.h"

#define F 16     // fragment rows, columns and depth
#define LANES 32 // invocations a subgroup
#ifndef SUBGROUPS
#define SUBGROUPS 4 // FUSED_COOP_SUBGROUPS_MAX in ops_attention.c
#endif
#define UVEC4S 3072 // shared memory in uvec4 of 8 halves: 48 KiB (FUSED_COOP_UVEC4S)
#define THREADS (LANES * SUBGROUPS)
#define ROUND 8 // loads an invocation has in flight while staging
#define WIDE 4  // blocks multiplied at once
layout(local_size_x = THREADS, local_size_y = 1, local_size_z = 1) in;

#define ACC coopmat<float, gl_ScopeSubgroup, F, F, gl_MatrixUseAccumulator>
#define ACC16 coopmat<float16_t, gl_ScopeSubgroup, F, F, gl_MatrixUseAccumulator>
#define MAT_A coopmat<float16_t, gl_ScopeSubgroup, F, F, gl_MatrixUseA>
#define MAT_B coopmat<float16_t, gl_ScopeSubgroup, F, F, gl_MatrixUseB>

#ifdef ATTENTION_MASK
#define Y_BINDING 4 // the mask at 3
#else
#define Y_BINDING 3
#endif
DECLARE_IN(0, a)
DECLARE_IN(1, b)
DECLARE_IN(2, v)
DECLARE_OUT(Y_BINDING, y)
DECLARE_IN_OF(uvec4, 0, a8)
DECLARE_IN_OF(uvec4, 1, b8)
DECLARE_IN_OF(uvec4, 2, v8)
DECLARE_OUT_OF(uvec4, Y_BINDING, y8)
#include "attention_mask.glsl"

// Lines of 8 halves more than a row needs: fragment loads of 16 rows then start 16 bytes
// apart in the banks.
shared uvec4 sh[UVEC4S];

uint round16(uint x)
{
    return (x + F - 1u) & ~(F - 1u);
}

uvec4 pack8(f16vec4 lo, f16vec4 hi)
{
    return uvec4(packFloat2x16(lo.xy), packFloat2x16(lo.zw), packFloat2x16(hi.xy),
                 packFloat2x16(hi.zw));
}

f16vec4 half4(uint lo, uint hi)
{
    return f16vec4(unpackFloat2x16(lo), unpackFloat2x16(hi));
}

// An operand as a matrix: Q (query row, d), K (key, d) or V (key, value column); its element
// (r, c) at base + r * rs + c * cs for r < rows, c < cols, 0 elsewhere. `fast`: every run of
// 8 columns is either wholly inside and aligned (one uvec4) or wholly outside.
struct view {
    uint base, rs, cs, rows, cols;
    bool fast;
};

view make_view(uint base, uint rs, uint cs, uint rows, uint cols)
{
    return view(base, rs, cs, rows, cols, cs == 1u && ((base | rs | cols) & 7u) == 0u);
}

// The staging's slots: slot s is uvec4 `run` of row `row` (s = row * runs + run); an
// invocation's slots are THREADS apart, a round of them ROUND.
struct slot {
    uint s, row, run;
};

slot slot_first(uint runs)
{
    uint s = gl_LocalInvocationIndex;
    return slot(s, s / runs, s % runs);
}

slot slot_next(uint runs, slot at)
{
    at.s += THREADS;
    at.row += THREADS / runs;
    at.run += THREADS % runs;
    if (at.run >= runs) {
        at.run -= runs;
        at.row++;
    }
    return at;
}

// A round's loads from `at` on into got, each unconditional (a slot past the view loads
// element 0 and keeps 0), so that all are in flight together.
#define DEFINE_ISSUE(name, ARR8, ARR)                                                              \
    void name(view w, uint runs, uint slots, slot at, out uvec4 got[ROUND])                       \
    {                                                                                              \
        if (w.fast) {                                                                              \
            [[unroll]] for (uint i = 0u; i < ROUND; i++) {                                         \
                bool ok = at.s < slots && at.row < w.rows && at.run * 8u < w.cols;                 \
                uvec4 x = ARR8[ok ? (w.base + at.row * w.rs + at.run * 8u) / 8u : 0u];             \
                got[i] = ok ? x : uvec4(0u);                                                       \
                at = slot_next(runs, at);                                                          \
            }                                                                                      \
        } else {                                                                                   \
            [[unroll]] for (uint i = 0u; i < ROUND; i++) {                                         \
                float16_t e[8];                                                                    \
                [[unroll]] for (uint c = 0u; c < 8u; c++) {                                        \
                    uint col = at.run * 8u + c;                                                    \
                    bool ok = at.s < slots && at.row < w.rows && col < w.cols;                     \
                    float16_t x = ARR[ok ? w.base + at.row * w.rs + col * w.cs : 0u];              \
                    e[c] = ok ? x : float16_t(0.0);                                                \
                }                                                                                  \
                got[i] = pack8(f16vec4(e[0], e[1], e[2], e[3]), f16vec4(e[4], e[5], e[6], e[7]));  \
                at = slot_next(runs, at);                                                          \
            }                                                                                      \
        }                                                                                          \
    }
DEFINE_ISSUE(issue_q, a8, a)
DEFINE_ISSUE(issue_k, b8, b)
DEFINE_ISSUE(issue_v, v8, v)

// A round's uvec4 into sh from `to`, `line` uvec4 a row; returns the next round's first slot.
slot commit(uint runs, uint slots, slot at, uint to, uint line, uvec4 got[ROUND])
{
    [[unroll]] for (uint i = 0u; i < ROUND; i++) {
        if (at.s < slots)
            sh[to + at.row * line + at.run] = got[i];
        at = slot_next(runs, at);
    }
    return at;
}

// The slots from `at` on, a round at a time.
#define DEFINE_STAGE(name, issue)                                                                  \
    void name(view w, uint runs, uint slots, slot at, uint to, uint line)                         \
    {                                                                                              \
        while (at.s < slots) {                                                                     \
            uvec4 got[ROUND];                                                                      \
            issue(w, runs, slots, at, got);                                                        \
            at = commit(runs, slots, at, to, line, got);                                           \
        }                                                                                          \
    }
DEFINE_STAGE(stage_q, issue_q)
DEFINE_STAGE(stage_k, issue_k)
DEFINE_STAGE(stage_v, issue_v)

void main()
{
    uint sg = gl_SubgroupID, lane = gl_SubgroupInvocationID, batch = gl_WorkGroupID.y;
    uint row0 = gl_WorkGroupID.x * (F * SUBGROUPS);
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
    uint np = round16(p.n), kp = round16(p.k), ep = round16(p.e);
    // uvec4 a line: queries and keys, values, scores; where each subgroup's rows lie
    uint kl = kp / 8u + 1u, el = ep / 8u + 1u, nl = np / 8u + 1u;
    uint q_at = np * max(kl, el), s_at = q_at + SUBGROUPS * F * kl;
    uint my_q = q_at + sg * F * kl, my_s = s_at + sg * F * nl;

    // 1. queries and keys staged, the values' first round in flight, the scores
    stage_q(make_view(ao + row0 * p.a_sm, p.a_sm, p.a_sk, p.m > row0 ? p.m - row0 : 0u, p.k),
            kp / 8u, SUBGROUPS * F * (kp / 8u), slot_first(kp / 8u), q_at, kl);
    stage_k(make_view(bo, p.b_sn, p.b_sk, p.n, p.k), kp / 8u, np * (kp / 8u), slot_first(kp / 8u),
            0u, kl);
    view vv = make_view(vo, p.v_sn, p.v_se, p.n, p.e);
    uint v_runs = ep / 8u, v_slots = np * v_runs;
    uvec4 v_first[ROUND];
    issue_v(vv, v_runs, v_slots, slot_first(v_runs), v_first);
    barrier();
    for (uint t0 = 0u; t0 < np; t0 += WIDE * F) {
        ACC acc[WIDE];
        [[unroll]] for (uint j = 0u; j < WIDE; j++)
            acc[j] = ACC(0.0);
        for (uint d0 = 0u; d0 < kp; d0 += F) {
            MAT_A q;
            coopMatLoad(q, sh, my_q + d0 / 8u, kl, gl_CooperativeMatrixLayoutRowMajor);
            [[unroll]] for (uint j = 0u; j < WIDE; j++) {
                MAT_B kt; // past the last block: the last again, not stored
                coopMatLoad(kt, sh, min(t0 + j * F, np - F) * kl + d0 / 8u, kl,
                            gl_CooperativeMatrixLayoutColumnMajor);
                acc[j] = coopMatMulAdd(q, kt, acc[j]);
            }
        }
        [[unroll]] for (uint j = 0u; j < WIDE; j++) {
            if (t0 + j * F < np) {
                ACC16 s16 = ACC16(acc[j] * p.scale);
                coopMatStore(s16, sh, my_s + (t0 + j * F) / 8u, nl,
                             gl_CooperativeMatrixLayoutRowMajor);
            }
        }
    }
    subgroupMemoryBarrierShared();
    subgroupBarrier();

    // 2. the softmax: row lane / 2, the runs of 8 keys side, side + 2, ...
    uint r = lane >> 1u, side = lane & 1u, at = my_s + r * nl;
#ifdef ATTENTION_MASK
    // the row's scores masked, rounded to float16 in place (as the mask's node apart writes
    // them); a row past m reads the last row's mask
    // (two runs of 8 at a time, their 16 loads in flight together)
    uint mrow = mo + min(row0 + sg * F + r, p.m - 1u) * p.mask_sm;
    for (uint j0 = side; j0 < np / 8u; j0 += 4u) {
        float m[2][8];
        [[unroll]] for (uint u = 0u; u < 2u; u++)
            mask_run(mrow, (j0 + 2u * u) * 8u, m[u]);
        [[unroll]] for (uint u = 0u; u < 2u; u++) {
            uint j = j0 + 2u * u;
            if (j < np / 8u) {
                uvec4 w = sh[at + j];
                vec4 lo = vec4(half4(w.x, w.y)), hi = vec4(half4(w.z, w.w));
                [[unroll]] for (uint i = 0u; i < 4u; i++) {
                    lo[i] = mask_apply(lo[i], m[u][i]);
                    hi[i] = mask_apply(hi[i], m[u][4u + i]);
                }
                sh[at + j] = pack8(f16vec4(lo), f16vec4(hi));
            }
        }
    }
#endif
    float top = -1.0 / 0.0;
    for (uint j = side; j < np / 8u; j += 2u) {
        uvec4 w = sh[at + j];
        vec4 lo = vec4(half4(w.x, w.y)), hi = vec4(half4(w.z, w.w));
        [[unroll]] for (uint i = 0u; i < 4u; i++) {
            if (j * 8u + i < p.n)
                top = max(top, lo[i]);
            if (j * 8u + 4u + i < p.n)
                top = max(top, hi[i]);
        }
    }
    top = max(top, subgroupShuffleXor(top, 1u));
    float sum = 0.0;
    for (uint j = side; j < np / 8u; j += 2u) {
        uvec4 w = sh[at + j];
        vec4 lo = vec4(half4(w.x, w.y)), hi = vec4(half4(w.z, w.w));
        [[unroll]] for (uint i = 0u; i < 4u; i++) {
            sum += j * 8u + i < p.n ? exp(lo[i] - top) : 0.0;
            sum += j * 8u + 4u + i < p.n ? exp(hi[i] - top) : 0.0;
        }
    }
    sum += subgroupShuffleXor(sum, 1u);
    float inv = 1.0 / sum;
    for (uint j = side; j < np / 8u; j += 2u) {
        uvec4 w = sh[at + j];
        vec4 lo = vec4(half4(w.x, w.y)), hi = vec4(half4(w.z, w.w));
        [[unroll]] for (uint i = 0u; i < 4u; i++) {
            lo[i] = j * 8u + i < p.n ? exp(lo[i] - top) * inv : 0.0;
            hi[i] = j * 8u + 4u + i < p.n ? exp(hi[i] - top) * inv : 0.0;
        }
        sh[at + j] = pack8(f16vec4(lo), f16vec4(hi));
    }

    // 3. the values where the keys were, then O = P V
    barrier();
    slot rest_v = commit(v_runs, v_slots, slot_first(v_runs), 0u, el, v_first);
    stage_v(vv, v_runs, v_slots, rest_v, 0u, el);
    barrier();
    uint out_row = row0 + sg * F + r, col8 = side * 8u;
    for (uint c0 = 0u; c0 < ep; c0 += WIDE * F) {
        ACC acc[WIDE];
        [[unroll]] for (uint j = 0u; j < WIDE; j++)
            acc[j] = ACC(0.0);
        for (uint t0 = 0u; t0 < np; t0 += F) {
            MAT_A w;
            coopMatLoad(w, sh, my_s + t0 / 8u, nl, gl_CooperativeMatrixLayoutRowMajor);
            [[unroll]] for (uint j = 0u; j < WIDE; j++) {
                MAT_B val; // past the last block: the last again, not stored
                coopMatLoad(val, sh, t0 * el + min(c0 + j * F, ep - F) / 8u, el,
                            gl_CooperativeMatrixLayoutRowMajor);
                acc[j] = coopMatMulAdd(w, val, acc[j]);
            }
        }
        [[unroll]] for (uint j = 0u; j < WIDE; j++) {
            if (c0 + j * F >= ep)
                continue;
            // 16 x 16 halves, 2 uvec4 a row, through the subgroup's query rows
            ACC16 o16 = ACC16(acc[j]);
            coopMatStore(o16, sh, my_q, 2u, gl_CooperativeMatrixLayoutRowMajor);
            subgroupMemoryBarrierShared();
            subgroupBarrier();
            uvec4 o = sh[my_q + lane];
            uint c = c0 + j * F + col8, dst = yo + out_row * p.y_sm + c;
            if (out_row < p.m && c < p.e) {
                if (c + 8u <= p.e && (dst & 7u) == 0u) {
                    y8[dst / 8u] = o;
                } else {
                    f16vec4 lo = half4(o.x, o.y), hi = half4(o.z, o.w);
                    for (uint i = 0u; i < 8u && c + i < p.e; i++)
                        y[dst + i] = T(i < 4u ? lo[i] : hi[i - 4u]);
                }
            }
            subgroupMemoryBarrierShared();
            subgroupBarrier();
        }
    }
}
