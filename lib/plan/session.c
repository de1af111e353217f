/* vkml_session: a model planned on a device, run with host tensors. */
#include "plan/session.h"
#include "onnx/model.h"
#include "passes/fuse.h"
#include "passes/lower.h"
#include "passes/precision.h"
#include "plan/context.h"
#include "plan/plan.h"
#include "plan/session_preprocess.h"
#include "plan/tail.h"
#include "sched/sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static vkml_status submit_chunk_task(void *ctx, int chunk, uint64_t *done, vkml_error *err)
{
    device_event ev = {0};
    vkml_status st = plan_submit_chunk(ctx, chunk, &ev, err);
    *done = ev.dev ? ev.value : 0;
    return st;
}

static vkml_status wait_chunk_task(void *ctx, int chunk, uint64_t done, vkml_error *err)
{
    plan *p = ctx;
    device_event ev = {.dev = p->devices[p->chunks[chunk].slot].dev, .value = done};
    return plan_wait_event(p, ev, err);
}

static vkml_status make_scheduler(plan *p, sched_graph **out, vkml_error *err)
{
    const int **preds = calloc((size_t)p->n_chunks + 1, sizeof(int *));
    int *n_preds = calloc((size_t)p->n_chunks + 1, sizeof(int));
    int *streams = calloc((size_t)p->n_chunks + 1, sizeof(int));
    vkml_status st = VKML_ERROR_OUT_OF_MEMORY;
    if (!preds || !n_preds || !streams) {
        vkml_fail(err, st, "out of memory creating the scheduler");
        goto done;
    }
    for (int c = 0; c < p->n_chunks; c++) {
        preds[c] = p->chunks[c].preds;
        n_preds[c] = p->chunks[c].n_preds;
        streams[c] = plan_chunk_stream(p, c);
    }
    sched_graph_desc desc = {
        .n_tasks = p->n_chunks,
        .preds = preds,
        .n_preds = n_preds,
        .streams = streams,
        .submit = submit_chunk_task,
        .wait = wait_chunk_task,
        .ctx = p,
    };
    st = sched_graph_create(&desc, out, err);
done:
    free(preds);
    free(n_preds);
    free(streams);
    return st;
}

static vkml_tensor_info *make_infos(const plan *p, const int *ids, size_t n)
{
    vkml_tensor_info *infos = calloc(n + 1, sizeof(vkml_tensor_info));
    for (size_t i = 0; infos && i < n; i++) {
        graph_value_info(&p->values[ids[i]], &infos[i]);
        /* A session's shapes are concrete: no symbolic names. */
        memset(infos[i].dim_names, 0, sizeof(infos[i].dim_names));
    }
    return infos;
}

/* The parts of a session that depend on its input shapes: a plan and scheduler per lane. */
typedef struct session_shaped {
    plan *plans[VKML_MAX_RUNS_IN_FLIGHT];
    sched_graph *scheds[VKML_MAX_RUNS_IN_FLIGHT];
    vkml_tensor_info *inputs, *outputs;
} session_shaped;

static void shaped_free(session_shaped *sh)
{
    for (int l = 0; l < VKML_MAX_RUNS_IN_FLIGHT; l++) {
        sched_graph_destroy(&sh->scheds[l]);
        plan_destroy(&sh->plans[l]);
    }
    free(sh->inputs);
    free(sh->outputs);
    memset(sh, 0, sizeof(*sh));
}

static void free_fixed(vkml_tensor *fixed, size_t n)
{
    for (size_t i = 0; fixed && i < n; i++)
        free(fixed[i].data);
    free(fixed);
}

/* Copies of the shapes and fixed values a plan was made for (NULL when not given). */
static bool copy_plan_inputs(size_t n, const vkml_tensor_info *shapes, const vkml_tensor *values,
                             vkml_tensor_info **shapes_out, vkml_tensor **values_out)
{
    *shapes_out = NULL;
    *values_out = NULL;
    if (shapes && !(*shapes_out = calloc(n + 1, sizeof(**shapes_out))))
        return false;
    if (shapes)
        memcpy(*shapes_out, shapes, n * sizeof(*shapes));
    if (!values)
        return true;
    vkml_tensor *copy = calloc(n + 1, sizeof(*copy));
    for (size_t i = 0; copy && i < n; i++) {
        size_t bytes;
        if (!values[i].data || values[i].dtype == VKML_DTYPE_STRING || /* never fixed */
            !vkml_tensor_bytes(values[i].dtype, values[i].rank, values[i].dims, &bytes))
            continue;
        copy[i] = values[i];
        copy[i].data = malloc(bytes ? bytes : 1);
        copy[i].size = bytes;
        if (!copy[i].data) {
            free_fixed(copy, n);
            return false;
        }
        memcpy(copy[i].data, values[i].data, bytes < values[i].size ? bytes : values[i].size);
    }
    *values_out = copy;
    return copy != NULL;
}

/* What lane l plans over: the session's device set, or in a data-parallel session its
 * GPU l % n_replicas alone (with the CPU as the fallback, as always). */
static plan_target replica_target(const vkml_session *s, int l)
{
    plan_target t = s->target;
    if (s->n_replicas > 1) {
        int k = l % s->n_replicas;
        t.devices[0] = s->target.devices[k];
        t.dev_index[0] = s->target.dev_index[k];
        t.n_devices = 1;
    }
    return t;
}

/* Plans the session's model for input shapes and fixed input values (NULL: the model's
 * shapes, symbolic dims bound to s->symbolic; no fixed values) and swaps the result in;
 * on failure the session is unchanged. */

vkml_status session_plan_for(vkml_session *s, const vkml_tensor_info *shapes,
                             const vkml_tensor *values, vkml_error *err)
{
    const graph *g = s->graph;
    session_shaped sh = {0};
    vkml_tensor_info *shapes_copy;
    vkml_tensor *values_copy;
    if (!copy_plan_inputs((size_t)g->n_inputs, shapes, values, &shapes_copy, &values_copy)) {
        free(shapes_copy);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory creating a session");
    }
    /* The caller's shapes in the graph's types (host_half inputs: float16). */
    vkml_tensor_info *graph_shapes = NULL;
    if (shapes && s->host_half) {
        if (!(graph_shapes = malloc(((size_t)g->n_inputs + 1) * sizeof(*graph_shapes)))) {
            free(shapes_copy);
            free_fixed(values_copy, (size_t)g->n_inputs);
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory creating a session");
        }
        memcpy(graph_shapes, shapes, (size_t)g->n_inputs * sizeof(*graph_shapes));
        for (int i = 0; i < g->n_inputs; i++)
            if (s->host_half[i] && graph_shapes[i].dtype == VKML_DTYPE_FLOAT)
                graph_shapes[i].dtype = VKML_DTYPE_FLOAT16;
    }
    /* One plan per lane: each run in flight has its own intermediates. */
    vkml_status st = VKML_OK;
    for (int l = 0; l < s->n_lanes && st == VKML_OK; l++) {
        plan_target target = replica_target(s, l);
        st = plan_create(g, &target, s->symbolic, graph_shapes ? graph_shapes : shapes, values,
                         &sh.plans[l], err);
        if (st != VKML_OK && s->n_replicas > 1) /* each copy must fit its GPU alone */
            vkml_error_prefix(err, "data parallel: the model's copy on device %d",
                              target.dev_index[0]);
        if (st == VKML_OK) {
            sh.plans[l]->wait_spin_ns = s->wait_spin_ns;
            st = make_scheduler(sh.plans[l], &sh.scheds[l], err);
        }
    }
    if (st == VKML_OK) {
        sh.inputs = make_infos(sh.plans[0], g->inputs, (size_t)g->n_inputs);
        sh.outputs = make_infos(sh.plans[0], g->outputs, (size_t)g->n_outputs);
        if (!sh.inputs || !sh.outputs)
            st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory creating a session");
        for (int i = 0; st == VKML_OK && s->host_half && i < g->n_inputs + g->n_outputs; i++)
            if (s->host_half[i]) /* the caller's type */
                (i < g->n_inputs ? &sh.inputs[i] : &sh.outputs[i - g->n_inputs])->dtype =
                    VKML_DTYPE_FLOAT;
    }
    free(graph_shapes);
    if (st != VKML_OK) {
        shaped_free(&sh);
        free(shapes_copy);
        free_fixed(values_copy, (size_t)g->n_inputs);
        return st;
    }
    session_drain(s); /* no run may use the old plans any more */
    free(s->shapes);
    free_fixed(s->fixed, (size_t)g->n_inputs);
    s->shapes = shapes_copy;
    s->fixed = values_copy;
    session_shaped old = {.inputs = s->inputs, .outputs = s->outputs};
    for (int l = 0; l < s->n_lanes; l++) {
        old.plans[l] = s->lanes[l].plan;
        old.scheds[l] = s->lanes[l].sched;
        s->lanes[l].plan = sh.plans[l];
        s->lanes[l].sched = sh.scheds[l];
    }
    shaped_free(&old);
    s->plan = sh.plans[0];
    s->inputs = sh.inputs;
    s->outputs = sh.outputs;
    s->n_inputs = (size_t)g->n_inputs;
    s->n_outputs = (size_t)g->n_outputs;
    return VKML_OK;
}

vkml_status vkml_session_set_input_shapes(vkml_session *s, const vkml_tensor_info *shapes,
                                          vkml_error *err)
{
    if (!s || !shapes)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "vkml_session_set_input_shapes: NULL argument");
    const log_sink *outer = log_scope_enter(&s->log);
    vkml_status st = session_plan_for(s, shapes, s->fixed, err);
    log_scope_leave(outer);
    return st;
}

/* Adds GPU `index` to the target (the CPU is always there as the fallback). */
static vkml_status target_add(vkml_context *ctx, plan_target *t, int index, vkml_error *err)
{
    if (index == VKML_DEVICE_CPU)
        return VKML_OK;
    device *dev = context_device(ctx, index);
    if (!dev)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "no device %d (this machine has %d Vulkan device(s) and the CPU)", index,
                         vkml_context_device_count(ctx));
    for (int k = 0; k < t->n_devices; k++)
        if (t->devices[k] == dev)
            return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                             "device %d is twice in the session's device set", index);
    if (t->n_devices >= PLAN_MAX_DEVICES - 1)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "more than %d GPUs in a device set",
                         PLAN_MAX_DEVICES - 1);
    t->devices[t->n_devices] = dev;
    t->dev_index[t->n_devices++] = index;
    return VKML_OK;
}

/* The session's device set from its params: `devices`, else `device` (the default: every
 * real GPU, the default one first; a Vulkan device on the CPU only when named). *first:
 * the set's first device. */
static vkml_status session_target(vkml_context *ctx, const vkml_session_params *params,
                                  plan_target *t, int *first, vkml_error *err)
{
    vkml_status st = VKML_OK;
    if (params && params->devices && params->n_devices) {
        if (params->n_devices > VKML_MAX_SESSION_DEVICES)
            return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "%zu devices in a set (at most %d)",
                             params->n_devices, VKML_MAX_SESSION_DEVICES);
        for (size_t i = 0; i < params->n_devices && !st; i++)
            st = target_add(ctx, t, params->devices[i], err);
    } else {
        int index = params ? params->device : VKML_DEVICE_DEFAULT;
        bool every_gpu = index == VKML_DEVICE_DEFAULT;
        if (every_gpu)
            index = ctx->default_device;
        st = target_add(ctx, t, index, err);
        for (int i = 0; every_gpu && index != VKML_DEVICE_CPU && !st &&
                        i < vkml_context_device_count(ctx) && t->n_devices < PLAN_MAX_DEVICES - 1;
             i++)
            if (i != index && context_device_is_real_gpu(ctx, i))
                st = target_add(ctx, t, i, err);
    }
    *first = t->n_devices ? t->dev_index[0] : VKML_DEVICE_CPU;
    return st;
}

/* The precision pass's view of the session's first device (its first GPU, else the host). */
static bool first_device_runs(void *ctx, const graph_value *values, const graph_node *n)
{
    const plan_target *t = ctx;
    device *dev = t->n_devices ? t->devices[0] : t->host;
    char why[256];
    return dev->cls->supports_node(dev, values, n, why, sizeof(why));
}

/* The graph the session plans: the model's, or its float16 rewrite. host_boundary: its
 * inputs and outputs may be float16 where the model's are float32, converted by the runs'
 * copies (not with pre-processing, which feeds input 0 itself, nor with fixed input
 * values, which the plan reads in the graph's types). */
/* The CPU device's threads per node: `asked`, else VKML_CPU_THREADS, else every core the
 * process may run on. */
static vkml_status session_cpu_threads(int asked, int *threads, vkml_error *err)
{
    const char *env = getenv("VKML_CPU_THREADS");
    if (asked == 0 && env && *env) {
        char *end;
        long n = strtol(env, &end, 10);
        if (*end || n < 1 || n > VKML_MAX_CPU_THREADS)
            return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                             "VKML_CPU_THREADS=%s: a thread count from 1 to %d", env,
                             VKML_MAX_CPU_THREADS);
        asked = (int)n;
    }
    if (asked < 0 || asked > VKML_MAX_CPU_THREADS)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "cpu_threads %d: from 0 to %d", asked,
                         VKML_MAX_CPU_THREADS);
    *threads = asked > 0 ? asked : sched_core_count();
    return VKML_OK;
}

/* A session on the CPU device alone of a model with float16 values between nodes: its
 * float32 graph (passes/precision.h, precision_fp32_graph), which the CPU device's kernels
 * compute as they compute float16, without the conversions at every node. Off with
 * VKML_CPU_WIDEN=0. */
static vkml_status session_widen(vkml_session *s, vkml_error *err)
{
    const char *env = getenv("VKML_CPU_WIDEN");
    const graph *g = s->model->graph;
    if (s->target.n_devices > 0 || (env && !strcmp(env, "0")) || lower_needed(g))
        return VKML_OK;
    bool half = false;
    for (int v = 0; v < g->n_values && !half; v++)
        half = g->values[v].dtype == VKML_DTYPE_FLOAT16;
    if (!half)
        return VKML_OK;
    graph *wide = NULL;
    int n_wide = 0;
    vkml_error why = {0};
    vkml_status st = precision_fp32_graph(g, s->target.runner, s->symbolic, &wide, &n_wide, &why);
    if (st == VKML_ERROR_OUT_OF_MEMORY)
        return vkml_fail(err, st, "%s", why.message);
    if (st != VKML_OK) /* types known only with the session's inputs: planned as it is */
        VKML_LOGD("CPU device: the float16 model stays float16 (%s)", why.message);
    if (st != VKML_OK || !wide)
        return VKML_OK;
    graph_destroy(&s->own_graph);
    s->own_graph = wide;
    s->graph = wide;
    VKML_LOGD("CPU device: %d float16 nodes compute and store float32", n_wide);
    return VKML_OK;
}

static vkml_status session_use_precision(vkml_session *s, vkml_precision precision,
                                         bool host_boundary, vkml_error *err)
{
    s->graph = s->model->graph;
    s->precision = precision;
    s->target.fast_math = precision == VKML_PRECISION_FP32_FAST;
    if (precision == VKML_PRECISION_FP32 || precision == VKML_PRECISION_FP32_FAST)
        return session_widen(s, err);
    if (precision != VKML_PRECISION_FP16 && precision != VKML_PRECISION_FP16_ALWAYS)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "unknown precision %d", (int)precision);
    const graph *g = s->model->graph;
    if (lower_needed(g)) { /* its types are only known once lowered, per plan */
        VKML_LOGW("precision fp16: the model has control flow or sequences, which plan at "
                  "float32; the session runs at float32");
        s->precision = VKML_PRECISION_FP32;
        return VKML_OK;
    }
    s->host_half = calloc((size_t)(g->n_inputs + g->n_outputs) + 1, sizeof(bool));
    if (!s->host_half)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory creating a session");
    precision_device dev = {.runs = first_device_runs, .ctx = &s->target};
    vkml_status st =
        precision_fp16_graph(g, &dev, s->target.runner, s->symbolic,
                             host_boundary ? s->host_half : NULL, &s->own_graph, &s->n_half, err);
    if (st != VKML_OK)
        return st;
    s->graph = s->own_graph;
    if (s->n_half == 0) /* nothing qualified: the plan is float32's */
        s->precision = VKML_PRECISION_FP32;
    bool any = false;
    for (int i = 0; i < g->n_inputs + g->n_outputs; i++)
        any |= s->host_half[i];
    if (!any) {
        free(s->host_half);
        s->host_half = NULL;
    }
    return VKML_OK;
}

/* vkml_session_params.preprocess: the session's graph (after precision) with the
 * pre-processing in front, which the session then plans, and *shapes and *values
 * (malloc'ed; *values NULL without input_values) the input shapes and fixed values to plan
 * it for: input 0 the frame's bytes, a rect_input's rectangle last. */
static vkml_status session_preprocess(vkml_session *s, const vkml_session_params *params,
                                      vkml_tensor_info **shapes, vkml_tensor **values,
                                      vkml_error *err)
{
    const graph *g = s->graph;
    if (params->input_values && g->n_inputs > 0 && params->input_values[0].data)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "pre-processing feeds input 0: it cannot also have a fixed value");
    vkml_status st = session_preprocess_graph(g, params->preprocess, params->input_shapes,
                                              s->symbolic, &s->pre_graph, err);
    if (st)
        return st;
    size_t n = (size_t)g->n_inputs, n_pre = (size_t)s->pre_graph->n_inputs;
    *shapes = calloc(n_pre, sizeof(vkml_tensor_info));
    if (params->input_values && (*values = calloc(n_pre, sizeof(vkml_tensor))))
        memcpy(*values, params->input_values, n * sizeof(vkml_tensor));
    if (!*shapes || (params->input_values && !*values))
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory creating a session");
    for (size_t i = 0; i < n; i++) {
        if (params->input_shapes)
            (*shapes)[i] = params->input_shapes[i];
        else
            graph_value_info(&g->values[g->inputs[i]], &(*shapes)[i]);
    }
    for (size_t i = n; i < n_pre; i++) /* the rectangle */
        graph_value_info(&s->pre_graph->values[s->pre_graph->inputs[i]], &(*shapes)[i]);
    graph_value_info(&s->pre_graph->values[s->pre_graph->inputs[0]], &(*shapes)[0]);
    s->graph = s->pre_graph;
    return VKML_OK;
}

static vkml_status session_create(vkml_context *ctx, vkml_model *model,
                                  const vkml_session_params *params, const log_sink *log,
                                  vkml_session **out, vkml_error *err)
{
    int64_t symbolic = params && params->symbolic_dim_value > 0 ? params->symbolic_dim_value : 1;
    plan_target target = {.ctx = ctx,
                          .host = ctx->host,
                          .runner = ctx->host_runner,
                          .budget = params ? params->device_budget : 0,
                          .no_fuse = (params && params->no_fuse) || graph_fusion_disabled(),
                          .profile = params && params->profile};
    int first = VKML_DEVICE_CPU;
    vkml_status st = session_target(ctx, params, &target, &first, err);
    if (st)
        return st;
    vkml_session *s = calloc(1, sizeof(*s));
    if (!s)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory creating a session");
    s->ctx = context_ref(ctx); /* the devices outlive the session, whatever the caller does */
    s->log = *log;
    target.log = &s->log;
    s->device = first;
    s->model = model_ref(model);
    s->symbolic = symbolic;
    s->target = target;
    int spin_us = params ? params->wait_spin_us : 0;
    if (spin_us > VKML_MAX_WAIT_SPIN_US) {
        vkml_session_destroy(&s);
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "wait_spin_us %d: at most %d", spin_us,
                         VKML_MAX_WAIT_SPIN_US);
    }
    s->wait_spin_ns = spin_us == 0  ? DEVICE_SPIN_DEFAULT
                      : spin_us > 0 ? (uint64_t)spin_us * 1000
                                    : 0;
    int lanes = params && params->runs_in_flight > 0 ? params->runs_in_flight : 1;
    if (lanes > VKML_MAX_RUNS_IN_FLIGHT) {
        vkml_session_destroy(&s);
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "%d runs in flight (at most %d)", lanes,
                         VKML_MAX_RUNS_IN_FLIGHT);
    }
    /* data parallel: the same number of lanes on every GPU of the set */
    int replicas = params && params->data_parallel && target.n_devices > 1 ? target.n_devices : 1;
    s->n_replicas = replicas;
    lanes = (lanes + replicas - 1) / replicas * replicas;
    if (lanes > VKML_MAX_RUNS_IN_FLIGHT) {
        vkml_session_destroy(&s);
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "data parallel over %d GPUs needs %d runs in flight (a multiple of "
                         "the GPU count; at most %d)",
                         replicas, lanes, VKML_MAX_RUNS_IN_FLIGHT);
    }
    s->target.runs_overlap = lanes > 1;
    s->target.max_loop_iterations = params && params->max_loop_iterations > 0
                                        ? params->max_loop_iterations
                                        : VKML_DEFAULT_MAX_LOOP_ITERATIONS;
    if ((st = session_cpu_threads(params ? params->cpu_threads : 0, &s->target.cpu_threads, err))) {
        vkml_session_destroy(&s);
        return st;
    }
    bool host_boundary = !params || (!params->preprocess && !params->input_values);
    if ((st = session_use_precision(s, params ? params->precision : VKML_PRECISION_FP32,
                                    host_boundary, err)) ||
        (st = session_lanes_init(s, lanes, err))) {
        vkml_session_destroy(&s);
        return st;
    }
    vkml_tensor_info *pre_shapes = NULL;
    vkml_tensor *pre_values = NULL;
    if (params && params->preprocess)
        st = session_preprocess(s, params, &pre_shapes, &pre_values, err);
    const vkml_tensor_info *shapes = params ? params->input_shapes : NULL;
    const vkml_tensor *values = params ? params->input_values : NULL;
    if (st == VKML_OK)
        st = session_plan_for(s, pre_shapes ? pre_shapes : shapes, pre_values ? pre_values : values,
                              err);
    free(pre_shapes);
    free(pre_values);
    if (st != VKML_OK) {
        vkml_session_destroy(&s);
        return st;
    }
    *out = s;
    return VKML_OK;
}

vkml_status vkml_session_create(vkml_context *ctx, vkml_model *model,
                                const vkml_session_params *params, vkml_session **out,
                                vkml_error *err)
{
    if (!ctx || !model || !out)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "vkml_session_create: NULL argument");
    *out = NULL;
    /* The context's sink, with the session's own pointer when it has one. */
    log_sink log = ctx->log;
    if (params && params->log_user)
        log.user = params->log_user;
    const log_sink *outer = log_scope_enter(&log);
    vkml_status st = session_create(ctx, model, params, &log, out, err);
    if (st == VKML_OK && params && params->precision == VKML_PRECISION_FP16)
        session_choose_fp16(ctx, model, params, out);
    log_scope_leave(outer);
    return st;
}

void vkml_session_destroy(vkml_session **sp)
{
    if (!sp || !*sp)
        return;
    vkml_session *s = *sp;
    log_sink log = s->log; /* s is freed below */
    const log_sink *outer = log_scope_enter(&log);
    session_lanes_destroy(s); /* waits for the runs in flight */
    free(s->shapes);
    free_fixed(s->fixed, s->model ? (size_t)s->model->graph->n_inputs : 0);
    free(s->host_half);
    graph_destroy(&s->pre_graph); /* after the plans of it (the lanes) */
    graph_destroy(&s->own_graph); /* after pre_graph, which shares its nodes */
    model_unref(s->model);
    context_unref(s->ctx);
    free(s->inputs);
    free(s->outputs);
    free(s);
    *sp = NULL;
    log_scope_leave(outer);
}

size_t vkml_session_input_count(const vkml_session *s)
{
    return s ? s->n_inputs : 0;
}

size_t vkml_session_output_count(const vkml_session *s)
{
    return s ? s->n_outputs : 0;
}

const vkml_tensor_info *vkml_session_input(const vkml_session *s, size_t i)
{
    return s && i < s->n_inputs ? &s->inputs[i] : NULL;
}

const vkml_tensor_info *vkml_session_output(const vkml_session *s, size_t i)
{
    return s && i < s->n_outputs ? &s->outputs[i] : NULL;
}

vkml_precision vkml_session_precision(const vkml_session *s)
{
    return s ? s->precision : VKML_PRECISION_FP32;
}

int vkml_session_device(const vkml_session *s)
{
    return s ? s->device : VKML_DEVICE_CPU;
}

int vkml_session_runs_in_flight(const vkml_session *s)
{
    return s ? s->n_lanes : 0;
}

int vkml_session_replica_count(const vkml_session *s, int *replica_device, int max)
{
    if (!s)
        return 0;
    for (int k = 0; replica_device && k < s->n_replicas && k < max; k++)
        replica_device[k] = s->n_replicas > 1 ? s->target.dev_index[k] : s->device;
    return s->n_replicas;
}

/* Checks a caller tensor against the session's info; what is "input"/"output". */
static vkml_status check_tensor(const vkml_tensor_info *info, const vkml_tensor *t,
                                const char *what, size_t index, size_t *bytes, vkml_error *err)
{
    char want[160], got[160];
    if (t->dtype != info->dtype)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "%s %zu ('%s'): dtype %s, expected %s",
                         what, index, info->name, vkml_dtype_name(t->dtype),
                         vkml_dtype_name(info->dtype));
    bool same = t->rank == info->rank;
    /* A data-dependent output's dims were set by the last run: any extent within the
     * bound (the size check below asks room for the bound); an unbounded one's, any. */
    for (int d = 0; same && d < info->rank; d++)
        same = t->dims[d] == info->dims[d] || (info->data_dependent && t->dims[d] >= 0 &&
                                               (info->unbounded || t->dims[d] <= info->dims[d]));
    if (!same)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "%s %zu ('%s'): shape %s, expected %s",
                         what, index, info->name,
                         graph_shape_string(t->rank, t->dims, got, sizeof(got)),
                         graph_shape_string(info->rank, info->dims, want, sizeof(want)));
    if (!vkml_tensor_bytes(info->dtype, info->rank, info->dims, bytes))
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s %zu ('%s'): dtype %s has no fixed size",
                         what, index, info->name, vkml_dtype_name(info->dtype));
    if ((*bytes && !t->data) || t->size < *bytes)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "%s %zu ('%s'): %zu bytes given, %zu needed", what, index, info->name,
                         t->data ? t->size : 0, *bytes);
    return VKML_OK;
}

/* A string input's pointers: every one set (kernels read them all). */
static vkml_status check_strings(const vkml_tensor *t, size_t index, const char *name,
                                 vkml_error *err)
{
    const char *const *strings = t->data;
    size_t n = vkml_tensor_element_count(t->rank, t->dims);
    for (size_t k = 0; t->dtype == VKML_DTYPE_STRING && k < n; k++)
        if (!strings[k])
            return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                             "input %zu ('%s'): string %zu is NULL", index, name, k);
    return VKML_OK;
}

/* A run's copy of an input or output between the caller's memory and the session's
 * (host-visible device memory, host memory): large ones on several threads, since one core
 * copied 4 MiB in 235 us into an H200's memory and out of it in 380 us. host_half inputs
 * and outputs are converted on the way (bytes: the caller's, float32). */
#define COPY_BLOCK 65536 /* the caller's bytes a block */

typedef enum { RUN_COPY_BYTES, RUN_COPY_TO_HALF, RUN_COPY_FROM_HALF } run_copy;

typedef struct copy_job {
    unsigned char *dst;
    const unsigned char *src;
    size_t bytes;
    run_copy how;
} copy_job;

static void copy_blocks(void *ctx, int64_t begin, int64_t end)
{
    const copy_job *j = ctx;
    size_t from = (size_t)begin * COPY_BLOCK, to = (size_t)end * COPY_BLOCK;
    size_t n = (to < j->bytes ? to : j->bytes) - from;
    if (j->how == RUN_COPY_TO_HALF)
        vkml_halves_from_floats((uint16_t *)(void *)j->dst + from / 4,
                                (const float *)(const void *)(j->src + from), n / 4);
    else if (j->how == RUN_COPY_FROM_HALF)
        vkml_floats_from_halves((float *)(void *)(j->dst + from),
                                (const uint16_t *)(const void *)j->src + from / 4, n / 4);
    else
        memcpy(j->dst + from, j->src + from, n);
}

static void copy_run(void *dst, const void *src, size_t bytes, run_copy how)
{
    copy_job j = {.dst = dst, .src = src, .bytes = bytes, .how = how};
    /* a byte counts as a flop: below sched_parallel_for's threshold one thread copies */
    sched_parallel_for((int64_t)((bytes + COPY_BLOCK - 1) / COPY_BLOCK), COPY_BLOCK, copy_blocks,
                       &j);
}

vkml_status session_copy_inputs(vkml_session *s, session_lane *l, const vkml_tensor *inputs,
                                vkml_error *err)
{
    plan *p = l->plan;
    for (size_t i = 0; i < s->n_inputs; i++) {
        size_t bytes;
        vkml_status st = check_tensor(&s->inputs[i], &inputs[i], "input", i, &bytes, err);
        if (st == VKML_OK)
            st = check_strings(&inputs[i], i, s->inputs[i].name, err);
        if (st != VKML_OK)
            return st;
        int v = p->graph->inputs[i];
        for (int slot = 0; slot < p->n_devices; slot++)
            if (p->devices[slot].value_plans[v].used)
                copy_run(plan_value_ptr(p, slot, v), inputs[i].data, bytes,
                         s->host_half && s->host_half[i] ? RUN_COPY_TO_HALF : RUN_COPY_BYTES);
    }
    return VKML_OK;
}

/* Points a string output's pointers (copied from where the run made them) at the
 * session's own copies, which live until the next run: the strings may have been the
 * caller's inputs, constants or a device's per-run store. */
static vkml_status own_strings(session_lane *l, vkml_tensor *t, size_t bytes, vkml_error *err)
{
    const char **strings = t->data;
    for (size_t k = 0; k < bytes / sizeof(char *); k++)
        if (!(strings[k] = vkml_arena_strdup(l->out_strings, strings[k])))
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory for string outputs");
    return VKML_OK;
}

static vkml_status copy_outputs(vkml_session *s, session_lane *l, const vkml_tensor *inputs,
                                vkml_tensor *outputs, vkml_error *err)
{
    vkml_arena_destroy(&l->out_strings);
    if (!(l->out_strings = vkml_arena_create()))
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory for the outputs");
    plan *p = l->plan;
    for (size_t i = 0; i < s->n_outputs; i++) {
        size_t bytes;
        vkml_status st = check_tensor(&s->outputs[i], &outputs[i], "output", i, &bytes, err);
        if (st != VKML_OK)
            return st;
        int v = p->graph->outputs[i];
        const graph_value *val = &p->values[v];
        const void *src;
        if (val->kind == GRAPH_VALUE_CONSTANT) {
            src = val->data;
        } else if (val->kind == GRAPH_VALUE_INPUT) {
            int k = 0;
            while (p->graph->inputs[k] != v)
                k++;
            src = inputs[k].data;
        } else if (p->value_home[v] == PLAN_SLOT_TAIL) { /* this run's extent, dense */
            const int64_t *dims = NULL;
            src = plan_tail_value(p->tail, v, &dims);
            size_t room = outputs[i].data ? outputs[i].size : 0;
            if (!vkml_tensor_bytes(s->outputs[i].dtype, val->rank, dims, &bytes))
                return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "output %zu ('%s') has no size", i,
                                 val->name);
            if (bytes > room && !outputs[i].data && s->outputs[i].unbounded) {
                if (!(outputs[i].data = malloc(bytes ? bytes : 1)))
                    return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY,
                                     "out of memory for output %zu ('%s', %zu bytes)", i, val->name,
                                     bytes);
                outputs[i].size = room = bytes;
            }
            if (bytes > room)
                return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                                 "output %zu ('%s'): this run made %zu bytes, more than the "
                                 "%zu given%s",
                                 i, val->name, bytes, room,
                                 s->outputs[i].unbounded
                                     ? " (an unbounded output: give it data NULL and the run "
                                       "allocates it)"
                                     : "");
            memcpy(outputs[i].dims, dims, sizeof(int64_t) * (size_t)val->rank);
        } else {
            src = plan_value_ptr(p, p->value_home[v], v);
        }
        copy_run(outputs[i].data, src, bytes,
                 s->host_half && s->host_half[s->n_inputs + i] ? RUN_COPY_FROM_HALF
                                                               : RUN_COPY_BYTES);
        if (val->dtype == VKML_DTYPE_STRING && (st = own_strings(l, &outputs[i], bytes, err)))
            return st;
    }
    return VKML_OK;
}

/* Whether a run's input equals the value the plan fixed for it. */
static bool same_value(const vkml_tensor *fixed, const vkml_tensor *t)
{
    if (t->dtype != fixed->dtype || t->rank != fixed->rank || !t->data || t->size < fixed->size)
        return false;
    for (int d = 0; d < t->rank; d++)
        if (t->dims[d] != fixed->dims[d])
            return false;
    return memcmp(t->data, fixed->data, fixed->size) == 0;
}

/* A run with other values for the fixed inputs gets a plan for them. */
vkml_status session_replan_for_values(vkml_session *s, const vkml_tensor *inputs, vkml_error *err)
{
    bool changed = false;
    for (size_t i = 0; s->fixed && i < s->n_inputs; i++)
        changed |= s->fixed[i].data && !same_value(&s->fixed[i], &inputs[i]);
    if (!changed)
        return VKML_OK;
    vkml_tensor *values = calloc(s->n_inputs + 1, sizeof(*values));
    if (!values)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory planning again");
    for (size_t i = 0; i < s->n_inputs; i++)
        if (s->fixed[i].data)
            values[i] = inputs[i];
    vkml_status st = session_plan_for(s, s->shapes, values, err);
    free(values);
    return st;
}

vkml_status session_check_counts(const vkml_session *s, const vkml_tensor *inputs, size_t n_inputs,
                                 const vkml_tensor *outputs, size_t n_outputs, const char *call,
                                 vkml_error *err)
{
    if (!s || (n_inputs && !inputs) || (n_outputs && !outputs))
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "%s: NULL argument", call);
    if (n_inputs != s->n_inputs || n_outputs != s->n_outputs)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "%s: %zu inputs and %zu outputs given, the model has %zu and %zu", call,
                         n_inputs, n_outputs, s->n_inputs, s->n_outputs);
    return VKML_OK;
}

vkml_status session_execute(vkml_session *s, session_lane *l, const vkml_tensor *inputs,
                            vkml_tensor *outputs, vkml_error *err)
{
    vkml_status st = sched_graph_run(l->sched, err);
    if (st == VKML_OK && l->plan->tail)
        st = plan_tail_run(l->plan, l->plan->tail, inputs, err);
    if (st == VKML_OK)
        st = copy_outputs(s, l, inputs, outputs, err);
    return st;
}

vkml_status vkml_session_alloc_output(const vkml_session *s, size_t index, vkml_tensor *t,
                                      vkml_error *err)
{
    if (!s || !t || index >= s->n_outputs)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "vkml_session_alloc_output: bad session, tensor or index");
    const vkml_tensor_info *info = &s->outputs[index];
    memset(t, 0, sizeof(*t));
    size_t bytes;
    if (!vkml_tensor_bytes(info->dtype, info->rank, info->dims, &bytes))
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "output '%s' has no fixed size", info->name);
    t->dtype = info->dtype;
    t->rank = info->rank;
    memcpy(t->dims, info->dims, sizeof(t->dims));
    if (info->unbounded)
        return VKML_OK; /* the run allocates it */
    t->data = malloc(bytes ? bytes : 1);
    if (!t->data)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory for output '%s' (%zu bytes)",
                         info->name, bytes);
    t->size = bytes;
    return VKML_OK;
}

void vkml_session_node_counts(const vkml_session *s, size_t *folded, size_t *on_device,
                              size_t *on_cpu_fallback)
{
    size_t counts[3] = {0, 0, 0}; /* folded, slot 0, other slots */
    const plan *p = s ? s->plan : NULL;
    bool cpu_session = s && s->device == VKML_DEVICE_CPU;
    for (int i = 0; p && i < p->graph->n_nodes; i++) {
        int slot = p->node_slot[i];
        if (slot == PLAN_SLOT_TAIL) /* the dynamic tail runs the CPU kernels */
            counts[cpu_session ? 1 : 2]++;
        else if (slot < 0)
            counts[0]++;
        else /* any device of the set, or the CPU as a GPU session's fallback */
            counts[cpu_session || p->devices[slot].index != VKML_DEVICE_CPU ? 1 : 2]++;
    }
    if (folded)
        *folded = counts[0];
    if (on_device)
        *on_device = counts[1];
    if (on_cpu_fallback)
        *on_cpu_fallback = counts[2];
}

const plan *session_plan(const vkml_session *s)
{
    return s ? s->plan : NULL;
}
