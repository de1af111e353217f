#include "vulkan/vk_common.h"

#define RESULT_NAME(x)                                                                             \
    {                                                                                              \
        x, #x                                                                                      \
    }
static const struct {
    VkResult result;
    const char *name;
} result_names[] = {
    RESULT_NAME(VK_SUCCESS),
    RESULT_NAME(VK_NOT_READY),
    RESULT_NAME(VK_TIMEOUT),
    RESULT_NAME(VK_INCOMPLETE),
    RESULT_NAME(VK_ERROR_OUT_OF_HOST_MEMORY),
    RESULT_NAME(VK_ERROR_OUT_OF_DEVICE_MEMORY),
    RESULT_NAME(VK_ERROR_INITIALIZATION_FAILED),
    RESULT_NAME(VK_ERROR_DEVICE_LOST),
    RESULT_NAME(VK_ERROR_MEMORY_MAP_FAILED),
    RESULT_NAME(VK_ERROR_LAYER_NOT_PRESENT),
    RESULT_NAME(VK_ERROR_EXTENSION_NOT_PRESENT),
    RESULT_NAME(VK_ERROR_FEATURE_NOT_PRESENT),
    RESULT_NAME(VK_ERROR_INCOMPATIBLE_DRIVER),
    RESULT_NAME(VK_ERROR_TOO_MANY_OBJECTS),
    RESULT_NAME(VK_ERROR_FORMAT_NOT_SUPPORTED),
    RESULT_NAME(VK_ERROR_FRAGMENTED_POOL),
    RESULT_NAME(VK_ERROR_OUT_OF_POOL_MEMORY),
};
#undef RESULT_NAME

const char *vk_result_name(VkResult result)
{
    for (size_t i = 0; i < VKML_ARRAY_SIZE(result_names); i++)
        if (result_names[i].result == result)
            return result_names[i].name;
    return "VkResult (unknown)";
}

vkml_status vk_result_fail(vkml_error *err, VkResult result, const char *call, const char *file,
                           int line)
{
    vkml_status status = VKML_ERROR_DEVICE;
    const char *hint = "";
    if (result == VK_ERROR_DEVICE_LOST) {
        status = VKML_ERROR_DEVICE_LOST;
        hint = " (the device was lost: its sessions are dead; a new context opens it anew)";
    } else if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY) {
        status = VKML_ERROR_OUT_OF_MEMORY;
        hint = result == VK_ERROR_OUT_OF_DEVICE_MEMORY ? " (GPU memory exhausted)"
                                                       : " (host memory exhausted)";
    }
    VKML_LOGE("%s:%d: %s failed: %s%s", file, line, call, vk_result_name(result), hint);
    return vkml_fail(err, status, "Vulkan: %s failed: %s%s (%s:%d)", call, vk_result_name(result),
                     hint, file, line);
}
