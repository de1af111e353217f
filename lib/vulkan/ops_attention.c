/* Attention on Vulkan (shaders/attention.comp): Q, K, V and Y only, so no mask, past
 * key/value, nonpad_kv_seqlen or extra outputs (those nodes run on the CPU); is_causal,
 * scale, softcap, grouped KV heads, 3-D and 4-D layouts; float and float16. And the
 * planner's FusedAttention (shaders/attention_fused.comp): its operands through strides, its
 * mask (if any) too. */
#include "ops/attention.h"
#include "ops/fused_attention.h"
#include "vulkan/vk_ops.h"

/* The kernel's per-invocation accumulator (MAX_V_SIZE in attention.comp). */
#define ATTENTION_MAX_V_SIZE 256

static bool present(const graph_node *node, int i, bool output)
{
    int n = output ? node->n_outputs : node->n_inputs;
    const int *idx = output ? node->outputs : node->inputs;
    return i < n && idx[i] >= 0;
}

VKML_GPU_SUPPORTS_DECL(gpu_attention_supports)
{
    vkml_error err;
    attention_plan p;
    if (attention_plan_build(values, node, &p, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
    for (int i = ATT_MASK; i <= ATT_NONPAD; i++)
        if (present(node, i, false))
            return vk_unsupported(why, why_size,
                                  "Attention with input %d (mask, past or padding): the "
                                  "Vulkan kernel takes Q, K, V only",
                                  i);
    for (int i = ATT_PRESENT_K; i <= ATT_QK; i++)
        if (present(node, i, true))
            return vk_unsupported(why, why_size,
                                  "Attention with output %d: the Vulkan kernel writes Y only", i);
    if (p.v_size > ATTENTION_MAX_V_SIZE || p.kv_len < 1)
        return vk_unsupported(why, why_size,
                              "Attention with value heads of %lld and %lld keys: the Vulkan "
                              "kernel takes 1 to %d and at least one key",
                              (long long)p.v_size, (long long)p.kv_len, ATTENTION_MAX_V_SIZE);
    return vk_check_tensors(values, node, caps, true, why, why_size);
}

/* Element strides over [batch, head, position] of a 3-D [b, seq, heads * size] or 4-D
 * [b, heads, seq, size] tensor. */
static void strides(const attention_plan *p, int64_t heads, int64_t seq, int64_t size, uint32_t *s)
{
    s[0] = vk_u32(heads * seq * size);
    s[1] = vk_u32(p->is_3d ? size : seq * size);
    s[2] = vk_u32(p->is_3d ? heads * size : size);
}

VKML_GPU_DECL(gpu_attention)
{
    attention_plan p;
    vkml_status st = attention_plan_build(values, node, &p, err);
    if (st != VKML_OK)
        return st;
    const attention_params *a = node->params;
    attention_push pc = {
        .rows = vk_u32(p.batch * p.q_heads * p.q_len),
        .q_len = vk_u32(p.q_len),
        .q_heads = vk_u32(p.q_heads),
        .group = vk_u32(p.q_heads / p.kv_heads),
        .kv_len = vk_u32(p.kv_len),
        .qk_size = vk_u32(p.qk_size),
        .v_size = vk_u32(p.v_size),
        .is_causal = a->is_causal,
        .scale = p.scale,
        .softcap = a->softcap,
    };
    strides(&p, p.q_heads, p.q_len, p.qk_size, pc.q_strides);
    strides(&p, p.kv_heads, p.kv_len, p.qk_size, pc.k_strides);
    strides(&p, p.kv_heads, p.kv_len, p.v_size, pc.v_strides);
    strides(&p, p.q_heads, p.q_len, p.v_size, pc.y_strides);
    int bind[] = {node->inputs[ATT_Q], node->inputs[ATT_K], node->inputs[ATT_V],
                  node->outputs[ATT_Y]};
    return vk_rec_kernel_1d(rec, VK_KERNEL_ATTENTION, values[node->inputs[ATT_Q]].dtype, bind, &pc,
                            sizeof(pc), pc.rows, err);
}

/* FusedAttention: the plain kernel's limits (shaders/attention_fused.comp), and the
 * cooperative-matrix kernel's (shaders/attention_fused_coop.comp). */
#define FUSED_ATTENTION_MAX_KEYS 512
#define FUSED_ATTENTION_MAX_K 256
#define FUSED_ATTENTION_ROWS 4
#define FUSED_ATTENTION_WORKGROUP 128
#define FUSED_ATTENTION_MAX_BATCH_RANK 3  /* attention_fused_push's arrays */
#define FUSED_ATTENTION_MASK_BATCH_RANK 2 /* attention_fused_mask_push's */
/* the queries, the scores and the reductions' lanes, floats for each row */
#define FUSED_ATTENTION_SHARED_BYTES                                                               \
    (4 * FUSED_ATTENTION_ROWS *                                                                    \
     (FUSED_ATTENTION_MAX_K + FUSED_ATTENTION_MAX_KEYS + FUSED_ATTENTION_WORKGROUP))
#define FUSED_COOP_FRAGMENT 16
#define FUSED_COOP_UVEC4S 3072 /* UVEC4S: its shared memory, in uvec4 of 8 halves */

/* Whether every element offset the kernel forms fits 32 bits. */
static bool fused_offsets_fit(const fused_attention_params *p)
{
    int64_t a = p->a_offset + (p->m - 1) * p->a_sm + (p->k - 1) * p->a_sk,
            b = p->b_offset + (p->n - 1) * p->b_sn + (p->k - 1) * p->b_sk,
            v = p->v_offset + (p->n - 1) * p->v_sn + (p->e - 1) * p->v_se,
            y = (p->m - 1) * p->y_sm + p->e - 1;
    for (int d = 0; d < p->batch_rank; d++) {
        a += (p->batch_dims[d] - 1) * p->a_batch[d];
        b += (p->batch_dims[d] - 1) * p->b_batch[d];
        v += (p->batch_dims[d] - 1) * p->v_batch[d];
        y += (p->batch_dims[d] - 1) * p->y_batch[d];
    }
    int64_t mask = (p->m - 1) * p->mask_sm + (p->n - 1) * p->mask_sn;
    for (int d = 0; d < p->batch_rank; d++)
        mask += (p->batch_dims[d] - 1) * p->mask_batch[d];
    return a <= UINT32_MAX && b <= UINT32_MAX && v <= UINT32_MAX && y <= UINT32_MAX &&
           mask <= UINT32_MAX && p->batch_count * p->m * p->e <= UINT32_MAX;
}

/* The kernel for p on `subgroups` of the cooperative-matrix kernel (0: the plain one). */
static vk_kernel_id fused_kernel(const fused_attention_params *p, int subgroups)
{
    if (p->mask)
        return subgroups == 4   ? VK_KERNEL_ATTENTION_FUSED_COOP_MASK
               : subgroups == 2 ? VK_KERNEL_ATTENTION_FUSED_COOP_SG2_MASK
                                : VK_KERNEL_ATTENTION_FUSED_MASK;
    return subgroups == 4   ? VK_KERNEL_ATTENTION_FUSED_COOP
           : subgroups == 2 ? VK_KERNEL_ATTENTION_FUSED_COOP_SG2
                            : VK_KERNEL_ATTENTION_FUSED;
}

static int64_t round16(int64_t x)
{
    return (x + FUSED_COOP_FRAGMENT - 1) / FUSED_COOP_FRAGMENT * FUSED_COOP_FRAGMENT;
}

/* The uvec4 of shared memory attention_fused_coop.comp lays out for p on `subgroups`: the
 * keys (later the values) of a batch, then each subgroup's 16 queries and 16 rows of scores,
 * every line 8 halves longer than its row. */
static int64_t fused_coop_uvec4s(const fused_attention_params *p, int subgroups)
{
    int64_t kl = round16(p->k) / 8 + 1, el = round16(p->e) / 8 + 1, nl = round16(p->n) / 8 + 1;
    return round16(p->n) * (kl > el ? kl : el) + subgroups * FUSED_COOP_FRAGMENT * (kl + nl);
}

/* The subgroups a workgroup of the cooperative-matrix kernel has for p (4, else 2: the
 * variant whose shared memory p fits), or 0 where it does not take p: float16 on a device
 * that runs gemm_coop.comp (subgroups of 32, 48 KiB of shared memory). Any strides. */
static int fused_coop_subgroups(const struct gpu_caps *caps, const fused_attention_params *p)
{
    if (!caps->cooperative_matrix || caps->subgroup_size != VK_COOP_SUBGROUP ||
        caps->max_shared_memory < 16 * FUSED_COOP_UVEC4S || p->dtype != VKML_DTYPE_FLOAT16 ||
        p->m < 1 || p->n < 1 || p->k < 1 || p->e < 1)
        return 0;
    if (fused_coop_uvec4s(p, 4) <= FUSED_COOP_UVEC4S &&
        vk_kernel_variant(fused_kernel(p, 4), (int)p->dtype) >= 0)
        return 4;
    if (fused_coop_uvec4s(p, 2) <= FUSED_COOP_UVEC4S &&
        vk_kernel_variant(fused_kernel(p, 2), (int)p->dtype) >= 0)
        return 2;
    return 0;
}

VKML_GPU_SUPPORTS_DECL(gpu_attention_fused_supports)
{
    const fused_attention_params *p = node->params;
    if (p->batch_rank > FUSED_ATTENTION_MAX_BATCH_RANK ||
        p->batch_count > caps->max_workgroup_count[1] ||
        (p->m + FUSED_ATTENTION_ROWS - 1) / FUSED_ATTENTION_ROWS > caps->max_workgroup_count[0])
        return vk_unsupported(why, why_size,
                              "FusedAttention of %lld batches of %lld rows (%d batch dims): "
                              "past the device's workgroup counts or %d batch dims",
                              (long long)p->batch_count, (long long)p->m, p->batch_rank,
                              FUSED_ATTENTION_MAX_BATCH_RANK);
    if (!fused_offsets_fit(p))
        return vk_unsupported(why, why_size, "FusedAttention: offsets past 32 bits");
    if (p->mask && (caps->max_bindings < VK_RESIDUAL_BINDINGS ||
                    p->batch_rank > FUSED_ATTENTION_MASK_BATCH_RANK))
        return vk_unsupported(why, why_size,
                              "FusedAttention with a mask of %d batch dims: its kernels take %d "
                              "storage buffers (the device %u) and %d batch dims",
                              p->batch_rank, VK_RESIDUAL_BINDINGS, caps->max_bindings,
                              FUSED_ATTENTION_MASK_BATCH_RANK);
    if (!fused_coop_subgroups(caps, p)) {
        if (fused_attention_mode() != FUSED_ATTENTION_EVERYWHERE)
            return vk_unsupported(why, why_size,
                                  "FusedAttention of %lld keys of %lld elements, %lld values "
                                  "(%s): past the cooperative-matrix kernel, and the plain one "
                                  "runs only with VKML_FUSE_ATTENTION=1",
                                  (long long)p->n, (long long)p->k, (long long)p->e,
                                  vkml_dtype_name(p->dtype));
        if (p->n < 1 || p->n > FUSED_ATTENTION_MAX_KEYS || p->k < 1 || p->k > FUSED_ATTENTION_MAX_K)
            return vk_unsupported(why, why_size,
                                  "FusedAttention of %lld keys of %lld elements: the Vulkan "
                                  "kernel takes 1 to %d keys of 1 to %d",
                                  (long long)p->n, (long long)p->k, FUSED_ATTENTION_MAX_KEYS,
                                  FUSED_ATTENTION_MAX_K);
        if (caps->max_shared_memory < FUSED_ATTENTION_SHARED_BYTES)
            return vk_unsupported(why, why_size,
                                  "FusedAttention needs %d bytes of shared memory, the device "
                                  "has %u",
                                  FUSED_ATTENTION_SHARED_BYTES, caps->max_shared_memory);
    }
    return vk_check_tensors(values, node, caps, true, why, why_size);
}

/* The members the two push blocks share, from p (batch dims within the block's arrays). */
#define FUSED_PUSH_FILL(pc, p)                                                                     \
    do {                                                                                           \
        (pc).m = vk_u32((p)->m), (pc).n = vk_u32((p)->n), (pc).k = vk_u32((p)->k);                 \
        (pc).e = vk_u32((p)->e), (pc).a_sm = vk_u32((p)->a_sm), (pc).a_sk = vk_u32((p)->a_sk);     \
        (pc).b_sk = vk_u32((p)->b_sk), (pc).b_sn = vk_u32((p)->b_sn);                              \
        (pc).v_sn = vk_u32((p)->v_sn), (pc).v_se = vk_u32((p)->v_se), (pc).scale = (p)->scale;     \
        (pc).batch_rank = (uint32_t)(p)->batch_rank, (pc).y_sm = vk_u32((p)->y_sm);                \
        (pc).a_offset = vk_u32((p)->a_offset), (pc).b_offset = vk_u32((p)->b_offset);              \
        (pc).v_offset = vk_u32((p)->v_offset);                                                     \
        for (int d = 0; d < (p)->batch_rank; d++) {                                                \
            (pc).batch_dims[d] = vk_u32((p)->batch_dims[d]);                                       \
            (pc).a_batch[d] = vk_u32((p)->a_batch[d]);                                             \
            (pc).b_batch[d] = vk_u32((p)->b_batch[d]);                                             \
            (pc).v_batch[d] = vk_u32((p)->v_batch[d]);                                             \
            (pc).y_batch[d] = vk_u32((p)->y_batch[d]);                                             \
        }                                                                                          \
    } while (0)

VKML_GPU_DECL(gpu_attention_fused)
{
    const fused_attention_params *p = node->params;
    (void)values;
    int subgroups = fused_coop_subgroups(vk_rec_caps(rec), p);
    int rows = subgroups ? FUSED_COOP_FRAGMENT * subgroups : FUSED_ATTENTION_ROWS;
    uint32_t groups[3] = {vk_u32((p->m + rows - 1) / rows), vk_u32(p->batch_count), 1};
    vk_kernel_id kernel = fused_kernel(p, subgroups);
    if (!p->mask) {
        attention_fused_push pc = {0};
        FUSED_PUSH_FILL(pc, p);
        int bind[] = {node->inputs[0], node->inputs[1], node->inputs[2], node->outputs[0]};
        return vk_rec_kernel(rec, kernel, p->dtype, bind, &pc, sizeof(pc), groups, err);
    }
    attention_fused_mask_push pc = {.mask_kind = (uint32_t)p->mask,
                                    .mask_sm = vk_u32(p->mask_sm),
                                    .mask_sn = vk_u32(p->mask_sn),
                                    .fill = p->fill};
    FUSED_PUSH_FILL(pc, p);
    for (int d = 0; d < p->batch_rank; d++)
        pc.mask_batch[d] = vk_u32(p->mask_batch[d]);
    /* the mask at binding 3, Y after it */
    int bind[] = {node->inputs[0], node->inputs[1], node->inputs[2], node->inputs[3],
                  node->outputs[0]};
    return vk_rec_kernel(rec, kernel, p->dtype, bind, &pc, sizeof(pc), groups, err);
}
