/* The scheduler runs every task exactly once, after all its predecessors, on random DAGs,
 * many times over and from several threads at once; a failure skips the descendants of the
 * failing task and is reported. With streams (simulated GPU queues), a task is submitted
 * once its same-stream predecessors are submitted and its other predecessors complete, the
 * host waits only for tasks with a successor on another stream (or none), and every task
 * has completed when the run returns. sched_parallel_for covers every index once, on no
 * more threads than the caller's limit (sched_limit_threads) and the cores. */
#include "sched/sched.h"
#include "testutil.h"

#include <pthread.h>

#define N_TASKS 40
#define RUNS 300

typedef struct dag {
    int n_preds[N_TASKS];
    int preds_store[N_TASKS][N_TASKS];
    const int *preds[N_TASKS];
    atomic_int clock;                /* global order stamp */
    atomic_int finished_at[N_TASKS]; /* stamp when the task ran, 0 = not run */
    atomic_int runs[N_TASKS];
    int fail_task; /* -1: none */
} dag;

static vkml_status task_fn(void *ctx, int t, uint64_t *done, vkml_error *err)
{
    dag *d = ctx;
    *done = 0;
    /* Every predecessor must have finished already. */
    for (int p = 0; p < d->n_preds[t]; p++)
        if (atomic_load(&d->finished_at[d->preds[t][p]]) == 0)
            return vkml_fail(err, VKML_ERROR_DEVICE, "task %d ran before predecessor %d", t,
                             d->preds[t][p]);
    atomic_fetch_add(&d->runs[t], 1);
    atomic_store(&d->finished_at[t], atomic_fetch_add(&d->clock, 1) + 1);
    if (t == d->fail_task)
        return vkml_fail(err, VKML_ERROR_DEVICE_LOST, "task %d failed on purpose", t);
    return VKML_OK;
}

static void make_dag(dag *d, uint64_t seed)
{
    memset(d, 0, sizeof(*d));
    d->fail_task = -1;
    for (int t = 0; t < N_TASKS; t++) {
        d->preds[t] = d->preds_store[t];
        for (int p = 0; p < t; p++)
            if (test_randf(&seed, 0, 1) < 0.12f)
                d->preds_store[t][d->n_preds[t]++] = p;
    }
}

static void reset(dag *d)
{
    atomic_store(&d->clock, 0);
    for (int t = 0; t < N_TASKS; t++) {
        atomic_store(&d->finished_at[t], 0);
        atomic_store(&d->runs[t], 0);
    }
}

static int descends_from(const dag *d, int t, int ancestor)
{
    if (t == ancestor)
        return 1;
    for (int p = 0; p < d->n_preds[t]; p++)
        if (descends_from(d, d->preds[t][p], ancestor))
            return 1;
    return 0;
}

static void *run_many(void *arg)
{
    uint64_t seed = (uint64_t)(uintptr_t)arg;
    dag *d = malloc(sizeof(dag));
    make_dag(d, seed);
    sched_graph *g = NULL;
    vkml_error err = {0};
    sched_graph_desc desc = {
        .n_tasks = N_TASKS, .preds = d->preds, .n_preds = d->n_preds, .submit = task_fn, .ctx = d};
    CHECK_OK(sched_graph_create(&desc, &g, &err), &err);
    for (int r = 0; g && r < RUNS; r++) {
        reset(d);
        CHECK_OK(sched_graph_run(g, &err), &err);
        for (int t = 0; t < N_TASKS; t++)
            CHECK(atomic_load(&d->runs[t]) == 1, "run %d: task %d ran %d times", r, t,
                  atomic_load(&d->runs[t]));
    }
    sched_graph_destroy(&g);
    free(d);
    return NULL;
}

static void test_failure_skips_descendants(void)
{
    dag *d = malloc(sizeof(dag));
    make_dag(d, 99);
    d->fail_task = 5;
    sched_graph *g = NULL;
    vkml_error err = {0};
    sched_graph_desc desc = {
        .n_tasks = N_TASKS, .preds = d->preds, .n_preds = d->n_preds, .submit = task_fn, .ctx = d};
    CHECK_OK(sched_graph_create(&desc, &g, &err), &err);
    for (int r = 0; g && r < 50; r++) {
        reset(d);
        vkml_status st = sched_graph_run(g, &err);
        CHECK(st == VKML_ERROR_DEVICE_LOST, "run %d: status %s", r, vkml_status_name(st));
        CHECK(strstr(err.message, "task 5 failed") != NULL, "message: %s", err.message);
        for (int t = 6; t < N_TASKS; t++)
            if (descends_from(d, t, 5))
                CHECK(atomic_load(&d->runs[t]) == 0, "descendant %d of the failed task ran", t);
    }
    /* The graph is reusable after a failure. */
    d->fail_task = -1;
    reset(d);
    CHECK_OK(sched_graph_run(g, &err), &err);
    for (int t = 0; t < N_TASKS; t++)
        CHECK(atomic_load(&d->runs[t]) == 1, "after failure: task %d ran %d times", t,
              atomic_load(&d->runs[t]));
    sched_graph_destroy(&g);
    free(d);
}

/* Simulated streams: 2 queues (streams 0, 1) and synchronous tasks (-1). A queue's tasks
 * complete in submission order, and only when the host waits for them (the wait marks
 * every value up to the one waited for complete). */
#define N_STREAMS 2
typedef struct stream_dag {
    dag d;
    int stream[N_TASKS];
    bool must_wait[N_TASKS]; /* a successor on another stream, or none */
    pthread_mutex_t mu;      /* the simulated queues */
    uint64_t submitted[N_STREAMS], completed[N_STREAMS];
    uint64_t value[N_TASKS]; /* under mu: the task's value this run, 0 before submit */
    atomic_int bad_waits;    /* waits for a task whose successors are all in its queue */
} stream_dag;

static bool task_complete(stream_dag *sd, int t)
{
    return sd->stream[t] < 0 ? sd->value[t] != 0 : sd->completed[sd->stream[t]] >= sd->value[t];
}

static vkml_status stream_submit(void *ctx, int t, uint64_t *done, vkml_error *err)
{
    stream_dag *sd = ctx;
    int s = sd->stream[t];
    vkml_status st = VKML_OK;
    pthread_mutex_lock(&sd->mu);
    for (int p = 0; p < sd->d.n_preds[t] && st == VKML_OK; p++) {
        int pred = sd->d.preds[t][p];
        bool ready = sd->value[pred] != 0 &&
                     (s >= 0 && sd->stream[pred] == s ? true : task_complete(sd, pred));
        if (!ready)
            st = vkml_fail(err, VKML_ERROR_DEVICE, "task %d submitted before predecessor %d was %s",
                           t, pred, sd->value[pred] ? "complete" : "submitted");
    }
    *done = 0;
    if (st == VKML_OK)
        sd->value[t] = s < 0 ? 1 : (*done = ++sd->submitted[s]);
    pthread_mutex_unlock(&sd->mu);
    if (st == VKML_OK)
        atomic_fetch_add(&sd->d.runs[t], 1);
    return st;
}

static vkml_status stream_wait(void *ctx, int t, uint64_t done, vkml_error *err)
{
    stream_dag *sd = ctx;
    (void)err;
    if (!sd->must_wait[t])
        atomic_fetch_add(&sd->bad_waits, 1);
    pthread_mutex_lock(&sd->mu);
    int s = sd->stream[t];
    if (s >= 0 && sd->completed[s] < done)
        sd->completed[s] = done;
    pthread_mutex_unlock(&sd->mu);
    return VKML_OK;
}

static void test_streams(uint64_t seed)
{
    stream_dag *sd = calloc(1, sizeof(*sd));
    make_dag(&sd->d, seed);
    pthread_mutex_init(&sd->mu, NULL);
    for (int t = 0; t < N_TASKS; t++) {
        sd->stream[t] = (int)(test_randf(&seed, 0, 1) * 3.0f) - 1;
        sd->stream[t] = sd->stream[t] > 1 ? 1 : sd->stream[t];
    }
    int n_succ[N_TASKS] = {0};
    for (int t = 0; t < N_TASKS; t++)
        for (int p = 0; p < sd->d.n_preds[t]; p++) {
            int pred = sd->d.preds[t][p];
            n_succ[pred]++;
            sd->must_wait[pred] |= sd->stream[pred] < 0 || sd->stream[pred] != sd->stream[t];
        }
    for (int t = 0; t < N_TASKS; t++)
        sd->must_wait[t] |= n_succ[t] == 0;
    sched_graph *g = NULL;
    vkml_error err = {0};
    sched_graph_desc desc = {.n_tasks = N_TASKS,
                             .preds = sd->d.preds,
                             .n_preds = sd->d.n_preds,
                             .streams = sd->stream,
                             .submit = stream_submit,
                             .wait = stream_wait,
                             .ctx = sd};
    CHECK_OK(sched_graph_create(&desc, &g, &err), &err);
    for (int r = 0; g && r < 200; r++) {
        reset(&sd->d);
        memset(sd->value, 0, sizeof(sd->value));
        CHECK_OK(sched_graph_run(g, &err), &err);
        for (int t = 0; t < N_TASKS; t++) {
            CHECK(atomic_load(&sd->d.runs[t]) == 1, "streams run %d: task %d ran %d times", r, t,
                  atomic_load(&sd->d.runs[t]));
            CHECK(task_complete(sd, t),
                  "streams run %d: task %d (stream %d) not complete at "
                  "the end",
                  r, t, sd->stream[t]);
        }
    }
    CHECK(atomic_load(&sd->bad_waits) == 0,
          "%d host waits for tasks whose successors are all "
          "in their own queue",
          atomic_load(&sd->bad_waits));
    sched_graph_destroy(&g);
    pthread_mutex_destroy(&sd->mu);
    free(sd);
}

static atomic_int pool_jobs_done;
static void count_job(void *arg)
{
    (void)arg;
    atomic_fetch_add(&pool_jobs_done, 1);
}

#define PF_COUNT 64
#define PF_MAX_THREADS 64

typedef struct pf_record {
    pthread_mutex_t mu;
    pthread_t seen[PF_MAX_THREADS];
    int n_seen;
    atomic_int hits[PF_COUNT];
} pf_record;

static void pf_range(void *ctx, int64_t begin, int64_t end)
{
    pf_record *r = ctx;
    pthread_t self = pthread_self();
    pthread_mutex_lock(&r->mu);
    bool known = false;
    for (int i = 0; i < r->n_seen; i++)
        known |= pthread_equal(r->seen[i], self) != 0;
    if (!known && r->n_seen < PF_MAX_THREADS)
        r->seen[r->n_seen++] = self;
    pthread_mutex_unlock(&r->mu);
    for (int64_t i = begin; i < end; i++)
        atomic_fetch_add(&r->hits[i], 1);
    struct timespec ts = {0, 200000}; /* long enough that idle helpers take ranges */
    nanosleep(&ts, NULL);
}

/* Threads a large parallel_for ran on under the limit (0: none); every index once. */
static int pf_threads(int limit)
{
    pf_record r = {.n_seen = 0};
    pthread_mutex_init(&r.mu, NULL);
    int was = sched_limit_threads(limit);
    sched_parallel_for(PF_COUNT, 1e9, pf_range, &r);
    CHECK(sched_limit_threads(was) == limit, "the limit read back is not %d", limit);
    for (int i = 0; i < PF_COUNT; i++)
        CHECK(atomic_load(&r.hits[i]) == 1, "limit %d: index %d ran %d times", limit, i,
              atomic_load(&r.hits[i]));
    pthread_mutex_destroy(&r.mu);
    return r.n_seen;
}

static void test_thread_limit(void)
{
    int cores = sched_core_count();
    CHECK(sched_thread_count() >= 1 && sched_thread_count() <= cores,
          "sched_thread_count %d outside 1..%d cores", sched_thread_count(), cores);
    CHECK(pf_threads(1) == 1, "a limit of 1 ran on more than the caller");
    int two = pf_threads(2);
    CHECK(two >= 1 && two <= 2, "a limit of 2 ran on %d threads", two);
    int all = pf_threads(0);
    CHECK(all >= 1 && all <= cores, "no limit ran on %d threads of %d cores", all, cores);
    sched_limit_threads(1);
    CHECK(sched_thread_count() == 1, "sched_thread_count %d under a limit of 1",
          sched_thread_count());
    sched_limit_threads(0);
}

int main(void)
{
    CHECK(sched_pool_threads() >= 1, "no worker threads");
    /* More jobs than queue slots: the overflow runs on the submitter, none is lost. */
    for (int i = 0; i < 5000; i++)
        sched_pool_submit(count_job, NULL);
    for (int spin = 0; spin < 2000 && atomic_load(&pool_jobs_done) < 5000; spin++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    CHECK(atomic_load(&pool_jobs_done) == 5000, "%d of 5000 pool jobs ran",
          atomic_load(&pool_jobs_done));

    run_many((void *)(uintptr_t)1234);
    pthread_t threads[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&threads[i], NULL, run_many, (void *)(uintptr_t)(77 + i));
    for (int i = 0; i < 4; i++)
        pthread_join(threads[i], NULL);
    test_failure_skips_descendants();
    test_thread_limit();
    for (uint64_t seed = 1; seed <= 8; seed++)
        test_streams(seed * 7919);
    return test_finish("test_sched");
}
