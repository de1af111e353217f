/* Recording a Vulkan session's chunks (vk_session.h): each chunk's kernels into one
 * command buffer, once, and the copies of host-shared values around it into their own. */
#include "vulkan/vk_counts.h"
#include "vulkan/vk_record.h"
#include "vulkan/vk_session.h"

/* Orders earlier chunks' and runs' writes (kernels, copies) on this queue before this
 * chunk's kernels. The host's writes of the inputs need no barrier: vkQueueSubmit makes
 * the host writes made before it visible to the work it submits (Vulkan's host write
 * ordering guarantee). */
static void begin_barrier(VkCommandBuffer cmd)
{
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
    };
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
}

/* Makes the kernels' writes visible to the host once the chunk's fence
 * signals. */
static void end_barrier(VkCommandBuffer cmd)
{
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
    };
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0,
                         1, &mb, 0, NULL, 0, NULL);
}

/* Whether value v is copied in (out: out) around chunk `index`. */
static bool copied_at(const device_session *s, int v, int index, bool out)
{
    return (out ? s->copy_out_chunk : s->copy_in_chunk)[v] == index && s->host_copy_owned[v] &&
           s->mem[v].size;
}

/* Records the copies around chunk `index` in one direction into a command buffer of their
 * own (*cmd) with the semaphore that orders them with the kernels (*sem), when there are
 * any: in, from the host copy into device memory, the values the chunk is the first to
 * read; out, back, those it is the last to write.
 * They run on a copy queue beside other runs' kernels (vk_stream.h). Nothing else of this
 * device touches their memory meanwhile: a value's device copy is its own allocation
 * (share_value, read_back_value) used by this run's chunks only, and a lane's run ends
 * before its next one is submitted; the readers (on other devices) of a value copied out
 * are submitted once this chunk's fence, after the copy out, has signalled; the producers
 * of one copied in had ended before this chunk was submitted (the scheduler). */
static vkml_status record_shared_copies(device_session *s, int index, bool out,
                                        VkCommandBuffer *cmd, VkSemaphore *sem, vkml_error *err)
{
    vkml_status status = VKML_OK;
    int v = 0;
    while (v < s->n_values && !copied_at(s, v, index, out))
        v++;
    if (v == s->n_values)
        return VKML_OK;
    VkCommandBufferAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = s->copy_pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    VK_CREATE(VKML_VK_COMMAND_BUFFER, vkAllocateCommandBuffers(s->vd->dev, &ai, cmd));
    VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    VK_CREATE(VKML_VK_SEMAPHORE, vkCreateSemaphore(s->vd->dev, &sci, NULL, sem));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK(vkBeginCommandBuffer(*cmd, &bi));
    for (; v < s->n_values; v++) {
        if (!copied_at(s, v, index, out))
            continue;
        const vk_mem *host = &s->host_copy[v], *dev = &s->mem[v];
        VkBufferCopy region = {.srcOffset = out ? dev->offset : host->offset,
                               .dstOffset = out ? host->offset : dev->offset,
                               .size = dev->size};
        vkCmdCopyBuffer(*cmd, out ? dev->buffer : host->buffer, out ? host->buffer : dev->buffer, 1,
                        &region);
    }
    if (out) { /* the host, and the readers it submits, see the copies once the fence has */
        VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                              .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                              .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
        vkCmdPipelineBarrier(*cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                             &mb, 0, NULL, 0, NULL);
    }
    VK(vkEndCommandBuffer(*cmd));
cleanup:
    return status;
}

static vkml_status lower_nodes(gpu_recorder *rec, const device_session_desc *desc,
                               const device_chunk_desc *chunk, vkml_error *err)
{
    for (int i = 0; i < chunk->n_nodes; i++) {
        const graph_node *node = &desc->graph->nodes[chunk->nodes[i]];
        vkml_status st = VKML_ERROR_UNSUPPORTED;
        vk_rec_set_node(rec, i);
        const gpu_kernel *k = vk_kernel_for(node->op);
        if (k)
            st = k->record(rec, desc->values, node, err);
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

vkml_status vk_session_record_chunk(device_session *s, const device_session_desc *desc, int index,
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
    VK_CREATE(VKML_VK_COMMAND_BUFFER, vkAllocateCommandBuffers(dev, &ai, &c->cmd));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_CREATE(VKML_VK_FENCE, vkCreateFence(dev, &fci, NULL, &c->fences[0]));
    VK_CREATE(VKML_VK_FENCE, vkCreateFence(dev, &fci, NULL, &c->fences[1]));

    VKML_TRY(vk_rec_create(s->vd, s->mem, s->packed, s->n_values, desc->fast_math, &rec, err));
    VKML_TRY(lower_nodes(rec, desc, &desc->chunks[index], err));
    c->n_nodes = desc->chunks[index].n_nodes;
    vk_rec_profile prof = {.n_nodes = c->n_nodes};
    if (desc->profile) {
        if (!s->vd->caps.timestamps) {
            status = vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                               "Vulkan device '%s' has no timestamps on its compute queue: "
                               "it cannot be profiled",
                               s->vd->base.info.name);
            goto cleanup;
        }
        VkQueryPoolCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                     .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                     .queryCount = (uint32_t)c->n_nodes + 1};
        VK_CREATE(VKML_VK_QUERY_POOL, vkCreateQueryPool(dev, &qci, NULL, &c->timestamps));
        prof.pool = c->timestamps;
    }
    VKML_TRY(record_shared_copies(s, index, false, &c->copy_in, &c->copied_in, err));
    VKML_TRY(record_shared_copies(s, index, true, &c->copy_out, &c->computed, err));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK(vkBeginCommandBuffer(c->cmd, &bi));
    begin_barrier(c->cmd);
    int barriers = 0;
    VKML_TRY(vk_rec_finish(rec, c->cmd, &c->pool, desc->profile ? &prof : NULL, &barriers, err));
    vk_rec_take_scratch(rec, &c->scratch, &c->n_scratch);
    end_barrier(c->cmd);
    VK(vkEndCommandBuffer(c->cmd));
    VKML_LOGD("Vulkan chunk %d: %d nodes, %d barriers", index, desc->chunks[index].n_nodes,
              barriers);
cleanup:
    vk_rec_destroy(&rec);
    return status;
}
