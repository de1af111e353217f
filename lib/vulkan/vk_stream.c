#include "vulkan/vk_stream.h"
#include "vulkan/vk_fault.h"

#include <errno.h>
#include <stdatomic.h>
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

uint64_t vk_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A host timer wakes this much late at worst, usually (50 us of timer slack and the
 * scheduler's latency): sleeps end this long before the expected end. */
#define WAKE_MARGIN_NS 100000ull
/* Shorter expected remainders are polled, not slept. */
#define SLEEP_MIN_NS 150000ull

/* Polls the fence until it is signalled or `deadline` passes: VK_SUCCESS when signalled,
 * VK_NOT_READY when not, or the driver's error. *first_ready: the first poll found it
 * signalled. */
static VkResult poll_until(vk_device *vd, VkFence fence, uint64_t deadline, bool *first_ready)
{
    for (bool first = true;; first = false) {
        VkResult r = vkGetFenceStatus(vd->dev, fence);
        if (r != VK_NOT_READY) {
            *first_ready = first;
            return r;
        }
        if (vk_now_ns() >= deadline)
            return VK_NOT_READY;
    }
}

/* Sleeps on the host's clock until WAKE_MARGIN_NS before the hint's expected end, when
 * that is far enough ahead; returns the expected end (0: none known). */
static uint64_t sleep_to_expected_end(const vk_wait_hint *hint)
{
    uint64_t expect = hint ? atomic_load_explicit(hint->expect_ns, memory_order_relaxed) : 0;
    if (!expect)
        return 0;
    uint64_t end = hint->submit_ns + expect, now = vk_now_ns();
    if (end > now + SLEEP_MIN_NS) {
        uint64_t wake = end - WAKE_MARGIN_NS;
        struct timespec ts = {.tv_sec = (time_t)(wake / 1000000000ull),
                              .tv_nsec = (long)(wake % 1000000000ull)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
        }
    }
    return end;
}

/* Learns from a wait: a poll that saw the fence change gives the submit's duration, and
 * so, late by the driver's wake-up, does a sleep in the driver (the expectation moves a
 * quarter of the way to it); a wait whose first poll found the fence signalled slept too
 * long (a sixteenth off). Relaxed: a guess, which racing waiters may each update. */
static void learn(const vk_wait_hint *hint, bool first_ready)
{
    uint64_t old = atomic_load_explicit(hint->expect_ns, memory_order_relaxed), now = vk_now_ns();
    uint64_t took = now > hint->submit_ns ? now - hint->submit_ns : 1, next;
    if (!old)
        next = took;
    else if (first_ready)
        next = old - old / 16;
    else if (took > old)
        next = old + (took - old) / 4;
    else
        next = old - (old - took) / 4;
    atomic_store_explicit(hint->expect_ns, next ? next : 1, memory_order_relaxed);
}

vkml_status vk_stream_wait(vk_device *vd, VkFence fence, uint64_t spin_ns,
                           const vk_wait_hint *hint, vkml_error *err)
{
    vkml_status status = vk_device_check_lost(vd, err);
    if (status != VKML_OK)
        return status;
    VkResult r = VK_NOT_READY;
    bool first_ready = false;
    if (spin_ns) {
        uint64_t end = sleep_to_expected_end(hint), now = vk_now_ns();
        /* past the expected end, poll spin_ns or a sixteenth of the expected time (runs
         * of a few ms vary by that much), whichever is longer */
        uint64_t window = end && (end - hint->submit_ns) / 16 > spin_ns
                              ? (end - hint->submit_ns) / 16
                              : spin_ns;
        r = poll_until(vd, fence, (end > now ? end : now) + window, &first_ready);
    }
    if (r == VK_NOT_READY) {
        VK_AS("vkWaitForFences", vk_fault_wait_fence(vd, fence, true));
    } else {
        VK_AS("vkGetFenceStatus", vk_fault_after_wait(vd, r, true));
    }
    if (hint && spin_ns)
        learn(hint, first_ready);
cleanup:
    return status;
}
