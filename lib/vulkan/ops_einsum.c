/* Einsum on Vulkan: equations of matrix-product form (einsum_matmul_form) run on the
 * matrix-product kernels with strides taken from the plan, so transposed operands,
 * diagonals and broadcast batches cost nothing. Other equations run on the CPU device. */
#include "ops/einsum.h"
#include "vulkan/ops_matmul.h"

#include <string.h>

static int64_t label_size(const einsum_plan *plan, int l)
{
    return l >= 0 ? plan->size[l] : 1;
}

static uint32_t stride_of(const einsum_plan *plan, int input, int l)
{
    return l >= 0 ? vk_u32(plan->stride[input][l]) : 0;
}

static void fill_push(const einsum_plan *plan, const einsum_matmul *mm, matmul_push *pc,
                      int64_t *batch)
{
    memset(pc, 0, sizeof(*pc));
    pc->m = vk_u32(label_size(plan, mm->m));
    pc->n = vk_u32(label_size(plan, mm->n));
    pc->k = vk_u32(label_size(plan, mm->k));
    pc->a_sm = stride_of(plan, mm->a, mm->m);
    pc->a_sk = stride_of(plan, mm->a, mm->k);
    pc->b_sk = stride_of(plan, mm->b, mm->k);
    pc->b_sn = stride_of(plan, mm->b, mm->n);
    pc->alpha = 1.0f;
    pc->batch_rank = (uint32_t)mm->n_batch;
    *batch = 1;
    for (int d = 0; d < mm->n_batch; d++) {
        int l = mm->batch[d];
        pc->batch_dims[d] = vk_u32(plan->size[l]);
        pc->a_batch_strides[d] = stride_of(plan, mm->a, l);
        pc->b_batch_strides[d] = stride_of(plan, mm->b, l);
        *batch *= plan->size[l];
    }
}

VKML_GPU_SUPPORTS_DECL(gpu_einsum_supports)
{
    vkml_error err;
    einsum_plan plan;
    einsum_matmul mm;
    if (einsum_plan_build(values, node, &plan, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
    if (plan.n_inputs != 2)
        return vk_unsupported(why, why_size, "Einsum of %d operands: the Vulkan kernel takes 2",
                              plan.n_inputs);
    if (!einsum_matmul_form(&plan, &mm, why, why_size))
        return false;
    if (mm.n_batch > MATMUL_MAX_BATCH_RANK)
        return vk_unsupported(why, why_size, "Einsum with %d batch labels: the kernel takes %d",
                              mm.n_batch, MATMUL_MAX_BATCH_RANK);
    matmul_push pc;
    int64_t batch;
    fill_push(&plan, &mm, &pc, &batch);
    return vk_matmul_fits(caps, pc.m, pc.n, batch, why, why_size) &&
           vk_check_tensors(values, node, caps, true, why, why_size);
}

VKML_GPU_DECL(gpu_einsum)
{
    einsum_plan plan;
    einsum_matmul mm;
    vkml_status st = einsum_plan_build(values, node, &plan, err);
    if (st != VKML_OK)
        return st;
    char why[256];
    if (!einsum_matmul_form(&plan, &mm, why, sizeof(why)))
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s", why);
    matmul_push pc;
    int64_t batch;
    fill_push(&plan, &mm, &pc, &batch);
    return vk_rec_matmul(rec, &pc, values[node->inputs[0]].dtype, node->inputs[mm.a],
                         node->inputs[mm.b], -1, node->outputs[0], batch, err);
}
