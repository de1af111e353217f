#pragma once
/*
 * Compute pipelines from the embedded SPIR-V (shaders/, vk_kernels.h), created on first
 * use and cached per device, through a VkPipelineCache. Every kernel shares one
 * descriptor set layout (VK_MAX_BINDINGS storage buffers) and one pipeline layout
 * (vk_push_constant_bytes of push constants). One pipeline per kernel variant
 * (kernel x dtype, vk_spirv_table).
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
    VkPipeline pipelines[VK_VARIANT_COUNT];
};

vkml_status vk_pipelines_create(vk_device *vd, vk_pipelines **out, vkml_error *err);
void vk_pipelines_destroy(vk_pipelines **p);
/* The pipeline of a kernel variant (index into vk_spirv_table), created on first use. */
vkml_status vk_pipeline_get(vk_pipelines *p, int variant, VkPipeline *out, vkml_error *err);
