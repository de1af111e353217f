#include "vulkan/vk_counts.h"

#include <stdatomic.h>

/* Relaxed atomics: see vk_counts.h. */
static atomic_llong live[VKML_VK_OBJECT_KINDS];
static atomic_llong memory_bytes;

static const char *const names[VKML_VK_OBJECT_KINDS] = {
    [VKML_VK_INSTANCE] = "instance",
    [VKML_VK_DEVICE] = "device",
    [VKML_VK_MEMORY] = "memory allocation",
    [VKML_VK_BUFFER] = "buffer",
    [VKML_VK_SHADER_MODULE] = "shader module",
    [VKML_VK_PIPELINE] = "pipeline",
    [VKML_VK_PIPELINE_LAYOUT] = "pipeline layout",
    [VKML_VK_PIPELINE_CACHE] = "pipeline cache",
    [VKML_VK_DESCRIPTOR_SET_LAYOUT] = "descriptor set layout",
    [VKML_VK_DESCRIPTOR_POOL] = "descriptor pool",
    [VKML_VK_COMMAND_POOL] = "command pool",
    [VKML_VK_COMMAND_BUFFER] = "command buffer",
    [VKML_VK_FENCE] = "fence",
    [VKML_VK_QUERY_POOL] = "query pool",
    [VKML_VK_SEMAPHORE] = "semaphore",
};

void vk_count_add(vkml_vk_object kind, int64_t n)
{
    if ((unsigned)kind < VKML_VK_OBJECT_KINDS)
        atomic_fetch_add_explicit(&live[kind], n, memory_order_relaxed);
}

void vk_count_memory_bytes(int64_t bytes)
{
    atomic_fetch_add_explicit(&memory_bytes, bytes, memory_order_relaxed);
}

void vkml_debug_vk_counts(vkml_vk_counts *out)
{
    if (!out)
        return;
    for (int i = 0; i < VKML_VK_OBJECT_KINDS; i++)
        out->live[i] = atomic_load_explicit(&live[i], memory_order_relaxed);
    out->memory_bytes = atomic_load_explicit(&memory_bytes, memory_order_relaxed);
}

const char *vkml_vk_object_name(vkml_vk_object kind)
{
    return (unsigned)kind < VKML_VK_OBJECT_KINDS ? names[kind] : "unknown";
}
