#pragma once
/*
 * The recorder behind gpu_recorder (vk_ops.h): collects a chunk's dispatches, then
 * records them into a command buffer with one descriptor pool sized for exactly them and
 * a memory barrier only where a dispatch depends on an earlier one since the last
 * barrier (read after write, write after read, write after write of overlapping ranges).
 */
#include "vulkan/vk_memory.h"

/* values[i]: the memory of session value i (buffer NULL when the device does not hold it);
 * packed (may be NULL): per value, whether its buffer holds conv weights packed over taps
 * (vk_rec_packed); fast_math: the session's precision is fp32-fast (vk_rec_fast_math). */
vkml_status vk_rec_create(vk_device *vd, const vk_mem *values, const bool *packed, int n_values,
                          bool fast_math, gpu_recorder **out, vkml_error *err);
/* Every dispatch recorded from now on runs its kernel's own pipeline, never one specialized
 * to its epilogue (vk_dispatch.epi): the choice by measurement (vk_gemm_tune.c) times its
 * candidates so, one pipeline per candidate kernel for every shape and epilogue. */
void vk_rec_plain_pipelines(gpu_recorder *rec);
/* The device recorded for (its pipeline caches, for kernels generated at recording). */
vk_device *vk_rec_device(const gpu_recorder *rec);
/* The node whose kernels the next dispatches are (its position in the chunk, from 0):
 * the profile attributes time by it. */
void vk_rec_set_node(gpu_recorder *rec, int position);

/* A profiled chunk: a timestamp query pool of n_nodes + 1 queries. Query 0 is written when
 * the work before the chunk's first dispatch is done, query k + 1 when the work up to node
 * k's last dispatch is (a node without dispatches gets the previous stamp): node k's time is
 * stamp k + 1 - stamp k, exact for dependent nodes, an apportioning for overlapping ones. */
typedef struct vk_rec_profile {
    VkQueryPool pool;
    int n_nodes;
} vk_rec_profile;

/* Records everything into cmd (begun by the caller); *pool receives the descriptor pool
 * the command buffer uses (the caller destroys it with the command buffer; may be
 * VK_NULL_HANDLE when there was no dispatch). prof (may be NULL): the timestamps to
 * write. barriers (may be NULL) receives the number of barriers inserted between
 * dispatches. */
vkml_status vk_rec_finish(gpu_recorder *rec, VkCommandBuffer cmd, VkDescriptorPool *pool,
                          const vk_rec_profile *prof, int *barriers, vkml_error *err);
/* Moves the scratch buffers (vk_rec_scratch) to the caller, who frees them (vk_mem_free)
 * once the command buffer is done with them; else vk_rec_destroy frees them. */
void vk_rec_take_scratch(gpu_recorder *rec, vk_mem **mems, int *n);
void vk_rec_destroy(gpu_recorder **rec);
