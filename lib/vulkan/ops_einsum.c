/* Einsum on Vulkan: equations of matrix-product form (einsum_matmul_form) run on the
 * matrix-product kernels with strides taken from the plan, so transposed operands,
 * diagonals and broadcast batches cost nothing; other equations of one or two operands
 * on the general kernel (shaders/einsum.comp); the rest on the CPU device. */
#include "ops/einsum.h"
#include "vulkan/ops_matmul.h"

#include <string.h>

/* The general kernel's labels (output and summed, each) and the terms one invocation may
 * sum: a bound on its loop, so no invocation runs for seconds. */
#define EINSUM_GPU_MAX_LABELS 4
#define EINSUM_GPU_MAX_TERMS (1 << 20)

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

/* Labels of size > 1 among `labels`, at most 4; false when more. */
static bool pick_labels(const einsum_plan *plan, const uint8_t *labels, int n, int *out, int *count)
{
    *count = 0;
    for (int i = 0; i < n; i++) {
        if (plan->size[labels[i]] <= 1)
            continue;
        if (*count == EINSUM_GPU_MAX_LABELS)
            return false;
        out[(*count)++] = labels[i];
    }
    return true;
}

static bool loop_push(const einsum_plan *plan, einsum_push *pc, char *why, size_t why_size)
{
    int out[EINSUM_GPU_MAX_LABELS], sum[EINSUM_GPU_MAX_LABELS], n_out, n_sum;
    if (!pick_labels(plan, plan->out, plan->out_rank, out, &n_out) ||
        !pick_labels(plan, plan->sum, plan->n_sum, sum, &n_sum))
        return vk_unsupported(why, why_size,
                              "Einsum with over %d output or summed labels: the general "
                              "Vulkan kernel takes %d of each",
                              EINSUM_GPU_MAX_LABELS, EINSUM_GPU_MAX_LABELS);
    if (plan->sum_count > EINSUM_GPU_MAX_TERMS)
        return vk_unsupported(why, why_size,
                              "Einsum summing %lld terms per output: the general Vulkan kernel "
                              "takes %d (one invocation loops over them)",
                              (long long)plan->sum_count, EINSUM_GPU_MAX_TERMS);
    memset(pc, 0, sizeof(*pc));
    pc->count = vk_u32(plan->out_count);
    pc->out_rank = (uint32_t)n_out;
    pc->n_sum = (uint32_t)n_sum;
    pc->sum_count = vk_u32(plan->sum_count);
    pc->two_operands = plan->n_inputs == 2;
    for (int d = 0; d < n_out; d++) {
        pc->out_dims[d] = vk_u32(plan->size[out[d]]);
        pc->a_out[d] = stride_of(plan, 0, out[d]);
        pc->b_out[d] = pc->two_operands ? stride_of(plan, 1, out[d]) : 0;
    }
    for (int d = 0; d < n_sum; d++) {
        pc->sum_dims[d] = vk_u32(plan->size[sum[d]]);
        pc->a_sum[d] = stride_of(plan, 0, sum[d]);
        pc->b_sum[d] = pc->two_operands ? stride_of(plan, 1, sum[d]) : 0;
    }
    return true;
}

/* The lowering of a node: the matrix-product kernels when the equation has that form and
 * fits them, else the general kernel, else none (why says why). */
typedef enum { EINSUM_GPU_NONE, EINSUM_GPU_MATMUL, EINSUM_GPU_LOOP } einsum_gpu_path;

typedef struct einsum_lowering {
    einsum_matmul mm;
    matmul_push matmul;
    int64_t batch;
    einsum_push loop;
} einsum_lowering;

static einsum_gpu_path choose(const einsum_plan *plan, const struct gpu_caps *caps,
                              einsum_lowering *low, char *why, size_t why_size)
{
    if (plan->n_inputs > 2) {
        vk_unsupported(why, why_size, "Einsum of %d operands: the Vulkan kernels take 1 or 2",
                       plan->n_inputs);
        return EINSUM_GPU_NONE;
    }
    if (einsum_matmul_form(plan, &low->mm, why, why_size) &&
        low->mm.n_batch <= MATMUL_MAX_BATCH_RANK) {
        fill_push(plan, &low->mm, &low->matmul, &low->batch);
        if (vk_matmul_fits(caps, low->matmul.m, low->matmul.n, low->batch, why, why_size))
            return EINSUM_GPU_MATMUL;
    }
    return loop_push(plan, &low->loop, why, why_size) ? EINSUM_GPU_LOOP : EINSUM_GPU_NONE;
}

VKML_GPU_SUPPORTS_DECL(gpu_einsum_supports)
{
    vkml_error err;
    einsum_plan plan;
    einsum_lowering low;
    if (einsum_plan_build(values, node, &plan, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
    return choose(&plan, caps, &low, why, why_size) != EINSUM_GPU_NONE &&
           vk_check_tensors(values, node, caps, true, why, why_size);
}

VKML_GPU_DECL(gpu_einsum)
{
    einsum_plan plan;
    einsum_lowering low;
    char why[256];
    vkml_status st = einsum_plan_build(values, node, &plan, err);
    if (st != VKML_OK)
        return st;
    vkml_dtype dtype = values[node->inputs[0]].dtype;
    switch (choose(&plan, vk_rec_caps(rec), &low, why, sizeof(why))) {
    case EINSUM_GPU_MATMUL:
        return vk_rec_matmul(rec, &low.matmul, dtype, node->inputs[low.mm.a],
                             node->inputs[low.mm.b], -1, -1, node->outputs[0], low.batch, NULL,
                             err);
    case EINSUM_GPU_LOOP: {
        int a = node->inputs[0];
        int bind[] = {a, plan.n_inputs == 2 ? node->inputs[1] : a, node->outputs[0]};
        return vk_rec_kernel_1d(rec, VK_KERNEL_EINSUM, dtype, bind, &low.loop, sizeof(low.loop),
                                (uint64_t)plan.out_count, err);
    }
    default: return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s", why);
    }
}
