/* The dynamic tail of a plan: see tail.h. */
#include "plan/tail.h"
#include "passes/cf_run.h"
#include "plan/tail_gpu.h"

#include <stdlib.h>
#include <string.h>

struct plan_tail {
    const graph *graph;
    const op_host_runner *runner; /* runs its nodes on the host */
    tail_gpu *gpu;                /* runs its heavy nodes on the plan's GPU, or NULL */
    bool *node_in;                /* per node */
    bool *reads;                  /* per value: read by the tail, made by the planned part */
    int *nodes;                   /* tail nodes, in order */
    int n_nodes;
    graph_value *values; /* shapes of this run (a copy of the plan's values) */
    void **bufs;         /* per value the tail makes: its bytes (owned) */
    size_t *caps;        /* bytes allocated at bufs */
    vkml_arena *strings; /* this run's: its string values' strings, what control flow made */
    double *us;          /* per tail node (in order): its wall time in the last run */
    bool *done;          /* per tail node (in order): ran in this run's GPU chain */
};

void plan_tail_destroy(plan_tail **tp)
{
    plan_tail *t = tp ? *tp : NULL;
    if (!t)
        return;
    for (int v = 0; t->bufs && v < t->graph->n_values; v++)
        free(t->bufs[v]);
    free(t->bufs);
    free(t->caps);
    tail_gpu_destroy(&t->gpu);
    free(t->us);
    free(t->done);
    vkml_arena_destroy(&t->strings);
    free(t->values);
    free(t->nodes);
    free(t->reads);
    free(t->node_in);
    free(t);
    *tp = NULL;
}

static bool reads_tail(const plan_tail *t, const graph *g, const graph_node *n)
{
    for (int k = 0; k < n->n_inputs; k++) {
        int v = n->inputs[k], producer = v >= 0 ? g->values[v].producer : -1;
        if (producer >= 0 && t->node_in[producer])
            return true;
    }
    return false;
}

static void mark_unbounded_outputs(plan *p, const plan_tail *t);

vkml_status plan_tail_create(plan *p, const bool *folded, const plan_target *target,
                             plan_tail **out, vkml_error *err)
{
    const op_host_runner *runner = target->runner;
    const graph *g = p->graph;
    *out = NULL;
    plan_tail *t = calloc(1, sizeof(*t));
    if (!t || !(t->node_in = calloc((size_t)g->n_nodes + 1, sizeof(bool))) ||
        !(t->nodes = calloc((size_t)g->n_nodes + 1, sizeof(int))) ||
        !(t->reads = calloc((size_t)g->n_values + 1, sizeof(bool)))) {
        plan_tail_destroy(&t);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory planning");
    }
    t->graph = g;
    t->runner = runner;
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node *n = &g->nodes[i];
        /* A node folded at plan time that reads the tail (Shape of a value whose extent
         * is the data's, and what computes on it: torchvision's min(k, count) for TopK,
         * the shapes of its Expand and Reshape) folded the planned bound: it is computed
         * again from each run's extents. */
        bool data_dependent = !folded[i] && n->op && (n->op->flags & OP_DATA_DEPENDENT);
        if (!n->op || (!data_dependent && !reads_tail(t, g, n)))
            continue;
        t->node_in[i] = true;
        t->nodes[t->n_nodes++] = i;
        for (int o = 0; o < n->n_outputs; o++)
            if (n->outputs[o] >= 0)
                p->values[n->outputs[o]].data_dependent = true;
    }
    if (t->n_nodes == 0) {
        plan_tail_destroy(&t);
        return VKML_OK;
    }
    for (int k = 0; k < t->n_nodes; k++) {
        const graph_node *n = &g->nodes[t->nodes[k]];
        for (int i = 0; i < n->n_inputs; i++) {
            int v = n->inputs[i], producer = v >= 0 ? g->values[v].producer : -1;
            if (producer >= 0 && !t->node_in[producer] && !folded[producer])
                t->reads[v] = true;
        }
    }
    t->values = malloc(sizeof(graph_value) * ((size_t)g->n_values + 1));
    t->bufs = calloc((size_t)g->n_values + 1, sizeof(void *));
    t->caps = calloc((size_t)g->n_values + 1, sizeof(size_t));
    t->us = calloc((size_t)t->n_nodes + 1, sizeof(double));
    t->done = calloc((size_t)t->n_nodes + 1, sizeof(bool));
    if (!t->values || !t->bufs || !t->caps || !t->us || !t->done) {
        plan_tail_destroy(&t);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory planning");
    }
    mark_unbounded_outputs(p, t);
    t->gpu = tail_gpu_create(target, g, p->values, t->nodes, t->n_nodes);
    *out = t;
    return VKML_OK;
}

/* The control-flow node of the tail that `value` is made from (through tail nodes), or -1
 * (also when out of memory: then no refusal names it). */
static int control_flow_source(const plan_tail *t, const graph *g, int value)
{
    int *stack = malloc(sizeof(int) * ((size_t)g->n_nodes + 1));
    bool *seen = calloc((size_t)g->n_nodes + 1, sizeof(bool));
    int top = 0, found = -1, producer = g->values[value].producer;
    if (stack && seen && producer >= 0 && t->node_in[producer]) {
        stack[top++] = producer;
        seen[producer] = true;
    }
    while (top > 0 && found < 0) {
        const graph_node *n = &g->nodes[stack[--top]];
        if (n->op->flags & OP_CONTROL_FLOW)
            found = (int)(n - g->nodes);
        for (int k = 0; k < n->n_inputs && found < 0; k++) {
            int q = n->inputs[k] >= 0 ? g->values[n->inputs[k]].producer : -1;
            if (q >= 0 && t->node_in[q] && !seen[q]) {
                seen[q] = true;
                stack[top++] = q;
            }
        }
    }
    free(stack);
    free(seen);
    return found;
}

/* A graph output the tail makes whose planned bound holds no element though control flow
 * makes it (a Loop's carried value grown each iteration by a step the probe could not
 * work out, left with its empty initial value as bound): no room can be planned for it,
 * so it is unbounded (graph_value.unbounded): each run gives the caller its extent. */
static void mark_unbounded_outputs(plan *p, const plan_tail *t)
{
    const graph *g = p->graph;
    char label[300];
    for (int i = 0; i < g->n_outputs; i++) {
        int v = g->outputs[i];
        graph_value *val = &p->values[v];
        if (val->producer < 0 || !t->node_in[val->producer] ||
            vkml_tensor_element_count(val->rank, val->dims) != 0)
            continue;
        int cf = control_flow_source(t, g, v);
        if (cf < 0)
            continue;
        val->unbounded = true;
        VKML_LOGI("graph output '%s' is sized by each run: %s makes it, and its size is known "
                  "only as it runs",
                  val->name, graph_node_label(g, cf, label, sizeof(label)));
    }
}

bool plan_tail_has_node(const plan_tail *t, int node)
{
    return t && t->node_in[node];
}

bool plan_tail_reads(const plan_tail *t, int value)
{
    return t && t->reads[value];
}

/* Where an input of a tail node is this run. */
static const void *input_bytes(plan *p, plan_tail *t, const vkml_tensor *inputs, int v)
{
    const graph_value *val = &p->values[v];
    int producer = val->producer;
    if (producer >= 0 && t->node_in[producer])
        return t->bufs[v];
    if (val->kind == GRAPH_VALUE_CONSTANT)
        return val->data;
    if (val->kind == GRAPH_VALUE_INPUT) {
        for (int k = 0; k < p->graph->n_inputs; k++)
            if (p->graph->inputs[k] == v)
                return inputs[k].data;
        return NULL;
    }
    return plan_value_ptr(p, p->value_home[v], v);
}

/* Output buffers of one node, sized for this run's shapes. */
static vkml_status size_outputs(plan_tail *t, const graph_node *n, void **out, vkml_error *err)
{
    for (int o = 0; o < n->n_outputs; o++) {
        int v = n->outputs[o];
        size_t bytes;
        out[o] = NULL;
        if (v < 0)
            continue;
        const graph_value *val = &t->values[v];
        if (!vkml_tensor_bytes(val->dtype, val->rank, val->dims, &bytes))
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "'%s' has no size", val->name);
        if (bytes > t->caps[v] || !t->bufs[v]) {
            void *grown = realloc(t->bufs[v], bytes ? bytes : 1);
            if (!grown)
                return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY,
                                 "out of memory for '%s' (%zu bytes)", val->name, bytes);
            t->bufs[v] = grown;
            t->caps[v] = bytes;
        }
        out[o] = t->bufs[v];
    }
    return VKML_OK;
}

/* A control-flow node: its subgraphs run on the host (passes/cf_run.h), its outputs are
 * copied into the tail's buffers. */
static vkml_status run_control(plan *p, plan_tail *t, const vkml_tensor *inputs, int index,
                               vkml_error *err)
{
    const graph_node *n = &p->graph->nodes[index];
    void *out[n->n_outputs + 1];
    for (int k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] >= 0)
            t->values[n->inputs[k]].data = input_bytes(p, t, inputs, n->inputs[k]);
    cf_env env = {.runner = t->runner, .max_iterations = p->max_loop_iterations};
    vkml_status st = cf_run_node(&env, p->graph, t->values, index, t->strings, err);
    for (int o = 0; st == VKML_OK && o < n->n_outputs; o++) {
        int v = n->outputs[o];
        if (v >= 0 && p->values[v].is_output && t->values[v].rank != p->values[v].rank)
            st = vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                           "graph output '%s' has rank %d in this run, %d when planned",
                           t->values[v].name, t->values[v].rank, p->values[v].rank);
    }
    if (st == VKML_OK)
        st = size_outputs(t, n, out, err);
    for (int o = 0; st == VKML_OK && o < n->n_outputs; o++) {
        const graph_value *v = n->outputs[o] >= 0 ? &t->values[n->outputs[o]] : NULL;
        if (v)
            memcpy(out[o], v->data, v->data_size);
    }
    return st;
}

/* Where node n's inputs are this run (in[]), also set as their values' data: the shape
 * function reads this run's values. */
static void bind_inputs(plan *p, plan_tail *t, const vkml_tensor *inputs, const graph_node *n,
                        const void **in)
{
    for (int k = 0; k < n->n_inputs; k++) {
        graph_value *v = n->inputs[k] >= 0 ? &t->values[n->inputs[k]] : NULL;
        size_t bytes = 0;
        in[k] = v ? input_bytes(p, t, inputs, n->inputs[k]) : NULL;
        if (v && in[k] && v->dtype != VKML_DTYPE_STRING &&
            vkml_tensor_bytes(v->dtype, v->rank, v->dims, &bytes)) {
            v->data = in[k];
            v->data_size = bytes;
        }
    }
}

/* The chain of GPU nodes at the tail's k-th node (plan/tail_gpu.h): this run's shapes of
 * its nodes, then the chain on the GPU when they allow; *ran false when the host is to run
 * its nodes one by one. */
static vkml_status run_chain(plan *p, plan_tail *t, const vkml_tensor *inputs, int k, int len,
                             bool *ran, vkml_error *err)
{
    const graph_node *first = &p->graph->nodes[t->nodes[k]];
    const graph_node *last = &p->graph->nodes[t->nodes[tail_gpu_member(t->gpu, k, len - 1)]];
    const void *in[first->n_inputs + 1];
    void *out[last->n_outputs + 1];
    *ran = false;
    bind_inputs(p, t, inputs, first, in);
    vkml_status st = VKML_OK;
    for (int j = 0; j < len && st == VKML_OK; j++) {
        const graph_node *n = &p->graph->nodes[t->nodes[tail_gpu_member(t->gpu, k, j)]];
        st = n->op->infer(t->values, n, err);
    }
    if (st == VKML_OK)
        st = size_outputs(t, last, out, err);
    if (st == VKML_OK)
        st = tail_gpu_run(t->gpu, p->graph, t->values, k, in, out, ran, err);
    return st;
}

static vkml_status run_node(plan *p, plan_tail *t, const vkml_tensor *inputs, int index,
                            vkml_error *err)
{
    if (p->graph->nodes[index].op->flags & OP_CONTROL_FLOW)
        return run_control(p, t, inputs, index, err);
    const graph_node *n = &p->graph->nodes[index];
    const void *in[n->n_inputs + 1];
    void *out[n->n_outputs + 1];
    int64_t out_dims[n->n_outputs + 1][VKML_MAX_RANK];
    bind_inputs(p, t, inputs, n, in);
    vkml_status st = n->op->infer(t->values, n, err); /* this run's shapes */
    if (st == VKML_OK)
        st = size_outputs(t, n, out, err);
    if (st != VKML_OK)
        return st;
    for (int o = 0; o < n->n_outputs; o++)
        if (n->outputs[o] >= 0)
            memcpy(out_dims[o], t->values[n->outputs[o]].dims, sizeof(out_dims[o]));
    op_cpu_args args = {.values = t->values,
                        .node = n,
                        .in = in,
                        .out = out,
                        .out_dims = out_dims,
                        .strings = t->strings};
    if ((st = t->runner->run(&args, err)) != VKML_OK)
        return st;
    for (int o = 0; o < n->n_outputs; o++) { /* extents the kernel produced */
        graph_value *v = n->outputs[o] >= 0 ? &t->values[n->outputs[o]] : NULL;
        if (v && v->data_dependent)
            memcpy(v->dims, out_dims[o], sizeof(int64_t) * (size_t)v->rank);
    }
    return VKML_OK;
}

vkml_status plan_tail_run(plan *p, plan_tail *t, const vkml_tensor *inputs, vkml_error *err)
{
    char label[300];
    memcpy(t->values, p->values, sizeof(graph_value) * (size_t)p->graph->n_values);
    vkml_arena_destroy(&t->strings); /* the last run's: the caller has its copies */
    if (!(t->strings = vkml_arena_create()))
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory running the tail");
    memset(t->done, 0, sizeof(bool) * (size_t)t->n_nodes);
    for (int k = 0; k < t->n_nodes; k++) {
        if (t->done[k]) /* ran in a chain on the GPU */
            continue;
        uint64_t start = p->profile ? vkml_now_ns() : 0;
        int len = tail_gpu_chain(t->gpu, k);
        bool ran = false;
        vkml_status st = len ? run_chain(p, t, inputs, k, len, &ran, err) : VKML_OK;
        if (st == VKML_OK && !ran)
            st = run_node(p, t, inputs, t->nodes[k], err);
        if (p->profile) /* a chain's time is its first node's; the rest did not run here */
            t->us[k] = (double)(vkml_now_ns() - start) / 1e3;
        for (int j = 1; ran && j < len; j++) {
            t->done[tail_gpu_member(t->gpu, k, j)] = true;
            t->us[tail_gpu_member(t->gpu, k, j)] = 0;
        }
        if (st != VKML_OK) {
            vkml_error_prefix(err, "%s",
                              graph_node_label(p->graph, t->nodes[k], label, sizeof(label)));
            return st;
        }
    }
    return VKML_OK;
}

bool plan_tail_node_time(const plan_tail *t, int k, int *node, double *us)
{
    if (!t || k < 0 || k >= t->n_nodes)
        return false;
    *node = t->nodes[k];
    *us = t->us[k];
    return true;
}

const void *plan_tail_value(const plan_tail *t, int value, const int64_t **dims)
{
    int producer = t ? t->graph->values[value].producer : -1;
    if (producer < 0 || !t->node_in[producer])
        return NULL;
    *dims = t->values[value].dims;
    return t->bufs[value];
}
