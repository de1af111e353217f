#version 450
// Attention without mask buffers (the Vulkan subset of lib/ops/attention.h): one
// invocation per query row (batch, q head, position), one pass over the keys with an
// online softmax (running max and sum), so no score matrix is stored:
//   s_t = softcap(scale * q . k_t) - inf where causal, y = sum_t softmax(s)_t v_t
// K/V head of q head h: h / group (grouped-query attention). Strides (elements) over
// [batch, head, position] per tensor; the head size is dense.
#define PUSH_ATTENTION
#include "index.glsl"
#include "buffers.glsl"
#include "push.h"

#define MAX_V_SIZE 256

DECLARE_IN(0, q)
DECLARE_IN(1, k)
DECLARE_IN(2, v)
DECLARE_OUT(3, y)

void main()
{
    uint r = flat_index();
    if (r >= p.rows)
        return;
    uint i = r % p.q_len, h = (r / p.q_len) % p.q_heads, b = r / (p.q_len * p.q_heads);
    uint kh = h / p.group;
    uint q_off = b * p.q_strides[0] + h * p.q_strides[1] + i * p.q_strides[2];
    uint k_base = b * p.k_strides[0] + kh * p.k_strides[1];
    uint v_base = b * p.v_strides[0] + kh * p.v_strides[1];
    float acc[MAX_V_SIZE];
    for (uint d = 0; d < p.v_size; d++)
        acc[d] = 0.0;
    float run_max = -1.0 / 0.0, run_sum = 0.0;
    uint keys = p.is_causal != 0 ? min(p.kv_len, i + 1) : p.kv_len;
    for (uint t = 0; t < keys; t++) {
        uint k_off = k_base + t * p.k_strides[2];
        float dot = 0.0;
        for (uint d = 0; d < p.qk_size; d++)
            dot += float(q[q_off + d]) * float(k[k_off + d]);
        float s = dot * p.scale;
        if (p.softcap > 0.0)
            s = p.softcap * tanh(s / p.softcap);
        float new_max = max(run_max, s);
        float correction = exp(run_max - new_max), w = exp(s - new_max);
        run_sum = run_sum * correction + w;
        uint v_off = v_base + t * p.v_strides[2];
        for (uint d = 0; d < p.v_size; d++)
            acc[d] = acc[d] * correction + w * float(v[v_off + d]);
        run_max = new_max;
    }
    uint y_off = b * p.y_strides[0] + h * p.y_strides[1] + i * p.y_strides[2];
    for (uint d = 0; d < p.v_size; d++)
        y[y_off + d] = T(acc[d] / run_sum);
}
