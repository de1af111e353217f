#pragma once
/*
 * A device's stream: its one compute queue. A session chunk is submitted behind what the
 * queue holds (its command buffer starts with a barrier on earlier chunks' writes), with
 * the chunk's fence; a host wait for the chunk polls that fence, then sleeps on it. A
 * fence's signal covers every command submitted to the queue before it, so waiting for
 * the last chunk of a run waits for all of them.
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
 *   vk_stream_wait: any thread, any number at once, each on a fence no one resets meanwhile.
 */
#include "vulkan/vk_device.h"

/* Chunks are queued without waiting, unless the VKML_TEST_SYNC_CHUNKS hook says to submit
 * and wait for each one (vk_fault.h). */
void vk_stream_init(vk_device *vd);

/* Submits cmd with `fence` (unsignalled), which is signalled when it has finished. `run`: a
 * session run's submit (the device-lost hook's "run" kind counts these). */
vkml_status vk_stream_submit(vk_device *vd, VkCommandBuffer cmd, VkFence fence, bool run,
                             vkml_error *err);
/* Polls `fence` for up to spin_ns, then blocks on it until it is signalled. */
vkml_status vk_stream_wait(vk_device *vd, VkFence fence, uint64_t spin_ns, vkml_error *err);
