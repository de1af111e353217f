/* A Vulkan session's value memory (vk_session.h): transient values share one range by
 * liveness, the others get their own, host-visible, shared with other devices through the
 * host or read back by a copy; aliases and views point into their root's. */
#include "device/mem_plan.h"
#include "vulkan/vk_session.h"

#include <stdlib.h>

vkml_status vk_session_value_bytes(const device_session_desc *desc, int v, size_t *out,
                                   vkml_error *err)
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
        vkml_status st = vk_session_value_bytes(desc, v, &b, err);
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
vkml_status vk_session_allocate_values(device_session *s, const device_session_desc *desc,
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
            s->want_shared[v] = true; /* vk_session_upload_constants finds or makes its buffer */
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
        VKML_TRY(vk_session_value_bytes(desc, v, &bytes, err));
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
