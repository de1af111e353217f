/* Runs in flight: vkml_session_submit with 1, 2 and 4 lanes on the CPU device and on
 * Vulkan device 0 gives each run the answer a plain vkml_session_run gives for its inputs;
 * callbacks come in submission order; a vkml_session_run between submits returns after
 * the runs before it; detached runs complete before destroy returns; a run can be waited
 * after its session is gone; bad submits are refused without breaking the order. */
#include "plan/context.h"
#include "plan/plan.h"
#include "test_graph.h"
#include "vulkan/vk_consts.h"

#include <math.h>

#define ROWS 8
#define WIDTH 32
#define RUNS 48

/* Y = Relu(X W1) W2 + X. */
static vkml_model *make_model(void)
{
    uint64_t seed = 5;
    graph *g = graph_create();
    int64_t act[2] = {ROWS, WIDTH}, wdims[2] = {WIDTH, WIDTH};
    int x = tg_value(g, "X", VKML_DTYPE_FLOAT, 2, act);
    int w1 = tg_random_constant(g, "W1", 2, wdims, -0.5f, 0.5f, &seed);
    int w2 = tg_random_constant(g, "W2", 2, wdims, -0.5f, 0.5f, &seed);
    int h = tg_value(g, "h", VKML_DTYPE_FLOAT, 2, act),
        r = tg_value(g, "r", VKML_DTYPE_FLOAT, 2, act);
    int m = tg_value(g, "m", VKML_DTYPE_FLOAT, 2, act),
        y = tg_value(g, "Y", VKML_DTYPE_FLOAT, 2, act);
    tg_node(g, "MatMul", "MatMul", x, w1, h, 13);
    tg_node(g, "Relu", "Relu", h, -1, r, 13);
    tg_node(g, "MatMul", "MatMul", r, w2, m, 13);
    tg_node(g, "Add", "Add", m, x, y, 13);
    return tg_model(g, &x, 1, &y, 1, 13);
}

static float inputs[RUNS][ROWS * WIDTH], expected[RUNS][ROWS * WIDTH], got[RUNS][ROWS * WIDTH];

static vkml_tensor tensor(float *data)
{
    return (vkml_tensor){.dtype = VKML_DTYPE_FLOAT,
                         .rank = 2,
                         .dims = {ROWS, WIDTH},
                         .data = data,
                         .size = ROWS * WIDTH * sizeof(float)};
}

/* What callbacks saw: written by one callback at a time (they are serialised). */
typedef struct order_log {
    int seen[RUNS * 2];
    int count;
    int failures;
} order_log;

typedef struct run_tag {
    order_log *log;
    int index;
} run_tag;

static void on_done(void *user, vkml_status status, const vkml_error *err)
{
    run_tag *tag = user;
    if (status != VKML_OK)
        tag->log->failures++;
    (void)err;
    tag->log->seen[tag->log->count++] = tag->index;
}

static void expect_outputs(int first, int count, const char *what)
{
    for (int r = first; r < first + count; r++) {
        double max_err = 0;
        for (int i = 0; i < ROWS * WIDTH; i++)
            max_err = fmax(max_err, fabs((double)got[r][i] - (double)expected[r][i]));
        CHECK(max_err == 0, "%s: run %d differs from its plain run by %g", what, r, max_err);
    }
}

/* The shared constants of Vulkan device 0: entries and references held. */
static void count_consts(vkml_context *ctx, int *entries, int *refs)
{
    vk_device *vd = (vk_device *)context_device(ctx, 0);
    *entries = *refs = 0;
    pthread_mutex_lock(&vd->consts_lock);
    for (vk_const *c = vd->consts; c; c = c->next) {
        (*entries)++;
        *refs += c->refs;
    }
    pthread_mutex_unlock(&vd->consts_lock);
}

/* Lanes and sessions of one model share its weights on a device: one buffer per weight,
 * a reference per lane; all gone with the sessions. */
static void test_shared_weights(vkml_context *ctx, vkml_model *model)
{
    vkml_error err = {0};
    int entries, refs;
    vkml_session_params params = {.device = 0, .runs_in_flight = 4};
    vkml_session *a = NULL, *b = NULL;
    CHECK_OK(vkml_session_create(ctx, model, &params, &a, &err), &err);
    count_consts(ctx, &entries, &refs);
    CHECK(entries == 2 && refs == 8, "4 lanes: %d weight buffers, %d references", entries, refs);
    params.runs_in_flight = 1;
    CHECK_OK(vkml_session_create(ctx, model, &params, &b, &err), &err);
    count_consts(ctx, &entries, &refs);
    CHECK(entries == 2 && refs == 10, "another session: %d buffers, %d references", entries, refs);
    vkml_tensor in = tensor(inputs[7]), out = tensor(got[7]);
    CHECK_OK(vkml_session_run(b, &in, 1, &out, 1, &err), &err);
    vkml_session_destroy(&a);
    CHECK_OK(vkml_session_run(b, &in, 1, &out, 1, &err), &err);
    CHECK(memcmp(got[7], expected[7], sizeof(got[7])) == 0, "a run after the other session went");
    vkml_session_destroy(&b);
    count_consts(ctx, &entries, &refs);
    CHECK(entries == 0 && refs == 0, "after the sessions: %d buffers left", entries);
}

static void test_device(vkml_context *ctx, vkml_model *model, int device)
{
    vkml_error err = {0};
    vkml_session *ref = NULL;
    vkml_session_params plain = {.device = device};
    CHECK_OK(vkml_session_create(ctx, model, &plain, &ref, &err), &err);
    for (int r = 0; r < RUNS; r++) {
        vkml_tensor in = tensor(inputs[r]), out = tensor(expected[r]);
        CHECK_OK(vkml_session_run(ref, &in, 1, &out, 1, &err), &err);
    }
    vkml_session_destroy(&ref);

    static const int lanes[] = {1, 2, 4};
    for (size_t k = 0; k < sizeof(lanes) / sizeof(lanes[0]); k++) {
        char what[64];
        snprintf(what, sizeof(what), "device %d, %d in flight", device, lanes[k]);
        vkml_session_params params = {.device = device, .runs_in_flight = lanes[k]};
        vkml_session *s = NULL;
        CHECK_OK(vkml_session_create(ctx, model, &params, &s, &err), &err);
        order_log log = {0};
        run_tag tags[RUNS];
        vkml_tensor ins[RUNS], outs[RUNS];
        vkml_run *runs[RUNS] = {0};
        memset(got, 0, sizeof(got));
        /* Every run submitted, one plain run in the middle. */
        for (int r = 0; r < RUNS; r++) {
            ins[r] = tensor(inputs[r]);
            outs[r] = tensor(got[r]);
            tags[r] = (run_tag){.log = &log, .index = r};
            if (r == RUNS / 2) {
                int before = r;
                CHECK_OK(vkml_session_run(s, &ins[r], 1, &outs[r], 1, &err), &err);
                /* Every earlier run has reported (the callbacks run before the count
                 * moves, and this run reported after them). */
                CHECK(log.count == before, "%s: %d callbacks before a plain run, %d expected", what,
                      log.count, before);
                log.seen[log.count++] = r;
                continue;
            }
            CHECK_OK(
                vkml_session_submit(s, &ins[r], 1, &outs[r], 1, on_done, &tags[r], &runs[r], &err),
                &err);
        }
        for (int r = 0; r < RUNS; r++)
            if (runs[r])
                CHECK_OK(vkml_run_wait(&runs[r], &err), &err);
        CHECK(log.count == RUNS && log.failures == 0, "%s: %d callbacks, %d failed", what,
              log.count, log.failures);
        for (int i = 0; i < log.count; i++)
            CHECK(log.seen[i] == i, "%s: callback %d was run %d", what, i, log.seen[i]);
        expect_outputs(0, RUNS, what);

        /* Detached runs: destroy waits for them; every callback came, in order. */
        order_log detached = {0};
        memset(got, 0, sizeof(got));
        for (int r = 0; r < RUNS; r++) {
            tags[r] = (run_tag){.log = &detached, .index = r};
            CHECK_OK(vkml_session_submit(s, &ins[r], 1, &outs[r], 1, on_done, &tags[r], NULL, &err),
                     &err);
        }
        /* A bad submit (wrong shape) is refused and the order goes on. */
        vkml_tensor bad = ins[0];
        bad.dims[0] = ROWS + 1;
        bad.size = (ROWS + 1) * WIDTH * sizeof(float);
        float big[(ROWS + 1) * WIDTH] = {0};
        bad.data = big;
        vkml_run *none = NULL;
        vkml_status st = vkml_session_submit(s, &bad, 1, &outs[0], 1, NULL, NULL, &none, &err);
        CHECK(st == VKML_ERROR_INVALID_ARGUMENT && none == NULL && strstr(err.message, "shape"),
              "%s: a bad input shape submitted: %s (%s)", what, vkml_status_name(st), err.message);
        CHECK(vkml_session_submit(s, ins, 2, outs, 1, NULL, NULL, &none, &err) ==
                  VKML_ERROR_INVALID_ARGUMENT,
              "%s: two inputs for one", what);
        /* One more waited run after the refusals, then the session goes with runs pending. */
        vkml_run *last = NULL;
        float last_out[ROWS * WIDTH];
        vkml_tensor last_t = tensor(last_out);
        CHECK_OK(vkml_session_submit(s, &ins[3], 1, &last_t, 1, NULL, NULL, &last, &err), &err);
        vkml_session_destroy(&s);
        CHECK(detached.count == RUNS && detached.failures == 0, "%s: %d detached callbacks", what,
              detached.count);
        for (int i = 0; i < detached.count; i++)
            CHECK(detached.seen[i] == i, "%s: detached callback %d was run %d", what, i,
                  detached.seen[i]);
        expect_outputs(0, RUNS, what);
        CHECK_OK(vkml_run_wait(&last, &err), &err); /* after its session is gone */
        CHECK(memcmp(last_out, expected[3], sizeof(last_out)) == 0 && last == NULL,
              "%s: the run waited after destroy", what);
    }
}

int main(void)
{
    uint64_t seed = 11;
    for (int r = 0; r < RUNS; r++)
        for (int i = 0; i < ROWS * WIDTH; i++)
            inputs[r][i] = test_randf(&seed, -1, 1);
    vkml_model *model = make_model();
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    vkml_session *s = NULL;
    vkml_session_params too_many = {.device = VKML_DEVICE_CPU,
                                    .runs_in_flight = VKML_MAX_RUNS_IN_FLIGHT + 1};
    CHECK(vkml_session_create(ctx, model, &too_many, &s, &err) == VKML_ERROR_INVALID_ARGUMENT &&
              strstr(err.message, "runs in flight") && s == NULL,
          "17 runs in flight: %s", err.message);
    CHECK(vkml_run_wait(NULL, &err) == VKML_ERROR_INVALID_ARGUMENT, "waiting NULL");
    TEST_FOR_EACH_DEVICE(t, ctx)
        test_device(ctx, model, t.device);
    test_require_vulkan(ctx);
    test_shared_weights(ctx, model);
    vkml_context_destroy(&ctx);
    vkml_model_destroy(&model);
    return test_finish("async");
}
