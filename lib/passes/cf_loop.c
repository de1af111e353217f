/* Loop and Scan run on the host (cf_run.h): one run of the body per iteration, in an arena
 * of its own; what the iteration carries is copied out before that arena goes. */
#include "ops/control.h"
#include "passes/cf_body.h"

#include <stdlib.h>
#include <string.h>

static vkml_status oom(vkml_error *err)
{
    return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory running a subgraph");
}

/* Bytes of one element of v, refusing types that are no whole bytes (strings, packed). */
static vkml_status element_bytes(const graph_node *n, const graph_value *v, size_t *out,
                                 vkml_error *err)
{
    size_t bits = vkml_dtype_bits(v->dtype);
    if (v->dtype == VKML_DTYPE_STRING || bits == 0 || bits % 8 != 0)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "%s: '%s' is %s; vkml carries and scans values of whole-byte numeric "
                         "types only",
                         n->op_type, v->name, vkml_dtype_name(v->dtype));
    *out = bits / 8;
    return VKML_OK;
}

/* *dst becomes a copy of v in arena `to` (a carried value outlives its iteration); its
 * element type must stay what it was. */
static vkml_status carry_value(const graph_node *n, graph_value *dst, const graph_value *v,
                               vkml_arena *to, vkml_error *err)
{
    size_t bytes, elem;
    vkml_status st = element_bytes(n, v, &elem, err);
    if (st == VKML_OK && v->dtype != dst->dtype)
        st = vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                       "%s: the body makes '%s' %s, the value it carries is %s", n->op_type,
                       v->name, vkml_dtype_name(v->dtype), vkml_dtype_name(dst->dtype));
    if (st != VKML_OK)
        return st;
    vkml_tensor_bytes(v->dtype, v->rank, v->dims, &bytes);
    void *copy = vkml_arena_memdup(to, v->data, bytes ? bytes : 1);
    if (!copy)
        return oom(err);
    const char *name = dst->name;
    cf_bind_value(dst, v);
    dst->name = name;
    dst->data = copy;
    return VKML_OK;
}

/* The arenas of a loop: one per iteration, and the one holding what it carries. */
typedef struct cf_arenas {
    vkml_arena *step, *held, *next;
} cf_arenas;

static vkml_status arenas_begin(cf_arenas *a, vkml_error *err)
{
    a->step = vkml_arena_create();
    a->next = vkml_arena_create();
    return a->step && a->next ? VKML_OK : oom(err);
}

/* The step's memory goes; what the step carried (in next) is held from now on. */
static void arenas_end(cf_arenas *a)
{
    vkml_arena_destroy(&a->step);
    vkml_arena_destroy(&a->held);
    a->held = a->next;
    a->next = NULL;
}

static void arenas_free(cf_arenas *a)
{
    vkml_arena_destroy(&a->step);
    vkml_arena_destroy(&a->next);
    vkml_arena_destroy(&a->held);
}

/* A Loop's scan output: one element per iteration, all of one shape, stacked. */
typedef struct cf_stack {
    uint8_t *bytes;
    size_t size, cap;
    int64_t count;
    vkml_dtype dtype;
    int rank; /* of one element */
    int64_t dims[VKML_MAX_RANK];
} cf_stack;

static bool same_shape(int rank, const int64_t *dims, const graph_value *v)
{
    return v->rank == rank && memcmp(dims, v->dims, sizeof(int64_t) * (size_t)rank) == 0;
}

static vkml_status stack_push(const graph_node *n, cf_stack *s, const graph_value *v,
                              vkml_error *err)
{
    size_t bytes, elem;
    vkml_status st = element_bytes(n, v, &elem, err);
    if (st != VKML_OK)
        return st;
    if (v->rank + 1 > VKML_MAX_RANK)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "%s: scan output '%s' would have rank %d (vkml's maximum is %d)",
                         n->op_type, v->name, v->rank + 1, VKML_MAX_RANK);
    if (s->count == 0) {
        s->dtype = v->dtype;
        s->rank = v->rank;
        memcpy(s->dims, v->dims, sizeof(s->dims));
    } else if (v->dtype != s->dtype || !same_shape(s->rank, s->dims, v)) {
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: scan output '%s' changes its type or shape at iteration %lld",
                         n->op_type, v->name, (long long)s->count);
    }
    vkml_tensor_bytes(v->dtype, v->rank, v->dims, &bytes);
    if (s->size + bytes > s->cap) {
        size_t cap = s->cap * 2 > s->size + bytes ? s->cap * 2 : s->size + bytes + 64;
        uint8_t *grown = realloc(s->bytes, cap);
        if (!grown)
            return oom(err);
        s->bytes = grown;
        s->cap = cap;
    }
    memcpy(s->bytes + s->size, v->data, bytes);
    s->size += bytes;
    s->count++;
    return VKML_OK;
}

/* Output o of n: `count` elements of shape (rank, dims) along a new axis `axis`, at data
 * (in arena). With no element made, the shape is the plan's bound for the output, or the
 * body's declaration, with `count` 0. */
static vkml_status stacked_output(graph_value *values, const graph_node *n, int o,
                                  const graph_value *declared, vkml_dtype dtype, int rank,
                                  const int64_t *dims, int axis, int64_t count, const void *data)
{
    graph_value v = {.name = "", .dtype = dtype, .rank = rank + 1, .data = data};
    graph_value *out = graph_node_output(values, n, o);
    if (!out)
        return VKML_OK;
    int64_t like_dims[VKML_MAX_RANK] = {0};
    if (count == 0) { /* no element: the bound's shape, or the declaration's */
        bool bound = out->rank >= 1;
        v.dtype = bound ? out->dtype : declared->dtype;
        v.dtype = v.dtype != VKML_DTYPE_UNDEFINED ? v.dtype : VKML_DTYPE_FLOAT;
        v.rank = bound ? out->rank : declared->rank >= 0 ? declared->rank + 1 : 1;
        for (int d = 1; d < v.rank; d++)
            like_dims[d - 1] = bound                       ? out->dims[d]
                               : declared->dims[d - 1] > 0 ? declared->dims[d - 1]
                                                           : 0;
        dims = like_dims;
        axis = 0;
    }
    for (int d = 0, k = 0; d < v.rank; d++)
        v.dims[d] = d == axis ? count : dims[k++];
    cf_bind_value(out, &v);
    return VKML_OK;
}

typedef struct loop_run {
    const cf_env *env;
    const graph_node *n;
    const graph *body;
    graph_value *outer;
    int n_carried, n_scans;
    graph_value *args; /* the body's inputs: iteration, condition, carried values */
    cf_stack *stacks;
    cf_arenas arenas;
} loop_run;

/* One iteration: runs the body, carries its values, stacks its scan outputs. */
static vkml_status loop_step(loop_run *r, int64_t iter, bool *cond, bool use_cond, vkml_error *err)
{
    graph_value *vals = NULL;
    vkml_status st = arenas_begin(&r->arenas, err);
    int64_t *it = st == VKML_OK ? vkml_arena_alloc(r->arenas.step, sizeof(int64_t)) : NULL;
    bool *c = it ? vkml_arena_alloc(r->arenas.step, sizeof(bool)) : NULL;
    if (st == VKML_OK && !c)
        st = oom(err);
    if (st == VKML_OK) {
        *it = iter;
        *c = *cond;
        r->args[0] = (graph_value){.name = "", .dtype = VKML_DTYPE_INT64, .rank = 0, .data = it};
        r->args[1] = (graph_value){.name = "", .dtype = VKML_DTYPE_BOOL, .rank = 0, .data = c};
        st = cf_run_body(r->env, r->n, r->outer, r->body, r->args, r->arenas.step, &vals, err);
    }
    const int *outs = r->body->outputs;
    bool next_cond = false;
    if (st == VKML_OK)
        st = cf_scalar_of(&vals[outs[0]], VKML_DTYPE_BOOL, "the body's condition", &next_cond, err);
    for (int i = 0; i < r->n_carried && st == VKML_OK; i++)
        st = carry_value(r->n, &r->args[2 + i], &vals[outs[1 + i]], r->arenas.next, err);
    for (int k = 0; k < r->n_scans && st == VKML_OK; k++)
        st = stack_push(r->n, &r->stacks[k], &vals[outs[1 + r->n_carried + k]], err);
    if (st == VKML_OK && use_cond) /* without a condition input the body's is ignored */
        *cond = next_cond;
    free(vals);
    arenas_end(&r->arenas);
    return st;
}

/* The final carried values and the stacked scan outputs become the node's outputs. */
static vkml_status loop_outputs(loop_run *r, graph_value *values, vkml_arena *arena,
                                vkml_error *err)
{
    vkml_status st = VKML_OK;
    for (int i = 0; i < r->n_carried && st == VKML_OK; i++) {
        graph_value v = r->args[2 + i];
        if ((st = carry_value(r->n, &v, &r->args[2 + i], arena, err)) == VKML_OK)
            cf_set_output(values, r->n, i, &v);
    }
    for (int k = 0; k < r->n_scans && st == VKML_OK; k++) {
        const cf_stack *s = &r->stacks[k];
        void *data = vkml_arena_memdup(arena, s->size ? s->bytes : (const void *)"", s->size + 1);
        if (!data)
            return oom(err);
        st = stacked_output(values, r->n, r->n_carried + k,
                            &r->body->values[r->body->outputs[1 + r->n_carried + k]], s->dtype,
                            s->rank, s->dims, 0, s->count, data);
    }
    return st;
}

/* Iterates while iter < trip (when has_trip) and the condition holds. */
static vkml_status loop_iterate(loop_run *r, bool has_trip, int64_t trip, bool cond, bool use_cond,
                                vkml_error *err)
{
    vkml_status st = VKML_OK;
    for (int64_t iter = 0; st == VKML_OK && (!has_trip || iter < trip) && cond; iter++) {
        if (iter >= r->env->max_iterations)
            return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                             "stopped after %lld iterations, the session's limit "
                             "(vkml_session_params.max_loop_iterations)",
                             (long long)iter);
        st = loop_step(r, iter, &cond, use_cond, err);
    }
    return st;
}

/* Iterations an appending Loop runs at once: its rows and the bodies' values of that many
 * are held until appended. */
#define CF_APPEND_BATCH 256

/* An appending Loop (cf_params.append_axes): its iterations at once (cf_run_appending), in
 * batches of CF_APPEND_BATCH, up to the first whose condition is false (when the node has
 * one); the carried values the incoming ones with every iteration's rows after them (data
 * in *rows), the scan outputs stacked in order. */
static vkml_status loop_append(loop_run *r, int64_t trip, bool use_cond, const int64_t *axes,
                               vkml_arena **rows, vkml_error *err)
{
    const int *outs = r->body->outputs;
    int64_t batch = trip < CF_APPEND_BATCH ? trip : CF_APPEND_BATCH, done = 0;
    cf_iteration *its = calloc((size_t)batch, sizeof(cf_iteration));
    vkml_status st = its ? VKML_OK : oom(err);
    for (bool go = true; st == VKML_OK && go && done < trip;) {
        int64_t count = trip - done < batch ? trip - done : batch, ran = count;
        memset(its, 0, sizeof(cf_iteration) * (size_t)batch);
        st = cf_run_appending(r->env, r->n, r->outer, r->body, r->args + 2, axes, done, count, its,
                              err);
        for (int64_t i = 0; st == VKML_OK && i < count; i++) {
            bool next = true;
            st = cf_scalar_of(&its[i].vals[outs[0]], VKML_DTYPE_BOOL, "the body's condition", &next,
                              err);
            if (use_cond && !next) {
                count = i + 1; /* the iterations after it never ran */
                go = false;
            }
        }
        vkml_arena *grown_in = vkml_arena_create(); /* the carried values grown by this batch */
        if (st == VKML_OK && !grown_in)
            st = oom(err);
        for (int j = 0; j < r->n_carried && st == VKML_OK; j++) {
            graph_value grown;
            st = cf_append_rows(r->n, &r->args[2 + j], its, count, outs[1 + j], axes[j], grown_in,
                                &grown, err);
            if (st == VKML_OK)
                r->args[2 + j] = grown;
        }
        for (int64_t i = 0; i < count && st == VKML_OK; i++)
            for (int k = 0; k < r->n_scans && st == VKML_OK; k++)
                st = stack_push(r->n, &r->stacks[k], &its[i].vals[outs[1 + r->n_carried + k]], err);
        for (int64_t i = 0; i < ran; i++) {
            free(its[i].vals);
            vkml_arena_destroy(&its[i].arena);
        }
        vkml_arena_destroy(rows); /* the batch before's carried values */
        *rows = grown_in;
        done += count;
    }
    free(its);
    if (st == VKML_OK)
        VKML_LOGD("%s: %lld iterations that only append, run at once", r->n->op_type,
                  (long long)done);
    return st;
}

vkml_status cf_run_loop(const cf_env *env, graph_value *values, const graph_node *n,
                        vkml_arena *arena, vkml_error *err)
{
    const cf_params *p = n->params;
    loop_run r = {.env = env, .n = n, .body = p->bodies[0], .outer = values};
    r.n_carried = cf_explicit_inputs(n) - 2;
    r.n_scans = r.body->n_outputs - 1 - r.n_carried;
    int64_t trip = 0;
    bool cond = true, use_cond = n->inputs[1] >= 0, has_trip = n->inputs[0] >= 0;
    vkml_status st = VKML_OK;
    if (has_trip)
        st = cf_scalar_of(&values[n->inputs[0]], VKML_DTYPE_INT64, "the trip count", &trip, err);
    if (st == VKML_OK && use_cond)
        st = cf_scalar_of(&values[n->inputs[1]], VKML_DTYPE_BOOL, "the condition", &cond, err);
    r.args = calloc((size_t)r.n_carried + 3, sizeof(graph_value));
    r.stacks = calloc((size_t)r.n_scans + 1, sizeof(cf_stack));
    if (st == VKML_OK && (!r.args || !r.stacks))
        st = oom(err);
    for (int i = 0; i < r.n_carried && st == VKML_OK; i++)
        r.args[2 + i] = values[n->inputs[2 + i]];
    vkml_arena *rows = NULL; /* the appended carried values, until the outputs copy them */
    if (st == VKML_OK && has_trip && cond && trip > 1 && trip <= env->max_iterations &&
        !env->probe && p->append_axes)
        st = loop_append(&r, trip, use_cond, p->append_axes, &rows, err);
    else if (st == VKML_OK)
        st = loop_iterate(&r, has_trip, trip, cond, use_cond, err);
    if (st == VKML_OK)
        st = loop_outputs(&r, values, arena, err);
    for (int k = 0; r.stacks && k < r.n_scans; k++)
        free(r.stacks[k].bytes);
    free(r.stacks);
    free(r.args);
    arenas_free(&r.arenas);
    vkml_arena_destroy(&rows);
    return st;
}

/* Copies slice `index` of a tensor laid out as `outer` blocks of `len` slices of `inner`
 * bytes: out of src into dense dst (gather), or from dense src into dst (scatter). */
static void copy_slice(uint8_t *dst, const uint8_t *src, size_t outer, int64_t len, size_t inner,
                       int64_t index, bool gather)
{
    for (size_t o = 0; o < outer; o++) {
        size_t at = (o * (size_t)len + (size_t)index) * inner;
        memcpy(dst + (gather ? o * inner : at), src + (gather ? at : o * inner), inner);
    }
}

void cf_axis_layout(int rank, const int64_t *dims, int axis, size_t elem, size_t *outer,
                    size_t *inner)
{
    *outer = 1;
    *inner = elem;
    for (int d = 0; d < rank; d++)
        if (d < axis)
            *outer *= (size_t)dims[d];
        else if (d > axis)
            *inner *= (size_t)dims[d];
}

vkml_status cf_scan_axis(const graph_node *n, const int64_t *axes, int k, int rank,
                         const char *name, int *out, vkml_error *err)
{
    int64_t axis = axes ? axes[k] : 0;
    if (axis < -rank || axis >= rank)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: axis %lld of '%s' is outside rank %d",
                         n->op_type, (long long)axis, name, rank);
    *out = (int)(axis < 0 ? axis + rank : axis);
    return VKML_OK;
}

typedef struct scan_run {
    const cf_env *env;
    const graph_node *n;
    const cf_params *p;
    const graph *body;
    graph_value *outer;
    const int *in; /* the node's states, then its scan inputs */
    int n_state, n_in, n_out;
    int64_t length;    /* iterations: the scan inputs' extent along their axes */
    int *axes;         /* per scan input, then per scan output: the scanned axis */
    graph_value *args; /* the body's inputs: states, then slices */
    graph_value *made; /* per scan output: its elements' type and shape, data its bytes */
    cf_arenas arenas;
} scan_run;

/* Slice t (or length-1-t, reversed) of scan input j, as the body's input. */
static vkml_status scan_slice(scan_run *r, int j, int64_t t, vkml_error *err)
{
    const graph_value *v = &r->outer[r->in[r->n_state + j]];
    int axis = r->axes[j];
    size_t elem, outer, inner;
    vkml_status st = element_bytes(r->n, v, &elem, err);
    if (st != VKML_OK)
        return st;
    cf_axis_layout(v->rank, v->dims, axis, elem, &outer, &inner);
    uint8_t *bytes = vkml_arena_alloc(r->arenas.step, outer * inner + 1);
    if (!bytes)
        return oom(err);
    bool reverse = r->p->scan_input_directions && r->p->scan_input_directions[j];
    copy_slice(bytes, v->data, outer, r->length, inner, reverse ? r->length - 1 - t : t, true);
    graph_value *a = &r->args[r->n_state + j];
    *a = (graph_value){.name = v->name, .dtype = v->dtype, .rank = v->rank - 1, .data = bytes};
    for (int d = 0, k = 0; d < v->rank; d++)
        if (d != axis)
            a->dims[k++] = v->dims[d];
    return VKML_OK;
}

/* Element t of scan output k, placed along its axis (reversed when asked). */
static vkml_status scan_place(scan_run *r, int k, int64_t t, const graph_value *e,
                              vkml_arena *arena, vkml_error *err)
{
    graph_value *m = &r->made[k];
    size_t elem, outer, inner;
    vkml_status st = element_bytes(r->n, e, &elem, err);
    if (st == VKML_OK && e->rank + 1 > VKML_MAX_RANK)
        st = vkml_fail(err, VKML_ERROR_UNSUPPORTED, "Scan: output '%s' would have rank %d", e->name,
                       e->rank + 1);
    if (st == VKML_OK && t == 0)
        st = cf_scan_axis(r->n, r->p->scan_output_axes, k, e->rank + 1, e->name,
                          &r->axes[r->n_in + k], err);
    if (st != VKML_OK)
        return st;
    if (t == 0) {
        *m = *e;
        size_t bytes = 0;
        vkml_tensor_bytes(e->dtype, e->rank, e->dims, &bytes);
        if (!(m->data = vkml_arena_alloc(arena, bytes * (size_t)r->length + 1)))
            return oom(err);
    } else if (e->dtype != m->dtype || !same_shape(m->rank, m->dims, e)) {
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Scan: output '%s' changes its type or shape at iteration %lld", e->name,
                         (long long)t);
    }
    int axis = r->axes[r->n_in + k];
    int64_t full[VKML_MAX_RANK]; /* the output's shape */
    for (int d = 0, j = 0; d <= e->rank; d++)
        full[d] = d == axis ? r->length : e->dims[j++];
    cf_axis_layout(e->rank + 1, full, axis, elem, &outer, &inner);
    bool reverse = r->p->scan_output_directions && r->p->scan_output_directions[k];
    copy_slice((uint8_t *)m->data, e->data, outer, r->length, inner,
               reverse ? r->length - 1 - t : t, false);
    return VKML_OK;
}

static vkml_status scan_step(scan_run *r, int64_t t, vkml_arena *arena, vkml_error *err)
{
    graph_value *vals = NULL;
    vkml_status st = arenas_begin(&r->arenas, err);
    for (int j = 0; j < r->n_in && st == VKML_OK; j++)
        st = scan_slice(r, j, t, err);
    if (st == VKML_OK)
        st = cf_run_body(r->env, r->n, r->outer, r->body, r->args, r->arenas.step, &vals, err);
    for (int i = 0; i < r->n_state && st == VKML_OK; i++)
        st = carry_value(r->n, &r->args[i], &vals[r->body->outputs[i]], r->arenas.next, err);
    for (int k = 0; k < r->n_out && st == VKML_OK; k++)
        st = scan_place(r, k, t, &vals[r->body->outputs[r->n_state + k]], arena, err);
    free(vals);
    arenas_end(&r->arenas);
    return st;
}

/* The number of iterations: every scan input's extent along its axis. */
static vkml_status scan_length(scan_run *r, vkml_error *err)
{
    r->length = -1;
    for (int j = 0; j < r->n_in; j++) {
        const graph_value *v = &r->outer[r->in[r->n_state + j]];
        vkml_status st =
            cf_scan_axis(r->n, r->p->scan_input_axes, j, v->rank, v->name, &r->axes[j], err);
        if (st != VKML_OK)
            return st;
        int64_t len = v->dims[r->axes[j]];
        if (r->length >= 0 && len != r->length)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "Scan: scan input '%s' has %lld slices, the first one %lld", v->name,
                             (long long)len, (long long)r->length);
        r->length = len;
    }
    return VKML_OK;
}

static vkml_status scan_outputs(scan_run *r, graph_value *values, vkml_arena *arena,
                                vkml_error *err)
{
    vkml_status st = VKML_OK;
    for (int i = 0; i < r->n_state && st == VKML_OK; i++) {
        graph_value v = r->args[i];
        if ((st = carry_value(r->n, &v, &r->args[i], arena, err)) == VKML_OK)
            cf_set_output(values, r->n, i, &v);
    }
    for (int k = 0; k < r->n_out && st == VKML_OK; k++) {
        const graph_value *m = &r->made[k];
        st = stacked_output(values, r->n, r->n_state + k,
                            &r->body->values[r->body->outputs[r->n_state + k]], m->dtype, m->rank,
                            m->dims, r->axes[r->n_in + k], r->length > 0 ? r->length : 0,
                            m->data ? m->data : (const void *)"");
    }
    return st;
}

vkml_status cf_run_scan(const cf_env *env, graph_value *values, const graph_node *n,
                        vkml_arena *arena, vkml_error *err)
{
    const cf_params *p = n->params;
    scan_run r = {.env = env, .n = n, .p = p, .body = p->bodies[0], .outer = values};
    r.n_in = (int)p->num_scan_inputs;
    r.in = n->inputs + cf_scan_first(p);
    r.n_state = cf_explicit_inputs(n) - cf_scan_first(p) - r.n_in;
    r.n_out = r.body->n_outputs - r.n_state;
    r.axes = calloc((size_t)(r.n_in + r.n_out) + 1, sizeof(int));
    r.args = calloc((size_t)(r.n_state + r.n_in) + 1, sizeof(graph_value));
    r.made = calloc((size_t)r.n_out + 1, sizeof(graph_value));
    vkml_status st = r.axes && r.args && r.made ? scan_length(&r, err) : oom(err);
    for (int i = 0; i < r.n_state && st == VKML_OK; i++)
        r.args[i] = values[r.in[i]];
    for (int64_t t = 0; t < r.length && st == VKML_OK; t++)
        st = scan_step(&r, t, arena, err);
    if (st == VKML_OK)
        st = scan_outputs(&r, values, arena, err);
    free(r.axes);
    free(r.args);
    free(r.made);
    arenas_free(&r.arenas);
    return st;
}
