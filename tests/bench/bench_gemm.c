/* Benchmark (not a test): float32 matrix products and convolutions on one Vulkan device,
 * GFLOP/s of each kernel family: the plain per-output kernels (matmul_direct.comp,
 * conv_window.comp), the tiled kernels before gemm_tiled.comp (matmul.comp; convs: the
 * direct kernel), gemm_tiled.comp without split-K and gemm_tiled.comp (tile and split-K by
 * shape; the split-K plan printed); then, on a device with cooperative
 * matrices (caps.cooperative_matrix), precision fp16 and fp32-fast with gemm_coop.comp off
 * (VKML_NO_COOPMAT's effect) and on, and the coop kernel each shape takes.
 *   bench_gemm [DEVICE] [RUNS] [CHAIN] [FILTER]   DEVICE: 0, 1 ... (default 0); RUNS: timed
 *   runs per point (default 20); CHAIN: products per model (default 10); FILTER: only
 *   shapes whose name contains it. BENCH_GEMM_TILES=1 adds a line per shape with every
 *   tile forced (gemm_tiled.comp float32; gemm_coop.comp fp16 where it runs).
 * Method: a model of CHAIN dependent products (X -> op -> op ...; each op's output is the
 * next one's input, so the shapes are square in what chains) and one of a single product,
 * each run RUNS times after a warm-up; time per product = (median(CHAIN) - median(1)) /
 * (CHAIN - 1): the copies in and out and the submit cost cancel. */
#include "bench_util.h"
#include "plan/context.h"
#include "vulkan/ops_gemm.h"
#include "vulkan/vk_device.h"

#include <math.h>

typedef struct bench_shape {
    const char *name;
    bool conv;
    int64_t batch, m, k; /* MatMul: X [batch, m, k] x W [k, k] (n = k) */
    int64_t c, hw, ksize; /* Conv: X [batch, c, hw, hw], W [c, c, ksize, ksize], pad ksize/2 */
} bench_shape;

static const bench_shape shapes[] = {
    {"matmul 1024x1024x1024", false, 1, 1024, 1024, 0, 0, 0},
    {"linear 256x4096x4096", false, 1, 256, 4096, 0, 0, 0},
    {"matmul batch 8 x 512x512x512", false, 8, 512, 512, 0, 0, 0},
    {"matmul 64x768x768 (BERT-ish)", false, 1, 64, 768, 0, 0, 0},
    {"conv r50 3x3 64 @56", true, 1, 0, 0, 64, 56, 3},
    {"conv r50 3x3 128 @28", true, 1, 0, 0, 128, 28, 3},
    {"conv r50 3x3 256 @14", true, 1, 0, 0, 256, 14, 3},
    {"conv r50 3x3 512 @7", true, 1, 0, 0, 512, 7, 3},
    {"conv 1x1 256 @56", true, 1, 0, 0, 256, 56, 1},
    {"conv 1x1 1024 @14", true, 1, 0, 0, 1024, 14, 1},
};

/* The input's dims and element count of a shape. */
static int input_dims(const bench_shape *s, int64_t *dims)
{
    if (s->conv) {
        int64_t d[4] = {s->batch, s->c, s->hw, s->hw};
        memcpy(dims, d, sizeof(d));
        return 4;
    }
    int64_t d[3] = {s->batch, s->m, s->k};
    memcpy(dims, d, sizeof(d));
    return 3;
}

static double flops(const bench_shape *s)
{
    if (s->conv)
        return 2.0 * s->batch * s->c * s->c * s->hw * s->hw * s->ksize * s->ksize;
    return 2.0 * s->batch * s->m * s->k * s->k;
}

static vkml_model *chain_model(const bench_shape *s, int chain)
{
    uint64_t seed = 1;
    graph *g = graph_create();
    int64_t dims[4];
    int rank = input_dims(s, dims);
    int x = bench_float_value(g, "x", rank, dims);
    g->values[x].kind = GRAPH_VALUE_INPUT;
    int64_t wd[4] = {s->c, s->c, s->ksize, s->ksize}, md[2] = {s->k, s->k};
    int w = s->conv ? bench_float_value(g, "w", 4, wd) : bench_float_value(g, "w", 2, md);
    size_t n = s->conv ? (size_t)(s->c * s->c * s->ksize * s->ksize) : (size_t)(s->k * s->k);
    float *data = vkml_arena_calloc(g->arena, n, sizeof(float));
    float scale = 1.7f / sqrtf((float)(s->conv ? s->c * s->ksize * s->ksize : s->k));
    for (size_t i = 0; i < n; i++)
        data[i] = test_randf(&seed, -scale, scale);
    g->values[w].kind = GRAPH_VALUE_CONSTANT;
    g->values[w].data = data;
    g->values[w].data_size = n * sizeof(float);
    int prev = x;
    for (int i = 0; i < chain; i++) {
        char name[32];
        snprintf(name, sizeof(name), "y%d", i);
        int y = graph_add_value(g, name);
        int node = graph_add_node(g, name, s->conv ? "Conv" : "MatMul", "", 2, 1, s->conv);
        g->nodes[node].inputs[0] = prev;
        g->nodes[node].inputs[1] = w;
        g->nodes[node].outputs[0] = y;
        g->nodes[node].opset = 13;
        if (s->conv) {
            int64_t p = s->ksize / 2;
            g->nodes[node].attrs[0] = (graph_attr){
                .name = "pads", .type = GRAPH_ATTR_INTS, .count = 4,
                .ints = vkml_arena_memdup(g->arena, (int64_t[]){p, p, p, p}, 4 * sizeof(int64_t))};
        }
        prev = y;
    }
    vkml_model *model = bench_model(g, x, prev, 13, "bench_gemm model");
    return model;
}

/* Median microseconds of a run of the model. */
static double time_model(vkml_context *ctx, int device, vkml_model *model, const bench_shape *s,
                         vkml_precision precision, int runs)
{
    vkml_error err = {0};
    vkml_session *sess = NULL;
    vkml_session_params p = {.device = device, .precision = precision};
    if (vkml_session_create(ctx, model, &p, &sess, &err) != VKML_OK) {
        fprintf(stderr, "bench_gemm: %s: %s\n", s->name, err.message);
        return NAN;
    }
    vkml_tensor in = {.dtype = VKML_DTYPE_FLOAT};
    in.rank = input_dims(s, in.dims);
    size_t count = vkml_tensor_element_count(in.rank, in.dims);
    float *x = malloc(count * sizeof(float));
    uint64_t seed = 2;
    for (size_t i = 0; i < count; i++)
        x[i] = test_randf(&seed, -1, 1);
    in.data = x;
    in.size = count * sizeof(float);
    vkml_tensor out = {0};
    vkml_session_alloc_output(sess, 0, &out, &err);
    double *t = calloc((size_t)runs, sizeof(double));
    vkml_session_run(sess, &in, 1, &out, 1, &err); /* warm-up */
    for (int r = 0; r < runs; r++) {
        double t0 = bench_now_us();
        if (vkml_session_run(sess, &in, 1, &out, 1, &err) != VKML_OK)
            fprintf(stderr, "bench_gemm: %s: %s\n", s->name, err.message);
        t[r] = bench_now_us() - t0;
    }
    double med = bench_median(t, runs);
    free(t);
    free(x);
    free(out.data);
    vkml_session_destroy(&sess);
    return med;
}

/* The gemm_coop.comp kernel a shape takes (by shape), or "none". */
static const char *coop_kernel(const struct gpu_caps *caps, const bench_shape *s)
{
    vk_kernel_id k;
    uint32_t g[3];
    bool took = s->conv ? vk_gemm_pick_coop(caps, true, VKML_DTYPE_FLOAT16, true, s->c,
                                            s->batch * s->hw * s->hw, s->c * s->ksize * s->ksize,
                                            1, &k, g)
                        : vk_gemm_pick_coop(caps, false, VKML_DTYPE_FLOAT16, true,
                                            s->batch * s->m, s->k, s->k, 1, &k, g);
    return took ? vk_kernels[k].name : "none";
}

/* GFLOP/s under precision fp16 and fp32-fast, gemm_coop.comp off (coop_force -1) and on. */
static void coop_row(vkml_context *ctx, int device, struct gpu_caps *caps, const bench_shape *s,
                     vkml_model *one, vkml_model *many, int runs, int chain)
{
    static const struct {
        vkml_precision precision;
        int coop_force;
    } kinds[] = {{VKML_PRECISION_FP16, -1},
                 {VKML_PRECISION_FP16, 0},
                 {VKML_PRECISION_FP32_FAST, -1},
                 {VKML_PRECISION_FP32_FAST, 0}};
    double gflops[4];
    caps->prefer_tiled = true;
    caps->gemm_force = 0;
    for (int k = 0; k < 4; k++) {
        caps->coop_force = kinds[k].coop_force;
        double t1 = time_model(ctx, device, one, s, kinds[k].precision, runs);
        double tn = time_model(ctx, device, many, s, kinds[k].precision, runs);
        double per = (tn - t1) / (chain - 1);
        gflops[k] = per > 0 ? flops(s) / per / 1e3 : NAN;
    }
    caps->coop_force = 0;
    printf("  %-30s fp16 tiled %.1f coop %.1f (%.2fx); fp32-fast tiled %.1f coop %.1f "
           "(%.2fx); kernel %s\n",
           "", gflops[0], gflops[1], gflops[1] / gflops[0], gflops[2], gflops[3],
           gflops[3] / gflops[2], coop_kernel(caps, s));
}

/* With BENCH_GEMM_TILES=1: GFLOP/s of every gemm_tiled.comp tile forced (float32, no
 * split-K) and, with cooperative matrices, every gemm_coop.comp tile (precision fp16): the
 * data behind vk_gemm_pick's rule. */
static void tile_row(vkml_context *ctx, int device, struct gpu_caps *caps, const bench_shape *s,
                     vkml_model *one, vkml_model *many, int runs, int chain)
{
    int n_coop = caps->cooperative_matrix ? VK_COOP_TILES : 0;
    printf("  %-30s tiles:", "");
    for (int t = 1; t <= VK_GEMM_TILES + n_coop; t++) {
        bool coop = t > VK_GEMM_TILES;
        caps->prefer_tiled = true;
        caps->splitk_force = -1;
        caps->gemm_force = coop ? 0 : t;
        caps->coop_force = coop ? t - VK_GEMM_TILES : -1;
        vkml_precision prec = coop ? VKML_PRECISION_FP16 : VKML_PRECISION_FP32;
        double t1 = time_model(ctx, device, one, s, prec, runs);
        double tn = time_model(ctx, device, many, s, prec, runs);
        double per = (tn - t1) / (chain - 1);
        printf(" %s%d %.1f", coop ? "coop" : "tiled", coop ? t - VK_GEMM_TILES : t,
               per > 0 ? flops(s) / per / 1e3 : NAN);
    }
    printf("\n");
    caps->gemm_force = 0;
    caps->coop_force = 0;
    caps->splitk_force = 0;
}

int main(int argc, char **argv)
{
    const char *dev_text = argc > 1 ? argv[1] : "0";
    int runs = argc > 2 ? atoi(argv[2]) : 20;
    int chain = argc > 3 ? atoi(argv[3]) : 10;
    const char *filter = argc > 4 ? argv[4] : "";
    runs = runs < 3 ? 3 : runs;
    chain = chain < 2 ? 2 : chain;
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    int device;
    if (vkml_context_create(NULL, &ctx, &err) != VKML_OK ||
        vkml_context_parse_device(ctx, dev_text, &device, &err) != VKML_OK || device < 0) {
        fprintf(stderr, "bench_gemm: a Vulkan device index, please: %s\n", err.message);
        return 1;
    }
    vkml_device_info info;
    vkml_context_device_info(ctx, device, &info, &err);
    struct gpu_caps *caps = &((vk_device *)context_device(ctx, device))->caps;
    bool own_tiled = caps->prefer_tiled;
    printf("device %s (%s): median of %d runs, chains of %d products; GFLOP/s; cooperative "
           "matrices: %s\n", dev_text, info.name, runs, chain,
           caps->cooperative_matrix ? "yes" : "no");
    static const struct {
        const char *name;
        bool tiled;
        int force, splitk;
    } kinds[] = {{"plain", false, 0, 0},
                 {"old tiled", true, -1, 0},
                 {"no split-K", true, 0, -1},
                 {"gemm_tiled", true, 0, 0}};
    enum { N_KINDS = 4 };
    printf("%-32s %12s %12s %12s %12s %10s  %s\n", "shape", kinds[0].name, kinds[1].name,
           kinds[2].name, kinds[3].name, "new/old", "split-K (gemm_tiled)");
    for (size_t i = 0; i < VKML_ARRAY_SIZE(shapes); i++) {
        const bench_shape *s = &shapes[i];
        if (!strstr(s->name, filter))
            continue;
        vkml_model *one = chain_model(s, 1), *many = chain_model(s, chain);
        double gflops[N_KINDS];
        for (int k = 0; k < N_KINDS; k++) {
            caps->prefer_tiled = kinds[k].tiled;
            caps->gemm_force = kinds[k].force;
            caps->splitk_force = kinds[k].splitk;
            double t1 = time_model(ctx, device, one, s, VKML_PRECISION_FP32, runs);
            double tn = time_model(ctx, device, many, s, VKML_PRECISION_FP32, runs);
            double per = (tn - t1) / (chain - 1);
            gflops[k] = per > 0 ? flops(s) / per / 1e3 : NAN;
        }
        char split[48] = "none";
        vk_gemm_split sp;
        int64_t pixels = s->batch * s->hw * s->hw, taps = s->c * s->ksize * s->ksize;
        bool splits = s->conv
                          ? vk_gemm_pick_split(caps, true, false, s->c, pixels, taps, 1, &sp)
                          : vk_gemm_pick_split(caps, false, false, s->batch * s->m, s->k, s->k,
                                               1, &sp);
        if (splits)
            snprintf(split, sizeof(split), "%u slices of K %u", sp.splits, sp.k_slice);
        printf("%-32s %12.1f %12.1f %12.1f %12.1f %9.2fx  %s\n", s->name, gflops[0], gflops[1],
               gflops[2], gflops[3], gflops[3] / gflops[1], split);
        if (caps->cooperative_matrix)
            coop_row(ctx, device, caps, s, one, many, runs, chain);
        if (getenv("BENCH_GEMM_TILES"))
            tile_row(ctx, device, caps, s, one, many, runs, chain);
        fflush(stdout);
        vkml_model_destroy(&one);
        vkml_model_destroy(&many);
    }
    caps->prefer_tiled = own_tiled;
    caps->gemm_force = 0;
    caps->splitk_force = 0;
    vkml_context_destroy(&ctx);
    return 0;
}
