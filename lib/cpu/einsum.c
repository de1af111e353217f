/* Einsum on the CPU: every output element sums, over the summed labels, the product of
 * one element per operand (strides from the plan, so diagonals, transposes, broadcasts
 * and reductions are the same loop). Floats accumulate in double, integers in int64. */
#include "ops/einsum.h"
#include "cpu/cpu_elem.h"
#include "cpu/cpu_kernels.h"

typedef struct einsum_job {
    const op_cpu_args *args;
    const einsum_plan *plan;
    vkml_dtype dtype;
    bool is_float;
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
                    fp *= cpu_load_f64(j->args->in[t], j->dtype, offs[t]);
                else
                    ip *= (uint64_t)cpu_load_i64(j->args->in[t], j->dtype, offs[t]);
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

vkml_status cpu_einsum(const op_cpu_args *args, vkml_error *err)
{
    einsum_plan plan;
    vkml_status st = einsum_plan_build(args->values, args->node, &plan, err);
    if (st)
        return st;
    einsum_job job = {.args = args, .plan = &plan,
                      .dtype = args->values[args->node->inputs[0]].dtype};
    job.is_float = cpu_dtype_is_float(job.dtype);
    cpu_parallel_for(plan.out_count, (double)plan.sum_count * plan.n_inputs * 4.0, einsum_range,
                     &job);
    return VKML_OK;
}
