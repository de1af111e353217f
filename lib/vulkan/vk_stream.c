#include "vulkan/vk_stream.h"
#include "vulkan/vk_fault.h"

#include <time.h>

void vk_stream_init(vk_device *vd)
{
    vd->queued_chunks = !(vd->faults && vd->faults->sync_chunks);
}

vkml_status vk_stream_submit(vk_device *vd, VkCommandBuffer cmd, VkFence fence, bool run,
                             vkml_error *err)
{
    vkml_status status = vk_device_check_lost(vd, err);
    if (status != VKML_OK)
        return status;
    VkSubmitInfo si = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .commandBufferCount = 1,
        .pCommandBuffers = &cmd,
    };
    pthread_mutex_lock(&vd->queue_lock);
    VkResult r = vk_fault_queue_submit(vd, &si, fence, run);
    pthread_mutex_unlock(&vd->queue_lock);
    VK_AS("vkQueueSubmit", r);
cleanup:
    return status;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Polls the fence until it is signalled or spin_ns pass: VK_SUCCESS when signalled,
 * VK_NOT_READY when not, or the driver's error. */
static VkResult spin(vk_device *vd, VkFence fence, uint64_t spin_ns)
{
    uint64_t start = 0;
    for (;;) {
        VkResult r = vkGetFenceStatus(vd->dev, fence);
        if (r != VK_NOT_READY)
            return r;
        uint64_t t = now_ns();
        if (!start)
            start = t;
        if (t - start >= spin_ns)
            return VK_NOT_READY;
    }
}

vkml_status vk_stream_wait(vk_device *vd, VkFence fence, uint64_t spin_ns, vkml_error *err)
{
    vkml_status status = vk_device_check_lost(vd, err);
    if (status != VKML_OK)
        return status;
    VkResult r = spin(vd, fence, spin_ns);
    if (r == VK_NOT_READY)
        VK_AS("vkWaitForFences", vk_fault_wait_fence(vd, fence, true));
    else
        VK_AS("vkGetFenceStatus", vk_fault_after_wait(vd, r, true));
cleanup:
    return status;
}
