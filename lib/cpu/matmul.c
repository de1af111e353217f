/* MatMul and Gemm on the CPU, in every dtype: float16/bfloat16 run the float kernels on
 * float copies; the rest go through cpu_matprod. */
#include "ops/matmul.h"
#include "cpu/cpu_elem.h"
#include "cpu/cpu_kernels.h"
#include "cpu/cpu_widen.h"
#include "cpu/matprod.h"
#include "ops/epilogue.h"

static vkml_dtype node_dtype(const op_cpu_args *args)
{
    return args->values[args->node->inputs[0]].dtype;
}

static vkml_status matmul_any(const op_cpu_args *args, vkml_error *err)
{
    matmul_params p;
    vkml_status st = matmul_params_parse(args->values, args->node, &p, err);
    if (st)
        return st;
    vkml_dtype dtype = node_dtype(args);
    size_t elem = vkml_dtype_size(dtype);
    const char *a = args->in[0], *b = args->in[1];
    char *y = args->out[0];
    for (int64_t i = 0; i < p.batch_count; i++) {
        int64_t a_off, b_off;
        matmul_batch_offsets(&p, i, &a_off, &b_off);
        cpu_matprod_args g = {
            .dtype = dtype,
            .m = p.m,
            .n = p.n,
            .k = p.k,
            .a = a + (size_t)a_off * elem,
            .a_row = p.a_sm,
            .a_col = p.a_sk,
            .b = b + (size_t)b_off * elem,
            .b_row = p.b_sk,
            .b_col = p.b_sn,
            .y = y + (size_t)(i * p.m * p.n) * elem,
        };
        cpu_matprod(&g);
    }
    cpu_apply_epilogue(args);
    return VKML_OK;
}

vkml_status cpu_matmul(const op_cpu_args *args, vkml_error *err)
{
    return cpu_matprod_supports(node_dtype(args)) ? matmul_any(args, err)
                                                  : cpu_run_widened(args, matmul_any, err);
}

/* Y = alpha * Y + beta * C. Integers: exact when alpha and beta are 1 (or beta 0), else
 * through double and truncated, as numpy's astype does. */
static void gemm_epilogue(const gemm_params *p, vkml_dtype dtype, const void *c, void *y)
{
    bool exact_int = !cpu_dtype_is_float(dtype) && p->alpha == 1.0f &&
                     (p->beta == 1.0f || p->beta == 0.0f || !c);
    for (int64_t i = 0; i < p->m; i++)
        for (int64_t j = 0; j < p->n; j++) {
            int64_t at = i * p->n + j, ci = i * p->c_stride_m + j * p->c_stride_n;
            if (exact_int) {
                int64_t v = cpu_load_i64(y, dtype, at);
                if (c && p->beta != 0.0f)
                    v = (int64_t)((uint64_t)v + (uint64_t)cpu_load_i64(c, dtype, ci));
                cpu_store_i64(y, dtype, at, v);
            } else {
                double v = p->alpha * cpu_load_f64(y, dtype, at);
                if (c)
                    v += p->beta * cpu_load_f64(c, dtype, ci);
                cpu_store_f64(y, dtype, at, v);
            }
        }
}

static vkml_status gemm_any(const op_cpu_args *args, vkml_error *err)
{
    gemm_params p;
    vkml_status st = gemm_params_parse(args->values, args->node, &p, err);
    if (st)
        return st;
    /* A stored [m, k] or, transposed, [k, m]; B stored [k, n] or [n, k]. */
    cpu_matprod_args g = {
        .dtype = node_dtype(args),
        .m = p.m,
        .n = p.n,
        .k = p.k,
        .a = args->in[0],
        .a_row = p.trans_a ? 1 : p.k,
        .a_col = p.trans_a ? p.m : 1,
        .b = args->in[1],
        .b_row = p.trans_b ? 1 : p.n,
        .b_col = p.trans_b ? p.k : 1,
        .y = args->out[0],
    };
    cpu_matprod(&g);
    if (p.has_c || p.alpha != 1.0f)
        gemm_epilogue(&p, g.dtype, p.has_c ? args->in[2] : NULL, args->out[0]);
    cpu_apply_epilogue(args);
    return VKML_OK;
}

vkml_status cpu_gemm(const op_cpu_args *args, vkml_error *err)
{
    return cpu_matprod_supports(node_dtype(args)) ? gemm_any(args, err)
                                                  : cpu_run_widened(args, gemm_any, err);
}
