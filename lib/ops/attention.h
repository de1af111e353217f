#pragma once
/*
 * Attention (opset 23/24): Y = softmax(softcap(Q K^T * scale) + bias) V per head, with
 * grouped key/value heads, past key/value concatenated before K/V, a boolean or additive
 * mask (broadcast to [batch, q_heads, q_len, total_len], its last dim padded with -inf),
 * is_causal and nonpad_kv_seqlen as more -inf bias. 3-D Q/K/V are [batch, seq, heads *
 * head_size]; 4-D ones [batch, heads, seq, head_size].
 */
#include "ops/op.h"

typedef struct attention_params {
    bool is_causal;
    int64_t q_num_heads, kv_num_heads; /* 0 when absent (4-D inputs carry them) */
    int qk_output_mode;                /* 0 QK^T*scale, 1 after softcap, 2 after bias, 3 softmax */
    float scale;                       /* 0: 1 / sqrt(head size) */
    float softcap;                     /* 0: none */
} attention_params;

/* Inputs and outputs by position. */
enum { ATT_Q, ATT_K, ATT_V, ATT_MASK, ATT_PAST_K, ATT_PAST_V, ATT_NONPAD };
enum { ATT_Y, ATT_PRESENT_K, ATT_PRESENT_V, ATT_QK };

typedef struct attention_plan {
    bool is_3d;
    int64_t batch, q_heads, kv_heads, q_len, kv_len, past_len, total_len, qk_size, v_size;
    float scale;
    bool has_mask, mask_is_bool;
    int64_t mask_len;        /* the mask's last dim (<= total_len; -inf beyond) */
    int64_t mask_strides[4]; /* element strides over [batch, q_heads, q_len, kv]; 0 broadcast */
    bool has_nonpad;
} attention_plan;

vkml_status attention_plan_build(const graph_value *values, const graph_node *node,
                                 attention_plan *plan, vkml_error *err);
