#pragma once
/* Host -> device uploads through staging memory, for memory the host cannot map. */
#include "vulkan/vk_memory.h"
#include "vulkan/vk_stream.h"

typedef struct vk_upload_item {
    const void *src;
    size_t size;
    const vk_mem *dst;
} vk_upload_item;

/* Staging memory of an upload, bytes: the most host-visible memory an upload holds at once
 * (a model's weights go up in rounds of this much, not all staged together). */
#define VK_UPLOAD_STAGING_BYTES (16ull << 20)

/* Copies every item through one staging buffer of at most VK_UPLOAD_STAGING_BYTES, in as
 * many rounds (command buffers from `pool`, each submitted and waited for) as it takes. */
vkml_status vk_upload(vk_device *vd, VkCommandPool pool, const vk_upload_item *items, int n,
                      vkml_error *err);

/* Submits `what` as vk_stream_submit does and waits for `fence`, then resets it. `run`: the
 * submit runs a session (not an upload of its creation; the device-lost hook's "run" kind
 * counts these). */
vkml_status vk_submit_wait(vk_device *vd, const vk_submit *what, VkFence fence, bool run,
                           vkml_error *err);
