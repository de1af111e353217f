/* A Vulkan device_session: memory for every value the device uses, and one command
 * buffer per chunk, recorded once here and re-submitted by every run. */
#include "vulkan/vk_record.h"
#include "vulkan/vk_transfer.h"

#include <stdlib.h>
#include <string.h>

typedef struct vk_chunk {
    VkCommandBuffer cmd;
    VkFence fence;
    VkDescriptorPool pool;
} vk_chunk;

struct device_session {
    vk_device *vd;
    int n_values;
    vk_mem *mem;   /* per value; aliases copy their root's range */
    bool *owned;   /* mem[i] was allocated for value i (else shared or unused) */
    VkCommandPool cmd_pool;
    vk_chunk *chunks;
    int n_chunks;
};

static vkml_status value_bytes(const device_session_desc *desc, int v, size_t *out,
                               vkml_error *err)
{
    const graph_value *val = &desc->values[v];
    if (!vkml_tensor_bytes(val->dtype, val->rank, val->dims, out))
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "Vulkan: value '%s' has no concrete size (dtype %s)", val->name,
                         vkml_dtype_name(val->dtype));
    return VKML_OK;
}

/* The value whose allocation v shares (itself when not an alias). */
static int alias_root(const device_session_desc *desc, int v)
{
    int n = desc->graph->n_values;
    for (int hops = 0; hops < n && desc->value_plans[v].alias_of >= 0; hops++)
        v = desc->value_plans[v].alias_of;
    return v;
}

/* Allocates every root value (host-visible when any of its aliases is host_access) and
 * points aliases at their root's range. */
static vkml_status allocate_values(device_session *s, const device_session_desc *desc,
                                   vkml_error *err)
{
    vkml_status status = VKML_OK;
    int n = s->n_values;
    bool *host = calloc((size_t)n, sizeof(bool));
    size_t *bytes = calloc((size_t)n, sizeof(size_t));
    if (!host || !bytes) {
        status = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan: out of host memory");
        goto cleanup;
    }
    for (int v = 0; v < n; v++) {
        if (!desc->value_plans[v].used)
            continue;
        int root = alias_root(desc, v);
        size_t b;
        VKML_TRY(value_bytes(desc, v, &b, err));
        host[root] |= desc->value_plans[v].host_access;
        bytes[root] = b > bytes[root] ? b : bytes[root];
    }
    for (int v = 0; v < n; v++) {
        if (!desc->value_plans[v].used || alias_root(desc, v) != v)
            continue;
        vk_mem_kind kind = host[v] ? VK_MEM_HOST : VK_MEM_DEVICE;
        VKML_TRY(vk_mem_alloc(s->vd->alloc, kind, bytes[v], &s->mem[v], err));
        s->owned[v] = true;
    }
    for (int v = 0; v < n; v++) {
        if (desc->value_plans[v].used && !s->owned[v])
            s->mem[v] = s->mem[alias_root(desc, v)];
    }
cleanup:
    if (status != VKML_OK)
        vkml_error_prefix(err, "allocating session memory on '%s'", s->vd->base.info.name);
    free(host);
    free(bytes);
    return status;
}

/* Constants: copied straight into mapped memory, else through staging buffers. */
static vkml_status upload_constants(device_session *s, const device_session_desc *desc,
                                    vkml_error *err)
{
    vkml_status status = VKML_OK;
    vk_upload_item *items = calloc((size_t)s->n_values + 1, sizeof(*items));
    int n_items = 0;
    if (!items)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan: out of host memory");
    for (int v = 0; v < s->n_values; v++) {
        const device_value_plan *vp = &desc->value_plans[v];
        if (!vp->used || !vp->constant || s->mem[v].size == 0)
            continue;
        if (s->mem[v].map)
            memcpy(s->mem[v].map, vp->constant, s->mem[v].size);
        else
            items[n_items++] = (vk_upload_item){vp->constant, s->mem[v].size, &s->mem[v]};
    }
    if (n_items)
        status = vk_upload(s->vd, s->cmd_pool, items, n_items, err);
    free(items);
    return status;
}

/* Orders the host's writes of inputs and earlier runs' writes before this run's kernels. */
static void begin_barrier(VkCommandBuffer cmd)
{
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_HOST_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                         VK_ACCESS_TRANSFER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
    };
    vkCmdPipelineBarrier(cmd,
                         VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                             VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
}

/* Makes the kernels' writes visible to the host once the fence signals. */
static void end_barrier(VkCommandBuffer cmd)
{
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
    };
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                         0, 1, &mb, 0, NULL, 0, NULL);
}

static vkml_status lower_nodes(gpu_recorder *rec, const device_session_desc *desc,
                               const device_chunk_desc *chunk, vkml_error *err)
{
    for (int i = 0; i < chunk->n_nodes; i++) {
        const graph_node *node = &desc->graph->nodes[chunk->nodes[i]];
        vkml_status st = VKML_ERROR_UNSUPPORTED;
        if (node->op && node->op->gpu)
            st = node->op->gpu(rec, desc->values, node, err);
        else
            vkml_fail(err, st, "no Vulkan kernel");
        if (st != VKML_OK) {
            char label[160];
            vkml_error_prefix(err, "%s",
                              graph_node_label(desc->graph, chunk->nodes[i], label, sizeof(label)));
            return st;
        }
    }
    return VKML_OK;
}

static vkml_status record_chunk(device_session *s, const device_session_desc *desc, int index,
                                vkml_error *err)
{
    vkml_status status = VKML_OK;
    vk_chunk *c = &s->chunks[index];
    VkDevice dev = s->vd->dev;
    gpu_recorder *rec = NULL;
    VkCommandBufferAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = s->cmd_pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    VK(vkAllocateCommandBuffers(dev, &ai, &c->cmd));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK(vkCreateFence(dev, &fci, NULL, &c->fence));

    VKML_TRY(vk_rec_create(s->vd, s->mem, s->n_values, &rec, err));
    VKML_TRY(lower_nodes(rec, desc, &desc->chunks[index], err));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK(vkBeginCommandBuffer(c->cmd, &bi));
    begin_barrier(c->cmd);
    int barriers = 0;
    VKML_TRY(vk_rec_finish(rec, c->cmd, &c->pool, &barriers, err));
    end_barrier(c->cmd);
    VK(vkEndCommandBuffer(c->cmd));
    VKML_LOGD("Vulkan chunk %d: %d nodes, %d barriers", index, desc->chunks[index].n_nodes,
              barriers);
cleanup:
    vk_rec_destroy(&rec);
    return status;
}

vkml_status vk_session_create(device *dev, const device_session_desc *desc,
                              device_session **out, vkml_error *err)
{
    vkml_status status = VKML_OK;
    vk_device *vd = (vk_device *)dev;
    device_session *s = calloc(1, sizeof(*s));
    *out = NULL;
    if (!s)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan: out of host memory");
    s->vd = vd;
    s->n_values = desc->graph->n_values;
    s->n_chunks = desc->n_chunks;
    s->mem = calloc((size_t)s->n_values + 1, sizeof(*s->mem));
    s->owned = calloc((size_t)s->n_values + 1, sizeof(*s->owned));
    s->chunks = calloc((size_t)s->n_chunks + 1, sizeof(*s->chunks));
    if (!s->mem || !s->owned || !s->chunks) {
        status = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan: out of host memory");
        goto cleanup;
    }
    VkCommandPoolCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .queueFamilyIndex = vd->queue_family,
    };
    VK(vkCreateCommandPool(vd->dev, &pci, NULL, &s->cmd_pool));
    VKML_TRY(allocate_values(s, desc, err));
    VKML_TRY(upload_constants(s, desc, err));
    for (int i = 0; i < s->n_chunks; i++)
        VKML_TRY(record_chunk(s, desc, i, err));
    *out = s;
    return VKML_OK;
cleanup:
    vk_session_destroy(&s);
    return status;
}

void *vk_session_host_ptr(device_session *s, int value)
{
    if (!s || value < 0 || value >= s->n_values)
        return NULL;
    return s->mem[value].map;
}

vkml_status vk_session_run(device_session *s, int chunk, vkml_error *err)
{
    if (chunk < 0 || chunk >= s->n_chunks)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "Vulkan: no chunk %d", chunk);
    vkml_status st = vk_submit_wait(s->vd, s->chunks[chunk].cmd, s->chunks[chunk].fence, err);
    if (st != VKML_OK)
        vkml_error_prefix(err, "running chunk %d on '%s'", chunk, s->vd->base.info.name);
    return st;
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
    for (int i = 0; s->chunks && i < s->n_chunks; i++) {
        vk_chunk *c = &s->chunks[i];
        vkDestroyFence(dev, c->fence, NULL);
        vkDestroyDescriptorPool(dev, c->pool, NULL);
    }
    vkDestroyCommandPool(dev, s->cmd_pool, NULL); /* frees the command buffers */
    for (int v = 0; s->mem && v < s->n_values; v++) {
        if (s->owned[v])
            vk_mem_free(s->vd->alloc, &s->mem[v]);
    }
    free(s->mem);
    free(s->owned);
    free(s->chunks);
    free(s);
    *ps = NULL;
}
