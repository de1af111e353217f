#pragma once
/* A Vulkan device_session (the device interface's session, lib/device/device.h): memory for
 * every value the device uses, and one command buffer per chunk, recorded once at creation
 * and re-submitted by every run. Private to its files, split by concern:
 *   vk_session.c          creation and destruction
 *   vk_session_memory.c   value memory: transients by liveness, host-visible and host-shared
 *                         values, read-backs, aliases and views
 *   vk_session_consts.c   constants: weight packing and upload, shared between sessions
 *   vk_session_record.c   recording each chunk's command buffers
 *   vk_session_submit.c   submission, waits and per-node times
 * The entry points the device interface calls are declared in vk_device.h.
 */
#include "vulkan/vk_device.h"
#include "vulkan/vk_memory.h"

#include <stdatomic.h>

typedef struct vk_chunk {
    /* the kernels, and the copies around them (record_shared_copies): copy_in, of values
     * another device made, into this device's memory, which cmd reads; copy_out, of values
     * cmd made, out to the host memory another device reads them from; VK_NULL_HANDLE
     * where there are none. The semaphores order them (vk_stream.h, vk_submit). */
    VkCommandBuffer cmd, copy_in, copy_out;
    VkSemaphore copied_in, computed;
    /* Signalled when the chunk's submit has finished: host waits use them. Submits take
     * them in turn (cur: the last one's), so that the wait for one submit resets the
     * other, while the GPU runs, instead of the next submit resetting the fence it takes
     * (vk_event_wait). pending[k]: submitted since its last reset. Touched by the chunk's
     * submitter and then its waiter, which the scheduler orders (a task's wait follows
     * its submit; the lane's next run follows the last wait of its run). */
    VkFence fences[2];
    bool pending[2];
    int cur;
    VkDescriptorPool pool;
    VkQueryPool timestamps; /* profiled sessions: n_nodes + 1 (vk_record.h, vk_rec_profile) */
    int n_nodes;
    vk_mem *scratch; /* the recorder's scratch buffers (vk_rec_scratch) */
    int n_scratch;
    uint64_t submit_ns;         /* when it was last submitted (its submitter writes it before
                                   the event is published) */
    _Atomic uint64_t expect_ns; /* how long its submits take to finish (vk_stream.h) */
} vk_chunk;

struct device_session {
    vk_device *vd;
    int n_values;
    vk_mem *mem;       /* per value; aliases copy their root's range */
    bool *owned;       /* mem[i] was allocated for value i (else shared or unused) */
    bool *shared;      /* value i is a constant in the device's shared buffers: set once
                          its reference is held (vk_consts.h) */
    bool *want_shared; /* value i is to be one (a device-local constant root) */
    bool *packed; /* value i: conv weights uploaded packed over taps (vk_session_mark_packed) */
    /* Per value, the host memory that holds it between runs and chunks where its device
     * memory (mem) is not host-visible: the plan's shared host allocation (shared_host)
     * imported (share_value), or cached host memory the value is read back into
     * (read_back_value); aliases copy their root's. */
    vk_mem *host_copy;
    bool *host_copy_owned; /* host_copy[i] was made for value i */
    int *copy_in_chunk;    /* per value: the chunk that copies host_copy[i] into mem[i] before its
                              kernels (a shared value this device only reads), or -1 */
    int *copy_out_chunk;   /* per value: the chunk that copies mem[i] out to host_copy[i] after
                              its kernels (a value this device writes), or -1 */
    vk_mem transients;     /* the range shared by transient values (device/mem_plan.h) */
    device_memory_use memory_use;
    VkCommandPool cmd_pool;
    VkCommandPool copy_pool; /* of the copy queues' family (vk_device.copy_family) */
    vk_chunk *chunks;
    int n_chunks;
};

/* The bytes of value v (its dtype and concrete shape); an error where the shape is not
 * concrete. */
vkml_status vk_session_value_bytes(const device_session_desc *desc, int v, size_t *out,
                                   vkml_error *err);
/* Allocates every root value and points aliases and views at their root's range
 * (vk_session_memory.c). */
vkml_status vk_session_allocate_values(device_session *s, const device_session_desc *desc,
                                       vkml_error *err);
/* Marks the constants uploaded packed over taps (vk_session_consts.c). */
void vk_session_mark_packed(device_session *s, const device_session_desc *desc);
/* Finds, adds and uploads the session's constants (vk_session_consts.c). */
vkml_status vk_session_upload_constants(device_session *s, const device_session_desc *desc,
                                        vkml_error *err);
/* Records chunk `index`: its kernels' command buffer and the copies around it
 * (vk_session_record.c). */
vkml_status vk_session_record_chunk(device_session *s, const device_session_desc *desc, int index,
                                    vkml_error *err);
