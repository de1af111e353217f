/* Chunks of one GPU never wait on the host between them. A graph that the planner splits
 * GPU -> CPU -> GPU (one lavapipe device), and one split GPU -> CPU -> GPU -> GPU over two
 * logical devices, give the CPU device's outputs; the host waits per run (the plan's
 * counter) are exactly one per GPU chunk that has a successor on another device or none:
 * a same-GPU chunk boundary that waited on the host would add one. Device loss injected at
 * the run's wait or at the second GPU chunk's submit (the first still in the queue) fails
 * the run naming the device, later runs fail at once, and nothing is left behind. Without
 * queued chunks (VKML_TEST_SYNC_CHUNKS: each submit waited for) the same split gives the same
 * answers. Fusion is off: the chunk boundaries under test are between single nodes. */
#include "plan/plan.h"
#include "test_graph.h"

#include <math.h>

#define N 64 /* elements per value */
#define RUNS 3

/* a1 = Relu(A) [GPU]; c1 = CumSum(B) [CPU only]; a2 = Add(a1, c1) [GPU]; then six
 * elementwise ops, each with a constant of N floats (weights: what a budget splits), the
 * last one also reading a1. */
static vkml_model *make_model(void)
{
    graph *g = graph_create();
    const int64_t dims[1] = {N};
    uint64_t seed = 42;
    int a = tg_value(g, "A", VKML_DTYPE_FLOAT, 1, dims);
    int b = tg_value(g, "B", VKML_DTYPE_FLOAT, 1, dims);
    int axis = tg_value(g, "axis", VKML_DTYPE_INT64, 0, dims);
    int64_t *zero = vkml_arena_calloc(g->arena, 1, sizeof(int64_t));
    g->values[axis].kind = GRAPH_VALUE_CONSTANT;
    g->values[axis].data = zero;
    g->values[axis].data_size = sizeof(int64_t);
    int a1 = tg_value(g, "a1", VKML_DTYPE_FLOAT, 1, dims);
    int c1 = tg_value(g, "c1", VKML_DTYPE_FLOAT, 1, dims);
    int prev = tg_value(g, "a2", VKML_DTYPE_FLOAT, 1, dims);
    tg_node(g, "relu", "Relu", a, -1, a1, 14);
    tg_node(g, "cumsum", "CumSum", b, axis, c1, 14);
    tg_node(g, "a2", "Add", a1, c1, prev, 14);
    static const char *chain[] = {"Add", "Mul", "Sub", "Max", "Mul", "Add"};
    for (int k = 0; k < 6; k++) {
        char name[16], wname[16];
        snprintf(name, sizeof(name), "a%d", k + 3);
        snprintf(wname, sizeof(wname), "w%d", k + 3);
        int w = tg_random_constant(g, wname, 1, dims, -1, 1, &seed);
        int out = tg_value(g, name, VKML_DTYPE_FLOAT, 1, dims);
        tg_node(g, name, chain[k], prev, w, out, 14);
        prev = out;
    }
    int out = tg_value(g, "out", VKML_DTYPE_FLOAT, 1, dims);
    tg_node(g, "out", "Mul", prev, a1, out, 14);
    return tg_model(g, (int[]){a, b}, 2, (int[]){out}, 1, 14);
}

static bool on_gpu(const plan *p, int c)
{
    return p->devices[p->chunks[c].slot].index != VKML_DEVICE_CPU;
}

/* Host waits one run needs: GPU chunks with no successor or one on another device. */
static int needed_waits(const plan *p)
{
    int n = 0;
    for (int c = 0; c < p->n_chunks; c++) {
        if (!on_gpu(p, c))
            continue;
        bool sink = true, cross = false;
        for (int s = 0; s < p->n_chunks; s++)
            for (int k = 0; k < p->chunks[s].n_preds; k++)
                if (p->chunks[s].preds[k] == c) {
                    sink = false;
                    cross |= p->chunks[s].slot != p->chunks[c].slot;
                }
        n += sink || cross;
    }
    return n;
}

/* Whether some GPU chunk directly follows a chunk of another GPU. */
static bool has_gpu_to_gpu(const plan *p)
{
    for (int c = 0; c < p->n_chunks; c++)
        for (int k = 0; k < p->chunks[c].n_preds; k++) {
            int pred = p->chunks[c].preds[k];
            if (on_gpu(p, c) && on_gpu(p, pred) && p->chunks[pred].slot != p->chunks[c].slot)
                return true;
        }
    return false;
}

/* RUNS runs of s on `in`, outputs into got. */
static void run_all(vkml_session *s, const float (*in)[2][N], float (*got)[N])
{
    vkml_error err = {0};
    for (int r = 0; r < RUNS; r++) {
        vkml_tensor ins[2], out = {.dtype = VKML_DTYPE_FLOAT,
                                   .rank = 1,
                                   .dims = {N},
                                   .data = got[r],
                                   .size = sizeof(float) * N};
        for (int i = 0; i < 2; i++)
            ins[i] = (vkml_tensor){.dtype = VKML_DTYPE_FLOAT,
                                   .rank = 1,
                                   .dims = {N},
                                   .data = (void *)in[r][i],
                                   .size = sizeof(float) * N};
        CHECK_OK(vkml_session_run(s, ins, 2, &out, 1, &err), &err);
    }
}

/* Runs s RUNS times, compares with the CPU's outputs, then checks the host waits: those
 * needed_waits says, or none when every submit waits for itself (VKML_TEST_SYNC_CHUNKS). */
static void check_session(vkml_session *s, const float (*in)[2][N], const float (*want)[N],
                          const char *what, bool queued)
{
    static float got[RUNS][N];
    const plan *p = session_plan(s);
    long before = atomic_load_explicit(&((plan *)p)->host_waits, memory_order_relaxed);
    run_all(s, in, got);
    for (int r = 0; r < RUNS; r++)
        for (int e = 0; e < N; e++) {
            double w = want[r][e], d = fabs((double)got[r][e] - w);
            if (!(d <= 1e-5 * (1 + fabs(w)))) {
                CHECK(false, "%s: run %d [%d]: %g, the CPU says %g", what, r, e, (double)got[r][e],
                      w);
                break;
            }
        }
    long waits = atomic_load_explicit(&((plan *)p)->host_waits, memory_order_relaxed) - before;
    int per_run = queued ? needed_waits(p) : 0;
    CHECK(waits == (long)per_run * RUNS,
          "%s: %ld host waits in %d runs, expected %d per run (%d chunks)", what, waits, RUNS,
          per_run, p->n_chunks);
}

/* One GPU: chunks GPU [relu], CPU [cumsum], GPU [the rest]; the GPU chunks' boundary is in
 * the queue, so the only host wait is the run's end. spin_us: the session's wait_spin_us
 * (with polling, a wait also sleeps on a host timer until shortly before the end that the
 * chunk's earlier runs predict: vk_stream.h). */
static void test_one_gpu(vkml_context *ctx, vkml_model *model, const float (*in)[2][N],
                         const float (*want)[N], bool queued, int spin_us)
{
    vkml_error err = {0};
    vkml_session_params params = {.device = 0, .no_fuse = true, .wait_spin_us = spin_us};
    vkml_session *s = NULL;
    CHECK_OK(vkml_session_create(ctx, model, &params, &s, &err), &err);
    const plan *p = session_plan(s);
    CHECK(p->n_chunks == 3 && on_gpu(p, 0) && !on_gpu(p, 1) && on_gpu(p, 2),
          "one GPU: expected chunks GPU, CPU, GPU; got %d chunks", p->n_chunks);
    CHECK(needed_waits(p) == 1, "one GPU: %d host waits needed per run, expected 1",
          needed_waits(p));
    check_session(s, in, want, queued ? "one GPU" : "one GPU, chunks waited one by one", queued);
    vkml_session_destroy(&s);
}

/* Two logical devices, a budget that moves the chain to the second: GPU -> CPU -> GPU ->
 * GPU; the first budget (in values of N floats) that gives a GPU-to-GPU edge is used. */
static void test_two_gpus(vkml_context *ctx, vkml_model *model, const float (*in)[2][N],
                          const float (*want)[N])
{
    vkml_error err = {0};
    int all[VKML_MAX_SESSION_DEVICES];
    size_t n_all = 0;
    CHECK_OK(vkml_context_parse_devices(ctx, "all", all, VKML_MAX_SESSION_DEVICES, &n_all, &err),
             &err);
    CHECK(n_all >= 2, "two logical devices expected, got %zu", n_all);
    bool found = false;
    for (int k = 2; k <= 12 && !found; k++) {
        vkml_session_params params = {.devices = all,
                                      .n_devices = n_all,
                                      .device_budget = (uint64_t)k * N * sizeof(float),
                                      .no_fuse = true};
        vkml_session *s = NULL;
        if (vkml_session_create(ctx, model, &params, &s, &err) != VKML_OK)
            continue; /* too tight for this graph */
        if ((found = has_gpu_to_gpu(session_plan(s)))) {
            char what[64];
            snprintf(what, sizeof(what), "two GPUs, budget %d values", k);
            check_session(s, in, want, what, true);
        }
        vkml_session_destroy(&s);
    }
    CHECK(found, "no budget split the chain over the two logical devices");
}

/* VKML_TEST_DEVICE_LOST=hook on the one-GPU split (GPU, CPU, GPU chunks). */
static void test_device_lost(vkml_model *model, const float (*in)[2][N], const char *hook)
{
    setenv("VKML_TEST_DEVICE_LOST", hook, 1);
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    unsetenv("VKML_TEST_DEVICE_LOST");
    vkml_device_info info;
    CHECK_OK(vkml_context_device_info(ctx, 0, &info, &err), &err);
    vkml_session_params params = {.device = 0, .no_fuse = true};
    vkml_session *s = NULL;
    CHECK_OK(vkml_session_create(ctx, model, &params, &s, &err), &err);
    for (int r = 0; s && r < 2; r++) {
        float got[N];
        vkml_tensor ins[2], out = {.dtype = VKML_DTYPE_FLOAT,
                                   .rank = 1,
                                   .dims = {N},
                                   .data = got,
                                   .size = sizeof(got)};
        for (int i = 0; i < 2; i++)
            ins[i] = (vkml_tensor){.dtype = VKML_DTYPE_FLOAT,
                                   .rank = 1,
                                   .dims = {N},
                                   .data = (void *)in[r][i],
                                   .size = sizeof(float) * N};
        vkml_status st = vkml_session_run(s, ins, 2, &out, 1, &err);
        CHECK(st == VKML_ERROR_DEVICE_LOST && strstr(err.message, info.name), "%s, run %d: %s: %s",
              hook, r, vkml_status_name(st), err.message);
    }
    vkml_session_destroy(&s);
    vkml_context_destroy(&ctx);
    vkml_vk_counts counts;
    vkml_debug_vk_counts(&counts);
    for (int k = 0; k < VKML_VK_OBJECT_KINDS; k++)
        CHECK(counts.live[k] == 0, "%s: %lld live %s after the context", hook,
              (long long)counts.live[k], vkml_vk_object_name((vkml_vk_object)k));
}

int main(void)
{
    vkml_context_params cp = {.logical_devices_per_gpu = 2};
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(&cp, &ctx, &err), &err);
    test_require_vulkan(ctx);
    vkml_model *model = make_model();
    static float in[RUNS][2][N], want[RUNS][N];
    uint64_t seed = 0x5eed;
    for (int r = 0; r < RUNS; r++)
        for (int i = 0; i < 2; i++)
            for (int e = 0; e < N; e++)
                in[r][i][e] = test_randf(&seed, -2, 2);
    vkml_session_params cpu = {.device = VKML_DEVICE_CPU};
    vkml_session *ref = NULL;
    CHECK_OK(vkml_session_create(ctx, model, &cpu, &ref, &err), &err);
    run_all(ref, (const float(*)[2][N])in, want);
    vkml_session_destroy(&ref);
    test_one_gpu(ctx, model, (const float(*)[2][N])in, (const float(*)[N])want, true, 0);
    test_one_gpu(ctx, model, (const float(*)[2][N])in, (const float(*)[N])want, true, 200);
    test_one_gpu(ctx, model, (const float(*)[2][N])in, (const float(*)[N])want, true, -1);
    test_two_gpus(ctx, model, (const float(*)[2][N])in, (const float(*)[N])want);
    vkml_context_destroy(&ctx);
    /* Chunks submitted and waited for one by one (the hook): the same answers. */
    setenv("VKML_TEST_SYNC_CHUNKS", "1", 1);
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    unsetenv("VKML_TEST_SYNC_CHUNKS");
    test_one_gpu(ctx, model, (const float(*)[2][N])in, (const float(*)[N])want, false, 0);
    vkml_context_destroy(&ctx);
    test_device_lost(model, (const float(*)[2][N])in, "runwait:1:0");
    test_device_lost(model, (const float(*)[2][N])in, "run:2:0");
    vkml_model_destroy(&model);
    return test_finish("test_streams");
}
