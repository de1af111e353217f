// The members of lib/vulkan/ops_matmul.h's matmul_push (keep in step), shared by the push
// blocks of the matrix-product kernels: matmul_params.glsl's, and gemm_operands.glsl's,
// which appends split-K's members.
#ifndef VKML_MATMUL_PUSH_GLSL
#define VKML_MATMUL_PUSH_GLSL

#define MAX_BATCH_RANK 4
#define MATMUL_PUSH_MEMBERS                                                                        \
    uint m, n, k;                                                                                  \
    uint a_sm, a_sk, b_sk, b_sn, c_sm, c_sn;                                                       \
    float alpha, beta;                                                                             \
    uint has_c;                                                                                    \
    uint batch_rank;                                                                               \
    uint batch_dims[MAX_BATCH_RANK];                                                               \
    uint a_batch_strides[MAX_BATCH_RANK];                                                          \
    uint b_batch_strides[MAX_BATCH_RANK];                                                          \
    uint epi_act;                                                                                  \
    float epi_alpha, epi_beta;                                                                     \
    uint epi_flags;

#endif
