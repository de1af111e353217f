#include "vulkan/vk_stream.h"
#include "vulkan/vk_fault.h"

#include <errno.h>
#include <stdatomic.h>
#include <time.h>

void vk_stream_init(vk_device *vd)
{
    vd->queued_chunks = !(vd->faults && vd->faults->sync_chunks);
}

/* One batch of a submit: cmd, waiting for `wait` (or none), signalling `signal` (or none). */
static VkSubmitInfo batch(const VkCommandBuffer *cmd, const VkSemaphore *wait,
                          const VkSemaphore *signal)
{
    static const VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    return (VkSubmitInfo){
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .waitSemaphoreCount = wait ? 1 : 0,
        .pWaitSemaphores = wait,
        .pWaitDstStageMask = &wait_stage,
        .commandBufferCount = 1,
        .pCommandBuffers = cmd,
        .signalSemaphoreCount = signal ? 1 : 0,
        .pSignalSemaphores = signal,
    };
}

/* Submits n batches to copy queue `which`, or to the main queue where the device has no
 * copy queue; `fence` (or VK_NULL_HANDLE) signals when they have finished. */
static VkResult queue_submit(vk_device *vd, int which, const VkSubmitInfo *si, uint32_t n,
                             VkFence fence, bool run)
{
    bool copy = which >= 0 && vd->copy_queue[which];
    pthread_mutex_t *lock = copy ? vd->copy_lock[which] : &vd->queue_lock;
    pthread_mutex_lock(lock);
    VkResult r =
        vk_fault_queue_submit(vd, copy ? vd->copy_queue[which] : vd->queue, si, n, fence, run);
    pthread_mutex_unlock(lock);
    return r;
}

vkml_status vk_stream_submit(vk_device *vd, const vk_submit *what, VkFence fence, bool run,
                             vkml_error *err)
{
    vkml_status status = vk_device_check_lost(vd, err);
    if (status != VKML_OK)
        return status;
    bool in = what->copy_in, out = what->copy_out;
    VkSubmitInfo si[3];
    uint32_t n = 0;
    if (in)
        si[n++] = batch(&what->copy_in, NULL, &what->copied_in);
    si[n++] = batch(&what->cmd, in ? &what->copied_in : NULL, out ? &what->computed : NULL);
    if (out)
        si[n++] = batch(&what->copy_out, &what->computed, NULL);
    VkResult r;
    if (!vd->copy_queue[VK_COPY_IN]) {
        r = queue_submit(vd, -1, si, n, fence, run);
    } else {
        r = in ? queue_submit(vd, VK_COPY_IN, &si[0], 1, VK_NULL_HANDLE, false) : VK_SUCCESS;
        if (r == VK_SUCCESS)
            r = queue_submit(vd, -1, &si[in], 1, out ? VK_NULL_HANDLE : fence, run);
        if (r == VK_SUCCESS && out)
            r = queue_submit(vd, VK_COPY_OUT, &si[n - 1], 1, fence, false);
    }
    VK_AS("vkQueueSubmit", r);
cleanup:
    return status;
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
        if (vkml_now_ns() >= deadline)
            return VK_NOT_READY;
    }
}

/* The expectation in a hint's word, without its flag. */
static uint64_t expect_of(uint64_t word)
{
    return word & ~VK_WAIT_PROVISIONAL;
}

/* Sleeps on the host's clock until WAKE_MARGIN_NS before the expected end (submit_ns +
 * expect), when that is far enough ahead; a provisional expectation is not slept on.
 * Returns whether it slept. */
static bool sleep_to_expected_end(uint64_t submit_ns, uint64_t word)
{
    uint64_t expect = expect_of(word), end = submit_ns + expect, now = vkml_now_ns();
    if (!expect || (word & VK_WAIT_PROVISIONAL) || end <= now + SLEEP_MIN_NS)
        return false;
    uint64_t wake = end - WAKE_MARGIN_NS;
    struct timespec ts = {.tv_sec = (time_t)(wake / 1000000000ull),
                          .tv_nsec = (long)(wake % 1000000000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
    return true;
}

/* The rule, and why. Oversleeping costs latency, one for one; sleeping too little costs only
 * the CPU that polls the rest of the run. So the expectation falls fast and rises slowly:
 * - VK_WAIT_OVERSLEPT: the submit ended before the wake, by an unknown amount, and every
 *   later wait would sleep as long (a slow warm-up or hiccup taught an expectation many
 *   times the real one; falling a sixteenth a wait cost tens of oversleeping runs). It
 *   halves, and is not above `took` (the submit ended before): k waits undo 2^k times too
 *   much, oversleeping about twice the excess in all. Not further: an oversleep of a few
 *   us (a run shorter than most) is seen the same, and then costs two runs of polling in
 *   all over the next waits.
 *   (Polling the next run whole instead measures it at once, but where the polls slow the
 *   work, lavapipe sharing the cores, the measure is high and every other run overslept:
 *   mnist-8 with 20 us polling 4.0 ms a run against 2.2 halving.)
 * - VK_WAIT_DONE_EARLY: the wait came after the end (no sleep was to blame); took is an
 *   upper bound on the duration, so the expectation is not above it.
 * - VK_WAIT_SEEN (took is the duration, late by the driver's wake-up if it slept there):
 *   the expectation moves a quarter of the way to it (runs jitter), and up by at most a
 *   quarter of itself: one slow run makes the next wait oversleep by a quarter of a run
 *   at most (then the rule above applies).
 * - The first wait of a command buffer is often a warm-up (page faults, lazy allocations):
 *   what it took is only provisional (VK_WAIT_PROVISIONAL), a bound that the next wait
 *   polls within, from its start, without sleeping; a shorter duration it sees is taken
 *   as is (a longer one as by a known expectation). So a slow first run makes no later
 *   wait oversleep, and costs one polled run. */
uint64_t vk_wait_learn(uint64_t old_word, uint64_t took, vk_wait_end how)
{
    uint64_t old = expect_of(old_word), provisional = old_word & VK_WAIT_PROVISIONAL, next;
    took = took ? took : 1;
    if (took >= VK_WAIT_PROVISIONAL)
        took = VK_WAIT_PROVISIONAL - 1; /* 292 years: no clock gets there */
    if (!old)
        return took | VK_WAIT_PROVISIONAL;
    if (how == VK_WAIT_OVERSLEPT)
        next = old / 2 < took ? old / 2 : took;
    else if (how == VK_WAIT_DONE_EARLY)
        next = old < took ? old : took;
    else if (took > old)
        next = old + ((took - old) / 4 < old / 4 ? (took - old) / 4 : old / 4);
    else
        next = provisional ? took : old - (old - took) / 4;
    return (next ? next : 1) | (how == VK_WAIT_DONE_EARLY ? provisional : 0);
}

/* Learns from a wait that ended `how` (vk_wait_learn). Relaxed: a guess, which racing
 * waiters may each update (the flag and the value are one word, so they stay paired). */
static void learn(const vk_wait_hint *hint, vk_wait_end how)
{
    uint64_t old = atomic_load_explicit(hint->expect_ns, memory_order_relaxed), now = vkml_now_ns();
    uint64_t took = now > hint->submit_ns ? now - hint->submit_ns : 1;
    atomic_store_explicit(hint->expect_ns, vk_wait_learn(old, took, how), memory_order_relaxed);
}

vkml_status vk_stream_wait(vk_device *vd, VkFence fence, uint64_t spin_ns, const vk_wait_hint *hint,
                           vkml_error *err)
{
    vkml_status status = vk_device_check_lost(vd, err);
    if (status != VKML_OK)
        return status;
    VkResult r = VK_NOT_READY;
    vk_wait_end how = VK_WAIT_SEEN;
    if (spin_ns) {
        /* one poll first: a fence signalled already needs no sleep, and it tells a late
         * wait from one that overslept */
        bool first_ready = false, slept = false;
        uint64_t word = hint ? atomic_load_explicit(hint->expect_ns, memory_order_relaxed) : 0;
        uint64_t expect = expect_of(word), end = hint && expect ? hint->submit_ns + expect : 0;
        r = poll_until(vd, fence, 0, &first_ready);
        if (r == VK_NOT_READY) {
            slept = hint && sleep_to_expected_end(hint->submit_ns, word);
            /* past the expected end, poll spin_ns or a sixteenth of the expected time
             * (runs of a few ms vary by that much), whichever is longer */
            uint64_t now = vkml_now_ns(), window = expect / 16 > spin_ns ? expect / 16 : spin_ns;
            r = poll_until(vd, fence, (end > now ? end : now) + window, &first_ready);
            how = slept && first_ready ? VK_WAIT_OVERSLEPT : VK_WAIT_SEEN;
        } else {
            how = VK_WAIT_DONE_EARLY;
        }
    }
    if (r == VK_NOT_READY) {
        VK_AS("vkWaitForFences", vk_fault_wait_fence(vd, fence, true));
    } else {
        VK_AS("vkGetFenceStatus", vk_fault_after_wait(vd, r, true));
    }
    if (hint && spin_ns)
        learn(hint, how);
cleanup:
    return status;
}
