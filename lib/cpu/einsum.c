/* Einsum on the CPU. Equations of matrix-product form (einsum_matmul_form) run as
 * batched matrix products (cpu_matprod, strides from the plan; float16 through float
 * copies). Others: labels of one operand only that the output has not are summed out of
 * it first; then every output element sums, over the summed labels, the product of one
 * element per operand (strides from the plan, so diagonals, transposes, broadcasts and
 * reductions are the same loop); floats accumulate in double, integers in int64. */
#include "ops/einsum.h"
#include "cpu/cpu_elem.h"
#include "cpu/cpu_kernels.h"
#include "cpu/cpu_widen.h"
#include "cpu/matprod.h"

#include <stdlib.h>

typedef struct einsum_job {
    const op_cpu_args *args;
    const einsum_plan *plan;
    vkml_dtype dtype; /* the node's */
    bool is_float;
    const void *in[EINSUM_MAX_INPUTS]; /* the operands as read: inputs or reduced copies */
    vkml_dtype in_dtype[EINSUM_MAX_INPUTS];
} einsum_job;

/* Offset of each operand for an index over `n` labels; *offs are added to. */
static void add_offsets(const einsum_plan *plan, const uint8_t *labels, int n, int64_t index,
                        int64_t *offs)
{
    for (int d = n - 1; d >= 0; d--) {
        int l = labels[d];
        int64_t i = index % plan->size[l];
        index /= plan->size[l];
        for (int t = 0; t < plan->n_inputs; t++)
            offs[t] += i * plan->stride[t][l];
    }
}

static void einsum_range(void *ctx, int64_t begin, int64_t end)
{
    const einsum_job *j = ctx;
    const einsum_plan *plan = j->plan;
    for (int64_t o = begin; o < end; o++) {
        int64_t base[EINSUM_MAX_INPUTS] = {0};
        add_offsets(plan, plan->out, plan->out_rank, o, base);
        double fsum = 0.0;
        uint64_t isum = 0;
        for (int64_t s = 0; s < plan->sum_count; s++) {
            int64_t offs[EINSUM_MAX_INPUTS];
            for (int t = 0; t < plan->n_inputs; t++)
                offs[t] = base[t];
            add_offsets(plan, plan->sum, plan->n_sum, s, offs);
            double fp = 1.0;
            uint64_t ip = 1;
            for (int t = 0; t < plan->n_inputs; t++) {
                if (j->is_float)
                    fp *= cpu_load_f64(j->in[t], j->in_dtype[t], offs[t]);
                else
                    ip *= (uint64_t)cpu_load_i64(j->in[t], j->in_dtype[t], offs[t]);
            }
            fsum += fp;
            isum += ip;
        }
        if (j->is_float)
            cpu_store_f64(j->args->out[0], j->dtype, o, fsum);
        else
            cpu_store_i64(j->args->out[0], j->dtype, o, (int64_t)isum);
    }
}

static int64_t stride_of(const einsum_plan *plan, int input, int label)
{
    return label >= 0 ? plan->stride[input][label] : 0;
}

static int64_t size_of(const einsum_plan *plan, int label)
{
    return label >= 0 ? plan->size[label] : 1;
}

/* Y [batch.., m, n] dense, one cpu_matprod per batch index. */
static vkml_status einsum_matmul_run(const op_cpu_args *args, vkml_error *err)
{
    einsum_plan plan;
    einsum_matmul mm;
    char why[160];
    vkml_status st = einsum_plan_build(args->values, args->node, &plan, err);
    if (st)
        return st;
    if (!einsum_matmul_form(&plan, &mm, why, sizeof(why)))
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s", why);
    vkml_dtype dtype = args->values[args->node->inputs[0]].dtype;
    size_t elem = vkml_dtype_size(dtype);
    int64_t m = size_of(&plan, mm.m), n = size_of(&plan, mm.n), batches = plan.out_count / (m * n);
    for (int64_t i = 0; i < batches; i++) {
        int64_t rest = i, a_off = 0, b_off = 0;
        for (int d = mm.n_batch - 1; d >= 0; d--) {
            int l = mm.batch[d];
            a_off += (rest % plan.size[l]) * plan.stride[mm.a][l];
            b_off += (rest % plan.size[l]) * plan.stride[mm.b][l];
            rest /= plan.size[l];
        }
        cpu_matprod_args g = {
            .dtype = dtype,
            .m = m,
            .n = n,
            .k = size_of(&plan, mm.k),
            .a = (const char *)args->in[mm.a] + (size_t)a_off * elem,
            .a_row = stride_of(&plan, mm.a, mm.m),
            .a_col = stride_of(&plan, mm.a, mm.k),
            .b = (const char *)args->in[mm.b] + (size_t)b_off * elem,
            .b_row = stride_of(&plan, mm.b, mm.k),
            .b_col = stride_of(&plan, mm.b, mm.n),
            .y = (char *)args->out[0] + (size_t)(i * m * n) * elem,
        };
        cpu_matprod(&g);
    }
    return VKML_OK;
}

/* Offset in operand t of index `index` over `n` of its labels. */
static int64_t operand_offset(const einsum_plan *plan, int t, const uint8_t *labels, int n,
                              int64_t index)
{
    int64_t off = 0;
    for (int d = n - 1; d >= 0; d--) {
        off += index % plan->size[labels[d]] * plan->stride[t][labels[d]];
        index /= plan->size[labels[d]];
    }
    return off;
}

/* Sums out of each operand first the labels that only it has and the output has not:
 * "abc,def->" is then sum(A) x sum(B) rather than 32^6 products. Such an operand becomes
 * a dense copy over its other labels (double, or int64 for integers; *owned[t], to be
 * freed), and the plan drops the labels. False when out of memory. */
static bool reduce_private_labels(einsum_plan *plan, einsum_job *j, void **owned)
{
    bool summed[EINSUM_MAX_LABELS] = {false};
    for (int i = 0; i < plan->n_sum; i++)
        summed[plan->sum[i]] = true;
    for (int t = 0; t < plan->n_inputs; t++) {
        uint8_t own[EINSUM_MAX_LABELS], keep[EINSUM_MAX_LABELS];
        int n_own = 0, n_keep = 0;
        int64_t own_count = 1, keep_count = 1;
        for (int l = 0; l < EINSUM_MAX_LABELS; l++) {
            if (!(plan->used_by[l] & (1u << t)))
                continue;
            if (summed[l] && plan->used_by[l] == (1u << t))
                own[n_own++] = (uint8_t)l, own_count *= plan->size[l];
            else
                keep[n_keep++] = (uint8_t)l, keep_count *= plan->size[l];
        }
        if (own_count <= 1)
            continue;
        owned[t] = malloc(8 * (size_t)(keep_count > 0 ? keep_count : 1));
        if (!owned[t])
            return false;
        for (int64_t r = 0; r < keep_count; r++) {
            int64_t base = operand_offset(plan, t, keep, n_keep, r);
            double fsum = 0.0;
            uint64_t isum = 0;
            for (int64_t s = 0; s < own_count; s++) {
                int64_t off = base + operand_offset(plan, t, own, n_own, s);
                if (j->is_float)
                    fsum += cpu_load_f64(j->in[t], j->in_dtype[t], off);
                else
                    isum += (uint64_t)cpu_load_i64(j->in[t], j->in_dtype[t], off);
            }
            if (j->is_float)
                ((double *)owned[t])[r] = fsum;
            else
                ((int64_t *)owned[t])[r] = (int64_t)isum;
        }
        int64_t stride = 1;
        for (int d = n_keep - 1; d >= 0; d--) {
            plan->stride[t][keep[d]] = stride;
            stride *= plan->size[keep[d]];
        }
        for (int d = 0; d < n_own; d++)
            plan->used_by[own[d]] = 0, plan->stride[t][own[d]] = 0;
        j->in[t] = owned[t];
        j->in_dtype[t] = j->is_float ? VKML_DTYPE_DOUBLE : VKML_DTYPE_INT64;
    }
    int n_sum = 0;
    plan->sum_count = 1;
    for (int i = 0; i < plan->n_sum; i++)
        if (plan->used_by[plan->sum[i]]) {
            plan->sum[n_sum++] = plan->sum[i];
            plan->sum_count *= plan->size[plan->sum[i]];
        }
    plan->n_sum = n_sum;
    return true;
}

vkml_status cpu_einsum(const op_cpu_args *args, vkml_error *err)
{
    einsum_plan plan;
    einsum_matmul mm;
    char why[160];
    vkml_status st = einsum_plan_build(args->values, args->node, &plan, err);
    if (st)
        return st;
    vkml_dtype dtype = args->values[args->node->inputs[0]].dtype;
    bool half = dtype == VKML_DTYPE_FLOAT16 || dtype == VKML_DTYPE_BFLOAT16;
    if (plan.out_count > 0 && einsum_matmul_form(&plan, &mm, why, sizeof(why)) &&
        (half || cpu_matprod_supports(dtype)))
        return half ? cpu_run_widened(args, einsum_matmul_run, err) : einsum_matmul_run(args, err);
    einsum_job job = {.args = args, .plan = &plan, .dtype = dtype};
    job.is_float = cpu_dtype_is_float(job.dtype);
    for (int t = 0; t < plan.n_inputs; t++)
        job.in[t] = args->in[t], job.in_dtype[t] = dtype;
    void *owned[EINSUM_MAX_INPUTS] = {NULL};
    if (!reduce_private_labels(&plan, &job, owned))
        st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Einsum: out of memory");
    else
        sched_parallel_for(plan.out_count, (double)plan.sum_count * plan.n_inputs * 4.0,
                           einsum_range, &job);
    for (int t = 0; t < plan.n_inputs; t++)
        free(owned[t]);
    return st;
}
