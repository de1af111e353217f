#pragma once
/*
 * The session's insides, shared by session.c (planning, inputs and outputs) and
 * session_run.c (runs: in order, several in flight).
 *
 * A session has n_lanes lanes (vkml_session_params.runs_in_flight). Each lane is one copy
 * of the plan (its own device sessions: intermediates; the weights are shared, see
 * vulkan/vk_consts.h) with its scheduler; run k (in submission order, from 0) uses lane k %
 * n_lanes, once the run before it on that lane has finished. A data-parallel session's
 * lanes are planned on its GPUs in turn (lane l on GPU l % n_replicas), so its runs
 * alternate between them. Runs complete in submission order: a run that
 * finishes early waits for the one before it before it reports.
 *
 * Concurrency table:
 *   vkml_session_run / vkml_session_submit / set_input_shapes / destroy: one thread at a
 *     time per session (the caller's promise); they take `mu` for the lane and run state.
 *   lane threads (started at the first submit): each runs its lane's submitted runs;
 *     reads `job` under `mu`, touches only its lane's plan while it runs.
 *   vkml_run_wait: any thread, once per run; a run has its own lock, so it outlives the
 *     session.
 */
#include "plan/plan.h"
#include "sched/sched.h"

#include <pthread.h>

struct vkml_run;

typedef struct session_lane {
    plan *plan;
    sched_graph *sched;
    vkml_arena *out_strings; /* the strings of this lane's last run's string outputs */
    /* Under the session's mu: */
    bool busy;            /* a run holds the lane (inputs copied in, not yet reported) */
    struct vkml_run *job; /* a submitted run for the lane thread to execute */
    pthread_t thread;
    bool has_thread;
} session_lane;

struct vkml_session {
    vkml_context *ctx;
    log_sink log;             /* the context's sink, with vkml_session_params.log_user */
    vkml_model *model;        /* a reference */
    const graph *graph;       /* what the session plans: the model's, `own_graph` or `pre_graph` */
    graph *own_graph;         /* the session's float16 graph (passes/precision.h), or NULL */
    graph *pre_graph;         /* with vkml_session_params.preprocess: `own_graph` or the model's
                                 graph with the pre-processing in front (plan/session_preprocess.h),
                                 else NULL */
    vkml_precision precision; /* what it runs at (vkml_session_precision) */
    int n_half;               /* nodes of own_graph that run in float16 */
    /* per graph input, then per output (NULL: none): float32 to the caller, float16 in the
     * graph (passes/precision.h's host_io); the runs convert as they copy */
    bool *host_half;
    int device;         /* the first device of the set */
    plan_target target; /* the device set and budget */
    /* vkml_session_params.data_parallel with several GPUs: lane l plans over GPU
     * l % n_replicas of target alone (replica_target), else 1 */
    int n_replicas;
    int64_t symbolic;
    uint64_t wait_spin_ns;    /* vkml_session_params.wait_spin_us in ns, or DEVICE_SPIN_DEFAULT */
    vkml_tensor_info *shapes; /* the input shapes planned for (NULL: the model's) */
    vkml_tensor *fixed;       /* per input: the value planned for (data NULL: none) */
    plan *plan;               /* lane 0's: what the plan queries and tools read */
    vkml_tensor_info *inputs, *outputs;
    size_t n_inputs, n_outputs;
    session_lane *lanes;
    int n_lanes;
    pthread_mutex_t mu;
    pthread_cond_t cv;  /* a lane freed, a run reported, a job posted, quit */
    bool sync_ready;    /* mu and cv initialised */
    uint64_t submitted; /* runs begun (their sequence numbers are 0 .. submitted-1) */
    uint64_t reported;  /* runs reported, in order */
    bool quit;          /* lane threads exit */
};

/* session_run.c */
vkml_status session_lanes_init(vkml_session *s, int n_lanes, vkml_error *err);
void session_lanes_destroy(vkml_session *s);
/* session_fp16.c: with *out made at VKML_PRECISION_FP16, replaces it by the model at FP32
 * where that runs faster on its devices (timed once per model, devices and input shapes). */
void session_choose_fp16(vkml_context *ctx, vkml_model *model, const vkml_session_params *params,
                         vkml_session **out);
/* Waits until every run begun has been reported. */
void session_drain(vkml_session *s);

/* Runs of no session (vkml_batcher's items, plan/batcher.c), in session_run.c. A run the
 * caller waits for with vkml_run_wait, or detached (frees itself once complete); NULL when
 * out of memory. */
struct vkml_run *session_run_new(vkml_run_callback callback, void *user, bool detached);
/* Sets the run's status (and err, when not OK), calls its callback, then wakes its waiter
 * or frees a detached run: the run must not be touched after. */
void session_run_complete(struct vkml_run *run, vkml_status status, const vkml_error *err);
/* Frees a run never handed to its caller (its callback is not called). */
void session_run_discard(struct vkml_run *run);

/* session.c */
vkml_status session_plan_for(vkml_session *s, const vkml_tensor_info *shapes,
                             const vkml_tensor *values, vkml_error *err);
vkml_status session_replan_for_values(vkml_session *s, const vkml_tensor *inputs, vkml_error *err);
vkml_status session_check_counts(const vkml_session *s, const vkml_tensor *inputs, size_t n_inputs,
                                 const vkml_tensor *outputs, size_t n_outputs, const char *call,
                                 vkml_error *err);
vkml_status session_copy_inputs(vkml_session *s, session_lane *l, const vkml_tensor *inputs,
                                vkml_error *err);
/* The lane's scheduled chunks, its dynamic tail, then the outputs into `outputs`. */
vkml_status session_execute(vkml_session *s, session_lane *l, const vkml_tensor *inputs,
                            vkml_tensor *outputs, vkml_error *err);
