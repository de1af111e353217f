/* vkml_batcher: single items from many threads gathered into batches of a session's runs.
 *
 * An item takes the next place (slot) of the forming batch, copies its inputs into that
 * slot of the batch's staging buffers and returns; the batcher's thread submits the batch
 * to the session once every reserved slot is copied, a lane is free, and the batch is full,
 * no other batch is running, or its first item has waited timeout_us. The session calls
 * batcher_batch_done in submission order; it copies each item's slice of the outputs out and
 * completes the items' runs in slot order, so items complete in the order they took their slots.
 *
 * Concurrency table:
 *   vkml_batcher_submit: any number of threads at once. Under `mu` it reserves a slot (and
 *     may wait in line, each waiter on its own condition, woken first come first by
 *     whoever frees a slot: a reservation, a batch taken or returned); it copies its inputs into
 * the slot outside the lock (a slot is written by its item alone, and the batch is not submitted
 * before n_filled reaches n_items), then counts itself filled under `mu`. the batcher thread
 * (batcher_main): waits on `work`; takes the forming batch under `mu`, submits it outside the lock.
 * The session's only caller. batcher_batch_done: on a session lane thread, one batch at a time (the
 * session reports in order); reads the batch's slots outside the lock (no submitter writes a taken
 *     batch), returns the batch under `mu`.
 *   vkml_batcher_get_stats and the info queries: any time (relaxed counters; the infos
 *     are written before the thread starts and never after).
 *   vkml_batcher_destroy: once, after every submitter returned; joins the thread, then
 *     waits on `room` for the batches in flight.
 */
#include "plan/session.h"
#include "sched/sched.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct batcher_slot {
    vkml_run *run;        /* the item's run, completed by batcher_finish_batch */
    vkml_tensor *outputs; /* the caller's output array */
} batcher_slot;

/* A submitter waiting for a slot (on its own stack), woken alone when its turn comes:
 * streams blocked behind a full batch get slots in the order they came, so no stream
 * loses the race for slots again and again (the latency tail under a saturated GPU). */
typedef struct batcher_waiter {
    pthread_cond_t cv;
    struct batcher_waiter *next;
} batcher_waiter;

typedef struct batcher_batch {
    struct batcher_batch *next; /* the free list */
    vkml_batcher *b;
    vkml_tensor *inputs;  /* session-shaped; data: staging buffers (batched: N items) */
    vkml_tensor *outputs; /* session-shaped; data: the batch's own buffers */
    batcher_slot *slots;  /* N */
    /* Under the batcher's mu while the batch forms: */
    int n_items;      /* slots reserved */
    int n_filled;     /* of them, slots whose inputs are copied */
    int64_t first_us; /* monotonic time of the first item */
} batcher_batch;

struct vkml_batcher {
    vkml_session *session;
    int n;     /* N: items per batch */
    int lanes; /* the session's runs in flight */
    int64_t timeout_us;
    vkml_tensor_info *inputs, *outputs; /* an item's */
    size_t n_inputs, n_outputs;
    bool *batched; /* per input, then per output: dim 0 is N */
    size_t *bytes; /* per input, then per output: an item's bytes */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t work; /* batcher thread: a slot filled, a batch returned, closing */
    pthread_cond_t room; /* destroy: a batch returned */
    /* Under mu: */
    batcher_batch *forming;  /* taking items; NULL: none yet */
    batcher_waiter *waiters; /* submitters waiting for a slot, first come first */
    batcher_batch *free_list;
    int n_batches; /* allocated: at most lanes + 1 */
    int in_flight; /* submitted, not yet returned */
    bool closing;
    /* Counters only, read by get_stats; nothing is ordered by them: relaxed. */
    atomic_uint_fast64_t items, batches, full;
};

static int64_t batcher_now_us(void)
{
    return (int64_t)(vkml_now_ns() / 1000);
}

/* ---- creation ---- */

/* An item's info of a session tensor, its bytes, and whether it is batched. */
static vkml_status batcher_item_info(const vkml_batcher *b, const vkml_tensor_info *info,
                                     vkml_tensor_info *item, bool *batched, size_t *bytes,
                                     vkml_error *err)
{
    size_t whole;
    *item = *info;
    *batched = b->n > 1 && info->rank >= 1 && info->dims[0] == b->n;
    if (*batched)
        item->dims[0] = 1;
    if (info->dtype == VKML_DTYPE_STRING)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "vkml_batcher_create: '%s' is a string tensor (not batched)", info->name);
    if (!vkml_tensor_bytes(info->dtype, info->rank, info->dims, &whole) ||
        !vkml_tensor_bytes(item->dtype, item->rank, item->dims, bytes))
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "vkml_batcher_create: '%s' has no fixed size",
                         info->name);
    if (*batched && whole != *bytes * (size_t)b->n)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "vkml_batcher_create: the items of '%s' do not start on whole bytes",
                         info->name);
    return VKML_OK;
}

static vkml_status batcher_infos(vkml_batcher *b, vkml_error *err)
{
    size_t n = b->n_inputs + b->n_outputs;
    b->inputs = calloc(b->n_inputs + 1, sizeof(vkml_tensor_info));
    b->outputs = calloc(b->n_outputs + 1, sizeof(vkml_tensor_info));
    b->batched = calloc(n + 1, sizeof(bool));
    b->bytes = calloc(n + 1, sizeof(size_t));
    if (!b->inputs || !b->outputs || !b->batched || !b->bytes)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory creating a batcher");
    for (size_t i = 0; i < n; i++) {
        bool in = i < b->n_inputs;
        size_t k = in ? i : i - b->n_inputs;
        const vkml_tensor_info *info =
            in ? vkml_session_input(b->session, k) : vkml_session_output(b->session, k);
        if (!in && b->n > 1 && info->unbounded)
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                             "vkml_batcher_create: output '%s' is sized by each run (unbounded): "
                             "its rows cannot be split per item (N %d)",
                             info->name, b->n);
        if (!in && b->n > 1 && info->data_dependent)
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                             "vkml_batcher_create: output '%s' depends on the data: its rows "
                             "cannot be split per item (N %d)",
                             info->name, b->n);
        vkml_tensor_info *item = in ? &b->inputs[k] : &b->outputs[k];
        vkml_status st = batcher_item_info(b, info, item, &b->batched[i], &b->bytes[i], err);
        if (st != VKML_OK)
            return st;
    }
    return VKML_OK;
}

static vkml_status batcher_sync_init(vkml_batcher *b, vkml_error *err)
{
    pthread_condattr_t attr;
    bool ok = pthread_condattr_init(&attr) == 0;
    ok = ok && pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0;
    ok = ok && pthread_mutex_init(&b->mu, NULL) == 0;
    if (ok && pthread_cond_init(&b->work, &attr) != 0) {
        pthread_mutex_destroy(&b->mu);
        ok = false;
    }
    if (ok && pthread_cond_init(&b->room, NULL) != 0) {
        pthread_cond_destroy(&b->work);
        pthread_mutex_destroy(&b->mu);
        ok = false;
    }
    pthread_condattr_destroy(&attr);
    return ok ? VKML_OK
              : vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "no mutex or condition for the batcher");
}

static void batcher_sync_destroy(vkml_batcher *b)
{
    pthread_cond_destroy(&b->room);
    pthread_cond_destroy(&b->work);
    pthread_mutex_destroy(&b->mu);
}

static void batcher_batch_free(batcher_batch *batch, size_t n_inputs, size_t n_outputs)
{
    for (size_t i = 0; batch->inputs && i < n_inputs; i++)
        free(batch->inputs[i].data);
    for (size_t i = 0; batch->outputs && i < n_outputs; i++)
        free(batch->outputs[i].data);
    free(batch->inputs);
    free(batch->outputs);
    free(batch->slots);
    free(batch);
}

/* Frees what batcher_infos and creation made (not the sync objects or the thread). */
static void batcher_free(vkml_batcher *b)
{
    while (b->free_list) {
        batcher_batch *next = b->free_list->next;
        batcher_batch_free(b->free_list, b->n_inputs, b->n_outputs);
        b->free_list = next;
    }
    free(b->inputs);
    free(b->outputs);
    free(b->batched);
    free(b->bytes);
    free(b);
}

static void *batcher_main(void *arg);

vkml_status vkml_batcher_create(vkml_session *session, const vkml_batcher_params *params,
                                vkml_batcher **out, vkml_error *err)
{
    if (!session || !out)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "vkml_batcher_create: NULL argument");
    *out = NULL;
    int64_t timeout = params ? params->timeout_us : 0;
    if (timeout < 0 || timeout > VKML_BATCHER_MAX_TIMEOUT_US)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "vkml_batcher_create: timeout_us %lld outside 0 .. %d", (long long)timeout,
                         VKML_BATCHER_MAX_TIMEOUT_US);
    vkml_batcher *b = calloc(1, sizeof(*b));
    if (!b)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory creating a batcher");
    const vkml_tensor_info *in0 = vkml_session_input(session, 0);
    *b = (vkml_batcher){.session = session,
                        .timeout_us = timeout,
                        .n = in0 && in0->rank >= 2 && in0->dims[0] > 1 ? (int)in0->dims[0] : 1,
                        .lanes = vkml_session_runs_in_flight(session),
                        .n_inputs = vkml_session_input_count(session),
                        .n_outputs = vkml_session_output_count(session)};
    vkml_status st = batcher_infos(b, err);
    if (st == VKML_OK)
        st = batcher_sync_init(b, err);
    if (st != VKML_OK) {
        batcher_free(b);
        return st;
    }
    if (pthread_create(&b->thread, NULL, batcher_main, b) != 0) {
        batcher_sync_destroy(b);
        batcher_free(b);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "could not start the batcher's thread");
    }
    *out = b;
    return VKML_OK;
}

void vkml_batcher_destroy(vkml_batcher **bp)
{
    if (!bp || !*bp)
        return;
    vkml_batcher *b = *bp;
    pthread_mutex_lock(&b->mu);
    b->closing = true;
    pthread_cond_broadcast(&b->work);
    for (batcher_waiter *w = b->waiters; w; w = w->next)
        pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&b->mu);
    pthread_join(b->thread, NULL); /* it submits the batch that was forming */
    pthread_mutex_lock(&b->mu);
    while (b->in_flight > 0)
        pthread_cond_wait(&b->room, &b->mu);
    pthread_mutex_unlock(&b->mu);
    batcher_sync_destroy(b);
    batcher_free(b);
    *bp = NULL;
}

/* ---- queries ---- */

int vkml_batcher_batch_size(const vkml_batcher *b)
{
    return b ? b->n : 0;
}

const vkml_tensor_info *vkml_batcher_input(const vkml_batcher *b, size_t index)
{
    return b && index < b->n_inputs ? &b->inputs[index] : NULL;
}

const vkml_tensor_info *vkml_batcher_output(const vkml_batcher *b, size_t index)
{
    return b && index < b->n_outputs ? &b->outputs[index] : NULL;
}

void vkml_batcher_get_stats(const vkml_batcher *b, vkml_batcher_stats *out)
{
    if (!out)
        return;
    *out = (vkml_batcher_stats){0};
    if (!b)
        return;
    out->items = atomic_load_explicit(&b->items, memory_order_relaxed);
    out->batches = atomic_load_explicit(&b->batches, memory_order_relaxed);
    out->full = atomic_load_explicit(&b->full, memory_order_relaxed);
}

/* ---- batches ---- */

/* A session-shaped tensor of `info` over a zeroed buffer of its bytes. */
static bool batcher_tensor_alloc(const vkml_tensor_info *info, vkml_tensor *t)
{
    size_t bytes = 0;
    vkml_tensor_bytes(info->dtype, info->rank, info->dims, &bytes); /* checked at creation */
    *t = (vkml_tensor){.dtype = info->dtype, .rank = info->rank, .size = bytes};
    memcpy(t->dims, info->dims, sizeof(t->dims));
    t->data = calloc(1, bytes ? bytes : 1);
    return t->data != NULL;
}

static batcher_batch *batcher_batch_new(vkml_batcher *b)
{
    batcher_batch *batch = calloc(1, sizeof(*batch));
    if (!batch)
        return NULL;
    batch->b = b;
    batch->inputs = calloc(b->n_inputs + 1, sizeof(vkml_tensor));
    batch->outputs = calloc(b->n_outputs + 1, sizeof(vkml_tensor));
    batch->slots = calloc((size_t)b->n, sizeof(batcher_slot));
    bool ok = batch->inputs && batch->outputs && batch->slots;
    for (size_t i = 0; ok && i < b->n_inputs; i++)
        ok = batcher_tensor_alloc(vkml_session_input(b->session, i), &batch->inputs[i]);
    for (size_t i = 0; ok && i < b->n_outputs; i++) /* unbounded: the run allocates */
        ok = b->outputs[i].unbounded ||
             batcher_tensor_alloc(vkml_session_output(b->session, i), &batch->outputs[i]);
    if (!ok) {
        batcher_batch_free(batch, b->n_inputs, b->n_outputs);
        return NULL;
    }
    return batch;
}

/* Under mu: whether a slot can be taken now (the forming batch has room, or a batch can
 * start forming). */
static bool batcher_slot_free(const vkml_batcher *b)
{
    if (b->forming)
        return b->forming->n_items < b->n;
    return b->free_list || b->n_batches < b->lanes + 1;
}

/* Under mu: the first waiting submitter looks again. */
static void batcher_wake_first(vkml_batcher *b)
{
    if (b->waiters)
        pthread_cond_signal(&b->waiters->cv);
}

/* Under mu: waits in line (after the submitters already waiting) until a slot is free and
 * this one is first, or the batcher closes. */
static void batcher_wait_turn(vkml_batcher *b)
{
    batcher_waiter w = {.next = NULL}, **at = &b->waiters;
    pthread_cond_init(&w.cv, NULL);
    while (*at)
        at = &(*at)->next;
    *at = &w;
    while (!b->closing && (b->waiters != &w || !batcher_slot_free(b)))
        pthread_cond_wait(&w.cv, &b->mu);
    for (at = &b->waiters; *at != &w; at = &(*at)->next)
        ;
    *at = w.next;
    pthread_cond_destroy(&w.cv);
}

/* Under mu: a slot of the forming batch, once one is free, in the order submitters came. */
static vkml_status batcher_reserve(vkml_batcher *b, batcher_batch **batch, int *slot,
                                   vkml_error *err)
{
    if (!b->closing && (b->waiters || !batcher_slot_free(b)))
        batcher_wait_turn(b);
    if (b->closing)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "batcher is being destroyed");
    if (!b->forming && b->free_list) {
        b->forming = b->free_list;
        b->free_list = b->forming->next;
    } else if (!b->forming) {
        if (!(b->forming = batcher_batch_new(b))) {
            batcher_wake_first(b);
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory for a batch");
        }
        b->n_batches++;
    }
    *batch = b->forming;
    if ((*batch)->n_items == 0)
        (*batch)->first_us = batcher_now_us();
    *slot = (*batch)->n_items++;
    if (batcher_slot_free(b)) /* the next in line may take the next slot */
        batcher_wake_first(b);
    return VKML_OK;
}

/* Completes every item of the batch with `status` (outputs written when OK), in slot
 * order, then returns the batch to the free list. */
static void batcher_finish_batch(batcher_batch *batch, vkml_status status, const vkml_error *err)
{
    vkml_batcher *b = batch->b;
    for (int k = 0; k < batch->n_items; k++) {
        atomic_fetch_add_explicit(&b->items, 1, memory_order_relaxed);
        session_run_complete(batch->slots[k].run, status, err);
        batch->slots[k] = (batcher_slot){0};
    }
    pthread_mutex_lock(&b->mu);
    batch->n_items = batch->n_filled = 0;
    batch->next = b->free_list;
    b->free_list = batch;
    b->in_flight--;
    pthread_cond_broadcast(&b->room);
    batcher_wake_first(b);
    pthread_cond_signal(&b->work);
    pthread_mutex_unlock(&b->mu);
}

/* Item k's part of output i: its slice of a batched output, or all of an unbatched one
 * (with the extent the run produced, for a data-dependent output of a batcher of N 1). */
static void batcher_copy_output(const vkml_batcher *b, vkml_tensor *whole, size_t i, int k,
                                vkml_tensor *item)
{
    if (b->outputs[i].unbounded) { /* N 1: the run's allocation is the item's */
        item->data = whole->data;
        item->size = whole->size;
        item->rank = whole->rank;
        memcpy(item->dims, whole->dims, sizeof(item->dims));
        whole->data = NULL;
        return;
    }
    size_t bytes = b->bytes[b->n_inputs + i];
    const unsigned char *src = whole->data;
    if (b->batched[b->n_inputs + i]) {
        src += (size_t)k * bytes;
    } else if (b->outputs[i].data_dependent) {
        vkml_tensor_bytes(whole->dtype, whole->rank, whole->dims, &bytes);
        memcpy(item->dims, whole->dims, sizeof(item->dims));
        item->rank = whole->rank;
    }
    memcpy(item->data, src, bytes);
}

typedef struct batcher_scatter {
    const vkml_batcher *b;
    batcher_batch *batch;
} batcher_scatter;

static void batcher_scatter_items(void *ctx, int64_t begin, int64_t end)
{
    const batcher_scatter *job = ctx;
    for (int64_t k = begin; k < end; k++)
        for (size_t i = 0; i < job->b->n_outputs; i++)
            batcher_copy_output(job->b, &job->batch->outputs[i], i, (int)k,
                                &job->batch->slots[k].outputs[i]);
}

/* The session's callback for a batch (a lane thread, batches in submission order). The
 * items' outputs are copied out by the CPU pool, an item a task: a detector's outputs
 * are megabytes a frame (YOLOv8 at 640: 4.8 MB), and one thread copying a batch of them
 * held the session's next report up. */
static void batcher_batch_done(void *user, vkml_status status, const vkml_error *err)
{
    batcher_batch *batch = user;
    vkml_batcher *b = batch->b;
    if (status == VKML_OK) {
        size_t item_bytes = 0;
        for (size_t i = 0; i < b->n_outputs; i++)
            item_bytes += b->bytes[b->n_inputs + i];
        batcher_scatter job = {.b = b, .batch = batch};
        /* a byte counts as a flop: small outputs stay on this thread */
        sched_parallel_for(batch->n_items, (double)item_bytes, batcher_scatter_items, &job);
    }
    atomic_fetch_add_explicit(&b->batches, 1, memory_order_relaxed);
    if (batch->n_items == b->n)
        atomic_fetch_add_explicit(&b->full, 1, memory_order_relaxed);
    batcher_finish_batch(batch, status, err);
}

/* ---- the batcher's thread ---- */

/* Under mu: whether the forming batch goes now; *wake_us: when it goes if no one wakes the
 * thread before (0: only when woken). */
static bool batcher_due(const vkml_batcher *b, int64_t *wake_us)
{
    const batcher_batch *f = b->forming;
    *wake_us = 0;
    if (!f || f->n_items == 0 || f->n_filled != f->n_items || b->in_flight >= b->lanes)
        return false;
    /* a partial batch waits for more items only while another batch keeps the session
     * busy: an idle session takes it at once */
    if (f->n_items == b->n || b->closing || b->timeout_us == 0 || b->in_flight == 0)
        return true;
    *wake_us = f->first_us + b->timeout_us;
    return batcher_now_us() >= *wake_us;
}

static void batcher_wait_until(vkml_batcher *b, int64_t wake_us)
{
    if (!wake_us) {
        pthread_cond_wait(&b->work, &b->mu);
        return;
    }
    struct timespec ts = {.tv_sec = wake_us / 1000000, .tv_nsec = (wake_us % 1000000) * 1000};
    pthread_cond_timedwait(&b->work, &b->mu, &ts); /* ETIMEDOUT: batcher_due looks again */
}

/* Waits for the next batch to submit; NULL when closing and none is forming. */
static batcher_batch *batcher_take(vkml_batcher *b)
{
    pthread_mutex_lock(&b->mu);
    int64_t wake_us;
    while (!batcher_due(b, &wake_us) && !(b->closing && !b->forming))
        batcher_wait_until(b, wake_us);
    batcher_batch *batch = b->forming;
    if (batch) {
        b->forming = NULL;
        b->in_flight++;
        batcher_wake_first(b);
    }
    pthread_mutex_unlock(&b->mu);
    return batch;
}

static void *batcher_main(void *arg)
{
    vkml_batcher *b = arg;
    batcher_batch *batch;
    while ((batch = batcher_take(b))) {
        for (size_t i = 0; i < b->n_outputs; i++) {
            if (b->outputs[i].unbounded) { /* the run allocates (a failed one's left over) */
                free(batch->outputs[i].data);
                batch->outputs[i] =
                    (vkml_tensor){.dtype = b->outputs[i].dtype, .rank = b->outputs[i].rank};
            } else { /* a data-dependent output's extent */
                memcpy(batch->outputs[i].dims, vkml_session_output(b->session, i)->dims,
                       sizeof(batch->outputs[i].dims));
            }
        }
        vkml_error err = {0};
        vkml_status st = vkml_session_submit(b->session, batch->inputs, b->n_inputs, batch->outputs,
                                             b->n_outputs, batcher_batch_done, batch, NULL, &err);
        if (st != VKML_OK)
            batcher_finish_batch(batch, st, &err);
    }
    return NULL;
}

/* ---- items ---- */

/* An item's tensors against the batcher's infos: dtype and bytes; what: "input"/"output". */
static vkml_status batcher_check(const vkml_batcher *b, const vkml_tensor *t, size_t n,
                                 bool outputs, vkml_error *err)
{
    const vkml_tensor_info *infos = outputs ? b->outputs : b->inputs;
    const char *what = outputs ? "output" : "input";
    for (size_t i = 0; i < n; i++) {
        size_t bytes = b->bytes[(outputs ? b->n_inputs : 0) + i];
        if (t[i].dtype != infos[i].dtype)
            return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                             "vkml_batcher_submit: %s %zu ('%s'): dtype %s, expected %s", what, i,
                             infos[i].name, vkml_dtype_name(t[i].dtype),
                             vkml_dtype_name(infos[i].dtype));
        if (outputs && infos[i].unbounded) {
            if (t[i].data)
                return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                                 "vkml_batcher_submit: output %zu ('%s') is sized by each run "
                                 "(unbounded): give it data NULL, the run's allocation is handed "
                                 "over (free it with vkml_tensor_release)",
                                 i, infos[i].name);
            continue;
        }
        if ((bytes && !t[i].data) || t[i].size < bytes)
            return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                             "vkml_batcher_submit: %s %zu ('%s'): %zu bytes given, %zu needed",
                             what, i, infos[i].name, t[i].data ? t[i].size : 0, bytes);
    }
    return VKML_OK;
}

static vkml_status batcher_check_item(const vkml_batcher *b, const vkml_tensor *inputs,
                                      size_t n_inputs, const vkml_tensor *outputs, size_t n_outputs,
                                      vkml_error *err)
{
    if (!b || (n_inputs && !inputs) || (n_outputs && !outputs))
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "vkml_batcher_submit: NULL argument");
    if (n_inputs != b->n_inputs || n_outputs != b->n_outputs)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "vkml_batcher_submit: %zu inputs and %zu outputs given, the session "
                         "has %zu and %zu",
                         n_inputs, n_outputs, b->n_inputs, b->n_outputs);
    vkml_status st = batcher_check(b, inputs, n_inputs, false, err);
    return st == VKML_OK ? batcher_check(b, outputs, n_outputs, true, err) : st;
}

/* Outside the lock: slot k's place in each staging buffer (unbatched inputs: slot 0's). */
static void batcher_copy_inputs(const vkml_batcher *b, batcher_batch *batch, int k,
                                const vkml_tensor *inputs)
{
    for (size_t i = 0; i < b->n_inputs; i++) {
        size_t bytes = b->bytes[i];
        if (b->batched[i])
            memcpy((unsigned char *)batch->inputs[i].data + (size_t)k * bytes, inputs[i].data,
                   bytes);
        else if (k == 0)
            memcpy(batch->inputs[i].data, inputs[i].data, bytes);
    }
}

vkml_status vkml_batcher_submit(vkml_batcher *b, const vkml_tensor *inputs, size_t n_inputs,
                                vkml_tensor *outputs, size_t n_outputs, vkml_run_callback callback,
                                void *user, vkml_run **out, vkml_error *err)
{
    if (out)
        *out = NULL;
    vkml_status st = batcher_check_item(b, inputs, n_inputs, outputs, n_outputs, err);
    if (st != VKML_OK)
        return st;
    vkml_run *run = session_run_new(callback, user, out == NULL);
    if (!run)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory submitting an item");
    batcher_batch *batch = NULL;
    int k = 0;
    pthread_mutex_lock(&b->mu);
    st = batcher_reserve(b, &batch, &k, err);
    if (st == VKML_OK)
        batch->slots[k] = (batcher_slot){.run = run, .outputs = outputs};
    pthread_mutex_unlock(&b->mu);
    if (st != VKML_OK) {
        session_run_discard(run);
        return st;
    }
    batcher_copy_inputs(b, batch, k, inputs);
    if (out) /* before the item can complete (the run is not touched after unlocking) */
        *out = run;
    pthread_mutex_lock(&b->mu);
    batch->n_filled++;
    pthread_cond_signal(&b->work);
    pthread_mutex_unlock(&b->mu);
    return VKML_OK;
}
