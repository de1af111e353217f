/* The scheduler runs every task exactly once, after all its predecessors, on random DAGs,
 * many times over and from several threads at once; a failure skips the descendants of the
 * failing task and is reported. */
#include "sched/sched.h"
#include "testutil.h"

#include <pthread.h>

#define N_TASKS 40
#define RUNS 300

typedef struct dag {
    int n_preds[N_TASKS];
    int preds_store[N_TASKS][N_TASKS];
    const int *preds[N_TASKS];
    atomic_int clock;               /* global order stamp */
    atomic_int finished_at[N_TASKS]; /* stamp when the task ran, 0 = not run */
    atomic_int runs[N_TASKS];
    int fail_task;                  /* -1: none */
} dag;

static vkml_status task_fn(void *ctx, int t, vkml_error *err)
{
    dag *d = ctx;
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
    CHECK_OK(sched_graph_create(N_TASKS, d->preds, d->n_preds, task_fn, d, &g, &err), &err);
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
    CHECK_OK(sched_graph_create(N_TASKS, d->preds, d->n_preds, task_fn, d, &g, &err), &err);
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

static atomic_int pool_jobs_done;
static void count_job(void *arg)
{
    (void)arg;
    atomic_fetch_add(&pool_jobs_done, 1);
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
    return test_finish("test_sched");
}
