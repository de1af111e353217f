/* For tests of vkml's Vulkan layer from inside (lib/vulkan): its context, opened on every
 * Vulkan device, or exit through test_missing when there is none. */
#pragma once
#include "testutil.h"
#include "vulkan/vk_device.h"

static inline vk_context *test_vk_context(void)
{
    vk_context *vk = NULL;
    vkml_error err = {0};
    CHECK_OK(vk_context_create(NULL, &vk, &err), &err);
    if (!vk || vk_context_device_count(vk) < 1) {
        vk_context_destroy(&vk);
        test_missing(TEST_VULKAN_DEVICE);
    }
    return vk;
}
