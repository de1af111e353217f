/* Runs of a session (session.h): vkml_session_run on the caller's thread and
 * vkml_session_submit on the lanes' threads, reported in submission order. */
#include "plan/session.h"

#include <stdlib.h>
#include <string.h>

struct vkml_run {
    vkml_session *s; /* until the run is reported */
    session_lane *lane;
    uint64_t seq;
    vkml_tensor *inputs;  /* a copy of the caller's array (the data stays the caller's) */
    vkml_tensor *outputs; /* the caller's array */
    vkml_run_callback callback;
    void *user;
    bool detached; /* no vkml_run_wait: freed once reported */
    vkml_status status;
    vkml_error err;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done;
};

vkml_status session_lanes_init(vkml_session *s, int n_lanes, vkml_error *err)
{
    s->lanes = calloc((size_t)n_lanes, sizeof(session_lane));
    if (!s->lanes)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory creating a session");
    s->n_lanes = n_lanes;
    if (pthread_mutex_init(&s->mu, NULL) != 0)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "no mutex for the session");
    if (pthread_cond_init(&s->cv, NULL) != 0) {
        pthread_mutex_destroy(&s->mu);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "no condition variable for the session");
    }
    s->sync_ready = true;
    return VKML_OK;
}

void session_drain(vkml_session *s)
{
    if (!s->sync_ready)
        return;
    pthread_mutex_lock(&s->mu);
    while (s->reported != s->submitted)
        pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

void session_lanes_destroy(vkml_session *s)
{
    if (s->sync_ready) {
        session_drain(s);
        pthread_mutex_lock(&s->mu);
        s->quit = true;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
    }
    for (int l = 0; l < s->n_lanes; l++) {
        session_lane *lane = &s->lanes[l];
        if (lane->has_thread)
            pthread_join(lane->thread, NULL);
        sched_graph_destroy(&lane->sched);
        plan_destroy(&lane->plan);
        vkml_arena_destroy(&lane->out_strings);
    }
    free(s->lanes);
    s->lanes = NULL;
    s->n_lanes = 0;
    s->plan = NULL;
    if (s->sync_ready) {
        pthread_cond_destroy(&s->cv);
        pthread_mutex_destroy(&s->mu);
        s->sync_ready = false;
    }
}

/* Takes the next sequence number and its lane, once the lane's previous run reported. */
static session_lane *begin_run(vkml_session *s, uint64_t *seq)
{
    pthread_mutex_lock(&s->mu);
    *seq = s->submitted++;
    session_lane *lane = &s->lanes[*seq % (uint64_t)s->n_lanes];
    while (lane->busy)
        pthread_cond_wait(&s->cv, &s->mu);
    lane->busy = true;
    pthread_mutex_unlock(&s->mu);
    return lane;
}

/* Reports run `seq` once every earlier run has: its callback (if any), then the lane is
 * free. The callback runs outside the lock; later runs wait for `reported` to move. */
static void report(vkml_session *s, session_lane *lane, uint64_t seq, vkml_run *run)
{
    pthread_mutex_lock(&s->mu);
    while (s->reported != seq)
        pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
    if (run && run->callback)
        run->callback(run->user, run->status, &run->err);
    pthread_mutex_lock(&s->mu);
    s->reported = seq + 1;
    lane->busy = false;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

static void run_free(vkml_run *run)
{
    pthread_cond_destroy(&run->cv);
    pthread_mutex_destroy(&run->mu);
    free(run->inputs);
    free(run);
}

/* The run is over: its waiter wakes, or a detached run is freed. */
static void finish(vkml_run *run)
{
    pthread_mutex_lock(&run->mu);
    bool detached = run->detached;
    run->done = true;
    run->s = NULL;
    pthread_cond_broadcast(&run->cv);
    pthread_mutex_unlock(&run->mu);
    if (detached)
        run_free(run);
}

vkml_run *session_run_new(vkml_run_callback callback, void *user, bool detached)
{
    vkml_run *run = calloc(1, sizeof(*run));
    if (!run)
        return NULL;
    if (pthread_mutex_init(&run->mu, NULL) != 0) {
        free(run);
        return NULL;
    }
    if (pthread_cond_init(&run->cv, NULL) != 0) {
        pthread_mutex_destroy(&run->mu);
        free(run);
        return NULL;
    }
    run->callback = callback;
    run->user = user;
    run->detached = detached;
    return run;
}

void session_run_complete(vkml_run *run, vkml_status status, const vkml_error *err)
{
    run->status = status;
    if (status != VKML_OK && err)
        run->err = *err;
    if (run->callback)
        run->callback(run->user, run->status, &run->err);
    finish(run);
}

void session_run_discard(vkml_run *run)
{
    run_free(run);
}

typedef struct lane_start {
    vkml_session *s;
    session_lane *lane;
} lane_start;

static void *lane_entry(void *arg)
{
    lane_start start = *(lane_start *)arg;
    free(arg);
    session_lane *lane = start.lane;
    vkml_session *s = start.s;
    log_scope_enter(&s->log); /* the thread's sink for its life */
    for (;;) {
        pthread_mutex_lock(&s->mu);
        while (!lane->job && !s->quit)
            pthread_cond_wait(&s->cv, &s->mu);
        vkml_run *run = lane->job;
        lane->job = NULL;
        pthread_mutex_unlock(&s->mu);
        if (!run)
            return NULL;
        run->status = session_execute(s, lane, run->inputs, run->outputs, &run->err);
        report(s, lane, run->seq, run);
        finish(run);
    }
}

static vkml_status start_lane(vkml_session *s, session_lane *lane, vkml_error *err)
{
    if (lane->has_thread)
        return VKML_OK;
    lane_start *start = malloc(sizeof(*start));
    if (!start)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory starting a run thread");
    *start = (lane_start){.s = s, .lane = lane};
    if (pthread_create(&lane->thread, NULL, lane_entry, start) != 0) {
        free(start);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "could not start a run thread");
    }
    lane->has_thread = true;
    return VKML_OK;
}

static vkml_status session_run(vkml_session *s, const vkml_tensor *inputs, size_t n_inputs,
                               vkml_tensor *outputs, size_t n_outputs, vkml_error *err)
{
    vkml_status st =
        session_check_counts(s, inputs, n_inputs, outputs, n_outputs, "vkml_session_run", err);
    if (st == VKML_OK)
        st = session_replan_for_values(s, inputs, err);
    if (st != VKML_OK)
        return st;
    uint64_t seq;
    session_lane *lane = begin_run(s, &seq);
    st = session_copy_inputs(s, lane, inputs, err);
    if (st == VKML_OK)
        st = session_execute(s, lane, inputs, outputs, err);
    report(s, lane, seq, NULL);
    return st;
}

vkml_status vkml_session_run(vkml_session *s, const vkml_tensor *inputs, size_t n_inputs,
                             vkml_tensor *outputs, size_t n_outputs, vkml_error *err)
{
    const log_sink *outer = log_scope_enter(s ? &s->log : NULL);
    vkml_status st = session_run(s, inputs, n_inputs, outputs, n_outputs, err);
    log_scope_leave(outer);
    return st;
}

static vkml_status session_submit(vkml_session *s, const vkml_tensor *inputs, size_t n_inputs,
                                  vkml_tensor *outputs, size_t n_outputs,
                                  vkml_run_callback callback, void *user, vkml_run **out,
                                  vkml_error *err)
{
    if (out)
        *out = NULL;
    vkml_status st =
        session_check_counts(s, inputs, n_inputs, outputs, n_outputs, "vkml_session_submit", err);
    if (st == VKML_OK)
        st = session_replan_for_values(s, inputs, err);
    if (st != VKML_OK)
        return st;
    vkml_run *run = session_run_new(callback, user, out == NULL);
    vkml_tensor *copy = calloc(n_inputs + 1, sizeof(vkml_tensor));
    if (!run || !copy) {
        if (run)
            session_run_discard(run);
        free(copy);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory submitting a run");
    }
    if (n_inputs)
        memcpy(copy, inputs, n_inputs * sizeof(vkml_tensor));
    run->s = s;
    run->inputs = copy;
    run->outputs = outputs;
    run->lane = begin_run(s, &run->seq);
    st = session_copy_inputs(s, run->lane, inputs, err);
    if (st == VKML_OK)
        st = start_lane(s, run->lane, err);
    if (st != VKML_OK) { /* reported (in order) as not run; the caller gets the error */
        report(s, run->lane, run->seq, NULL);
        run_free(run);
        return st;
    }
    pthread_mutex_lock(&s->mu);
    run->lane->job = run;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    if (out)
        *out = run;
    return VKML_OK;
}

vkml_status vkml_session_submit(vkml_session *s, const vkml_tensor *inputs, size_t n_inputs,
                                vkml_tensor *outputs, size_t n_outputs, vkml_run_callback callback,
                                void *user, vkml_run **out, vkml_error *err)
{
    const log_sink *outer = log_scope_enter(s ? &s->log : NULL);
    vkml_status st =
        session_submit(s, inputs, n_inputs, outputs, n_outputs, callback, user, out, err);
    log_scope_leave(outer);
    return st;
}

vkml_status vkml_run_wait(vkml_run **runp, vkml_error *err)
{
    if (!runp || !*runp)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "vkml_run_wait: NULL run");
    vkml_run *run = *runp;
    *runp = NULL;
    pthread_mutex_lock(&run->mu);
    while (!run->done)
        pthread_cond_wait(&run->cv, &run->mu);
    pthread_mutex_unlock(&run->mu);
    vkml_status st = run->status;
    if (st != VKML_OK && err)
        *err = run->err;
    run_free(run);
    return st;
}
