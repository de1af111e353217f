/*
 * sched_parallel_for on the process-wide worker pool (sched/workers.c). The caller and the
 * helpers it submits claim ranges from one atomic counter, so the caller never waits for a
 * helper that has not started (it may be queued behind other work): it only waits for
 * ranges already claimed, which run to completion without blocking. The job lives on the
 * heap with a reference per helper, so a helper that starts late finds no range left and
 * touches nothing but the job.
 *
 * Concurrency: sched_parallel_for may be called from any thread, also from a pool worker.
 */
#include "sched/sched.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

/* Work below this many (rough) flops runs on the calling thread alone: waking workers
 * costs a few microseconds. */
#define SCHED_PARALLEL_MIN_FLOPS 262144.0
/* Ranges per thread: more than one evens out threads that start late. */
#define SCHED_RANGES_PER_THREAD 4

typedef struct parallel_job {
    atomic_int refs;   /* the caller plus one per submitted helper */
    atomic_llong next; /* next range to claim */
    atomic_llong done; /* ranges finished */
    int64_t n_ranges, count;
    sched_range_fn fn;
    void *ctx;
} parallel_job;

static void run_ranges(parallel_job *job)
{
    for (;;) {
        /* Relaxed: the counter only hands out distinct range numbers. */
        int64_t r = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed);
        if (r >= job->n_ranges)
            return;
        job->fn(job->ctx, r * job->count / job->n_ranges, (r + 1) * job->count / job->n_ranges);
        /* Release: this range's writes are visible to the caller once it reads `done`
         * with acquire in sched_parallel_for. */
        atomic_fetch_add_explicit(&job->done, 1, memory_order_release);
    }
}

static void job_unref(parallel_job *job)
{
    /* acq_rel: every holder's last use of the job happens before the free. */
    if (atomic_fetch_sub_explicit(&job->refs, 1, memory_order_acq_rel) == 1)
        free(job);
}

static void helper_main(void *arg)
{
    run_ranges(arg);
    job_unref(arg);
}

int sched_core_count(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (int)n;
}

/* The calling thread's limit (sched_limit_threads), 0 for none. */
static _Thread_local int thread_limit;

int sched_limit_threads(int n)
{
    int was = thread_limit;
    thread_limit = n > 0 ? n : 0;
    return was;
}

/* The process's cores when it first split a loop: read once, not a system call a loop. */
static int first_cores;
static pthread_once_t cores_once = PTHREAD_ONCE_INIT;

static void read_cores(void)
{
    first_cores = sched_core_count();
}

int sched_thread_count(void)
{
    pthread_once(&cores_once, read_cores);
    int threads = first_cores, pool = sched_pool_threads() + 1;
    if (thread_limit > 0 && thread_limit < threads)
        threads = thread_limit;
    return threads < pool ? threads : pool;
}

void sched_parallel_for(int64_t count, double cost_per_item, sched_range_fn fn, void *ctx)
{
    if (count <= 0)
        return;
    double work = (double)count * cost_per_item;
    int helpers = work < SCHED_PARALLEL_MIN_FLOPS || count < 2 ? 0 : sched_thread_count() - 1;
    if (helpers < 1) {
        fn(ctx, 0, count);
        return;
    }
    if (helpers > count - 1)
        helpers = (int)(count - 1);
    parallel_job *job = malloc(sizeof(*job));
    if (!job) {
        fn(ctx, 0, count);
        return;
    }
    int64_t ranges = (int64_t)(helpers + 1) * SCHED_RANGES_PER_THREAD;
    job->n_ranges = ranges < count ? ranges : count;
    job->count = count;
    job->fn = fn;
    job->ctx = ctx;
    atomic_init(&job->refs, helpers + 1);
    atomic_init(&job->next, 0);
    atomic_init(&job->done, 0);
    for (int i = 0; i < helpers; i++)
        sched_pool_submit(helper_main, job);
    run_ranges(job);
    /* Acquire pairs with the release in run_ranges: all ranges' writes are visible. */
    while (atomic_load_explicit(&job->done, memory_order_acquire) < job->n_ranges)
        sched_yield();
    job_unref(job);
}
