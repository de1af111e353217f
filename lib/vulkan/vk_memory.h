#pragma once
/*
 * Device memory sub-allocator. Memory comes in big blocks (VK_BLOCK_BYTES) of one memory
 * type, each bound to one VkBuffer that spans it; a tensor gets an aligned range of a
 * block, so a session costs a handful of vkAllocateMemory calls, not one per tensor.
 * A request larger than a block gets a block of its own. Empty blocks are freed.
 *
 * Thread-safe (one mutex per allocator).
 */
#include "vulkan/vk_device.h"

/* Default block size, bytes. */
#define VK_BLOCK_BYTES (64ull << 20)

typedef enum vk_mem_kind {
    VK_MEM_DEVICE,   /* intermediates, weights: device-local where the device has it */
    VK_MEM_HOST,     /* read back by the host, staging: host-visible, coherent, mapped,
                        cached where the device has it (host reads of BAR memory crawl) */
    VK_MEM_UPLOAD,   /* written by the host, read by kernels: host-visible, coherent, mapped,
                        device-local where the device has it (resizable BAR), else as HOST */
    VK_MEM_IMPORTED, /* host memory of the caller's, imported (vk_mem_import_host) */
} vk_mem_kind;

typedef struct vk_block vk_block;

/* One range of a block. */
typedef struct vk_mem {
    VkBuffer buffer;
    VkDeviceSize offset, size;
    void *map; /* host pointer when the block is mapped, else NULL */
    vk_block *block;
} vk_mem;

vkml_status vk_allocator_create(vk_device *vd, vk_allocator **out, vkml_error *err);
/* All ranges must have been freed. */
void vk_allocator_destroy(vk_allocator **alloc);

vkml_status vk_mem_alloc(vk_allocator *alloc, vk_mem_kind kind, VkDeviceSize size, vk_mem *out,
                         vkml_error *err);
/* Imports `size` bytes of host memory at `ptr` (VK_EXT_external_memory_host; both multiples
 * of the device's host_share_align) as a buffer of its own; out->map is ptr. The memory
 * stays the caller's: free the vk_mem (vk_mem_free) before it. Not counted against the
 * device's memory limit. */
vkml_status vk_mem_import_host(vk_allocator *alloc, void *ptr, VkDeviceSize size, vk_mem *out,
                               vkml_error *err);
/* Like vk_mem_alloc, in a block of its own of just that size (freed with the range): for
 * short-lived buffers (upload staging) that must not hold a whole VK_BLOCK_BYTES block. */
vkml_status vk_mem_alloc_own_block(vk_allocator *alloc, vk_mem_kind kind, VkDeviceSize size,
                                   vk_mem *out, vkml_error *err);
/* A part of mem (not to be freed on its own). */
vk_mem vk_mem_sub(const vk_mem *mem, VkDeviceSize offset, VkDeviceSize size);
/* Alignment of every range's offset, bytes. */
VkDeviceSize vk_allocator_alignment(const vk_allocator *alloc);
/* Accepts a zeroed vk_mem (nothing allocated). */
void vk_mem_free(vk_allocator *alloc, vk_mem *mem);
