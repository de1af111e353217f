/* Diagnostic (not a test): the driver's statistics of vkml's compute kernels
 * (VK_KHR_pipeline_executable_properties: registers, spills, shared memory ... as the
 * driver names them), one block per kernel variant whose name contains FILTER.
 *   bench_kernel_stats [FILTER] [DEVICE]   DEVICE: the physical device index (default 0).
 * It opens its own VkDevice with every feature the device has (the kernels' SPIR-V needs
 * float16, 16-bit storage, the memory model, cooperative matrices) and builds each variant
 * from the embedded SPIR-V (shaders/meson.build's table) as vkml would (without the driver's
 * bounds checks where vkml leaves them out: vk_pipeline_robustness), without running it.
 * With KERNEL_STATS_DUMP=DIR it also writes, per variant, the driver's pipeline cache data
 * after building it into a fresh VkPipelineCache (DIR/NAME.cache, the driver's own format;
 * NVIDIA's holds the machine code, which tests/bench/kernel_sass.py disassembles; the
 * driver gives no internal representations). */
#include "vk_kernels.h"
#include "vulkan/vk_coopmat2.h"
#include "vulkan/vk_pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#define PUSH_BYTES 128 /* what every kernel's push block fits (Vulkan guarantees 128) */

/* The bytes to DIR/NAME.SUFFIX. */
static void write_blob(const char *dir, const char *name, const char *suffix, const void *data,
                       size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.%s", dir, name, suffix);
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "bench_kernel_stats: cannot write %s\n", path);
        return;
    }
    fwrite(data, 1, size, f);
    fclose(f);
}

static void print_stats(VkDevice dev, VkPipeline pipe)
{
    PFN_vkGetPipelineExecutablePropertiesKHR props_of =
        (PFN_vkGetPipelineExecutablePropertiesKHR)vkGetDeviceProcAddr(
            dev, "vkGetPipelineExecutablePropertiesKHR");
    PFN_vkGetPipelineExecutableStatisticsKHR stats_of =
        (PFN_vkGetPipelineExecutableStatisticsKHR)vkGetDeviceProcAddr(
            dev, "vkGetPipelineExecutableStatisticsKHR");
    if (!props_of || !stats_of)
        return;
    VkPipelineInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, .pipeline = pipe};
    uint32_t n_exec = 0;
    if (props_of(dev, &pi, &n_exec, NULL) != VK_SUCCESS)
        return;
    for (uint32_t e = 0; e < n_exec; e++) {
        VkPipelineExecutableInfoKHR ei = {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR,
                                          .pipeline = pipe,
                                          .executableIndex = e};
        uint32_t n = 0;
        if (stats_of(dev, &ei, &n, NULL) != VK_SUCCESS || n == 0)
            continue;
        VkPipelineExecutableStatisticKHR *st = calloc(n, sizeof(*st));
        for (uint32_t i = 0; i < n; i++)
            st[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
        if (stats_of(dev, &ei, &n, st) == VK_SUCCESS) {
            for (uint32_t i = 0; i < n; i++) {
                printf("  %s: ", st[i].name);
                switch (st[i].format) {
                case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
                    printf("%s\n", st[i].value.b32 ? "true" : "false");
                    break;
                case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
                    printf("%lld\n", (long long)st[i].value.i64);
                    break;
                case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
                    printf("%llu\n", (unsigned long long)st[i].value.u64);
                    break;
                default: printf("%g\n", st[i].value.f64);
                }
            }
        }
        free(st);
    }
}

int main(int argc, char **argv)
{
    const char *filter = argc > 1 ? argv[1] : "";
    const char *dump = getenv("KERNEL_STATS_DUMP");
    uint32_t want = argc > 2 ? (uint32_t)atoi(argv[2]) : 0;
    VkApplicationInfo ai = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                            .apiVersion = VK_API_VERSION_1_3};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                .pApplicationInfo = &ai};
    VkInstance inst;
    if (vkCreateInstance(&ici, NULL, &inst) != VK_SUCCESS) {
        fprintf(stderr, "bench_kernel_stats: no Vulkan instance\n");
        return 1;
    }
    uint32_t n_phys = 16;
    VkPhysicalDevice phys[16];
    vkEnumeratePhysicalDevices(inst, &n_phys, phys);
    if (want >= n_phys) {
        fprintf(stderr, "bench_kernel_stats: no device %u\n", want);
        return 1;
    }
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR exec = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    VkPhysicalDeviceCooperativeMatrix2FeaturesNV coop2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV,
        .pNext = &exec};
    VkPhysicalDeviceCooperativeMatrixFeaturesKHR coop_khr = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR};
    VkPhysicalDeviceCooperativeMatrixFeaturesNV coop = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV, .pNext = &exec};
    /* gemm_cm2.comp's: VK_KHR_cooperative_matrix and VK_NV_cooperative_matrix2 where offered */
    bool has_cm2 = false, has_robustness = false;
    uint32_t n_dev_ext = 0;
    vkEnumerateDeviceExtensionProperties(phys[want], NULL, &n_dev_ext, NULL);
    VkExtensionProperties *dev_ext = calloc(n_dev_ext ? n_dev_ext : 1, sizeof(*dev_ext));
    if (dev_ext &&
        vkEnumerateDeviceExtensionProperties(phys[want], NULL, &n_dev_ext, dev_ext) == VK_SUCCESS) {
        int found = 0;
        for (uint32_t i = 0; i < n_dev_ext; i++)
            found +=
                strcmp(dev_ext[i].extensionName, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME) == 0 ||
                strcmp(dev_ext[i].extensionName, VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME) == 0;
        has_cm2 = found == 2;
        for (uint32_t i = 0; i < n_dev_ext; i++)
            has_robustness |=
                strcmp(dev_ext[i].extensionName, VK_EXT_PIPELINE_ROBUSTNESS_EXTENSION_NAME) == 0;
    }
    free(dev_ext);
    if (has_cm2) {
        coop_khr.pNext = &coop2;
        coop.pNext = &coop_khr;
    }
    /* vkml's pipelines leave out the driver's bounds checks where the device lets them
     * (vk_probe.c, vk_pipeline_robustness): built the same way here */
    VkPhysicalDevicePipelineRobustnessFeaturesEXT robustness = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_ROBUSTNESS_FEATURES_EXT,
        .pNext = &coop};
    has_robustness = has_robustness && !vkml_env_flag("VKML_CHECKED_BUFFERS");
    VkPhysicalDeviceVulkan13Features f13 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
        .pNext = has_robustness ? (void *)&robustness : (void *)&coop};
    VkPhysicalDeviceVulkan12Features f12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, .pNext = &f13};
    VkPhysicalDeviceVulkan11Features f11 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, .pNext = &f12};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                    .pNext = &f11};
    vkGetPhysicalDeviceFeatures2(phys[want], &f2);
    const char *exts[5];
    uint32_t n_ext = 0;
    if (exec.pipelineExecutableInfo)
        exts[n_ext++] = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
    if (coop.cooperativeMatrix)
        exts[n_ext++] = VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME;
    if (has_cm2 && coop_khr.cooperativeMatrix) {
        exts[n_ext++] = VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME;
        exts[n_ext++] = VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME;
    }
    if (robustness.pipelineRobustness)
        exts[n_ext++] = VK_EXT_PIPELINE_ROBUSTNESS_EXTENSION_NAME;
    float prio = 1;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                   .queueCount = 1,
                                   .pQueuePriorities = &prio};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .pNext = &f2,
                              .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &qci,
                              .enabledExtensionCount = n_ext,
                              .ppEnabledExtensionNames = exts};
    VkDevice dev;
    if (vkCreateDevice(phys[want], &dci, NULL, &dev) != VK_SUCCESS) {
        fprintf(stderr, "bench_kernel_stats: no device\n");
        return 1;
    }
    printf("pipeline statistics: %s\n", exec.pipelineExecutableInfo ? "yes" : "no");
    for (int k = 0; k < VK_KERNEL_COUNT; k++) {
        for (int d = 0; d < VK_DTYPE_SLOTS; d++) {
            int v = vk_kernels[k].variant[d] - 1;
            if (v < 0 || !strstr(vk_spirv_table[v].name, filter))
                continue;
            const vk_spirv *sp = &vk_spirv_table[v];
            VkDescriptorSetLayoutBinding b[8];
            int nb = vk_kernels[k].n_bindings;
            for (int i = 0; i < nb && i < 8; i++)
                b[i] = (VkDescriptorSetLayoutBinding){.binding = (uint32_t)i,
                                                      .descriptorType =
                                                          VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                                      .descriptorCount = 1,
                                                      .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
            VkDescriptorSetLayoutCreateInfo dl = {
                .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                .bindingCount = (uint32_t)nb,
                .pBindings = b};
            VkDescriptorSetLayout set;
            vkCreateDescriptorSetLayout(dev, &dl, NULL, &set);
            VkPushConstantRange pr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, PUSH_BYTES};
            VkPipelineLayoutCreateInfo pl = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                             .setLayoutCount = 1,
                                             .pSetLayouts = &set,
                                             .pushConstantRangeCount = 1,
                                             .pPushConstantRanges = &pr};
            VkPipelineLayout layout;
            vkCreatePipelineLayout(dev, &pl, NULL, &layout);
            VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                           .codeSize = sp->size,
                                           .pCode = sp->code};
            VkShaderModule mod;
            VkPipeline pipe = VK_NULL_HANDLE;
            if (vkCreateShaderModule(dev, &mi, NULL, &mod) == VK_SUCCESS) {
                VkPipelineCache cache = VK_NULL_HANDLE;
                if (dump) {
                    VkPipelineCacheCreateInfo cci = {
                        .sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
                    vkCreatePipelineCache(dev, &cci, NULL, &cache);
                }
                VkComputePipelineCreateInfo ci = {
                    .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
                    .pNext =
                        robustness.pipelineRobustness ? vk_pipeline_robustness(sp->name) : NULL,
                    .flags = exec.pipelineExecutableInfo
                                 ? VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR
                                 : 0,
                    .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                              .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                              .module = mod,
                              .pName = "main"},
                    .layout = layout};
                VkResult r = vkCreateComputePipelines(dev, cache, 1, &ci, NULL, &pipe);
                printf("%s: %s\n", sp->name, r == VK_SUCCESS ? "built" : "failed");
                if (r == VK_SUCCESS)
                    print_stats(dev, pipe);
                if (r == VK_SUCCESS && dump) {
                    size_t size = 0;
                    void *data = NULL;
                    if (vkGetPipelineCacheData(dev, cache, &size, NULL) == VK_SUCCESS && size &&
                        (data = malloc(size)) &&
                        vkGetPipelineCacheData(dev, cache, &size, data) == VK_SUCCESS)
                        write_blob(dump, sp->name, "cache", data, size);
                    free(data);
                }
                vkDestroyPipelineCache(dev, cache, NULL);
                vkDestroyPipeline(dev, pipe, NULL);
                vkDestroyShaderModule(dev, mod, NULL);
            }
            vkDestroyPipelineLayout(dev, layout, NULL);
            vkDestroyDescriptorSetLayout(dev, set, NULL);
        }
    }
    vkDestroyDevice(dev, NULL);
    vkDestroyInstance(inst, NULL);
    return 0;
}
