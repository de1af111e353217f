#pragma once
/*
 * Event-driven task graph execution. A graph's tasks (a session's chunks) each hold an
 * atomic count of unfinished predecessors; a finishing task decrements its successors'
 * counts, and whichever thread takes a count to zero runs that task (the first ready
 * successor on the same thread, the others through the process-wide worker pool). There
 * is no coordinator thread and no lock on the way from one task to the next.
 *
 * Concurrency table:
 *   sched_graph_create / sched_graph_destroy: one thread, no run in progress.
 *   sched_graph_run: one run per graph at a time (a session serialises its runs); the
 *     tasks of that run execute on the caller and on pool threads concurrently.
 *   sched_pool_submit: any thread, any time.
 */
#include "core/common.h"

#include <stdatomic.h>

/* Runs task `task` of a graph; a failure fills err and skips the task's descendants. */
typedef vkml_status (*sched_task_fn)(void *ctx, int task, vkml_error *err);

typedef struct sched_graph sched_graph;

/* preds[t] lists the tasks t waits for (indices < n_tasks, no cycles). */
vkml_status sched_graph_create(int n_tasks, const int *const *preds, const int *n_preds,
                               sched_task_fn fn, void *ctx, sched_graph **out, vkml_error *err);
void sched_graph_destroy(sched_graph **g);
/* Runs every task once, in dependency order, and returns when all have finished. With a
 * single task it runs inline on the caller's thread. Returns the first failure. */
vkml_status sched_graph_run(sched_graph *g, vkml_error *err);

/* The process-wide worker pool (sched/pool.c). */
typedef void (*sched_job_fn)(void *arg);
/* Queues fn(arg) on a worker thread; runs it on the caller when the queue is full or no
 * worker thread could be started. */
void sched_pool_submit(sched_job_fn fn, void *arg);
/* Number of worker threads (started on first use). */
int sched_pool_threads(void);
