/*
 * MatMul and Gemm (lib/ops/matmul.c) on the op harness (suite 'ops'): batched and
 * broadcast MatMul, 1-D operands on either side, products over several tiles in every
 * dim, Gemm's transposes, alpha, beta and every shape of C, each with the plain and the
 * tiled kernels, every Vulkan device against the CPU kernel. tests/ops/test_ops_gemm.c
 * drives each matrix-product kernel (tiles, split-K, cooperative matrices, epilogues).
 */
#include "op_harness.h"

#include <stdio.h>

static void matmul_case(const char *label, int ra, const int64_t *a, int rb, const int64_t *b)
{
    oh_case *c = oh_new("MatMul", 13);
    oh_input(c, VKML_DTYPE_FLOAT, ra, a, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, rb, b, -1, 1);
    oh_run(c, label, OH_BOUND_SUM);
}

typedef struct gemm_case {
    const char *label;
    int64_t a[2], b[2];
    int c_rank; /* -1: no C */
    int64_t c[2];
    int64_t trans_a, trans_b;
    float alpha, beta;
} gemm_case;

static void run_gemm(const gemm_case *gc)
{
    oh_case *c = oh_new("Gemm", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 2, gc->a, -1, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 2, gc->b, -1, 1);
    if (gc->c_rank >= 0)
        oh_const_random(c, VKML_DTYPE_FLOAT, gc->c_rank, gc->c, -1, 1);
    oh_attr_int(c, "transA", gc->trans_a);
    oh_attr_int(c, "transB", gc->trans_b);
    oh_attr_float(c, "alpha", gc->alpha);
    oh_attr_float(c, "beta", gc->beta);
    oh_run(c, gc->label, OH_BOUND_SUM);
}

static void test_products(void)
{
    matmul_case("MatMul batched broadcast", 4, (int64_t[]){3, 1, 5, 7}, 3, (int64_t[]){4, 7, 9});
    matmul_case("MatMul 2-D", 2, (int64_t[]){33, 17}, 2, (int64_t[]){17, 29});
    /* several tiles in every dim */
    matmul_case("MatMul 2-D 129x77x131", 2, (int64_t[]){129, 77}, 2, (int64_t[]){77, 131});
    matmul_case("MatMul 1-D x batched", 1, (int64_t[]){7}, 3, (int64_t[]){2, 7, 5});
    matmul_case("MatMul batched x 1-D", 3, (int64_t[]){3, 2, 7}, 1, (int64_t[]){7});
    static const gemm_case cases[] = {
        {"Gemm transA transB C[n]", {19, 13}, {23, 19}, 1, {23}, 1, 1, 0.7f, 1.3f},
        {"Gemm C[m,1]", {13, 19}, {19, 23}, 2, {13, 1}, 0, 0, 1.0f, 0.5f},
        {"Gemm transB no C", {5, 64}, {10, 64}, -1, {0}, 0, 1, 2.0f, 1.0f},
        {"Gemm scalar C", {17, 3}, {3, 31}, 0, {0}, 0, 0, 1.0f, 1.0f},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        run_gemm(&cases[i]);
}

int main(void)
{
    /* A tiled (GPU) and a plain (CPU device) variant, chosen by caps: both, whatever the
     * device prefers. */
    for (int tiled = 0; tiled < 2; tiled++) {
        oh_gpu_kernels(tiled ? OH_KERNELS_TILED : OH_KERNELS_PLAIN, 0);
        printf("-- %s kernels\n", tiled ? "tiled" : "plain");
        test_products();
    }
    oh_gpu_kernels(OH_KERNELS_DEVICE, 0);
    return oh_finish();
}
