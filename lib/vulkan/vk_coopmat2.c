/* Workgroup-scope cooperative matrices: the device probe (vk_coopmat2.h). */
#include "vulkan/vk_coopmat2.h"
#include "vulkan/ops_gemm.h"
#include "vulkan/vk_device.h"

#include <stdlib.h>
#include <string.h>

/* The bits of vk_cm2_tiles whose sizes and invocations a listed flexible-dimensions entry
 * takes: float16 A and B, float32 C and result, workgroup scope. */
static uint32_t usable_tiles(VkInstance instance, VkPhysicalDevice phys, const char *name)
{
    PFN_vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV get =
        (PFN_vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV)
            vkGetInstanceProcAddr(
                instance, "vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV");
    uint32_t n = 0, tiles = 0;
    if (!get || get(phys, &n, NULL) != VK_SUCCESS || n == 0)
        return 0;
    VkCooperativeMatrixFlexibleDimensionsPropertiesNV *props = calloc(n, sizeof(*props));
    if (!props)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        props[i].sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_FLEXIBLE_DIMENSIONS_PROPERTIES_NV;
    if (get(phys, &n, props) == VK_SUCCESS) {
        for (uint32_t i = 0; i < n; i++) {
            const VkCooperativeMatrixFlexibleDimensionsPropertiesNV *p = &props[i];
            VKML_LOGD("Vulkan device '%s': flexible cooperative matrices %ux%ux%u, types %d %d "
                      "%d %d, scope %d, %u invocations",
                      name, p->MGranularity, p->NGranularity, p->KGranularity, (int)p->AType,
                      (int)p->BType, (int)p->CType, (int)p->ResultType, (int)p->scope,
                      p->workgroupInvocations);
            if (p->AType != VK_COMPONENT_TYPE_FLOAT16_NV ||
                p->BType != VK_COMPONENT_TYPE_FLOAT16_NV ||
                p->CType != VK_COMPONENT_TYPE_FLOAT32_NV ||
                p->ResultType != VK_COMPONENT_TYPE_FLOAT32_NV || p->saturatingAccumulation ||
                p->scope != VK_SCOPE_WORKGROUP_NV || !p->MGranularity || !p->NGranularity ||
                !p->KGranularity)
                continue;
            for (int t = 0; t < VK_CM2_TILES; t++) {
                const vk_cm2_tile *c = &vk_cm2_tiles[t];
                if ((uint32_t)c->threads == p->workgroupInvocations &&
                    c->bm % (int)p->MGranularity == 0 && c->bn % (int)p->NGranularity == 0 &&
                    c->bk % (int)p->KGranularity == 0)
                    tiles |= 1u << t;
            }
        }
    }
    free(props);
    return tiles;
}

void vk_probe_coopmat2(VkInstance instance, vk_device *vd)
{
    struct gpu_caps *c = &vd->caps;
    c->coopmat2 = false;
    c->cm2_tiles = 0;
    if (vkml_env_flag("VKML_NO_COOPMAT2") || !instance || !c->cooperative_matrix ||
        vk_kernel_variant(VK_KERNEL_GEMM_CM2_64X64, VKML_DTYPE_FLOAT16) < 0 ||
        vd->props.apiVersion < VK_API_VERSION_1_3 || !c->fp16 ||
        !vk_has_device_extension(vd->phys, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME) ||
        !vk_has_device_extension(vd->phys, VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME))
        return;
    VkPhysicalDeviceCooperativeMatrix2PropertiesNV props = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_PROPERTIES_NV,
    };
    VkPhysicalDeviceProperties2 p2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
        .pNext = &props,
    };
    VkPhysicalDeviceCooperativeMatrix2FeaturesNV nv2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV,
    };
    VkPhysicalDeviceCooperativeMatrixFeaturesKHR khr = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR,
        .pNext = &nv2,
    };
    VkPhysicalDeviceFeatures2 f2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
        .pNext = &khr,
    };
    vkGetPhysicalDeviceProperties2(vd->phys, &p2);
    vkGetPhysicalDeviceFeatures2(vd->phys, &f2);
    if (!khr.cooperativeMatrix || !nv2.cooperativeMatrixWorkgroupScope ||
        !nv2.cooperativeMatrixFlexibleDimensions || !nv2.cooperativeMatrixTensorAddressing ||
        !nv2.cooperativeMatrixPerElementOperations)
        return;
    uint32_t tiles = usable_tiles(instance, vd->phys, vd->base.info.name);
    for (int t = 0; t < VK_CM2_TILES; t++)
        if ((uint32_t)vk_cm2_tiles[t].threads >
                props.cooperativeMatrixWorkgroupScopeMaxWorkgroupSize ||
            (uint32_t)vk_cm2_tiles[t].threads > c->max_workgroup_invocations)
            tiles &= ~(1u << t);
    VKML_LOGD("Vulkan device '%s': workgroup-scope cooperative matrices, tiles 0x%x of "
              "gemm_cm2.comp (%u invocations at most, %u bytes of shared memory reserved)",
              vd->base.info.name, tiles, props.cooperativeMatrixWorkgroupScopeMaxWorkgroupSize,
              props.cooperativeMatrixWorkgroupScopeReservedSharedMemory);
    if (!tiles)
        return;
    c->coopmat2 = true;
    c->cm2_tiles = tiles;
    vd->coop2.nv2 = (VkPhysicalDeviceCooperativeMatrix2FeaturesNV){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV,
        .pNext = vd->features2.pNext,
        .cooperativeMatrixWorkgroupScope = VK_TRUE,
        .cooperativeMatrixFlexibleDimensions = VK_TRUE,
        .cooperativeMatrixPerElementOperations = VK_TRUE,
        .cooperativeMatrixTensorAddressing = VK_TRUE,
    };
    vd->features2.pNext = &vd->coop2.nv2;
    if (VK_COOP_KHR) /* vd->coop already enables VK_KHR_cooperative_matrix's feature */
        return;
    vd->coop2.khr = (VkPhysicalDeviceCooperativeMatrixFeaturesKHR){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR,
        .pNext = &vd->coop2.nv2,
        .cooperativeMatrix = VK_TRUE,
    };
    vd->features2.pNext = &vd->coop2.khr;
}
