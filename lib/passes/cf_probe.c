/* Plan-time shapes of control-flow nodes (cf_run.h: cf_probe_node). */
#include "ops/control.h"
#include "passes/cf_body.h"
#include "passes/fold.h"

#include <stdlib.h>
#include <string.h>

/* Output o of n gets the shape v, as a bound: no data. */
static void set_bound(graph_value *values, const graph_node *n, int o, const graph_value *v)
{
    graph_value *out = graph_node_output(values, n, o);
    if (!out)
        return;
    out->dtype = v->dtype;
    out->rank = v->rank;
    memcpy(out->dims, v->dims, sizeof(out->dims));
    out->data = NULL;
    out->kind = GRAPH_VALUE_INTERMEDIATE;
    out->data_dependent = true;
}

/* One shape that bounds both a and b: one dtype and rank, each dim the larger. */
static vkml_status merge_bound(const graph_node *n, const graph_value *a, const graph_value *b,
                               graph_value *out, vkml_error *err)
{
    if (a->dtype != b->dtype)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: '%s' is %s in one run and %s in another", n->op_type, b->name,
                         vkml_dtype_name(a->dtype), vkml_dtype_name(b->dtype));
    if (a->rank != b->rank)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "%s: '%s' has rank %d in one run and %d in another; vkml needs one rank "
                         "per value when it is known only at run time",
                         n->op_type, b->name, a->rank, b->rank);
    *out = *a;
    out->data = NULL;
    for (int d = 0; d < a->rank; d++)
        out->dims[d] = a->dims[d] > b->dims[d] ? a->dims[d] : b->dims[d];
    return VKML_OK;
}

static bool is_empty(const graph_value *v)
{
    return vkml_tensor_element_count(v->rank, v->dims) == 0;
}

/* One shape that bounds output o of an If from its branches' probed shapes a and b: of one
 * rank, each dim the larger; a branch that gives an empty tensor (an exporter's early
 * return of torch.empty((0,))) bounds nothing, so the other's shape, whatever its rank.
 * Branches of different ranks, neither empty, inside a subgraph probed on a planned bound
 * (`nested`) whose condition the probe knows (a squeeze when a static dim is 1): the
 * branch the plan's shapes take, as lower_cf inlines it at the top. */
static vkml_status if_bound(const graph_node *n, const graph_value *a, const graph_value *b,
                            int taken, graph_value *out, vkml_error *err)
{
    if (a->dtype == b->dtype && is_empty(a) != is_empty(b)) {
        *out = is_empty(a) ? *b : *a;
        out->data = NULL;
        return VKML_OK;
    }
    if (a->dtype == b->dtype && a->rank != b->rank && taken >= 0) {
        *out = taken == 0 ? *a : *b;
        out->data = NULL;
        return VKML_OK;
    }
    return merge_bound(n, a, b, out, err);
}

static vkml_status probe_if(const cf_env *env, graph_value *values, const graph_node *n,
                            bool nested, vkml_arena *arena, vkml_error *err)
{
    const cf_params *p = n->params;
    const graph_value *cond = &values[n->inputs[0]];
    int taken = -1;
    if (nested && cond->data && cond->dtype == VKML_DTYPE_BOOL &&
        vkml_tensor_element_count(cond->rank, cond->dims) == 1)
        taken = *(const uint8_t *)cond->data != 0 ? 0 : 1;
    graph_value *vals[2] = {NULL, NULL};
    vkml_status st = VKML_OK;
    for (int b = 0; b < 2 && st == VKML_OK; b++)
        st = cf_run_body(env, n, values, p->bodies[b], NULL, arena, &vals[b], err);
    for (int o = 0; o < n->n_outputs && st == VKML_OK; o++) {
        graph_value bound;
        st = if_bound(n, &vals[0][p->bodies[0]->outputs[o]], &vals[1][p->bodies[1]->outputs[o]],
                      taken, &bound, err);
        if (st == VKML_OK)
            set_bound(values, n, o, &bound);
    }
    free(vals[0]);
    free(vals[1]);
    return st;
}

/* Rows of a Loop's scan output of `row_bytes` per element: the trip count when known, else
 * the iteration limit, kept under CF_BOUND_MAX_BYTES. */
static int64_t loop_rows(const cf_env *env, const graph_value *values, const graph_node *n,
                         size_t row_bytes)
{
    int64_t rows = env->max_iterations;
    const graph_value *trip = n->inputs[0] >= 0 ? &values[n->inputs[0]] : NULL;
    if (trip && trip->data && trip->dtype == VKML_DTYPE_INT64 &&
        vkml_tensor_element_count(trip->rank, trip->dims) == 1)
        rows = *(const int64_t *)trip->data < rows ? *(const int64_t *)trip->data : rows;
    if (row_bytes && (size_t)rows > CF_BOUND_MAX_BYTES / row_bytes)
        rows = (int64_t)(CF_BOUND_MAX_BYTES / row_bytes);
    return rows > 1 ? rows : 1;
}

/* A shape of rank + 1 with `rows` inserted at axis. */
static graph_value stacked_shape(const graph_value *e, int axis, int64_t rows)
{
    graph_value v = *e;
    v.rank = e->rank + 1;
    v.data = NULL;
    for (int d = 0, k = 0; d < v.rank && v.rank <= VKML_MAX_RANK; d++)
        v.dims[d] = d == axis ? rows : e->dims[k++];
    return v;
}

/* The one axis along which a carried value grew from a to b (a Concat onto it each
 * iteration), with the growth; false when it grew along none or several, or shrank. */
static bool growth_axis(const graph_value *a, const graph_value *b, int *axis, int64_t *step)
{
    *axis = -1;
    for (int d = 0; d < a->rank; d++) {
        if (a->dims[d] == b->dims[d])
            continue;
        if (*axis >= 0 || b->dims[d] < a->dims[d])
            return false;
        *axis = d;
        *step = b->dims[d] - a->dims[d];
    }
    return *axis >= 0;
}

/* Bound of a Loop's carried value c0 that is c1 after the first iteration and c2 after
 * the second: one shape when it keeps it; when it grows by one step along one axis each
 * iteration (torchvision's pasted masks and keypoints, concatenated onto an empty tensor),
 * that axis at c0 + step x the trip count's bound (loop_rows); refused when it grows
 * otherwise. */
static vkml_status carried_bound(const cf_env *env, const graph_value *values, const graph_node *n,
                                 const graph_value *c0, const graph_value *c1,
                                 const graph_value *c2, graph_value *out, vkml_error *err)
{
    vkml_status st = merge_bound(n, c0, c1, out, err);
    int axis = 0, axis2 = 0;
    int64_t step = 0, step2 = 0;
    if (st != VKML_OK || !growth_axis(c0, c1, &axis, &step))
        return st;
    if (!c2 || c2->rank != c1->rank || !growth_axis(c1, c2, &axis2, &step2) || axis2 != axis ||
        step2 != step)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "Loop: carried value '%s' changes shape from one iteration to the next "
                         "other than by a constant step along one axis",
                         c1->name);
    graph_value slice = *c1;
    slice.dims[axis] = step;
    size_t row = 0;
    vkml_tensor_bytes(slice.dtype, slice.rank, slice.dims, &row);
    out->dims[axis] = c0->dims[axis] + step * loop_rows(env, values, n, row);
    return VKML_OK;
}

/* Whether some carried value's shape differs between a and b. */
static bool shapes_change(const graph_value *a, const graph_value *b, const graph *body,
                          int n_carried)
{
    for (int i = 0; i < n_carried; i++) {
        const graph_value *x = &a[i], *y = &b[body->outputs[1 + i]];
        if (x->rank != y->rank || memcmp(x->dims, y->dims, sizeof(int64_t) * (size_t)x->rank))
            return true;
    }
    return false;
}

/* *known: the body ran on the probe's shapes, so its error is the answer (no fallback to
 * what the body declares). */
static vkml_status probe_loop(const cf_env *env, graph_value *values, const graph_node *n,
                              vkml_arena *arena, bool *known, vkml_error *err)
{
    const cf_params *p = n->params;
    const graph *body = p->bodies[0];
    int n_carried = cf_explicit_inputs(n) - 2, n_scans = body->n_outputs - 1 - n_carried;
    static const int64_t iteration[2] = {0, 1};
    static const bool yes = true;
    graph_value *args = calloc((size_t)n_carried + 3, sizeof(graph_value)), *vals = NULL,
                *again = NULL;
    if (!args)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory probing a Loop");
    args[0] =
        (graph_value){.name = "", .dtype = VKML_DTYPE_INT64, .rank = 0, .data = &iteration[0]};
    args[1] = (graph_value){.name = "", .dtype = VKML_DTYPE_BOOL, .rank = 0, .data = &yes};
    for (int i = 0; i < n_carried; i++)
        args[2 + i] = values[n->inputs[2 + i]];
    vkml_status st = cf_run_body(env, n, values, body, args, arena, &vals, err);
    if (st == VKML_OK && shapes_change(args + 2, vals, body, n_carried)) {
        graph_value *next = calloc((size_t)n_carried + 3, sizeof(graph_value));
        if (!next)
            st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory probing a Loop");
        for (int i = 0; next && i < n_carried + 2; i++)
            next[i] = i < 2 ? args[i] : vals[body->outputs[i - 1]];
        if (next) {
            next[0].data = &iteration[1];
            st = cf_run_body(env, n, values, body, next, arena, &again, err);
        }
        free(next);
    }
    *known = st == VKML_OK;
    for (int i = 0; i < n_carried && st == VKML_OK; i++) {
        graph_value bound;
        const graph_value *c2 = again ? &again[body->outputs[1 + i]] : NULL;
        st = carried_bound(env, values, n, &args[2 + i], &vals[body->outputs[1 + i]], c2, &bound,
                           err);
        if (st == VKML_OK)
            set_bound(values, n, i, &bound);
    }
    for (int k = 0; k < n_scans && st == VKML_OK; k++) {
        const graph_value *e = &vals[body->outputs[1 + n_carried + k]];
        size_t row = 0;
        vkml_tensor_bytes(e->dtype, e->rank, e->dims, &row);
        if (e->rank + 1 > VKML_MAX_RANK)
            st = vkml_fail(err, VKML_ERROR_UNSUPPORTED, "Loop: scan output '%s' would have rank %d",
                           e->name, e->rank + 1);
        graph_value v = stacked_shape(e, 0, loop_rows(env, values, n, row));
        if (st == VKML_OK)
            set_bound(values, n, n_carried + k, &v);
    }
    free(again);
    free(vals);
    free(args);
    return st;
}

vkml_status cf_probe_scan(const cf_env *env, graph_value *values, const graph_node *n,
                          vkml_arena *arena, vkml_error *err)
{
    const cf_params *p = n->params;
    const graph *body = p->bodies[0];
    const int *in = n->inputs + cf_scan_first(p);
    int n_in = (int)p->num_scan_inputs, n_state = cf_explicit_inputs(n) - cf_scan_first(p) - n_in;
    int n_out = body->n_outputs - n_state, axis = 0;
    int64_t length = -1;
    graph_value *args = calloc((size_t)(n_state + n_in) + 1, sizeof(graph_value)), *vals = NULL;
    if (!args)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory probing a Scan");
    vkml_status st = VKML_OK;
    for (int i = 0; i < n_state; i++)
        args[i] = values[in[i]];
    for (int j = 0; j < n_in && st == VKML_OK; j++) {
        const graph_value *v = &values[in[n_state + j]];
        st = cf_scan_axis(n, p->scan_input_axes, j, v->rank, v->name, &axis, err);
        graph_value *a = &args[n_state + j];
        *a = (graph_value){.name = v->name, .dtype = v->dtype, .rank = v->rank - 1};
        for (int d = 0, k = 0; st == VKML_OK && d < v->rank; d++)
            if (d != axis)
                a->dims[k++] = v->dims[d];
        if (st == VKML_OK && length >= 0 && v->dims[axis] != length)
            st = vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                           "Scan: scan input '%s' has %lld slices, the first one %lld", v->name,
                           (long long)v->dims[axis], (long long)length);
        length = st == VKML_OK ? v->dims[axis] : length;
    }
    if (st == VKML_OK)
        st = cf_run_body(env, n, values, body, args, arena, &vals, err);
    for (int i = 0; i < n_state && st == VKML_OK; i++) {
        graph_value bound;
        if ((st = merge_bound(n, &args[i], &vals[body->outputs[i]], &bound, err)) == 0)
            set_bound(values, n, i, &bound);
    }
    for (int k = 0; k < n_out && st == VKML_OK; k++) {
        const graph_value *e = &vals[body->outputs[n_state + k]];
        if (e->rank + 1 > VKML_MAX_RANK)
            st = vkml_fail(err, VKML_ERROR_UNSUPPORTED, "Scan: output '%s' would have rank %d",
                           e->name, e->rank + 1);
        if (st == VKML_OK)
            st = cf_scan_axis(n, p->scan_output_axes, k, e->rank + 1, e->name, &axis, err);
        graph_value v = stacked_shape(e, axis, length);
        if (st == VKML_OK)
            set_bound(values, n, n_state + k, &v);
    }
    free(vals);
    free(args);
    return st;
}

/* Subgraph output o as declared: its dtype and rank, unknown dims 1; false when the
 * declaration gives no dtype or rank. */
static bool declared(const graph *body, int o, graph_value *out)
{
    const graph_value *d = &body->values[body->outputs[o]];
    if (d->dtype == VKML_DTYPE_UNDEFINED || d->rank < 0)
        return false;
    *out = *d;
    out->data = NULL;
    for (int k = 0; k < d->rank; k++)
        out->dims[k] = d->dims[k] >= 0 ? d->dims[k] : 1;
    return true;
}

/* A Scan's length (its first scan input's extent along its axis) and the axis of scan
 * output k of element e. */
static bool scan_bound(const graph_node *n, int n_state, int k, const graph_value *e,
                       const graph_value *values, int *axis, int64_t *rows)
{
    const cf_params *p = n->params;
    const graph_value *first = &values[n->inputs[n_state]];
    int in_axis;
    if (cf_scan_axis(n, p->scan_input_axes, 0, first->rank, first->name, &in_axis, NULL) ||
        cf_scan_axis(n, p->scan_output_axes, k, e->rank + 1, e->name, axis, NULL))
        return false;
    *rows = first->dims[in_axis];
    return true;
}

/* Bounds from what the subgraphs declare, for a node whose subgraphs cannot be inferred
 * at plan time (a shape read from run-time data): carried values and states as they come
 * in, the rest as declared. False when a declaration lacks a type or a rank. */
static bool declared_bounds(const cf_env *env, graph_value *values, const graph_node *n)
{
    const cf_params *p = n->params;
    const graph *body = p->bodies[0];
    bool is_if = n->op->id == OP_ID_If, is_loop = n->op->id == OP_ID_Loop;
    if (!is_if && !is_loop && p->batched)
        return false;
    int carried = is_if     ? 0
                  : is_loop ? cf_explicit_inputs(n) - 2
                            : cf_explicit_inputs(n) - (int)p->num_scan_inputs;
    int skip = is_loop ? 1 : 0; /* Loop's condition output */
    graph_value bounds[n->n_outputs + 1];
    for (int o = 0; o < n->n_outputs; o++) {
        if (o < carried) {
            bounds[o] = values[n->inputs[(is_loop ? 2 : 0) + o]];
            continue;
        }
        graph_value e;
        if (!declared(body, skip + o, &e) || (!is_if && e.rank + 1 > VKML_MAX_RANK))
            return false;
        if (is_if) { /* both branches declare it, of one type and rank */
            if (!declared(p->bodies[1], o, &bounds[o]) ||
                merge_bound(n, &e, &bounds[o], &bounds[o], NULL) != VKML_OK)
                return false;
            continue;
        }
        size_t row = 0;
        vkml_tensor_bytes(e.dtype, e.rank, e.dims, &row);
        int64_t rows = 1;
        int axis = 0;
        if (is_loop)
            rows = loop_rows(env, values, n, row);
        else if (!scan_bound(n, carried, o - carried, &e, values, &axis, &rows))
            return false;
        bounds[o] = stacked_shape(&e, axis, rows);
    }
    for (int o = 0; o < n->n_outputs; o++)
        set_bound(values, n, o, &bounds[o]);
    return true;
}

vkml_status cf_probe_node(const cf_env *env, const graph *g, graph_value *values, int node,
                          vkml_arena *arena, vkml_error *err)
{
    const graph_node *n = &g->nodes[node];
    cf_env probe = *env, run = *env;
    probe.probe = true;
    run.probe = false;
    if (fold_inputs_known(values, n) && !env->inputs_are_bounds)
        return cf_run_node(&run, g, values, node, arena, err);
    const graph_value *cond = n->op->id == OP_ID_If ? &values[n->inputs[0]] : NULL;
    char label[300];
    vkml_status st;
    bool known = false;
    if (cond && cond->data && !env->inputs_are_bounds) { /* the branch taken: its shapes */
        st = cf_run_node(&probe, g, values, node, arena, err);
        for (int o = 0; st == VKML_OK && o < n->n_outputs; o++)
            if (n->outputs[o] >= 0)
                values[n->outputs[o]].data_dependent = values[n->outputs[o]].data == NULL;
        return st;
    }
    switch (n->op->id) {
    case OP_ID_If: st = probe_if(&probe, values, n, env->probe, arena, err); break;
    case OP_ID_Loop: st = probe_loop(&probe, values, n, arena, &known, err); break;
    default:
        st = ((const cf_params *)n->params)->batched
                 ? cf_run_batched(&probe, values, n, arena, cf_probe_scan, err)
                 : cf_probe_scan(&probe, values, n, arena, err);
        break;
    }
    /* An If whose condition the plan knows (from a planned bound) is not bounded by what
     * its branches declare (an unknown dim is no bound): lower_cf makes it its branch. */
    bool cond_known = cond && cond->data && !env->probe;
    if (st != VKML_OK && st != VKML_ERROR_OUT_OF_MEMORY && !cond_known && !known &&
        declared_bounds(env, values, n)) {
        VKML_LOGD("%s: shapes as its subgraphs declare them (%s)",
                  graph_node_label(g, node, label, sizeof(label)), err ? err->message : "");
        return VKML_OK;
    }
    if (st != VKML_OK)
        vkml_error_prefix(err, "%s", graph_node_label(g, node, label, sizeof(label)));
    return st;
}
