#pragma once
/*
 * A device's stream: its one compute queue and a timeline semaphore that every submit of
 * a session chunk signals with the next value. Signal operations of one queue happen in
 * submission order, so a value reached means every chunk submitted before it is done too.
 *
 * Concurrency table:
 *   vk_stream_init / vk_stream_destroy: one thread (device open and close).
 *   vk_stream_submit: any thread; the queue and the value counter are under queue_lock.
 *   vk_stream_wait: any thread, any number at once (semaphore waits need no external sync).
 */
#include "vulkan/vk_device.h"

/* Creates the timeline semaphore when the device has them (Vulkan 1.2 timelineSemaphore);
 * without, session chunks fall back to a fence wait per submit. */
vkml_status vk_stream_init(vk_device *vd, vkml_error *err);
void vk_stream_destroy(vk_device *vd);

/* Submits cmd; *value is the timeline value reached when it has finished; `fence` (or
 * VK_NULL_HANDLE), unsignalled, is signalled then too. `run`: a session run's submit (the
 * device-lost hook's "run" kind counts these). */
vkml_status vk_stream_submit(vk_device *vd, VkCommandBuffer cmd, VkFence fence, bool run,
                             uint64_t *value, vkml_error *err);
/* Polls the timeline for up to spin_ns, then blocks until `value`: on `fence` (signalled
 * with that value) when given, else in vkWaitSemaphores. The NVIDIA driver (H200, Vulkan
 * 1.4.312) wakes blocked vkWaitSemaphores callers late when several threads wait at once:
 * mnist-8 with 2 runs in flight and no polling made 317 runs/s against 18,127 with fence
 * waits; fences wake at once. */
vkml_status vk_stream_wait(vk_device *vd, uint64_t value, VkFence fence, uint64_t spin_ns,
                           vkml_error *err);
