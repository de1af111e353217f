#pragma once
/* One Vulkan device: a physical device, its VkDevice and compute queue, its memory
 * allocator and pipeline cache. Created by the context (vk_context.c); implements the
 * device interface of lib/device/device.h (vk_device.c, vk_session*.c). */
#include "device/device.h"
#include "vulkan/vk_coopmat2.h"
#include "vulkan/vk_ops.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct vk_allocator vk_allocator;
typedef struct vk_faults vk_faults;
typedef struct vk_pipelines vk_pipelines;

enum { VK_COPY_IN = 0, VK_COPY_OUT = 1 };

typedef struct vk_device {
    device base; /* first: the planner sees a device */
    VkPhysicalDevice phys;
    VkDevice dev;
    VkQueue queue;
    uint32_t queue_family;
    pthread_mutex_t queue_lock; /* vkQueueSubmit needs external sync of the queue */
    bool queue_lock_init;
    /* Queues for the copies between this device's memory and the host memory it shares
     * with other devices (vk_stream.h, vk_submit): [VK_COPY_IN] the copies in of values
     * another device made, [VK_COPY_OUT] the copies out of values it made, so that they
     * run beside the kernels queued before or after them. From a transfer-only family
     * where there is one, else from the compute family; both are one queue where only one
     * could be had; VK_NULL_HANDLE where none could (or under VKML_NO_COPY_QUEUE=1): the
     * copies then go to `queue`, in the same submit. */
    VkQueue copy_queue[2];
    /* Their family: queue_family, or a transfer-only one (vk_context.c, plan_copy_queues);
     * where it differs, every buffer is shared by both families (VK_SHARING_MODE_CONCURRENT)
     * and sessions record the copies from a command pool of that family. */
    uint32_t copy_family;
    pthread_mutex_t *copy_lock[2]; /* each copy queue's lock (one where they are one) */
    /* Values the host reads back that this device writes (graph outputs) of at least this
     * many bytes are written by the kernels to device memory, then copied to host memory
     * on copy_queue[VK_COPY_OUT] (vk_session_memory.c, read_back_value); UINT64_MAX: none
     * (vk_context.c, pick_output_copy_min, says when). */
    uint64_t output_copy_min;
    pthread_mutex_t copy_queue_locks[2]; /* initialised with queue_lock */
    /* The stream (vk_stream.h): session chunks are queued without a host wait between
     * them; false only under the VKML_TEST_SYNC_CHUNKS hook. */
    bool queued_chunks;
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceMemoryProperties mem_props;
    struct gpu_caps caps;
    /* The shader features vkml enables (those of caps that are true), as a pNext chain
     * for vkCreateDevice: features2 -> f16_int8 -> s16 -> s8. */
    VkPhysicalDeviceFeatures2 features2;
    VkPhysicalDeviceShaderFloat16Int8Features f16_int8;
    VkPhysicalDevice16BitStorageFeatures s16;
    VkPhysicalDevice8BitStorageFeatures s8;
    /* With caps.cooperative_matrix, prepended to the chain: features2 -> coop -> memory_model
     * -> f16_int8 ...; the extension gemm_coop.comp was built on enabled on dev
     * (VK_COOP_KHR: VK_KHR_cooperative_matrix, coop's sType the KHR one; else
     * VK_NV_cooperative_matrix). */
    VkPhysicalDeviceCooperativeMatrixFeaturesNV coop;
    /* With caps.coopmat2, prepended again: features2 -> coop2.khr -> coop2.nv2 -> coop ...
     * (coop2.khr left out with VK_COOP_KHR: coop is that); VK_KHR_cooperative_matrix and
     * VK_NV_cooperative_matrix2 enabled on dev. */
    vk_coopmat2_features coop2;
    VkPhysicalDeviceVulkanMemoryModelFeatures memory_model;
    /* With VK_EXT_pipeline_robustness (robustness.pipelineRobustness), prepended to the
     * chain last (features2 -> robustness -> ...) and the extension enabled on dev: pipelines
     * are created without the driver's bounds checks on their buffers (vk_pipeline.h's
     * vk_pipeline_robustness says which; VKML_CHECKED_BUFFERS=1: none). */
    VkPhysicalDevicePipelineRobustnessFeaturesEXT robustness;
    bool has_memory_budget; /* VK_EXT_memory_budget, enabled on dev */
    bool has_host_import;   /* VK_EXT_external_memory_host, enabled on dev (vk_memory.h:
                               vk_mem_import_host) */
    PFN_vkGetMemoryHostPointerPropertiesEXT get_host_pointer_props;
    vk_allocator *alloc;
    vk_pipelines *pipes;
    vk_faults *faults; /* test hooks of the context (vk_fault.h) */
    /* vkml_context_params.keep_thread_affinity: a thread polling this device stays on
     * base.info.irq_cpu if it runs there (vk_event_wait) */
    bool keep_affinity;
    atomic_long submits; /* counted for the device-lost hook */
    atomic_long waits;
    atomic_long run_waits; /* host waits of session runs, for the device-lost hook */
    atomic_long runs;      /* submits of session runs, for the device-lost hook */
    atomic_bool lost;      /* a submit or wait reported VK_ERROR_DEVICE_LOST */
    /* Constants shared by the device's sessions (vk_consts.h), under consts_lock. */
    pthread_mutex_t consts_lock;
    bool consts_lock_init;
    struct vk_const *consts;
    /* Product kernels chosen by measurement (vk_gemm_tune.h), under tune_lock. */
    pthread_mutex_t tune_lock;
    bool tune_lock_init;
    struct vk_gemm_tune *tune;
} vk_device;

extern const device_class vk_device_class;

/* vk_probe.c: fills base.info and caps from the physical device; picks the queue family
 * (compute-only preferred). false when the device has no compute queue. instance: for
 * the extension queries (vkGetPhysicalDeviceCooperativeMatrixPropertiesNV). */
bool vk_probe_device(VkInstance instance, VkPhysicalDevice phys, int index, vk_device *vd);
/* Whether the physical device offers the extension. */
bool vk_has_device_extension(VkPhysicalDevice phys, const char *name);

/* vk_context.c: creates the VkDevice, queue, allocator and pipelines of a probed device. */
vkml_status vk_device_open(vk_device *vd, vkml_error *err);
/* Frees everything vk_device_open made and the vk_device itself. */
void vk_device_close(vk_device *vd);

/* vk_session*.c (vk_session.h) */
vkml_status vk_session_create(device *dev, const device_session_desc *desc, device_session **out,
                              vkml_error *err);
void *vk_session_host_ptr(device_session *ds, int value);
vkml_status vk_session_submit(device_session *ds, int chunk, device_event *done, vkml_error *err);
vkml_status vk_event_wait(device_event ev, uint64_t spin_ns, vkml_error *err);
vkml_status vk_session_node_times(device_session *ds, int chunk, double *node_us, vkml_error *err);
void vk_session_destroy(device_session **ds);
device_memory_use vk_session_memory(const device_session *ds);

/* Vulkan devices (lib/vulkan/vk_context.c): an instance and one device per physical
 * device with a compute queue. A missing loader or no devices gives count 0, not an
 * error. */
typedef struct vk_context vk_context;
vkml_status vk_context_create(const vkml_context_params *params, vk_context **out, vkml_error *err);
void vk_context_destroy(vk_context **vk);
int vk_context_device_count(const vk_context *vk);
device *vk_context_device(vk_context *vk, int index);
