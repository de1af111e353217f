/* Benchmark (not a test): the raw Vulkan floors a vkml run stands on, measured with plain
 * Vulkan on the same device, then vkml against them:
 *   1. an empty command buffer: submit + fence wait
 *   2. the same: submit + timeline semaphore wait, sleeping (vkWaitSemaphores) and polling
 *      (vkGetSemaphoreCounterValue), and a fence polled (vkGetFenceStatus) and reset, as vkml
 *      waits; then one dispatch of vkml's Add, polled both ways
 *   3. K dependent trivial dispatches (dst = src + 1 over 1024 floats, ping-pong, a
 *      barrier between) in one command buffer, K = 1 .. 10000: median per K, least-squares
 *      slope (the per-dispatch floor); then dst = src + c[0], reading a third buffer as
 *      vkml's binary Add of a constant did, dst = src + c[i] (a dense binary op's two
 *      reads), and vkml's own Add and Relu kernels (their SPIR-V and push blocks) in the
 *      same loop, K up to 1000
 *   4. vkml, a one-node model (one Add) host to host, over floors 1 and 3 at K = 1, with
 *      the default wait spin, none, and 100 us
 *   5. vkml, the chained-Add model (bench_util.h) at K = 1 .. 1000, its slope over 3's
 *      (6.: the same chain of Relus, the unary kernel: what the Add's binary kernel costs;
 *      7.: Adds of a dense constant of 1024 ones and of y to itself, also over the raw loop
 *      reading a dense third buffer)
 *   bench_floor [DEVICE] [RUNS]      DEVICE: a vkml GPU index (default 0); RUNS (default 300)
 * Medians of RUNS repetitions (fewer for long K). vkml's host-to-host time also copies the
 * 4 KiB input in and the output out, which the floors do not. */
#include "bench_util.h"

#include "push.h"
#include "vk_kernels.h"

#include <string.h>
#include <vulkan/vulkan.h>

#define LEN 1024

static const uint32_t floor_add_spv[] =
#include "floor_add.spv.h"
    ;
static const uint32_t floor_add3_spv[] =
#include "floor_add3.spv.h"
    ;
static const uint32_t floor_add3d_spv[] =
#include "floor_add3d.spv.h"
    ;

/* The raw loop's kernels: 0 dst = src + 1 (2 bindings); 1 dst = src + c[0] (3); 1d dst =
 * src + c[i] (3: the two reads of a dense binary op); 2 vkml's
 * Add (b_add float32: dst = src + c, c broadcast, its binary_push); 3 vkml's Relu (u_relu,
 * its unary_push); 4 vkml's Add under vkml's pipeline layout (VK_MAX_BINDINGS bindings, a
 * push range of VK_PUSH_CONSTANT_MAX bytes); 5 vkml's Add of two dense operands (b_add_dense:
 * dst = src + c[i]). */
enum {
    RAW_ADD,
    RAW_ADD3,
    RAW_ADD3_DENSE,
    RAW_VKML_ADD,
    RAW_VKML_RELU,
    RAW_VKML_ADD_LAYOUT,
    RAW_VKML_ADD_DENSE,
    N_RAW
};
#define VKML_LAYOUT_BINDINGS 6 /* lib/vulkan: VK_MAX_BINDINGS */
#define VKML_LAYOUT_PUSH 256   /* and VK_PUSH_CONSTANT_MAX */

#define VKF(call)                                                                                  \
    do {                                                                                           \
        VkResult r_ = (call);                                                                      \
        if (r_ != VK_SUCCESS) {                                                                    \
            fprintf(stderr, "bench_floor: %s failed (%d) at line %d\n", #call, r_, __LINE__);      \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

typedef struct floor_gpu {
    VkInstance inst;
    VkPhysicalDevice phys;
    VkDevice dev;
    VkQueue queue;
    VkCommandPool pool;
    VkFence fence;
    VkSemaphore timeline;
    uint64_t timeline_value;
    VkBuffer buf[3]; /* ping, pong, the third kernel's c */
    VkDeviceMemory mem[3];
    /* per kernel (N_RAW): the raw ones, then vkml's own SPIR-V and push blocks */
    VkDescriptorSetLayout set_layout[N_RAW];
    VkPipelineLayout layout[N_RAW];
    VkPipeline pipe[N_RAW];
    VkDescriptorPool desc_pool;
    VkDescriptorSet sets[N_RAW][2]; /* [kernel][0 -> 1, 1 -> 0] */
} floor_gpu;

static void open_device(floor_gpu *g, const char *name)
{
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .apiVersion = VK_API_VERSION_1_2};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                .pApplicationInfo = &app};
    VKF(vkCreateInstance(&ici, NULL, &g->inst));
    VkPhysicalDevice phys[32];
    uint32_t n = 32;
    VKF(vkEnumeratePhysicalDevices(g->inst, &n, phys));
    for (uint32_t i = 0; i < n && !g->phys; i++) {
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(phys[i], &props);
        if (strcmp(props.deviceName, name) == 0)
            g->phys = phys[i];
    }
    if (!g->phys) {
        fprintf(stderr, "bench_floor: no Vulkan device named '%s'\n", name);
        exit(1);
    }
    VkQueueFamilyProperties fams[16];
    uint32_t n_fams = 16, family = UINT32_MAX;
    vkGetPhysicalDeviceQueueFamilyProperties(g->phys, &n_fams, fams);
    for (uint32_t i = 0; i < n_fams; i++) /* compute-only first, as vkml picks */
        if ((fams[i].queueFlags & VK_QUEUE_COMPUTE_BIT) &&
            (family == UINT32_MAX || !(fams[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)))
            family = i;
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                   .queueFamilyIndex = family,
                                   .queueCount = 1,
                                   .pQueuePriorities = &prio};
    VkPhysicalDeviceTimelineSemaphoreFeatures tl = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
        .timelineSemaphore = VK_TRUE};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .pNext = &tl,
                              .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &qci};
    VKF(vkCreateDevice(g->phys, &dci, NULL, &g->dev));
    vkGetDeviceQueue(g->dev, family, 0, &g->queue);
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .queueFamilyIndex = family};
    VKF(vkCreateCommandPool(g->dev, &pci, NULL, &g->pool));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VKF(vkCreateFence(g->dev, &fci, NULL, &g->fence));
    VkSemaphoreTypeCreateInfo type = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                      .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
    VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type};
    VKF(vkCreateSemaphore(g->dev, &sci, NULL, &g->timeline));
}

static void make_buffers(floor_gpu *g)
{
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(g->phys, &mp);
    for (int i = 0; i < 3; i++) {
        VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                                  .size = LEN * sizeof(float),
                                  .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT};
        VKF(vkCreateBuffer(g->dev, &bci, NULL, &g->buf[i]));
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(g->dev, g->buf[i], &req);
        uint32_t type = 0;
        while (type < mp.memoryTypeCount &&
               (!(req.memoryTypeBits & (1u << type)) ||
                !(mp.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)))
            type++;
        VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                    .allocationSize = req.size,
                                    .memoryTypeIndex = type};
        VKF(vkAllocateMemory(g->dev, &mai, NULL, &g->mem[i]));
        VKF(vkBindBufferMemory(g->dev, g->buf[i], g->mem[i], 0));
    }
}

/* The SPIR-V of vkml's kernel id in float32. */
static vk_spirv vkml_spirv(vk_kernel_id id)
{
    int v = vk_kernel_variant(id, VKML_DTYPE_FLOAT);
    if (v < 0) {
        fprintf(stderr, "bench_floor: vkml kernel %d has no float32 variant\n", (int)id);
        exit(1);
    }
    return vk_spirv_table[v];
}

/* Kernel v's (RAW_*) pipeline and its two descriptor sets. */
static void make_pipeline(floor_gpu *g, int v)
{
    bool vkml_layout = v == RAW_VKML_ADD_LAYOUT;
    bool vkml_add = v == RAW_VKML_ADD || v == RAW_VKML_ADD_DENSE;
    uint32_t n_bind = v == RAW_ADD || v == RAW_VKML_RELU ? 2 : 3;
    VkDescriptorSetLayoutBinding b[VKML_LAYOUT_BINDINGS];
    for (uint32_t i = 0; i < VKML_LAYOUT_BINDINGS; i++)
        b[i] = (VkDescriptorSetLayoutBinding){i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                              VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo dl = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = vkml_layout ? VKML_LAYOUT_BINDINGS : n_bind,
        .pBindings = b};
    VKF(vkCreateDescriptorSetLayout(g->dev, &dl, NULL, &g->set_layout[v]));
    uint32_t push = vkml_layout          ? VKML_LAYOUT_PUSH
                    : vkml_add           ? sizeof(binary_push)
                    : v == RAW_VKML_RELU ? sizeof(unary_push)
                                         : sizeof(uint32_t);
    VkPushConstantRange pcr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, push};
    VkPipelineLayoutCreateInfo pl = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .setLayoutCount = 1,
                                     .pSetLayouts = &g->set_layout[v],
                                     .pushConstantRangeCount = 1,
                                     .pPushConstantRanges = &pcr};
    VKF(vkCreatePipelineLayout(g->dev, &pl, NULL, &g->layout[v]));
    vk_spirv code = {"floor_add", floor_add_spv, sizeof(floor_add_spv)};
    if (v == RAW_ADD3)
        code = (vk_spirv){"floor_add3", floor_add3_spv, sizeof(floor_add3_spv)};
    else if (v == RAW_ADD3_DENSE)
        code = (vk_spirv){"floor_add3d", floor_add3d_spv, sizeof(floor_add3d_spv)};
    else if (v == RAW_VKML_ADD || vkml_layout)
        code = vkml_spirv(VK_KERNEL_B_ADD);
    else if (v == RAW_VKML_RELU)
        code = vkml_spirv(VK_KERNEL_U_RELU);
    else if (v == RAW_VKML_ADD_DENSE)
        code = vkml_spirv(VK_KERNEL_B_ADD_DENSE);
    VkShaderModuleCreateInfo smi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                    .codeSize = code.size,
                                    .pCode = code.code};
    VkShaderModule module;
    VKF(vkCreateShaderModule(g->dev, &smi, NULL, &module));
    VkComputePipelineCreateInfo cpi = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = module,
                  .pName = "main"},
        .layout = g->layout[v]};
    VKF(vkCreateComputePipelines(g->dev, VK_NULL_HANDLE, 1, &cpi, NULL, &g->pipe[v]));
    vkDestroyShaderModule(g->dev, module, NULL);
    if (!g->desc_pool) {
        VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                   2 * VKML_LAYOUT_BINDINGS * N_RAW};
        VkDescriptorPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                          .maxSets = 2 * N_RAW,
                                          .poolSizeCount = 1,
                                          .pPoolSizes = &ps};
        VKF(vkCreateDescriptorPool(g->dev, &dpi, NULL, &g->desc_pool));
    }
    VkDescriptorSetLayout layouts[2] = {g->set_layout[v], g->set_layout[v]};
    VkDescriptorSetAllocateInfo dai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                       .descriptorPool = g->desc_pool,
                                       .descriptorSetCount = 2,
                                       .pSetLayouts = layouts};
    VKF(vkAllocateDescriptorSets(g->dev, &dai, g->sets[v]));
    for (int s = 0; s < 2; s++) {
        VkDescriptorBufferInfo bi[3] = {{g->buf[s], 0, VK_WHOLE_SIZE},
                                        {g->buf[1 - s], 0, VK_WHOLE_SIZE},
                                        {g->buf[2], 0, VK_WHOLE_SIZE}};
        if (vkml_add || vkml_layout) { /* vkml's order: a, b, y */
            bi[1] = (VkDescriptorBufferInfo){g->buf[2], 0, VK_WHOLE_SIZE};
            bi[2] = (VkDescriptorBufferInfo){g->buf[1 - s], 0, VK_WHOLE_SIZE};
        }
        VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                  .dstSet = g->sets[v][s],
                                  .descriptorCount = n_bind,
                                  .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                  .pBufferInfo = bi};
        vkUpdateDescriptorSets(g->dev, 1, &w, 0, NULL);
    }
}

/* A command buffer of k dependent dispatches of kernel v (k = 0: empty). */
static VkCommandBuffer record(floor_gpu *g, int k, int v)
{
    VkCommandBuffer cmd;
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = g->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    VKF(vkAllocateCommandBuffers(g->dev, &ai, &cmd));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VKF(vkBeginCommandBuffer(cmd, &bi));
    /* the push block and workgroups of the kernel: vkml's as ops_elementwise.c records
     * them (64 invocations a group, 4 elements each) */
    uint32_t n = LEN, groups = (LEN + 255) / 256, push_size = sizeof(n);
    const void *push = &n;
    binary_push bp = {.count = LEN, .rank = 1, .dims = {LEN}, .a_strides = {1}, .b_strides = {0}};
    unary_push up = {.count = LEN};
    if (v == RAW_VKML_ADD || v == RAW_VKML_ADD_LAYOUT || v == RAW_VKML_ADD_DENSE) {
        push = &bp;
        push_size = sizeof(bp);
    } else if (v == RAW_VKML_RELU) {
        push = &up;
        push_size = sizeof(up);
    }
    if (k)
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, g->pipe[v]);
    for (int i = 0; i < k; i++) {
        if (i) {
            VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                  .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                                  .dstAccessMask =
                                      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
            vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
        }
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, g->layout[v], 0, 1,
                                &g->sets[v][i % 2], 0, NULL);
        vkCmdPushConstants(cmd, g->layout[v], VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size, push);
        vkCmdDispatch(cmd, groups, 1, 1);
    }
    VKF(vkEndCommandBuffer(cmd));
    return cmd;
}

/* WAIT_FENCE_POLL: vkGetFenceStatus in a loop, then the reset, as vkml's runs wait. */
typedef enum wait_kind {
    WAIT_FENCE,
    WAIT_TIMELINE_SLEEP,
    WAIT_TIMELINE_POLL,
    WAIT_FENCE_POLL
} wait_kind;

/* One submit of cmd and its host wait, in us. */
static double submit_wait(floor_gpu *g, VkCommandBuffer cmd, wait_kind kind)
{
    uint64_t value = ++g->timeline_value;
    VkTimelineSemaphoreSubmitInfo tsi = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                         .signalSemaphoreValueCount = 1,
                                         .pSignalSemaphoreValues = &value};
    bool fence = kind == WAIT_FENCE || kind == WAIT_FENCE_POLL;
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                       .pNext = fence ? NULL : &tsi,
                       .commandBufferCount = 1,
                       .pCommandBuffers = &cmd,
                       .signalSemaphoreCount = fence ? 0 : 1,
                       .pSignalSemaphores = &g->timeline};
    if (fence)
        g->timeline_value--;
    double t0 = bench_now_us();
    VKF(vkQueueSubmit(g->queue, 1, &si, fence ? g->fence : VK_NULL_HANDLE));
    if (kind == WAIT_FENCE_POLL) {
        VkResult r;
        while ((r = vkGetFenceStatus(g->dev, g->fence)) == VK_NOT_READY)
            ;
        VKF(r);
        VKF(vkResetFences(g->dev, 1, &g->fence));
    } else if (fence) {
        VKF(vkWaitForFences(g->dev, 1, &g->fence, VK_TRUE, UINT64_MAX));
        VKF(vkResetFences(g->dev, 1, &g->fence));
    } else if (kind == WAIT_TIMELINE_SLEEP) {
        VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                                  .semaphoreCount = 1,
                                  .pSemaphores = &g->timeline,
                                  .pValues = &value};
        VKF(vkWaitSemaphores(g->dev, &wi, UINT64_MAX));
    } else {
        uint64_t counter = 0;
        while (counter < value)
            VKF(vkGetSemaphoreCounterValue(g->dev, g->timeline, &counter));
    }
    return bench_now_us() - t0;
}

static double median_submit_wait(floor_gpu *g, VkCommandBuffer cmd, wait_kind kind, int runs)
{
    double *t = calloc((size_t)runs, sizeof(double));
    submit_wait(g, cmd, kind); /* warm-up */
    for (int r = 0; r < runs; r++)
        t[r] = submit_wait(g, cmd, kind);
    double m = bench_median(t, runs);
    free(t);
    return m;
}

static void close_device(floor_gpu *g)
{
    vkDeviceWaitIdle(g->dev);
    vkDestroyDescriptorPool(g->dev, g->desc_pool, NULL);
    for (int v = 0; v < N_RAW; v++) {
        vkDestroyPipeline(g->dev, g->pipe[v], NULL);
        vkDestroyPipelineLayout(g->dev, g->layout[v], NULL);
        vkDestroyDescriptorSetLayout(g->dev, g->set_layout[v], NULL);
    }
    for (int i = 0; i < 3; i++) {
        vkDestroyBuffer(g->dev, g->buf[i], NULL);
        vkFreeMemory(g->dev, g->mem[i], NULL);
    }
    vkDestroySemaphore(g->dev, g->timeline, NULL);
    vkDestroyFence(g->dev, g->fence, NULL);
    vkDestroyCommandPool(g->dev, g->pool, NULL);
    vkDestroyDevice(g->dev, NULL);
    vkDestroyInstance(g->inst, NULL);
}

/* Repetitions for a K-dispatch measurement: fewer for long command buffers. */
static int runs_for(int k, int runs)
{
    int r = 20000 / k;
    return r < 5 ? 5 : r > runs ? runs : r;
}

int main(int argc, char **argv)
{
    const char *dev_text = argc > 1 ? argv[1] : "0";
    int runs = argc > 2 ? atoi(argv[2]) : 300;
    runs = runs < 10 ? 10 : runs;
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    int device;
    vkml_device_info info;
    if (vkml_context_create(NULL, &ctx, &err) != VKML_OK ||
        vkml_context_parse_device(ctx, dev_text, &device, &err) != VKML_OK ||
        device == VKML_DEVICE_CPU ||
        vkml_context_device_info(ctx, device, &info, &err) != VKML_OK) {
        fprintf(stderr, "bench_floor: a GPU is needed: %s\n", err.message);
        return 1;
    }
    printf("device %s (%s), medians of %d runs\n", dev_text, info.name, runs);
    /* the raw loops poll as vkml's waits do: off the CPU that takes the GPU's interrupts
     * (vkml moves its own polling threads; keep_thread_affinity in vkml.h) */
    if (info.irq_cpu >= 0)
        printf("the GPU's interrupts go to CPU %d: this thread %s\n", info.irq_cpu,
               vkml_thread_avoid_cpu(info.irq_cpu) ? "left it" : "stays where it is allowed");
    floor_gpu g = {0};
    open_device(&g, info.name);
    make_buffers(&g);
    for (int v = 0; v < N_RAW; v++)
        make_pipeline(&g, v);

    VkCommandBuffer empty = record(&g, 0, 0);
    double fence = median_submit_wait(&g, empty, WAIT_FENCE, runs);
    double sleep = median_submit_wait(&g, empty, WAIT_TIMELINE_SLEEP, runs);
    double poll = median_submit_wait(&g, empty, WAIT_TIMELINE_POLL, runs);
    double fence_poll = median_submit_wait(&g, empty, WAIT_FENCE_POLL, runs);
    printf("1. empty submit + fence wait:            %9.2f us\n", fence);
    printf("2. empty submit + timeline wait (sleep): %9.2f us\n", sleep);
    printf("   empty submit + timeline wait (poll):  %9.2f us\n", poll);
    printf("   empty submit + fence poll and reset:  %9.2f us\n", fence_poll);
    /* one dispatch of vkml's Add, polled: what a one-node model needs of the GPU */
    VkCommandBuffer one = record(&g, 1, RAW_VKML_ADD);
    double one_poll = median_submit_wait(&g, one, WAIT_TIMELINE_POLL, runs);
    double one_fence_poll = median_submit_wait(&g, one, WAIT_FENCE_POLL, runs);
    vkFreeCommandBuffers(g.dev, g.pool, 1, &one);
    printf("   one vkml Add, timeline poll / fence poll: %6.2f / %.2f us\n", one_poll,
           one_fence_poll);

    static const int ks[] = {1, 10, 100, 1000, 10000};
    enum { N_K = 5 };
    double kx[N_K], raw[N_K], slope, fixed;
    printf("3. K dependent dispatches, one command buffer, submit + fence wait:\n");
    printf("%8s %14s %14s\n", "K", "median us", "us/dispatch");
    for (int i = 0; i < N_K; i++) {
        VkCommandBuffer cmd = record(&g, ks[i], 0);
        kx[i] = ks[i];
        raw[i] = median_submit_wait(&g, cmd, WAIT_FENCE, runs_for(ks[i], runs));
        printf("%8d %14.2f %14.3f\n", ks[i], raw[i], raw[i] / ks[i]);
        vkFreeCommandBuffers(g.dev, g.pool, 1, &cmd);
    }
    bench_fit(kx, raw, N_K, &slope, &fixed);
    printf("   per-dispatch floor %.3f us (least squares), fixed %.2f us\n", slope, fixed);
    /* the same with a third buffer read (dst = src + c[0]: what vkml's Add of a constant
     * bound; dst = src + c[i]: a dense binary op's two reads), then vkml's own Add and Relu
     * kernels in the raw loop, K up to 1000 */
    static const char *raw_names[N_RAW] = {
        [RAW_ADD3] = "with a third buffer read (dst = src + c[0])",
        [RAW_ADD3_DENSE] = "with a dense third buffer read (dst = src + c[i])",
        [RAW_VKML_ADD] = "of vkml's Add kernel (b_add, its push block)",
        [RAW_VKML_RELU] = "of vkml's Relu kernel (u_relu, its push block)",
        [RAW_VKML_ADD_LAYOUT] = "of vkml's Add kernel under vkml's pipeline layout",
        [RAW_VKML_ADD_DENSE] = "of vkml's dense Add kernel (b_add_dense: dst = src + c[i])"};
    double slope3 = 0, slope3d = 0;
    for (int v = RAW_ADD3; v < N_RAW; v++) {
        double rawv[N_K], slopev, fixedv;
        for (int i = 0; i < N_K - 1; i++) {
            VkCommandBuffer cmd = record(&g, ks[i], v);
            rawv[i] = median_submit_wait(&g, cmd, WAIT_FENCE, runs_for(ks[i], runs));
            vkFreeCommandBuffers(g.dev, g.pool, 1, &cmd);
        }
        bench_fit(kx, rawv, N_K - 1, &slopev, &fixedv);
        printf("   per-dispatch floor %s %.3f us, fixed %.2f us\n", raw_names[v], slopev, fixedv);
        if (v == RAW_ADD3)
            slope3 = slopev;
        if (v == RAW_ADD3_DENSE)
            slope3d = slopev;
    }
    vkFreeCommandBuffers(g.dev, g.pool, 1, &empty);
    close_device(&g);

    static const int spins[] = {0, -1, 100};
    static const char *spin_names[] = {"default spin", "no spin", "spin 100 us"};
    for (int i = 0; i < 3; i++) {
        double one = bench_chain_latency(ctx, device, 1, LEN, runs, spins[i], true);
        if (one < 0)
            return 1;
        printf("4. vkml one-node model, %-12s:   %9.2f us = %.2fx floor 1 (empty), "
               "%.2fx floor 3 at K=1\n",
               spin_names[i], one, one / fence, one / raw[0]);
    }

    static const int vks[] = {1, 10, 100, 1000};
    enum { N_VK = 4 };
    double vx[N_VK], vk[N_VK], vslope, vfixed;
    printf("5. vkml chained Add:\n%8s %14s %14s\n", "K", "median us", "x raw at K");
    for (int i = 0; i < N_VK; i++) {
        vx[i] = vks[i];
        if ((vk[i] = bench_chain_latency(ctx, device, vks[i], LEN, runs_for(vks[i], runs), 0,
                                         true)) < 0)
            return 1;
        printf("%8d %14.2f %14.2f\n", vks[i], vk[i], vk[i] / raw[i]);
    }
    bench_fit(vx, vk, N_VK, &vslope, &vfixed);
    printf("   vkml per dependent op %.3f us = %.2fx the per-dispatch floor (%.2fx with a third "
           "buffer); fixed %.2f us\n",
           vslope, vslope / slope, vslope / slope3, vfixed);
    printf("6. vkml chained Relu (the unary kernel, two bindings, against the Add's three):\n");
    for (int i = 0; i < N_VK; i++)
        if ((vk[i] = bench_chain_latency_of(ctx, device, vks[i], LEN, runs_for(vks[i], runs), 0,
                                            true, "Relu")) < 0)
            return 1;
    bench_fit(vx, vk, N_VK, &vslope, &vfixed);
    printf("   vkml per dependent Relu %.3f us = %.2fx the per-dispatch floor; fixed %.2f us\n",
           vslope, vslope / slope, vfixed);
    /* 7.: the Add's operands varied: what of its cost is the broadcast constant */
    static const char *adds[] = {"Add:dense", "Add:self"};
    for (size_t a = 0; a < sizeof(adds) / sizeof(*adds); a++) {
        for (int i = 0; i < N_VK; i++)
            if ((vk[i] = bench_chain_latency_of(ctx, device, vks[i], LEN, runs_for(vks[i], runs), 0,
                                                true, adds[a])) < 0)
                return 1;
        bench_fit(vx, vk, N_VK, &vslope, &vfixed);
        printf("7. vkml chained %-9s per dependent op %.3f us = %.2fx the per-dispatch floor "
               "(%.2fx with a dense third buffer)\n",
               adds[a], vslope, vslope / slope, vslope / slope3d);
    }
    vkml_context_destroy(&ctx);
    return 0;
}
