/* A Vulkan device_session: memory for every value the device uses, and one command
 * buffer per chunk, recorded once here and re-submitted by every run. */
#include "ops/op.h"
#include "device/mem_plan.h"
#include "vulkan/ops_gemm.h"
#include "vulkan/vk_consts.h"
#include "vulkan/vk_counts.h"
#include "vulkan/vk_fault.h"
#include "vulkan/vk_record.h"
#include "vulkan/vk_stream.h"
#include "vulkan/vk_transfer.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

typedef struct vk_chunk {
    /* the kernels, and the copies around them (record_shared_copies): copy_in, of values
     * another device made, into this device's memory, which cmd reads; copy_out, of values
     * cmd made, out to the host memory another device reads them from; VK_NULL_HANDLE
     * where there are none. The semaphores order them (vk_stream.h, vk_submit). */
    VkCommandBuffer cmd, copy_in, copy_out;
    VkSemaphore copied_in, computed;
    /* Signalled when the chunk's submit has finished: host waits use them. Submits take
     * them in turn (cur: the last one's), so that the wait for one submit resets the
     * other, while the GPU runs, instead of the next submit resetting the fence it takes
     * (vk_event_wait). pending[k]: submitted since its last reset. Touched by the chunk's
     * submitter and then its waiter, which the scheduler orders (a task's wait follows
     * its submit; the lane's next run follows the last wait of its run). */
    VkFence fences[2];
    bool pending[2];
    int cur;
    VkDescriptorPool pool;
    VkQueryPool timestamps; /* profiled sessions: n_nodes + 1 (vk_record.h, vk_rec_profile) */
    int n_nodes;
    vk_mem *scratch; /* the recorder's scratch buffers (vk_rec_scratch) */
    int n_scratch;
    uint64_t submit_ns;         /* when it was last submitted (its submitter writes it before
                                   the event is published) */
    _Atomic uint64_t expect_ns; /* how long its submits take to finish (vk_stream.h) */
} vk_chunk;

struct device_session {
    vk_device *vd;
    int n_values;
    vk_mem *mem;       /* per value; aliases copy their root's range */
    bool *owned;       /* mem[i] was allocated for value i (else shared or unused) */
    bool *shared;      /* value i is a constant in the device's shared buffers: set once
                          its reference is held (vk_consts.h) */
    bool *want_shared; /* value i is to be one (a device-local constant root) */
    bool *packed;      /* value i: conv weights uploaded packed over taps (mark_packed) */
    /* Per value, the host memory that holds it between runs and chunks where its device
     * memory (mem) is not host-visible: the plan's shared host allocation (shared_host)
     * imported (share_value), or cached host memory the value is read back into
     * (read_back_value); aliases copy their root's. */
    vk_mem *host_copy;
    bool *host_copy_owned; /* host_copy[i] was made for value i */
    int *copy_in_chunk;    /* per value: the chunk that copies host_copy[i] into mem[i] before its
                              kernels (a shared value this device only reads), or -1 */
    int *copy_out_chunk;   /* per value: the chunk that copies mem[i] out to host_copy[i] after
                              its kernels (a value this device writes), or -1 */
    vk_mem transients; /* the range shared by transient values (device/mem_plan.h) */
    device_memory_use memory_use;
    VkCommandPool cmd_pool;
    VkCommandPool copy_pool; /* of the copy queues' family (vk_device.copy_family) */
    vk_chunk *chunks;
    int n_chunks;
};

static vkml_status value_bytes(const device_session_desc *desc, int v, size_t *out, vkml_error *err)
{
    const graph_value *val = &desc->values[v];
    if (!vkml_tensor_bytes(val->dtype, val->rank, val->dims, out))
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "Vulkan: value '%s' has no concrete size (dtype %s)", val->name,
                         vkml_dtype_name(val->dtype));
    return VKML_OK;
}


/* Per root value: its size, whether the host touches it, whether it holds a constant. */
typedef struct value_roots {
    int *root;
    size_t *bytes;
    uint64_t *words; /* bytes rounded up to whole words, at least one: descriptor ranges are
                        rounded so (vk_record.c) */
    bool *transient;
    uint64_t *offsets;
    bool *placed;
} value_roots;

static vkml_status collect_roots(const device_session_desc *desc, value_roots *r, vkml_error *err)
{
    int n = desc->graph->n_values;
    bool *pinned = calloc((size_t)n + 1, sizeof(bool)); /* host-visible or constant */
    if (!pinned)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan: out of host memory");
    for (int v = 0; v < n; v++) {
        const device_value_plan *vp = &desc->value_plans[v];
        r->root[v] = device_alias_root(desc->value_plans, n, v, NULL);
        if (!vp->used)
            continue;
        size_t b;
        vkml_status st = value_bytes(desc, v, &b, err);
        if (st != VKML_OK) {
            free(pinned);
            return st;
        }
        int root = r->root[v];
        r->bytes[root] = b > r->bytes[root] ? b : r->bytes[root];
        pinned[root] |= vp->host_access || vp->constant;
    }
    for (int v = 0; v < n; v++) {
        r->transient[v] = desc->value_plans[v].used && !pinned[v];
        r->words[v] = (r->bytes[v] ? r->bytes[v] + 3 : 4) / 4 * 4;
    }
    free(pinned);
    return VKML_OK;
}

/* The first chunk (in order) with a node reading root or an alias of it, or -1. */
static int first_reading_chunk(const device_session_desc *desc, const value_roots *r, int root)
{
    for (int c = 0; c < desc->n_chunks; c++) {
        for (int i = 0; i < desc->chunks[c].n_nodes; i++) {
            const graph_node *node = &desc->graph->nodes[desc->chunks[c].nodes[i]];
            for (int k = 0; k < node->n_inputs; k++)
                if (node->inputs[k] >= 0 && r->root[node->inputs[k]] == root)
                    return c;
        }
    }
    return -1;
}

/* Whether `node` writes the memory of root: an output of it lives there and no input does
 * (a node whose output shares its input's memory, a Reshape or a Slice view, writes
 * nothing; a producer of a Concat input written in place writes part of the Concat's). */
static bool node_writes(const value_roots *r, const graph_node *node, int root)
{
    bool out = false;
    for (int k = 0; k < node->n_outputs; k++)
        out |= node->outputs[k] >= 0 && r->root[node->outputs[k]] == root;
    for (int k = 0; out && k < node->n_inputs; k++)
        if (node->inputs[k] >= 0 && r->root[node->inputs[k]] == root)
            return false;
    return out;
}

/* The last chunk (in order) with a node writing root (node_writes), or -1. */
static int last_writing_chunk(const device_session_desc *desc, const value_roots *r, int root)
{
    for (int c = desc->n_chunks - 1; c >= 0; c--)
        for (int i = 0; i < desc->chunks[c].n_nodes; i++)
            if (node_writes(r, &desc->graph->nodes[desc->chunks[c].nodes[i]], root))
                return c;
    return -1;
}

/* Whether a node of this device writes root. */
static bool root_written(const device_session_desc *desc, const value_roots *r, int root)
{
    return last_writing_chunk(desc, r, root) >= 0;
}

/* Host-visible memory for roots the host touches: cached host memory when a node of this
 * device writes the value (the host reads it back), else device-local host-visible
 * memory where the device has it (the host writes, kernels read it, maybe many times). */
static vk_mem_kind root_kind(const device_session_desc *desc, const value_roots *r, int root)
{
    bool host = false, written = false;
    for (int v = 0; v < desc->graph->n_values; v++)
        if (r->root[v] == root && desc->value_plans[v].used && desc->value_plans[v].host_access)
            host = true;
    if (!host)
        return VK_MEM_DEVICE;
    written = root_written(desc, r, root);
    return written ? VK_MEM_HOST : VK_MEM_UPLOAD;
}

/* Root v, its host copy just made (host_copy[v]), gets the device-local memory its
 * kernels use, copied out to the host copy after the last chunk writing it or, where
 * none does, in from it before the first chunk reading it (record_shared_copies). */
static vkml_status pair_with_device_copy(device_session *s, const device_session_desc *desc,
                                         const value_roots *r, int v, vkml_error *err)
{
    s->host_copy_owned[v] = true;
    s->copy_out_chunk[v] = last_writing_chunk(desc, r, v);
    if (s->copy_out_chunk[v] < 0)
        s->copy_in_chunk[v] = first_reading_chunk(desc, r, v);
    vkml_status st = vk_mem_alloc(s->vd->alloc, VK_MEM_DEVICE, r->bytes[v], &s->mem[v], err);
    s->owned[v] = st == VKML_OK;
    return st;
}

/* A root shared with another device through the plan's host allocation (shared_host),
 * imported here. The device keeps a device-local copy, which kernels read and write (not
 * the bus): a device that writes the value copies it out after the last chunk writing it,
 * one that only reads it copies it in before the first chunk reading it
 * (record_shared_copies), each on a copy queue beside other runs' kernels. */
static vkml_status share_value(device_session *s, const device_session_desc *desc,
                               const value_roots *r, int v, vkml_error *err)
{
    VkDeviceSize align = s->vd->base.host_share_align;
    VkDeviceSize size = (r->bytes[v] + align - 1) / align * align;
    vkml_status st = vk_mem_import_host(s->vd->alloc, desc->value_plans[v].shared_host,
                                        size ? size : align, &s->host_copy[v], err);
    return st == VKML_OK ? pair_with_device_copy(s, desc, r, v, err) : st;
}

/* Whether root, which the host reads back (a graph output, a value a CPU chunk reads) and
 * this device writes, is read back by a copy (read_back_value): when other runs are in
 * flight, whose kernels the copy overlaps (at one run in flight it only adds to the
 * latency), it has at least vk_device.output_copy_min bytes, and its last writer is the
 * device's last chunk, which the host always waits for (no later chunk of this device
 * follows it; sched.h), so that its fence, signalled after the copy, covers the copy. */
static bool reads_back_by_copy(const vk_device *vd, const device_session_desc *desc,
                               const value_roots *r, int root)
{
    return desc->runs_overlap && r->bytes[root] >= vd->output_copy_min &&
           last_writing_chunk(desc, r, root) == desc->n_chunks - 1;
}

/* A root read back by a copy (reads_back_by_copy): the kernels write it to device memory,
 * and a copy on the copy queue moves it to cached host memory after the last chunk
 * writing it (record_shared_copies), beside the next run's kernels, instead of the
 * kernels writing it over the bus themselves. */
static vkml_status read_back_value(device_session *s, const device_session_desc *desc,
                                   const value_roots *r, int v, vkml_error *err)
{
    vkml_status st = vk_mem_alloc(s->vd->alloc, VK_MEM_HOST, r->bytes[v], &s->host_copy[v], err);
    return st == VKML_OK ? pair_with_device_copy(s, desc, r, v, err) : st;
}

/* Allocates every root value: transients share one range by liveness, the others get
 * their own (host-visible when any of their aliases is host_access); aliases then point
 * at their root's range. */
static vkml_status allocate_values(device_session *s, const device_session_desc *desc,
                                   vkml_error *err)
{
    vkml_status status = VKML_OK;
    int n = s->n_values;
    uint64_t total = 0, bound = 0;
    value_roots r = {
        .root = calloc((size_t)n + 1, sizeof(int)),
        .bytes = calloc((size_t)n + 1, sizeof(size_t)),
        .words = calloc((size_t)n + 1, sizeof(uint64_t)),
        .transient = calloc((size_t)n + 1, sizeof(bool)),
        .offsets = calloc((size_t)n + 1, sizeof(uint64_t)),
        .placed = calloc((size_t)n + 1, sizeof(bool)),
    };
    if (!r.root || !r.bytes || !r.words || !r.transient || !r.offsets || !r.placed) {
        status = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan: out of host memory");
        goto cleanup;
    }
    VKML_TRY(collect_roots(desc, &r, err));
    /* Serial: the device's chunks run one after another on its queue, each command buffer
     * starting with a barrier behind everything submitted before (begin_barrier). */
    mem_plan_args plan_args = {.desc = desc,
                               .root = r.root,
                               .size = r.words,
                               .transient = r.transient,
                               .alignment = vk_allocator_alignment(s->vd->alloc),
                               .serial = true};
    VKML_TRY(mem_plan_session(&plan_args, r.offsets, r.placed, &total, &bound, err));
    s->memory_use = (device_memory_use){.intermediate_bytes = total, .intermediate_bound = bound};
    if (total)
        VKML_TRY(vk_mem_alloc(s->vd->alloc, VK_MEM_DEVICE, total, &s->transients, err));
    for (int v = 0; v < n; v++) {
        if (!desc->value_plans[v].used || r.root[v] != v)
            continue;
        if (r.placed[v]) {
            s->mem[v] = vk_mem_sub(&s->transients, r.offsets[v], r.bytes[v]);
            continue;
        }
        if (desc->value_plans[v].shared_host && !desc->value_plans[v].constant) {
            VKML_TRY(share_value(s, desc, &r, v, err));
            continue;
        }
        vk_mem_kind kind = root_kind(desc, &r, v);
        if (kind == VK_MEM_HOST && reads_back_by_copy(s->vd, desc, &r, v)) {
            VKML_TRY(read_back_value(s, desc, &r, v, err));
            continue;
        }
        if (desc->value_plans[v].constant && kind == VK_MEM_DEVICE && r.bytes[v] > 0) {
            s->want_shared[v] = true; /* upload_constants finds or makes its buffer */
            continue;
        }
        VKML_TRY(vk_mem_alloc(s->vd->alloc, kind, r.bytes[v], &s->mem[v], err));
        s->owned[v] = true;
    }
    for (int v = 0; v < n; v++) {
        if (!desc->value_plans[v].used || r.root[v] == v)
            continue;
        /* an alias: its root's range; a view (plan/views.h): the part of it where it lies */
        uint64_t offset;
        size_t bytes = 0;
        device_alias_root(desc->value_plans, n, v, &offset);
        VKML_TRY(value_bytes(desc, v, &bytes, err));
        const vk_mem *root = &s->mem[r.root[v]];
        s->mem[v] = offset || bytes != root->size ? vk_mem_sub(root, offset, bytes) : *root;
        s->host_copy[v] = s->host_copy[r.root[v]];
    }
    VKML_LOGD("Vulkan session on '%s': %llu bytes shared by transient values (liveness "
              "bound %llu)",
              s->vd->base.info.name, (unsigned long long)total, (unsigned long long)bound);
cleanup:
    if (status != VKML_OK)
        vkml_error_prefix(err, "allocating session memory on '%s'", s->vd->base.info.name);
    free(r.root);
    free(r.bytes);
    free(r.words);
    free(r.transient);
    free(r.offsets);
    free(r.placed);
    return status;
}

/* Which constants are uploaded packed over taps: conv weights that only Convs taking
 * gemm_coop.comp's CONV=2 form read on this device (vk_conv_packs_weights), device-local
 * roots of their own (no alias or view shares them). */
static void mark_packed(device_session *s, const device_session_desc *desc)
{
    int n = s->n_values;
    bool *veto = calloc((size_t)n + 1, sizeof(bool));
    if (!veto)
        return; /* nothing packed: the convs take the other kernels */
    for (int v = 0; v < n; v++) {
        int root = desc->value_plans[v].alias_of;
        if (desc->value_plans[v].used && root >= 0 && root < n)
            veto[root] = veto[v] = true;
    }
    const op_def *conv = op_find("", "Conv");
    for (int c = 0; c < desc->n_chunks; c++)
        for (int i = 0; i < desc->chunks[c].n_nodes; i++) {
            const graph_node *node = &desc->graph->nodes[desc->chunks[c].nodes[i]];
            bool packs = node->op == conv && node->n_inputs > 1 &&
                         vk_conv_packs_weights(desc->values, node, &s->vd->caps, desc->fast_math);
            for (int k = 0; k < node->n_inputs; k++) {
                int v = node->inputs[k];
                if (v < 0 || v >= n)
                    continue;
                if (packs && k == 1)
                    s->packed[v] = true;
                else
                    veto[v] = true;
            }
        }
    for (int v = 0; v < n; v++)
        s->packed[v] = s->packed[v] && !veto[v] && s->want_shared[v];
    free(veto);
}

/* The weights [M][C][taps] of value v as [M][taps][C], in a new host buffer (NULL: out of
 * memory). */
static void *pack_taps(const device_session_desc *desc, int v)
{
    const graph_value *w = &desc->values[v];
    size_t elem = vkml_dtype_size(w->dtype), bytes = 0;
    if (w->rank < 3 || !elem || !vkml_tensor_bytes(w->dtype, w->rank, w->dims, &bytes))
        return NULL;
    int64_t m = w->dims[0], c = w->dims[1], taps = 1;
    for (int d = 2; d < w->rank; d++)
        taps *= w->dims[d];
    char *out = malloc(bytes ? bytes : 1);
    const char *in = desc->value_plans[v].constant;
    for (int64_t i = 0; out && i < m; i++)
        for (int64_t ch = 0; ch < c; ch++)
            for (int64_t t = 0; t < taps; t++)
                memcpy(out + (size_t)((i * taps + t) * c + ch) * elem,
                       in + (size_t)((i * c + ch) * taps + t) * elem, elem);
    return out;
}

/* Constants: device-local ones found in (or added to) the device's shared buffers, the
 * others copied into their own memory; new ones uploaded (mapped: copied straight in,
 * else through staging buffers). Under consts_lock, so that no session sees a shared
 * constant before it is uploaded; a failed upload takes its new entries back out. */
static vkml_status upload_constants(device_session *s, const device_session_desc *desc,
                                    vkml_error *err)
{
    vkml_status status = VKML_OK;
    vk_upload_item *items = calloc((size_t)s->n_values + 1, sizeof(*items));
    bool *fresh = calloc((size_t)s->n_values + 1, sizeof(bool));
    void **packed = calloc((size_t)s->n_values + 1, sizeof(void *)); /* pack_taps's copies */
    int n_items = 0;
    if (!items || !fresh || !packed) {
        free(items);
        free(fresh);
        free(packed);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan: out of host memory");
    }
    vk_device *vd = s->vd;
    pthread_mutex_lock(&vd->consts_lock);
    for (int v = 0; v < s->n_values && status == VKML_OK; v++) {
        const device_value_plan *vp = &desc->value_plans[v];
        if (s->want_shared[v]) {
            size_t bytes = 0;
            value_bytes(desc, v, &bytes, err);
            vk_const_layout layout = s->packed[v] ? VK_CONST_CONV_TAPS : VK_CONST_AS_IS;
            vk_const *c = vk_const_find(vd, vp->constant, bytes, layout);
            if (!c && (status = vk_const_add(vd, vp->constant, bytes, layout, &c, err)) != VKML_OK)
                break;
            fresh[v] = c->refs == 1;
            s->shared[v] = true;
            s->mem[v] = c->mem;
            if (!fresh[v])
                continue;
        }
        if (!vp->used || !vp->constant || s->mem[v].size == 0)
            continue;
        const void *data = vp->constant;
        if (s->packed[v] && !(data = packed[v] = pack_taps(desc, v))) {
            status = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan: out of host memory");
            break;
        }
        if (s->mem[v].map)
            memcpy(s->mem[v].map, data, s->mem[v].size);
        else
            items[n_items++] = (vk_upload_item){data, s->mem[v].size, &s->mem[v]};
    }
    if (status == VKML_OK && n_items)
        status = vk_upload(vd, s->cmd_pool, items, n_items, err);
    for (int v = 0; status != VKML_OK && v < s->n_values; v++)
        if (fresh[v]) { /* never uploaded: out of the cache before anyone sees it */
            vk_const_release(vd, &s->mem[v]);
            s->shared[v] = false;
        }
    pthread_mutex_unlock(&vd->consts_lock);
    for (int v = 0; v < s->n_values; v++)
        free(packed[v]);
    free(items);
    free(fresh);
    free(packed);
    return status;
}

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
        vkCmdCopyBuffer(*cmd, out ? dev->buffer : host->buffer, out ? host->buffer : dev->buffer,
                        1, &region);
    }
    if (out) { /* the host, and the readers it submits, see the copies once the fence has */
        VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                              .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                              .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
        vkCmdPipelineBarrier(*cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0,
                             1, &mb, 0, NULL, 0, NULL);
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
    VKML_TRY(allocate_values(s, desc, err));
    mark_packed(s, desc);
    VKML_TRY(upload_constants(s, desc, err));
    for (int i = 0; i < s->n_chunks; i++)
        VKML_TRY(record_chunk(s, desc, i, err));
    *out = s;
    return VKML_OK;
cleanup:
    vk_session_destroy(&s);
    return status;
}

device_memory_use vk_session_memory(const device_session *s)
{
    return s ? s->memory_use : (device_memory_use){0};
}

void *vk_session_host_ptr(device_session *s, int value)
{
    if (!s || value < 0 || value >= s->n_values)
        return NULL;
    return s->host_copy[value].block ? s->host_copy[value].map : s->mem[value].map;
}

/* Submits the chunk's command buffer behind what the queue holds (its begin barrier orders
 * it after earlier chunks' writes); under the VKML_TEST_SYNC_CHUNKS hook, submits and waits. */
vkml_status vk_session_submit(device_session *s, int chunk, device_event *done, vkml_error *err)
{
    *done = (device_event){0};
    if (chunk < 0 || chunk >= s->n_chunks)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "Vulkan: no chunk %d", chunk);
    vkml_status st;
    vk_chunk *c = &s->chunks[chunk];
    vk_submit what = {.copy_in = c->copy_in,
                      .copied_in = c->copied_in,
                      .cmd = c->cmd,
                      .computed = c->computed,
                      .copy_out = c->copy_out};
    if (s->vd->queued_chunks) {
        int next = 1 - c->cur;
        /* Not reset by a wait (a chunk the host does not wait for, or a failed run): that
         * submit is done (its run waited for a later fence of this queue), but the
         * fence's own signal may trail: wait for it before the reset. */
        if (c->pending[next]) {
            VkResult r = vkWaitForFences(s->vd->dev, 1, &c->fences[next], VK_TRUE, UINT64_MAX);
            if (r == VK_SUCCESS)
                r = vkResetFences(s->vd->dev, 1, &c->fences[next]);
            if (r != VK_SUCCESS)
                return vk_result_fail(err, r, "vkWaitForFences/vkResetFences", __FILE__, __LINE__);
            c->pending[next] = false;
        }
        c->submit_ns = vk_now_ns();
        st = vk_stream_submit(s->vd, &what, c->fences[next], true, err);
        if (st == VKML_OK) {
            c->pending[next] = true;
            c->cur = next;
            /* the event is the chunk: its current fence and its wait hint */
            *done = (device_event){.dev = &s->vd->base, .value = (uint64_t)(uintptr_t)c};
        }
    } else {
        st = vk_submit_wait(s->vd, &what, c->fences[0], true, err);
    }
    if (st != VKML_OK)
        vkml_error_prefix(err, "running chunk %d on '%s'", chunk, s->vd->base.info.name);
    return st;
}

vkml_status vk_session_node_times(device_session *s, int chunk, double *node_us, vkml_error *err)
{
    if (chunk < 0 || chunk >= s->n_chunks || !s->chunks[chunk].timestamps)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "Vulkan: chunk %d is not profiled",
                         chunk);
    vk_chunk *c = &s->chunks[chunk];
    uint64_t stamps[257], *t = c->n_nodes < 256 ? stamps : calloc((size_t)c->n_nodes + 1, 8);
    if (!t)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan: out of host memory");
    VkResult r = vkGetQueryPoolResults(s->vd->dev, c->timestamps, 0, (uint32_t)c->n_nodes + 1,
                                       sizeof(uint64_t) * ((size_t)c->n_nodes + 1), t,
                                       sizeof(uint64_t), VK_QUERY_RESULT_64_BIT);
    uint64_t mask = s->vd->caps.timestamp_bits >= 64 ? UINT64_MAX
                                                     : (1ull << s->vd->caps.timestamp_bits) - 1;
    for (int k = 0; r == VK_SUCCESS && k < c->n_nodes; k++)
        node_us[k] = (double)((t[k + 1] - t[k]) & mask) * s->vd->props.limits.timestampPeriod / 1e3;
    if (t != stamps)
        free(t);
    if (r == VK_NOT_READY)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "Vulkan: chunk %d has not completed a run since it was recorded", chunk);
    return r == VK_SUCCESS ? VKML_OK
                           : vk_result_fail(err, r, "vkGetQueryPoolResults", __FILE__, __LINE__);
}

/* A thread about to poll the device while on the CPU that services its interrupts leaves
 * that CPU for good (vkml_context_params.keep_thread_affinity says why), unless told not
 * to. One sched_getcpu a wait otherwise. */
static void leave_irq_cpu(const vk_device *vd)
{
    int cpu = vd->base.info.irq_cpu;
    if (cpu < 0 || vd->keep_affinity || sched_getcpu() != cpu)
        return;
    if (vkml_thread_avoid_cpu(cpu))
        VKML_LOGD("Vulkan device '%s': a thread polling it left CPU %d, its interrupts' CPU",
                  vd->base.info.name, cpu);
}

vkml_status vk_event_wait(device_event ev, uint64_t spin_ns, vkml_error *err)
{
    vk_device *vd = (vk_device *)ev.dev;
    /* A CPU implementation of Vulkan (lavapipe) runs the work on the cores a poll takes, and
     * its polls slow it down (mnist-8: 3.8 ms a run without, 5.8 ms with 5 us of polling). */
    if (spin_ns == DEVICE_SPIN_DEFAULT)
        spin_ns = vd->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU
                      ? 0
                      : (uint64_t)VKML_DEFAULT_WAIT_SPIN_US * 1000;
    if (spin_ns)
        leave_irq_cpu(vd);
    vk_chunk *c = (vk_chunk *)(uintptr_t)ev.value;
    /* The chunk's other fence, from its previous submit (done long since, as a rule):
     * reset now, while the GPU runs this one, rather than on the next submit's path
     * (mnist-8: see docs/performance.md). Left for the submit if it has not signalled. */
    int other = 1 - c->cur;
    if (c->pending[other] && vkGetFenceStatus(vd->dev, c->fences[other]) == VK_SUCCESS &&
        vkResetFences(vd->dev, 1, &c->fences[other]) == VK_SUCCESS)
        c->pending[other] = false;
    vk_wait_hint hint = {.submit_ns = c->submit_ns, .expect_ns = &c->expect_ns};
    vkml_status st = vk_stream_wait(vd, c->fences[c->cur], spin_ns, &hint, err);
    if (st != VKML_OK)
        vkml_error_prefix(err, "waiting for '%s'", vd->base.info.name);
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
