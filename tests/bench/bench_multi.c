/* Benchmark (not a test): one model over several GPUs, against one GPU, in one run.
 *   one    one session on GPU 0
 *   data   data parallel: one session with vkml_session_params.data_parallel over the G
 *          GPUs, K in flight on each (run i on GPU i % G)
 *   split  one session planned over GPUs 0..G-1 with a per-GPU budget that splits it,
 *          runs in flight so that run N+1 starts on GPU 0 while run N finishes on GPU 1
 * Each mode streams RUNS runs with K in flight per session and prints runs/s, the speed-up
 * over one GPU, and the largest difference of its outputs from one GPU's (relative to the
 * largest |value|), then the split's partition and its copies per run.
 * Then the copy between two GPUs on its own: two Adds over SIZE bytes (add_pair_model)
 * whose second node the budget pushes to GPU 1, against the same model on GPU 0:
 * the difference of the median latencies is the copy's cost (GB/s = SIZE / difference),
 * as a host copy (VKML_NO_SHARED_HOST=1) and through shared host memory (the default
 * where both devices have VK_EXT_external_memory_host).
 *
 *   bench_multi MODEL.onnx [--runs N] [--in-flight K] [--gpus G] [--budget MiB]
 *               [--copy-mib M]
 * Default: 400 runs, 4 in flight, every GPU (at least 2: VKML_VK_LOGICAL_DEVICES=2 opens
 * one GPU twice), the budget that puts half the weights on each GPU, copy 64 MiB. */
#include "bench_util.h"

#include <math.h>
#include <string.h>

#define MAX_GPUS 16

typedef struct bench_io {
    vkml_tensor *in;
    size_t n_in;
    vkml_tensor *out; /* k sets of n_out */
    size_t n_out;
    int k;
} bench_io;

static void fail(const char *what, const vkml_error *err)
{
    fprintf(stderr, "bench_multi: %s: %s\n", what, err ? err->message : "");
    exit(1);
}

/* Inputs of the session's shapes: floats from a fixed pattern, everything else zero. */
static void io_create(vkml_session *s, int k, bench_io *io)
{
    vkml_error err = {0};
    io->n_in = vkml_session_input_count(s);
    io->n_out = vkml_session_output_count(s);
    io->k = k;
    io->in = calloc(io->n_in + 1, sizeof(vkml_tensor));
    io->out = calloc((size_t)k * io->n_out + 1, sizeof(vkml_tensor));
    if (!io->in || !io->out)
        fail("out of memory", NULL);
    for (size_t i = 0; i < io->n_in; i++) {
        const vkml_tensor_info *info = vkml_session_input(s, i);
        size_t n = vkml_tensor_element_count(info->rank, info->dims);
        vkml_tensor *t = &io->in[i];
        *t = (vkml_tensor){
            .dtype = info->dtype, .rank = info->rank, .size = n * vkml_dtype_size(info->dtype)};
        memcpy(t->dims, info->dims, sizeof(int64_t) * (size_t)info->rank);
        t->data = calloc(1, t->size + 1);
        if (!t->data)
            fail("out of memory", NULL);
        if (info->dtype == VKML_DTYPE_FLOAT)
            for (size_t e = 0; e < n; e++)
                ((float *)t->data)[e] = (float)((e * 7919u) % 1000u) / 500.0f - 1.0f;
    }
    for (size_t j = 0; j < (size_t)k * io->n_out; j++)
        if (vkml_session_alloc_output(s, j % io->n_out, &io->out[j], &err) != VKML_OK)
            fail("outputs", &err);
}

static void io_destroy(bench_io *io)
{
    for (size_t i = 0; i < io->n_in; i++)
        free(io->in[i].data);
    for (size_t j = 0; j < (size_t)io->k * io->n_out; j++)
        vkml_tensor_release(&io->out[j]);
    free(io->in);
    free(io->out);
}

/* Streams `runs` runs over n sessions (run i on session i % n), k in flight on each;
 * returns runs/s. Lane j of the ring belongs to session j % n. */
static double stream(vkml_session **s, bench_io *io, int n, int k, int runs)
{
    int lanes = n * k;
    vkml_run **ring = calloc((size_t)lanes, sizeof(vkml_run *));
    vkml_error err = {0};
    if (!ring)
        fail("out of memory", NULL);
    double t0 = bench_now_us();
    for (int i = 0; i < runs; i++) {
        int lane = i % lanes, sess = lane % n;
        if (ring[lane] && vkml_run_wait(&ring[lane], &err) != VKML_OK)
            fail("run", &err);
        bench_io *b = &io[sess];
        vkml_tensor *out = &b->out[(size_t)(lane / n) * b->n_out];
        if (vkml_session_submit(s[sess], b->in, b->n_in, out, b->n_out, NULL, NULL, &ring[lane],
                                &err) != VKML_OK)
            fail("submit", &err);
    }
    for (int j = 0; j < lanes; j++)
        if (ring[j] && vkml_run_wait(&ring[j], &err) != VKML_OK)
            fail("run", &err);
    double us = bench_now_us() - t0;
    free(ring);
    return runs * 1e6 / us;
}

/* Largest |a - b| over the largest |b|, over output 0 (float outputs only). */
static double rel_diff(const vkml_tensor *a, const vkml_tensor *b)
{
    if (a->dtype != VKML_DTYPE_FLOAT || a->size != b->size)
        return a->size == b->size && memcmp(a->data, b->data, a->size) == 0 ? 0 : INFINITY;
    double d = 0, m = 0;
    for (size_t e = 0; e < a->size / sizeof(float); e++) {
        double x = ((const float *)a->data)[e], y = ((const float *)b->data)[e];
        d = fmax(d, fabs(x - y));
        m = fmax(m, fabs(y));
    }
    return m > 0 ? d / m : d;
}

static vkml_session *try_session(vkml_context *ctx, vkml_model *m, const int *devs, int n_devs,
                                 uint64_t budget, int k, bool no_fuse, bool data_parallel,
                                 vkml_error *err)
{
    vkml_session_params p = {.devices = devs,
                             .n_devices = (size_t)n_devs,
                             .device_budget = budget,
                             .runs_in_flight = k,
                             .no_fuse = no_fuse,
                             .data_parallel = data_parallel};
    vkml_session *s = NULL;
    vkml_session_create(ctx, m, &p, &s, err);
    return s;
}

static vkml_session *session(vkml_context *ctx, vkml_model *m, const int *devs, int n_devs,
                             uint64_t budget, int k, bool no_fuse, bool data_parallel)
{
    vkml_error err = {0};
    vkml_session *s = try_session(ctx, m, devs, n_devs, budget, k, no_fuse, data_parallel, &err);
    if (!s)
        fail("session", &err);
    return s;
}

/* The split: at *budget (1/G of the weights), raised by an eighth at a time while the
 * model does not fit (layers that do not divide evenly over the GPUs). */
static vkml_session *split_session(vkml_context *ctx, vkml_model *m, const int *gpus, int g,
                                   uint64_t *budget, int k)
{
    vkml_error err = {0};
    for (int tries = 0; tries < 16; tries++, *budget += *budget / 8) {
        vkml_session *s = try_session(ctx, m, gpus, g, *budget, k, false, false, &err);
        if (s || err.status != VKML_ERROR_OUT_OF_MEMORY)
            return s ? s : (fail("split session", &err), NULL);
    }
    fail("split session", &err);
    return NULL;
}

static void print_plan(const vkml_session *s)
{
    vkml_plan_part part;
    vkml_plan_transfer tr;
    for (size_t i = 0; vkml_session_plan_part(s, i, &part); i++)
        printf("  device %2d: %4zu nodes %s .. %s, weights %.1f MiB, peak tensors %.1f MiB\n",
               part.device, part.n_nodes, part.first_node, part.last_node,
               part.weight_bytes / 1048576.0, part.peak_bytes / 1048576.0);
    for (size_t i = 0; vkml_session_plan_transfer(s, i, &tr); i++)
        printf("  copy %s: device %d -> %d, %.1f KiB per run (%s)\n", tr.value, tr.from, tr.to,
               tr.bytes / 1024.0, tr.shared_host ? "shared host memory" : "host copy");
}

/* Median latency (us) of `runs` runs of one session, one in flight. */
static double latency(vkml_session *s, bench_io *io, int runs)
{
    double *t = calloc((size_t)runs, sizeof(double));
    vkml_error err = {0};
    if (!t)
        fail("out of memory", NULL);
    for (int r = 0; r < runs; r++) {
        double t0 = bench_now_us();
        if (vkml_session_run(s, io->in, io->n_in, io->out, io->n_out, &err) != VKML_OK)
            fail("run", &err);
        t[r] = bench_now_us() - t0;
    }
    double med = bench_median(t, runs);
    free(t);
    return med;
}

/* The copy benchmark's model: y0 = x + w0, y1 = y0 + w1, every tensor `bytes` (w0, w1
 * constants). A budget of 3.25 x bytes holds x, w0 and y0 on GPU 0 but not w1 too, so the
 * second Add goes to GPU 1 and y0 is copied there (planned unfused: two nodes). */
static vkml_model *add_pair_model(size_t bytes)
{
    graph *g = graph_create();
    const int64_t dims[1] = {(int64_t)(bytes / sizeof(float))};
    int x = bench_float_value(g, "x", 1, dims);
    g->values[x].kind = GRAPH_VALUE_INPUT;
    int prev = x;
    for (int i = 0; i < 2; i++) {
        int w = bench_float_value(g, i ? "w1" : "w0", 1, dims);
        g->values[w].kind = GRAPH_VALUE_CONSTANT;
        g->values[w].data = vkml_arena_calloc(g->arena, 1, bytes);
        g->values[w].data_size = bytes;
        g->values[w].producer = -1;
        int y = bench_float_value(g, i ? "y1" : "y0", 1, dims);
        int n = graph_add_node(g, i ? "add1" : "add0", "Add", "", 2, 1, 0);
        g->nodes[n].inputs[0] = prev;
        g->nodes[n].inputs[1] = w;
        g->nodes[n].outputs[0] = y;
        g->nodes[n].opset = 14;
        prev = y;
    }
    return bench_model(g, x, prev, 14, "copy model");
}

/* The copy on its own, as a host copy and through shared host memory (plan.h). */
static void copy_bench(vkml_context *ctx, const int *gpus, size_t mib, int runs)
{
    size_t bytes = mib << 20;
    vkml_model *m = add_pair_model(bytes);
    vkml_session *one = session(ctx, m, gpus, 1, 0, 1, true, false);
    bench_io a = {0};
    io_create(one, 1, &a);
    double t1 = latency(one, &a, runs);
    for (int host_copy = 1; host_copy >= 0; host_copy--) {
        if (host_copy)
            setenv("VKML_NO_SHARED_HOST", "1", 1);
        vkml_session *two = session(ctx, m, gpus, 2, bytes * 13 / 4, 1, true, false);
        unsetenv("VKML_NO_SHARED_HOST");
        vkml_plan_transfer tr;
        if (!vkml_session_plan_transfer(two, 0, &tr)) {
            printf("copy: the budget did not split the Add pair (no copy); skipped\n");
        } else {
            bench_io b = {0};
            io_create(two, 1, &b);
            double t2 = latency(two, &b, runs);
            printf("copy %zu MiB GPU %d -> GPU %d (%s): one GPU %.0f us, split %.0f us, "
                   "copy %.0f us = %.2f GB/s; outputs equal: %s\n",
                   mib, tr.from, tr.to, tr.shared_host ? "shared host memory" : "host copy", t1, t2,
                   t2 - t1, t2 > t1 ? bytes / ((t2 - t1) * 1e3) : INFINITY,
                   rel_diff(&b.out[0], &a.out[0]) == 0 ? "yes" : "NO");
            io_destroy(&b);
        }
        vkml_session_destroy(&two);
    }
    io_destroy(&a);
    vkml_session_destroy(&one);
    vkml_model_destroy(&m);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_multi MODEL.onnx [--runs N] [--in-flight K] [--gpus G] "
                        "[--budget MiB] [--copy-mib M]\n");
        return 2;
    }
    int runs = 400, k = 4, want_gpus = MAX_GPUS;
    uint64_t budget = 0;
    size_t copy_mib = 64;
    for (int i = 2; i + 1 < argc; i += 2) {
        long v = atol(argv[i + 1]);
        if (v <= 0) {
            fprintf(stderr, "bench_multi: %s takes a positive number\n", argv[i]);
            return 2;
        }
        if (!strcmp(argv[i], "--runs"))
            runs = (int)v;
        else if (!strcmp(argv[i], "--in-flight"))
            k = (int)(v > VKML_MAX_RUNS_IN_FLIGHT ? VKML_MAX_RUNS_IN_FLIGHT : v);
        else if (!strcmp(argv[i], "--gpus"))
            want_gpus = (int)(v > MAX_GPUS ? MAX_GPUS : v);
        else if (!strcmp(argv[i], "--budget"))
            budget = (uint64_t)v << 20;
        else if (!strcmp(argv[i], "--copy-mib"))
            copy_mib = (size_t)v;
        else {
            fprintf(stderr, "bench_multi: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    vkml_error err = {0};
    vkml_context *ctx = NULL;
    vkml_model *m = NULL;
    if (vkml_context_create(NULL, &ctx, &err) != VKML_OK)
        fail("context", &err);
    int gpus[MAX_GPUS], g = 0;
    for (int i = 0; i < vkml_context_device_count(ctx) && g < want_gpus; i++) {
        vkml_device_info info;
        if (vkml_context_device_info(ctx, i, &info, &err) == VKML_OK &&
            info.type != VKML_DEVICE_TYPE_CPU) {
            gpus[g++] = info.index;
            printf("GPU %d: %s\n", info.index, info.name);
        }
    }
    if (g < 2) {
        fprintf(stderr,
                "bench_multi: %d GPU(s); needs 2 (VKML_VK_LOGICAL_DEVICES=2 opens one "
                "twice)\n",
                g);
        return 1;
    }
    if (vkml_model_load_file(argv[1], &m, &err) != VKML_OK)
        fail(argv[1], &err);

    vkml_session *one = session(ctx, m, gpus, 1, 0, k, false, false);
    vkml_plan_part part;
    if (!budget && vkml_session_plan_part(one, 0, &part))
        budget = part.weight_bytes / (uint64_t)g + part.peak_bytes + (64u << 10);
    vkml_session *split = split_session(ctx, m, gpus, g, &budget, k);
    /* data parallel: k runs in flight a GPU, as far as the session's lanes go */
    int kd = g * k <= VKML_MAX_RUNS_IN_FLIGHT ? g * k : VKML_MAX_RUNS_IN_FLIGHT / g * g;
    vkml_session *data = session(ctx, m, gpus, g, 0, kd, false, true);
    if (vkml_session_replica_count(data, NULL, 0) != g)
        fail("data parallel session: not one copy a GPU", NULL);
    bench_io io_one, io_split, io_data;
    io_create(one, k, &io_one);
    io_create(split, k, &io_split);
    io_create(data, kd, &io_data);
    /* warm-up (and the outputs compared below: every lane of the data-parallel session,
     * so every GPU's copy, and lane 0 of the split) */
    stream(&one, &io_one, 1, k, 2 * k);
    stream(&data, &io_data, 1, kd, 2 * kd);
    stream(&split, &io_split, 1, k, 2 * k);

    double r_one = stream(&one, &io_one, 1, k, runs);
    double r_data = stream(&data, &io_data, 1, kd, runs);
    double r_split = stream(&split, &io_split, 1, k, runs);
    double d_data = 0;
    for (int j = 0; j < kd; j++)
        d_data = fmax(d_data, rel_diff(&io_data.out[(size_t)j * io_data.n_out], &io_one.out[0]));
    printf("split over %d GPUs at a budget of %.1f MiB each:\n", g, budget / 1048576.0);
    print_plan(split);
    printf("%-8s %5s %10s %9s %12s\n", "mode", "GPUs", "runs/s", "speed-up", "max rel diff");
    printf("%-8s %5d %10.1f %9.2f %12s\n", "one", 1, r_one, 1.0, "-");
    printf("%-8s %5d %10.1f %9.2f %12.2g\n", "data", g, r_data, r_data / r_one, d_data);
    printf("%-8s %5zu %10.1f %9.2f %12.2g\n", "split", vkml_session_plan_part_count(split), r_split,
           r_split / r_one, rel_diff(&io_split.out[0], &io_one.out[0]));
    io_destroy(&io_one);
    io_destroy(&io_split);
    io_destroy(&io_data);
    vkml_session_destroy(&data);
    vkml_session_destroy(&one);
    vkml_session_destroy(&split);
    vkml_model_destroy(&m);
    copy_bench(ctx, gpus, copy_mib, 50);
    vkml_context_destroy(&ctx);
    return 0;
}
