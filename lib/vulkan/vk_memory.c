#include "vulkan/vk_memory.h"
#include "vulkan/vk_counts.h"
#include "vulkan/vk_fault.h"

#include <stdlib.h>
#include <string.h>

/* Free ranges of a block, sorted by offset, merged with their neighbours. */
typedef struct vk_range {
    VkDeviceSize offset, size;
} vk_range;

struct vk_block {
    vk_block *next;
    vk_mem_kind kind;
    VkDeviceMemory memory;
    VkBuffer buffer;
    VkDeviceSize size;
    VkDeviceSize memory_bytes; /* of the VkDeviceMemory (counted against the limit) */
    void *map;
    vk_range *free_ranges;
    int n_free, cap_free;
};

struct vk_allocator {
    vk_device *vd;
    pthread_mutex_t lock;
    vk_block *blocks;
    VkDeviceSize alignment;
    VkDeviceSize limit; /* bytes of VkDeviceMemory vkml may hold on the device; 0: none */
    VkDeviceSize used;  /* bytes of VkDeviceMemory held (under lock) */
};

static const VkBufferUsageFlags buffer_usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                               VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                               VK_BUFFER_USAGE_TRANSFER_DST_BIT;

/* Buffers are used by the kernels' queue family and, where the copy queues are of another
 * (vk_device.copy_family), by that one too: shared by both (no ownership transfers); else
 * exclusive. `families` holds the two indices while bci is in use. */
static void share_with_copy_family(const vk_device *vd, VkBufferCreateInfo *bci,
                                   uint32_t families[2])
{
    families[0] = vd->queue_family;
    families[1] = vd->copy_family;
    bool two = vd->copy_family != vd->queue_family;
    bci->sharingMode = two ? VK_SHARING_MODE_CONCURRENT : VK_SHARING_MODE_EXCLUSIVE;
    bci->queueFamilyIndexCount = two ? 2 : 0;
    bci->pQueueFamilyIndices = two ? families : NULL;
}

static VkDeviceSize align_up(VkDeviceSize v, VkDeviceSize a)
{
    return (v + a - 1) / a * a;
}

vkml_status vk_allocator_create(vk_device *vd, vk_allocator **out, vkml_error *err)
{
    vk_allocator *a = calloc(1, sizeof(*a));
    if (!a)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan allocator: out of host memory");
    a->vd = vd;
    pthread_mutex_init(&a->lock, NULL);
    /* 16 bytes at least (vec4 loads), the storage offset alignment, and the atom size so
     * that ranges of host memory never share a non-coherent atom. */
    VkDeviceSize align = 16;
    const VkPhysicalDeviceLimits *lim = &vd->props.limits;
    if (lim->minStorageBufferOffsetAlignment > align)
        align = lim->minStorageBufferOffsetAlignment;
    if (lim->nonCoherentAtomSize > align)
        align = lim->nonCoherentAtomSize;
    a->alignment = align;
    a->limit = vd->caps.memory_budget;
    *out = a;
    return VKML_OK;
}

/* Index of the best memory type for kind among type_bits, or -1. */
static int pick_memory_type(const VkPhysicalDeviceMemoryProperties *mp, uint32_t type_bits,
                            vk_mem_kind kind)
{
    VkMemoryPropertyFlags need = 0, want = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    if (kind != VK_MEM_DEVICE)
        need = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if (kind == VK_MEM_HOST)
        want = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
    int fallback = -1;
    for (uint32_t i = 0; i < mp->memoryTypeCount; i++) {
        VkMemoryPropertyFlags f = mp->memoryTypes[i].propertyFlags;
        if (!(type_bits & (1u << i)) || (f & need) != need)
            continue;
        if ((f & want) == want)
            return (int)i;
        if (fallback < 0)
            fallback = (int)i;
    }
    return fallback;
}

static void block_destroy(vk_allocator *a, vk_block *b)
{
    VkDevice dev = a->vd->dev;
    if (b->map && b->kind != VK_MEM_IMPORTED)
        vkUnmapMemory(dev, b->memory);
    VK_DESTROY(VKML_VK_BUFFER, vkDestroyBuffer, dev, b->buffer);
    if (b->memory) {
        vkFreeMemory(dev, b->memory, NULL);
        vk_count_add(VKML_VK_MEMORY, -1);
        vk_count_memory_bytes(-(int64_t)b->memory_bytes);
        /* imported host memory is not counted (memory_bytes 0), and its blocks are
         * destroyed outside the allocator's lock: touch `used` only for counted ones */
        if (b->memory_bytes)
            a->used -= b->memory_bytes;
    }
    free(b->free_ranges);
    free(b);
}

/* VKML_ERROR_OUT_OF_MEMORY naming the device and the bytes when `bytes` more would pass
 * the device's memory limit. */
static vkml_status check_limit(vk_allocator *a, VkDeviceSize bytes, vkml_error *err)
{
    if (!a->limit || (a->used <= a->limit && bytes <= a->limit - a->used))
        return VKML_OK;
    return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY,
                     "Vulkan device '%s': %llu more bytes would pass its memory limit of %llu "
                     "bytes (%llu in use)",
                     a->vd->base.info.name, (unsigned long long)bytes, (unsigned long long)a->limit,
                     (unsigned long long)a->used);
}

/* Bytes of a new block for a request of `rounded` bytes: VK_BLOCK_BYTES, or the request
 * alone when it is larger, or when a whole block would pass the memory limit (a small
 * limit then still fits what it can). */
static VkDeviceSize block_bytes(const vk_allocator *a, VkDeviceSize rounded)
{
    if (rounded >= VK_BLOCK_BYTES)
        return rounded;
    if (a->limit && (a->used > a->limit || a->limit - a->used < VK_BLOCK_BYTES))
        return rounded;
    return VK_BLOCK_BYTES;
}

static vkml_status block_create(vk_allocator *a, vk_mem_kind kind, VkDeviceSize size,
                                vk_block **out, vkml_error *err)
{
    vkml_status status = VKML_OK;
    VkDevice dev = a->vd->dev;
    uint32_t families[2];
    vk_block *b = calloc(1, sizeof(*b));
    if (!b || !(b->free_ranges = malloc(4 * sizeof(vk_range)))) {
        free(b);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan allocator: out of host memory");
    }
    b->kind = kind;
    b->size = size;
    b->cap_free = 4;
    b->n_free = 1;
    b->free_ranges[0] = (vk_range){0, size};

    VkBufferCreateInfo bci = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = size,
        .usage = buffer_usage,
    };
    share_with_copy_family(a->vd, &bci, families);
    VK_CREATE(VKML_VK_BUFFER, vkCreateBuffer(dev, &bci, NULL, &b->buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, b->buffer, &req);
    int type = pick_memory_type(&a->vd->mem_props, req.memoryTypeBits, kind);
    if (type < 0) {
        status = vkml_fail(err, VKML_ERROR_DEVICE, "Vulkan device '%s' has no %s memory type",
                           a->vd->base.info.name,
                           kind != VK_MEM_DEVICE ? "host-visible coherent" : "usable");
        goto cleanup;
    }
    VkMemoryAllocateInfo mai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .allocationSize = req.size,
        .memoryTypeIndex = (uint32_t)type,
    };
    VKML_TRY(check_limit(a, req.size, err));
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VK_AS("vkAllocateMemory", vk_fault_allocate_memory(a->vd, &mai, &memory));
    b->memory = memory;
    vk_count_add(VKML_VK_MEMORY, 1);
    vk_count_memory_bytes((int64_t)req.size);
    b->memory_bytes = req.size;
    a->used += req.size;
    VK(vkBindBufferMemory(dev, b->buffer, b->memory, 0));
    VkMemoryPropertyFlags flags = a->vd->mem_props.memoryTypes[type].propertyFlags;
    if (flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
        VK(vkMapMemory(dev, b->memory, 0, VK_WHOLE_SIZE, 0, &b->map));
    *out = b;
    return VKML_OK;
cleanup:
    if (status == VKML_ERROR_OUT_OF_MEMORY)
        vkml_error_prefix(err, "allocating %llu bytes of %s memory on '%s'",
                          (unsigned long long)size,
                          kind != VK_MEM_DEVICE ? "host-visible" : "device", a->vd->base.info.name);
    block_destroy(a, b);
    return status;
}

/* First fit in b; false when no free range is large enough. */
static bool block_take(vk_block *b, VkDeviceSize size, VkDeviceSize *offset)
{
    for (int i = 0; i < b->n_free; i++) {
        vk_range *r = &b->free_ranges[i];
        if (r->size < size)
            continue;
        *offset = r->offset;
        r->offset += size;
        r->size -= size;
        if (r->size == 0) {
            memmove(r, r + 1, (size_t)(b->n_free - i - 1) * sizeof(*r));
            b->n_free--;
        }
        return true;
    }
    return false;
}

/* Returns a range to b, merging it with adjacent free ranges. false on out of memory
 * (the range is then leaked until the block goes). */
static bool block_give(vk_block *b, VkDeviceSize offset, VkDeviceSize size)
{
    int i = 0;
    while (i < b->n_free && b->free_ranges[i].offset < offset)
        i++;
    bool merge_prev = i > 0 && b->free_ranges[i - 1].offset + b->free_ranges[i - 1].size == offset;
    bool merge_next = i < b->n_free && offset + size == b->free_ranges[i].offset;
    if (merge_prev && merge_next) {
        b->free_ranges[i - 1].size += size + b->free_ranges[i].size;
        memmove(&b->free_ranges[i], &b->free_ranges[i + 1],
                (size_t)(b->n_free - i - 1) * sizeof(vk_range));
        b->n_free--;
    } else if (merge_prev) {
        b->free_ranges[i - 1].size += size;
    } else if (merge_next) {
        b->free_ranges[i].offset = offset;
        b->free_ranges[i].size += size;
    } else {
        if (b->n_free == b->cap_free) {
            vk_range *grown = realloc(b->free_ranges, 2 * (size_t)b->cap_free * sizeof(vk_range));
            if (!grown)
                return false;
            b->free_ranges = grown;
            b->cap_free *= 2;
        }
        memmove(&b->free_ranges[i + 1], &b->free_ranges[i],
                (size_t)(b->n_free - i) * sizeof(vk_range));
        b->free_ranges[i] = (vk_range){offset, size};
        b->n_free++;
    }
    return true;
}

static void fill_mem(vk_block *b, VkDeviceSize offset, VkDeviceSize size, vk_mem *out)
{
    *out = (vk_mem){
        .buffer = b->buffer,
        .offset = offset,
        .size = size,
        .map = b->map ? (char *)b->map + offset : NULL,
        .block = b,
    };
}

static vkml_status mem_alloc(vk_allocator *a, vk_mem_kind kind, VkDeviceSize size, bool own_block,
                             vk_mem *out, vkml_error *err)
{
    VkDeviceSize rounded = align_up(size ? size : 1, a->alignment);
    vkml_status status = VKML_OK;
    VkDeviceSize offset = 0;
    pthread_mutex_lock(&a->lock);
    for (vk_block *b = own_block ? NULL : a->blocks; b; b = b->next) {
        if (b->kind == kind && block_take(b, rounded, &offset)) {
            fill_mem(b, offset, size, out);
            goto done;
        }
    }
    vk_block *b = NULL;
    status = block_create(a, kind, own_block ? rounded : block_bytes(a, rounded), &b, err);
    if (status == VKML_OK) {
        b->next = a->blocks;
        a->blocks = b;
        block_take(b, rounded, &offset);
        fill_mem(b, offset, size, out);
    }
done:
    pthread_mutex_unlock(&a->lock);
    return status;
}

vkml_status vk_mem_alloc(vk_allocator *a, vk_mem_kind kind, VkDeviceSize size, vk_mem *out,
                         vkml_error *err)
{
    vkml_status st = mem_alloc(a, kind, size, false, out, err);
    /* The host-visible device-local heap may be small (a 256 MiB BAR without resizable
     * BAR): then upload values live in host memory, as readback values do. */
    if (st == VKML_ERROR_OUT_OF_MEMORY && kind == VK_MEM_UPLOAD) {
        VKML_LOGD("Vulkan: host-visible device memory exhausted, using host memory");
        st = mem_alloc(a, VK_MEM_HOST, size, false, out, err);
    }
    return st;
}

vkml_status vk_mem_import_host(vk_allocator *a, void *ptr, VkDeviceSize size, vk_mem *out,
                               vkml_error *err)
{
    vkml_status status = VKML_OK;
    vk_device *vd = a->vd;
    VkDevice dev = vd->dev;
    *out = (vk_mem){0};
    if (!vd->has_host_import || !ptr || size == 0 || size % vd->base.host_share_align ||
        (uintptr_t)ptr % vd->base.host_share_align)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "Vulkan device '%s' cannot import %llu bytes of host memory at %p",
                         vd->base.info.name, (unsigned long long)size, ptr);
    vk_block *b = calloc(1, sizeof(*b));
    if (!b)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan allocator: out of host memory");
    b->kind = VK_MEM_IMPORTED;
    b->size = size;
    VkExternalMemoryBufferCreateInfo ext = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
        .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
    };
    VkBufferCreateInfo bci = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .pNext = &ext,
        .size = size,
        .usage = buffer_usage,
    };
    uint32_t families[2];
    share_with_copy_family(vd, &bci, families);
    VK_CREATE(VKML_VK_BUFFER, vkCreateBuffer(dev, &bci, NULL, &b->buffer));
    VkMemoryHostPointerPropertiesEXT hp = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
    VK(vd->get_host_pointer_props(dev, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, ptr,
                                  &hp));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, b->buffer, &req);
    int type = -1; /* host-visible and coherent: the host and the other device read it */
    for (uint32_t i = 0; i < vd->mem_props.memoryTypeCount && type < 0; i++) {
        VkMemoryPropertyFlags f = vd->mem_props.memoryTypes[i].propertyFlags;
        if ((hp.memoryTypeBits & req.memoryTypeBits & (1u << i)) &&
            (f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) && (f & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT))
            type = (int)i;
    }
    if (type < 0 || req.size > size) {
        status = vkml_fail(err, VKML_ERROR_DEVICE,
                           "Vulkan device '%s' offers no coherent memory type for imported host "
                           "memory (%llu bytes)",
                           vd->base.info.name, (unsigned long long)size);
        goto cleanup;
    }
    VkImportMemoryHostPointerInfoEXT import = {
        .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
        .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
        .pHostPointer = ptr,
    };
    VkMemoryAllocateInfo mai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .pNext = &import,
        .allocationSize = size,
        .memoryTypeIndex = (uint32_t)type,
    };
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VK_AS("vkAllocateMemory (imported host memory)", vk_fault_allocate_memory(vd, &mai, &memory));
    b->memory = memory;
    vk_count_add(VKML_VK_MEMORY, 1);
    VK(vkBindBufferMemory(dev, b->buffer, b->memory, 0));
    b->map = ptr;
    fill_mem(b, 0, size, out);
    return VKML_OK;
cleanup:
    block_destroy(a, b);
    return status;
}

vkml_status vk_mem_alloc_own_block(vk_allocator *a, vk_mem_kind kind, VkDeviceSize size,
                                   vk_mem *out, vkml_error *err)
{
    return mem_alloc(a, kind, size, true, out, err);
}

void vk_mem_free(vk_allocator *a, vk_mem *mem)
{
    vk_block *b = mem->block;
    if (!b)
        return;
    if (b->kind == VK_MEM_IMPORTED) { /* a block of its own, in no list */
        block_destroy(a, b);
        *mem = (vk_mem){0};
        return;
    }
    VkDeviceSize rounded = align_up(mem->size ? mem->size : 1, a->alignment);
    pthread_mutex_lock(&a->lock);
    block_give(b, mem->offset, rounded);
    if (b->n_free == 1 && b->free_ranges[0].size == b->size) {
        vk_block **link = &a->blocks;
        while (*link != b)
            link = &(*link)->next;
        *link = b->next;
        block_destroy(a, b);
    }
    pthread_mutex_unlock(&a->lock);
    memset(mem, 0, sizeof(*mem));
}

void vk_allocator_destroy(vk_allocator **alloc)
{
    vk_allocator *a = alloc ? *alloc : NULL;
    if (!a)
        return;
    while (a->blocks) {
        vk_block *b = a->blocks;
        a->blocks = b->next;
        VKML_LOGW("Vulkan allocator: a block was still in use at device close");
        block_destroy(a, b);
    }
    pthread_mutex_destroy(&a->lock);
    free(a);
    *alloc = NULL;
}

vk_mem vk_mem_sub(const vk_mem *mem, VkDeviceSize offset, VkDeviceSize size)
{
    return (vk_mem){
        .buffer = mem->buffer,
        .offset = mem->offset + offset,
        .size = size,
        .map = mem->map ? (char *)mem->map + offset : NULL,
        .block = NULL,
    };
}

VkDeviceSize vk_allocator_alignment(const vk_allocator *alloc)
{
    return alloc->alignment;
}
