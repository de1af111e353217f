#include "sched/sched.h"

#include <errno.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>

typedef struct sched_task {
    /* Unfinished predecessors in the current run; padded: decremented from many threads. */
    _Alignas(64) atomic_int pending;
    int n_preds;
    int n_succ;
    int *succ;
    int stream;      /* -1: completes on submit */
    bool needs_wait; /* a successor on another stream, or none: the host waits for it */
    uint64_t done;   /* this run's completion value (0: complete or not submitted); written
                        by its submitter before it releases anything, read by the threads
                        that the release hands it to */
    struct sched_graph *graph; /* back pointer: the pool job's argument is the task */
    int index;
} sched_task;

struct sched_graph {
    int n_tasks;
    sched_task *tasks;
    int *roots;
    int n_roots;
    sched_submit_fn submit;
    sched_wait_fn wait;
    void *ctx;
    /* Per-run state. */
    _Alignas(64) atomic_int remaining; /* tasks not retired yet in this run */
    atomic_int failed;                 /* 1 once a task failed: later tasks are skipped */
    vkml_status first_status;          /* written only by the thread that set failed */
    vkml_error first_error;
    sem_t done; /* posted by the thread retiring the last task */
};

/* Tasks on one stream >= 0: the successor may be submitted behind its predecessor. */
static bool in_queue(const sched_task *pred, const sched_task *succ)
{
    return pred->stream >= 0 && pred->stream == succ->stream;
}

static vkml_status link_tasks(sched_graph *g, const sched_graph_desc *d)
{
    int *succ_count = calloc((size_t)d->n_tasks + 1, sizeof(int));
    bool ok = succ_count != NULL;
    memset(g->tasks, 0, sizeof(sched_task) * (size_t)d->n_tasks);
    for (int t = 0; ok && t < d->n_tasks; t++) {
        sched_task *task = &g->tasks[t];
        task->graph = g;
        task->index = t;
        task->n_preds = d->n_preds[t];
        task->stream = d->streams ? d->streams[t] : -1;
        if (d->n_preds[t] == 0)
            g->roots[g->n_roots++] = t;
        for (int p = 0; p < d->n_preds[t]; p++)
            succ_count[d->preds[t][p]]++;
    }
    for (int t = 0; ok && t < d->n_tasks; t++) {
        g->tasks[t].succ = calloc((size_t)succ_count[t] + 1, sizeof(int));
        ok = g->tasks[t].succ != NULL;
        g->tasks[t].needs_wait = succ_count[t] == 0;
    }
    for (int t = 0; ok && t < d->n_tasks; t++) {
        for (int p = 0; p < d->n_preds[t]; p++) {
            sched_task *pred = &g->tasks[d->preds[t][p]];
            pred->succ[pred->n_succ++] = t;
            pred->needs_wait |= !in_queue(pred, &g->tasks[t]);
        }
    }
    free(succ_count);
    return ok ? VKML_OK : VKML_ERROR_OUT_OF_MEMORY;
}

vkml_status sched_graph_create(const sched_graph_desc *desc, sched_graph **out, vkml_error *err)
{
    sched_graph *g = calloc(1, sizeof(*g));
    if (!g)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory creating the scheduler");
    g->n_tasks = desc->n_tasks;
    g->submit = desc->submit;
    g->wait = desc->wait;
    g->ctx = desc->ctx;
    g->tasks = aligned_alloc(64, sizeof(sched_task) * ((size_t)desc->n_tasks + 1));
    g->roots = calloc((size_t)desc->n_tasks + 1, sizeof(int));
    bool ok = g->tasks && g->roots && sem_init(&g->done, 0, 0) == 0;
    if (!ok || link_tasks(g, desc) != VKML_OK) {
        if (!ok) { /* nothing linked: no successor arrays to free */
            free(g->tasks);
            g->tasks = NULL;
        }
        sched_graph_destroy(&g);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory creating the scheduler");
    }
    *out = g;
    return VKML_OK;
}

void sched_graph_destroy(sched_graph **gp)
{
    if (!gp || !*gp)
        return;
    sched_graph *g = *gp;
    if (g->tasks) {
        for (int t = 0; t < g->n_tasks; t++)
            free(g->tasks[t].succ);
        sem_destroy(&g->done);
    }
    free(g->tasks);
    free(g->roots);
    free(g);
    *gp = NULL;
}

static void record_failure(sched_graph *g, vkml_status st, const vkml_error *local)
{
    int expected = 0;
    /* Only the first failing task records its error; the caller reads it after the
     * done semaphore, which orders it (sem_post/sem_wait synchronise memory). */
    if (atomic_compare_exchange_strong_explicit(&g->failed, &expected, 1, memory_order_acq_rel,
                                                memory_order_relaxed)) {
        g->first_status = st;
        g->first_error = *local;
    }
}

static void submit_one(sched_graph *g, sched_task *task)
{
    task->done = 0;
    /* Acquire pairs with the acq_rel CAS in record_failure: a task that sees failed skips
     * its work. */
    if (atomic_load_explicit(&g->failed, memory_order_acquire))
        return;
    vkml_error local = {0};
    vkml_status st = g->submit(g->ctx, task->index, &task->done, &local);
    if (st != VKML_OK) {
        task->done = 0;
        record_failure(g, st, &local);
    }
}

static void run_task_job(void *arg);

/* Decrements the successors of `task` that are (same_stream) or are not in its queue;
 * the first one made ready goes to *next when that is free, the others to the pool. */
static void release(sched_graph *g, const sched_task *task, bool same_stream, int *next)
{
    for (int s = 0; s < task->n_succ; s++) {
        sched_task *succ = &g->tasks[task->succ[s]];
        if (in_queue(task, succ) != same_stream)
            continue;
        /* acq_rel: release publishes this task's submission (and, across streams, its
         * completed results: the host wait came first) to whoever takes the count to zero;
         * acquire makes the other predecessors' submissions and results visible to us. */
        if (atomic_fetch_sub_explicit(&succ->pending, 1, memory_order_acq_rel) == 1) {
            if (*next < 0)
                *next = succ->index;
            else
                sched_pool_submit(run_task_job, succ);
        }
    }
}

static void retire(sched_graph *g)
{
    /* acq_rel: the last retiring thread sees every task's writes (release sequence on
     * remaining) before it posts done. */
    if (atomic_fetch_sub_explicit(&g->remaining, 1, memory_order_acq_rel) == 1)
        sem_post(&g->done);
}

/* Host wait for a submitted task, then its successors on other streams, then retires it. */
static void complete(sched_graph *g, sched_task *task, int *next)
{
    if (task->done) {
        vkml_error local = {0};
        vkml_status st = g->wait(g->ctx, task->index, task->done, &local);
        if (st != VKML_OK)
            record_failure(g, st, &local);
    }
    release(g, task, false, next);
    retire(g);
}

static void wait_task_job(void *arg);

/* Submits task t, releases its same-stream successors and goes on with the first one made
 * ready; the host wait that its other successors need is done here when nothing else is
 * ready to submit, else by a pool job. */
static void run_chain(sched_graph *g, int t)
{
    while (t >= 0) {
        sched_task *task = &g->tasks[t];
        submit_one(g, task);
        int next = -1;
        release(g, task, true, &next);
        if (!task->needs_wait)
            retire(g);
        else if (next >= 0 && task->done)
            sched_pool_submit(wait_task_job, task);
        else
            complete(g, task, &next);
        t = next;
    }
}

/* A pool job: submit a ready task. */
static void run_task_job(void *arg)
{
    sched_task *task = arg;
    run_chain(task->graph, task->index);
}

/* A pool job: wait for a submitted task (its done value is published by the pool queue's
 * release on push), then go on with what that makes ready. */
static void wait_task_job(void *arg)
{
    sched_task *task = arg;
    sched_graph *g = task->graph; /* read first: once complete retires the run's last task,
                                     the caller may destroy the graph */
    int next = -1;
    complete(g, task, &next);
    run_chain(g, next);
}

/* After a failure: waits (errors ignored) for every task submitted in this run, so that
 * nothing of it is still in flight when the caller reuses its memory. */
static void drain_failed_run(sched_graph *g)
{
    for (int t = 0; t < g->n_tasks; t++) {
        vkml_error ignored = {0};
        if (g->tasks[t].done)
            g->wait(g->ctx, t, g->tasks[t].done, &ignored);
    }
}

static vkml_status run_single(sched_graph *g, vkml_error *err)
{
    uint64_t done = 0;
    vkml_status st = g->submit(g->ctx, 0, &done, err);
    if (st == VKML_OK && done)
        st = g->wait(g->ctx, 0, done, err);
    return st;
}

vkml_status sched_graph_run(sched_graph *g, vkml_error *err)
{
    if (g->n_tasks == 0)
        return VKML_OK;
    if (g->n_tasks == 1)
        return run_single(g, err);
    /* Relaxed stores: they are published to the workers by the release in the pool's
     * queue push (sched_pool_submit) and, for the caller's own chain, by program order. */
    for (int t = 0; t < g->n_tasks; t++)
        atomic_store_explicit(&g->tasks[t].pending, g->tasks[t].n_preds, memory_order_relaxed);
    atomic_store_explicit(&g->remaining, g->n_tasks, memory_order_relaxed);
    atomic_store_explicit(&g->failed, 0, memory_order_relaxed);
    g->first_status = VKML_OK;
    for (int r = 1; r < g->n_roots; r++)
        sched_pool_submit(run_task_job, &g->tasks[g->roots[r]]);
    run_chain(g, g->roots[0]);
    while (sem_wait(&g->done) != 0 && errno == EINTR) {
    }
    if (g->first_status != VKML_OK) {
        drain_failed_run(g);
        if (err)
            *err = g->first_error;
        return g->first_status;
    }
    return VKML_OK;
}
