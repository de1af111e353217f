/* Benchmark (not a test): the ways one GPU's buffer can reach another's, in plain Vulkan,
 * each timed on SIZE bytes (median of RUNS, GB/s = SIZE / time), each checked by value:
 *   host-staged   what vkml does today: GPU 0 copies into its host-visible memory, the host
 *                 copies that into GPU 1's host-visible memory, GPU 1 copies it in
 *   shared-host   one host allocation imported into both devices
 *                 (VK_EXT_external_memory_host): GPU 0 writes it, GPU 1 reads it; no
 *                 host copy
 *   dma-buf       GPU 0's device memory exported as a dma-buf (VK_EXT_external_memory_dma_buf)
 *                 and imported by GPU 1, which copies from it (peer read)
 *   opaque-fd     the same with VK_KHR_external_memory_fd's opaque fds, which the spec
 *                 allows only between devices of the same deviceUUID
 * and the device groups the driver reports (VK_KHR_device_group: one VkDevice over GPUs
 * whose memory is peer-accessible). A path the driver refuses is printed with the
 * refusal. Device pairs: the first two Vulkan devices, or one device opened twice.
 *   bench_peer [SIZE_MIB] [RUNS]        (default 64 MiB, 20 runs) */
#include "bench_util.h"

#include <string.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#define VKP(call)                                                                                  \
    do {                                                                                           \
        VkResult r_ = (call);                                                                      \
        if (r_ != VK_SUCCESS) {                                                                    \
            fprintf(stderr, "bench_peer: %s failed (%d) at line %d\n", #call, r_, __LINE__);       \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

typedef struct peer_gpu {
    VkPhysicalDevice phys;
    VkPhysicalDeviceMemoryProperties mem;
    VkDevice dev;
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    bool host_import, dma_buf, opaque_fd;
    VkDeviceSize host_align;
    uint8_t uuid[VK_UUID_SIZE];
    char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
} peer_gpu;

typedef struct peer_buf {
    VkBuffer buf;
    VkDeviceMemory mem;
    void *map;
} peer_buf;

static bool has_extension(VkPhysicalDevice phys, const char *name)
{
    uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(phys, NULL, &n, NULL);
    VkExtensionProperties *e = calloc(n + 1, sizeof(*e));
    vkEnumerateDeviceExtensionProperties(phys, NULL, &n, e);
    bool found = false;
    for (uint32_t i = 0; i < n && !found; i++)
        found = strcmp(e[i].extensionName, name) == 0;
    free(e);
    return found;
}

static void open_gpu(peer_gpu *g, VkPhysicalDevice phys)
{
    g->phys = phys;
    vkGetPhysicalDeviceMemoryProperties(phys, &g->mem);
    VkPhysicalDeviceExternalMemoryHostPropertiesEXT host = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT};
    VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    g->host_import = has_extension(phys, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
    g->opaque_fd = has_extension(phys, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
    g->dma_buf = g->opaque_fd && has_extension(phys, VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME);
    id.pNext = g->host_import ? &host : NULL;
    VkPhysicalDeviceProperties2 props = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                         .pNext = &id};
    vkGetPhysicalDeviceProperties2(phys, &props);
    memcpy(g->uuid, id.deviceUUID, VK_UUID_SIZE);
    snprintf(g->name, sizeof(g->name), "%s", props.properties.deviceName);
    g->host_align = host.minImportedHostPointerAlignment;
    const char *exts[3];
    uint32_t n_exts = 0;
    if (g->host_import)
        exts[n_exts++] = VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME;
    if (g->opaque_fd)
        exts[n_exts++] = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
    if (g->dma_buf)
        exts[n_exts++] = VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME;
    VkQueueFamilyProperties fams[16];
    uint32_t n_fams = 16, family = UINT32_MAX;
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &n_fams, fams);
    for (uint32_t i = 0; i < n_fams && family == UINT32_MAX; i++)
        if (fams[i].queueFlags & (VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT))
            family = i;
    float prio = 1.0f;
    VkDeviceQueueCreateInfo q = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                 .queueFamilyIndex = family,
                                 .queueCount = 1,
                                 .pQueuePriorities = &prio};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &q,
                              .enabledExtensionCount = n_exts,
                              .ppEnabledExtensionNames = exts};
    VKP(vkCreateDevice(phys, &dci, NULL, &g->dev));
    vkGetDeviceQueue(g->dev, family, 0, &g->queue);
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                   .queueFamilyIndex = family};
    VKP(vkCreateCommandPool(g->dev, &pci, NULL, &g->pool));
    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                       .commandPool = g->pool,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                       .commandBufferCount = 1};
    VKP(vkAllocateCommandBuffers(g->dev, &cai, &g->cmd));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VKP(vkCreateFence(g->dev, &fci, NULL, &g->fence));
}

static void close_gpu(peer_gpu *g)
{
    vkDestroyFence(g->dev, g->fence, NULL);
    vkDestroyCommandPool(g->dev, g->pool, NULL);
    vkDestroyDevice(g->dev, NULL);
}

/* A memory type among `bits` with all of `need` (and `want` if any has it), or -1. */
static int memory_type(const peer_gpu *g, uint32_t bits, VkMemoryPropertyFlags need,
                       VkMemoryPropertyFlags want)
{
    int fallback = -1;
    for (uint32_t i = 0; i < g->mem.memoryTypeCount; i++) {
        VkMemoryPropertyFlags f = g->mem.memoryTypes[i].propertyFlags;
        if (!(bits & (1u << i)) || (f & need) != need)
            continue;
        if ((f & want) == want)
            return (int)i;
        if (fallback < 0)
            fallback = (int)i;
    }
    return fallback;
}

static VkBuffer make_buffer(const peer_gpu *g, VkDeviceSize size, const void *ext_next)
{
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .pNext = ext_next,
                              .size = size,
                              .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                              .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VkBuffer b;
    VKP(vkCreateBuffer(g->dev, &bci, NULL, &b));
    return b;
}

/* A buffer in its own memory: `need`/`want` property flags; `next`: allocation chain. */
static VkResult alloc_buffer(const peer_gpu *g, VkDeviceSize size, VkMemoryPropertyFlags need,
                             VkMemoryPropertyFlags want, const void *buf_next,
                             const void *alloc_next, uint32_t type_bits, peer_buf *out)
{
    *out = (peer_buf){.buf = make_buffer(g, size, buf_next)};
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(g->dev, out->buf, &req);
    int type = memory_type(g, req.memoryTypeBits & type_bits, need, want);
    if (type < 0)
        return VK_ERROR_FEATURE_NOT_PRESENT;
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                .pNext = alloc_next,
                                .allocationSize = req.size,
                                .memoryTypeIndex = (uint32_t)type};
    VkResult r = vkAllocateMemory(g->dev, &mai, NULL, &out->mem);
    if (r == VK_SUCCESS)
        r = vkBindBufferMemory(g->dev, out->buf, out->mem, 0);
    if (r == VK_SUCCESS && (need & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
        r = vkMapMemory(g->dev, out->mem, 0, VK_WHOLE_SIZE, 0, &out->map);
    return r;
}

static void free_buffer(const peer_gpu *g, peer_buf *b)
{
    vkDestroyBuffer(g->dev, b->buf, NULL);
    if (b->mem)
        vkFreeMemory(g->dev, b->mem, NULL);
    *b = (peer_buf){0};
}

/* One buffer copy on g's queue, waited for. */
static void copy(peer_gpu *g, VkBuffer src, VkBuffer dst, VkDeviceSize size)
{
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VKP(vkBeginCommandBuffer(g->cmd, &bi));
    VkBufferCopy region = {.size = size};
    vkCmdCopyBuffer(g->cmd, src, dst, 1, &region);
    VKP(vkEndCommandBuffer(g->cmd));
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                       .commandBufferCount = 1,
                       .pCommandBuffers = &g->cmd};
    VKP(vkQueueSubmit(g->queue, 1, &si, g->fence));
    VKP(vkWaitForFences(g->dev, 1, &g->fence, VK_TRUE, UINT64_MAX));
    VKP(vkResetFences(g->dev, 1, &g->fence));
}

/* Device-local buffers: src on GPU 0 holding a pattern (through a host-visible upload), dst
 * on GPU 1; check() reads dst back and compares. */
typedef struct peer_pair {
    peer_gpu *a, *b;
    VkDeviceSize size;
    peer_buf src, dst, host_a, host_b; /* host_*: host-visible staging on each */
    int runs;
} peer_pair;

static uint32_t pattern(size_t i)
{
    return (uint32_t)(i * 2654435761u) ^ 0x5bd1e995u;
}

static bool check(peer_pair *p)
{
    memset(p->host_b.map, 0, p->size);
    copy(p->b, p->dst.buf, p->host_b.buf, p->size);
    const uint32_t *w = p->host_b.map;
    for (size_t i = 0; i < p->size / 4; i += 4093)
        if (w[i] != pattern(i))
            return false;
    return w[p->size / 4 - 1] == pattern(p->size / 4 - 1);
}

static void clear_dst(peer_pair *p)
{
    memset(p->host_b.map, 0, p->size);
    copy(p->b, p->host_b.buf, p->dst.buf, p->size);
}

static void report(const char *path, peer_pair *p, double *t, const char *note)
{
    double med = bench_median(t, p->runs);
    bool ok = check(p);
    printf("%-12s %8.0f us %8.2f GB/s  %s%s\n", path, med, (double)p->size / (med * 1e3),
           ok ? "values right" : "VALUES WRONG", note);
}

static void host_staged(peer_pair *p, double *t)
{
    clear_dst(p);
    for (int r = 0; r < p->runs; r++) {
        double t0 = bench_now_us();
        copy(p->a, p->src.buf, p->host_a.buf, p->size);
        memcpy(p->host_b.map, p->host_a.map, p->size);
        copy(p->b, p->host_b.buf, p->dst.buf, p->size);
        t[r] = bench_now_us() - t0;
    }
    report("host-staged", p, t, "");
}

static void shared_host(peer_pair *p, double *t)
{
    if (!p->a->host_import || !p->b->host_import) {
        printf("%-12s not offered (VK_EXT_external_memory_host)\n", "shared-host");
        return;
    }
    VkDeviceSize align = p->a->host_align > p->b->host_align ? p->a->host_align : p->b->host_align;
    void *host = aligned_alloc(align, (p->size + align - 1) / align * align);
    peer_buf on[2] = {{0}};
    peer_gpu *g[2] = {p->a, p->b};
    VkResult r = host ? VK_SUCCESS : VK_ERROR_OUT_OF_HOST_MEMORY;
    for (int i = 0; i < 2 && r == VK_SUCCESS; i++) {
        VkExternalMemoryBufferCreateInfo ext = {
            .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
            .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT};
        VkMemoryHostPointerPropertiesEXT hp = {
            .sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
        PFN_vkGetMemoryHostPointerPropertiesEXT get_props =
            (PFN_vkGetMemoryHostPointerPropertiesEXT)vkGetDeviceProcAddr(
                g[i]->dev, "vkGetMemoryHostPointerPropertiesEXT");
        r = get_props(g[i]->dev, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, host, &hp);
        VkImportMemoryHostPointerInfoEXT imp = {
            .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
            .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
            .pHostPointer = host};
        if (r == VK_SUCCESS)
            r = alloc_buffer(g[i], (p->size + align - 1) / align * align,
                             VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, 0, &ext, &imp, hp.memoryTypeBits,
                             &on[i]);
    }
    if (r != VK_SUCCESS) {
        printf("%-12s refused by the driver (VkResult %d)\n", "shared-host", r);
    } else {
        clear_dst(p);
        for (int k = 0; k < p->runs; k++) {
            double t0 = bench_now_us();
            copy(p->a, p->src.buf, on[0].buf, p->size);
            copy(p->b, on[1].buf, p->dst.buf, p->size);
            t[k] = bench_now_us() - t0;
        }
        report("shared-host", p, t, "");
    }
    for (int i = 0; i < 2; i++)
        free_buffer(g[i], &on[i]);
    free(host);
}

/* GPU 0's device memory exported as `type`, imported by GPU 1, read by GPU 1's copy. */
static void exported(peer_pair *p, double *t, VkExternalMemoryHandleTypeFlagBits type,
                     const char *path)
{
    bool offered = type == VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT
                       ? p->a->dma_buf && p->b->dma_buf
                       : p->a->opaque_fd && p->b->opaque_fd;
    if (!offered) {
        printf("%-12s not offered by both devices\n", path);
        return;
    }
    if (type == VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT &&
        memcmp(p->a->uuid, p->b->uuid, VK_UUID_SIZE) != 0) {
        printf("%-12s not allowed: the devices' deviceUUIDs differ\n", path);
        return;
    }
    VkExternalMemoryBufferCreateInfo ext = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO, .handleTypes = type};
    VkExportMemoryAllocateInfo exp = {.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
                                      .handleTypes = type};
    peer_buf out = {0}, in = {0};
    int fd = -1;
    VkResult r = alloc_buffer(p->a, p->size, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &ext, &exp,
                              UINT32_MAX, &out);
    PFN_vkGetMemoryFdKHR get_fd =
        (PFN_vkGetMemoryFdKHR)vkGetDeviceProcAddr(p->a->dev, "vkGetMemoryFdKHR");
    PFN_vkGetMemoryFdPropertiesKHR fd_props = (PFN_vkGetMemoryFdPropertiesKHR)vkGetDeviceProcAddr(
        p->b->dev, "vkGetMemoryFdPropertiesKHR");
    if (r == VK_SUCCESS) {
        VkMemoryGetFdInfoKHR gi = {.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR,
                                   .memory = out.mem,
                                   .handleType = type};
        r = get_fd(p->a->dev, &gi, &fd);
    }
    uint32_t bits = UINT32_MAX;
    if (r == VK_SUCCESS && type == VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT) {
        VkMemoryFdPropertiesKHR fp = {.sType = VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR};
        r = fd_props(p->b->dev, type, fd, &fp);
        bits = fp.memoryTypeBits;
    }
    if (r == VK_SUCCESS) {
        VkImportMemoryFdInfoKHR imp = {
            .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR, .handleType = type, .fd = fd};
        r = alloc_buffer(p->b, p->size, 0, 0, &ext, &imp, bits, &in);
        if (r == VK_SUCCESS)
            fd = -1; /* the import owns it */
    }
    if (r != VK_SUCCESS) {
        printf("%-12s refused by the driver (VkResult %d)\n", path, r);
    } else {
        copy(p->a, p->src.buf, out.buf, p->size);
        clear_dst(p);
        for (int k = 0; k < p->runs; k++) {
            double t0 = bench_now_us();
            copy(p->b, in.buf, p->dst.buf, p->size);
            t[k] = bench_now_us() - t0;
        }
        report(path, p, t, " (GPU 1 reading GPU 0's memory)");
    }
    if (fd >= 0)
        close(fd);
    free_buffer(p->b, &in);
    free_buffer(p->a, &out);
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 64;
    int runs = argc > 2 ? atoi(argv[2]) : 20;
    if (mib == 0 || runs <= 0) {
        fprintf(stderr, "usage: bench_peer [SIZE_MIB] [RUNS]\n");
        return 2;
    }
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .apiVersion = VK_API_VERSION_1_2};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                .pApplicationInfo = &app};
    VkInstance inst;
    VKP(vkCreateInstance(&ici, NULL, &inst));
    VkPhysicalDevice phys[16];
    uint32_t n = 16;
    VKP(vkEnumeratePhysicalDevices(inst, &n, phys));
    if (n == 0) {
        fprintf(stderr, "bench_peer: no Vulkan device\n");
        return 1;
    }
    VkPhysicalDeviceGroupProperties groups[16];
    uint32_t n_groups = 16;
    for (uint32_t i = 0; i < n_groups; i++)
        groups[i] = (VkPhysicalDeviceGroupProperties){
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES};
    VKP(vkEnumeratePhysicalDeviceGroups(inst, &n_groups, groups));
    for (uint32_t i = 0; i < n_groups; i++)
        printf("device group %u: %u device(s)%s\n", i, groups[i].physicalDeviceCount,
               groups[i].physicalDeviceCount > 1 ? " (VK_KHR_device_group peer memory possible)"
                                                 : "");
    peer_gpu a = {0}, b = {0};
    open_gpu(&a, phys[0]);
    open_gpu(&b, phys[n > 1 ? 1 : 0]);
    printf("GPU 0: %s; GPU 1: %s%s; same deviceUUID: %s\n", a.name, b.name,
           n > 1 ? "" : " (the same device opened twice)",
           memcmp(a.uuid, b.uuid, VK_UUID_SIZE) ? "no" : "yes");
    printf("offered: host import %d/%d, dma-buf %d/%d, opaque fd %d/%d\n", a.host_import,
           b.host_import, a.dma_buf, b.dma_buf, a.opaque_fd, b.opaque_fd);
    peer_pair p = {.a = &a, .b = &b, .size = (VkDeviceSize)mib << 20, .runs = runs};
    const VkMemoryPropertyFlags host_vis =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    VKP(alloc_buffer(&a, p.size, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, NULL, NULL, UINT32_MAX,
                     &p.src));
    VKP(alloc_buffer(&b, p.size, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, NULL, NULL, UINT32_MAX,
                     &p.dst));
    VKP(alloc_buffer(&a, p.size, host_vis, VK_MEMORY_PROPERTY_HOST_CACHED_BIT, NULL, NULL,
                     UINT32_MAX, &p.host_a));
    VKP(alloc_buffer(&b, p.size, host_vis, VK_MEMORY_PROPERTY_HOST_CACHED_BIT, NULL, NULL,
                     UINT32_MAX, &p.host_b));
    uint32_t *w = p.host_a.map;
    for (size_t i = 0; i < p.size / 4; i++)
        w[i] = pattern(i);
    copy(&a, p.host_a.buf, p.src.buf, p.size);
    double *t = calloc((size_t)runs, sizeof(double));
    printf("%-12s %11s %13s  (%zu MiB, median of %d)\n", "path", "time", "rate", mib, runs);
    host_staged(&p, t);
    shared_host(&p, t);
    exported(&p, t, VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT, "dma-buf");
    exported(&p, t, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT, "opaque-fd");
    free(t);
    free_buffer(&a, &p.src);
    free_buffer(&a, &p.host_a);
    free_buffer(&b, &p.dst);
    free_buffer(&b, &p.host_b);
    close_gpu(&a);
    close_gpu(&b);
    vkDestroyInstance(inst, NULL);
    return 0;
}
