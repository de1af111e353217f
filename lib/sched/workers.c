/*
 * The process-wide worker pool: a bounded lock-free multi-producer multi-consumer queue
 * (sequence-numbered slots, after D. Vyukov's design) plus a counting semaphore that
 * sleeping workers wait on. Submitting is one CAS, one release store and a sem_post.
 *
 * Concurrency: pool_push and pool_pop may run on any threads at the same time; workers
 * start once (pthread_once) and live for the life of the process.
 */
#include "sched/sched.h"

#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <unistd.h>

/* Queue capacity in jobs (a power of two). Jobs beyond it run on the submitter. */
#define POOL_QUEUE_SLOTS 1024
/* Upper bound on worker threads; the pool uses one per online CPU up to this. */
#define POOL_MAX_THREADS 16

typedef struct pool_slot {
    atomic_size_t seq; /* == position: free for the push at that position;
                          == position + 1: holds the job of that position */
    sched_job_fn fn;
    void *arg;
} pool_slot;

static struct {
    _Alignas(64) atomic_size_t push_pos;
    _Alignas(64) atomic_size_t pop_pos;
    _Alignas(64) pool_slot slots[POOL_QUEUE_SLOTS];
    sem_t queued; /* one post per pushed job */
    int n_threads;
} pool;

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

static bool pool_push(sched_job_fn fn, void *arg)
{
    size_t pos = atomic_load_explicit(&pool.push_pos, memory_order_relaxed);
    pool_slot *slot;
    for (;;) {
        slot = &pool.slots[pos & (POOL_QUEUE_SLOTS - 1)];
        /* Acquire pairs with the release in pool_pop that frees the slot: the consumer's
         * reads of fn/arg are done before we overwrite them. */
        size_t seq = atomic_load_explicit(&slot->seq, memory_order_acquire);
        intptr_t diff = (intptr_t)seq - (intptr_t)pos;
        if (diff == 0) {
            /* Relaxed: the CAS only claims the position; the slot's contents are
             * published by the release store below. */
            if (atomic_compare_exchange_weak_explicit(&pool.push_pos, &pos, pos + 1,
                                                      memory_order_relaxed, memory_order_relaxed))
                break;
        } else if (diff < 0) {
            return false; /* full */
        } else {
            pos = atomic_load_explicit(&pool.push_pos, memory_order_relaxed);
        }
    }
    slot->fn = fn;
    slot->arg = arg;
    /* Release pairs with the acquire load of seq in pool_pop: publishes fn/arg. */
    atomic_store_explicit(&slot->seq, pos + 1, memory_order_release);
    return true;
}

static bool pool_pop(sched_job_fn *fn, void **arg)
{
    size_t pos = atomic_load_explicit(&pool.pop_pos, memory_order_relaxed);
    pool_slot *slot;
    for (;;) {
        slot = &pool.slots[pos & (POOL_QUEUE_SLOTS - 1)];
        /* Acquire pairs with the release store in pool_push. */
        size_t seq = atomic_load_explicit(&slot->seq, memory_order_acquire);
        intptr_t diff = (intptr_t)seq - (intptr_t)(pos + 1);
        if (diff == 0) {
            if (atomic_compare_exchange_weak_explicit(&pool.pop_pos, &pos, pos + 1,
                                                      memory_order_relaxed, memory_order_relaxed))
                break;
        } else if (diff < 0) {
            return false; /* empty, or the job at pos is not published yet */
        } else {
            pos = atomic_load_explicit(&pool.pop_pos, memory_order_relaxed);
        }
    }
    *fn = slot->fn;
    *arg = slot->arg;
    /* Release pairs with the acquire in pool_push: frees the slot for the next lap. */
    atomic_store_explicit(&slot->seq, pos + POOL_QUEUE_SLOTS, memory_order_release);
    return true;
}

static void *pool_worker(void *unused)
{
    (void)unused;
    for (;;) {
        while (sem_wait(&pool.queued) != 0) {
        }
        /* Our token guarantees a job; a pop can still miss while an earlier-positioned
         * push is between claiming its slot and publishing it. */
        sched_job_fn fn;
        void *arg;
        while (!pool_pop(&fn, &arg))
            sched_yield();
        fn(arg);
    }
    return NULL;
}

static void pool_start(void)
{
    for (size_t i = 0; i < POOL_QUEUE_SLOTS; i++)
        atomic_init(&pool.slots[i].seq, i);
    if (sem_init(&pool.queued, 0, 0) != 0)
        return;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int want = cpus < 1 ? 1 : cpus > POOL_MAX_THREADS ? POOL_MAX_THREADS : (int)cpus;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    for (int i = 0; i < want; i++) {
        pthread_t thread;
        if (pthread_create(&thread, &attr, pool_worker, NULL) != 0)
            break;
        pool.n_threads++;
    }
    pthread_attr_destroy(&attr);
    if (pool.n_threads == 0)
        VKML_LOGW("no worker thread could be started; tasks run on the submitting thread");
}

void sched_pool_submit(sched_job_fn fn, void *arg)
{
    pthread_once(&pool_once, pool_start);
    if (pool.n_threads > 0 && pool_push(fn, arg)) {
        sem_post(&pool.queued);
        return;
    }
    fn(arg);
}

int sched_pool_threads(void)
{
    pthread_once(&pool_once, pool_start);
    return pool.n_threads;
}
