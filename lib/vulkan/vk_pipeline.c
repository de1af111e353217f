#include "vulkan/vk_pipeline.h"
#include "vulkan/vk_counts.h"

#include <stdlib.h>
#include <string.h>

vkml_status vk_pipelines_create(vk_device *vd, vk_pipelines **out, vkml_error *err)
{
    vkml_status status = VKML_OK;
    vk_pipelines *p = calloc(1, sizeof(*p));
    if (!p)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan pipelines: out of host memory");
    p->dev = vd->dev;
    p->unchecked = vd->robustness.pipelineRobustness;
    p->no_epilogue_constants = vkml_env_flag("VKML_NO_EPILOGUE_CONSTANTS");
    pthread_mutex_init(&p->lock, NULL);

    VkDescriptorSetLayoutBinding bindings[VK_MAX_BINDINGS];
    for (uint32_t i = 0; i < VK_MAX_BINDINGS; i++) {
        bindings[i] = (VkDescriptorSetLayoutBinding){
            .binding = i,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .descriptorCount = 1,
            .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        };
    }
    VkDescriptorSetLayoutCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = vd->caps.max_bindings,
        .pBindings = bindings,
    };
    VK_CREATE(VKML_VK_DESCRIPTOR_SET_LAYOUT,
              vkCreateDescriptorSetLayout(p->dev, &dci, NULL, &p->set_layout));
    VkPushConstantRange range = {
        .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        .size = vk_push_constant_bytes(&vd->caps),
    };
    VkPipelineLayoutCreateInfo lci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = &p->set_layout,
        .pushConstantRangeCount = 1,
        .pPushConstantRanges = &range,
    };
    VK_CREATE(VKML_VK_PIPELINE_LAYOUT, vkCreatePipelineLayout(p->dev, &lci, NULL, &p->layout));
    VkPipelineCacheCreateInfo cci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    VK_CREATE(VKML_VK_PIPELINE_CACHE, vkCreatePipelineCache(p->dev, &cci, NULL, &p->cache));
    *out = p;
    return VKML_OK;
cleanup:
    vk_pipelines_destroy(&p);
    return status;
}

void vk_pipelines_destroy(vk_pipelines **pp)
{
    vk_pipelines *p = pp ? *pp : NULL;
    if (!p)
        return;
    for (int i = 0; i < VK_VARIANT_COUNT; i++)
        VK_DESTROY(VKML_VK_PIPELINE, vkDestroyPipeline, p->dev, p->pipelines[i]);
    for (int i = 0; i < p->n_specialized; i++)
        VK_DESTROY(VKML_VK_PIPELINE, vkDestroyPipeline, p->dev, p->specialized[i].pipeline);
    free(p->specialized);
    for (int i = 0; i < p->n_generated; i++) {
        VK_DESTROY(VKML_VK_PIPELINE, vkDestroyPipeline, p->dev, p->generated[i].pipeline);
        free(p->generated[i].source);
    }
    free(p->generated);
    VK_DESTROY(VKML_VK_PIPELINE_CACHE, vkDestroyPipelineCache, p->dev, p->cache);
    VK_DESTROY(VKML_VK_PIPELINE_LAYOUT, vkDestroyPipelineLayout, p->dev, p->layout);
    VK_DESTROY(VKML_VK_DESCRIPTOR_SET_LAYOUT, vkDestroyDescriptorSetLayout, p->dev, p->set_layout);
    pthread_mutex_destroy(&p->lock);
    free(p);
    *pp = NULL;
}

/* The driver's bounds checks on a kernel's storage buffers are left out where the device
 * lets them be: one comparison and a predicate less per load. On the H200 (2026-12-01,
 * fp16 GPU time) ResNet-50 b8 took 1,319 us without them against 1,358, b1 821 against
 * 847, YOLOv8n-style 866 against 874, the 4 x Linear stack 282 against 285; the fused
 * attention kernels ran slower without (BERT-base-style's 12: 209 us against 178), so they
 * keep them (docs/performance.md, "The driver's bounds checks"). */
const void *vk_pipeline_robustness(const char *variant_name)
{
    static const VkPipelineRobustnessCreateInfoEXT unchecked = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_ROBUSTNESS_CREATE_INFO_EXT,
        .storageBuffers = VK_PIPELINE_ROBUSTNESS_BUFFER_BEHAVIOR_DISABLED_EXT,
        .uniformBuffers = VK_PIPELINE_ROBUSTNESS_BUFFER_BEHAVIOR_DISABLED_EXT,
        .vertexInputs = VK_PIPELINE_ROBUSTNESS_BUFFER_BEHAVIOR_DEVICE_DEFAULT_EXT,
        .images = VK_PIPELINE_ROBUSTNESS_IMAGE_BEHAVIOR_DEVICE_DEFAULT_EXT,
    };
    static const char keeps_checks[] = "attention_fused";
    return strncmp(variant_name, keeps_checks, sizeof keeps_checks - 1) == 0 ? NULL : &unchecked;
}

static vkml_status create_from_spirv(vk_pipelines *p, const uint32_t *code, size_t size,
                                     const char *name, const VkSpecializationInfo *spec,
                                     VkPipeline *out, vkml_error *err)
{
    vkml_status status = VKML_OK;
    VkShaderModule module = VK_NULL_HANDLE;
    VkShaderModuleCreateInfo mci = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = size,
        .pCode = code,
    };
    VK_CREATE(VKML_VK_SHADER_MODULE, vkCreateShaderModule(p->dev, &mci, NULL, &module));
    VkComputePipelineCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage =
            {
                .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = module,
                .pName = "main",
                .pSpecializationInfo = spec,
            },
        .layout = p->layout,
    };
    if (p->unchecked)
        pci.pNext = vk_pipeline_robustness(name);
    VK_CREATE(VKML_VK_PIPELINE, vkCreateComputePipelines(p->dev, p->cache, 1, &pci, NULL, out));
cleanup:
    VK_DESTROY(VKML_VK_SHADER_MODULE, vkDestroyShaderModule, p->dev, module);
    return status;
}

static vkml_status create_pipeline(vk_pipelines *p, int kernel, vkml_error *err)
{
    const vk_spirv *sp = &vk_spirv_table[kernel];
    vkml_status status =
        create_from_spirv(p, sp->code, sp->size, sp->name, NULL, &p->pipelines[kernel], err);
    if (status != VKML_OK)
        vkml_error_prefix(err, "creating the pipeline of kernel '%s'", vk_spirv_table[kernel].name);
    return status;
}

vkml_status vk_pipeline_get(vk_pipelines *p, int kernel, VkPipeline *out, vkml_error *err)
{
    vkml_status status = VKML_OK;
    pthread_mutex_lock(&p->lock);
    if (!p->pipelines[kernel])
        status = create_pipeline(p, kernel, err);
    *out = p->pipelines[kernel];
    pthread_mutex_unlock(&p->lock);
    return status;
}

/* epilogue.glsl's specialization constants: 0 the activation, 1 the flags. */
static vkml_status create_specialized(vk_pipelines *p, vk_epilogue_pipeline *e, vkml_error *err)
{
    const vk_spirv *sp = &vk_spirv_table[e->variant];
    uint32_t values[2] = {e->act, e->flags};
    VkSpecializationMapEntry entries[2] = {
        {.constantID = 0, .offset = 0, .size = sizeof(uint32_t)},
        {.constantID = 1, .offset = sizeof(uint32_t), .size = sizeof(uint32_t)},
    };
    VkSpecializationInfo spec = {
        .mapEntryCount = 2,
        .pMapEntries = entries,
        .dataSize = sizeof(values),
        .pData = values,
    };
    vkml_status status =
        create_from_spirv(p, sp->code, sp->size, sp->name, &spec, &e->pipeline, err);
    if (status != VKML_OK)
        vkml_error_prefix(err, "creating the pipeline of kernel '%s' for its epilogue", sp->name);
    return status;
}

/* The kept pipeline of variant for epi's activation and flags, or NULL. */
static vk_epilogue_pipeline *find_specialized(vk_pipelines *p, int variant,
                                              const vk_epilogue_push *epi)
{
    for (int i = 0; i < p->n_specialized; i++) {
        vk_epilogue_pipeline *e = &p->specialized[i];
        if (e->variant == variant && e->act == epi->act && e->flags == epi->flags)
            return e;
    }
    return NULL;
}

/* Creates and keeps the pipeline of variant for epi (*out: it). */
static vkml_status add_specialized(vk_pipelines *p, int variant, const vk_epilogue_push *epi,
                                   vk_epilogue_pipeline **out, vkml_error *err)
{
    if (p->n_specialized == p->cap_specialized) {
        int cap = p->cap_specialized ? 2 * p->cap_specialized : 16;
        vk_epilogue_pipeline *grown = realloc(p->specialized, (size_t)cap * sizeof(*grown));
        if (!grown)
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan pipelines: out of host memory");
        p->specialized = grown;
        p->cap_specialized = cap;
    }
    vk_epilogue_pipeline *e = &p->specialized[p->n_specialized];
    *e = (vk_epilogue_pipeline){.variant = variant, .act = epi->act, .flags = epi->flags};
    vkml_status status = create_specialized(p, e, err);
    if (status == VKML_OK) {
        p->n_specialized++;
        *out = e;
    }
    return status;
}

vkml_status vk_pipeline_get_epilogue(vk_pipelines *p, int variant, const vk_epilogue_push *epi,
                                     VkPipeline *out, vkml_error *err)
{
    if (p->no_epilogue_constants)
        return vk_pipeline_get(p, variant, out, err);
    vkml_status status = VKML_OK;
    pthread_mutex_lock(&p->lock);
    vk_epilogue_pipeline *e = find_specialized(p, variant, epi);
    if (!e)
        status = add_specialized(p, variant, epi, &e, err);
    *out = status == VKML_OK ? e->pipeline : VK_NULL_HANDLE;
    pthread_mutex_unlock(&p->lock);
    return status;
}

/* Adds an entry for source (pipeline still VK_NULL_HANDLE); NULL when out of memory. */
static vk_generated_pipeline *add_generated(vk_pipelines *p, const char *source, uint64_t hash)
{
    if (p->n_generated == p->cap_generated) {
        int cap = p->cap_generated ? 2 * p->cap_generated : 16;
        vk_generated_pipeline *grown = realloc(p->generated, (size_t)cap * sizeof(*grown));
        if (!grown)
            return NULL;
        p->generated = grown;
        p->cap_generated = cap;
    }
    char *copy = strdup(source);
    if (!copy)
        return NULL;
    vk_generated_pipeline *g = &p->generated[p->n_generated++];
    *g = (vk_generated_pipeline){.hash = hash, .source = copy};
    return g;
}

vkml_status vk_pipeline_generated(vk_pipelines *p, const char *source, vk_glsl_compile_fn compile,
                                  VkPipeline *out, bool *compiled, vkml_error *err)
{
    vkml_status status = VKML_OK;
    uint64_t hash = vkml_fnv1a(VKML_FNV1A_SEED, source, strlen(source));
    *out = VK_NULL_HANDLE;
    *compiled = false;
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < p->n_generated; i++) {
        if (p->generated[i].hash == hash && strcmp(p->generated[i].source, source) == 0) {
            *out = p->generated[i].pipeline;
            pthread_mutex_unlock(&p->lock);
            return VKML_OK;
        }
    }
    vk_generated_pipeline *g = add_generated(p, source, hash);
    if (!g) {
        pthread_mutex_unlock(&p->lock);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan pipelines: out of host memory");
    }
    *compiled = true;
    uint32_t *spirv = NULL;
    size_t bytes = 0;
    status = compile(source, &spirv, &bytes, err);
    if (status == VKML_OK)
        status = create_from_spirv(p, spirv, bytes, "", NULL, &g->pipeline, err);
    free(spirv);
    *out = g->pipeline;
    pthread_mutex_unlock(&p->lock);
    return status;
}
