/* MatMul and Gemm on the CPU, through cpu_sgemm. */
#include "ops/matmul.h"
#include "cpu/cpu_kernels.h"

vkml_status cpu_matmul(const op_cpu_args *args, vkml_error *err)
{
    matmul_params p;
    vkml_status st = matmul_params_parse(args->values, args->node, &p, err);
    if (st)
        return st;
    const float *a = args->in[0], *b = args->in[1];
    float *y = args->out[0];
    for (int64_t i = 0; i < p.batch_count; i++) {
        int64_t a_off, b_off;
        matmul_batch_offsets(&p, i, &a_off, &b_off);
        cpu_sgemm_args g = {
            .m = p.m,
            .n = p.n,
            .k = p.k,
            .a = a + a_off,
            .a_row = p.k,
            .a_col = 1,
            .b = b + b_off,
            .b_row = p.n,
            .b_col = 1,
            .y = y + i * p.m * p.n,
        };
        cpu_sgemm(&g);
    }
    return VKML_OK;
}

vkml_status cpu_gemm(const op_cpu_args *args, vkml_error *err)
{
    gemm_params p;
    vkml_status st = gemm_params_parse(args->values, args->node, &p, err);
    if (st)
        return st;
    float *y = args->out[0];
    /* A stored [m, k] or, transposed, [k, m]; B stored [k, n] or [n, k]. */
    cpu_sgemm_args g = {
        .m = p.m,
        .n = p.n,
        .k = p.k,
        .a = args->in[0],
        .a_row = p.trans_a ? 1 : p.k,
        .a_col = p.trans_a ? p.m : 1,
        .b = args->in[1],
        .b_row = p.trans_b ? 1 : p.n,
        .b_col = p.trans_b ? p.k : 1,
        .y = y,
    };
    cpu_sgemm(&g);
    const float *c = p.has_c ? args->in[2] : NULL;
    for (int64_t i = 0; i < p.m; i++)
        for (int64_t j = 0; j < p.n; j++) {
            float v = p.alpha * y[i * p.n + j];
            y[i * p.n + j] = c ? v + p.beta * c[i * p.c_stride_m + j * p.c_stride_n] : v;
        }
    return VKML_OK;
}
