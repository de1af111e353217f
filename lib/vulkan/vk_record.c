#include "vulkan/vk_record.h"
#include "vulkan/vk_counts.h"
#include "vulkan/vk_pipeline.h"
#include "vulkan/vk_spirv_writes.h"

#include <stdlib.h>
#include <string.h>

typedef struct rec_dispatch {
    int variant;         /* index into vk_spirv_table */
    VkPipeline pipeline; /* a generated one instead (vk_dispatch.pipeline) */
    bool specialized;    /* the variant's pipeline for epi (vk_dispatch.epi) */
    vk_epilogue_push epi;
    int n_bindings;
    VkDescriptorBufferInfo buf[VK_MAX_BINDINGS];
    unsigned write_mask;
    uint32_t push[VK_PUSH_CONSTANT_MAX / 4];
    uint32_t push_size;
    uint32_t groups[3];
    int node; /* position in the chunk of the node that recorded it (vk_rec_set_node) */
} rec_dispatch;

/* A range touched since the last barrier. */
typedef struct rec_access {
    VkBuffer buffer;
    VkDeviceSize offset, size;
    bool write;
} rec_access;

struct gpu_recorder {
    vk_device *vd;
    const vk_mem *values;
    const bool *packed; /* per value: conv weights packed over taps (may be NULL) */
    int n_values;
    rec_dispatch *dispatches;
    int n_dispatches, cap_dispatches;
    rec_access *pending; /* since the last barrier */
    int n_pending;
    int node;        /* the node recording now (vk_rec_set_node) */
    bool fast_math;  /* the session's precision is fp32-fast */
    bool plain;      /* vk_rec_plain_pipelines */
    vk_mem *scratch; /* vk_rec_scratch's buffers: values n_values, n_values + 1 ... */
    int n_scratch;
    int slot_latest[VK_SCRATCH_SLOTS]; /* per slot its newest buffer + 1 (0: none yet) */
};

vkml_status vk_rec_create(vk_device *vd, const vk_mem *values, const bool *packed, int n_values,
                          bool fast_math, gpu_recorder **out, vkml_error *err)
{
    gpu_recorder *rec = calloc(1, sizeof(*rec));
    if (!rec)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan recorder: out of host memory");
    rec->vd = vd;
    rec->values = values;
    rec->packed = packed;
    rec->n_values = n_values;
    rec->fast_math = fast_math;
    *out = rec;
    return VKML_OK;
}

void vk_rec_destroy(gpu_recorder **prec)
{
    gpu_recorder *rec = prec ? *prec : NULL;
    if (!rec)
        return;
    free(rec->dispatches);
    free(rec->pending);
    for (int i = 0; i < rec->n_scratch; i++)
        vk_mem_free(rec->vd->alloc, &rec->scratch[i]);
    free(rec->scratch);
    free(rec);
    *prec = NULL;
}

const struct gpu_caps *vk_rec_caps(const gpu_recorder *rec)
{
    return &rec->vd->caps;
}

bool vk_rec_fast_math(const gpu_recorder *rec)
{
    return rec->fast_math;
}

bool vk_rec_packed(const gpu_recorder *rec, int value)
{
    return rec->packed && value >= 0 && value < rec->n_values && rec->packed[value];
}

vk_device *vk_rec_device(const gpu_recorder *rec)
{
    return rec->vd;
}

bool vk_rec_same_bytes(const gpu_recorder *rec, int a, uint64_t a_at, int b, uint64_t b_at)
{
    const vk_mem *ma = &rec->values[a], *mb = &rec->values[b];
    return ma->buffer == mb->buffer && ma->offset + a_at == mb->offset + b_at;
}

bool vk_rec_same_memory(const gpu_recorder *rec, int a, int b)
{
    return vk_rec_same_bytes(rec, a, 0, b, 0);
}

void vk_groups_1d(const struct gpu_caps *caps, uint64_t invocations, uint32_t groups[3])
{
    uint64_t total = (invocations + VK_WG_SIZE_1D - 1) / VK_WG_SIZE_1D;
    uint64_t max_x = caps->max_workgroup_count[0] ? caps->max_workgroup_count[0] : 65535;
    uint64_t x = total < max_x ? total : max_x;
    if (x == 0)
        x = 1;
    groups[0] = (uint32_t)x;
    groups[1] = (uint32_t)((total + x - 1) / x);
    groups[2] = 1;
}

vkml_status vk_rec_scratch(gpu_recorder *rec, vk_scratch_slot slot, uint64_t bytes, int *value,
                           vkml_error *err)
{
    if ((int)slot < 0 || slot >= VK_SCRATCH_SLOTS)
        return vkml_fail(err, VKML_ERROR_DEVICE, "Vulkan recorder: scratch slot %d", (int)slot);
    int latest = rec->slot_latest[slot] - 1;
    if (latest >= 0 && rec->scratch[latest].size >= bytes) {
        /* the dispatches that used it come before: vk_rec_finish's barriers order them */
        *value = rec->n_values + latest;
        return VKML_OK;
    }
    vk_mem *grown = realloc(rec->scratch, (size_t)(rec->n_scratch + 1) * sizeof(*grown));
    if (!grown)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan recorder: out of host memory");
    rec->scratch = grown;
    vkml_status st = vk_mem_alloc(rec->vd->alloc, VK_MEM_DEVICE, bytes ? bytes : 4,
                                  &rec->scratch[rec->n_scratch], err);
    if (st != VKML_OK)
        return st;
    rec->slot_latest[slot] = rec->n_scratch + 1;
    *value = rec->n_values + rec->n_scratch++;
    return VKML_OK;
}

void vk_rec_take_scratch(gpu_recorder *rec, vk_mem **mems, int *n)
{
    *mems = rec->scratch;
    *n = rec->n_scratch;
    rec->scratch = NULL;
    rec->n_scratch = 0;
    memset(rec->slot_latest, 0, sizeof(rec->slot_latest));
}

static vkml_status bind_value(gpu_recorder *rec, int value, VkDescriptorBufferInfo *out,
                              vkml_error *err)
{
    bool scratch = value >= rec->n_values && value - rec->n_values < rec->n_scratch;
    if (value < 0 || (!scratch && (value >= rec->n_values || !rec->values[value].buffer)))
        return vkml_fail(err, VKML_ERROR_DEVICE,
                         "Vulkan recorder: value %d has no memory on this device", value);
    const vk_mem *m = scratch ? &rec->scratch[value - rec->n_values] : &rec->values[value];
    /* Whole 32-bit words: kernels that move raw words round up; the allocator's
     * alignment guarantees the room. */
    VkDeviceSize range = ((m->size ? m->size : 1) + 3) / 4 * 4;
    *out = (VkDescriptorBufferInfo){.buffer = m->buffer, .offset = m->offset, .range = range};
    return VKML_OK;
}

vkml_status vk_rec_dispatch(gpu_recorder *rec, const vk_dispatch *d, vkml_error *err)
{
    if (d->push_size > vk_push_constant_bytes(&rec->vd->caps) || d->kernel >= VK_KERNEL_COUNT)
        return vkml_fail(err, VKML_ERROR_DEVICE, "Vulkan recorder: bad dispatch of kernel %d",
                         (int)d->kernel);
    if ((uint32_t)vk_kernels[d->kernel].n_bindings > rec->vd->caps.max_bindings)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "Vulkan: kernel '%s' binds %d buffers, the device allows %u",
                         vk_kernels[d->kernel].name, vk_kernels[d->kernel].n_bindings,
                         rec->vd->caps.max_bindings);
    vkml_dtype dtype = d->dtype == VKML_DTYPE_UNDEFINED ? VKML_DTYPE_FLOAT : d->dtype;
    int variant = vk_kernel_variant(d->kernel, (int)dtype);
    if (variant < 0)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "Vulkan: kernel '%s' has no %s variant",
                         vk_kernels[d->kernel].name, vkml_dtype_name(dtype));
    /* The barriers rest on write_mask: it must name exactly the bound buffers the shader
     * declares writable (an unbound one, -1, may go unnamed). */
    int n = vk_kernels[d->kernel].n_bindings;
    unsigned bound = 0, all = (1u << n) - 1;
    for (int i = 0; i < n; i++)
        bound |= d->bind[i] >= 0 ? 1u << i : 0u;
    unsigned writable = vk_variant_written_bindings(variant) & all;
    if ((writable & bound & ~d->write_mask) || (d->write_mask & ~writable & all))
        return vkml_fail(err, VKML_ERROR_DEVICE,
                         "Vulkan recorder: kernel '%s' declares bindings 0x%x writable, the "
                         "dispatch marks 0x%x written",
                         vk_kernels[d->kernel].name, writable, d->write_mask);
    if (d->groups[0] == 0 || d->groups[1] == 0 || d->groups[2] == 0)
        return VKML_OK; /* nothing to do (an empty tensor) */
    if (rec->n_dispatches == rec->cap_dispatches) {
        int cap = rec->cap_dispatches ? 2 * rec->cap_dispatches : 16;
        rec_dispatch *grown = realloc(rec->dispatches, (size_t)cap * sizeof(*grown));
        if (!grown)
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan recorder: out of host memory");
        rec->dispatches = grown;
        rec->cap_dispatches = cap;
    }
    rec_dispatch *r = &rec->dispatches[rec->n_dispatches];
    memset(r, 0, sizeof(*r));
    r->variant = variant;
    r->pipeline = d->pipeline;
    r->specialized = d->epi != NULL && !rec->plain;
    if (r->specialized)
        r->epi = *d->epi;
    r->n_bindings = vk_kernels[d->kernel].n_bindings;
    for (int i = 0; i < r->n_bindings; i++) {
        vkml_status st = bind_value(rec, d->bind[i], &r->buf[i], err);
        if (st != VKML_OK)
            return st;
    }
    r->write_mask = d->write_mask;
    memcpy(r->push, d->push, d->push_size);
    r->push_size = d->push_size;
    memcpy(r->groups, d->groups, sizeof(r->groups));
    r->node = rec->node;
    rec->n_dispatches++;
    return VKML_OK;
}

void vk_rec_plain_pipelines(gpu_recorder *rec)
{
    rec->plain = true;
}

void vk_rec_set_node(gpu_recorder *rec, int position)
{
    rec->node = position;
}

vkml_status vk_rec_kernel_epilogue(gpu_recorder *rec, vk_kernel_id kernel, vkml_dtype dtype,
                                   const int *bind, const void *push, uint32_t push_size,
                                   const uint32_t groups[3], const vk_epilogue_push *epi,
                                   vkml_error *err)
{
    int n = vk_kernels[kernel].n_bindings;
    vk_dispatch d = {
        .kernel = kernel,
        .dtype = dtype,
        .write_mask = 1u << (n - 1),
        .push = push,
        .push_size = push_size,
        .groups = {groups[0], groups[1], groups[2]},
        .epi = epi,
    };
    memcpy(d.bind, bind, (size_t)n * sizeof(int));
    return vk_rec_dispatch(rec, &d, err);
}

vkml_status vk_rec_kernel(gpu_recorder *rec, vk_kernel_id kernel, vkml_dtype dtype, const int *bind,
                          const void *push, uint32_t push_size, const uint32_t groups[3],
                          vkml_error *err)
{
    return vk_rec_kernel_epilogue(rec, kernel, dtype, bind, push, push_size, groups, NULL, err);
}

vkml_status vk_rec_kernel_1d(gpu_recorder *rec, vk_kernel_id kernel, vkml_dtype dtype,
                             const int *bind, const void *push, uint32_t push_size,
                             uint64_t invocations, vkml_error *err)
{
    uint32_t groups[3];
    vk_groups_1d(&rec->vd->caps, invocations, groups);
    return vk_rec_kernel(rec, kernel, dtype, bind, push, push_size, groups, err);
}

static bool overlaps(const rec_access *a, const VkDescriptorBufferInfo *b)
{
    return a->buffer == b->buffer && a->offset < b->offset + b->range &&
           b->offset < a->offset + a->size;
}

/* Whether dispatch r conflicts with an access since the last barrier. */
static bool needs_barrier(const gpu_recorder *rec, const rec_dispatch *r)
{
    for (int i = 0; i < r->n_bindings; i++) {
        bool writes = r->write_mask & (1u << i);
        for (int j = 0; j < rec->n_pending; j++) {
            const rec_access *p = &rec->pending[j];
            if ((writes || p->write) && overlaps(p, &r->buf[i]))
                return true;
        }
    }
    return false;
}

static vkml_status note_accesses(gpu_recorder *rec, const rec_dispatch *r, vkml_error *err)
{
    rec_access *grown =
        realloc(rec->pending, (size_t)(rec->n_pending + r->n_bindings) * sizeof(*grown));
    if (!grown)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan recorder: out of host memory");
    rec->pending = grown;
    for (int i = 0; i < r->n_bindings; i++) {
        rec->pending[rec->n_pending++] = (rec_access){
            .buffer = r->buf[i].buffer,
            .offset = r->buf[i].offset,
            .size = r->buf[i].range,
            .write = (r->write_mask & (1u << i)) != 0,
        };
    }
    return VKML_OK;
}

static void compute_barrier(VkCommandBuffer cmd)
{
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT,
        .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
    };
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
}

static vkml_status create_pool(gpu_recorder *rec, VkDescriptorPool *pool, vkml_error *err)
{
    vkml_status status = VKML_OK;
    /* Each set takes all VK_MAX_BINDINGS descriptors of the shared layout. */
    VkDescriptorPoolSize size = {
        .type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        .descriptorCount = (uint32_t)rec->n_dispatches * VK_MAX_BINDINGS,
    };
    VkDescriptorPoolCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .maxSets = (uint32_t)rec->n_dispatches,
        .poolSizeCount = 1,
        .pPoolSizes = &size,
    };
    VK_CREATE(VKML_VK_DESCRIPTOR_POOL, vkCreateDescriptorPool(rec->vd->dev, &pci, NULL, pool));
cleanup:
    return status;
}

/* Records dispatch r; *bound is the pipeline the command buffer has bound (VK_NULL_HANDLE:
 * none yet), which is bound again only when it changes. */
static vkml_status record_one(gpu_recorder *rec, VkCommandBuffer cmd, VkDescriptorPool pool,
                              const rec_dispatch *r, VkPipeline *bound, vkml_error *err)
{
    vkml_status status = VKML_OK;
    vk_pipelines *pipes = rec->vd->pipes;
    VkPipeline pipeline = r->pipeline;
    if (!pipeline && r->specialized)
        VKML_TRY(vk_pipeline_get_epilogue(pipes, r->variant, &r->epi, &pipeline, err));
    else if (!pipeline)
        VKML_TRY(vk_pipeline_get(pipes, r->variant, &pipeline, err));
    VkDescriptorSet set;
    VkDescriptorSetAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
        .descriptorPool = pool,
        .descriptorSetCount = 1,
        .pSetLayouts = &pipes->set_layout,
    };
    VK(vkAllocateDescriptorSets(rec->vd->dev, &ai, &set));
    VkWriteDescriptorSet writes[VK_MAX_BINDINGS];
    for (int i = 0; i < r->n_bindings; i++) {
        writes[i] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstSet = set,
            .dstBinding = (uint32_t)i,
            .descriptorCount = 1,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .pBufferInfo = &r->buf[i],
        };
    }
    vkUpdateDescriptorSets(rec->vd->dev, (uint32_t)r->n_bindings, writes, 0, NULL);
    if (pipeline != *bound)
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    *bound = pipeline;
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipes->layout, 0, 1, &set, 0,
                            NULL);
    if (r->push_size)
        vkCmdPushConstants(cmd, pipes->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, r->push_size,
                           r->push);
    vkCmdDispatch(cmd, r->groups[0], r->groups[1], r->groups[2]);
cleanup:
    return status;
}

/* Timestamps `*written` + 1 .. `upto` of the profile (each node's end), once the work
 * recorded so far is done. */
static void stamp_nodes(const vk_rec_profile *prof, VkCommandBuffer cmd, int *written, int upto)
{
    for (; prof && *written < upto; ++*written)
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, prof->pool,
                            (uint32_t)*written + 1);
}

vkml_status vk_rec_finish(gpu_recorder *rec, VkCommandBuffer cmd, VkDescriptorPool *pool,
                          const vk_rec_profile *prof, int *barriers, vkml_error *err)
{
    vkml_status status = VKML_OK;
    int n_barriers = 0, stamped = 0;
    *pool = VK_NULL_HANDLE;
    if (prof) {
        vkCmdResetQueryPool(cmd, prof->pool, 0, (uint32_t)prof->n_nodes + 1);
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, prof->pool, 0);
    }
    if (rec->n_dispatches == 0)
        goto cleanup;
    VKML_TRY(create_pool(rec, pool, err));
    rec->n_pending = 0;
    VkPipeline bound = VK_NULL_HANDLE;
    for (int i = 0; i < rec->n_dispatches; i++) {
        const rec_dispatch *r = &rec->dispatches[i];
        stamp_nodes(prof, cmd, &stamped, r->node);
        if (needs_barrier(rec, r)) {
            compute_barrier(cmd);
            n_barriers++;
            rec->n_pending = 0;
        }
        VKML_TRY(note_accesses(rec, r, err));
        VKML_TRY(record_one(rec, cmd, *pool, r, &bound, err));
    }
cleanup:
    if (status == VKML_OK && prof)
        stamp_nodes(prof, cmd, &stamped, prof->n_nodes);
    if (barriers)
        *barriers = n_barriers;
    return status;
}
