#pragma once
/* The register-blocked fp32 GEMM (shaders/gemm_tiled.comp) shared by MatMul, Gemm and Conv,
 * its per-shape tile choice, and the fused epilogue every Conv/Gemm/MatMul kernel applies
 * (shaders/common/epilogue.glsl, graph_epilogue). */
#include "graph/graph.h"
#include "vulkan/vk_ops.h"

/* Workgroups a tile should give before a larger tile is taken (about two per SM of a
 * large GPU: H200 has 132). Fewer with every tile: the smallest. */
#define VK_GEMM_MIN_GROUPS 264

/* The last members of the Conv/Gemm/MatMul push blocks (epilogue.glsl). */
typedef struct vk_epilogue_push {
    uint32_t act; /* graph_epi_act */
    float alpha, beta;
    uint32_t flags; /* bit 0: residual at binding 3; bit 1: added before the activation */
} vk_epilogue_push;

/* The push members of node's epilogue (all zero without one). */
vk_epilogue_push vk_epilogue_of(const graph_node *node);
/* The residual value of node's epilogue, or `fallback` (binding 3 still needs a buffer). */
int vk_epilogue_binding(const graph_node *node, int fallback);

/* The gemm_tiled.comp variant (conv: its implicit-GEMM form) for an m x n product over z
 * batches or groups, and its workgroups; false when the grid exceeds the device's. */
/* Tiles of gemm_tiled.comp (gpu_caps.gemm_force counts from 1). */
#define VK_GEMM_TILES 4
bool vk_gemm_pick(const struct gpu_caps *caps, bool conv, int64_t m, int64_t n, int64_t z,
                  vk_kernel_id *kernel, uint32_t groups[3]);
