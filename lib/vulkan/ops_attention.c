/* Attention on Vulkan (shaders/attention.comp): Q, K, V and Y only, so no mask, past
 * key/value, nonpad_kv_seqlen or extra outputs (those nodes run on the CPU); is_causal,
 * scale, softcap, grouped KV heads, 3-D and 4-D layouts; float and float16. */
#include "ops/attention.h"
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
