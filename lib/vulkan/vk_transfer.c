#include "vulkan/vk_transfer.h"
#include "vulkan/vk_counts.h"
#include "vulkan/vk_fault.h"
#include "vulkan/vk_stream.h"

#include <stdlib.h>
#include <string.h>

vkml_status vk_submit_wait(vk_device *vd, const vk_submit *what, VkFence fence, bool run,
                           vkml_error *err)
{
    vkml_status status = vk_stream_submit(vd, what, fence, run, err);
    if (status != VKML_OK)
        return status;
    VK_AS("vkWaitForFences", vk_fault_wait_fence(vd, fence, run));
    VK(vkResetFences(vd->dev, 1, &fence));
cleanup:
    return status;
}

/* Records copies of the next bytes of the items, from (*item, *done) on, into `staging`
 * until it is full or the items end; advances the cursor. */
static void record_round(VkCommandBuffer cmd, const vk_mem *staging, const vk_upload_item *items,
                         int n, int *item, size_t *done)
{
    VkDeviceSize used = 0;
    while (*item < n && used < staging->size) {
        const vk_upload_item *it = &items[*item];
        size_t piece = it->size - *done;
        if (piece > staging->size - used)
            piece = (size_t)(staging->size - used);
        if (piece) {
            memcpy((uint8_t *)staging->map + used, (const uint8_t *)it->src + *done, piece);
            VkBufferCopy region = {
                .srcOffset = staging->offset + used,
                .dstOffset = it->dst->offset + *done,
                .size = piece,
            };
            vkCmdCopyBuffer(cmd, staging->buffer, it->dst->buffer, 1, &region);
            used += piece;
            *done += piece;
        }
        if (*done == it->size) {
            (*item)++;
            *done = 0;
        }
    }
}

vkml_status vk_upload(vk_device *vd, VkCommandPool pool, const vk_upload_item *items, int n,
                      vkml_error *err)
{
    vkml_status status = VKML_OK;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    vk_mem staging = {0};
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += items[i].size;
    if (total == 0)
        return VKML_OK;
    /* Offsets and sizes of copies into a buffer need no alignment beyond 1 byte, so
     * items are packed end to end and split across rounds where they must be. */
    VkDeviceSize staging_bytes = total < VK_UPLOAD_STAGING_BYTES ? total : VK_UPLOAD_STAGING_BYTES;
    VKML_TRY(vk_mem_alloc_own_block(vd->alloc, VK_MEM_HOST, staging_bytes, &staging, err));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_CREATE(VKML_VK_FENCE, vkCreateFence(vd->dev, &fci, NULL, &fence));
    VkCommandBufferAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    VkCommandBufferBeginInfo bi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    int item = 0;
    size_t done = 0;
    while (item < n) {
        /* One command buffer per round (the pool may not allow resetting one). */
        VK_CREATE(VKML_VK_COMMAND_BUFFER, vkAllocateCommandBuffers(vd->dev, &ai, &cmd));
        VK(vkBeginCommandBuffer(cmd, &bi));
        record_round(cmd, &staging, items, n, &item, &done);
        VK(vkEndCommandBuffer(cmd));
        VKML_TRY(vk_submit_wait(vd, &(vk_submit){.cmd = cmd}, fence, false, err));
        vkFreeCommandBuffers(vd->dev, pool, 1, &cmd);
        vk_count_add(VKML_VK_COMMAND_BUFFER, -1);
        cmd = VK_NULL_HANDLE;
    }
cleanup:
    VK_DESTROY(VKML_VK_FENCE, vkDestroyFence, vd->dev, fence);
    if (cmd) {
        vkFreeCommandBuffers(vd->dev, pool, 1, &cmd);
        vk_count_add(VKML_VK_COMMAND_BUFFER, -1);
    }
    vk_mem_free(vd->alloc, &staging);
    return status;
}
