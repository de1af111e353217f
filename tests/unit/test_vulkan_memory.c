/* The Vulkan sub-allocator and uploads: aligned, disjoint ranges carved from few blocks;
 * freed ranges merge and empty blocks go back; blocks larger than the default for large
 * requests; a staging upload lands in device memory, also one of several rounds through the
 * bounded staging buffer (items split across rounds). */
#include "vk_testutil.h"
#include "vulkan/vk_memory.h"
#include "vulkan/vk_transfer.h"

#define N_RANGES 200

static void test_ranges(vk_device *vd)
{
    vkml_error err = {0};
    vk_mem mem[N_RANGES];
    for (int i = 0; i < N_RANGES; i++) {
        /* Odd sizes: 1 .. ~100 KiB. */
        size_t size = 1 + (size_t)i * 517;
        CHECK_OK(vk_mem_alloc(vd->alloc, i % 2 ? VK_MEM_HOST : VK_MEM_DEVICE, size, &mem[i], &err),
                 &err);
        CHECK(mem[i].size == size, "range %d has size %llu", i, (unsigned long long)mem[i].size);
        CHECK(mem[i].offset % vd->props.limits.minStorageBufferOffsetAlignment == 0,
              "range %d at offset %llu is not aligned", i, (unsigned long long)mem[i].offset);
        CHECK(i % 2 == 0 || mem[i].map, "host range %d is not mapped", i);
    }
    int overlaps = 0, buffers = 0;
    for (int i = 0; i < N_RANGES; i++) {
        bool new_buffer = true;
        for (int j = 0; j < i; j++) {
            new_buffer = new_buffer && mem[j].buffer != mem[i].buffer;
            overlaps += mem[j].buffer == mem[i].buffer &&
                        mem[j].offset < mem[i].offset + mem[i].size &&
                        mem[i].offset < mem[j].offset + mem[j].size;
        }
        buffers += new_buffer;
    }
    CHECK(overlaps == 0, "%d overlapping ranges", overlaps);
    /* ~10 MiB in total: one block per kind. */
    CHECK(buffers == 2, "%d blocks for %d small ranges, expected 2", buffers, N_RANGES);
    /* Free every other one, then everything: the blocks must merge back and go. */
    for (int i = 0; i < N_RANGES; i += 2)
        vk_mem_free(vd->alloc, &mem[i]);
    vk_mem again;
    CHECK_OK(vk_mem_alloc(vd->alloc, VK_MEM_DEVICE, 4096, &again, &err), &err);
    for (int i = 1; i < N_RANGES; i += 2)
        vk_mem_free(vd->alloc, &mem[i]);
    vk_mem_free(vd->alloc, &again);
    CHECK(again.buffer == VK_NULL_HANDLE, "vk_mem_free did not clear the range");
}

/* A request far beyond the device: VKML_ERROR_OUT_OF_MEMORY with a message, no crash. */
static void test_too_large(vk_device *vd)
{
    vkml_error err = {0};
    vk_mem huge = {0};
    VkDeviceSize size = vd->base.info.memory_bytes * 64;
    vkml_status st = vk_mem_alloc(vd->alloc, VK_MEM_DEVICE, size, &huge, &err);
    CHECK(st == VKML_ERROR_OUT_OF_MEMORY || st == VKML_ERROR_DEVICE, "allocating %llu bytes: %s",
          (unsigned long long)size, vkml_status_name(st));
    CHECK(strstr(err.message, vd->base.info.name) || st == VKML_ERROR_DEVICE,
          "message does not name the device: %s", err.message);
    printf("too large: %s: %s\n", vkml_status_name(st), err.message);
    if (st == VKML_OK)
        vk_mem_free(vd->alloc, &huge);
}

static void test_large_and_upload(vk_device *vd, VkCommandPool pool)
{
    vkml_error err = {0};
    vk_mem big, dst;
    VkDeviceSize big_size = VK_BLOCK_BYTES + 12345;
    CHECK_OK(vk_mem_alloc(vd->alloc, VK_MEM_DEVICE, big_size, &big, &err), &err);
    CHECK(big.size == big_size, "large range has the wrong size");
    vk_mem_free(vd->alloc, &big);

    float src[1000];
    for (int i = 0; i < 1000; i++)
        src[i] = (float)i * 0.5f;
    CHECK_OK(vk_mem_alloc(vd->alloc, VK_MEM_DEVICE, sizeof(src), &dst, &err), &err);
    vk_upload_item item = {src, sizeof(src), &dst};
    CHECK_OK(vk_upload(vd, pool, &item, 1, &err), &err);
    if (dst.map) /* lavapipe: device memory is mapped too, so the copy can be checked */
        CHECK(memcmp(dst.map, src, sizeof(src)) == 0, "uploaded bytes differ");
    vk_mem_free(vd->alloc, &dst);
}

/* Items of 2.5 + 1.5 staging buffers, 3 bytes and 0 bytes: rounds end inside items, and
 * every byte lands at its place (lavapipe maps device memory, so it can be checked). */
static void test_upload_rounds(vk_device *vd, VkCommandPool pool)
{
    vkml_error err = {0};
    size_t sizes[4] = {VK_UPLOAD_STAGING_BYTES * 5 / 2, 3, 0, VK_UPLOAD_STAGING_BYTES * 3 / 2};
    vk_mem dst[4];
    uint8_t *src[4];
    vk_upload_item items[4];
    for (int i = 0; i < 4; i++) {
        src[i] = malloc(sizes[i] + 1);
        CHECK(src[i] != NULL, "out of memory");
        for (size_t k = 0; k < sizes[i]; k++)
            src[i][k] = (uint8_t)(k * 2654435761u >> 13) ^ (uint8_t)i;
        CHECK_OK(vk_mem_alloc(vd->alloc, VK_MEM_DEVICE, sizes[i], &dst[i], &err), &err);
        items[i] = (vk_upload_item){src[i], sizes[i], &dst[i]};
    }
    CHECK_OK(vk_upload(vd, pool, items, 4, &err), &err);
    for (int i = 0; i < 4; i++) {
        if (dst[i].map)
            CHECK(memcmp(dst[i].map, src[i], sizes[i]) == 0, "item %d: uploaded bytes differ", i);
        vk_mem_free(vd->alloc, &dst[i]);
        free(src[i]);
    }
}

int main(void)
{
    vk_context *vk = test_vk_context();
    vk_device *vd = (vk_device *)vk_context_device(vk, 0);
    CHECK(vd->base.info.memory_bytes > 0, "device reports no device-local memory");
    CHECK(vd->base.info.api_version >= VK_API_VERSION_1_1, "API version below 1.1");
    CHECK(strcmp(vd->base.info.vendor, "unknown") != 0 || vd->base.info.vendor_id > 0x10000,
          "vendor 0x%x has no name", vd->base.info.vendor_id);
    CHECK(vd->caps.subgroup_size > 0, "no subgroup size");
    CHECK(vd->caps.memory_budget > 0 && vd->caps.memory_budget <= vd->base.info.memory_bytes,
          "memory budget %llu outside (0, %llu]", (unsigned long long)vd->caps.memory_budget,
          (unsigned long long)vd->base.info.memory_bytes);
    printf("device %s, vendor %s, %llu MiB, budget %llu MiB (%s)\n", vd->base.info.name,
           vd->base.info.vendor, (unsigned long long)(vd->base.info.memory_bytes >> 20),
           (unsigned long long)(vd->caps.memory_budget >> 20),
           vd->has_memory_budget ? "VK_EXT_memory_budget" : "heap size");
    test_ranges(vd);
    test_too_large(vd);
    VkCommandPool pool;
    VkCommandPoolCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .queueFamilyIndex = vd->queue_family,
    };
    CHECK(vkCreateCommandPool(vd->dev, &pci, NULL, &pool) == VK_SUCCESS, "command pool");
    test_large_and_upload(vd, pool);
    test_upload_rounds(vd, pool);
    vkDestroyCommandPool(vd->dev, pool, NULL);
    vk_context_destroy(&vk);
    CHECK(vk == NULL, "vk_context_destroy did not clear the pointer");
    return test_finish("test_vulkan_memory");
}
