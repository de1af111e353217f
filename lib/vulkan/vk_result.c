#include "vulkan/vk_common.h"

const char *vk_result_name(VkResult result)
{
    switch (result) {
#define R(x) case x: return #x;
    R(VK_SUCCESS) R(VK_NOT_READY) R(VK_TIMEOUT) R(VK_INCOMPLETE)
    R(VK_ERROR_OUT_OF_HOST_MEMORY) R(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    R(VK_ERROR_INITIALIZATION_FAILED) R(VK_ERROR_DEVICE_LOST) R(VK_ERROR_MEMORY_MAP_FAILED)
    R(VK_ERROR_LAYER_NOT_PRESENT) R(VK_ERROR_EXTENSION_NOT_PRESENT)
    R(VK_ERROR_FEATURE_NOT_PRESENT) R(VK_ERROR_INCOMPATIBLE_DRIVER)
    R(VK_ERROR_TOO_MANY_OBJECTS) R(VK_ERROR_FORMAT_NOT_SUPPORTED)
    R(VK_ERROR_FRAGMENTED_POOL) R(VK_ERROR_OUT_OF_POOL_MEMORY)
#undef R
    default: return "VkResult (unknown)";
    }
}

vkml_status vk_result_fail(vkml_error *err, VkResult result, const char *call, const char *file,
                           int line)
{
    vkml_status status = VKML_ERROR_DEVICE;
    const char *hint = "";
    if (result == VK_ERROR_DEVICE_LOST) {
        status = VKML_ERROR_DEVICE_LOST;
        hint = " (the GPU was lost: sessions on it must be recreated)";
    } else if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY ||
               result == VK_ERROR_OUT_OF_HOST_MEMORY) {
        status = VKML_ERROR_OUT_OF_MEMORY;
        hint = result == VK_ERROR_OUT_OF_DEVICE_MEMORY ? " (GPU memory exhausted)"
                                                       : " (host memory exhausted)";
    }
    VKML_LOGE("%s:%d: %s failed: %s%s", file, line, call, vk_result_name(result), hint);
    return vkml_fail(err, status, "Vulkan: %s failed: %s%s (%s:%d)", call,
                     vk_result_name(result), hint, file, line);
}
