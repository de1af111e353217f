#pragma once
/*
 * Live Vulkan objects, per kind (vkml_vk_object), process-wide: every create/allocate
 * in lib/vulkan adds one, every destroy/free takes one away. Read by
 * vkml_debug_vk_counts (leak tests, the soak tool).
 *
 * The counters are atomics updated with memory_order_relaxed: each is an independent
 * tally that orders nothing else (no other memory is published through it), so only the
 * increments themselves must not be lost; a reader that needs a settled total
 * synchronises with the threads that create objects by other means (joining them,
 * destroying the context).
 */
#include "vulkan/vk_common.h"

void vk_count_add(vkml_vk_object kind, int64_t n);
void vk_count_memory_bytes(int64_t bytes);

/* Runs a Vulkan create/allocate call through VK() and counts one object of `kind`. */
#define VK_CREATE(kind, call)                                                                      \
    do {                                                                                           \
        VK(call);                                                                                  \
        vk_count_add(kind, 1);                                                                     \
    } while (0)

/* Destroys a handle (a no-op for VK_NULL_HANDLE) and counts it gone. */
#define VK_DESTROY(kind, fn, dev, handle)                                                          \
    do {                                                                                           \
        if ((handle) != VK_NULL_HANDLE) {                                                          \
            fn(dev, handle, NULL);                                                                 \
            vk_count_add(kind, -1);                                                                \
        }                                                                                          \
    } while (0)
