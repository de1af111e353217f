/* FusedAttention's schema functions and batch offsets (see fused_attention.h). */
#include "ops/fused_attention.h"
#include "ops/op_decls.h"

#include <stdlib.h>
#include <string.h>

vkml_status fused_attention_parse(const graph_node *node, void *params, vkml_error *err)
{
    (void)node, (void)params;
    return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                     "FusedAttention is made by vkml's planner; a model may not contain it");
}

vkml_status fused_attention_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    const fused_attention_params *p = node->params;
    vkml_status st = op_require_counts(node, p->mask ? 4 : 3, p->mask ? 4 : 3, 1, err);
    if (st == VKML_OK)
        op_set_output(values, node, 0, p->dtype, p->rank, p->dims);
    return st;
}

void fused_attention_offsets(const fused_attention_params *p, int64_t index, int64_t *a, int64_t *b,
                             int64_t *v, int64_t *y, int64_t *mask)
{
    *a = p->a_offset, *b = p->b_offset, *v = p->v_offset, *y = *mask = 0;
    for (int d = p->batch_rank - 1; d >= 0; d--) {
        int64_t i = index % p->batch_dims[d];
        index /= p->batch_dims[d];
        *a += i * p->a_batch[d];
        *b += i * p->b_batch[d];
        *v += i * p->v_batch[d];
        *y += i * p->y_batch[d];
        *mask += i * p->mask_batch[d];
    }
}

fused_attention_where fused_attention_mode(void)
{
    const char *v = getenv("VKML_FUSE_ATTENTION");
    if (!v || !*v)
        return FUSED_ATTENTION_COOPERATIVE;
    return strcmp(v, "0") == 0 ? FUSED_ATTENTION_NOWHERE : FUSED_ATTENTION_EVERYWHERE;
}
