#pragma once
/* Shared by the Vulkan layer: Vulkan headers, the VK() error macro, tunables. */
#include "core/common.h"

#include <vulkan/vulkan.h>

/* Turns a failed VkResult into a vkml status and message naming the call, file and line:
 * DEVICE_LOST -> VKML_ERROR_DEVICE_LOST, out of host/device memory ->
 * VKML_ERROR_OUT_OF_MEMORY, anything else VKML_ERROR_DEVICE. Also logs it. */
vkml_status vk_result_fail(vkml_error *err, VkResult result, const char *call, const char *file,
                           int line);
const char *vk_result_name(VkResult result);

/* Runs a Vulkan call; on failure sets `status` (a vkml_status in scope), fills `err` and
 * jumps to the function's `cleanup` label. */
#define VK(call)                                                                                   \
    do {                                                                                           \
        VkResult vk_result_ = (call);                                                              \
        if (vk_result_ != VK_SUCCESS) {                                                            \
            status = vk_result_fail(err, vk_result_, #call, __FILE__, __LINE__);                   \
            goto cleanup;                                                                          \
        }                                                                                          \
    } while (0)

/* VK() for a wrapper of a Vulkan call (vk_fault.h), named in the message as `name`. */
#define VK_AS(name, call)                                                                          \
    do {                                                                                           \
        VkResult vk_result_ = (call);                                                              \
        if (vk_result_ != VK_SUCCESS) {                                                            \
            status = vk_result_fail(err, vk_result_, name, __FILE__, __LINE__);                    \
            goto cleanup;                                                                          \
        }                                                                                          \
    } while (0)

/* Like VK() for a vkml call that returns a status. */
#define VKML_TRY(call)                                                                             \
    do {                                                                                           \
        status = (call);                                                                           \
        if (status != VKML_OK)                                                                     \
            goto cleanup;                                                                          \
    } while (0)

/* Storage buffer bindings per kernel (set 0, bindings 0..VK_MAX_BINDINGS-1). 6: QLinearConv's
 * implicit GEMM (x, w, bias, the weights' scales and zero points, y); 5
 * (VK_RESIDUAL_BINDINGS): the Conv/Gemm/MatMul kernels' fused residual. A device whose
 * maxPerStageDescriptorStorageBuffers is lower (Vulkan's minimum is 4) gets a layout of
 * that many and refuses the kernels that bind more (gpu_caps.max_bindings). */
#define VK_MAX_BINDINGS 6
#define VK_RESIDUAL_BINDINGS 5
/* Push constant bytes a pipeline layout declares: the device's maxPushConstantsSize up to
 * this (Vulkan guarantees 128; lavapipe and desktop GPUs give 256). vk_push_constant_bytes
 * says what a device has; a lowering whose block is larger refuses the node. */
#define VK_PUSH_CONSTANT_MAX 256
/* Invocations per workgroup of the 1-D kernels (WG_SIZE in shaders/common/index.glsl). */
#define VK_WG_SIZE_1D 64
