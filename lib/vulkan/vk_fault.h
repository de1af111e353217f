#pragma once
/*
 * Fault injection for tests, read from the environment at context creation (test hooks,
 * not a feature: documented in docs/reliability.md "Faults"):
 *
 *   VKML_TEST_FAIL_ALLOC=N       the Nth vkAllocateMemory of the context (1-based, counted
 *                                over all its devices) returns VK_ERROR_OUT_OF_DEVICE_MEMORY
 *   VKML_TEST_DEVICE_LOST=submit[:N[:D]] | wait[:N[:D]] | run[:N[:D]] | runwait[:N[:D]]
 *                                the Nth vkQueueSubmit (or host wait: a fence wait or a
 *                                poll of vk_stream_wait, or submit of a
 *                                session run) on Vulkan device D (default N 1, D 0) returns
 *                                VK_ERROR_DEVICE_LOST (a wait first really waits, so no
 *                                work is left behind). "run" skips the uploads a session's
 *                                creation submits (discrete GPUs stage their constants;
 *                                host-visible memory does not), so it hits the same run
 *                                on every device; "runwait" likewise counts only the host
 *                                waits of session runs.
 *
 *   VKML_TEST_SYNC_CHUNKS=1      devices do not queue session chunks: each one is
 *                                submitted and fence-waited on its own (the synchronous
 *                                path, for comparison; vk_stream.h)
 *
 * And the device-lost state: once a submit or wait reports VK_ERROR_DEVICE_LOST, the
 * device is marked lost and every later submit, wait and session creation on it fails
 * at once with VKML_ERROR_DEVICE_LOST.
 */
#include "vulkan/vk_device.h"

typedef enum vk_lost_at {
    VK_LOST_NEVER = 0,
    VK_LOST_AT_SUBMIT,
    VK_LOST_AT_WAIT,
    VK_LOST_AT_RUN,      /* a submit of vk_session_run */
    VK_LOST_AT_RUN_WAIT, /* a host wait of a session run */
} vk_lost_at;

/* Shared by the devices of one context. */
typedef struct vk_faults {
    long fail_alloc_at; /* 0: off */
    atomic_long allocs; /* vkAllocateMemory calls so far */
    vk_lost_at lost_at;
    long lost_nth;
    int lost_device;
    bool sync_chunks;
} vk_faults;

/* Parses the environment; logs and ignores malformed values. */
void vk_faults_init(vk_faults *f);

VkResult vk_fault_allocate_memory(vk_device *vd, const VkMemoryAllocateInfo *info,
                                  VkDeviceMemory *out);
/* vkQueueSubmit of n batches to `queue` (vd->queue or vd->copy_queue); the caller holds
 * that queue's lock. `run`: a session run's submit (vk_submit_wait). */
VkResult vk_fault_queue_submit(vk_device *vd, VkQueue queue, const VkSubmitInfo *si, uint32_t n,
                               VkFence fence, bool run);
VkResult vk_fault_wait_fence(vk_device *vd, VkFence fence, bool run);
/* The result of a host wait that has returned r, with the "wait" hook applied. */
VkResult vk_fault_after_wait(vk_device *vd, VkResult r, bool run);

/* VKML_ERROR_DEVICE_LOST naming the device when it was lost before; else VKML_OK. */
vkml_status vk_device_check_lost(vk_device *vd, vkml_error *err);
