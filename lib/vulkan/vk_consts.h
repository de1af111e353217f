#pragma once
/* Constants shared between the sessions of one device: every session (and every lane of
 * a session with runs in flight) of a model uses the same device buffer for a weight,
 * keyed by the weight's host bytes (the model's, alive while any session of it is) and
 * size; the buffer goes when its last session does. A session acquires and uploads its
 * constants under the device's consts_lock, so an entry is never seen half uploaded. */
#include "vulkan/vk_device.h"
#include "vulkan/vk_memory.h"

/* How a constant's bytes lie in its device buffer: as in the model, or a conv's weights
 * [M][C][taps] packed as [M][taps][C] (vk_conv_packs_weights, gemm_coop.comp's CONV=2). */
typedef enum vk_const_layout {
    VK_CONST_AS_IS = 0,
    VK_CONST_CONV_TAPS,
} vk_const_layout;

typedef struct vk_const {
    const void *data;
    VkDeviceSize size;
    vk_const_layout layout;
    vk_mem mem;
    int refs;
    struct vk_const *next;
} vk_const;

/* With consts_lock held: the entry for (data, size, layout), its reference taken, or NULL. */
vk_const *vk_const_find(vk_device *vd, const void *data, VkDeviceSize size, vk_const_layout layout);
/* With consts_lock held: a new entry (one reference) with fresh device memory. */
vkml_status vk_const_add(vk_device *vd, const void *data, VkDeviceSize size, vk_const_layout layout,
                         vk_const **out, vkml_error *err);
/* With consts_lock held: drops a reference to the entry of `mem`; frees it at zero. */
void vk_const_release(vk_device *vd, const vk_mem *mem);
