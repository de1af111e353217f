/* vkml_batcher on the CPU device and Vulkan device 0: items from 4 threads gathered into
 * batches of 4 give each item the outputs (bit-equal) of a batch-1 run on it, each
 * thread's callbacks in its order; a lone item on an idle session goes at once, and behind
 * a running batch a partial batch waits up to its timeout for more items; bad items are refused
 * naming the problem; a data-dependent output is refused at N 4 and passed whole at N 1; the stats
 * add up; destroy completes pending items. */
#include "test_graph.h"

#include <pthread.h>
#include <time.h>

#define N 4
#define WIDTH 32
#define THREADS 4
#define ITEMS 50
#define SCALE 0.75f

/* Y = (Relu(X W1) W2 + X) * S and Z = S + S; X [batch, WIDTH], S a scalar (unbatched). */
static vkml_model *make_model(void)
{
    uint64_t seed = 3;
    graph *g = graph_create();
    int64_t act[2] = {-1, WIDTH}, wdims[2] = {WIDTH, WIDTH};
    int x = tg_value(g, "X", VKML_DTYPE_FLOAT, 2, act);
    g->values[x].dim_names[0] = "batch";
    int s = tg_value(g, "S", VKML_DTYPE_FLOAT, 0, NULL);
    int w1 = tg_random_constant(g, "W1", 2, wdims, -0.5f, 0.5f, &seed);
    int w2 = tg_random_constant(g, "W2", 2, wdims, -0.5f, 0.5f, &seed);
    int h = tg_value(g, "h", VKML_DTYPE_FLOAT, 2, act),
        r = tg_value(g, "r", VKML_DTYPE_FLOAT, 2, act);
    int m = tg_value(g, "m", VKML_DTYPE_FLOAT, 2, act),
        a = tg_value(g, "a", VKML_DTYPE_FLOAT, 2, act);
    int y = tg_value(g, "Y", VKML_DTYPE_FLOAT, 2, act);
    int z = tg_value(g, "Z", VKML_DTYPE_FLOAT, 0, NULL);
    tg_node(g, "MatMul1", "MatMul", x, w1, h, 13);
    tg_node(g, "Relu", "Relu", h, -1, r, 13);
    tg_node(g, "MatMul2", "MatMul", r, w2, m, 13);
    tg_node(g, "Add", "Add", m, x, a, 13);
    tg_node(g, "Mul", "Mul", a, s, y, 13);
    tg_node(g, "Double", "Add", s, s, z, 13);
    int ins[2] = {x, s}, outs[2] = {y, z};
    return tg_model(g, ins, 2, outs, 2, 13);
}

/* NZ = NonZero(X), X [batch, 5]: an output whose extent depends on the data. */
static vkml_model *make_nonzero_model(void)
{
    graph *g = graph_create();
    int64_t xd[2] = {-1, 5}, nd[2] = {2, -1};
    int x = tg_value(g, "X", VKML_DTYPE_FLOAT, 2, xd);
    g->values[x].dim_names[0] = "batch";
    int nz = tg_value(g, "NZ", VKML_DTYPE_INT64, 2, nd);
    tg_node(g, "NonZero", "NonZero", x, -1, nz, 13);
    return tg_model(g, &x, 1, &nz, 1, 13);
}

static float inputs[THREADS][ITEMS][WIDTH], expected[THREADS][ITEMS][WIDTH];
static float got[THREADS][ITEMS][WIDTH], got_z[THREADS][ITEMS];
static float scale = SCALE;

static vkml_tensor tensor(float *data, int rank)
{
    return (vkml_tensor){.dtype = VKML_DTYPE_FLOAT,
                         .rank = rank,
                         .dims = {1, WIDTH},
                         .data = data,
                         .size = (rank ? WIDTH : 1) * sizeof(float)};
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Each item's answer from a batch-1 session (the same plan but for the batch). */
static void compute_expected(vkml_context *ctx, vkml_model *model, int device)
{
    vkml_error err = {0};
    vkml_session *ref = NULL;
    vkml_session_params params = {.device = device, .symbolic_dim_value = 1};
    CHECK_OK(vkml_session_create(ctx, model, &params, &ref, &err), &err);
    for (int t = 0; ref && t < THREADS; t++)
        for (int i = 0; i < ITEMS; i++) {
            float z;
            vkml_tensor in[2] = {tensor(inputs[t][i], 2), tensor(&scale, 0)};
            vkml_tensor out[2] = {tensor(expected[t][i], 2), tensor(&z, 0)};
            CHECK_OK(vkml_session_run(ref, in, 2, out, 2, &err), &err);
        }
    vkml_session_destroy(&ref);
}

/* What one thread's callbacks saw: callbacks are serialised (items complete in order). */
typedef struct thread_log {
    int seen[ITEMS];
    int count, failures;
} thread_log;

typedef struct item_tag {
    thread_log *log;
    int index;
} item_tag;

static void on_item(void *user, vkml_status status, const vkml_error *err)
{
    item_tag *tag = user;
    (void)err;
    if (status != VKML_OK)
        tag->log->failures++;
    if (tag->log->count < ITEMS)
        tag->log->seen[tag->log->count] = tag->index;
    tag->log->count++;
}

typedef struct submitter {
    vkml_batcher *b;
    int t;
    thread_log log;
    item_tag tags[ITEMS];
    vkml_tensor ins[ITEMS][2], outs[ITEMS][2];
} submitter;

/* ITEMS items, odd ones waited, even ones detached; the last (odd) wait covers them all. */
static void *submit_items(void *arg)
{
    submitter *sub = arg;
    vkml_run *runs[ITEMS] = {0};
    vkml_error err = {0};
    for (int i = 0; i < ITEMS; i++) {
        sub->ins[i][0] = tensor(inputs[sub->t][i], 2);
        sub->ins[i][1] = tensor(&scale, 0);
        sub->outs[i][0] = tensor(got[sub->t][i], 2);
        sub->outs[i][1] = tensor(&got_z[sub->t][i], 0);
        sub->tags[i] = (item_tag){.log = &sub->log, .index = i};
        CHECK_OK(vkml_batcher_submit(sub->b, sub->ins[i], 2, sub->outs[i], 2, on_item,
                                     &sub->tags[i], i % 2 ? &runs[i] : NULL, &err),
                 &err);
    }
    for (int i = 1; i < ITEMS; i += 2)
        if (runs[i])
            CHECK_OK(vkml_run_wait(&runs[i], &err), &err);
    return NULL;
}

static void check_item(int t, int i, const char *what)
{
    CHECK(memcmp(got[t][i], expected[t][i], sizeof(got[t][i])) == 0 && got_z[t][i] == 2 * SCALE,
          "%s: thread %d item %d differs from its batch-1 run", what, t, i);
}

/* (1) and (5): 4 threads of 50 items each; every output bit-equal, callbacks in order. */
static void test_threads(vkml_session *s, const char *what)
{
    vkml_error err = {0};
    vkml_batcher *b = NULL;
    CHECK_OK(vkml_batcher_create(s, NULL, &b, &err), &err);
    if (!b)
        return;
    memset(got, 0, sizeof(got));
    static submitter subs[THREADS];
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++) {
        subs[t] = (submitter){.b = b, .t = t};
        CHECK(pthread_create(&threads[t], NULL, submit_items, &subs[t]) == 0, "thread");
    }
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);
    vkml_batcher_stats stats;
    vkml_batcher_get_stats(b, &stats);
    CHECK(stats.items == THREADS * ITEMS && stats.batches <= stats.items &&
              stats.batches >= THREADS * ITEMS / N && stats.full <= stats.batches,
          "%s: stats %llu items, %llu batches, %llu full", what, (unsigned long long)stats.items,
          (unsigned long long)stats.batches, (unsigned long long)stats.full);
    printf("%s: %d items from %d threads in %llu batches (%llu full)\n", what, THREADS * ITEMS,
           THREADS, (unsigned long long)stats.batches, (unsigned long long)stats.full);
    vkml_batcher_destroy(&b);
    for (int t = 0; t < THREADS; t++) {
        thread_log *log = &subs[t].log;
        CHECK(log->count == ITEMS && log->failures == 0, "%s: thread %d: %d callbacks, %d failed",
              what, t, log->count, log->failures);
        for (int i = 0; i < ITEMS && i < log->count; i++)
            CHECK(log->seen[i] == i, "%s: thread %d: callback %d was item %d", what, t, i,
                  log->seen[i]);
        for (int i = 0; i < ITEMS; i++)
            check_item(t, i, what);
    }
}

/* One waited item; returns its microseconds from submit to the end of the wait. */
static double one_item(vkml_batcher *b, int i, const char *what)
{
    vkml_error err = {0};
    vkml_tensor in[2] = {tensor(inputs[0][i], 2), tensor(&scale, 0)};
    vkml_tensor out[2] = {tensor(got[0][i], 2), tensor(&got_z[0][i], 0)};
    vkml_run *run = NULL;
    memset(got[0][i], 0, sizeof(got[0][i]));
    double t0 = now_us();
    CHECK_OK(vkml_batcher_submit(b, in, 2, out, 2, NULL, NULL, &run, &err), &err);
    if (run)
        CHECK_OK(vkml_run_wait(&run, &err), &err);
    double us = now_us() - t0;
    check_item(0, i, what);
    return us;
}

/* A callback that holds its batch in flight (the batcher returns a batch after its items'
 * callbacks) until release_held. */
static pthread_mutex_t hold_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hold_cv = PTHREAD_COND_INITIALIZER;
static bool held;

static void hold_callback(void *user, vkml_status status, const vkml_error *err)
{
    (void)user, (void)status, (void)err;
    pthread_mutex_lock(&hold_mu);
    while (held)
        pthread_cond_wait(&hold_cv, &hold_mu);
    pthread_mutex_unlock(&hold_mu);
}

static void release_held(void)
{
    pthread_mutex_lock(&hold_mu);
    held = false;
    pthread_cond_broadcast(&hold_cv);
    pthread_mutex_unlock(&hold_mu);
}

/* Item i of row `row`, detached or into *run (its output array lives until it completes). */
static void submit_item(vkml_batcher *b, int row, int i, vkml_run_callback cb, vkml_run **run)
{
    static vkml_tensor outs[THREADS][ITEMS][2];
    vkml_error err = {0};
    vkml_tensor in[2] = {tensor(inputs[row][i], 2), tensor(&scale, 0)};
    vkml_tensor *out = outs[row][i];
    out[0] = tensor(got[row][i], 2);
    out[1] = tensor(&got_z[row][i], 0);
    CHECK_OK(vkml_batcher_submit(b, in, 2, out, 2, cb, NULL, run, &err), &err);
}

static void sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* With item 0's batch held in flight, items 1.. arrive (one every `gap_ms`); returns the
 * batches run once all completed. */
static uint64_t batches_behind_held(vkml_session *s, int64_t timeout_us, int items, int gap_ms,
                                    const char *what)
{
    vkml_error err = {0};
    vkml_batcher *b = NULL;
    vkml_run *runs[N] = {0};
    vkml_batcher_stats stats = {0};
    CHECK_OK(vkml_batcher_create(s, &(vkml_batcher_params){.timeout_us = timeout_us}, &b, &err),
             &err);
    if (!b)
        return 0;
    held = true;
    submit_item(b, 1, 0, hold_callback, &runs[0]); /* an idle session: it goes at once */
    sleep_ms(20);
    for (int i = 1; i <= items; i++) {
        submit_item(b, 1, i, NULL, &runs[i]);
        if (i < items)
            sleep_ms(gap_ms);
    }
    sleep_ms(gap_ms);
    release_held();
    for (int i = 0; i <= items; i++)
        if (runs[i])
            CHECK_OK(vkml_run_wait(&runs[i], &err), &err);
    for (int i = 0; i <= items; i++)
        check_item(1, i, what);
    vkml_batcher_get_stats(b, &stats);
    vkml_batcher_destroy(&b);
    return stats.batches;
}

/* (2) and (5): a lone item on an idle session goes at once whatever the timeout; behind a
 * running batch, a partial batch waits up to its timeout for more items (a long one
 * gathers them into one batch, a short one lets it go alone); a batch filled by one thread
 * goes full. */
static void test_partial(vkml_session *s, const char *what)
{
    vkml_error err = {0};
    vkml_batcher *b = NULL;
    vkml_batcher_stats stats;
    CHECK_OK(vkml_batcher_create(
                 s, &(vkml_batcher_params){.timeout_us = VKML_BATCHER_MAX_TIMEOUT_US}, &b, &err),
             &err);
    double us = one_item(b, 5, what);
    CHECK(us < 500000, "%s: a lone item waited %.0f us on an idle session", what, us);
    vkml_batcher_get_stats(b, &stats);
    CHECK(stats.items == 1 && stats.batches == 1 && stats.full == 0,
          "%s: a single item: %llu items, %llu batches, %llu full", what,
          (unsigned long long)stats.items, (unsigned long long)stats.batches,
          (unsigned long long)stats.full);
    vkml_batcher_destroy(&b);

    /* items 1 and 2, 200 ms apart, behind a held batch: one batch with a 1 s timeout,
     * two with a 20 ms one */
    uint64_t long_wait = batches_behind_held(s, VKML_BATCHER_MAX_TIMEOUT_US, 2, 200, what);
    uint64_t short_wait = batches_behind_held(s, 20000, 2, 200, what);
    CHECK(long_wait == 2 && short_wait == 3,
          "%s: behind a running batch, %llu batches with a 1 s timeout (want 2), %llu with "
          "20 ms (want 3)",
          what, (unsigned long long)long_wait, (unsigned long long)short_wait);

    CHECK_OK(vkml_batcher_create(
                 s, &(vkml_batcher_params){.timeout_us = VKML_BATCHER_MAX_TIMEOUT_US}, &b, &err),
             &err);
    if (!b)
        return;
    vkml_run *held_run = NULL, *runs[N] = {0};
    held = true;
    submit_item(b, 2, 0, hold_callback, &held_run);
    sleep_ms(20);
    for (int i = 0; i < N; i++) /* behind the held one: these fill one batch */
        submit_item(b, 1, i, NULL, &runs[i]);
    release_held();
    CHECK_OK(vkml_run_wait(&held_run, &err), &err);
    for (int i = 0; i < N; i++)
        if (runs[i])
            CHECK_OK(vkml_run_wait(&runs[i], &err), &err);
    for (int i = 0; i < N; i++)
        check_item(1, i, what);
    vkml_batcher_get_stats(b, &stats);
    CHECK(stats.items == N + 1 && stats.batches == 2 && stats.full == 1,
          "%s: one full batch behind a held one: %llu items, %llu batches, %llu full", what,
          (unsigned long long)stats.items, (unsigned long long)stats.batches,
          (unsigned long long)stats.full);
    vkml_batcher_destroy(&b);
}

static void expect_refused(vkml_batcher *b, vkml_tensor *in, size_t n_in, vkml_tensor *out,
                           size_t n_out, const char *needle, const char *what)
{
    vkml_error err = {0};
    vkml_run *run = (vkml_run *)&err; /* must come back NULL */
    vkml_status st = vkml_batcher_submit(b, in, n_in, out, n_out, NULL, NULL, &run, &err);
    CHECK(st == VKML_ERROR_INVALID_ARGUMENT && run == NULL && strstr(err.message, needle),
          "%s: expected a refusal naming \"%s\": %s (%s)", what, needle, vkml_status_name(st),
          err.message);
}

/* (3): bad items are refused, naming the input or output and the problem. */
static void test_bad_items(vkml_session *s, const char *what)
{
    vkml_error err = {0};
    vkml_batcher *b = NULL;
    CHECK(vkml_batcher_create(s, &(vkml_batcher_params){.timeout_us = -1}, &b, &err) ==
                  VKML_ERROR_INVALID_ARGUMENT &&
              b == NULL && strstr(err.message, "timeout_us"),
          "%s: negative timeout: %s", what, err.message);
    CHECK_OK(vkml_batcher_create(s, NULL, &b, &err), &err);
    if (!b)
        return;
    CHECK(vkml_batcher_batch_size(b) == N, "%s: N %d", what, vkml_batcher_batch_size(b));
    const vkml_tensor_info *x = vkml_batcher_input(b, 0), *sc = vkml_batcher_input(b, 1);
    const vkml_tensor_info *y = vkml_batcher_output(b, 0), *z = vkml_batcher_output(b, 1);
    CHECK(x && x->rank == 2 && x->dims[0] == 1 && x->dims[1] == WIDTH && sc && sc->rank == 0 && y &&
              y->dims[0] == 1 && z && z->rank == 0 && !vkml_batcher_input(b, 2) &&
              !vkml_batcher_output(b, 2),
          "%s: item shapes", what);
    float small[WIDTH - 1], out_y[WIDTH], out_z;
    vkml_tensor in[2] = {tensor(inputs[0][0], 2), tensor(&scale, 0)};
    vkml_tensor out[2] = {tensor(out_y, 2), tensor(&out_z, 0)};
    in[0].dtype = VKML_DTYPE_INT32;
    expect_refused(b, in, 2, out, 2, "input 0 ('X'): dtype int32, expected float", what);
    in[0] = tensor(small, 2);
    in[0].size = sizeof(small);
    expect_refused(b, in, 2, out, 2, "input 0 ('X'): 124 bytes given, 128 needed", what);
    in[0] = tensor(inputs[0][0], 2);
    out[1].size = 0;
    expect_refused(b, in, 2, out, 2, "output 1 ('Z'): 0 bytes given, 4 needed", what);
    out[1] = tensor(&out_z, 0);
    expect_refused(b, in, 1, out, 2, "1 inputs and 2 outputs given, the session has 2 and 2", what);
    expect_refused(b, in, 2, out, 3, "2 inputs and 3 outputs given", what);
    vkml_batcher_stats stats;
    vkml_batcher_get_stats(b, &stats);
    CHECK(stats.items == 0 && stats.batches == 0, "%s: refused items counted", what);
    vkml_batcher_destroy(&b);
    vkml_batcher_destroy(&b); /* a pointer to NULL */
}

/* (6): destroy with a partial batch waiting on a long timeout submits it; every item
 * completes with its outputs. */
static void test_destroy_pending(vkml_session *s, const char *what)
{
    vkml_error err = {0};
    vkml_batcher *b = NULL;
    vkml_batcher_params params = {.timeout_us = VKML_BATCHER_MAX_TIMEOUT_US};
    CHECK_OK(vkml_batcher_create(s, &params, &b, &err), &err);
    thread_log log = {0};
    item_tag tags[N - 1];
    vkml_tensor ins[N - 1][2], outs[N - 1][2];
    memset(got[2], 0, sizeof(got[2]));
    for (int i = 0; b && i < N - 1; i++) {
        ins[i][0] = tensor(inputs[2][i], 2);
        ins[i][1] = tensor(&scale, 0);
        outs[i][0] = tensor(got[2][i], 2);
        outs[i][1] = tensor(&got_z[2][i], 0);
        tags[i] = (item_tag){.log = &log, .index = i};
        CHECK_OK(vkml_batcher_submit(b, ins[i], 2, outs[i], 2, on_item, &tags[i], NULL, &err),
                 &err);
    }
    vkml_batcher_destroy(&b);
    CHECK(log.count == N - 1 && log.failures == 0, "%s: %d of %d pending items completed", what,
          log.count, N - 1);
    for (int i = 0; i < N - 1; i++)
        check_item(2, i, what);
}

/* (4): a data-dependent output is refused at N 4 (naming it), passed whole at N 1. */
static void test_data_dependent(vkml_context *ctx, int device, const char *what)
{
    vkml_model *model = make_nonzero_model();
    vkml_error err = {0};
    vkml_session *s = NULL;
    vkml_batcher *b = NULL;
    vkml_session_params params = {.device = device, .symbolic_dim_value = N};
    CHECK_OK(vkml_session_create(ctx, model, &params, &s, &err), &err);
    vkml_status st = vkml_batcher_create(s, NULL, &b, &err);
    CHECK(st == VKML_ERROR_UNSUPPORTED && b == NULL && strstr(err.message, "output 'NZ'"),
          "%s: NonZero at N 4: %s (%s)", what, vkml_status_name(st), err.message);
    vkml_session_destroy(&s);
    params.symbolic_dim_value = 1;
    CHECK_OK(vkml_session_create(ctx, model, &params, &s, &err), &err);
    CHECK_OK(vkml_batcher_create(s, NULL, &b, &err), &err);
    float x[5] = {0, 1, 0, 2, 3};
    int64_t nz[10] = {0};
    vkml_tensor in = {
        .dtype = VKML_DTYPE_FLOAT, .rank = 1, .dims = {5}, .data = x, .size = sizeof(x)};
    vkml_tensor out = {
        .dtype = VKML_DTYPE_INT64, .rank = 2, .dims = {2, 5}, .data = nz, .size = sizeof(nz)};
    vkml_run *run = NULL;
    CHECK_OK(vkml_batcher_submit(b, &in, 1, &out, 1, NULL, NULL, &run, &err), &err);
    if (run)
        CHECK_OK(vkml_run_wait(&run, &err), &err);
    static const int64_t want[6] = {0, 0, 0, 1, 3, 4};
    CHECK(out.rank == 2 && out.dims[0] == 2 && out.dims[1] == 3 &&
              memcmp(nz, want, sizeof(want)) == 0,
          "%s: NonZero at N 1: dims [%lld, %lld]", what, (long long)out.dims[0],
          (long long)out.dims[1]);
    vkml_batcher_destroy(&b);
    vkml_session_destroy(&s);
    vkml_model_destroy(&model);
}

static void test_device(vkml_context *ctx, vkml_model *model, int device)
{
    char what[64];
    snprintf(what, sizeof(what), "device %d", device);
    compute_expected(ctx, model, device);
    vkml_error err = {0};
    vkml_session *s = NULL;
    vkml_session_params params = {.device = device, .symbolic_dim_value = N, .runs_in_flight = 2};
    CHECK_OK(vkml_session_create(ctx, model, &params, &s, &err), &err);
    if (!s)
        return;
    test_threads(s, what);
    test_partial(s, what);
    test_bad_items(s, what);
    test_destroy_pending(s, what);
    vkml_session_destroy(&s);
    test_data_dependent(ctx, device, what);
}

int main(void)
{
    uint64_t seed = 17;
    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < ITEMS; i++)
            for (int k = 0; k < WIDTH; k++)
                inputs[t][i][k] = test_randf(&seed, -1, 1);
    vkml_model *model = make_model();
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    vkml_batcher *b = NULL;
    CHECK(vkml_batcher_create(NULL, NULL, &b, &err) == VKML_ERROR_INVALID_ARGUMENT,
          "a NULL session");
    TEST_FOR_EACH_DEVICE(t, ctx)
        test_device(ctx, model, t.device);
    vkml_context_destroy(&ctx);
    vkml_model_destroy(&model);
    return test_finish("batcher");
}
