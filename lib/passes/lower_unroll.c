/*
 * Loops and Scans unrolled at plan time (lower_ctx.h, lower_unroll): a Loop whose trip
 * count the plan knows, and whose condition it can compute in every iteration, becomes its
 * iterations' nodes one after another; a Scan of opset 9 and later (its length is a shape)
 * too, each slice a Gather of a constant index. The devices then run them as any other
 * nodes, with no host step.
 */
#include "ops/control.h"
#include "passes/cf_body.h"
#include "passes/lower_ctx.h"

#include <stdio.h>
#include <stdlib.h>

static vkml_status oom(vkml_error *err)
{
    return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory unrolling a loop");
}

/* The lowered value body value u (an outer value of the body) reads, or -1. */
static int outer_source(const graph_node *n, const graph *body, int u)
{
    for (int j = 0; j < body->n_outer; j++)
        if (body->outer_values[j] == u)
            return n->inputs[body->outer_inputs[j]];
    return -1;
}

/* Whether body value v (the body's condition output) is known at plan time in every
 * iteration: it derives only from constants, the iteration number, the incoming condition
 * and outer values the plan knows, never from what the loop carries. */
static bool static_condition(const lower_ctx *c, const graph_node *n, const graph *body, int v)
{
    bool *seen = calloc((size_t)body->n_values + 1, sizeof(bool));
    int *stack = malloc(sizeof(int) * ((size_t)body->n_values + 1));
    bool ok = seen && stack && v >= 0;
    int top = 0;
    if (ok) {
        seen[v] = true;
        stack[top++] = v;
    }
    while (ok && top > 0) {
        int u = stack[--top], outer = outer_source(n, body, u);
        const graph_value *val = &body->values[u];
        if (val->kind == GRAPH_VALUE_CONSTANT || u == body->inputs[0] || u == body->inputs[1])
            continue;
        if (outer >= 0) {
            ok = c->g->values[outer].data != NULL;
            continue;
        }
        const graph_node *p = val->producer >= 0 && val->producer < body->n_nodes
                                  ? &body->nodes[val->producer]
                                  : NULL;
        /* a carried value (no producer) or a subgraph's result: known only when it runs */
        ok = p && p->op && !(p->op->flags & OP_CONTROL_FLOW);
        for (int k = 0; ok && k < p->n_inputs; k++)
            if (p->inputs[k] >= 0 && !seen[p->inputs[k]]) {
                seen[p->inputs[k]] = true;
                stack[top++] = p->inputs[k];
            }
    }
    free(seen);
    free(stack);
    return ok;
}

/* Whether every input of n (explicit and implicit) is a plan-time constant. */
static bool inputs_known(const lower_ctx *c, const graph_node *n)
{
    for (int k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] >= 0 && !c->g->values[n->inputs[k]].data)
            return false;
    return true;
}

/* The trips of Loop n when the plan unrolls it: its trip count is a constant from 1 to the
 * limit, its incoming condition true (or none), its body's condition static_condition;
 * 0 when it does not. */
static int64_t unroll_trips(const lower_ctx *c, const graph_node *n)
{
    const graph *body = ((const cf_params *)n->params)->bodies[0];
    int n_carried = cf_explicit_inputs(n) - 2;
    bool cond = true;
    if (n_carried < 0 || n->inputs[0] < 0 || body->n_inputs != 2 + n_carried ||
        body->n_outputs < 1 + n_carried || n->n_outputs > body->n_outputs - 1)
        return 0;
    const graph_value *m = &c->g->values[n->inputs[0]];
    if (!m->data || m->dtype != VKML_DTYPE_INT64 ||
        vkml_tensor_element_count(m->rank, m->dims) != 1)
        return 0;
    int64_t trips = *(const int64_t *)m->data;
    if ((n->inputs[1] >= 0 && !lower_known_bool(&c->g->values[n->inputs[1]], &cond)) || !cond ||
        trips < 1 || trips > LOWER_UNROLL_MAX_NODES)
        return 0;
    /* the body's nodes, and an Unsqueeze per scan output, per iteration */
    int64_t nodes = trips * (body->n_nodes + body->n_outputs);
    if (nodes > LOWER_UNROLL_MAX_NODES || c->n_added + nodes > LOWER_SEQ_MAX_ADDED ||
        trips > c->env.max_iterations || !static_condition(c, n, body, body->outputs[0]))
        return 0;
    return trips;
}

/* Output `out` (-1: none) of node n: the `count` values items[] stacked along a new axis
 * `axis` (each Unsqueezed, then one Concat), in reverse order when `reverse`. */
static vkml_status stack_items(lower_ctx *c, const graph_node *n, int out, const int *items,
                               int64_t count, int64_t axis, bool reverse, vkml_error *err)
{
    if (out < 0)
        return VKML_OK;
    char label[300];
    int axes = lower_new_ints(c, "axes", 1, &axis, 1);
    int *parts = malloc(sizeof(int) * ((size_t)count + 1));
    vkml_status st = axes >= 0 && parts ? VKML_OK : oom(err);
    for (int64_t i = 0; i < count && st == VKML_OK; i++) {
        int item = items[reverse ? count - 1 - i : i];
        if (c->seqs[item].is_seq) {
            st = vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: scan output '%s' is a sequence",
                           lower_node_label(n, label, sizeof(label)), c->g->values[out].name);
            break;
        }
        parts[i] = count == 1 ? out : lower_new_value(c, c->g->values[out].name, "/unsqueezed");
        int in[2] = {item, axes};
        st = parts[i] < 0 ? oom(err) : lower_emit(c, "Unsqueeze", in, 2, &parts[i], 1, -1, err);
    }
    if (st == VKML_OK && count > 1)
        st = lower_emit(c, "Concat", parts, (int)count, &out, 1, axis, err);
    free(parts);
    return st;
}

/* Body output o of a Loop or Scan n, unrolled into value v: of the element type the body declares
 * and, when it is carried (`was`: what it carried before), of that value's type. */
static vkml_status check_unrolled_output(const lower_ctx *c, const graph_node *n, const graph *body,
                                         int o, int v, int was, vkml_error *err)
{
    char label[300];
    const graph_value *decl = &body->values[body->outputs[o]], *got = &c->g->values[v];
    if (c->seqs[v].is_seq)
        return VKML_OK;
    if (decl->kind == GRAPH_VALUE_INTERMEDIATE && decl->dtype != VKML_DTYPE_UNDEFINED &&
        decl->dtype != got->dtype)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: subgraph output '%s' is %s, its declaration says %s",
                         lower_node_label(n, label, sizeof(label)), decl->name,
                         vkml_dtype_name(got->dtype), vkml_dtype_name(decl->dtype));
    if (was >= 0 && !c->seqs[was].is_seq && c->g->values[was].dtype != got->dtype)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: the body makes '%s' %s, the value it carries is %s",
                         lower_node_label(n, label, sizeof(label)), decl->name,
                         vkml_dtype_name(got->dtype), vkml_dtype_name(c->g->values[was].dtype));
    return VKML_OK;
}

/* One iteration of Loop n (number `iter`, named "<base>"): the body inlined on the current
 * condition and carried values, which then become the body's; its scan outputs into scans. */
static vkml_status unroll_iteration(lower_ctx *c, const graph_node *n, const graph *body,
                                    const char *base, int64_t iter, int *map, int *cond,
                                    int *carried, int *scans, vkml_error *err)
{
    int n_carried = body->n_inputs - 2;
    for (int v = 0; v < body->n_values; v++)
        map[v] = -1;
    map[body->inputs[0]] = lower_new_ints(c, base, 0, &iter, 1);
    map[body->inputs[1]] = *cond;
    for (int j = 0; j < n_carried; j++)
        map[body->inputs[2 + j]] = carried[j];
    vkml_status st =
        map[body->inputs[0]] < 0 ? oom(err) : lower_map_body(c, n, body, base, map, err);
    for (int i = 0; i < body->n_nodes && st == VKML_OK; i++)
        st = lower_inline_node(c, base, &body->nodes[i], map, err);
    for (int o = 0; o < body->n_outputs && st == VKML_OK; o++)
        st = check_unrolled_output(c, n, body, o, map[body->outputs[o]],
                                   o >= 1 && o <= n_carried ? carried[o - 1] : -1, err);
    if (st != VKML_OK)
        return st;
    *cond = map[body->outputs[0]];
    for (int j = 0; j < n_carried; j++)
        carried[j] = map[body->outputs[1 + j]];
    for (int k = 0; k < body->n_outputs - 1 - n_carried; k++)
        scans[k] = map[body->outputs[1 + n_carried + k]];
    return VKML_OK;
}

static vkml_status unroll_loop(lower_ctx *c, const graph_node *n, int64_t trips,
                               int64_t *iterations, vkml_error *err)
{
    const graph *body = ((const cf_params *)n->params)->bodies[0];
    int n_carried = body->n_inputs - 2, n_scans = body->n_outputs - 1 - n_carried;
    char label[300], base[400];
    const char *name = n->name[0] ? n->name : n->op_type;
    int *map = malloc(sizeof(int) * ((size_t)body->n_values + 1));
    int *carried = malloc(sizeof(int) * ((size_t)n_carried + 1));
    int *items = malloc(sizeof(int) * ((size_t)n_scans * (size_t)trips + 1));
    int cond = n->inputs[1];
    vkml_status st = map && carried && items ? VKML_OK : oom(err);
    if (st == VKML_OK && cond < 0) { /* no incoming condition: true */
        if ((cond = lower_new_value(c, name, "/cond")) < 0)
            st = oom(err);
        else {
            graph_value *v = &c->g->values[cond];
            v->kind = GRAPH_VALUE_CONSTANT;
            v->dtype = VKML_DTYPE_BOOL;
            v->rank = 0;
            v->data_size = 1;
            if (!(v->data = vkml_arena_memdup(c->arena, &(bool){true}, 1)))
                st = oom(err);
        }
    }
    for (int j = 0; j < n_carried; j++)
        carried[j] = n->inputs[2 + j];
    c->n_added += (int)(trips * (body->n_nodes + body->n_outputs));
    int64_t done = 0;
    for (bool go = true; st == VKML_OK && go && done < trips; done++) {
        snprintf(base, sizeof(base), "%s/%lld/", name, (long long)done);
        int scans[n_scans + 1];
        st = unroll_iteration(c, n, body, base, done, map, &cond, carried, scans, err);
        for (int k = 0; st == VKML_OK && k < n_scans; k++)
            items[(int64_t)k * trips + done] = scans[k];
        if (st == VKML_OK && !lower_known_bool(&c->g->values[cond], &go))
            st = vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                           "%s: the condition of iteration %lld is not a plan-time constant",
                           lower_node_label(n, label, sizeof(label)), (long long)done);
    }
    for (int j = 0; j < n_carried && j < n->n_outputs && st == VKML_OK; j++)
        st = lower_bind_output(c, n, j, carried[j], err);
    for (int k = 0; k < n_scans && n_carried + k < n->n_outputs && st == VKML_OK; k++)
        st = stack_items(c, n, n->outputs[n_carried + k], &items[(int64_t)k * trips], done, 0,
                         false, err);
    free(map);
    free(carried);
    free(items);
    *iterations = done;
    return st;
}

typedef struct scan_shape {
    int n_state, n_scan_in, n_scan_out;
    int64_t length; /* iterations */
    int *in_axes;   /* per scan input: its scanned axis */
} scan_shape;

/* The shape of Scan n's unrolling, when the plan unrolls it: every input's shape known and
 * no data-dependent extent, one scanned length from 1 to the limit; false when it does not
 * (the run-time path then says what is wrong, if anything is). */
static bool scan_unrolls(const lower_ctx *c, const graph_node *n, scan_shape *sh)
{
    const cf_params *p = n->params;
    const graph *body = p->bodies[0];
    sh->n_scan_in = (int)p->num_scan_inputs;
    sh->n_state = cf_explicit_inputs(n) - sh->n_scan_in;
    sh->n_scan_out = body->n_outputs - sh->n_state;
    sh->length = -1;
    if (p->batched || sh->n_scan_in < 1 || sh->n_state < 0 || sh->n_scan_out < 0 ||
        body->n_inputs != sh->n_state + sh->n_scan_in || n->n_outputs > body->n_outputs)
        return false;
    for (int j = 0; j < sh->n_scan_in; j++) {
        int in = n->inputs[sh->n_state + j];
        const graph_value *v = in >= 0 ? &c->g->values[in] : NULL;
        if (!v || v->rank < 1 || c->seqs[in].is_seq ||
            cf_scan_axis(n, p->scan_input_axes, j, v->rank, v->name, &sh->in_axes[j], NULL))
            return false;
        int64_t len = v->dims[sh->in_axes[j]];
        if (len < 1 || (sh->length >= 0 && len != sh->length))
            return false;
        sh->length = len;
    }
    int64_t per = body->n_nodes + sh->n_scan_in + sh->n_scan_out;
    return sh->length <= LOWER_UNROLL_MAX_NODES && sh->length * per <= LOWER_UNROLL_MAX_NODES &&
           c->n_added + sh->length * per <= LOWER_SEQ_MAX_ADDED;
}

/* Iteration t of Scan n: its slices, the body on them and the states, which then become
 * the body's; its scan outputs into scans. */
static vkml_status scan_iteration(lower_ctx *c, const graph_node *n, const graph *body,
                                  const scan_shape *sh, const char *base, int64_t t, int *map,
                                  int *state, int *scans, vkml_error *err)
{
    const cf_params *p = n->params;
    vkml_status st = VKML_OK;
    for (int v = 0; v < body->n_values; v++)
        map[v] = -1;
    for (int s = 0; s < sh->n_state; s++)
        map[body->inputs[s]] = state[s];
    for (int j = 0; j < sh->n_scan_in && st == VKML_OK; j++) {
        bool reverse = p->scan_input_directions && p->scan_input_directions[j];
        int64_t at = reverse ? sh->length - 1 - t : t;
        int index = lower_new_ints(c, base, 0, &at, 1);
        int slice = lower_new_value(c, base, body->values[body->inputs[sh->n_state + j]].name);
        int in[2] = {n->inputs[sh->n_state + j], index};
        map[body->inputs[sh->n_state + j]] = slice;
        st = index < 0 || slice < 0
                 ? oom(err)
                 : lower_emit(c, "Gather", in, 2, &slice, 1, sh->in_axes[j], err);
    }
    if (st == VKML_OK)
        st = lower_map_body(c, n, body, base, map, err);
    for (int i = 0; i < body->n_nodes && st == VKML_OK; i++)
        st = lower_inline_node(c, base, &body->nodes[i], map, err);
    for (int o = 0; o < body->n_outputs && st == VKML_OK; o++)
        st = check_unrolled_output(c, n, body, o, map[body->outputs[o]],
                                   o < sh->n_state ? state[o] : -1, err);
    for (int s = 0; s < sh->n_state && st == VKML_OK; s++)
        state[s] = map[body->outputs[s]];
    for (int k = 0; k < sh->n_scan_out && st == VKML_OK; k++)
        scans[k] = map[body->outputs[sh->n_state + k]];
    return st;
}

static vkml_status unroll_scan(lower_ctx *c, const graph_node *n, const scan_shape *sh,
                               int64_t *iterations, vkml_error *err)
{
    const cf_params *p = n->params;
    const graph *body = p->bodies[0];
    char base[400];
    const char *name = n->name[0] ? n->name : n->op_type;
    int64_t len = sh->length;
    int *map = malloc(sizeof(int) * ((size_t)body->n_values + 1));
    int *state = malloc(sizeof(int) * ((size_t)sh->n_state + 1));
    int *scans = malloc(sizeof(int) * ((size_t)sh->n_scan_out + 1));
    int *items = malloc(sizeof(int) * ((size_t)sh->n_scan_out * (size_t)len + 1));
    vkml_status st = map && state && scans && items ? VKML_OK : oom(err);
    for (int s = 0; s < sh->n_state && st == VKML_OK; s++)
        state[s] = n->inputs[s];
    c->n_added += (int)(len * (body->n_nodes + sh->n_scan_in + sh->n_scan_out));
    for (int64_t t = 0; t < len && st == VKML_OK; t++) {
        snprintf(base, sizeof(base), "%s/%lld/", name, (long long)t);
        st = scan_iteration(c, n, body, sh, base, t, map, state, scans, err);
        for (int k = 0; k < sh->n_scan_out && st == VKML_OK; k++)
            items[(int64_t)k * len + t] = scans[k];
    }
    for (int s = 0; s < sh->n_state && s < n->n_outputs && st == VKML_OK; s++)
        st = lower_bind_output(c, n, s, state[s], err);
    for (int k = 0; k < sh->n_scan_out && sh->n_state + k < n->n_outputs && st == VKML_OK; k++) {
        int out = n->outputs[sh->n_state + k], axis = 0;
        if (out < 0)
            continue;
        const graph_value *e = &c->g->values[items[(int64_t)k * len]];
        st = cf_scan_axis(n, p->scan_output_axes, k, e->rank + 1, e->name, &axis, err);
        if (st == VKML_OK)
            st = stack_items(c, n, out, &items[(int64_t)k * len], len, axis,
                             p->scan_output_directions && p->scan_output_directions[k], err);
    }
    free(map);
    free(state);
    free(scans);
    free(items);
    *iterations = len;
    return st;
}

vkml_status lower_unroll(lower_ctx *c, const graph_node *n, bool *unrolled, vkml_error *err)
{
    *unrolled = false;
    if (inputs_known(c, n)) /* it folds: one host run when the session is planned */
        return VKML_OK;
    int64_t trips = n->op->id == OP_ID_Loop ? unroll_trips(c, n) : 0, iterations = 0;
    int axes[cf_explicit_inputs(n) + 1];
    scan_shape sh = {.in_axes = axes};
    vkml_status st = VKML_OK;
    if (trips > 0)
        st = unroll_loop(c, n, trips, &iterations, err);
    else if (n->op->id == OP_ID_Scan && scan_unrolls(c, n, &sh))
        st = unroll_scan(c, n, &sh, &iterations, err);
    else
        return VKML_OK;
    *unrolled = true;
    char label[300];
    if (st == VKML_OK)
        VKML_LOGD("%s: unrolled, %lld iterations of %d nodes",
                  lower_node_label(n, label, sizeof(label)), (long long)iterations,
                  ((const cf_params *)n->params)->bodies[0]->n_nodes);
    return st;
}
