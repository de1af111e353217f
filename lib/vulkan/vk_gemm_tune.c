/* Kernel choice by measurement for matrix products and convs (vk_gemm_tune.h). */
#include "vulkan/vk_gemm_tune.h"
#include "core/common.h"
#include "ops/conv.h"
#include "vulkan/ops_gemm.h"
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
 * splitk_force, coop_splits, taps_force, taps_splits) and what they may take.
 * - Products: "shape", then the coop ones where gemm_coop.comp takes the dtype, else the
 *   tiled ones (on the H200 gemm_tiled.comp ran float16 products 3-10x slower than the best
 *   coop candidate on every BERT-base shape, 2026-11-30: measuring them only cost their
 *   pipelines' compilation).
 * - Convs whose weights are packed over taps (vk_conv_packs_weights): "shape" and the taps
 *   blocks, whole or split along K (the other kernels cannot read packed weights).
 * - Other convs the GEMM kernels suit: "shape", the tiled ones, the gather conv on
 *   cooperative matrices where they take the dtype (never by shape: ops_gemm.h), and the
 *   direct kernel.
 * Forced by name: any that can run. */
enum { FOR_PRODUCT = 1, FOR_CONV = 2, FOR_TAPS = 4 };
static const struct candidate {
    const char *name;
    unsigned takes; /* FOR_*: products, unpacked convs, convs over taps */
    bool needs_coop;
    int gemm, coop, splitk, coop_splits, taps, taps_splits;
    bool splitk_wide;
} candidates[] = {
    {"shape", FOR_PRODUCT | FOR_CONV | FOR_TAPS, false, 0, 0, 0, 0, 0, 0, false},
    {"coop1", FOR_PRODUCT | FOR_CONV, true, 0, 1, -1, 0, 0, 0, false},
    {"coop2", FOR_PRODUCT | FOR_CONV, true, 0, 2, -1, 0, 0, 0, false},
    {"coop3", FOR_PRODUCT | FOR_CONV, true, 0, 3, -1, 0, 0, 0, false},
    {"coop-split2", FOR_PRODUCT, true, 0, 0, 0, 2, 0, 0, false},
    {"coop-split4", FOR_PRODUCT, true, 0, 0, 0, 4, 0, 0, false},
    {"coop-split8", FOR_PRODUCT, true, 0, 0, 0, 8, 0, 0, false},
    {"coop-split16", FOR_PRODUCT, true, 0, 0, 0, 16, 0, 0, false},
    {"tiled1", FOR_PRODUCT | FOR_CONV, false, 1, -1, -1, 0, 0, 0, false},
    {"tiled2", FOR_PRODUCT | FOR_CONV, false, 2, -1, -1, 0, 0, 0, false},
    {"tiled3", FOR_PRODUCT | FOR_CONV, false, 3, -1, -1, 0, 0, 0, false},
    {"tiled4", FOR_PRODUCT | FOR_CONV, false, 4, -1, -1, 0, 0, 0, false},
    {"tiled-split2", FOR_PRODUCT | FOR_CONV, false, 0, -1, 2, 0, 0, 0, false},
    {"tiled-split4", FOR_PRODUCT | FOR_CONV, false, 0, -1, 4, 0, 0, 0, false},
    {"tiled-split8", FOR_PRODUCT | FOR_CONV, false, 0, -1, 8, 0, 0, 0, false},
    {"tiled-wide-split2", FOR_PRODUCT, false, 0, -1, 2, 0, 0, 0, true},
    {"tiled-wide-split4", FOR_PRODUCT, false, 0, -1, 4, 0, 0, 0, true},
    {"tiled-wide-split8", FOR_PRODUCT, false, 0, -1, 8, 0, 0, 0, true},
    {"direct", FOR_CONV, false, -1, 0, 0, 0, 0, 0, false},
    {"taps1", FOR_TAPS, true, 0, 0, 0, 0, 1, 1, false},
    {"taps2", FOR_TAPS, true, 0, 0, 0, 0, 2, 1, false},
    {"taps3", FOR_TAPS, true, 0, 0, 0, 0, 3, 1, false},
    {"taps4", FOR_TAPS, true, 0, 0, 0, 0, 4, 1, false},
    {"taps-split2", FOR_TAPS, true, 0, 0, 0, 0, 2, 2, false},
    {"taps-split4", FOR_TAPS, true, 0, 0, 0, 0, 2, 4, false},
    {"taps-split8", FOR_TAPS, true, 0, 0, 0, 0, 2, 8, false},
    {"taps-split16", FOR_TAPS, true, 0, 0, 0, 0, 2, 16, false},
    {"taps64-split2", FOR_TAPS, true, 0, 0, 0, 0, 4, 2, false},
    {"taps64-split4", FOR_TAPS, true, 0, 0, 0, 0, 4, 4, false},
    {"taps64-split8", FOR_TAPS, true, 0, 0, 0, 0, 4, 8, false},
    {"taps64-split16", FOR_TAPS, true, 0, 0, 0, 0, 4, 16, false},
};
#define N_CANDIDATES ((int)VKML_ARRAY_SIZE(candidates))
_Static_assert(VK_COOP_TILES == 3 && VK_GEMM_TILES == 4 && VK_CONV_TAPS_TILES == 4,
               "the tiles of the table above");

/* Whether candidate c can take work of kind `takes` (one FOR_*) on a device where the
 * cooperative matrices take its dtype (coop): what VKML_GEMM_TUNE may force. */
static bool can_take(int c, unsigned takes, bool coop)
{
    const struct candidate *k = &candidates[c];
    return c == 0 || ((k->takes & takes) && (!k->needs_coop || coop));
}

/* Whether it is measured there: products time the tiled family only where the coop one
 * does not take the dtype. */
static bool measured_for(int c, unsigned takes, bool coop)
{
    return can_take(c, takes, coop) &&
           (c == 0 || takes != FOR_PRODUCT || candidates[c].needs_coop == coop);
}

/* A shape to measure: its kind and numbers (key_of_product's, key_of_conv's). */
#define KEY_PRODUCT 8
#define KEY_CONV 21
#define KEY_MAX KEY_CONV
typedef struct tune_key {
    unsigned kind; /* FOR_PRODUCT, or FOR_CONV for every conv */
    int n;
    int64_t v[KEY_MAX];
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

static const char *kind_name(unsigned kind)
{
    return kind == FOR_PRODUCT ? "product" : "conv";
}

static tune_key key_of_product(const matmul_push *pc, vkml_dtype dtype, bool fast, int64_t batch)
{
    return (tune_key){FOR_PRODUCT,
                      KEY_PRODUCT,
                      {(int)dtype, fast, pc->a_sk == 1, pc->b_sn == 1, pc->m, pc->n, pc->k, batch}};
}

/* A conv's numbers: 1-D and 2-D windows (the GEMM kernels take no 3-D conv) */
static tune_key key_of_conv(const conv_params *p, vkml_dtype dtype, bool fast, bool packed)
{
    const window_params *w = &p->win;
    tune_key k = {FOR_CONV,
                  KEY_CONV,
                  {(int)dtype, fast, packed, p->has_bias, p->batch, p->in_channels, p->out_channels,
                   p->group, w->spatial}};
    for (int d = 0; d < 2; d++) {
        bool in = d < w->spatial;
        int64_t *v = k.v + 9 + d;
        v[0] = in ? w->in[d] : 1;
        v[2] = in ? w->kernel[d] : 1;
        v[4] = in ? w->strides[d] : 1;
        v[6] = in ? w->pads_begin[d] : 0;
        v[8] = in ? w->pads_end[d] : 0;
        v[10] = in ? w->dilations[d] : 1;
    }
    return k;
}

static bool same_key(const tune_key *a, const tune_key *b)
{
    return a->kind == b->kind && a->n == b->n &&
           memcmp(a->v, b->v, (size_t)a->n * sizeof(a->v[0])) == 0;
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

/* FNV-1a over the rule that picks (VK_GEMM_TUNE_MARGIN) and the SPIR-V of the product and
 * conv kernels: a new build of either measures afresh. */
static uint64_t kernels_hash(void)
{
    static const char *const prefixes[] = {"gemm", "conv", "matmul", "gemv"};
    const int margin = VK_GEMM_TUNE_MARGIN;
    uint64_t h = vkml_fnv1a(VKML_FNV1A_SEED, &margin, sizeof(margin));
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
    n = snprintf(path, size, "%s/kernel-choices-%04x-%04x-%08x-%s-%016llx.txt", dir, pr->vendorID,
                 pr->deviceID, pr->driverVersion, uuid, (unsigned long long)kernels_hash());
    if (n <= 0 || (size_t)n >= size)
        path[0] = '\0';
}

/* Reads the device's file: lines "KIND N1 ... Nn CANDIDATE" (KIND product or conv, with
 * its count of numbers: key_of_product, key_of_conv); others are skipped. */
static void load(const vk_device *vd, struct vk_gemm_tune *t)
{
    t->loaded = true;
    cache_path(vd, t->path, sizeof(t->path));
    FILE *f = t->path[0] ? fopen(t->path, "r") : NULL;
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof(line), f)) {
        char *save = NULL, *word = strtok_r(line, " \t\n", &save);
        tune_key k = {0};
        k.kind = !word                          ? 0
                 : strcmp(word, "product") == 0 ? FOR_PRODUCT
                 : strcmp(word, "conv") == 0    ? FOR_CONV
                                                : 0;
        int want = k.kind == FOR_PRODUCT ? KEY_PRODUCT : KEY_CONV;
        bool ok = k.kind != 0;
        for (; ok && k.n < want; k.n++) {
            char *end;
            word = strtok_r(NULL, " \t\n", &save);
            k.v[k.n] = word ? strtoll(word, &end, 10) : 0;
            ok = word && *end == '\0';
        }
        word = ok ? strtok_r(NULL, " \t\n", &save) : NULL;
        int c = word ? candidate_named(word) : -1;
        if (c >= 0 && !strtok_r(NULL, " \t\n", &save) && find(t, &k) < 0 && !add(t, &k, c))
            break;
    }
    fclose(f);
    VKML_LOGD("Vulkan device '%s': %d kernel choices read from %s", vd->base.info.name, t->n,
              t->path);
}

static void save(const struct vk_gemm_tune *t, const tune_key *k, int choice)
{
    FILE *f = t->path[0] ? fopen(t->path, "a") : NULL;
    if (!f)
        return;
    fprintf(f, "%s", kind_name(k->kind));
    for (int i = 0; i < k->n; i++)
        fprintf(f, " %lld", (long long)k->v[i]);
    fprintf(f, " %s\n", candidates[choice].name);
    fclose(f);
}

static void force(struct gpu_caps *caps, int c)
{
    caps->gemm_force = candidates[c].gemm;
    caps->coop_force = candidates[c].coop;
    caps->splitk_force = candidates[c].splitk;
    caps->coop_splits = candidates[c].coop_splits;
    caps->taps_force = candidates[c].taps;
    caps->taps_splits = candidates[c].taps_splits;
    caps->splitk_wide = candidates[c].splitk_wide;
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

/* What a measurement records: a product (pc, batch, has_c, has_res) or a conv (conv,
 * packed), its dtype, and the elements of its five buffers (A or X, B or W, C or bias,
 * the residual, Y). A conv is measured without its epilogue. */
typedef struct tune_work {
    unsigned kind;
    vkml_dtype dtype;
    bool fast;
    const matmul_push *pc;
    int64_t batch;
    bool has_c, has_res;
    const conv_params *conv;
    bool packed;
    uint64_t elems[5];
    char label[96];
} tune_work;

static vkml_status record_candidate(gpu_recorder *rec, const struct gpu_caps *caps,
                                    const tune_work *w, vkml_error *err)
{
    if (w->kind == FOR_PRODUCT)
        return vk_rec_matmul_as(rec, caps, w->pc, w->dtype, 0, 1, w->has_c ? 2 : -1,
                                w->has_res ? 3 : -1, 4, w->batch, NULL, err);
    const int bind[5] = {0, 1, w->conv->has_bias ? 2 : 1, 1, 4};
    const vk_epilogue_push none = {0};
    return vk_rec_conv_as(rec, caps, w->conv, w->dtype, w->packed, bind, &none, err);
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

int vk_gemm_tune_pick(const double *us, int n)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (us[i] < us[best])
            best = i;
    return us[best] * (100 + VK_GEMM_TUNE_MARGIN) > us[0] * 100 ? 0 : best;
}

/* Times candidates cand[0 .. n) on w (cand[0] the choice by shape: measured_for keeps the
 * table's order); *best: the index into candidates of the one vk_gemm_tune_pick takes. */
static vkml_status measure(vk_device *vd, struct vk_gemm_tune *tune, const tune_work *w,
                           const int *cand, int n, int *best, vkml_error *err)
{
    vkml_status status = VKML_OK;
    tune_run r = {.vd = vd};
    VkDevice dev = vd->dev;
    uint64_t elem = w->dtype == VKML_DTYPE_FLOAT16 ? 2 : 4;
    const uint64_t *elems = w->elems;
    uint64_t total = 0;
    for (int i = 0; i < 5; i++)
        total += elems[i] * elem;
    if (total > VK_GEMM_TUNE_MAX_BYTES)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "%llu bytes of operands",
                         (unsigned long long)total);
    for (int i = 0; i < 5; i++)
        VKML_TRY(
            vk_mem_alloc(vd->alloc, VK_MEM_DEVICE, (elems[i] * elem + 3) / 4 * 4, &r.mem[i], err));
    VKML_TRY(vk_rec_create(vd, r.mem, NULL, 5, w->fast, &r.rec, err));
    vk_rec_plain_pipelines(r.rec);
    for (int round = 0; round < VK_GEMM_TUNE_ROUNDS; round++)
        for (int i = 0; i < n; i++) {
            struct gpu_caps caps = vd->caps;
            force(&caps, cand[i]);
            vk_rec_set_node(r.rec, round * n + i);
            VKML_TRY(record_candidate(r.rec, &caps, w, err));
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
    double us[N_CANDIDATES];
    char line[1024];
    int at = snprintf(line, sizeof(line), "Vulkan device '%s': %s %s:", vd->base.info.name,
                      w->label, vkml_dtype_name(w->dtype));
    for (int i = 0; i < n; i++) {
        /* round 0 warms the caches */
        for (int round = 1; round < VK_GEMM_TUNE_ROUNDS; round++) {
            int s = round * n + i;
            double v = (double)((t[s + 1] - t[s]) & mask) * vd->props.limits.timestampPeriod / 1e3;
            us[i] = round == 1 || v < us[i] ? v : us[i];
        }
        if (at > 0 && (size_t)at < sizeof(line))
            at += snprintf(line + at, sizeof(line) - (size_t)at, " %s %.1f",
                           candidates[cand[i]].name, us[i]);
    }
    *best = cand[vk_gemm_tune_pick(us, n)];
    VKML_LOGD("%s us; takes %s", line, candidates[*best].name);
cleanup:
    run_free(&r);
    return status;
}

/* The caps for w on rec's device: forced as VKML_GEMM_TUNE names, as the device chose
 * before for w's shape, or as it chooses now by measuring the candidates for w's kind. */
static void tuned_caps(gpu_recorder *rec, const tune_work *w, struct gpu_caps *out)
{
    unsigned takes = w->kind == FOR_PRODUCT ? FOR_PRODUCT : w->packed ? FOR_TAPS : FOR_CONV;
    vk_device *vd = vk_rec_device(rec);
    *out = vd->caps;
    const char *env = getenv("VKML_GEMM_TUNE");
    bool floats = w->dtype == VKML_DTYPE_FLOAT || w->dtype == VKML_DTYPE_FLOAT16;
    bool gpu = vd->base.info.type == VKML_DEVICE_TYPE_DISCRETE_GPU ||
               vd->base.info.type == VKML_DEVICE_TYPE_INTEGRATED_GPU ||
               vd->base.info.type == VKML_DEVICE_TYPE_VIRTUAL_GPU;
    bool on = env && *env ? strcmp(env, "0") != 0 : gpu;
    /* tests and bench_gemm force kernels through the device's caps: theirs stand */
    if (!on || !floats || !out->prefer_tiled || !out->timestamps || out->gemm_force ||
        out->coop_force || out->splitk_force || out->splitk_wide || out->cm2_force ||
        out->coop_splits || out->taps_force || out->taps_splits)
        return;
    bool coop = vk_gemm_coop_takes(out, w->dtype, w->fast);
    int forced = env && strcmp(env, "1") != 0 ? candidate_named(env) : -1;
    if (forced >= 0) {
        if (can_take(forced, takes, coop))
            force(out, forced);
        return;
    }
    tune_key key = w->kind == FOR_PRODUCT ? key_of_product(w->pc, w->dtype, w->fast, w->batch)
                                          : key_of_conv(w->conv, w->dtype, w->fast, w->packed);
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
            if (measured_for(c, takes, coop))
                cand[n++] = c;
        vkml_error err = {0};
        choice = 0;
        if (measure(vd, t, w, cand, n, &choice, &err) != VKML_OK) {
            VKML_LOGD("Vulkan device '%s': %s not measured (%s): by shape", vd->base.info.name,
                      w->label, err.message);
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

void vk_gemm_tuned_caps(gpu_recorder *rec, const matmul_push *pc, vkml_dtype dtype, int64_t batch,
                        bool has_c, bool has_res, struct gpu_caps *out)
{
    tune_work w = {.kind = FOR_PRODUCT,
                   .dtype = dtype,
                   .fast = vk_rec_fast_math(rec),
                   .pc = pc,
                   .batch = batch,
                   .has_c = has_c,
                   .has_res = has_res};
    const uint32_t *a_batch = pc->batch_rank ? pc->a_batch_strides : NULL;
    const uint32_t *b_batch = pc->batch_rank ? pc->b_batch_strides : NULL;
    uint64_t y = (uint64_t)pc->m * pc->n * (uint64_t)batch;
    w.elems[0] = reach(pc, pc->m, pc->a_sm, pc->k, pc->a_sk, a_batch);
    w.elems[1] = reach(pc, pc->k, pc->b_sk, pc->n, pc->b_sn, b_batch);
    w.elems[2] = has_c ? reach(pc, pc->m, pc->c_sm, pc->n, pc->c_sn, NULL) : 1;
    w.elems[3] = has_res ? y : 1;
    w.elems[4] = y;
    snprintf(w.label, sizeof(w.label), "product %ux%ux%u batch %lld", pc->m, pc->n, pc->k,
             (long long)batch);
    tuned_caps(rec, &w, out);
}

void vk_conv_tuned_caps(gpu_recorder *rec, const conv_params *p, vkml_dtype dtype, bool packed,
                        struct gpu_caps *out)
{
    tune_work w = {.kind = FOR_CONV,
                   .dtype = dtype,
                   .fast = vk_rec_fast_math(rec),
                   .conv = p,
                   .packed = packed};
    int64_t in = window_in_size(&p->win);
    w.elems[0] = (uint64_t)(p->batch * p->in_channels * in);
    w.elems[1] =
        (uint64_t)(p->out_channels * (p->in_channels / p->group) * window_kernel_size(&p->win));
    w.elems[2] = p->has_bias ? (uint64_t)p->out_channels : 1;
    w.elems[3] = 1;
    w.elems[4] = (uint64_t)(p->batch * p->out_channels * window_out_size(&p->win));
    snprintf(w.label, sizeof(w.label), "conv %lld -> %lld, group %lld, %lld px%s, batch %lld",
             (long long)p->in_channels, (long long)p->out_channels, (long long)p->group,
             (long long)in, packed ? " over taps" : "", (long long)p->batch);
    tuned_caps(rec, &w, out);
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
