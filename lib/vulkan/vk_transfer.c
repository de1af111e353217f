#include "vulkan/vk_transfer.h"
#include "vulkan/vk_counts.h"
#include "vulkan/vk_fault.h"
#include "vulkan/vk_stream.h"

#include <stdlib.h>
#include <string.h>

vkml_status vk_submit_wait(vk_device *vd, VkCommandBuffer cmd, VkFence fence, bool run,
                           vkml_error *err)
{
    vkml_status status = vk_stream_submit(vd, cmd, fence, run, err);
    if (status != VKML_OK)
        return status;
    VK_AS("vkWaitForFences", vk_fault_wait_fence(vd, fence, run));
    VK(vkResetFences(vd->dev, 1, &fence));
cleanup:
    return status;
}

vkml_status vk_upload(vk_device *vd, VkCommandPool pool, const vk_upload_item *items, int n,
                      vkml_error *err)
{
    vkml_status status = VKML_OK;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    vk_mem *staging = calloc(n ? (size_t)n : 1, sizeof(*staging));
    if (!staging)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan upload: out of host memory");
    VkCommandBufferAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    VK_CREATE(VKML_VK_COMMAND_BUFFER, vkAllocateCommandBuffers(vd->dev, &ai, &cmd));
    VkCommandBufferBeginInfo bi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    VK(vkBeginCommandBuffer(cmd, &bi));
    for (int i = 0; i < n; i++) {
        VKML_TRY(vk_mem_alloc(vd->alloc, VK_MEM_HOST, items[i].size, &staging[i], err));
        memcpy(staging[i].map, items[i].src, items[i].size);
        VkBufferCopy region = {
            .srcOffset = staging[i].offset,
            .dstOffset = items[i].dst->offset,
            .size = items[i].size,
        };
        vkCmdCopyBuffer(cmd, staging[i].buffer, items[i].dst->buffer, 1, &region);
    }
    VK(vkEndCommandBuffer(cmd));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_CREATE(VKML_VK_FENCE, vkCreateFence(vd->dev, &fci, NULL, &fence));
    VKML_TRY(vk_submit_wait(vd, cmd, fence, false, err));
cleanup:
    VK_DESTROY(VKML_VK_FENCE, vkDestroyFence, vd->dev, fence);
    if (cmd) {
        vkFreeCommandBuffers(vd->dev, pool, 1, &cmd);
        vk_count_add(VKML_VK_COMMAND_BUFFER, -1);
    }
    for (int i = 0; i < n; i++)
        vk_mem_free(vd->alloc, &staging[i]);
    free(staging);
    return status;
}
