/*
 * Loops whose iterations only append (cf_body.h): every carried value grows by a Concat of
 * itself (as it came in, or through Identity and same-type Casts) and rows no carried value
 * reaches, and nothing else reads what is carried. Then no iteration reads another's
 * result: each runs on its own from empty carried values, on the host's threads (the host
 * runner's parallel_for: the worker pool), and the
 * carried values are the incoming ones with every iteration's rows after them, in order.
 * torchvision's R-CNNs write their per-roi loops so (Mask R-CNN's mask paste, Keypoint
 * R-CNN's heatmap decoding: `torch.cat` onto an empty tensor per roi).
 */
#include "ops/control.h"
#include "passes/cf_body.h"

#include <stdlib.h>
#include <string.h>

static vkml_status oom(vkml_error *err)
{
    return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory running a subgraph");
}

static bool is_op(const graph_node *n, const char *op)
{
    return n->op && !n->op->domain[0] && !strcmp(n->op->name, op);
}

/* The body value that value v passes through unchanged, across Identity and Casts to the
 * type it already has (the exporter's `.to(dtype)` on the carried value). */
static int passed_from(const graph *body, int v)
{
    for (;;) {
        int p = body->values[v].producer;
        const graph_node *n = p >= 0 && p < body->n_nodes ? &body->nodes[p] : NULL;
        if (!n || n->n_inputs < 1 || n->inputs[0] < 0 ||
            !(is_op(n, "Identity") ||
              (is_op(n, "Cast") &&
               graph_attr_int(n, "to", -1) == (int64_t)body->values[n->inputs[0]].dtype &&
               body->values[n->inputs[0]].dtype != VKML_DTYPE_UNDEFINED)))
            return v;
        v = n->inputs[0];
    }
}

bool cf_loop_appends(const graph *body, int n_carried, int64_t *axes)
{
    if (n_carried < 1 || body->n_inputs != 2 + n_carried || body->n_outputs < 1 + n_carried)
        return false;
    bool *reached = calloc((size_t)body->n_values + 1, sizeof(bool));
    bool *allowed = calloc((size_t)body->n_nodes + 1, sizeof(bool));
    bool ok = reached && allowed;
    /* per carried value: its Concat and the pass-through nodes before it */
    for (int j = 0; ok && j < n_carried; j++) {
        int out = body->outputs[1 + j], in = body->inputs[2 + j];
        int p = body->values[out].producer;
        const graph_node *cat = p >= 0 && p < body->n_nodes ? &body->nodes[p] : NULL;
        ok = cat && is_op(cat, "Concat") && cat->n_inputs >= 2 && cat->inputs[0] >= 0 &&
             passed_from(body, cat->inputs[0]) == in;
        if (!ok)
            break;
        axes[j] = graph_attr_int(cat, "axis", 0);
        allowed[p] = true;
        for (int v = cat->inputs[0]; v != in; v = body->nodes[body->values[v].producer].inputs[0])
            allowed[body->values[v].producer] = true;
        reached[in] = true;
    }
    /* what the carried values reach: only those nodes, and each Concat by its first input */
    for (int i = 0; ok && i < body->n_nodes; i++) {
        const graph_node *bn = &body->nodes[i];
        bool reads = false;
        for (int k = 0; k < bn->n_inputs; k++)
            if (bn->inputs[k] >= 0 && reached[bn->inputs[k]])
                reads = true, ok = ok && allowed[i] && (k == 0 || !is_op(bn, "Concat"));
        if (!reads)
            continue;
        ok = ok && allowed[i];
        for (int o = 0; ok && o < bn->n_outputs; o++)
            if (bn->outputs[o] >= 0)
                reached[bn->outputs[o]] = true;
    }
    /* the condition and the scan outputs are no carried value either (the Concats' outputs
     * are the carried outputs, and only they) */
    for (int o = 0; ok && o < body->n_outputs; o++)
        ok = (o >= 1 && o <= n_carried) || !reached[body->outputs[o]];
    free(reached);
    free(allowed);
    return ok;
}

typedef struct append_run {
    const cf_env *env;
    const graph_node *n;
    const graph_value *outer;
    const graph *body;
    const graph_value *empty; /* per carried value: it with no rows (body input form) */
    int64_t first;            /* the iteration number of its[0] */
    cf_iteration *its;
} append_run;

static void run_range(void *ctx, int64_t begin, int64_t end)
{
    append_run *a = ctx;
    int n_args = a->body->n_inputs;
    for (int64_t i = begin; i < end; i++) {
        cf_iteration *it = &a->its[i];
        graph_value args[n_args];
        bool yes = true;
        it->arena = vkml_arena_create();
        int64_t *iter = it->arena ? vkml_arena_alloc(it->arena, sizeof(int64_t)) : NULL;
        if (!iter) {
            it->st = oom(&it->err);
            continue;
        }
        *iter = a->first + i;
        args[0] = (graph_value){.name = "", .dtype = VKML_DTYPE_INT64, .rank = 0, .data = iter};
        args[1] = (graph_value){.name = "", .dtype = VKML_DTYPE_BOOL, .rank = 0, .data = &yes};
        memcpy(args + 2, a->empty, sizeof(graph_value) * (size_t)(n_args - 2));
        it->st = cf_run_body(a->env, a->n, a->outer, a->body, args, it->arena, &it->vals, &it->err);
    }
}

vkml_status cf_run_appending(const cf_env *env, const graph_node *n, const graph_value *outer,
                             const graph *body, const graph_value *carried, const int64_t *axes,
                             int64_t first, int64_t count, cf_iteration *its, vkml_error *err)
{
    int n_carried = body->n_inputs - 2;
    graph_value *empty = calloc((size_t)n_carried + 1, sizeof(graph_value));
    if (!empty)
        return oom(err);
    vkml_status st = VKML_OK;
    for (int j = 0; j < n_carried && st == VKML_OK; j++) {
        const graph_value *c = &carried[j];
        int64_t axis = axes[j] < 0 ? axes[j] + c->rank : axes[j];
        if (axis < 0 || axis >= c->rank)
            st = vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                           "%s: Concat axis %lld of carried value '%s' is outside rank %d",
                           n->op_type, (long long)axes[j], c->name, c->rank);
        empty[j] = *c;
        empty[j].dims[axis] = 0;
        empty[j].data = NULL;
    }
    append_run a = {.env = env,
                    .n = n,
                    .outer = outer,
                    .body = body,
                    .empty = empty,
                    .first = first,
                    .its = its};
    /* each iteration a host run of the whole body: always worth a thread */
    if (st == VKML_OK && env->runner->parallel_for)
        env->runner->parallel_for(count, 1e9, run_range, &a);
    else if (st == VKML_OK)
        run_range(&a, 0, count);
    free(empty);
    for (int64_t i = 0; i < count && st == VKML_OK; i++)
        if (its[i].st != VKML_OK) {
            *err = its[i].err;
            st = its[i].st;
        }
    return st;
}

vkml_status cf_append_rows(const graph_node *n, const graph_value *first, const cf_iteration *its,
                           int64_t count, int out, int64_t axis, vkml_arena *arena,
                           graph_value *result, vkml_error *err)
{
    size_t outer, inner;
    axis = axis < 0 ? axis + first->rank : axis;
    cf_axis_layout(first->rank, first->dims, (int)axis, vkml_dtype_size(first->dtype), &outer,
                   &inner);
    int64_t rows = first->dims[axis];
    for (int64_t i = 0; i < count; i++) {
        const graph_value *v = &its[i].vals[out];
        bool same = v->dtype == first->dtype && v->rank == first->rank;
        for (int d = 0; same && d < v->rank; d++)
            same = d == axis || v->dims[d] == first->dims[d];
        if (!same)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "%s: iteration %lld appends to '%s' rows of another type or shape",
                             n->op_type, (long long)i, first->name);
        rows += v->dims[axis];
    }
    *result = *first;
    result->dims[axis] = rows;
    uint8_t *data = vkml_arena_alloc(arena, outer * (size_t)rows * inner + 1);
    if (!data)
        return oom(err);
    uint8_t *at = data;
    for (size_t o = 0; o < outer; o++)
        for (int64_t i = -1; i < count; i++) {
            const graph_value *v = i < 0 ? first : &its[i].vals[out];
            size_t block = (size_t)v->dims[axis] * inner;
            if (block)
                memcpy(at, (const uint8_t *)v->data + o * block, block);
            at += block;
        }
    result->data = data;
    result->data_size = outer * (size_t)rows * inner;
    return VKML_OK;
}
