#pragma once
/* MatMul (numpy matmul: 1-D operands, broadcast batch dims) and Gemm parameters,
 * shared by the shape functions, the CPU kernels and the Vulkan lowerings. */
#include "graph/graph.h"

typedef struct matmul_params {
    int64_t m, n, k; /* A is [.., m, k], B [.., k, n] after 1-D promotion */
    int batch_rank;  /* output batch dims (broadcast of both) */
    int64_t batch_dims[VKML_MAX_RANK];
    /* Element offset step of A's/B's matrix per batch dim; 0 where that operand is
     * broadcast. The output is dense: batch i starts at i * m * n. */
    int64_t a_batch_strides[VKML_MAX_RANK];
    int64_t b_batch_strides[VKML_MAX_RANK];
    int64_t batch_count; /* product of batch_dims (1 when none) */
    /* Element strides of A's rows and columns (m, k) and B's (k, n): k, 1 and n, 1 unless
     * the node reads an operand through a view (graph_epilogue.view). */
    int64_t a_sm, a_sk, b_sk, b_sn;
} matmul_params;

vkml_status matmul_params_parse(const graph_value *values, const graph_node *node, matmul_params *p,
                                vkml_error *err);
/* The shape part of matmul_params_parse, for ops whose operands sit at other inputs
 * (MatMulInteger, QLinearMatMul): any dtype. */
vkml_status matmul_shape_parse(const graph_node *node, const graph_value *a, const graph_value *b,
                               matmul_params *p, vkml_error *err);
/* Sets output 0 to the product's shape (1-D operands' dims dropped) and dtype. */
void matmul_set_output(graph_value *values, const graph_node *node, const matmul_params *p,
                       const graph_value *a, const graph_value *b, vkml_dtype dtype);
/* Element offsets of batch `index`'s A and B matrices (index < batch_count). */
void matmul_batch_offsets(const matmul_params *p, int64_t index, int64_t *a_off, int64_t *b_off);

typedef struct gemm_params {
    int64_t m, n, k;       /* Y [m, n] = alpha * op(A) [m, k] * op(B) [k, n] + beta * C */
    bool trans_a, trans_b; /* A stored [k, m] / B stored [n, k] */
    float alpha, beta;
    bool has_c; /* input 2 present */
    /* Element strides of C per output row / column; 0 where C is broadcast. */
    int64_t c_stride_m, c_stride_n;
} gemm_params;

vkml_status gemm_params_parse(const graph_value *values, const graph_node *node, gemm_params *p,
                              vkml_error *err);
