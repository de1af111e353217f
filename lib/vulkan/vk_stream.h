#pragma once
/*
 * A device's stream: its compute queue (with, for the copies of values shared with other
 * devices, its copy queues: vk_submit below). A session chunk is submitted behind what the
 * queue holds (its command buffer starts with a barrier on earlier chunks' writes), with
 * the chunk's fence; a host wait for the chunk polls that fence, then sleeps on it. A
 * fence's signal covers every command submitted to the queue before it, so waiting for
 * the last chunk of a run waits for all of them.
 *
 * Waiting long: on the H200 a wait that sleeps in the driver wakes 90 to 220 us after the
 * fence is signalled on runs of 1 to 2 ms (ResNet-50 2.19 ms host to host against 2.10
 * polled to the end; EfficientNet-B0 2.06 against 1.84), far more than an empty submit's
 * 30 us. Polling the whole run would cost a core per stream. So a wait with a hint (the
 * submit's time and what earlier submits of the same command buffer took, vk_wait_hint)
 * sleeps on a host timer until shortly before the expected end, then polls up to spin_ns
 * (or a sixteenth of the expected time, if longer) past it, and only then sleeps in the
 * driver. The expectation learns from every wait's end (exact when a poll saw it), falling
 * fast and rising slowly (oversleeping costs latency, polling only CPU): a wait whose
 * first poll after its sleep finds the fence signalled slept too long and halves it; a
 * longer run moves it up a quarter of the way, by a quarter of itself at most; the first
 * wait's time (often a slow warm-up) only bounds the second wait, which polls without
 * sleeping (vk_wait_learn has the rule and the reasons).
 *
 * Why fences and not a timeline semaphore: on the H200 (NVIDIA driver, Vulkan 1.4.312),
 * submits that signalled one timeline semaphore woke blocked host waits (on the semaphore
 * or on the submit's fence) late whenever two runs were in flight: mnist-8 made 317 to
 * 2,026 runs/s with 2 in flight against 18,127 with plain fences (and 10,900 with one in
 * flight either way); polling the counter for 200 us hid it. Fences wake at once.
 *
 * Concurrency table:
 *   vk_stream_init: one thread (device open).
 *   vk_stream_submit: any thread; the queue is under queue_lock.
 *   vk_stream_wait: any thread, any number at once, each on a fence no one resets meanwhile;
 *     a hint's expectation is one relaxed atomic (a guess: racing updates may drop one).
 */
#include "vulkan/vk_device.h"

#include <stdatomic.h>

/* Chunks are queued without waiting, unless the VKML_TEST_SYNC_CHUNKS hook says to submit
 * and wait for each one (vk_fault.h). */
void vk_stream_init(vk_device *vd);

/* What one submit runs: cmd, the kernels, and around it, where not VK_NULL_HANDLE, the
 * copies cmd reads the results of (copy_in, which signals the binary semaphore copied_in
 * that cmd waits for before any of its commands starts) and the copies of cmd's results
 * (copy_out, which waits for the semaphore computed that cmd signals). Semaphores
 * unsignalled and unwaited when submitted. */
typedef struct vk_submit {
    VkCommandBuffer copy_in;
    VkSemaphore copied_in;
    VkCommandBuffer cmd;
    VkSemaphore computed;
    VkCommandBuffer copy_out;
} vk_submit;

/* Submits `what` with `fence` (unsignalled), which is signalled when all of it has
 * finished: cmd goes to the device's queue; the copies go to its copy queues where it has
 * them (vk_device.copy_queue), so that they run beside the kernels queued before and after
 * cmd (the other runs in flight), else to the same queue in the same vkQueueSubmit. `run`:
 * a session run's submit (the device-lost hook's "run" kind counts these). */
vkml_status vk_stream_submit(vk_device *vd, const vk_submit *what, VkFence fence, bool run,
                             vkml_error *err);
/* What a wait knows of its submit: when it was made (vkml_now_ns) and, shared by every
 * submit of the same command buffer, how long such a submit takes to finish (0: not known
 * yet; start it at 0 and leave it to vk_stream_wait), with VK_WAIT_PROVISIONAL set while
 * the value is only a bound to poll within, not to sleep on. */
typedef struct vk_wait_hint {
    uint64_t submit_ns;
    _Atomic uint64_t *expect_ns;
} vk_wait_hint;

/* The expectation word's flag: the value is a bound from a first wait, maybe a warm-up. */
#define VK_WAIT_PROVISIONAL (1ull << 63)

/* How a polling wait ended. */
typedef enum vk_wait_end {
    VK_WAIT_SEEN,       /* a poll saw the fence signalled, or the driver's sleep ended */
    VK_WAIT_DONE_EARLY, /* the first poll, before any sleep, found it signalled */
    VK_WAIT_OVERSLEPT,  /* the first poll after a sleep on the host timer found it signalled */
} vk_wait_end;

/* The expectation word (vk_wait_hint.expect_ns) after a wait whose submit took `took` ns
 * to be seen finished, ending `how` (the rule is in vk_stream.c). Pure; for tests too. */
uint64_t vk_wait_learn(uint64_t old_word, uint64_t took, vk_wait_end how);

/* Blocks until `fence` is signalled. spin_ns 0: sleeps in the driver at once (and learns
 * nothing). Otherwise polls once; if not signalled, with a hint whose expectation is known
 * and not provisional, sleeps until shortly before the expected end; then polls until
 * spin_ns (or a sixteenth of the expected time) past the later of now and that end; then
 * sleeps in the driver. */
vkml_status vk_stream_wait(vk_device *vd, VkFence fence, uint64_t spin_ns, const vk_wait_hint *hint,
                           vkml_error *err);
