/* Reads what a physical device is and offers: vkml_device_info and gpu_caps. */
#include "vulkan/vk_coopmat2.h"
#include "vulkan/vk_device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Share of the free device-local memory vkml plans to use (of what VK_EXT_memory_budget
 * reports free, else of the heap size). */
#define VK_MEMORY_BUDGET_PERCENT 95

static const char *vendor_name(uint32_t id)
{
    switch (id) {
    case 0x10de: return "NVIDIA";
    case 0x1002: return "AMD";
    case 0x1022: return "AMD";
    case 0x8086: return "Intel";
    case 0x13b5: return "ARM";
    case 0x5143: return "Qualcomm";
    case 0x1010: return "ImgTec";
    case 0x106b: return "Apple";
    case 0x10005: return "Mesa";
    case 0x10002: return "VeriSilicon";
    default: return "unknown";
    }
}

static vkml_device_type device_type(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return VKML_DEVICE_TYPE_DISCRETE_GPU;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return VKML_DEVICE_TYPE_INTEGRATED_GPU;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return VKML_DEVICE_TYPE_VIRTUAL_GPU;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return VKML_DEVICE_TYPE_VULKAN_CPU;
    default: return VKML_DEVICE_TYPE_OTHER;
    }
}

/* A compute-only family (async compute on discrete GPUs) when there is one, else the
 * first family with compute. -1 when none. */
static int pick_queue_family(VkPhysicalDevice phys)
{
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &n, NULL);
    VkQueueFamilyProperties *fam = calloc(n ? n : 1, sizeof(*fam));
    if (!fam)
        return -1;
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &n, fam);
    int any = -1, compute_only = -1;
    for (uint32_t i = 0; i < n; i++) {
        VkQueueFlags f = fam[i].queueFlags;
        if (!(f & VK_QUEUE_COMPUTE_BIT) || fam[i].queueCount == 0)
            continue;
        if (any < 0)
            any = (int)i;
        if (!(f & VK_QUEUE_GRAPHICS_BIT) && compute_only < 0)
            compute_only = (int)i;
    }
    free(fam);
    return compute_only >= 0 ? compute_only : any;
}

static uint64_t device_local_bytes(const VkPhysicalDeviceMemoryProperties *mp)
{
    uint64_t best = 0;
    for (uint32_t i = 0; i < mp->memoryHeapCount; i++) {
        if ((mp->memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) &&
            mp->memoryHeaps[i].size > best)
            best = mp->memoryHeaps[i].size;
    }
    return best;
}

bool vk_has_device_extension(VkPhysicalDevice phys, const char *name)
{
    uint32_t n = 0;
    if (vkEnumerateDeviceExtensionProperties(phys, NULL, &n, NULL) != VK_SUCCESS || n == 0)
        return false;
    VkExtensionProperties *ext = calloc(n, sizeof(*ext));
    bool found = false;
    if (ext && vkEnumerateDeviceExtensionProperties(phys, NULL, &n, ext) == VK_SUCCESS) {
        for (uint32_t i = 0; i < n && !found; i++)
            found = strcmp(ext[i].extensionName, name) == 0;
    }
    free(ext);
    return found;
}

/* Bytes free in the largest device-local heap, by VK_EXT_memory_budget when the device
 * has it, else the heap size. */
static uint64_t free_device_memory(vk_device *vd)
{
    if (!vd->has_memory_budget)
        return vd->base.info.memory_bytes;
    VkPhysicalDeviceMemoryBudgetPropertiesEXT budget = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT,
    };
    VkPhysicalDeviceMemoryProperties2 mp2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2,
        .pNext = &budget,
    };
    vkGetPhysicalDeviceMemoryProperties2(vd->phys, &mp2);
    uint64_t best = 0, best_size = 0;
    for (uint32_t i = 0; i < mp2.memoryProperties.memoryHeapCount; i++) {
        const VkMemoryHeap *h = &mp2.memoryProperties.memoryHeaps[i];
        if (!(h->flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) || h->size <= best_size)
            continue;
        best_size = h->size;
        best = budget.heapBudget[i] > budget.heapUsage[i]
                   ? budget.heapBudget[i] - budget.heapUsage[i]
                   : 0;
    }
    return best;
}

/* VK_EXT_external_memory_host: the device can use host memory the plan allocates, so a
 * value copied between devices needs no host copy (plan.c, share_transfers). */
static void probe_host_import(vk_device *vd)
{
    if (!vk_has_device_extension(vd->phys, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME) ||
        vd->props.apiVersion < VK_API_VERSION_1_1)
        return;
    VkPhysicalDeviceExternalMemoryHostPropertiesEXT host = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT};
    VkPhysicalDeviceProperties2 props = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                         .pNext = &host};
    vkGetPhysicalDeviceProperties2(vd->phys, &props);
    size_t align = (size_t)host.minImportedHostPointerAlignment;
    if (align == 0 || (align & (align - 1)) != 0 || align > (1u << 21))
        return;
    vd->has_host_import = true;
    vd->base.host_share_align = align;
}

static void probe_caps(vk_device *vd)
{
    const VkPhysicalDeviceLimits *lim = &vd->props.limits;
    struct gpu_caps *c = &vd->caps;
    c->max_workgroup_invocations = lim->maxComputeWorkGroupInvocations;
    for (int i = 0; i < 3; i++) {
        c->max_workgroup_size[i] = lim->maxComputeWorkGroupSize[i];
        c->max_workgroup_count[i] = lim->maxComputeWorkGroupCount[i];
    }
    c->max_push_constants = lim->maxPushConstantsSize;
    c->max_bindings = lim->maxPerStageDescriptorStorageBuffers < VK_MAX_BINDINGS
                          ? lim->maxPerStageDescriptorStorageBuffers
                          : VK_MAX_BINDINGS;
    c->max_shared_memory = lim->maxComputeSharedMemorySize;
    c->max_storage_buffer_range = lim->maxStorageBufferRange;
    c->storage_offset_alignment = lim->minStorageBufferOffsetAlignment;

    VkPhysicalDeviceSubgroupProperties sub = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES,
    };
    VkPhysicalDeviceProperties2 p2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
        .pNext = &sub,
    };
    VkPhysicalDevice8BitStorageFeatures s8 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES,
    };
    VkPhysicalDeviceShaderFloat16Int8Features f16 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES,
        .pNext = &s8,
    };
    VkPhysicalDevice16BitStorageFeatures s16 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
        .pNext = &f16,
    };
    VkPhysicalDeviceFeatures2 f2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
        .pNext = &s16,
    };
    /* The *2 queries are core in 1.1; vkml's kernels target 1.1 anyway. */
    if (vd->props.apiVersion >= VK_API_VERSION_1_1) {
        vkGetPhysicalDeviceProperties2(vd->phys, &p2);
        c->subgroup_size = sub.subgroupSize;
        c->subgroup_lanes32 = sub.subgroupSize >= 32 &&
                              (sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                              (sub.supportedOperations & VK_SUBGROUP_FEATURE_CLUSTERED_BIT);
        c->subgroup_arith = (sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                            (sub.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT);
        if (vd->props.apiVersion >= VK_API_VERSION_1_2) {
            vkGetPhysicalDeviceFeatures2(vd->phys, &f2);
            c->fp16 = f16.shaderFloat16 && s16.storageBuffer16BitAccess;
            c->storage8 = s8.storageBuffer8BitAccess && f16.shaderInt8;
            c->storage16 = s16.storageBuffer16BitAccess && f2.features.shaderInt16;
        }
    }
    c->int64 = f2.features.shaderInt64;
    c->float64 = f2.features.shaderFloat64;
    /* What vk_device_open enables: exactly the features caps reports. */
    vd->s8 = (VkPhysicalDevice8BitStorageFeatures){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES,
        .storageBuffer8BitAccess = c->storage8,
    };
    vd->s16 = (VkPhysicalDevice16BitStorageFeatures){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
        .pNext = &vd->s8,
        .storageBuffer16BitAccess = c->storage16 || c->fp16,
    };
    vd->f16_int8 = (VkPhysicalDeviceShaderFloat16Int8Features){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES,
        .pNext = &vd->s16,
        .shaderFloat16 = c->fp16,
        .shaderInt8 = c->storage8,
    };
    vd->features2 = (VkPhysicalDeviceFeatures2){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
        .pNext = &vd->f16_int8,
        .features = {.shaderInt64 = c->int64,
                     .shaderFloat64 = c->float64,
                     .shaderInt16 = c->storage16},
    };
    c->prefer_tiled = vd->props.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU &&
                      c->max_shared_memory >= VK_GEMM_SHARED_BYTES;
    vd->has_memory_budget = vk_has_device_extension(vd->phys, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
    probe_host_import(vd);
    c->memory_budget = free_device_memory(vd) / 100 * VK_MEMORY_BUDGET_PERCENT;
}

/* Timestamps on the chosen queue family (profiled sessions, vk_record.h). */
static void probe_timestamps(vk_device *vd)
{
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(vd->phys, &n, NULL);
    VkQueueFamilyProperties *fam = calloc(n ? n : 1, sizeof(*fam));
    if (!fam)
        return;
    vkGetPhysicalDeviceQueueFamilyProperties(vd->phys, &n, fam);
    uint32_t bits = vd->queue_family < n ? fam[vd->queue_family].timestampValidBits : 0;
    free(fam);
    vd->caps.timestamp_bits = bits;
    vd->caps.timestamps = bits > 0 && vd->props.limits.timestampPeriod > 0;
}

/* A cooperative-matrix shape a kernel uses, at subgroup scope: M x N x K, A and B of one
 * type, C and the result of another (the KHR and NV enumerants have the same values). */
typedef struct coop_want {
    uint32_t m, n, k;
    VkComponentTypeNV ab, cd;
} coop_want;
/* gemm_coop.comp's: 16x16x16, float16 A and B, float32 C and result */
static const coop_want coop_f16 = {VK_COOP_FRAGMENT, VK_COOP_FRAGMENT, VK_COOP_FRAGMENT,
                                   VK_COMPONENT_TYPE_FLOAT16_NV, VK_COMPONENT_TYPE_FLOAT32_NV};
/* qmatmul_coop.comp's: 16x16x32, int8 A and B, int32 C and result */
static const coop_want coop_i8 = {16, 16, 32, VK_COMPONENT_TYPE_SINT8_NV,
                                  VK_COMPONENT_TYPE_SINT32_NV};

static bool coop_shape(uint32_t m, uint32_t n, uint32_t k, VkComponentTypeNV a, VkComponentTypeNV b,
                       VkComponentTypeNV c, VkComponentTypeNV d, VkScopeNV scope,
                       const coop_want *w)
{
    return m == w->m && n == w->n && k == w->k && a == w->ab && b == w->ab && c == w->cd &&
           d == w->cd && scope == VK_SCOPE_SUBGROUP_NV;
}

/* Whether the device lists shape w, through the extension gemm_coop.comp was built on. */
static bool lists_coop_shape(VkInstance instance, VkPhysicalDevice phys, const coop_want *w)
{
    uint32_t n = 0;
    bool found = false;
#if VK_COOP_KHR
    PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR get =
        (PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR)vkGetInstanceProcAddr(
            instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR");
    if (!get || get(phys, &n, NULL) != VK_SUCCESS || n == 0)
        return false;
    VkCooperativeMatrixPropertiesKHR *props = calloc(n, sizeof(*props));
    if (!props)
        return false;
    for (uint32_t i = 0; i < n; i++)
        props[i].sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR;
    if (get(phys, &n, props) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++)
            found =
                !props[i].saturatingAccumulation &&
                coop_shape(props[i].MSize, props[i].NSize, props[i].KSize, props[i].AType,
                           props[i].BType, props[i].CType, props[i].ResultType, props[i].scope, w);
#else
    PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV get =
        (PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV)vkGetInstanceProcAddr(
            instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV");
    if (!get || get(phys, &n, NULL) != VK_SUCCESS || n == 0)
        return false;
    VkCooperativeMatrixPropertiesNV *props = calloc(n, sizeof(*props));
    if (!props)
        return false;
    for (uint32_t i = 0; i < n; i++)
        props[i].sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV;
    if (get(phys, &n, props) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++)
            found = coop_shape(props[i].MSize, props[i].NSize, props[i].KSize, props[i].AType,
                               props[i].BType, props[i].CType, props[i].DType, props[i].scope, w);
#endif
    free(props);
    return found;
}

/* caps.cooperative_matrix: gemm_coop.comp was built and the device runs it (the extension it
 * was built on, VK_KHR_cooperative_matrix with Vulkan 1.3 or VK_NV_cooperative_matrix, with
 * its feature and shape; the Vulkan memory model its SPIR-V declares, float16 arithmetic,
 * subgroups of 32, its shared memory); VKML_NO_COOPMAT=1 turns it off. Then the features go
 * first in the chain vk_device_open enables. */
static void probe_coopmat(VkInstance instance, vk_device *vd)
{
    struct gpu_caps *c = &vd->caps;
    c->cooperative_matrix = false;
    c->coop_int8 = false;
    const char *extension = VK_COOP_KHR ? VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME
                                        : VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME;
    if (vkml_env_flag("VKML_NO_COOPMAT") || !instance ||
        vk_kernel_variant(VK_KERNEL_GEMM_COOP_64X64, VKML_DTYPE_FLOAT16) < 0 ||
        vd->props.apiVersion < (VK_COOP_KHR ? VK_API_VERSION_1_3 : VK_API_VERSION_1_2) ||
        !c->fp16 || c->subgroup_size != VK_COOP_SUBGROUP ||
        c->max_shared_memory < VK_COOP_SHARED_BYTES ||
        !vk_has_device_extension(vd->phys, extension))
        return;
    /* the two extensions' properties and features have the same members */
    VkPhysicalDeviceCooperativeMatrixPropertiesNV cprops = {
        .sType = VK_COOP_KHR ? VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_PROPERTIES_KHR
                             : VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_PROPERTIES_NV,
    };
    VkPhysicalDeviceProperties2 p2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
        .pNext = &cprops,
    };
    VkPhysicalDeviceVulkanMemoryModelFeatures mm = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES,
    };
    VkPhysicalDeviceCooperativeMatrixFeaturesNV cf = {
        .sType = VK_COOP_KHR ? VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR
                             : VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV,
        .pNext = &mm,
    };
    VkPhysicalDeviceFeatures2 f2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
        .pNext = &cf,
    };
    vkGetPhysicalDeviceProperties2(vd->phys, &p2);
    vkGetPhysicalDeviceFeatures2(vd->phys, &f2);
    if (!cf.cooperativeMatrix || !mm.vulkanMemoryModel ||
        !(cprops.cooperativeMatrixSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT) ||
        !lists_coop_shape(instance, vd->phys, &coop_f16))
        return;
    c->cooperative_matrix = true;
    /* qmatmul_coop.comp: built on VK_KHR_cooperative_matrix only; VKML_NO_COOP_INT8=1 keeps
     * qmatmul.comp */
    c->coop_int8 = VK_COOP_KHR && c->storage8 && !vkml_env_flag("VKML_NO_COOP_INT8") &&
                   vk_kernel_variant(VK_KERNEL_MATMUL_INTEGER_COOP, VKML_DTYPE_INT8) >= 0 &&
                   lists_coop_shape(instance, vd->phys, &coop_i8);
    VKML_LOGD("Vulkan device '%s': int8 cooperative matrices for the integer products: %s",
              vd->base.info.name, c->coop_int8 ? "yes" : "no");
    vd->memory_model = (VkPhysicalDeviceVulkanMemoryModelFeatures){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES,
        .pNext = vd->features2.pNext,
        .vulkanMemoryModel = VK_TRUE,
        .vulkanMemoryModelDeviceScope = mm.vulkanMemoryModelDeviceScope,
    };
    vd->coop = (VkPhysicalDeviceCooperativeMatrixFeaturesNV){
        .sType = cf.sType,
        .pNext = &vd->memory_model,
        .cooperativeMatrix = VK_TRUE,
    };
    vd->features2.pNext = &vd->coop;
}

/* VK_EXT_pipeline_robustness: pipelines whose storage buffers' accesses the driver does
 * not check (NVIDIA's checks each one by default; vkml's kernels keep theirs inside their
 * buffers). VKML_CHECKED_BUFFERS=1 keeps the driver's checks. */
static void probe_robustness(vk_device *vd)
{
    if (vkml_env_flag("VKML_CHECKED_BUFFERS") ||
        !vk_has_device_extension(vd->phys, VK_EXT_PIPELINE_ROBUSTNESS_EXTENSION_NAME))
        return;
    VkPhysicalDevicePipelineRobustnessFeaturesEXT rf = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_ROBUSTNESS_FEATURES_EXT,
    };
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                    .pNext = &rf};
    vkGetPhysicalDeviceFeatures2(vd->phys, &f2);
    if (!rf.pipelineRobustness)
        return;
    vd->robustness = rf;
    vd->robustness.pNext = vd->features2.pNext;
    vd->features2.pNext = &vd->robustness;
    VKML_LOGD(
        "Vulkan device '%s': storage buffers unchecked by the driver (VK_EXT_pipeline_robustness)",
        vd->base.info.name);
}

/* The CPU that services the device's interrupts (core/irq_cpu.c), by its PCI address
 * (VK_EXT_pci_bus_info); -1 without one (lavapipe). */
static int probe_irq_cpu(const vk_device *vd)
{
    if (!vk_has_device_extension(vd->phys, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME))
        return -1;
    VkPhysicalDevicePCIBusInfoPropertiesEXT pci = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT,
    };
    VkPhysicalDeviceProperties2 p2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
        .pNext = &pci,
    };
    vkGetPhysicalDeviceProperties2(vd->phys, &p2);
    return vkml_pci_irq_cpu(pci.pciDomain, pci.pciBus, pci.pciDevice, pci.pciFunction);
}

bool vk_probe_device(VkInstance instance, VkPhysicalDevice phys, int index, vk_device *vd)
{
    vd->phys = phys;
    vkGetPhysicalDeviceProperties(phys, &vd->props);
    vkGetPhysicalDeviceMemoryProperties(phys, &vd->mem_props);
    int family = pick_queue_family(phys);
    if (family < 0 || vd->props.apiVersion < VK_API_VERSION_1_1)
        return false;
    vd->queue_family = (uint32_t)family;

    vkml_device_info *info = &vd->base.info;
    info->index = index;
    snprintf(info->name, sizeof(info->name), "%s", vd->props.deviceName);
    snprintf(info->vendor, sizeof(info->vendor), "%s", vendor_name(vd->props.vendorID));
    info->vendor_id = vd->props.vendorID;
    info->type = device_type(vd->props.deviceType);
    info->memory_bytes = device_local_bytes(&vd->mem_props);
    info->api_version = vd->props.apiVersion;
    info->irq_cpu = probe_irq_cpu(vd);
    probe_caps(vd);
    probe_timestamps(vd);
    probe_coopmat(instance, vd);
    vk_probe_coopmat2(instance, vd);
    probe_robustness(vd);
    return true;
}
