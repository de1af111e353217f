/* Kernel choice by measurement for matrix products (vk_gemm_tune.h). */
#include "vulkan/vk_gemm_tune.h"
#include "core/common.h"
#include "vulkan/vk_counts.h"
#include "vulkan/vk_record.h"
#include "vulkan/vk_transfer.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The candidates: the caps forcing each one (gpu_caps: gemm_force, coop_force,
 * splitk_force, coop_splits). Measured: "shape", then the coop ones where gemm_coop.comp
 * takes the dtype, else the tiled ones (on the H200 gemm_tiled.comp ran float16 products
 * 3-10x slower than the best coop candidate on every BERT-base shape, 2026-11-30: measuring
 * them only cost their pipelines' compilation). Forced by name: any that can run. */
static const struct candidate {
    const char *name;
    int gemm, coop, splitk, coop_splits;
    bool needs_coop;
} candidates[] = {
    {"shape", 0, 0, 0, 0, false},         {"coop1", 0, 1, -1, 0, true},
    {"coop2", 0, 2, -1, 0, true},         {"coop3", 0, 3, -1, 0, true},
    {"coop-split2", 0, 0, 0, 2, true},    {"coop-split4", 0, 0, 0, 4, true},
    {"coop-split8", 0, 0, 0, 8, true},    {"coop-split16", 0, 0, 0, 16, true},
    {"tiled1", 1, -1, -1, 0, false},      {"tiled2", 2, -1, -1, 0, false},
    {"tiled3", 3, -1, -1, 0, false},      {"tiled4", 4, -1, -1, 0, false},
    {"tiled-split2", 0, -1, 2, 0, false}, {"tiled-split4", 0, -1, 4, 0, false},
    {"tiled-split8", 0, -1, 8, 0, false},
};
#define N_CANDIDATES ((int)VKML_ARRAY_SIZE(candidates))
_Static_assert(VK_COOP_TILES == 3 && VK_GEMM_TILES == 4, "the tiles of the table above");

typedef struct tune_key {
    int dtype, fast, a_rows, b_rows;
    int64_t m, n, k, batch;
} tune_key;

typedef struct tune_entry {
    tune_key key;
    int choice; /* index into candidates */
} tune_entry;

struct vk_gemm_tune {
    tune_entry *entries;
    int n, cap;
    int measured;
    uint64_t last_ns; /* when the latest measurement ended (vkml_now_ns) */
    bool loaded;
    char path[PATH_MAX]; /* the device's file; "" when there is no cache folder */
};

static tune_key key_of(const matmul_push *pc, vkml_dtype dtype, bool fast, int64_t batch)
{
    return (tune_key){.dtype = (int)dtype,
                      .fast = fast,
                      .a_rows = pc->a_sk == 1,
                      .b_rows = pc->b_sn == 1,
                      .m = pc->m,
                      .n = pc->n,
                      .k = pc->k,
                      .batch = batch};
}

static bool same_key(const tune_key *a, const tune_key *b)
{
    return a->dtype == b->dtype && a->fast == b->fast && a->a_rows == b->a_rows &&
           a->b_rows == b->b_rows && a->m == b->m && a->n == b->n && a->k == b->k &&
           a->batch == b->batch;
}

static int find(const struct vk_gemm_tune *t, const tune_key *key)
{
    for (int i = 0; i < t->n; i++)
        if (same_key(&t->entries[i].key, key))
            return t->entries[i].choice;
    return -1;
}

static bool add(struct vk_gemm_tune *t, const tune_key *key, int choice)
{
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 32;
        tune_entry *grown = realloc(t->entries, (size_t)cap * sizeof(*grown));
        if (!grown)
            return false;
        t->entries = grown;
        t->cap = cap;
    }
    t->entries[t->n++] = (tune_entry){*key, choice};
    return true;
}

static int candidate_named(const char *name)
{
    for (int c = 0; c < N_CANDIDATES; c++)
        if (strcmp(candidates[c].name, name) == 0)
            return c;
    return -1;
}

/* FNV-1a over the SPIR-V of the product kernels: a new build of them measures afresh. */
static uint64_t kernels_hash(void)
{
    static const char *const prefixes[] = {"gemm", "conv_gemm", "matmul", "gemv"};
    uint64_t h = VKML_FNV1A_SEED;
    for (int v = 0; v < VK_VARIANT_COUNT; v++)
        for (size_t p = 0; p < VKML_ARRAY_SIZE(prefixes); p++)
            if (strncmp(vk_spirv_table[v].name, prefixes[p], strlen(prefixes[p])) == 0) {
                h = vkml_fnv1a(h, vk_spirv_table[v].code, vk_spirv_table[v].size);
                break;
            }
    return h;
}

/* mkdir -p of dir (its last component included); false when it cannot be had. */
static bool make_dirs(char *dir)
{
    for (char *s = dir + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        bool ok = mkdir(dir, 0755) == 0 || errno == EEXIST;
        *s = '/';
        if (!ok)
            return false;
    }
    return mkdir(dir, 0755) == 0 || errno == EEXIST;
}

/* The device's file under the cache folder, or "" (no folder to be had). */
static void cache_path(const vk_device *vd, char *path, size_t size)
{
    char dir[PATH_MAX];
    const char *env = getenv("VKML_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"),
               *home = getenv("HOME");
    int n = env && *env     ? snprintf(dir, sizeof(dir), "%s", env)
            : xdg && *xdg   ? snprintf(dir, sizeof(dir), "%s/vkml", xdg)
            : home && *home ? snprintf(dir, sizeof(dir), "%s/.cache/vkml", home)
                            : -1;
    path[0] = '\0';
    if (n <= 0 || (size_t)n >= sizeof(dir) || !make_dirs(dir))
        return;
    const VkPhysicalDeviceProperties *pr = &vd->props;
    char uuid[2 * VK_UUID_SIZE + 1];
    for (unsigned i = 0; i < VK_UUID_SIZE; i++)
        snprintf(uuid + 2 * i, 3, "%02x", pr->pipelineCacheUUID[i]);
    n = snprintf(path, size, "%s/gemm-choices-%04x-%04x-%08x-%s-%016llx.txt", dir, pr->vendorID,
                 pr->deviceID, pr->driverVersion, uuid, (unsigned long long)kernels_hash());
    if (n <= 0 || (size_t)n >= size)
        path[0] = '\0';
}

/* Reads the device's file: lines "dtype fast a_rows b_rows m n k batch candidate"; others
 * are skipped. */
static void load(const vk_device *vd, struct vk_gemm_tune *t)
{
    t->loaded = true;
    cache_path(vd, t->path, sizeof(t->path));
    FILE *f = t->path[0] ? fopen(t->path, "r") : NULL;
    if (!f)
        return;
    char line[256], name[64];
    while (fgets(line, sizeof(line), f)) {
        tune_key k;
        long long m, n, kk, batch;
        if (sscanf(line, "%d %d %d %d %lld %lld %lld %lld %63s", &k.dtype, &k.fast, &k.a_rows,
                   &k.b_rows, &m, &n, &kk, &batch, name) != 9)
            continue;
        k.m = m, k.n = n, k.k = kk, k.batch = batch;
        int c = candidate_named(name);
        if (c >= 0 && find(t, &k) < 0 && !add(t, &k, c))
            break;
    }
    fclose(f);
    VKML_LOGD("Vulkan device '%s': %d product choices read from %s", vd->base.info.name, t->n,
              t->path);
}

static void save(const struct vk_gemm_tune *t, const tune_key *k, int choice)
{
    FILE *f = t->path[0] ? fopen(t->path, "a") : NULL;
    if (!f)
        return;
    fprintf(f, "%d %d %d %d %lld %lld %lld %lld %s\n", k->dtype, k->fast, k->a_rows, k->b_rows,
            (long long)k->m, (long long)k->n, (long long)k->k, (long long)k->batch,
            candidates[choice].name);
    fclose(f);
}

static void force(struct gpu_caps *caps, int c)
{
    caps->gemm_force = candidates[c].gemm;
    caps->coop_force = candidates[c].coop;
    caps->splitk_force = candidates[c].splitk;
    caps->coop_splits = candidates[c].coop_splits;
}

/* Elements an operand reaches: 1 + the sum over its dims of (extent - 1) x stride. */
static uint64_t reach(const matmul_push *pc, uint64_t rows, uint64_t row_stride, uint64_t cols,
                      uint64_t col_stride, const uint32_t *batch_strides)
{
    uint64_t last = (rows - 1) * row_stride + (cols - 1) * col_stride;
    for (uint32_t d = 0; batch_strides && d < pc->batch_rank; d++)
        last += (uint64_t)(pc->batch_dims[d] ? pc->batch_dims[d] - 1 : 0) * batch_strides[d];
    return last + 1;
}

typedef struct tune_run {
    vk_device *vd;
    vk_mem mem[5]; /* A, B, C, residual, Y */
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkDescriptorPool dpool;
    VkQueryPool stamps;
    VkFence fence;
    gpu_recorder *rec;
} tune_run;

static void run_free(tune_run *r)
{
    VkDevice dev = r->vd->dev;
    vk_rec_destroy(&r->rec);
    VK_DESTROY(VKML_VK_FENCE, vkDestroyFence, dev, r->fence);
    VK_DESTROY(VKML_VK_QUERY_POOL, vkDestroyQueryPool, dev, r->stamps);
    VK_DESTROY(VKML_VK_DESCRIPTOR_POOL, vkDestroyDescriptorPool, dev, r->dpool);
    if (r->cmd) { /* freed with its pool */
        vkFreeCommandBuffers(dev, r->pool, 1, &r->cmd);
        vk_count_add(VKML_VK_COMMAND_BUFFER, -1);
    }
    VK_DESTROY(VKML_VK_COMMAND_POOL, vkDestroyCommandPool, dev, r->pool);
    for (int i = 0; i < 5; i++)
        vk_mem_free(r->vd->alloc, &r->mem[i]);
}

/* Times candidates cand[0 .. n) on pc's shape; *best: the fastest's index into candidates. */
static vkml_status measure(vk_device *vd, struct vk_gemm_tune *tune, const matmul_push *pc,
                           vkml_dtype dtype, bool fast, int64_t batch, bool has_c, bool has_res,
                           const int *cand, int n, int *best, vkml_error *err)
{
    vkml_status status = VKML_OK;
    tune_run r = {.vd = vd};
    VkDevice dev = vd->dev;
    uint64_t elem = dtype == VKML_DTYPE_FLOAT16 ? 2 : 4;
    const uint32_t *a_batch = pc->batch_rank ? pc->a_batch_strides : NULL;
    const uint32_t *b_batch = pc->batch_rank ? pc->b_batch_strides : NULL;
    uint64_t y = (uint64_t)pc->m * pc->n * (uint64_t)batch;
    uint64_t elems[5] = {reach(pc, pc->m, pc->a_sm, pc->k, pc->a_sk, a_batch),
                         reach(pc, pc->k, pc->b_sk, pc->n, pc->b_sn, b_batch),
                         has_c ? reach(pc, pc->m, pc->c_sm, pc->n, pc->c_sn, NULL) : 1,
                         has_res ? y : 1, y};
    uint64_t total = 0;
    for (int i = 0; i < 5; i++)
        total += elems[i] * elem;
    if (total > VK_GEMM_TUNE_MAX_BYTES)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "%llu bytes of operands",
                         (unsigned long long)total);
    for (int i = 0; i < 5; i++)
        VKML_TRY(
            vk_mem_alloc(vd->alloc, VK_MEM_DEVICE, (elems[i] * elem + 3) / 4 * 4, &r.mem[i], err));
    VKML_TRY(vk_rec_create(vd, r.mem, NULL, 5, fast, &r.rec, err));
    for (int round = 0; round < VK_GEMM_TUNE_ROUNDS; round++)
        for (int i = 0; i < n; i++) {
            struct gpu_caps caps = vd->caps;
            force(&caps, cand[i]);
            vk_rec_set_node(r.rec, round * n + i);
            VKML_TRY(vk_rec_matmul_as(r.rec, &caps, pc, dtype, 0, 1, has_c ? 2 : -1,
                                      has_res ? 3 : -1, 4, batch, err));
        }
    int stamps = VK_GEMM_TUNE_ROUNDS * n;
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .queueFamilyIndex = vd->queue_family};
    VK_CREATE(VKML_VK_COMMAND_POOL, vkCreateCommandPool(dev, &pci, NULL, &r.pool));
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = r.pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    VK_CREATE(VKML_VK_COMMAND_BUFFER, vkAllocateCommandBuffers(dev, &ai, &r.cmd));
    VkQueryPoolCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                 .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                 .queryCount = (uint32_t)stamps + 1};
    VK_CREATE(VKML_VK_QUERY_POOL, vkCreateQueryPool(dev, &qci, NULL, &r.stamps));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_CREATE(VKML_VK_FENCE, vkCreateFence(dev, &fci, NULL, &r.fence));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK(vkBeginCommandBuffer(r.cmd, &bi));
    /* operands of ones (float16 1.0 twice in a word; float32 about 0.0078) */
    for (int i = 0; i < 5; i++)
        vkCmdFillBuffer(r.cmd, r.mem[i].buffer, r.mem[i].offset, r.mem[i].size, 0x3c003c00u);
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
    vkCmdPipelineBarrier(r.cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    vk_rec_profile prof = {.pool = r.stamps, .n_nodes = stamps};
    VKML_TRY(vk_rec_finish(r.rec, r.cmd, &r.dpool, &prof, NULL, err));
    VK(vkEndCommandBuffer(r.cmd));
    /* An idle GPU's clocks take a few hundred milliseconds of work to rise (an H200's from
     * 345 to 1,980 MHz): after a pause the runs repeat for VK_GEMM_TUNE_WARM_MS, then until
     * a run is no more than 3% faster than the one before (VK_GEMM_TUNE_MAX_MS at most);
     * the last one's times count. */
    uint64_t t[VK_GEMM_TUNE_ROUNDS * N_CANDIDATES + 1];
    uint64_t mask =
        vd->caps.timestamp_bits >= 64 ? UINT64_MAX : (1ull << vd->caps.timestamp_bits) - 1;
    uint64_t start = vkml_now_ns(), before = 0;
    bool warm = tune->last_ns && start - tune->last_ns < VK_GEMM_TUNE_IDLE_MS * 1000000ull;
    for (int runs = 0;; runs++) {
        VKML_TRY(vk_submit_wait(vd, &(vk_submit){.cmd = r.cmd}, r.fence, false, err));
        VK(vkGetQueryPoolResults(dev, r.stamps, 0, (uint32_t)stamps + 1,
                                 sizeof(uint64_t) * ((size_t)stamps + 1), t, sizeof(uint64_t),
                                 VK_QUERY_RESULT_64_BIT));
        uint64_t took = (t[stamps] - t[0]) & mask, since = vkml_now_ns() - start;
        bool steady = runs > 0 && took * 100 >= before * 97;
        if (since >= VK_GEMM_TUNE_MAX_MS * 1000000ull ||
            (warm ? runs > 0 : since >= VK_GEMM_TUNE_WARM_MS * 1000000ull && steady))
            break;
        before = took;
    }
    tune->last_ns = vkml_now_ns();
    double best_us = 0;
    char line[1024];
    int at = snprintf(line, sizeof(line),
                      "Vulkan device '%s': product %ux%ux%u batch %lld %s:", vd->base.info.name,
                      pc->m, pc->n, pc->k, (long long)batch, vkml_dtype_name(dtype));
    for (int i = 0; i < n; i++) {
        double us = 0;
        /* round 0 warms the caches */
        for (int round = 1; round < VK_GEMM_TUNE_ROUNDS; round++) {
            int s = round * n + i;
            double v = (double)((t[s + 1] - t[s]) & mask) * vd->props.limits.timestampPeriod / 1e3;
            us = round == 1 || v < us ? v : us;
        }
        if (i == 0 || us < best_us) {
            best_us = us;
            *best = cand[i];
        }
        if (at > 0 && (size_t)at < sizeof(line))
            at += snprintf(line + at, sizeof(line) - (size_t)at, " %s %.1f",
                           candidates[cand[i]].name, us);
    }
    VKML_LOGD("%s us; takes %s", line, candidates[*best].name);
cleanup:
    run_free(&r);
    return status;
}

void vk_gemm_tuned_caps(gpu_recorder *rec, const matmul_push *pc, vkml_dtype dtype, int64_t batch,
                        bool has_c, bool has_res, struct gpu_caps *out)
{
    vk_device *vd = vk_rec_device(rec);
    *out = vd->caps;
    const char *env = getenv("VKML_GEMM_TUNE");
    bool floats = dtype == VKML_DTYPE_FLOAT || dtype == VKML_DTYPE_FLOAT16;
    bool gpu = vd->base.info.type == VKML_DEVICE_TYPE_DISCRETE_GPU ||
               vd->base.info.type == VKML_DEVICE_TYPE_INTEGRATED_GPU ||
               vd->base.info.type == VKML_DEVICE_TYPE_VIRTUAL_GPU;
    bool on = env && *env ? strcmp(env, "0") != 0 : gpu;
    /* tests and bench_gemm force kernels through the device's caps: theirs stand */
    if (!on || !floats || !out->prefer_tiled || !out->timestamps || out->gemm_force ||
        out->coop_force || out->splitk_force || out->cm2_force || out->coop_splits)
        return;
    bool fast = vk_rec_fast_math(rec);
    bool coop = vk_gemm_coop_takes(out, dtype, fast);
    int forced = env && strcmp(env, "1") != 0 ? candidate_named(env) : -1;
    if (forced >= 0) {
        if (coop || !candidates[forced].needs_coop)
            force(out, forced);
        return;
    }
    tune_key key = key_of(pc, dtype, fast, batch);
    pthread_mutex_lock(&vd->tune_lock);
    if (!vd->tune)
        vd->tune = calloc(1, sizeof(*vd->tune));
    struct vk_gemm_tune *t = vd->tune;
    if (t && !t->loaded)
        load(vd, t);
    int choice = t ? find(t, &key) : 0;
    if (t && choice < 0) {
        int cand[N_CANDIDATES], n = 0;
        for (int c = 0; c < N_CANDIDATES; c++)
            if (c == 0 || candidates[c].needs_coop == coop)
                cand[n++] = c;
        vkml_error err = {0};
        choice = 0;
        if (measure(vd, t, pc, dtype, fast, batch, has_c, has_res, cand, n, &choice, &err) !=
            VKML_OK) {
            VKML_LOGD("Vulkan device '%s': product %ux%ux%u not measured (%s): by shape",
                      vd->base.info.name, pc->m, pc->n, pc->k, err.message);
            choice = 0;
        } else {
            t->measured++;
            save(t, &key, choice);
        }
        add(t, &key, choice);
    }
    pthread_mutex_unlock(&vd->tune_lock);
    force(out, choice > 0 ? choice : 0);
}

int vk_gemm_tune_measured(const vk_device *vd)
{
    return vd->tune ? vd->tune->measured : 0;
}

void vk_gemm_tune_free(vk_device *vd)
{
    if (!vd->tune)
        return;
    free(vd->tune->entries);
    free(vd->tune);
    vd->tune = NULL;
}
