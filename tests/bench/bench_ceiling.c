/* bench_ceiling.h's ceilings, in plain Vulkan on vkml's VkDevice: a command pool, buffers,
 * pipelines and a query pool of its own, all freed before bench_ceilings_measure returns.
 * Submits take the device's queue lock, as vkml's own do. */
#include "bench_ceiling.h"
#include "bench_util.h"

#include <math.h>
#include <string.h>

static const uint32_t peak_fma_spv[] =
#include "peak_fma.spv.h"
    ;
static const uint32_t peak_copy_spv[] =
#include "peak_copy.spv.h"
    ;
static const uint32_t peak_read_spv[] =
#include "peak_read.spv.h"
    ;
#if BENCH_HAVE_COOP
static const uint32_t peak_coop_spv[] =
#include "peak_coop.spv.h"
    ;
#endif
#if BENCH_HAVE_COOP_INT8
static const uint32_t peak_coop_int8_spv[] =
#include "peak_coop_int8.spv.h"
    ;
static const uint32_t peak_coop_smem_spv[] =
#include "peak_coop_smem.spv.h"
    ;
static const uint32_t peak_coop_smem_barrier_spv[] =
#include "peak_coop_smem_barrier.spv.h"
    ;
#endif

#define WG 256                    /* invocations per workgroup of peak_fma and peak_memory */
#define FMA_PER_TURN (16 * 8 * 4) /* peak_fma.comp: UNROLL x CHAINS x 4 per invocation */
#define FMA_B 0.999f              /* a = a * b + c: a goes to c / (1 - b) = 1 */
#define FMA_C 0.001f
#define COOP_WG_SUBGROUPS 4    /* peak_coop.comp's SUBGROUPS */
#define COOP_ACCS 8            /* and ACCS (peak_coop_smem.comp's: coop_peak.accs) */
#define COOP_VALUE 0x3c800000u /* 1/64 */
#define READ_PER_INVOCATION 16 /* vec4s each invocation of the read kernel sums */
#define MAX_GROUPS 65535u      /* workgroups along x every device takes */
#define ONE_F32 0x3f800000u

/* Sizes: small (lavapipe, the test) and full (several ms each on a large GPU). */
static const struct ceiling_sizes {
    uint32_t fma_groups, fma_turns;
    uint32_t coop_groups, coop_turns;
    uint64_t memory_bytes; /* source buffer of copy and read, at most */
} sizes[2] = {
    {8192, 256, 2048, 4096, 256ull << 20}, /* full */
    {32, 16, 16, 64, 8ull << 20},          /* small */
};

typedef struct ceil_buffer {
    VkBuffer buf;
    VkDeviceMemory mem;
    VkDeviceSize size;
} ceil_buffer;

typedef struct ceil_kernel {
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkPipeline pipe;
    VkDescriptorPool desc_pool;
    VkDescriptorSet set;
    uint32_t push_size;
} ceil_kernel;

typedef struct ceil_gpu {
    vk_device *vd;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    VkQueryPool queries; /* two timestamps; VK_NULL_HANDLE: host time */
    uint64_t tick_mask;
    ceil_buffer readback; /* host-visible, READBACK_BYTES, mapped at `mapped` */
    void *mapped;
} ceil_gpu;

#define READBACK_BYTES 64

static bool vk_ok(VkResult r, const char *what, int line)
{
    if (r != VK_SUCCESS)
        fprintf(stderr, "bench_ceiling: %s failed (%d) at line %d\n", what, r, line);
    return r == VK_SUCCESS;
}

#define CK(call)                                                                                   \
    do {                                                                                           \
        if (!vk_ok((call), #call, __LINE__))                                                       \
            goto fail;                                                                             \
    } while (0)

static uint32_t memory_type(const vk_device *vd, uint32_t bits, VkMemoryPropertyFlags want)
{
    for (uint32_t t = 0; t < vd->mem_props.memoryTypeCount; t++)
        if ((bits & (1u << t)) && (vd->mem_props.memoryTypes[t].propertyFlags & want) == want)
            return t;
    return UINT32_MAX;
}

static void buffer_destroy(ceil_gpu *g, ceil_buffer *b)
{
    vkDestroyBuffer(g->vd->dev, b->buf, NULL);
    vkFreeMemory(g->vd->dev, b->mem, NULL);
    *b = (ceil_buffer){0};
}

/* A storage buffer of `size` bytes: host-visible and coherent when `host`, else
 * device-local where the device has such memory for it. */
static bool buffer_create(ceil_gpu *g, VkDeviceSize size, bool host, ceil_buffer *b)
{
    VkDevice dev = g->vd->dev;
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .size = size,
                              .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    CK(vkCreateBuffer(dev, &bci, NULL, &b->buf));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, b->buf, &req);
    VkMemoryPropertyFlags want =
        host ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
             : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    uint32_t type = memory_type(g->vd, req.memoryTypeBits, want);
    if (type == UINT32_MAX && !host)
        type = memory_type(g->vd, req.memoryTypeBits, 0);
    if (type == UINT32_MAX) {
        fprintf(stderr, "bench_ceiling: no memory type for a %s buffer\n",
                host ? "host-visible" : "device");
        goto fail;
    }
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                .allocationSize = req.size,
                                .memoryTypeIndex = type};
    CK(vkAllocateMemory(dev, &mai, NULL, &b->mem));
    CK(vkBindBufferMemory(dev, b->buf, b->mem, 0));
    b->size = size;
    return true;
fail:
    buffer_destroy(g, b);
    return false;
}

static void kernel_destroy(ceil_gpu *g, ceil_kernel *k)
{
    VkDevice dev = g->vd->dev;
    vkDestroyPipeline(dev, k->pipe, NULL);
    vkDestroyPipelineLayout(dev, k->layout, NULL);
    vkDestroyDescriptorPool(dev, k->desc_pool, NULL);
    vkDestroyDescriptorSetLayout(dev, k->set_layout, NULL);
    *k = (ceil_kernel){0};
}

/* A compute pipeline of SPIR-V `code` with n storage buffers bufs[0..n) at bindings 0..n
 * and push_size bytes of push constants. */
static bool kernel_create(ceil_gpu *g, const uint32_t *code, size_t code_size, uint32_t push_size,
                          uint32_t n, ceil_buffer *const *bufs, ceil_kernel *k)
{
    VkDevice dev = g->vd->dev;
    VkShaderModule module = VK_NULL_HANDLE;
    VkDescriptorSetLayoutBinding b[2];
    VkDescriptorBufferInfo bi[2];
    if (n > VKML_ARRAY_SIZE(b))
        return false;
    for (uint32_t i = 0; i < n; i++) {
        b[i] = (VkDescriptorSetLayoutBinding){i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                              VK_SHADER_STAGE_COMPUTE_BIT, NULL};
        bi[i] = (VkDescriptorBufferInfo){bufs[i]->buf, 0, VK_WHOLE_SIZE};
    }
    VkDescriptorSetLayoutCreateInfo dl = {.sType =
                                              VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .bindingCount = n,
                                          .pBindings = b};
    CK(vkCreateDescriptorSetLayout(dev, &dl, NULL, &k->set_layout));
    VkPushConstantRange pcr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size};
    VkPipelineLayoutCreateInfo pl = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .setLayoutCount = 1,
                                     .pSetLayouts = &k->set_layout,
                                     .pushConstantRangeCount = 1,
                                     .pPushConstantRanges = &pcr};
    CK(vkCreatePipelineLayout(dev, &pl, NULL, &k->layout));
    VkShaderModuleCreateInfo smi = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = code_size, .pCode = code};
    CK(vkCreateShaderModule(dev, &smi, NULL, &module));
    VkComputePipelineCreateInfo cpi = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = module,
                  .pName = "main"},
        .layout = k->layout};
    CK(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpi, NULL, &k->pipe));
    vkDestroyShaderModule(dev, module, NULL);
    module = VK_NULL_HANDLE;
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, n};
    VkDescriptorPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                      .maxSets = 1,
                                      .poolSizeCount = 1,
                                      .pPoolSizes = &ps};
    CK(vkCreateDescriptorPool(dev, &dpi, NULL, &k->desc_pool));
    VkDescriptorSetAllocateInfo dai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                       .descriptorPool = k->desc_pool,
                                       .descriptorSetCount = 1,
                                       .pSetLayouts = &k->set_layout};
    CK(vkAllocateDescriptorSets(dev, &dai, &k->set));
    VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                              .dstSet = k->set,
                              .descriptorCount = n,
                              .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                              .pBufferInfo = bi};
    vkUpdateDescriptorSets(dev, 1, &w, 0, NULL);
    k->push_size = push_size;
    return true;
fail:
    vkDestroyShaderModule(dev, module, NULL);
    kernel_destroy(g, k);
    return false;
}

static bool begin(ceil_gpu *g)
{
    CK(vkResetCommandBuffer(g->cmd, 0));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    CK(vkBeginCommandBuffer(g->cmd, &bi));
    return true;
fail:
    return false;
}

/* Ends the command buffer, submits it under the queue lock and waits; *host_s: the
 * seconds from submit to the end of the wait. */
static bool submit_wait(ceil_gpu *g, double *host_s)
{
    CK(vkEndCommandBuffer(g->cmd));
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                       .commandBufferCount = 1,
                       .pCommandBuffers = &g->cmd};
    double t0 = bench_now_us();
    pthread_mutex_lock(&g->vd->queue_lock);
    VkResult r = vkQueueSubmit(g->vd->queue, 1, &si, g->fence);
    pthread_mutex_unlock(&g->vd->queue_lock);
    CK(r);
    CK(vkWaitForFences(g->vd->dev, 1, &g->fence, VK_TRUE, UINT64_MAX));
    if (host_s)
        *host_s = (bench_now_us() - t0) * 1e-6;
    CK(vkResetFences(g->vd->dev, 1, &g->fence));
    return true;
fail:
    return false;
}

/* Makes what the commands so far wrote visible to later shaders, copies and the host. */
static void barrier_all(ceil_gpu *g)
{
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask =
                              VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                           VK_ACCESS_TRANSFER_READ_BIT |
                                           VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(g->cmd,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT |
                             VK_PIPELINE_STAGE_HOST_BIT,
                         0, 1, &mb, 0, NULL, 0, NULL);
}

/* Fills b with the 32-bit word. */
static bool fill(ceil_gpu *g, ceil_buffer *b, uint32_t word)
{
    if (!begin(g))
        return false;
    vkCmdFillBuffer(g->cmd, b->buf, 0, VK_WHOLE_SIZE, word);
    barrier_all(g);
    return submit_wait(g, NULL);
}

/* Copies `size` bytes (READBACK_BYTES at most) at `offset` of b to out. */
static bool read_back(ceil_gpu *g, ceil_buffer *b, VkDeviceSize offset, size_t size, void *out)
{
    if (size > READBACK_BYTES || offset + size > b->size || !begin(g))
        return false;
    VkBufferCopy region = {offset, 0, size};
    vkCmdCopyBuffer(g->cmd, b->buf, g->readback.buf, 1, &region);
    barrier_all(g);
    if (!submit_wait(g, NULL))
        return false;
    memcpy(out, g->mapped, size);
    return true;
}

/* Seconds of one dispatch of k over `groups` workgroups with push constants `push`:
 * timestamps around it, or host time around submit and wait. */
static bool timed_dispatch(ceil_gpu *g, ceil_kernel *k, const void *push, uint32_t groups,
                           double *seconds)
{
    if (!begin(g))
        return false;
    if (g->queries) {
        vkCmdResetQueryPool(g->cmd, g->queries, 0, 2);
        vkCmdWriteTimestamp(g->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, g->queries, 0);
    }
    vkCmdBindPipeline(g->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k->pipe);
    vkCmdBindDescriptorSets(g->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k->layout, 0, 1, &k->set, 0,
                            NULL);
    vkCmdPushConstants(g->cmd, k->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, k->push_size, push);
    vkCmdDispatch(g->cmd, groups, 1, 1);
    if (g->queries)
        vkCmdWriteTimestamp(g->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, g->queries, 1);
    barrier_all(g);
    if (!submit_wait(g, seconds))
        return false;
    if (g->queries) {
        uint64_t ticks[2];
        CK(vkGetQueryPoolResults(g->vd->dev, g->queries, 0, 2, sizeof(ticks), ticks,
                                 sizeof(uint64_t),
                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        uint64_t elapsed = (ticks[1] - ticks[0]) & g->tick_mask;
        *seconds = (double)elapsed * g->vd->props.limits.timestampPeriod * 1e-9;
    }
    return true;
fail:
    return false;
}

/* The least seconds of `runs` dispatches after a warm-up one. */
static bool best_of(ceil_gpu *g, ceil_kernel *k, const void *push, uint32_t groups, int runs,
                    double *best)
{
    double t;
    if (!timed_dispatch(g, k, push, groups, &t))
        return false;
    *best = INFINITY;
    for (int r = 0; r < runs; r++) {
        if (!timed_dispatch(g, k, push, groups, &t))
            return false;
        if (t < *best)
            *best = t;
    }
    if (!(*best > 0)) {
        fprintf(stderr, "bench_ceiling: a dispatch took no measurable time\n");
        return false;
    }
    return true;
}

/* Whether got is want within a relative 1e-3 (float32 rounding over the chains). */
static bool near(double got, double want, const char *what)
{
    if (fabs(got - want) <= 1e-3 * fabs(want) + 1e-3)
        return true;
    fprintf(stderr, "bench_ceiling: %s: the kernel gave %.6g, the host expects %.6g\n", what, got,
            want);
    return false;
}

static bool measure_fma(ceil_gpu *g, const struct ceiling_sizes *z, int runs, double *gflops)
{
    ceil_buffer result = {0};
    ceil_kernel k = {0};
    bool ok = false;
    uint32_t invocations = z->fma_groups * WG;
    if (!buffer_create(g, (VkDeviceSize)invocations * sizeof(float), false, &result) ||
        !kernel_create(g, peak_fma_spv, sizeof(peak_fma_spv), 12, 1, (ceil_buffer *[]){&result},
                       &k))
        goto done;
    struct {
        float b, c;
        uint32_t turns;
    } push = {FMA_B, FMA_C, z->fma_turns};
    double t;
    float got[2];
    if (!best_of(g, &k, &push, z->fma_groups, runs, &t) ||
        !read_back(g, &result, 0, sizeof(float), &got[0]) ||
        !read_back(g, &result, result.size - sizeof(float), sizeof(float), &got[1]))
        goto done;
    /* Each of the 32 chains, from v: f + (v - f) b^n after n steps, f = c / (1 - b); the
     * kernel sums them. */
    double n = (double)z->fma_turns * (FMA_PER_TURN / 32), want = 0;
    double f = (double)FMA_C / (1.0 - (double)FMA_B);
    for (int v = 0; v < 32; v++)
        want += f + (v - f) * pow((double)FMA_B, n);
    if (!near(got[0], want, "fp32 FMA") || !near(got[1], want, "fp32 FMA"))
        goto done;
    *gflops = 2.0 * invocations * (double)z->fma_turns * FMA_PER_TURN / t * 1e-9;
    ok = true;
done:
    kernel_destroy(g, &k);
    buffer_destroy(g, &result);
    return ok;
}

#if BENCH_HAVE_COOP || BENCH_HAVE_COOP_INT8
/* A cooperative-matrix ceiling kernel (peak_coop.comp, peak_coop_int8.comp,
 * peak_coop_smem.comp): its fragments' bytes (`fill` words), what each MulAdd adds to every
 * accumulator and its operations (2 m n k), its accumulators a subgroup (0: COOP_ACCS);
 * results float32 checked within near(), or int32 checked exactly. */
typedef struct coop_peak {
    const uint32_t *spv;
    size_t spv_size;
    VkDeviceSize value_bytes;
    uint32_t fill;
    double per_muladd, ops;
    bool integer;
    const char *what;
    int accs;
} coop_peak;

static bool measure_coop(ceil_gpu *g, const struct ceiling_sizes *z, int runs, const coop_peak *c,
                         double *rate)
{
    ceil_buffer values = {0}, result = {0};
    ceil_kernel k = {0};
    bool ok = false;
    uint64_t subgroups = (uint64_t)z->coop_groups * COOP_WG_SUBGROUPS;
    if (!buffer_create(g, c->value_bytes, false, &values) ||
        !buffer_create(g, subgroups * 16 * 16 * 4, false, &result) || !fill(g, &values, c->fill) ||
        !kernel_create(g, c->spv, c->spv_size, 4, 2, (ceil_buffer *[]){&values, &result}, &k))
        goto done;
    uint32_t turns = z->coop_turns;
    double t;
    uint32_t got[2];
    if (!best_of(g, &k, &turns, z->coop_groups, runs, &t) ||
        !read_back(g, &result, 0, 4, &got[0]) ||
        !read_back(g, &result, result.size - 4, 4, &got[1]))
        goto done;
    /* Accumulator i: i + turns x per_muladd; their sum (exact in float32 at these sizes). */
    double accs = c->accs ? c->accs : COOP_ACCS;
    double want = accs * (accs - 1) / 2.0 + accs * (double)turns * c->per_muladd;
    for (int i = 0; i < 2; i++) {
        float f;
        memcpy(&f, &got[i], sizeof(f));
        double v = c->integer ? (double)(int32_t)got[i] : (double)f;
        if (c->integer && v != want) {
            fprintf(stderr, "bench_ceiling: %s: %.0f, want %.0f\n", c->what, v, want);
            goto done;
        }
        if (!c->integer && !near(v, want, c->what))
            goto done;
    }
    *rate = c->ops * accs * (double)turns * (double)subgroups / t * 1e-9;
    ok = true;
done:
    kernel_destroy(g, &k);
    buffer_destroy(g, &result);
    buffer_destroy(g, &values);
    return ok;
}
#endif

/* Workgroups of a kernel that strides over `count` vec4s, `per` per invocation. */
static uint32_t stride_groups(const vk_device *vd, uint64_t count, uint32_t per)
{
    uint64_t groups = (count + (uint64_t)WG * per - 1) / ((uint64_t)WG * per);
    uint64_t most =
        vd->caps.max_workgroup_count[0] < MAX_GROUPS ? vd->caps.max_workgroup_count[0] : MAX_GROUPS;
    return (uint32_t)(groups < most ? groups : most);
}

/* The copy's source size: z's, within one binding's range and a quarter of the budget. */
static uint64_t memory_bytes(const vk_device *vd, const struct ceiling_sizes *z)
{
    uint64_t bytes = z->memory_bytes;
    if (vd->caps.max_storage_buffer_range && bytes > vd->caps.max_storage_buffer_range)
        bytes = vd->caps.max_storage_buffer_range;
    if (vd->caps.memory_budget && bytes > vd->caps.memory_budget / 4)
        bytes = vd->caps.memory_budget / 4;
    return bytes & ~(uint64_t)(16 * WG - 1);
}

static bool measure_memory(ceil_gpu *g, const struct ceiling_sizes *z, int runs,
                           bench_ceilings *out)
{
    ceil_buffer src = {0}, dst = {0}, sums = {0};
    ceil_kernel copy = {0}, read = {0};
    bool ok = false;
    uint64_t bytes = memory_bytes(g->vd, z), count = bytes / 16;
    uint32_t copy_groups = stride_groups(g->vd, count, 1);
    uint32_t read_groups = stride_groups(g->vd, count, READ_PER_INVOCATION);
    uint64_t read_out = (uint64_t)read_groups * WG * 16;
    if (count == 0 || count > UINT32_MAX) {
        fprintf(stderr, "bench_ceiling: no room for the bandwidth buffers\n");
        return false;
    }
    if (!buffer_create(g, bytes, false, &src) || !buffer_create(g, bytes, false, &dst) ||
        !buffer_create(g, read_out, false, &sums) || !fill(g, &src, ONE_F32) || !fill(g, &dst, 0) ||
        !kernel_create(g, peak_copy_spv, sizeof(peak_copy_spv), 4, 2, (ceil_buffer *[]){&src, &dst},
                       &copy) ||
        !kernel_create(g, peak_read_spv, sizeof(peak_read_spv), 4, 2,
                       (ceil_buffer *[]){&src, &sums}, &read))
        goto done;
    uint32_t n = (uint32_t)count;
    double t_copy, t_read;
    float last[4], first[4];
    if (!best_of(g, &copy, &n, copy_groups, runs, &t_copy) ||
        !read_back(g, &dst, bytes - 16, 16, last) ||
        !best_of(g, &read, &n, read_groups, runs, &t_read) || !read_back(g, &sums, 0, 16, first))
        goto done;
    /* The copy's last vec4 is the source's ones; invocation 0 of the read summed every
     * stride-th vec4 of ones from 0. */
    uint64_t stride = (uint64_t)read_groups * WG;
    if (!near(last[3], 1.0, "memory copy") ||
        !near(first[0], (double)((count + stride - 1) / stride), "memory read"))
        goto done;
    out->copy_gbs = 2.0 * (double)bytes / t_copy * 1e-9;
    out->read_gbs = ((double)bytes + (double)read_out) / t_read * 1e-9;
    out->memory_bytes = bytes;
    ok = true;
done:
    kernel_destroy(g, &read);
    kernel_destroy(g, &copy);
    buffer_destroy(g, &sums);
    buffer_destroy(g, &dst);
    buffer_destroy(g, &src);
    return ok;
}

static void gpu_close(ceil_gpu *g)
{
    VkDevice dev = g->vd->dev;
    if (g->mapped)
        vkUnmapMemory(dev, g->readback.mem);
    buffer_destroy(g, &g->readback);
    vkDestroyQueryPool(dev, g->queries, NULL);
    vkDestroyFence(dev, g->fence, NULL);
    vkDestroyCommandPool(dev, g->pool, NULL); /* frees g->cmd */
}

static bool gpu_open(vk_device *vd, ceil_gpu *g)
{
    *g = (ceil_gpu){.vd = vd};
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                   .queueFamilyIndex = vd->queue_family};
    CK(vkCreateCommandPool(vd->dev, &pci, NULL, &g->pool));
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = g->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    CK(vkAllocateCommandBuffers(vd->dev, &ai, &g->cmd));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    CK(vkCreateFence(vd->dev, &fci, NULL, &g->fence));
    if (vd->caps.timestamps) {
        VkQueryPoolCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                     .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                     .queryCount = 2};
        CK(vkCreateQueryPool(vd->dev, &qci, NULL, &g->queries));
        uint32_t bits = vd->caps.timestamp_bits;
        g->tick_mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    }
    if (!buffer_create(g, READBACK_BYTES, true, &g->readback))
        goto fail;
    CK(vkMapMemory(vd->dev, g->readback.mem, 0, VK_WHOLE_SIZE, 0, &g->mapped));
    return true;
fail:
    gpu_close(g);
    return false;
}

bool bench_ceilings_measure(vk_device *vd, bool small, int runs, bench_ceilings *out)
{
    const struct ceiling_sizes *z = &sizes[small ? 1 : 0];
    *out = (bench_ceilings){.runs = runs < 1 ? 1 : runs};
    ceil_gpu g;
    if (!gpu_open(vd, &g))
        return false;
    out->device_timer = g.queries != VK_NULL_HANDLE;
    bool ok =
        measure_fma(&g, z, out->runs, &out->fma_gflops) && measure_memory(&g, z, out->runs, out);
#if BENCH_HAVE_COOP
    /* float16 16x16x16 fragments of 1/64: a MulAdd adds 16 / 64^2 = 1/256 */
    const coop_peak fp16 = {
        peak_coop_spv, sizeof(peak_coop_spv), 2 * 16 * 16 * 4, COOP_VALUE,
        1.0 / 256,     2.0 * 16 * 16 * 16,    false,           "fp16 cooperative matrix"};
    if (ok && vd->caps.cooperative_matrix)
        ok = measure_coop(&g, z, out->runs, &fp16, &out->coop_gflops);
    else
        out->coop_note = "no cooperative matrices on this device";
#else
    out->coop_note = "glslc here does not compile GL_NV_cooperative_matrix";
#endif
#if BENCH_HAVE_COOP_INT8
    /* int8 16x16x32 fragments of ones: a MulAdd adds 32 */
    const coop_peak int8 = {peak_coop_int8_spv,
                            sizeof(peak_coop_int8_spv),
                            2 * 16 * 32,
                            0x01010101u,
                            32,
                            2.0 * 16 * 16 * 32,
                            true,
                            "int8 cooperative matrix"};
    if (ok && vd->caps.coop_int8)
        ok = measure_coop(&g, z, out->runs, &int8, &out->coop_int8_gops);
    /* The fp16 MulAdds fed from shared memory: 1/64 as in the fp16 ceiling above. Built on
     * VK_KHR_cooperative_matrix (as the int8 kernel), which the device enabled where it has
     * cooperative matrices (BENCH_HAVE_COOP_INT8: the build's gemm_coop.comp is on KHR). */
    coop_peak smem = {peak_coop_smem_spv,
                      sizeof(peak_coop_smem_spv),
                      2 * 16 * 16 * 4,
                      COOP_VALUE,
                      1.0 / 256,
                      2.0 * 16 * 16 * 16,
                      false,
                      "fp16 cooperative matrix fed from shared memory",
                      16};
    if (ok && vd->caps.cooperative_matrix)
        ok = measure_coop(&g, z, out->runs, &smem, &out->coop_smem_gflops);
    smem.spv = peak_coop_smem_barrier_spv;
    smem.spv_size = sizeof(peak_coop_smem_barrier_spv);
    smem.what = "fp16 cooperative matrix fed from shared memory, barriers";
    if (ok && vd->caps.cooperative_matrix)
        ok = measure_coop(&g, z, out->runs, &smem, &out->coop_smem_barrier_gflops);
#endif
    gpu_close(&g);
    return ok;
}

void bench_ceilings_print(const bench_ceilings *c)
{
    printf("%-34s %12s  %s\n", "ceiling", "value", "unit");
    printf("%-34s %12.1f  GFLOP/s\n", "fp32 FMA", c->fma_gflops);
    if (c->coop_gflops > 0)
        printf("%-34s %12.1f  GFLOP/s\n", "fp16 cooperative matrix (fp32 acc)", c->coop_gflops);
    else
        printf("%-34s %12s  (%s)\n", "fp16 cooperative matrix (fp32 acc)", "none", c->coop_note);
    if (c->coop_int8_gops > 0)
        printf("%-34s %12.1f  GOP/s\n", "int8 cooperative matrix (int32 acc)", c->coop_int8_gops);
    if (c->coop_smem_gflops > 0) {
        printf("%-34s %12.1f  GFLOP/s\n", "fp16 coop, fragments from shared", c->coop_smem_gflops);
        printf("%-34s %12.1f  GFLOP/s\n", "  and a barrier a K step of 32",
               c->coop_smem_barrier_gflops);
    }
    printf("%-34s %12.1f  GB/s\n", "memory copy (read + write)", c->copy_gbs);
    printf("%-34s %12.1f  GB/s\n", "memory read", c->read_gbs);
    printf("best of %d dispatches after a warm-up, timed by %s; copy and read over %.0f MiB\n",
           c->runs, c->device_timer ? "timestamp queries" : "the host (no timestamps here)",
           (double)c->memory_bytes / (1 << 20));
}
