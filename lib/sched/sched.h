#pragma once
/*
 * Event-driven task graph execution. A graph's tasks (a session's chunks) each hold an
 * atomic count of unfinished predecessors; whichever thread takes a count to zero submits
 * that task (the first ready successor on the same thread, the others through the
 * process-wide worker pool). There is no coordinator thread and no lock on the way from
 * one task to the next.
 *
 * Submission is separate from completion. A task's submit returns a completion value (0:
 * already complete, as on the CPU). Tasks on one stream (one GPU queue) complete in the
 * order they were submitted and see each other's writes (the queue's order and the
 * barriers recorded in them), so a successor on the same stream as its predecessor is
 * released as soon as the predecessor is submitted: it waits in the queue, not on the
 * host. A successor on another stream (another device, the CPU) is released after a host
 * wait on the predecessor's value, by the thread that submitted it or, when that thread
 * goes on submitting, by a pool job. Every task without successors is waited for before
 * the run returns, which (queue order, host waits on every other edge) covers them all.
 *
 * Concurrency table:
 *   sched_graph_create / sched_graph_destroy: one thread, no run in progress.
 *   sched_graph_run: one run per graph at a time (a session serialises its runs); the
 *     tasks of that run are submitted and waited for on the caller and on pool threads
 *     concurrently; one task's submit and wait never overlap each other.
 *   sched_pool_submit: any thread, any time.
 */
#include "core/common.h"

#include <stdatomic.h>

/* Starts task `task`; *done receives its completion value on its stream (0: complete on
 * return). A failure fills err and skips the task's descendants. */
typedef vkml_status (*sched_submit_fn)(void *ctx, int task, uint64_t *done, vkml_error *err);
/* Blocks until task `task`'s completion value `done` (non-zero) has been reached. */
typedef vkml_status (*sched_wait_fn)(void *ctx, int task, uint64_t done, vkml_error *err);

typedef struct sched_graph_desc {
    int n_tasks;
    const int *const *preds; /* preds[t]: the tasks t waits for (indices < n_tasks, no cycles) */
    const int *n_preds;
    /* NULL, or per task its stream: tasks of one stream >= 0 complete in submission order
     * and see each other's writes; -1: a task that completes before submit returns. */
    const int *streams;
    sched_submit_fn submit;
    sched_wait_fn wait; /* may be NULL when every submit completes synchronously */
    void *ctx;
} sched_graph_desc;

typedef struct sched_graph sched_graph;

vkml_status sched_graph_create(const sched_graph_desc *desc, sched_graph **out, vkml_error *err);
void sched_graph_destroy(sched_graph **g);
/* Runs every task once, in dependency order, and returns when all have completed. With a
 * single task it submits and waits on the caller's thread. Returns the first failure; a
 * failed run still waits for what it submitted. */
vkml_status sched_graph_run(sched_graph *g, vkml_error *err);

/* The process-wide worker pool (sched/workers.c). */
typedef void (*sched_job_fn)(void *arg);
/* Queues fn(arg) on a worker thread; runs it on the caller when the queue is full or no
 * worker thread could be started. */
void sched_pool_submit(sched_job_fn fn, void *arg);
/* Number of worker threads (started on first use). */
int sched_pool_threads(void);

/* Parallel for on the worker pool (sched/parallel.c). */
/* Runs fn(ctx, begin, end) over [0, count) split into ranges, on several threads when
 * the work (count * cost_per_item, in rough flops) is large enough to pay for it. Returns
 * after every range has run. fn must not fail. */
typedef void (*sched_range_fn)(void *ctx, int64_t begin, int64_t end);
void sched_parallel_for(int64_t count, double cost_per_item, sched_range_fn fn, void *ctx);
/* Threads sched_parallel_for may use on the calling thread (the caller included): the
 * cores this process could run on when it first asked, or the calling thread's limit when
 * it has one. */
int sched_thread_count(void);
/* Limits the calling thread's sched_parallel_for to n threads (the caller included; 0: no
 * limit) and returns the limit it had. The CPU device runs a session's nodes under its
 * cpu_threads. */
int sched_limit_threads(int n);
/* The cores this process may run on (its CPU affinity), at least 1. */
int sched_core_count(void);
