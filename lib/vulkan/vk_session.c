/* A Vulkan device_session's creation and destruction (vk_session.h). */
#include "vulkan/vk_session.h"
#include "vulkan/vk_consts.h"
#include "vulkan/vk_counts.h"
#include "vulkan/vk_fault.h"

#include <stdlib.h>

vkml_status vk_session_create(device *dev, const device_session_desc *desc, device_session **out,
                              vkml_error *err)
{
    vkml_status status = VKML_OK;
    vk_device *vd = (vk_device *)dev;
    device_session *s = calloc(1, sizeof(*s));
    *out = NULL;
    if (!s)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan: out of host memory");
    s->vd = vd;
    VKML_TRY(vk_device_check_lost(vd, err));
    s->n_values = desc->graph->n_values;
    s->n_chunks = desc->n_chunks;
    s->mem = calloc((size_t)s->n_values + 1, sizeof(*s->mem));
    s->owned = calloc((size_t)s->n_values + 1, sizeof(*s->owned));
    s->shared = calloc((size_t)s->n_values + 1, sizeof(*s->shared));
    s->want_shared = calloc((size_t)s->n_values + 1, sizeof(*s->want_shared));
    s->packed = calloc((size_t)s->n_values + 1, sizeof(*s->packed));
    s->chunks = calloc((size_t)s->n_chunks + 1, sizeof(*s->chunks));
    s->host_copy = calloc((size_t)s->n_values + 1, sizeof(*s->host_copy));
    s->host_copy_owned = calloc((size_t)s->n_values + 1, sizeof(*s->host_copy_owned));
    s->copy_in_chunk = malloc(((size_t)s->n_values + 1) * sizeof(*s->copy_in_chunk));
    s->copy_out_chunk = malloc(((size_t)s->n_values + 1) * sizeof(*s->copy_out_chunk));
    if (!s->mem || !s->owned || !s->shared || !s->want_shared || !s->packed || !s->chunks ||
        !s->host_copy || !s->host_copy_owned || !s->copy_in_chunk || !s->copy_out_chunk) {
        status = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan: out of host memory");
        goto cleanup;
    }
    VkCommandPoolCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .queueFamilyIndex = vd->queue_family,
    };
    for (int v = 0; v < s->n_values; v++)
        s->copy_in_chunk[v] = s->copy_out_chunk[v] = -1;
    VK_CREATE(VKML_VK_COMMAND_POOL, vkCreateCommandPool(vd->dev, &pci, NULL, &s->cmd_pool));
    s->copy_pool = s->cmd_pool;
    if (vd->copy_family != vd->queue_family) {
        pci.queueFamilyIndex = vd->copy_family;
        VK_CREATE(VKML_VK_COMMAND_POOL, vkCreateCommandPool(vd->dev, &pci, NULL, &s->copy_pool));
    }
    VKML_TRY(vk_session_allocate_values(s, desc, err));
    vk_session_mark_packed(s, desc);
    VKML_TRY(vk_session_upload_constants(s, desc, err));
    for (int i = 0; i < s->n_chunks; i++)
        VKML_TRY(vk_session_record_chunk(s, desc, i, err));
    *out = s;
    return VKML_OK;
cleanup:
    vk_session_destroy(&s);
    return status;
}

void vk_session_destroy(device_session **ps)
{
    device_session *s = ps ? *ps : NULL;
    if (!s)
        return;
    VkDevice dev = s->vd->dev;
    /* A failed run (device lost, interrupted wait) may have left work in flight. */
    pthread_mutex_lock(&s->vd->queue_lock);
    vkQueueWaitIdle(s->vd->queue);
    pthread_mutex_unlock(&s->vd->queue_lock);
    for (int k = 0; k < 2; k++) {
        if (!s->vd->copy_queue[k])
            continue;
        pthread_mutex_lock(s->vd->copy_lock[k]);
        vkQueueWaitIdle(s->vd->copy_queue[k]);
        pthread_mutex_unlock(s->vd->copy_lock[k]);
    }
    for (int i = 0; s->chunks && i < s->n_chunks; i++) {
        vk_chunk *c = &s->chunks[i];
        VK_DESTROY(VKML_VK_FENCE, vkDestroyFence, dev, c->fences[0]);
        VK_DESTROY(VKML_VK_FENCE, vkDestroyFence, dev, c->fences[1]);
        VK_DESTROY(VKML_VK_SEMAPHORE, vkDestroySemaphore, dev, c->copied_in);
        VK_DESTROY(VKML_VK_SEMAPHORE, vkDestroySemaphore, dev, c->computed);
        VK_DESTROY(VKML_VK_DESCRIPTOR_POOL, vkDestroyDescriptorPool, dev, c->pool);
        VK_DESTROY(VKML_VK_QUERY_POOL, vkDestroyQueryPool, dev, c->timestamps);
        /* freed with the pool below */
        vk_count_add(VKML_VK_COMMAND_BUFFER, -(int64_t)(c->cmd != VK_NULL_HANDLE) -
                                                 (int64_t)(c->copy_in != VK_NULL_HANDLE) -
                                                 (int64_t)(c->copy_out != VK_NULL_HANDLE));
        for (int j = 0; j < c->n_scratch; j++)
            vk_mem_free(s->vd->alloc, &c->scratch[j]);
        free(c->scratch);
    }
    if (s->copy_pool != s->cmd_pool)
        VK_DESTROY(VKML_VK_COMMAND_POOL, vkDestroyCommandPool, dev, s->copy_pool);
    VK_DESTROY(VKML_VK_COMMAND_POOL, vkDestroyCommandPool, dev, s->cmd_pool);
    for (int v = 0; s->mem && v < s->n_values; v++) {
        if (s->owned[v])
            vk_mem_free(s->vd->alloc, &s->mem[v]);
        if (s->host_copy_owned && s->host_copy_owned[v])
            vk_mem_free(s->vd->alloc, &s->host_copy[v]);
    }
    pthread_mutex_lock(&s->vd->consts_lock);
    for (int v = 0; s->shared && v < s->n_values; v++)
        if (s->shared[v])
            vk_const_release(s->vd, &s->mem[v]);
    pthread_mutex_unlock(&s->vd->consts_lock);
    vk_mem_free(s->vd->alloc, &s->transients);
    free(s->mem);
    free(s->owned);
    free(s->shared);
    free(s->want_shared);
    free(s->packed);
    free(s->host_copy);
    free(s->host_copy_owned);
    free(s->copy_in_chunk);
    free(s->copy_out_chunk);
    free(s->chunks);
    free(s);
    *ps = NULL;
}
