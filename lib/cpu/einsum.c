/* Einsum on the CPU. Equations of matrix-product form (einsum_matmul_form) run as
 * batched matrix products (cpu_matprod, strides from the plan; float16 through float
 * copies). Others: every output element sums, over the summed labels, the product of one
 * element per operand (strides from the plan, so diagonals, transposes, broadcasts and
 * reductions are the same loop); floats accumulate in double, integers in int64. */
#include "ops/einsum.h"
#include "cpu/cpu_elem.h"
#include "cpu/cpu_kernels.h"
#include "cpu/cpu_widen.h"
#include "cpu/matprod.h"

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
    einsum_job job = {
        .args = args, .plan = &plan, .dtype = args->values[args->node->inputs[0]].dtype};
    job.is_float = cpu_dtype_is_float(job.dtype);
    sched_parallel_for(plan.out_count, (double)plan.sum_count * plan.n_inputs * 4.0, einsum_range,
                       &job);
    return VKML_OK;
}
