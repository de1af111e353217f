/* Benchmark (not a test): matrix products and convolutions on one Vulkan device, a line
 * per kernel family: GFLOP/s, its share of the device's measured ceiling (bench_ceiling.h,
 * measured first in the same process: fp32 FMA for the float32-math kernels, the fp16
 * cooperative matrix one for gemm_coop.comp) and the share of the copy bandwidth its least
 * traffic takes (X, W and Y once each at the precision's storage size, over its time).
 * Kernels: the plain per-output kernels (matmul_direct.comp, conv_window.comp), the tiled
 * kernels before gemm_tiled.comp (matmul.comp; convs: the direct kernel), gemm_tiled.comp
 * without split-K and gemm_tiled.comp (tile and split-K by shape; the split-K plan
 * printed); then, on a device with cooperative matrices (caps.cooperative_matrix),
 * precision fp16 and fp32-fast with gemm_coop.comp off (VKML_NO_COOPMAT's effect) and on,
 * and the coop kernel each shape takes; then, on a device with workgroup-scope cooperative
 * matrices (caps.coopmat2), each gemm_cm2.comp tile forced.
 *   bench_gemm [--small] [DEVICE] [RUNS] [CHAIN] [FILTER]   DEVICE: 0, 1 ... (default 0);
 *   RUNS: timed runs per point (default 20; --small 5); CHAIN: products per model (default
 *   10; --small 4); FILTER: only shapes whose name contains it ("B^T": the Gemms with transB,
 *   W read along K as a Linear layer's). --small: three small shapes and small ceilings (seconds on
 * lavapipe: the test). BENCH_GEMM_TILES=1 adds a line per tile forced (gemm_tiled.comp float32;
 * gemm_coop.comp fp16 where it runs); BENCH_GEMM_TILES=only: the gemm_coop.comp tiles' lines alone;
 * BENCH_GEMM_TILES=cm2: the gemm_cm2.comp tiles' lines alone; =fp32: gemm_tiled.comp by
 * shape, each of its tiles forced and split-K forced at 2, 3, 4, 6 and 8 slices on the 64x64
 * tile and on 128 x 64 (products), float32 alone.
 * BENCH_GEMM_WARM_MS: the warm-up per point (default 300 ms, --small 0; 0: one run);
 * BENCH_GEMM_TRACE=1: each timed run's times on stderr with the wall clock, to set beside
 * `nvidia-smi --query-gpu=timestamp,clocks.sm --format=csv -lms 100`.
 * Method: a model of CHAIN dependent products (X -> op -> op ...; each op's output is the
 * next one's input, so the shapes are square in what chains), run RUNS times after a
 * warm-up with the session's profile on; time per product = the median over the runs of
 * the products' mean device time (GPU timestamps: the host copies, whose time varies by
 * more than a large product's between runs, stay out). Without timestamps, a model of a
 * single product too, and (median(CHAIN) - median(1)) / (CHAIN - 1) host to host. */
#include "bench_ceiling.h"
#include "bench_util.h"
#include "plan/context.h"
#include "vulkan/ops_gemm.h"
#include "vulkan/vk_device.h"

#include <math.h>

typedef struct bench_shape {
    const char *name;
    bool conv;
    int64_t batch, m, k;  /* MatMul: X [batch, m, k] x W [k, k] (n = k) */
    int64_t c, hw, ksize; /* Conv: X [batch, c, hw, hw], W [c, c, ksize, ksize], pad ksize/2 */
    bool bt;              /* a Gemm with transB: W read along K (as a Linear layer's weight) */
} bench_shape;

static const bench_shape shapes[] = {
    {"matmul 4096x4096x4096", false, 1, 4096, 4096, 0, 0, 0, false},
    {"matmul 1024x1024x1024", false, 1, 1024, 1024, 0, 0, 0, false},
    {"linear 256x4096x4096", false, 1, 256, 4096, 0, 0, 0, false},
    {"linear 256x4096x4096 B^T", false, 1, 256, 4096, 0, 0, 0, true},
    {"matmul 4096x4096x4096 B^T", false, 1, 4096, 4096, 0, 0, 0, true},
    {"matmul batch 8 x 512x512x512", false, 8, 512, 512, 0, 0, 0, false},
    {"matmul 64x768x768 (BERT-ish)", false, 1, 64, 768, 0, 0, 0, false},
    {"conv r50 3x3 64 @56", true, 1, 0, 0, 64, 56, 3, false},
    {"conv r50 3x3 128 @28", true, 1, 0, 0, 128, 28, 3, false},
    {"conv r50 3x3 256 @14", true, 1, 0, 0, 256, 14, 3, false},
    {"conv r50 3x3 512 @7", true, 1, 0, 0, 512, 7, 3, false},
    {"conv 1x1 256 @56", true, 1, 0, 0, 256, 56, 1, false},
    {"conv 1x1 1024 @14", true, 1, 0, 0, 1024, 14, 1, false},
};

/* --small's: seconds on lavapipe. */
static const bench_shape small_shapes[] = {
    {"matmul 64x128x128 (small)", false, 1, 64, 128, 0, 0, 0, false},
    {"linear 64x128x128 B^T (small)", false, 1, 64, 128, 0, 0, 0, true},
    {"conv 3x3 16 @16 (small)", true, 1, 0, 0, 16, 16, 3, false},
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
    if (s->bt) { /* Gemm: [m, k] */
        dims[0] = s->m, dims[1] = s->k;
        return 2;
    }
    return 3;
}

static double flops(const bench_shape *s)
{
    if (s->conv)
        return 2.0 * s->batch * s->c * s->c * s->hw * s->hw * s->ksize * s->ksize;
    return 2.0 * s->batch * s->m * s->k * s->k;
}

/* The least bytes one product moves: X, W and Y once each, elem_size bytes an element. */
static double min_bytes(const bench_shape *s, int elem_size)
{
    double x = s->conv ? (double)s->batch * s->c * s->hw * s->hw : (double)s->batch * s->m * s->k;
    double w = s->conv ? (double)s->c * s->c * s->ksize * s->ksize : (double)s->k * s->k;
    return (2 * x + w) * elem_size; /* Y is X's shape */
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
        const char *op = s->conv ? "Conv" : s->bt ? "Gemm" : "MatMul";
        int node = graph_add_node(g, name, op, "", 2, 1, s->conv || s->bt);
        g->nodes[node].inputs[0] = prev;
        g->nodes[node].inputs[1] = w;
        g->nodes[node].outputs[0] = y;
        g->nodes[node].opset = 13;
        if (s->bt)
            g->nodes[node].attrs[0] =
                (graph_attr){.name = "transB", .type = GRAPH_ATTR_INT, .i = 1};
        if (s->conv) {
            int64_t p = s->ksize / 2;
            g->nodes[node].attrs[0] = (graph_attr){
                .name = "pads",
                .type = GRAPH_ATTR_INTS,
                .count = 4,
                .ints = vkml_arena_memdup(g->arena, (int64_t[]){p, p, p, p}, 4 * sizeof(int64_t))};
        }
        prev = y;
    }
    vkml_model *model = bench_model(g, x, prev, 13, "bench_gemm model");
    return model;
}

/* The device time of the run's products (its MatMul and Conv nodes) over their count, in
 * microseconds; 0 when the profile has none. */
static double product_us(vkml_session *sess)
{
    vkml_node_time nodes[64];
    size_t n = 0, products = 0;
    double us = 0;
    vkml_error err = {0};
    if (vkml_session_profile(sess, nodes, VKML_ARRAY_SIZE(nodes), &n, &err) != VKML_OK)
        return 0;
    for (size_t i = 0; i < n && i < VKML_ARRAY_SIZE(nodes); i++)
        if (strcmp(nodes[i].op, "MatMul") == 0 || strcmp(nodes[i].op, "Gemm") == 0 ||
            strcmp(nodes[i].op, "Conv") == 0) {
            us += nodes[i].us;
            products++;
        }
    return products ? us / (double)products : 0;
}

/* Milliseconds of runs before a point's timed ones (BENCH_GEMM_WARM_MS overrides). An idle
 * H200 sits at 345 MHz and takes a few runs to reach 1,980: with one warm-up run the first
 * timed runs of each point took up to 4x as long (nvidia-smi sampled beside
 * BENCH_GEMM_TRACE, 2026-11-30), and whole lines moved by that much between calls. */
#define BENCH_GEMM_WARM_MS 300
static double warm_ms; /* that, or 0 with --small */

/* Seconds since the epoch, to the microsecond. */
static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Median microseconds of a run of the model, host to host; with device_us, the median
 * device time of one of its products (GPU timestamps; 0 without them). */
static double time_model(vkml_context *ctx, int device, vkml_model *model, const bench_shape *s,
                         vkml_precision precision, int runs, double *device_us)
{
    vkml_error err = {0};
    vkml_session *sess = NULL;
    vkml_session_params p = {
        .device = device, .precision = precision, .profile = device_us != NULL};
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
    double *t = calloc((size_t)runs, sizeof(double)), *d = calloc((size_t)runs, sizeof(double));
    /* warm-up: warm_ms of runs, at least one (the GPU's clocks up first) */
    double w0 = bench_now_us();
    do
        vkml_session_run(sess, &in, 1, &out, 1, &err);
    while (bench_now_us() - w0 < 1e3 * warm_ms);
    bool trace = getenv("BENCH_GEMM_TRACE") != NULL;
    for (int r = 0; r < runs; r++) {
        double t0 = bench_now_us();
        if (vkml_session_run(sess, &in, 1, &out, 1, &err) != VKML_OK)
            fprintf(stderr, "bench_gemm: %s: %s\n", s->name, err.message);
        t[r] = bench_now_us() - t0;
        d[r] = device_us ? product_us(sess) : 0;
        if (trace) /* wall-clock seconds, to set beside nvidia-smi's samples */
            fprintf(stderr, "trace %.3f %s run %d: host %.1f us, product %.1f us\n", wall_s(),
                    s->name, r, t[r], d[r]);
    }
    double med = bench_median(t, runs);
    if (device_us)
        *device_us = bench_median(d, runs);
    free(t);
    free(d);
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
    bool took =
        s->conv ? vk_gemm_pick_coop(caps, true, VKML_DTYPE_FLOAT16, true, s->c,
                                    s->batch * s->hw * s->hw, s->c * s->ksize * s->ksize, 1, &k, g)
                : vk_gemm_pick_coop(caps, false, VKML_DTYPE_FLOAT16, true, s->batch * s->m, s->k,
                                    s->k, 1, &k, g);
    return took ? vk_kernels[k].name : "none";
}

/* One shape's models and what its lines are measured against. */
typedef struct bench_point {
    vkml_context *ctx;
    int device;
    struct gpu_caps *caps;
    const bench_ceilings *ceil;
    const bench_shape *s;
    vkml_model *one, *many;
    int runs, chain;
    bool first_line; /* the shape's name still to print */
} bench_point;

/* GFLOP/s of a product of p's shape under precision, with p->caps as set. */
static double measure(const bench_point *p, vkml_precision precision)
{
    double device_us = 0;
    double tn = time_model(p->ctx, p->device, p->many, p->s, precision, p->runs, &device_us);
    if (device_us > 0)
        return flops(p->s) / device_us / 1e3;
    double t1 = time_model(p->ctx, p->device, p->one, p->s, precision, p->runs, NULL);
    double per = (tn - t1) / (p->chain - 1);
    return per > 0 ? flops(p->s) / per / 1e3 : NAN;
}

/* A line of the table: kernel, GFLOP/s, share of the FMA or (coop) the cooperative-matrix
 * ceiling, share of the copy bandwidth at elem_size bytes an element, note. */
static void print_line(bench_point *p, const char *kernel, double gflops, bool coop, int elem_size,
                       const char *note)
{
    double ceiling = coop ? p->ceil->coop_gflops : p->ceil->fma_gflops;
    char peak[24] = "-", bw[16] = "-";
    if (ceiling > 0 && isfinite(gflops))
        snprintf(peak, sizeof(peak), "%.2f%% %s", 100 * gflops / ceiling, coop ? "coop" : "fma");
    if (p->ceil->copy_gbs > 0 && isfinite(gflops)) /* GB/s = bytes x GFLOP/s / FLOP */
        snprintf(bw, sizeof(bw), "%.2f%%",
                 100 * min_bytes(p->s, elem_size) * gflops / flops(p->s) / p->ceil->copy_gbs);
    printf("%-30s %-30s %10.1f %12s %9s  %s\n", p->first_line ? p->s->name : "", kernel, gflops,
           peak, bw, note);
    p->first_line = false;
}

/* The float32 kernel families, switched through gpu_caps; by_shape_only: gemm_tiled.comp
 * as the shape takes it alone. */
static void fp32_lines(bench_point *p, bool by_shape_only)
{
    static const struct {
        const char *name;
        bool tiled;
        int force, splitk;
    } kinds[] = {{"plain fp32", false, 0, 0},
                 {"old tiled fp32", true, -1, 0},
                 {"gemm_tiled no split-K fp32", true, 0, -1},
                 {"gemm_tiled fp32", true, 0, 0}};
    const bench_shape *s = p->s;
    double old = NAN;
    for (size_t k = by_shape_only ? VKML_ARRAY_SIZE(kinds) - 1 : 0; k < VKML_ARRAY_SIZE(kinds);
         k++) {
        p->caps->prefer_tiled = kinds[k].tiled;
        p->caps->gemm_force = kinds[k].force;
        p->caps->splitk_force = kinds[k].splitk;
        double gflops = measure(p, VKML_PRECISION_FP32);
        char note[96] = "";
        if (k == 1)
            old = gflops;
        if (k == VKML_ARRAY_SIZE(kinds) - 1) {
            vk_gemm_split sp;
            int64_t pixels = s->batch * s->hw * s->hw, taps = s->c * s->ksize * s->ksize;
            bool splits = s->conv
                              ? vk_gemm_pick_split(p->caps, true, false, s->c, pixels, taps, 1, &sp)
                              : vk_gemm_pick_split(p->caps, false, false, s->batch * s->m, s->k,
                                                   s->k, 1, &sp);
            char split[48] = "none";
            if (splits)
                snprintf(split, sizeof(split), "%u slices of K %u", sp.splits, sp.k_slice);
            if (isnan(old))
                snprintf(note, sizeof(note), "split-K %s", split);
            else
                snprintf(note, sizeof(note), "%.2fx old tiled; split-K %s", gflops / old, split);
        }
        print_line(p, kinds[k].name, gflops, false, 4, note);
    }
    p->caps->gemm_force = 0;
    p->caps->splitk_force = 0;
}

/* Precision fp16 and fp32-fast with gemm_coop.comp off (coop_force -1: gemm_tiled.comp,
 * float32 math) and on. */
static void coop_lines(bench_point *p)
{
    static const struct {
        const char *name;
        vkml_precision precision;
        int elem_size;
    } kinds[] = {{"fp16", VKML_PRECISION_FP16_ALWAYS, 2},
                 {"fp32-fast", VKML_PRECISION_FP32_FAST, 4}};
    p->caps->prefer_tiled = true;
    p->caps->gemm_force = 0;
    for (size_t k = 0; k < VKML_ARRAY_SIZE(kinds); k++) {
        char name[48], note[96];
        p->caps->coop_force = -1;
        double tiled = measure(p, kinds[k].precision);
        snprintf(name, sizeof(name), "gemm_tiled %s", kinds[k].name);
        print_line(p, name, tiled, false, kinds[k].elem_size, "gemm_coop off");
        p->caps->coop_force = 0;
        double coop = measure(p, kinds[k].precision);
        snprintf(name, sizeof(name), "gemm_coop %s", kinds[k].name);
        snprintf(note, sizeof(note), "%.2fx gemm_tiled; kernel %s", coop / tiled,
                 coop_kernel(p->caps, p->s));
        print_line(p, name, coop, true, kinds[k].elem_size, note);
    }
    p->caps->coop_force = 0;
}

/* Precision fp16 on each of the device's gemm_cm2.comp tiles (forced: never taken by
 * shape), against gemm_coop.comp by shape. */
static void cm2_lines(bench_point *p)
{
    p->caps->prefer_tiled = true;
    p->caps->cm2_force = 0;
    double coop = measure(p, VKML_PRECISION_FP16_ALWAYS);
    for (int t = 1; t <= VK_CM2_TILES; t++) {
        if (!(p->caps->cm2_tiles & (1u << (t - 1))))
            continue;
        const vk_cm2_tile *c = &vk_cm2_tiles[t - 1];
        p->caps->cm2_force = t;
        double gflops = measure(p, VKML_PRECISION_FP16_ALWAYS);
        char name[48], note[48];
        snprintf(name, sizeof(name), "gemm_cm2 %dx%d fp16", c->bm, c->bn);
        snprintf(note, sizeof(note), "forced; %.2fx gemm_coop by shape", gflops / coop);
        print_line(p, name, gflops, true, 2, note);
    }
    p->caps->cm2_force = 0;
}

/* With BENCH_GEMM_TILES=1: every gemm_tiled.comp tile forced (float32, no split-K) and,
 * with cooperative matrices, every gemm_coop.comp tile (precision fp16): the data behind
 * vk_gemm_pick's rule. coop_only: the gemm_coop.comp tiles alone; fp32_only: the
 * gemm_tiled.comp ones. */
static void tile_lines(bench_point *p, bool coop_only, bool fp32_only)
{
    int n_coop = p->caps->cooperative_matrix && !fp32_only ? VK_COOP_TILES : 0;
    for (int t = coop_only ? VK_GEMM_TILES + 1 : 1; t <= VK_GEMM_TILES + n_coop; t++) {
        bool coop = t > VK_GEMM_TILES;
        p->caps->prefer_tiled = true;
        p->caps->splitk_force = -1;
        p->caps->gemm_force = coop ? 0 : t;
        p->caps->coop_force = coop ? t - VK_GEMM_TILES : -1;
        double gflops = measure(p, coop ? VKML_PRECISION_FP16_ALWAYS : VKML_PRECISION_FP32);
        char name[48];
        snprintf(name, sizeof(name), "%s tile %d %s", coop ? "gemm_coop" : "gemm_tiled",
                 coop ? t - VK_GEMM_TILES : t, coop ? "fp16" : "fp32");
        print_line(p, name, gflops, coop, coop ? 2 : 4, "forced");
    }
    p->caps->gemm_force = 0;
    p->caps->coop_force = 0;
    p->caps->splitk_force = 0;
    if (!fp32_only)
        return;
    /* float32 split-K forced: S slices on the 64x64 tile, then on 128 x 64 (splitk_wide)
     * where the product has the rows */
    static const int slices[] = {2, 3, 4, 6, 8};
    for (size_t i = 0; i < 2 * VKML_ARRAY_SIZE(slices); i++) {
        vk_gemm_split sp;
        p->caps->splitk_wide = i >= VKML_ARRAY_SIZE(slices);
        p->caps->splitk_force = slices[i % VKML_ARRAY_SIZE(slices)];
        if (p->s->conv || !vk_gemm_pick_split(p->caps, false, false, p->s->batch * p->s->m, p->s->k,
                                              p->s->k, 1, &sp))
            continue;
        double gflops = measure(p, VKML_PRECISION_FP32);
        char name[48], note[64];
        snprintf(name, sizeof(name), "gemm_tiled split %u fp32", sp.splits);
        snprintf(note, sizeof(note), "forced; %u slices of K %u, %s", sp.splits, sp.k_slice,
                 sp.first == VK_KERNEL_GEMM_SPLITK_128X64 ? "128x64" : "64x64");
        print_line(p, name, gflops, false, 4, note);
    }
    p->caps->splitk_force = 0;
    p->caps->splitk_wide = false;
}

int main(int argc, char **argv)
{
    bool small = argc > 1 && strcmp(argv[1], "--small") == 0;
    argv += small;
    argc -= small;
    const char *dev_text = argc > 1 ? argv[1] : "0";
    int runs = argc > 2 ? atoi(argv[2]) : small ? 5 : 20;
    int chain = argc > 3 ? atoi(argv[3]) : small ? 4 : 10;
    const char *filter = argc > 4 ? argv[4] : "";
    const char *warm_text = getenv("BENCH_GEMM_WARM_MS");
    warm_ms = warm_text ? atof(warm_text) : small ? 0 : BENCH_GEMM_WARM_MS;
    runs = runs < 3 ? 3 : runs;
    chain = chain < 2 ? 2 : chain;
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    int device;
    vkml_device_info info;
    if (vkml_context_create(NULL, &ctx, &err) != VKML_OK ||
        vkml_context_parse_device(ctx, dev_text, &device, &err) != VKML_OK || device < 0 ||
        vkml_context_device_info(ctx, device, &info, &err) != VKML_OK) {
        fprintf(stderr, "bench_gemm: a Vulkan device index, please: %s\n", err.message);
        vkml_context_destroy(&ctx);
        return 1;
    }
    vk_device *vd = (vk_device *)context_device(ctx, device);
    struct gpu_caps *caps = &vd->caps;
    bool own_tiled = caps->prefer_tiled;
    bench_ceilings ceil;
    bool small_ceilings = small || info.type == VKML_DEVICE_TYPE_VULKAN_CPU;
    printf("device %s (%s): ceilings (%s sizes) first\n", dev_text, info.name,
           small_ceilings ? "small" : "full");
    if (!bench_ceilings_measure(vd, small_ceilings, small_ceilings ? 3 : 10, &ceil)) {
        vkml_context_destroy(&ctx);
        return 1;
    }
    bench_ceilings_print(&ceil);
    printf("\nmedian of %d runs, chains of %d products; cooperative matrices: %s\n"
           "of peak: GFLOP/s over the fp32 FMA (fma) or fp16 cooperative-matrix (coop) "
           "ceiling;\nof bw: X + W + Y bytes once each over the time, over the copy bandwidth\n",
           runs, chain, caps->cooperative_matrix ? "yes" : "no");
    printf("%-30s %-30s %10s %12s %9s  %s\n", "shape", "kernel", "GFLOP/s", "of peak", "of bw",
           "note");
    const bench_shape *list = small ? small_shapes : shapes;
    size_t n = small ? VKML_ARRAY_SIZE(small_shapes) : VKML_ARRAY_SIZE(shapes);
    for (size_t i = 0; i < n; i++) {
        if (!strstr(list[i].name, filter))
            continue;
        bench_point p = {.ctx = ctx,
                         .device = device,
                         .caps = caps,
                         .ceil = &ceil,
                         .s = &list[i],
                         .one = chain_model(&list[i], 1),
                         .many = chain_model(&list[i], chain),
                         .runs = runs,
                         .chain = chain,
                         .first_line = true};
        const char *tiles = getenv("BENCH_GEMM_TILES");
        bool tiles_only = tiles && strcmp(tiles, "only") == 0;
        bool cm2_only = tiles && strcmp(tiles, "cm2") == 0;
        bool fp32_only = tiles && strcmp(tiles, "fp32") == 0;
        if (fp32_only) {
            fp32_lines(&p, true);
        } else if (cm2_only) {
            if (caps->coopmat2)
                cm2_lines(&p);
        } else if (!tiles_only) {
            fp32_lines(&p, false);
            if (caps->cooperative_matrix)
                coop_lines(&p);
            if (caps->coopmat2)
                cm2_lines(&p);
        }
        if (tiles && !cm2_only)
            tile_lines(&p, tiles_only, fp32_only);
        fflush(stdout);
        vkml_model_destroy(&p.one);
        vkml_model_destroy(&p.many);
    }
    caps->prefer_tiled = own_tiled;
    caps->gemm_force = 0;
    caps->splitk_force = 0;
    caps->coop_force = 0;
    caps->cm2_force = 0;
    vkml_context_destroy(&ctx);
    return 0;
}
