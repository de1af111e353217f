#include "vulkan/vk_stream.h"
#include "vulkan/vk_counts.h"
#include "vulkan/vk_fault.h"

#include <time.h>

vkml_status vk_stream_init(vk_device *vd, vkml_error *err)
{
    vkml_status status = VKML_OK;
    if (!vd->timeline_features.timelineSemaphore || (vd->faults && vd->faults->no_timeline))
        return VKML_OK;
    VkSemaphoreTypeCreateInfo type = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
        .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
        .initialValue = 0,
    };
    VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type};
    VK_CREATE(VKML_VK_SEMAPHORE, vkCreateSemaphore(vd->dev, &sci, NULL, &vd->timeline));
cleanup:
    return status;
}

void vk_stream_destroy(vk_device *vd)
{
    VK_DESTROY(VKML_VK_SEMAPHORE, vkDestroySemaphore, vd->dev, vd->timeline);
    vd->timeline = VK_NULL_HANDLE;
}

vkml_status vk_stream_submit(vk_device *vd, VkCommandBuffer cmd, VkFence fence, bool run,
                             uint64_t *value, vkml_error *err)
{
    vkml_status status = vk_device_check_lost(vd, err);
    if (status != VKML_OK)
        return status;
    VkTimelineSemaphoreSubmitInfo tsi = {
        .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
        .signalSemaphoreValueCount = 1,
    };
    VkSubmitInfo si = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .pNext = &tsi,
        .commandBufferCount = 1,
        .pCommandBuffers = &cmd,
        .signalSemaphoreCount = 1,
        .pSignalSemaphores = &vd->timeline,
    };
    pthread_mutex_lock(&vd->queue_lock);
    /* Values rise in submission order; one is taken only by a submit that succeeded. */
    uint64_t next = vd->timeline_last + 1;
    tsi.pSignalSemaphoreValues = &next;
    VkResult r = vk_fault_queue_submit(vd, &si, fence, run);
    if (r == VK_SUCCESS)
        vd->timeline_last = next;
    pthread_mutex_unlock(&vd->queue_lock);
    VK_AS("vkQueueSubmit", r);
    *value = next;
cleanup:
    return status;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Polls the counter until it reaches value or spin_ns pass: VK_SUCCESS when reached,
 * VK_TIMEOUT when not, or the driver's error. */
static VkResult spin(vk_device *vd, uint64_t value, uint64_t spin_ns)
{
    uint64_t start = 0;
    for (;;) {
        uint64_t counter = 0;
        VkResult r = vkGetSemaphoreCounterValue(vd->dev, vd->timeline, &counter);
        if (r != VK_SUCCESS || counter >= value)
            return r;
        uint64_t t = now_ns();
        if (!start)
            start = t;
        if (t - start >= spin_ns)
            return VK_TIMEOUT;
    }
}

vkml_status vk_stream_wait(vk_device *vd, uint64_t value, VkFence fence, uint64_t spin_ns,
                           vkml_error *err)
{
    vkml_status status = vk_device_check_lost(vd, err);
    if (status != VKML_OK)
        return status;
    VkResult r = spin(vd, value, spin_ns);
    if (r == VK_TIMEOUT && fence != VK_NULL_HANDLE) {
        VK_AS("vkWaitForFences", vk_fault_wait_fence(vd, fence, true));
        goto cleanup;
    }
    if (r == VK_TIMEOUT) {
        VkSemaphoreWaitInfo wi = {
            .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
            .semaphoreCount = 1,
            .pSemaphores = &vd->timeline,
            .pValues = &value,
        };
        r = vkWaitSemaphores(vd->dev, &wi, UINT64_MAX);
    }
    VK_AS("vkWaitSemaphores", vk_fault_after_wait(vd, r, true));
cleanup:
    return status;
}
