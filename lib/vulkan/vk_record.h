#pragma once
/*
 * The recorder behind gpu_recorder (vk_ops.h): collects a chunk's dispatches, then
 * records them into a command buffer with one descriptor pool sized for exactly them and
 * a memory barrier only where a dispatch depends on an earlier one since the last
 * barrier (read after write, write after read, write after write of overlapping ranges).
 */
#include "vulkan/vk_memory.h"

/* values[i]: the memory of session value i (buffer NULL when the device does not hold it);
 * fast_math: the session's precision is fp32-fast (vk_rec_fast_math). */
vkml_status vk_rec_create(vk_device *vd, const vk_mem *values, int n_values, bool fast_math,
                          gpu_recorder **out, vkml_error *err);
/* Records everything into cmd (begun by the caller); *pool receives the descriptor pool
 * the command buffer uses (the caller destroys it with the command buffer; may be
 * VK_NULL_HANDLE when there was no dispatch). barriers (may be NULL) receives the number
 * of barriers inserted between dispatches. */
vkml_status vk_rec_finish(gpu_recorder *rec, VkCommandBuffer cmd, VkDescriptorPool *pool,
                          int *barriers, vkml_error *err);
/* Moves the scratch buffers (vk_rec_scratch) to the caller, who frees them (vk_mem_free)
 * once the command buffer is done with them; else vk_rec_destroy frees them. */
void vk_rec_take_scratch(gpu_recorder *rec, vk_mem **mems, int *n);
void vk_rec_destroy(gpu_recorder **rec);
