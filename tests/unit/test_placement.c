/* Placement over a device set: a chain of MatMul/Relu blocks with skip connections and a
 * middle graph output, on 2, 3 and 4 logical lavapipe devices (one VkDevice each).
 * Budgets that force splits give the single-device answer with every part within its
 * budget and the cross-device edges listed (sharing host memory, and as host copies); a
 * model that fits one GPU stays on it; a budget
 * under one node's needs is refused with the sizes; device sets parse and are checked. */
#include "plan/plan.h"
#include "plan/session.h"
#include "test_graph.h"

#include <math.h>

#define WIDTH 48
#define ROWS 6
#define BLOCKS 12

/* X[ROWS, WIDTH] -> BLOCKS x (MatMul W_i, Relu; every third block adds the output of two
 * blocks before) -> Y; block BLOCKS/2's output is a graph output too. */
static vkml_model *make_chain(void)
{
    uint64_t seed = 7;
    graph *g = graph_create();
    int64_t act[2] = {ROWS, WIDTH}, wdims[2] = {WIDTH, WIDTH};
    int x = tg_value(g, "X", VKML_DTYPE_FLOAT, 2, act), h = x;
    int history[BLOCKS + 1], middle = -1;
    history[0] = h;
    char name[64];
    for (int b = 0; b < BLOCKS; b++) {
        snprintf(name, sizeof(name), "W%d", b);
        int w = tg_random_constant(g, name, 2, wdims, -0.3f, 0.3f, &seed);
        snprintf(name, sizeof(name), "mm%d", b);
        int mm = tg_value(g, name, VKML_DTYPE_FLOAT, 2, act);
        tg_node(g, name, "MatMul", h, w, mm, 13);
        snprintf(name, sizeof(name), "relu%d", b);
        int r = tg_value(g, name, VKML_DTYPE_FLOAT, 2, act);
        tg_node(g, name, "Relu", mm, -1, r, 13);
        h = r;
        if (b % 3 == 2) {
            snprintf(name, sizeof(name), "skip%d", b);
            int sum = tg_value(g, name, VKML_DTYPE_FLOAT, 2, act);
            tg_node(g, name, "Add", h, history[b - 1], sum, 13);
            h = sum;
        }
        history[b + 1] = h;
        if (b == BLOCKS / 2)
            middle = h;
    }
    return tg_model(g, &x, 1, (int[]){h, middle}, 2, 13);
}

typedef struct outputs {
    vkml_tensor t[2];
} outputs;

/* Runs the model on a session of these params; fills out (release with free_outputs). */
static vkml_status run_with(vkml_context *ctx, vkml_model *model, const vkml_session_params *params,
                            outputs *out, vkml_session **keep, vkml_error *err)
{
    vkml_session *s = NULL;
    vkml_status st = vkml_session_create(ctx, model, params, &s, err);
    if (st)
        return st;
    float x[ROWS * WIDTH];
    uint64_t seed = 99;
    for (int i = 0; i < ROWS * WIDTH; i++)
        x[i] = test_randf(&seed, -1, 1);
    vkml_tensor in = {
        .dtype = VKML_DTYPE_FLOAT, .rank = 2, .dims = {ROWS, WIDTH}, .data = x, .size = sizeof(x)};
    for (size_t o = 0; o < 2; o++)
        CHECK_OK(vkml_session_alloc_output(s, o, &out->t[o], err), err);
    st = vkml_session_run(s, &in, 1, out->t, 2, err);
    if (keep)
        *keep = s;
    else
        vkml_session_destroy(&s);
    return st;
}

static void free_outputs(outputs *o)
{
    for (int i = 0; i < 2; i++)
        vkml_tensor_release(&o->t[i]);
}

static void expect_same(const outputs *got, const outputs *want, const char *what)
{
    for (int o = 0; o < 2; o++) {
        const float *a = got->t[o].data, *b = want->t[o].data;
        double max_err = 0, max_ref = 0;
        for (int i = 0; i < ROWS * WIDTH; i++) {
            max_err = fmax(max_err, fabs((double)a[i] - (double)b[i]));
            max_ref = fmax(max_ref, fabs((double)b[i]));
        }
        CHECK(max_ref > 0 && max_err <= 1e-5 * max_ref, "%s: output %d differs by %g (scale %g)",
              what, o, max_err, max_ref);
    }
}

/* The plan's parts and transfers are consistent with the budget and the device set;
 * transfers share host memory when `shared` (lavapipe has VK_EXT_external_memory_host),
 * never when `host_copy` (VKML_NO_SHARED_HOST=1), and may either way on other devices. */
static size_t check_plan(const vkml_session *s, const int *set, size_t n_set, uint64_t budget,
                         bool shared, bool host_copy, const char *what)
{
    size_t parts = vkml_session_plan_part_count(s), nodes = 0, fused_away = 0;
    for (size_t i = 0; i < parts; i++) {
        vkml_plan_part p;
        CHECK(vkml_session_plan_part(s, i, &p), "%s: part %zu", what, i);
        bool in_set = false;
        for (size_t k = 0; k < n_set; k++)
            in_set |= set[k] == p.device;
        CHECK(in_set, "%s: part %zu on device %d, not in the set", what, i, p.device);
        CHECK(p.weight_bytes + p.peak_bytes <= budget, "%s: part %zu holds %llu + %llu > %llu",
              what, i, (unsigned long long)p.weight_bytes, (unsigned long long)p.peak_bytes,
              (unsigned long long)budget);
        CHECK(p.n_nodes > 0 && p.first_node[0] && p.last_node[0], "%s: part %zu is empty", what, i);
        nodes += p.n_nodes;
        fused_away += p.n_fused_nodes - p.n_fused; /* a fused group is one node */
    }
    vkml_plan_part none;
    CHECK(!vkml_session_plan_part(s, parts, &none), "%s: a part past the end", what);
    size_t on_device = 0, on_cpu = 0, folded = 0;
    vkml_session_node_counts(s, &folded, &on_device, &on_cpu);
    CHECK(nodes == on_device && on_cpu == 0 && nodes + fused_away == BLOCKS * 2 + BLOCKS / 3,
          "%s: %zu nodes in parts, %zu on devices, %zu on the CPU", what, nodes, on_device, on_cpu);
    size_t transfers = vkml_session_plan_transfer_count(s);
    CHECK(parts < 2 || transfers >= parts - 1, "%s: %zu parts but %zu transfers", what, parts,
          transfers);
    for (size_t i = 0; i < transfers; i++) {
        vkml_plan_transfer t;
        CHECK(vkml_session_plan_transfer(s, i, &t), "%s: transfer %zu", what, i);
        CHECK(t.from != t.to && t.bytes == ROWS * WIDTH * sizeof(float) && t.value[0],
              "%s: transfer %zu of '%s' %d -> %d, %llu bytes", what, i, t.value, t.from, t.to,
              (unsigned long long)t.bytes);
        CHECK(shared ? t.shared_host : !t.shared_host || !host_copy, "%s: transfer %zu of '%s' %s",
              what, i, t.value, t.shared_host ? "shares host memory" : "is a host copy");
    }
    return parts;
}

static void test_splits(vkml_model *model, int n_dev)
{
    vkml_context_params cp = {.logical_devices_per_gpu = n_dev};
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(&cp, &ctx, &err), &err);
    test_require_vulkan(ctx);
    if (vkml_context_device_count(ctx) < n_dev) {
        test_missing("a Vulkan device opened as several logical devices");
        vkml_context_destroy(&ctx);
        return;
    }
    int all[VKML_MAX_SESSION_DEVICES];
    size_t n_all = 0;
    CHECK_OK(vkml_context_parse_devices(ctx, "all", all, VKML_MAX_SESSION_DEVICES, &n_all, &err),
             &err);
    CHECK((int)n_all == vkml_context_device_count(ctx), "'all' is every GPU");

    outputs ref = {0}, single = {0};
    vkml_session_params cpu = {.device = VKML_DEVICE_CPU};
    CHECK_OK(run_with(ctx, model, &cpu, &ref, NULL, &err), &err);
    /* The default budget: the model fits GPU 0 and is not split. */
    vkml_session *s = NULL;
    vkml_session_params whole = {.devices = all, .n_devices = n_all};
    CHECK_OK(run_with(ctx, model, &whole, &single, &s, &err), &err);
    CHECK(check_plan(s, all, n_all, UINT64_MAX, false, false, "default budget") == 1,
          "a fitting model split");
    expect_same(&single, &ref, "one GPU");
    vkml_session_destroy(&s);

    /* Budgets forcing 2 .. n_dev parts: room for the weights of ceil(BLOCKS / want) blocks
     * and six activations (at most five are live at once; a seventh block's weights do
     * not fit in the slack). */
    uint64_t block = WIDTH * WIDTH * sizeof(float), activation = ROWS * WIDTH * sizeof(float);
    vkml_device_info info;
    CHECK_OK(vkml_context_device_info(ctx, 0, &info, &err), &err);
    bool lavapipe = info.type == VKML_DEVICE_TYPE_VULKAN_CPU;
    for (int want = 2; want <= n_dev; want++) {
        uint64_t budget = (uint64_t)((BLOCKS + want - 1) / want) * block + 6 * activation;
        vkml_session_params split = {.devices = all, .n_devices = n_all, .device_budget = budget};
        for (int host_copy = 0; host_copy < 2; host_copy++) {
            outputs got = {0};
            char what[96];
            snprintf(what, sizeof(what), "%d devices, budget %llu, %s", n_dev,
                     (unsigned long long)budget, host_copy ? "host copies" : "default transfers");
            if (host_copy)
                setenv("VKML_NO_SHARED_HOST", "1", 1);
            CHECK_OK(run_with(ctx, model, &split, &got, &s, &err), &err);
            unsetenv("VKML_NO_SHARED_HOST");
            size_t parts =
                check_plan(s, all, n_all, budget, lavapipe && !host_copy, host_copy, what);
            CHECK(parts >= (size_t)want && parts <= (size_t)n_dev, "%s: %zu parts", what, parts);
            expect_same(&got, &ref, what);
            free_outputs(&got);
            vkml_session_destroy(&s);
        }
    }

    /* The set's order is the preference: the last GPU first. */
    int reversed[2] = {n_dev - 1, 0};
    vkml_session_params rev = {.devices = reversed, .n_devices = 2};
    outputs got = {0};
    CHECK_OK(run_with(ctx, model, &rev, &got, &s, &err), &err);
    vkml_plan_part first;
    CHECK(vkml_session_plan_part(s, 0, &first) && first.device == n_dev - 1 &&
              vkml_session_device(s) == n_dev - 1,
          "the first device of the set runs the model");
    expect_same(&got, &ref, "reversed set");
    vkml_session_destroy(&s);
    free_outputs(&got);

    /* Under one node's needs: refused with the sizes. */
    vkml_session_params tiny = {.devices = all, .n_devices = n_all, .device_budget = 4096};
    vkml_status st = vkml_session_create(ctx, model, &tiny, &s, &err);
    CHECK(st == VKML_ERROR_OUT_OF_MEMORY && strstr(err.message, "does not fit") &&
              strstr(err.message, "4096 bytes budget") && s == NULL,
          "a budget too small: %s (%s)", vkml_status_name(st), err.message);
    free_outputs(&ref);
    free_outputs(&single);
    vkml_context_destroy(&ctx);
}

static void test_sets(void)
{
    vkml_context_params cp = {.logical_devices_per_gpu = 2};
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(&cp, &ctx, &err), &err);
    int idx[VKML_MAX_SESSION_DEVICES];
    size_t n = 0;
    CHECK_OK(vkml_context_parse_devices(ctx, "cpu", idx, 4, &n, &err), &err);
    CHECK(n == 1 && idx[0] == VKML_DEVICE_CPU, "'cpu'");
    if (vkml_context_device_count(ctx) >= 2) {
        CHECK_OK(vkml_context_parse_devices(ctx, "1,0,cpu", idx, 4, &n, &err), &err);
        CHECK(n == 3 && idx[0] == 1 && idx[1] == 0 && idx[2] == VKML_DEVICE_CPU, "'1,0,cpu'");
    }
    static const struct {
        const char *text, *expect;
    } bad[] = {{"0,0", "twice"},         {"", "empty"},
               {"0,", "empty"},          {"gpu", "unknown device"},
               {"99", "unknown device"}, {"cpu,cpu", "twice"}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        vkml_status st = vkml_context_parse_devices(ctx, bad[i].text, idx, 4, &n, &err);
        CHECK(st == VKML_ERROR_INVALID_ARGUMENT && strstr(err.message, bad[i].expect),
              "'%s': %s (%s)", bad[i].text, vkml_status_name(st), err.message);
    }
    CHECK(vkml_context_parse_devices(ctx, "all", idx, 0, &n, &err) == VKML_ERROR_INVALID_ARGUMENT,
          "a set larger than the room given");
    vkml_context_destroy(&ctx);
}

/* Data parallel (vkml_session_params.data_parallel) over n_dev logical devices: lanes
 * rounded up to a multiple of n_dev, lane l planned on GPU l % n_dev alone, every run's
 * outputs (distinct inputs, submitted together) equal to one device's, in order; too many
 * lanes after rounding and a set of one GPU behave as documented. */
static void test_data_parallel(vkml_model *model, int n_dev)
{
    vkml_context_params cp = {.logical_devices_per_gpu = n_dev};
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(&cp, &ctx, &err), &err);
    if (!ctx || vkml_context_device_count(ctx) < n_dev) {
        vkml_context_destroy(&ctx);
        return;
    }
    int set[4] = {0, 1, 2, 3};
    vkml_session *one = NULL, *dp = NULL;
    vkml_session_params p_one = {.device = 0};
    vkml_session_params p_dp = {
        .devices = set, .n_devices = (size_t)n_dev, .data_parallel = true, .runs_in_flight = 4};
    CHECK_OK(vkml_session_create(ctx, model, &p_one, &one, &err), &err);
    CHECK_OK(vkml_session_create(ctx, model, &p_dp, &dp, &err), &err);
    if (one && dp) {
        int replicas[4] = {-1, -1, -1, -1};
        int lanes = (4 + n_dev - 1) / n_dev * n_dev;
        CHECK(vkml_session_replica_count(dp, replicas, 4) == n_dev && dp->n_lanes == lanes,
              "%d devices: %d replicas, %d lanes (expected %d)", n_dev,
              vkml_session_replica_count(dp, NULL, 0), dp->n_lanes, lanes);
        for (int l = 0; l < dp->n_lanes; l++) {
            const plan *pl = dp->lanes[l].plan;
            int gpus = 0, where = -1;
            for (int d = 0; d < pl->n_devices; d++)
                if (pl->devices[d].index != VKML_DEVICE_CPU && pl->devices[d].n_nodes > 0) {
                    gpus++;
                    where = pl->devices[d].index;
                }
            CHECK(gpus == 1 && where == replicas[l % n_dev] && where == l % n_dev,
                  "%d devices: lane %d on %d GPU(s), device %d", n_dev, l, gpus, where);
        }
        enum { RUNS = 9 };
        float x[RUNS][ROWS * WIDTH];
        vkml_tensor in[RUNS], got[RUNS][2], want[RUNS][2];
        vkml_run *runs[RUNS] = {0};
        uint64_t seed = 5;
        for (int k = 0; k < RUNS; k++) {
            for (int i = 0; i < ROWS * WIDTH; i++)
                x[k][i] = test_randf(&seed, -1, 1);
            in[k] = (vkml_tensor){.dtype = VKML_DTYPE_FLOAT,
                                  .rank = 2,
                                  .dims = {ROWS, WIDTH},
                                  .data = x[k],
                                  .size = sizeof(x[k])};
            for (int o = 0; o < 2; o++) {
                CHECK_OK(vkml_session_alloc_output(one, (size_t)o, &want[k][o], &err), &err);
                CHECK_OK(vkml_session_alloc_output(dp, (size_t)o, &got[k][o], &err), &err);
            }
            CHECK_OK(vkml_session_run(one, &in[k], 1, want[k], 2, &err), &err);
        }
        for (int k = 0; k < RUNS; k++)
            CHECK_OK(vkml_session_submit(dp, &in[k], 1, got[k], 2, NULL, NULL, &runs[k], &err),
                     &err);
        for (int k = 0; k < RUNS; k++) {
            if (runs[k])
                CHECK_OK(vkml_run_wait(&runs[k], &err), &err);
            char what[64];
            snprintf(what, sizeof(what), "data parallel over %d, run %d", n_dev, k);
            expect_same(&(outputs){{got[k][0], got[k][1]}}, &(outputs){{want[k][0], want[k][1]}},
                        what);
            for (int o = 0; o < 2; o++) {
                vkml_tensor_release(&got[k][o]);
                vkml_tensor_release(&want[k][o]);
            }
        }
    }
    vkml_session_destroy(&dp);
    /* 16 runs in flight round up past the limit over 3 GPUs; one GPU is no replica */
    p_dp.runs_in_flight = 16;
    vkml_status st = vkml_session_create(ctx, model, &p_dp, &dp, &err);
    CHECK(n_dev % 2 == 0
              ? st == VKML_OK
              : st == VKML_ERROR_INVALID_ARGUMENT && strstr(err.message, "data parallel"),
          "%d devices, 16 in flight: %s (%s)", n_dev, vkml_status_name(st), err.message);
    vkml_session_destroy(&dp);
    /* a budget that no one GPU's copy fits: refused, naming the copy */
    p_dp = (vkml_session_params){
        .devices = set, .n_devices = (size_t)n_dev, .data_parallel = true, .device_budget = 40000};
    st = vkml_session_create(ctx, model, &p_dp, &dp, &err);
    CHECK(st == VKML_ERROR_OUT_OF_MEMORY && !dp &&
              strstr(err.message, "data parallel: the model's copy on device 0"),
          "%d devices, a copy over budget: %s (%s)", n_dev, vkml_status_name(st), err.message);
    p_dp = (vkml_session_params){.devices = set, .n_devices = 1, .data_parallel = true};
    CHECK_OK(vkml_session_create(ctx, model, &p_dp, &dp, &err), &err);
    CHECK(!dp || (vkml_session_replica_count(dp, NULL, 0) == 1 && dp->n_lanes == 1),
          "data parallel over one GPU: %d replicas", vkml_session_replica_count(dp, NULL, 0));
    vkml_session_destroy(&dp);
    vkml_session_destroy(&one);
    vkml_context_destroy(&ctx);
}

int main(void)
{
    /* Placement of the chain's nodes as built (no epilogue fusion). */
    setenv("VKML_NO_FUSE", "1", 1);
    vkml_model *model = make_chain();
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    /* A session over a set with a repeated or unknown device is refused. */
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    vkml_session *s = NULL;
    int twice[2] = {0, 0}, unknown[1] = {77};
    vkml_session_params p1 = {.devices = twice, .n_devices = 2};
    vkml_session_params p2 = {.devices = unknown, .n_devices = 1};
    if (vkml_context_device_count(ctx) > 0)
        CHECK(vkml_session_create(ctx, model, &p1, &s, &err) == VKML_ERROR_INVALID_ARGUMENT &&
                  strstr(err.message, "twice"),
              "a repeated device: %s", err.message);
    CHECK(vkml_session_create(ctx, model, &p2, &s, &err) == VKML_ERROR_INVALID_ARGUMENT &&
              strstr(err.message, "no device 77"),
          "an unknown device: %s", err.message);
    vkml_context_destroy(&ctx);
    test_sets();
    for (int n_dev = 2; n_dev <= 4; n_dev++)
        test_splits(model, n_dev);
    test_data_parallel(model, 2);
    test_data_parallel(model, 3);
    vkml_model_destroy(&model);
    return test_finish("placement");
}
