/* The Vulkan instance and one vk_device per physical device with a compute queue. */
#include "device/registry.h"
#include "vulkan/vk_counts.h"
#include "vulkan/vk_device.h"
#include "vulkan/vk_fault.h"
#include "vulkan/vk_gemm_tune.h"
#include "vulkan/vk_memory.h"
#include "vulkan/vk_pipeline.h"
#include "vulkan/vk_stream.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"
/* The smallest output read back by a copy by default (pick_output_copy_min). */
#define VK_OUTPUT_COPY_MIN (1ull << 20)
/* For testing multi-device code on one GPU (or lavapipe): the environment variable
 * VKML_VK_LOGICAL_DEVICES=N opens every physical device as N logical devices, each with
 * its own VkDevice, queue and memory. Default 1; at most VK_MAX_LOGICAL_DEVICES. */
#define VK_LOGICAL_DEVICES_ENV "VKML_VK_LOGICAL_DEVICES"
#define VK_VIRTUAL_DEVICES_ENV "VKML_VIRTUAL_DEVICES" /* the same, by the name issue 7 gives it */
#define VK_MAX_LOGICAL_DEVICES 16

struct vk_context {
    vk_faults faults; /* test hooks, shared by the devices */
    VkInstance instance;
    vk_device **devices;
    int n_devices;
};

static bool layer_available(const char *name)
{
    uint32_t n = 0;
    if (vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS || n == 0)
        return false;
    VkLayerProperties *layers = calloc(n, sizeof(*layers));
    bool found = false;
    if (layers && vkEnumerateInstanceLayerProperties(&n, layers) == VK_SUCCESS) {
        for (uint32_t i = 0; i < n && !found; i++)
            found = strcmp(layers[i].layerName, name) == 0;
    }
    free(layers);
    return found;
}

/* A Vulkan 1.3 instance (gemm_cm2.comp's SPIR-V 1.6: devices below it never get that
 * kernel), with the validation layer or without. */
static VkResult make_instance(bool validation, VkInstance *out)
{
    const char *layers[] = {VALIDATION_LAYER};
    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "vkml",
        .pEngineName = "vkml",
        .apiVersion = VK_API_VERSION_1_3,
    };
    VkInstanceCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pApplicationInfo = &app,
        .enabledLayerCount = validation ? 1 : 0,
        .ppEnabledLayerNames = layers,
    };
    return vkCreateInstance(&ici, NULL, out);
}

/* No loader or no driver is not an error: the context simply has no Vulkan device. */
static VkResult create_instance(const vkml_context_params *params, VkInstance *out)
{
    bool validation = params && params->validation;
    if (validation && !layer_available(VALIDATION_LAYER)) {
        VKML_LOGW("Vulkan: validation requested but %s is not installed", VALIDATION_LAYER);
        validation = false;
    }
    VkResult r = make_instance(validation, out);
    if (r == VK_SUCCESS)
        vk_count_add(VKML_VK_INSTANCE, 1);
    return r;
}

/* The Vulkan drivers stay loaded for the life of the process: an instance made with the
 * first context's and never destroyed holds them. Without it the last context's
 * vkDestroyInstance unloads them (dlclose); when that runs while the process exits (a
 * GStreamer pipeline freed on one of GStreamer's threads as the application returns from
 * main), exit's handlers can call into a driver that is being unmapped. Not counted in
 * vk_counts: it is no context's. */
static VkInstance drivers_anchor;
static pthread_once_t drivers_anchor_once = PTHREAD_ONCE_INIT;

static void keep_drivers_loaded(void)
{
    if (make_instance(false, &drivers_anchor) != VK_SUCCESS)
        drivers_anchor = VK_NULL_HANDLE;
}

/* Where the copy queues (vk_device.copy_queue) come from: a family and the index there of
 * the first; n of them (0: none, 1: one for both directions, 2). */
typedef struct copy_queues {
    uint32_t family, first, n;
} copy_queues;

/* Whether environment variable `name` is `value`. */
static bool env_is(const char *name, const char *value)
{
    const char *v = getenv(name);
    return v && strcmp(v, value) == 0;
}

/* The copy queues: in a transfer-only family where the device has one (its copy engines,
 * which take no compute units from the kernels), up to two; else up to two more queues of
 * the compute family after the kernels' queue. VKML_COPY_QUEUES=compute keeps them in the
 * compute family; VKML_NO_COPY_QUEUE=1 opens none. */
static copy_queues plan_copy_queues(const vk_device *vd)
{
    copy_queues q = {.family = vd->queue_family, .first = 1, .n = 0};
    if (vkml_env_flag("VKML_NO_COPY_QUEUE"))
        return q;
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(vd->phys, &n, NULL);
    VkQueueFamilyProperties fam[32];
    n = n < 32 ? n : 32;
    vkGetPhysicalDeviceQueueFamilyProperties(vd->phys, &n, fam);
    for (uint32_t i = 0; i < n && !env_is("VKML_COPY_QUEUES", "compute"); i++) {
        VkQueueFlags f = fam[i].queueFlags;
        if ((f & VK_QUEUE_TRANSFER_BIT) && !(f & (VK_QUEUE_COMPUTE_BIT | VK_QUEUE_GRAPHICS_BIT)) &&
            fam[i].queueCount > 0)
            return (copy_queues){.family = i, .first = 0, .n = fam[i].queueCount < 2 ? 1 : 2};
    }
    uint32_t have = vd->queue_family < n ? fam[vd->queue_family].queueCount : 1;
    q.n = have < 2 ? 0 : have - 1 < 2 ? have - 1 : 2;
    return q;
}

/* Which outputs are read back by a copy (vk_device.output_copy_min): on a discrete GPU
 * with a copy queue of its own, those of at least VK_OUTPUT_COPY_MIN bytes; elsewhere
 * none (lavapipe's or an integrated GPU's device memory is host memory, and without a
 * copy queue the copy would run on the kernels' queue). VKML_OUTPUT_COPY_MIN=BYTES sets
 * the size on any device (0: every output; tests use it), =off turns it off. */
static uint64_t pick_output_copy_min(const vk_device *vd)
{
    const char *v = getenv("VKML_OUTPUT_COPY_MIN");
    if (v && *v) {
        char *end = NULL;
        unsigned long long bytes = strtoull(v, &end, 10);
        if (strcmp(v, "off") == 0)
            return UINT64_MAX;
        if (*end == '\0')
            return bytes;
        VKML_LOGW("VKML_OUTPUT_COPY_MIN='%s' is neither a byte count nor 'off': taken as off", v);
        return UINT64_MAX;
    }
    bool discrete = vd->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
    return discrete && vd->copy_queue[VK_COPY_OUT] ? VK_OUTPUT_COPY_MIN : UINT64_MAX;
}

vkml_status vk_device_open(vk_device *vd, vkml_error *err)
{
    vkml_status status = VKML_OK;
    const float priorities[3] = {1.0f, 1.0f, 1.0f};
    copy_queues copies = plan_copy_queues(vd);
    bool own_family = copies.family != vd->queue_family;
    VkDeviceQueueCreateInfo qci[2] = {
        {
            .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
            .queueFamilyIndex = vd->queue_family,
            .queueCount = 1 + (own_family ? 0 : copies.n),
            .pQueuePriorities = priorities,
        },
        {
            .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
            .queueFamilyIndex = copies.family,
            .queueCount = copies.n,
            .pQueuePriorities = priorities,
        },
    };
    vd->copy_family = copies.family;
    const char *extensions[6];
    uint32_t n_extensions = 0;
    if (vd->has_memory_budget)
        extensions[n_extensions++] = VK_EXT_MEMORY_BUDGET_EXTENSION_NAME;
    if (vd->has_host_import)
        extensions[n_extensions++] = VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME;
    /* gemm_coop.comp's extension (vk_kernels.h: VK_COOP_KHR); gemm_cm2.comp's two */
    if (vd->caps.cooperative_matrix)
        extensions[n_extensions++] = VK_COOP_KHR ? VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME
                                                 : VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME;
    if (vd->caps.coopmat2) {
        if (!VK_COOP_KHR)
            extensions[n_extensions++] = VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME;
        extensions[n_extensions++] = VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME;
    }
    if (vd->robustness.pipelineRobustness)
        extensions[n_extensions++] = VK_EXT_PIPELINE_ROBUSTNESS_EXTENSION_NAME;
    bool features2 = vd->props.apiVersion >= VK_API_VERSION_1_2;
    VkDeviceCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = features2 ? &vd->features2 : NULL,
        .queueCreateInfoCount = own_family ? 2 : 1,
        .pQueueCreateInfos = qci,
        .enabledExtensionCount = n_extensions,
        .ppEnabledExtensionNames = extensions,
    };
    VK_CREATE(VKML_VK_DEVICE, vkCreateDevice(vd->phys, &dci, NULL, &vd->dev));
    vkGetDeviceQueue(vd->dev, vd->queue_family, 0, &vd->queue);
    for (uint32_t k = 0; copies.n && k < 2; k++) {
        uint32_t nth = copies.n == 2 ? k : 0;
        vkGetDeviceQueue(vd->dev, copies.family, copies.first + nth, &vd->copy_queue[k]);
        vd->copy_lock[k] = &vd->copy_queue_locks[nth];
    }
    vd->output_copy_min = pick_output_copy_min(vd);
    vd->base.info.copy_queues = (int)copies.n;
    vd->base.info.copy_engines = copies.n && own_family;
    if (copies.n)
        VKML_LOGD("Vulkan device '%s': %u copy queue(s) in %s family %u", vd->base.info.name,
                  copies.n, own_family ? "the transfer" : "the compute", copies.family);
    if (vd->has_host_import) {
        vd->get_host_pointer_props = (PFN_vkGetMemoryHostPointerPropertiesEXT)vkGetDeviceProcAddr(
            vd->dev, "vkGetMemoryHostPointerPropertiesEXT");
        if (!vd->get_host_pointer_props) {
            vd->has_host_import = false;
            vd->base.host_share_align = 0;
        }
    }
    pthread_mutex_init(&vd->queue_lock, NULL);
    pthread_mutex_init(&vd->copy_queue_locks[0], NULL);
    pthread_mutex_init(&vd->copy_queue_locks[1], NULL);
    vd->queue_lock_init = true;
    vk_stream_init(vd);
    pthread_mutex_init(&vd->consts_lock, NULL);
    vd->consts_lock_init = true;
    pthread_mutex_init(&vd->tune_lock, NULL);
    vd->tune_lock_init = true;
    VKML_TRY(vk_allocator_create(vd, &vd->alloc, err));
    /* views start where a binding may: the allocator's alignment (16 bytes at least, the
     * storage buffer offset alignment) */
    vd->base.view_align = vk_allocator_alignment(vd->alloc);
    VKML_TRY(vk_pipelines_create(vd, &vd->pipes, err));
cleanup:
    if (status != VKML_OK)
        vkml_error_prefix(err, "opening Vulkan device '%s'", vd->base.info.name);
    return status;
}

void vk_device_close(vk_device *vd)
{
    if (!vd)
        return;
    if (vd->dev)
        vkDeviceWaitIdle(vd->dev);
    vk_pipelines_destroy(&vd->pipes);
    vk_allocator_destroy(&vd->alloc);
    if (vd->queue_lock_init) {
        pthread_mutex_destroy(&vd->queue_lock);
        pthread_mutex_destroy(&vd->copy_queue_locks[0]);
        pthread_mutex_destroy(&vd->copy_queue_locks[1]);
    }
    if (vd->consts_lock_init)
        pthread_mutex_destroy(&vd->consts_lock);
    if (vd->tune_lock_init)
        pthread_mutex_destroy(&vd->tune_lock);
    vk_gemm_tune_free(vd);
    if (vd->dev) {
        vkDestroyDevice(vd->dev, NULL);
        vk_count_add(VKML_VK_DEVICE, -1);
    }
    free(vd);
}

/* vkml_context_params.logical_devices_per_gpu, overridden by the environment. */
static int logical_devices_per_gpu(const vkml_context_params *params)
{
    int n = params && params->logical_devices_per_gpu > 0 ? params->logical_devices_per_gpu : 1;
    const char *env = getenv(VK_LOGICAL_DEVICES_ENV);
    if (!env)
        env = getenv(VK_VIRTUAL_DEVICES_ENV);
    if (env)
        n = atoi(env);
    if (n < 1 || n > VK_MAX_LOGICAL_DEVICES) {
        VKML_LOGW("%d logical devices per GPU ignored (1 to %d)", n, VK_MAX_LOGICAL_DEVICES);
        n = 1;
    }
    return n;
}

/* Probes and opens one physical device as logical device `copy` (0 .. n-1); a device that
 * cannot be opened is skipped with a warning, so one broken driver does not hide the
 * others. */
static void add_device(vk_context *vk, const vkml_context_params *params, VkPhysicalDevice phys,
                       int copy, int copies)
{
    vk_device *vd = calloc(1, sizeof(*vd));
    if (!vd)
        return;
    vd->base.cls = &vk_device_class;
    if (!vk_probe_device(vk->instance, phys, vk->n_devices, vd)) {
        free(vd);
        return;
    }
    if (copies > 1) {
        size_t len = strlen(vd->base.info.name);
        snprintf(vd->base.info.name + len, sizeof(vd->base.info.name) - len, " (logical %d/%d)",
                 copy + 1, copies);
    }
    vd->faults = &vk->faults;
    const char *keep = getenv("VKML_KEEP_AFFINITY");
    vd->keep_affinity =
        (params && params->keep_thread_affinity) || (keep && strcmp(keep, "1") == 0);
    if (vd->base.info.irq_cpu >= 0)
        VKML_LOGI("Vulkan device '%s': its interrupts go to CPU %d; threads polling it %s",
                  vd->base.info.name, vd->base.info.irq_cpu,
                  vd->keep_affinity ? "keep their affinity (keep_thread_affinity)"
                                    : "are moved off that CPU");
    if (params && params->device_memory_limit)
        vd->caps.memory_budget = params->device_memory_limit;
    vd->base.memory_budget = vd->caps.memory_budget;
    vkml_error err = {0};
    if (vk_device_open(vd, &err) != VKML_OK) {
        VKML_LOGW("skipping Vulkan device: %s", err.message);
        vk_device_close(vd);
        return;
    }
    vk->devices[vk->n_devices++] = vd;
}

static vkml_status enumerate_devices(vk_context *vk, const vkml_context_params *params,
                                     vkml_error *err)
{
    vkml_status status = VKML_OK;
    uint32_t n = 0;
    VkPhysicalDevice *phys = NULL;
    VK(vkEnumeratePhysicalDevices(vk->instance, &n, NULL));
    int copies = logical_devices_per_gpu(params);
    phys = calloc(n ? n : 1, sizeof(*phys));
    vk->devices = calloc(n ? (size_t)n * (size_t)copies : 1, sizeof(*vk->devices));
    if (!phys || !vk->devices) {
        status = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan: out of host memory");
        goto cleanup;
    }
    VK(vkEnumeratePhysicalDevices(vk->instance, &n, phys));
    for (uint32_t i = 0; i < n; i++)
        for (int c = 0; c < copies; c++)
            add_device(vk, params, phys[i], c, copies);
cleanup:
    free(phys);
    return status;
}

vkml_status vk_context_create(const vkml_context_params *params, vk_context **out, vkml_error *err)
{
    vk_context *vk = calloc(1, sizeof(*vk));
    if (!vk)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan: out of host memory");
    *out = vk;
    vk_faults_init(&vk->faults);
    if (params && params->disable_vulkan)
        return VKML_OK;
    VkResult r = create_instance(params, &vk->instance);
    if (r != VK_SUCCESS) {
        VKML_LOGI("Vulkan: no instance (%s): only the CPU device is available", vk_result_name(r));
        vk->instance = VK_NULL_HANDLE;
        return VKML_OK;
    }
    pthread_once(&drivers_anchor_once, keep_drivers_loaded);
    vkml_status status = enumerate_devices(vk, params, err);
    if (status != VKML_OK)
        vk_context_destroy(out);
    return status;
}

void vk_context_destroy(vk_context **pvk)
{
    vk_context *vk = pvk ? *pvk : NULL;
    if (!vk)
        return;
    for (int i = 0; i < vk->n_devices; i++)
        vk_device_close(vk->devices[i]);
    free(vk->devices);
    if (vk->instance) {
        vkDestroyInstance(vk->instance, NULL);
        vk_count_add(VKML_VK_INSTANCE, -1);
    }
    free(vk);
    *pvk = NULL;
}

int vk_context_device_count(const vk_context *vk)
{
    return vk ? vk->n_devices : 0;
}

device *vk_context_device(vk_context *vk, int index)
{
    if (!vk || index < 0 || index >= vk->n_devices)
        return NULL;
    return &vk->devices[index]->base;
}

static vkml_status vk_kind_open(const vkml_context_params *params, void **handle, vkml_error *err)
{
    vk_context *vk = NULL;
    vkml_status st = VKML_OK;
    if (!params || !params->disable_vulkan)
        st = vk_context_create(params, &vk, err);
    *handle = vk;
    return st;
}

static int vk_kind_count(const void *handle)
{
    return vk_context_device_count(handle);
}

static device *vk_kind_get(void *handle, int i)
{
    return vk_context_device(handle, i);
}

static void vk_kind_close(void **handle)
{
    vk_context *vk = *handle;
    vk_context_destroy(&vk);
    *handle = NULL;
}

static bool vk_kind_kernel_for(const op_def *op, uint32_t *dtypes)
{
    const gpu_kernel *k = vk_kernel_for(op);
    *dtypes = k ? k->dtypes : 0;
    return k != NULL;
}

const device_kind vulkan_device_kind = {
    .name = "Vulkan",
    .open = vk_kind_open,
    .count = vk_kind_count,
    .get = vk_kind_get,
    .close = vk_kind_close,
    .kernel_for = vk_kind_kernel_for,
};
