#include "plan/plan.h"
#include "ops/fused_attention.h"
#include "ops/op.h"
#include "passes/fold.h"
#include "passes/fuse_attention.h"
#include "passes/fuse_eltwise.h"
#include "passes/fuse_qkv.h"
#include "passes/lower.h"
#include "plan/tail.h"
#include "plan/views.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Adds x to a small set held in arr[0..*n) (capacity is the caller's worry). */
static void set_add(int *arr, int *n, int x)
{
    for (int i = 0; i < *n; i++)
        if (arr[i] == x)
            return;
    arr[(*n)++] = x;
}

/* Consecutive nodes (in topological order) on one device form a chunk. */
static vkml_status build_chunks(plan *p, vkml_error *err)
{
    const graph *g = p->graph;
    p->chunks = vkml_arena_calloc(p->arena, (size_t)g->n_nodes + 1, sizeof(plan_chunk));
    if (!p->chunks)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory planning chunks");
    plan_chunk *cur = NULL;
    for (int i = 0; i < g->n_nodes; i++) {
        int slot = p->node_slot[i];
        if (slot < 0)
            continue;
        if (!cur || cur->slot != slot) {
            cur = &p->chunks[p->n_chunks++];
            cur->slot = slot;
            cur->local_index = p->devices[slot].n_chunks++;
            cur->nodes = vkml_arena_calloc(p->arena, (size_t)g->n_nodes, sizeof(int));
            if (!cur->nodes)
                return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory planning chunks");
        }
        cur->nodes[cur->n_nodes++] = i;
    }
    return VKML_OK;
}

static vkml_status alloc_value_plans(plan *p, vkml_error *err)
{
    int n_values = p->graph->n_values;
    for (int s = 0; s < p->n_devices; s++) {
        plan_device *d = &p->devices[s];
        d->value_plans =
            vkml_arena_calloc(p->arena, (size_t)n_values + 1, sizeof(device_value_plan));
        if (!d->value_plans)
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory planning values");
        for (int v = 0; v < n_values; v++) {
            d->value_plans[v].alias_of = -1;
            d->value_plans[v].constant =
                p->values[v].kind == GRAPH_VALUE_CONSTANT ? p->values[v].data : NULL;
        }
    }
    return VKML_OK;
}

/* Where each chunk's inputs come from: predecessors, and transfers for values produced on
 * another device (done once per device, by the first chunk there that reads the value). */
static vkml_status link_chunks(plan *p, vkml_error *err)
{
    const graph *g = p->graph;
    int n_values = g->n_values;
    int *chunk_of_node = calloc((size_t)g->n_nodes + 1, sizeof(int));
    int *first_reader = calloc((size_t)n_values * PLAN_MAX_DEVICES + 1, sizeof(int));
    if (!chunk_of_node || !first_reader) {
        free(chunk_of_node);
        free(first_reader);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory planning transfers");
    }
    for (int v = 0; v < n_values * PLAN_MAX_DEVICES; v++)
        first_reader[v] = -1;
    for (int c = 0; c < p->n_chunks; c++)
        for (int k = 0; k < p->chunks[c].n_nodes; k++)
            chunk_of_node[p->chunks[c].nodes[k]] = c;

    vkml_status status = VKML_OK;
    for (int c = 0; c < p->n_chunks && status == VKML_OK; c++) {
        plan_chunk *chunk = &p->chunks[c];
        size_t cap = 1;
        for (int k = 0; k < chunk->n_nodes; k++)
            cap += (size_t)g->nodes[chunk->nodes[k]].n_inputs;
        chunk->preds = vkml_arena_calloc(p->arena, cap, sizeof(int));
        chunk->transfers = vkml_arena_calloc(p->arena, cap, sizeof(int));
        if (!chunk->preds || !chunk->transfers) {
            status = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory planning chunks");
            break;
        }
        device_value_plan *plans = p->devices[chunk->slot].value_plans;
        for (int k = 0; k < chunk->n_nodes; k++) {
            const graph_node *n = &g->nodes[chunk->nodes[k]];
            for (int o = 0; o < n->n_outputs; o++)
                if (n->outputs[o] >= 0)
                    plans[n->outputs[o]].used = true;
            for (int i = 0; i < n->n_inputs; i++) {
                int v = n->inputs[i];
                if (v < 0)
                    continue;
                plans[v].used = true;
                int producer = p->values[v].producer;
                if (p->values[v].kind != GRAPH_VALUE_INTERMEDIATE || producer < 0)
                    continue;
                int from = chunk_of_node[producer];
                if (from == c)
                    continue;
                set_add(chunk->preds, &chunk->n_preds, from);
                int home = p->value_home[v];
                if (home == chunk->slot)
                    continue;
                int *first = &first_reader[v * PLAN_MAX_DEVICES + chunk->slot];
                if (*first < 0) {
                    *first = c;
                    set_add(chunk->transfers, &chunk->n_transfers, v);
                    plans[v].host_access = true;
                    p->devices[home].value_plans[v].host_access = true;
                } else if (*first != c) {
                    set_add(chunk->preds, &chunk->n_preds, *first);
                }
            }
        }
    }
    free(chunk_of_node);
    free(first_reader);
    return status;
}

/* Graph inputs and outputs are host-visible where they live; OP_ALIAS outputs share their
 * input's memory on the same device, views (plan/views.h) a part of another value's. */
static void mark_io_and_aliases(plan *p)
{
    const graph *g = p->graph;
    for (int s = 0; s < p->n_devices; s++) {
        device_value_plan *plans = p->devices[s].value_plans;
        for (int v = 0; v < g->n_values; v++) {
            const graph_value *val = &p->values[v];
            if (!plans[v].used)
                continue;
            if (val->kind == GRAPH_VALUE_INPUT ||
                ((val->is_output || plan_tail_reads(p->tail, v)) && p->value_home[v] == s))
                plans[v].host_access = true;
        }
        for (int i = 0; i < g->n_nodes; i++) {
            const graph_node *n = &g->nodes[i];
            if (p->node_slot[i] != s || !(n->op->flags & OP_ALIAS) || n->n_inputs < 1 ||
                n->n_outputs < 1 || n->inputs[0] < 0 || n->outputs[0] < 0)
                continue;
            uint64_t offset;
            int root = device_alias_root(plans, g->n_values, n->inputs[0], &offset);
            if (p->values[root].kind == GRAPH_VALUE_CONSTANT)
                continue;
            plans[n->outputs[0]].alias_of = root;
            plans[n->outputs[0]].alias_offset = offset;
        }
        plan_mark_views(p, s);
        /* An alias that the host touches makes its root host-visible. */
        for (int v = 0; v < g->n_values; v++)
            if (plans[v].alias_of >= 0 && plans[v].host_access)
                plans[device_alias_root(plans, g->n_values, v, NULL)].host_access = true;
    }
}

/* Transfers between two devices that can both use one host allocation share one
 * (plan.h); VKML_NO_SHARED_HOST=1 keeps every transfer a host copy. */
static vkml_status share_transfers(plan *p, vkml_error *err)
{
    if (vkml_env_flag("VKML_NO_SHARED_HOST"))
        return VKML_OK;
    p->shared_host = vkml_arena_calloc(p->arena, (size_t)p->graph->n_values + 1, sizeof(void *));
    if (!p->shared_host)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory planning transfers");
    for (int c = 0; c < p->n_chunks; c++) {
        const plan_chunk *chunk = &p->chunks[c];
        for (int t = 0; t < chunk->n_transfers; t++) {
            int v = chunk->transfers[t], home = p->value_home[v];
            device_value_plan *from = &p->devices[home].value_plans[v];
            device_value_plan *to = &p->devices[chunk->slot].value_plans[v];
            size_t a = p->devices[home].dev->host_share_align;
            size_t b = p->devices[chunk->slot].dev->host_share_align;
            size_t bytes = 0, align = a > b ? a : b;
            if (!a || !b || from->alias_of >= 0 || to->alias_of >= 0 || from->constant ||
                !vkml_tensor_bytes(p->values[v].dtype, p->values[v].rank, p->values[v].dims,
                                   &bytes) ||
                (from->shared_host && (size_t)(uintptr_t)from->shared_host % align))
                continue;
            if (!from->shared_host) {
                size_t rounded = (bytes + align - 1) / align * align;
                void *mem = aligned_alloc(align, rounded ? rounded : align);
                if (!mem)
                    return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY,
                                     "out of memory for a %zu-byte transfer buffer", bytes);
                memset(mem, 0, rounded ? rounded : align);
                p->shared_host[v] = from->shared_host = mem;
            }
            to->shared_host = from->shared_host;
        }
    }
    return VKML_OK;
}

/* Chunk counts past which the ancestor tables are not built (their memory grows as the
 * square): the memory plan then knows no chunk order, and a value touched by several
 * chunks shares memory with no value of another chunk. */
#define PLAN_MAX_ORDERED_CHUNKS 2048

/* Per device, which of its chunks end before which others start: a chunk's ancestors in
 * the chunk graph (preds point to lower indices, so one pass in index order builds each
 * chunk's ancestor set as a bitset from its predecessors'). */
static vkml_status order_chunks(plan *p, vkml_error *err)
{
    int n = p->n_chunks;
    if (n > PLAN_MAX_ORDERED_CHUNKS)
        return VKML_OK;
    size_t words = ((size_t)n + 63) / 64;
    uint64_t *anc = calloc((size_t)n * words + 1, sizeof(uint64_t));
    if (!anc)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory ordering chunks");
    for (int c = 0; c < n; c++) {
        uint64_t *mine = &anc[(size_t)c * words];
        for (int k = 0; k < p->chunks[c].n_preds; k++) {
            int pred = p->chunks[c].preds[k];
            if (pred < 0 || pred >= c)
                continue; /* never: preds come first */
            const uint64_t *theirs = &anc[(size_t)pred * words];
            for (size_t w = 0; w < words; w++)
                mine[w] |= theirs[w];
            mine[pred / 64] |= 1ull << (pred % 64);
        }
    }
    for (int s = 0; s < p->n_devices; s++) {
        plan_device *d = &p->devices[s];
        size_t m = (size_t)d->n_chunks;
        if (!(d->chunk_before = vkml_arena_calloc(p->arena, m * m + 1, 1))) {
            free(anc);
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory ordering chunks");
        }
    }
    for (int b = 0; b < n; b++)
        for (int a = 0; a < b; a++)
            if (p->chunks[a].slot == p->chunks[b].slot &&
                ((anc[(size_t)b * words + (size_t)a / 64] >> (a % 64)) & 1)) {
                plan_device *d = &p->devices[p->chunks[a].slot];
                d->chunk_before[(size_t)p->chunks[a].local_index * (size_t)d->n_chunks +
                                (size_t)p->chunks[b].local_index] = 1;
            }
    free(anc);
    return VKML_OK;
}

static vkml_status create_device_sessions(plan *p, vkml_error *err)
{
    vkml_status order_st = order_chunks(p, err);
    if (order_st != VKML_OK)
        return order_st;
    for (int s = 0; s < p->n_devices; s++) {
        plan_device *d = &p->devices[s];
        d->chunk_descs =
            vkml_arena_calloc(p->arena, (size_t)d->n_chunks + 1, sizeof(device_chunk_desc));
        if (!d->chunk_descs)
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory planning devices");
    }
    for (int c = 0; c < p->n_chunks; c++) {
        plan_chunk *chunk = &p->chunks[c];
        device_chunk_desc *desc = &p->devices[chunk->slot].chunk_descs[chunk->local_index];
        desc->nodes = chunk->nodes;
        desc->n_nodes = chunk->n_nodes;
    }
    for (int s = 0; s < p->n_devices; s++) {
        plan_device *d = &p->devices[s];
        device_session_desc desc = {
            .graph = p->graph,
            .values = p->values,
            .value_plans = d->value_plans,
            .chunks = d->chunk_descs,
            .n_chunks = d->n_chunks,
            .profile = p->profile,
            .chunk_before = d->chunk_before,
            .fast_math = p->fast_math,
            .runs_overlap = p->runs_overlap,
            .cpu_threads = p->cpu_threads,
        };
        vkml_status st = d->dev->cls->session_create(d->dev, &desc, &d->session, err);
        if (st != VKML_OK) {
            vkml_error_prefix(err, "preparing the model on %s", d->dev->info.name);
            return st;
        }
        if (d->dev->cls->session_memory)
            d->memory = d->dev->cls->session_memory(d->session);
    }
    return VKML_OK;
}

/* Binds graph input i's dims to the caller's shape (symbolic dims only). */
static vkml_status bind_input_shape(const graph *g, graph_value *values, int i,
                                    const vkml_tensor_info *shape, vkml_error *err)
{
    char want[160], got[160];
    graph_value *v = &values[g->inputs[i]];
    bool ok = shape->rank == v->rank;
    for (int d = 0; ok && d < v->rank; d++)
        ok = shape->dims[d] >= -1 &&
             (v->dims[d] < 0 || shape->dims[d] == v->dims[d] || shape->dims[d] == -1);
    if (!ok)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "input %d ('%s'): shape %s does not fit the model's %s", i, v->name,
                         graph_shape_string(shape->rank, shape->dims, got, sizeof(got)),
                         graph_shape_string(v->rank, v->dims, want, sizeof(want)));
    for (int d = 0; d < v->rank; d++)
        if (v->dims[d] < 0)
            v->dims[d] = shape->dims[d];
    return VKML_OK;
}

/* Graph input i's value, fixed for planning: shape functions and folding see it as a
 * constant (a copy in the plan's arena). */
static vkml_status bind_input_value(plan *p, int i, const vkml_tensor *t, vkml_error *err)
{
    char want[160], got[160];
    graph_value *v = &p->values[p->graph->inputs[i]];
    size_t bytes;
    bool same = t->dtype == v->dtype && t->rank == v->rank;
    for (int d = 0; same && d < v->rank; d++)
        same = t->dims[d] == v->dims[d] || v->dims[d] < 0;
    if (!same)
        return vkml_fail(
            err, VKML_ERROR_INVALID_ARGUMENT,
            "input %d ('%s'): value of %s %s given, the model takes %s %s", i, v->name,
            vkml_dtype_name(t->dtype), graph_shape_string(t->rank, t->dims, got, sizeof(got)),
            vkml_dtype_name(v->dtype), graph_shape_string(v->rank, v->dims, want, sizeof(want)));
    if (!vkml_tensor_bytes(t->dtype, t->rank, t->dims, &bytes) || t->size < bytes)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "input %d ('%s'): too few bytes", i,
                         v->name);
    memcpy(v->dims, t->dims, sizeof(v->dims));
    v->data = vkml_arena_memdup(p->arena, t->data, bytes ? bytes : 1);
    v->data_size = bytes;
    if (!v->data)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory for input '%s'", v->name);
    return VKML_OK;
}

/* A model with sequence ops or control flow gets, for this plan, its own graph with them
 * lowered (passes/lower.h); its values, inferred and folded as it was built, replace the
 * plan's. */
static vkml_status lower_model(plan *p, const plan_target *target, int64_t symbolic_value,
                               vkml_error *err)
{
    if (!lower_needed(p->graph))
        return VKML_OK;
    cf_env env = {.runner = target->runner, .max_iterations = p->max_loop_iterations};
    vkml_status st =
        lower_graph(p->graph, p->values, symbolic_value, &env, p->arena, &p->lowered, err);
    if (st != VKML_OK)
        return st;
    graph_value *values = graph_values_clone(p->lowered);
    if (!values)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory creating a plan");
    free(p->values);
    p->values = values;
    p->graph = p->lowered;
    return VKML_OK;
}

/* The plan's values again from its graph g's (after a pass changed them). */
static vkml_status take_values(plan *p, const graph *g, vkml_error *err)
{
    graph_value *values = graph_values_clone(g);
    if (!values)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory fusing nodes");
    free(p->values);
    p->values = values;
    return VKML_OK;
}

/* A fused graph (or NULL: nothing fused) becomes the plan's, kept in *own, its values
 * re-cloned. */
static vkml_status adopt_graph(plan *p, graph *fused, graph **own, vkml_error *err)
{
    if (!fused)
        return VKML_OK;
    vkml_status st = take_values(p, fused, err);
    if (st) {
        graph_destroy(&fused);
        return st;
    }
    *own = fused;
    p->graph = fused;
    return VKML_OK;
}

/* Whether a GPU of the session runs node n (the attention fusion's taker). */
static bool gpu_takes(void *ctx, const graph_value *values, const graph_node *n)
{
    const plan_target *t = ctx;
    char why[256];
    for (int d = 0; d < t->n_devices; d++)
        if (strcmp(t->devices[d]->cls->name, "cpu") != 0 &&
            t->devices[d]->cls->supports_node(t->devices[d], values, n, why, sizeof(why)))
            return true;
    return false;
}

/* Attention groups (and their projections), then elementwise groups, fused
 * (passes/fuse_attention.h, passes/fuse_qkv.h, passes/fuse_eltwise.h): each fused graph
 * becomes the plan's. */
static vkml_status fuse_plan(plan *p, const plan_target *target, vkml_error *err)
{
    graph *fused = NULL;
    fuse_attention_taker taker = {.takes = gpu_takes, .ctx = (void *)target};
    vkml_status st = VKML_OK;
    /* The GPUs decline the groups their kernels run slower than apart (fused_attention_mode) */
    if (fused_attention_mode() != FUSED_ATTENTION_NOWHERE &&
        ((st = fuse_attention(p->graph, p->values, &taker, &fused, err)) != VKML_OK ||
         (st = adopt_graph(p, fused, &p->attention, err)) != VKML_OK))
        return st;
    /* their projections, one product each (in the plan's own graph: its values again) */
    int merged = 0;
    if (fused && ((st = fuse_qkv(p->attention, &merged, err)) != VKML_OK ||
                  (merged && (st = take_values(p, p->attention, err)) != VKML_OK)))
        return st;
    fused = NULL;
    if ((st = fuse_eltwise(p->graph, p->values, &fused, err)) != VKML_OK)
        return st;
    return adopt_graph(p, fused, &p->fused, err);
}

vkml_status plan_create(const graph *g, const plan_target *target, int64_t symbolic_value,
                        const vkml_tensor_info *input_shapes, const vkml_tensor *input_values,
                        plan **out, vkml_error *err)
{
    vkml_status st = VKML_ERROR_OUT_OF_MEMORY;
    plan *p = calloc(1, sizeof(plan));
    bool *folded = NULL;
    if (!p || !(p->arena = vkml_arena_create())) {
        free(p);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory creating a plan");
    }
    p->graph = g;
    p->fast_math = target->fast_math;
    p->runs_overlap = target->runs_overlap;
    p->cpu_threads = target->cpu_threads;
    p->max_loop_iterations = target->max_loop_iterations > 0 ? target->max_loop_iterations
                                                             : VKML_DEFAULT_MAX_LOOP_ITERATIONS;
    p->log = target->log;
    p->values = graph_values_clone(g);
    if (!p->values) {
        vkml_fail(err, st, "out of memory creating a plan");
        goto fail;
    }
    for (int i = 0; input_shapes && i < g->n_inputs; i++)
        if ((st = bind_input_shape(g, p->values, i, &input_shapes[i], err)) != VKML_OK)
            goto fail;
    /* String inputs are never fixed: their pointers are the caller's, for one call. */
    for (int i = 0; input_values && i < g->n_inputs; i++)
        if (input_values[i].data && input_values[i].dtype != VKML_DTYPE_STRING &&
            (st = bind_input_value(p, i, &input_values[i], err)))
            goto fail;
    if ((st = lower_model(p, target, symbolic_value, err)) != VKML_OK ||
        (st = fold_infer(p->graph, p->values, symbolic_value, target->runner, p->arena, NULL,
                         err)) != VKML_OK ||
        (!target->no_fuse && (st = fuse_plan(p, target, err)) != VKML_OK))
        goto fail;
    g = p->graph;
    folded = calloc((size_t)g->n_nodes + 1, sizeof(bool));
    p->node_slot = vkml_arena_calloc(p->arena, (size_t)g->n_nodes + 1, sizeof(int));
    p->value_home = vkml_arena_calloc(p->arena, (size_t)g->n_values + 1, sizeof(int));
    if (!folded || !p->node_slot || !p->value_home) {
        st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory creating a plan");
        goto fail;
    }
    fold_mark_folded(g, p->values, folded);
    if ((st = plan_tail_create(p, folded, target, &p->tail, err)) != VKML_OK ||
        (st = plan_place_nodes(p, target, folded, err)) != VKML_OK)
        goto fail;
    for (int v = 0; v < g->n_values; v++) {
        int producer = p->values[v].producer;
        p->value_home[v] = p->values[v].kind == GRAPH_VALUE_INTERMEDIATE && producer >= 0
                               ? p->node_slot[producer]
                               : -1;
    }
    if ((st = build_chunks(p, err)) != VKML_OK || (st = alloc_value_plans(p, err)) != VKML_OK ||
        (st = link_chunks(p, err)) != VKML_OK)
        goto fail;
    mark_io_and_aliases(p);
    p->profile = target->profile;
    if ((st = share_transfers(p, err)) != VKML_OK ||
        (st = create_device_sessions(p, err)) != VKML_OK)
        goto fail;
    free(folded);
    *out = p;
    return VKML_OK;
fail:
    free(folded);
    plan_destroy(&p);
    return st;
}

void plan_destroy(plan **pp)
{
    if (!pp || !*pp)
        return;
    plan *p = *pp;
    plan_tail_destroy(&p->tail);
    for (int s = 0; s < p->n_devices; s++)
        if (p->devices[s].session)
            p->devices[s].dev->cls->session_destroy(&p->devices[s].session);
    for (int v = 0; p->shared_host && v < p->graph->n_values; v++)
        free(p->shared_host[v]);
    free(p->values);
    graph_destroy(&p->fused);
    graph_destroy(&p->attention);
    graph_destroy(&p->lowered);
    vkml_arena_destroy(&p->arena);
    free(p);
    *pp = NULL;
}

void *plan_value_ptr(plan *p, int slot, int value)
{
    plan_device *d = &p->devices[slot];
    return d->dev->cls->value_host_ptr(d->session, value);
}

vkml_status plan_submit_chunk(plan *p, int c, device_event *done, vkml_error *err)
{
    const plan_chunk *chunk = &p->chunks[c];
    for (int t = 0; t < chunk->n_transfers; t++) {
        int v = chunk->transfers[t];
        size_t bytes = 0;
        vkml_tensor_bytes(p->values[v].dtype, p->values[v].rank, p->values[v].dims, &bytes);
        void *dst = plan_value_ptr(p, chunk->slot, v),
             *src = plan_value_ptr(p, p->value_home[v], v);
        if (dst != src) /* else one shared host allocation: nothing to copy */
            memcpy(dst, src, bytes);
    }
    plan_device *d = &p->devices[chunk->slot];
    const log_sink *outer = log_scope_enter(p->log);
    vkml_status st = d->dev->cls->chunk_submit(d->session, chunk->local_index, done, err);
    log_scope_leave(outer);
    return st;
}

vkml_status plan_wait_event(plan *p, device_event ev, vkml_error *err)
{
    if (!ev.dev || !ev.value)
        return VKML_OK;
    atomic_fetch_add_explicit(&p->host_waits, 1, memory_order_relaxed);
    const log_sink *outer = log_scope_enter(p->log);
    vkml_status st = ev.dev->cls->event_wait(ev, p->wait_spin_ns, err);
    log_scope_leave(outer);
    return st;
}

vkml_status plan_node_times(plan *p, double *node_us, vkml_error *err)
{
    if (!p->profile)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "the session was not created for profiling (vkml_session_params.profile)");
    for (int i = 0; i < p->graph->n_nodes; i++)
        node_us[i] = -1;
    double stack[64];
    for (int c = 0; c < p->n_chunks; c++) {
        const plan_chunk *chunk = &p->chunks[c];
        plan_device *d = &p->devices[chunk->slot];
        double *t = chunk->n_nodes <= 64 ? stack : calloc((size_t)chunk->n_nodes, sizeof(double));
        if (!t)
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory reading the profile");
        vkml_status st = d->dev->cls->chunk_node_times(d->session, chunk->local_index, t, err);
        for (int k = 0; st == VKML_OK && k < chunk->n_nodes; k++)
            node_us[chunk->nodes[k]] = t[k];
        if (t != stack)
            free(t);
        if (st != VKML_OK)
            return st;
    }
    return VKML_OK;
}

int plan_chunk_stream(const plan *p, int c)
{
    int slot = p->chunks[c].slot;
    return p->devices[slot].index == VKML_DEVICE_CPU ? -1 : slot;
}
