#pragma once
/*
 * Compute pipelines from the embedded SPIR-V (shaders/, vk_kernels.h), created on first
 * use and cached per device, through a VkPipelineCache. Every kernel shares one
 * descriptor set layout (VK_MAX_BINDINGS storage buffers) and one pipeline layout
 * (VK_PUSH_CONSTANT_BYTES of push constants).
 *
 * Thread-safe (one mutex per device's pipelines).
 */
#include "vulkan/vk_device.h"

struct vk_pipelines {
    VkDevice dev;
    pthread_mutex_t lock;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkPipelineCache cache;
    VkPipeline pipelines[VK_KERNEL_COUNT];
};

vkml_status vk_pipelines_create(vk_device *vd, vk_pipelines **out, vkml_error *err);
void vk_pipelines_destroy(vk_pipelines **p);
/* The pipeline of a kernel, created on first use. */
vkml_status vk_pipeline_get(vk_pipelines *p, vk_kernel_id kernel, VkPipeline *out, vkml_error *err);
