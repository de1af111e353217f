#pragma once
/*
 * Compute pipelines from the embedded SPIR-V (shaders/, vk_kernels.h), created on first
 * use and cached per device, through a VkPipelineCache. Every kernel shares one
 * descriptor set layout (VK_MAX_BINDINGS storage buffers) and one pipeline layout
 * (vk_push_constant_bytes of push constants). One pipeline per kernel variant
 * (kernel x dtype, vk_spirv_table).
 *
 * A kernel with the fused epilogue (shaders/common/epilogue.glsl) may also have pipelines
 * specialized to one epilogue: its activation and flags made constants (specialization
 * constants 0 and 1), so the driver compiles that activation alone, without the branches
 * over every other; kept per (variant, activation, flags).
 *
 * Besides, pipelines of shaders generated at run time (lib/vulkan/vk_fused_gen.c), kept
 * by their source text: each compiled once per device, destroyed with it.
 *
 * Thread-safe (one mutex per device's pipelines).
 */
#include "vulkan/vk_device.h"

/* A generated shader's pipeline (VK_NULL_HANDLE: its compilation failed, do not retry). */
typedef struct vk_generated_pipeline {
    uint64_t hash; /* of source */
    char *source;
    VkPipeline pipeline;
} vk_generated_pipeline;

/* A kernel variant's pipeline specialized to one epilogue (vk_pipeline_get_epilogue). */
typedef struct vk_epilogue_pipeline {
    int variant;
    uint32_t act, flags;
    VkPipeline pipeline;
} vk_epilogue_pipeline;

struct vk_pipelines {
    VkDevice dev;
    bool unchecked; /* vk_device's robustness.pipelineRobustness */
    pthread_mutex_t lock;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkPipelineCache cache;
    VkPipeline pipelines[VK_VARIANT_COUNT];
    bool no_epilogue_constants; /* VKML_NO_EPILOGUE_CONSTANTS=1: no specialized pipelines */
    vk_epilogue_pipeline *specialized;
    int n_specialized, cap_specialized;
    vk_generated_pipeline *generated;
    int n_generated, cap_generated;
};

vkml_status vk_pipelines_create(vk_device *vd, vk_pipelines **out, vkml_error *err);
void vk_pipelines_destroy(vk_pipelines **p);
/* What a pipeline of the kernel variant named so ("" for a generated kernel) chains into
 * its VkComputePipelineCreateInfo on a device with robustness.pipelineRobustness: the
 * VkPipelineRobustnessCreateInfoEXT that leaves out the driver's bounds checks on its
 * buffers, or NULL where the kernel keeps them. bench_kernel_stats builds them so too. */
const void *vk_pipeline_robustness(const char *variant_name);

/* The pipeline of a kernel variant (index into vk_spirv_table), created on first use. */
vkml_status vk_pipeline_get(vk_pipelines *p, int variant, VkPipeline *out, vkml_error *err);

/* The pipeline of a kernel variant specialized to the epilogue epi (its act and flags),
 * created on first use; the variant's own pipeline under VKML_NO_EPILOGUE_CONSTANTS=1. */
vkml_status vk_pipeline_get_epilogue(vk_pipelines *p, int variant, const vk_epilogue_push *epi,
                                     VkPipeline *out, vkml_error *err);

/* Compiles GLSL source to SPIR-V (*spirv: malloc'ed words the caller frees). */
typedef vkml_status (*vk_glsl_compile_fn)(const char *source, uint32_t **spirv, size_t *bytes,
                                          vkml_error *err);
/*
 * The pipeline of a generated shader: from the cache when `source` was seen before
 * (*compiled false), else compiled now with `compile` (*compiled true). *out is
 * VK_NULL_HANDLE, with VKML_OK, when the source failed to compile (now or before; err says
 * why when now): the caller falls back.
 */
vkml_status vk_pipeline_generated(vk_pipelines *p, const char *source, vk_glsl_compile_fn compile,
                                  VkPipeline *out, bool *compiled, vkml_error *err);
