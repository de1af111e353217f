#pragma once
/* The matrix-product kernels (shaders/matmul.comp, matmul_direct.comp), shared by MatMul,
 * Gemm and Einsum: Y[b, m, n] = alpha * sum_k A(b, m, k) B(b, k, n) + beta * C(m, n), with
 * element strides for every operand (transposes, diagonals, broadcast batches). */
#include "vulkan/ops_gemm.h"

/* Tile edge of shaders/matmul.comp. Its push block is push.h's matmul_push (batch rank
 * MATMUL_MAX_BATCH_RANK at most). */
#define MATMUL_TILE 16

/* Records Y (value y, dense [batch, m, n]) from values a, b and, c >= 0, c, and, res >= 0,
 * the residual of pc->epi; batch is the product of pc->batch_dims; norm (NULL: none) a
 * normalization of Y's rows it applies where it fits (vk_row_norm.fused). dtype picks the variant
 * (float, float16, double, int32, uint32, int64, uint64); float32 on GPUs runs
 * gemm_tiled.comp. */
vkml_status vk_rec_matmul(gpu_recorder *rec, const matmul_push *pc, vkml_dtype dtype, int a, int b,
                          int c, int res, int y, int64_t batch, vk_row_norm *norm, vkml_error *err);
/* The same, its kernel picked under caps (the device's, forced as the choice by
 * measurement says: vk_rec_matmul asks vk_gemm_tune.h, which measures through this). */
vkml_status vk_rec_matmul_as(gpu_recorder *rec, const struct gpu_caps *caps, const matmul_push *pc,
                             vkml_dtype dtype, int a, int b, int c, int res, int y, int64_t batch,
                             vk_row_norm *norm, vkml_error *err);
/* Products of at most this many rows per batch run gemv.comp (a workgroup per row and 32
 * columns, 8 when N is small, or 4 when B^T puts K in a row, with K split over its 256
 * invocations) instead of gemm_tiled.comp, whose smallest tile walks all of K in one
 * workgroup: mnist-8's [1,256] x [256,10] ran one workgroup of 256 steps (10.8 us on the
 * H200). */
#define VK_GEMV_MAX_ROWS 4
/* With B^T, up to this many rows, all in one workgroup (gemv_k_contig_rows, ROWS 8):
 * ResNet-50 b8's classifier, [8, 2048] x [2048, 1000]^T, took 28 us on split-K tiles of 64
 * rows, 12 us so (H200, 2026-11-25). Not for one row: EfficientNet-B0's 16
 * squeeze-excitation expansions took 0.9 us more each on the 8-row form. */
#define VK_GEMV_ROWS 8
/* gemv.comp's kernel (VK_KERNEL_GEMV; VK_KERNEL_GEMV_NARROW for B [K, N] of a few columns;
 * VK_KERNEL_GEMV_K_CONTIG when B's k stride is 1, _ROWS for 2 to VK_GEMV_ROWS rows)
 * and grid (column blocks, rows, batch) when it takes the product pc: GPUs (prefer_tiled),
 * floats, tiles by shape (no gemm/split-K/coop forcing), pc->m <= VK_GEMV_MAX_ROWS
 * (VK_GEMV_ROWS with B^T). */
bool vk_gemv_pick(const struct gpu_caps *caps, const matmul_push *pc, bool floats, int64_t batch,
                  vk_kernel_id *kernel, uint32_t groups[3]);
/* Whether the workgroup grid of an m x n x batch product fits the device. */
bool vk_matmul_fits(const struct gpu_caps *caps, int64_t m, int64_t n, int64_t batch, char *why,
                    size_t why_size);

/* A LayerNormalization over the last dim of [rows, n] x into y (y may be x: in place), with
 * scale and bias values (bias -1: none); lib/vulkan/ops_norm.c (a fused epilogue's
 * normalization, graph_epilogue.norm). */
vkml_status vk_rec_layer_norm_rows(gpu_recorder *rec, vkml_dtype dtype, int64_t rows, int64_t n,
                                   float epsilon, int x, int scale, int bias, int y,
                                   vkml_error *err);
