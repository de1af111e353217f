/* Einsum on Vulkan: two-operand equations that are a batched matrix product (output
 * labels: batch labels, then a row label of one operand and a column label of the other;
 * at most one contracted label, of both operands) run on the matrix-product kernels with
 * strides taken from the plan, so transposed operands, diagonals and broadcast batches
 * cost nothing. Other equations run on the CPU device. */
#include "ops/einsum.h"
#include "vulkan/ops_matmul.h"

#include <string.h>

typedef struct einsum_matmul {
    int a, b; /* which input plays A and which B (swapped for an output [.., n, m]) */
    int m, n, k; /* labels, -1 when absent (size 1) */
    int n_batch;
    int batch[MATMUL_MAX_BATCH_RANK];
} einsum_matmul;

/* The output labels of size > 1, in order. */
static int out_labels(const einsum_plan *plan, int *labels)
{
    int n = 0;
    for (int i = 0; i < plan->out_rank; i++)
        if (plan->size[plan->out[i]] > 1)
            labels[n++] = plan->out[i];
    return n;
}

/* The output's last one or two labels, each of one operand only (and not the same one),
 * are the row and column labels; the rest of the output are batch labels (stride 0 in an
 * operand without them: a broadcast); labels outside the output are contracted. */
static bool classify(const einsum_plan *plan, einsum_matmul *mm, char *why, size_t why_size)
{
    int out[EINSUM_MAX_LABELS], n_out = out_labels(plan, out);
    bool in_out[EINSUM_MAX_LABELS] = {false};
    for (int i = 0; i < n_out; i++)
        in_out[out[i]] = true;
    mm->k = -1;
    for (int l = 0; l < EINSUM_MAX_LABELS; l++) {
        if (!plan->used_by[l] || plan->size[l] <= 1 || in_out[l])
            continue;
        if (plan->used_by[l] != 3)
            return vk_unsupported(why, why_size, "Einsum: a label summed over one operand");
        if (mm->k >= 0)
            return vk_unsupported(why, why_size, "Einsum: more than one contracted label");
        mm->k = l;
    }
    int tail = 0;
    if (n_out >= 1 && plan->used_by[out[n_out - 1]] != 3) {
        tail = 1;
        int prev = n_out >= 2 ? plan->used_by[out[n_out - 2]] : 3;
        if (prev != 3 && prev != plan->used_by[out[n_out - 1]])
            tail = 2;
    }
    mm->n_batch = n_out - tail;
    if (mm->n_batch > MATMUL_MAX_BATCH_RANK)
        return vk_unsupported(why, why_size, "Einsum: over %d batch labels",
                              MATMUL_MAX_BATCH_RANK);
    memcpy(mm->batch, out, sizeof(int) * (size_t)mm->n_batch);
    int first = tail ? out[n_out - tail] : -1;
    bool swapped = first >= 0 && plan->used_by[first] == 2;
    mm->a = swapped ? 1 : 0;
    mm->b = swapped ? 0 : 1;
    mm->m = first;
    mm->n = tail == 2 ? out[n_out - 1] : -1;
    return true;
}

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
    if (!classify(&plan, &mm, why, why_size))
        return false;
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
    if (!classify(&plan, &mm, why, sizeof(why)))
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s", why);
    matmul_push pc;
    int64_t batch;
    fill_push(&plan, &mm, &pc, &batch);
    return vk_rec_matmul(rec, &pc, values[node->inputs[0]].dtype, node->inputs[mm.a],
                         node->inputs[mm.b], -1, node->outputs[0], batch, err);
}
