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
    struct sched_graph *graph; /* back pointer: the pool job's argument is the task */
    int index;
} sched_task;

struct sched_graph {
    int n_tasks;
    sched_task *tasks;
    int *roots;
    int n_roots;
    sched_task_fn fn;
    void *ctx;
    /* Per-run state. */
    _Alignas(64) atomic_int remaining; /* tasks not finished yet in this run */
    atomic_int failed;                 /* 1 once a task failed: later tasks are skipped */
    vkml_status first_status;          /* written only by the thread that set failed */
    vkml_error first_error;
    sem_t done;                        /* posted by the thread finishing the last task */
};

vkml_status sched_graph_create(int n_tasks, const int *const *preds, const int *n_preds,
                               sched_task_fn fn, void *ctx, sched_graph **out, vkml_error *err)
{
    sched_graph *g = calloc(1, sizeof(*g));
    if (!g)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory creating the scheduler");
    g->n_tasks = n_tasks;
    g->fn = fn;
    g->ctx = ctx;
    g->tasks = aligned_alloc(64, sizeof(sched_task) * ((size_t)n_tasks + 1));
    g->roots = calloc((size_t)n_tasks + 1, sizeof(int));
    int *succ_count = calloc((size_t)n_tasks + 1, sizeof(int));
    bool ok = g->tasks && g->roots && succ_count && sem_init(&g->done, 0, 0) == 0;
    if (ok) {
        memset(g->tasks, 0, sizeof(sched_task) * (size_t)n_tasks);
        for (int t = 0; t < n_tasks; t++) {
            g->tasks[t].graph = g;
            g->tasks[t].index = t;
            g->tasks[t].n_preds = n_preds[t];
            if (n_preds[t] == 0)
                g->roots[g->n_roots++] = t;
            for (int p = 0; p < n_preds[t]; p++)
                succ_count[preds[t][p]]++;
        }
        for (int t = 0; t < n_tasks && ok; t++) {
            g->tasks[t].succ = calloc((size_t)succ_count[t] + 1, sizeof(int));
            ok = g->tasks[t].succ != NULL;
        }
        for (int t = 0; t < n_tasks && ok; t++) {
            for (int p = 0; p < n_preds[t]; p++) {
                sched_task *pred = &g->tasks[preds[t][p]];
                pred->succ[pred->n_succ++] = t;
            }
        }
    }
    free(succ_count);
    if (!ok) {
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

static void run_task_job(void *arg);

static void run_one(sched_graph *g, int t)
{
    /* Acquire pairs with the release CAS below: a task that sees failed skips its work. */
    if (atomic_load_explicit(&g->failed, memory_order_acquire))
        return;
    vkml_error local = {0};
    vkml_status st = g->fn(g->ctx, t, &local);
    if (st == VKML_OK)
        return;
    int expected = 0;
    /* Only the first failing task records its error; the caller reads it after the
     * done semaphore, which orders it (sem_post/sem_wait synchronise memory). */
    if (atomic_compare_exchange_strong_explicit(&g->failed, &expected, 1,
                                                memory_order_acq_rel, memory_order_relaxed)) {
        g->first_status = st;
        g->first_error = local;
    }
}

/* Runs task t, then keeps going with the first successor it made ready; the other ready
 * successors go to the pool. */
static void run_chain(sched_graph *g, int t)
{
    while (t >= 0) {
        run_one(g, t);
        int next = -1;
        const sched_task *task = &g->tasks[t];
        for (int s = 0; s < task->n_succ; s++) {
            sched_task *succ = &g->tasks[task->succ[s]];
            /* acq_rel: release publishes this task's results (device writes are complete:
             * run_chunk returns after the work finished) to whoever takes the count to
             * zero; acquire makes the other predecessors' results visible to us. */
            if (atomic_fetch_sub_explicit(&succ->pending, 1, memory_order_acq_rel) == 1) {
                if (next < 0)
                    next = succ->index;
                else
                    sched_pool_submit(run_task_job, succ);
            }
        }
        /* acq_rel: the last finisher sees every task's writes (release sequence on
         * remaining) before it posts done. */
        if (atomic_fetch_sub_explicit(&g->remaining, 1, memory_order_acq_rel) == 1)
            sem_post(&g->done);
        t = next;
    }
}

static void run_task_job(void *arg)
{
    sched_task *task = arg;
    run_chain(task->graph, task->index);
}

vkml_status sched_graph_run(sched_graph *g, vkml_error *err)
{
    if (g->n_tasks == 0)
        return VKML_OK;
    if (g->n_tasks == 1) {
        vkml_status st = g->fn(g->ctx, 0, err);
        return st;
    }
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
        if (err)
            *err = g->first_error;
        return g->first_status;
    }
    return VKML_OK;
}
