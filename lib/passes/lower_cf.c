/*
 * Control flow in a plan's lowered graph (lower.h): an If whose condition is known (and
 * derives from no data-dependent extent's planned bound) becomes
 * its taken branch's nodes (values renamed "<if>/<name>", the branch's outputs Identities
 * of the If's), so a shape test an exporter wrote plans as a plain graph on the devices; a
 * control-flow node whose inputs are all constants runs once, here, and its outputs become
 * constants; a Loop or Scan the plan can unroll becomes its iterations' nodes
 * (lower_unroll.c); any other stays a node, its output shapes probed (cf_probe_node), for
 * the plan's dynamic tail to run.
 */
#include "ops/control.h"
#include "passes/cf_body.h"
#include "passes/fold.h"
#include "passes/lower_ctx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static vkml_status oom(vkml_error *err)
{
    return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory lowering control flow");
}

vkml_status lower_map_body(lower_ctx *c, const graph_node *n, const graph *body, const char *base,
                           int *map, vkml_error *err)
{
    for (int j = 0; j < body->n_outer; j++)
        map[body->outer_values[j]] = n->inputs[body->outer_inputs[j]];
    for (int v = 0; v < body->n_values; v++) {
        if (map[v] >= 0)
            continue;
        if ((map[v] = lower_new_value(c, base, body->values[v].name)) < 0)
            return oom(err);
        graph_value *val = &c->g->values[map[v]];
        if (body->values[v].kind == GRAPH_VALUE_CONSTANT) {
            const char *name = val->name;
            *val = body->values[v];
            val->name = name;
            val->is_output = false;
            val->producer = -1;
        }
    }
    return VKML_OK;
}

vkml_status lower_inline_node(lower_ctx *c, const char *base, const graph_node *bn, const int *map,
                              vkml_error *err)
{
    char name[600];
    graph_node copy = *bn;
    snprintf(name, sizeof(name), "%s%s", base, bn->name);
    copy.name = vkml_arena_strdup(c->g->arena, name);
    int *inputs = vkml_arena_calloc(c->g->arena, (size_t)bn->n_inputs + 1, sizeof(int));
    int *outputs = vkml_arena_calloc(c->g->arena, (size_t)bn->n_outputs + 1, sizeof(int));
    if (!copy.name || !inputs || !outputs)
        return oom(err);
    for (int k = 0; k < bn->n_inputs; k++)
        inputs[k] = bn->inputs[k] >= 0 ? map[bn->inputs[k]] : -1;
    for (int o = 0; o < bn->n_outputs; o++)
        outputs[o] = bn->outputs[o] >= 0 ? map[bn->outputs[o]] : -1;
    copy.inputs = inputs;
    copy.outputs = outputs;
    return lower_one(c, &copy, err);
}

vkml_status lower_bind_output(lower_ctx *c, const graph_node *n, int o, int src, vkml_error *err)
{
    int out = n->outputs[o];
    if (out < 0)
        return VKML_OK;
    if (lower_grow_seqs(c) != VKML_OK)
        return oom(err);
    if (!c->seqs[src].is_seq)
        return lower_emit(c, "Identity", &src, 1, &out, 1, -1, err);
    if (c->g->values[out].is_output)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "output '%s' is a sequence graph output, which is not supported (vkml "
                         "lowers sequences to tensors at plan time)",
                         c->g->values[out].name);
    c->seqs[out] = c->seqs[src];
    return VKML_OK;
}

static vkml_status inline_branch(lower_ctx *c, const graph_node *n, const graph *body,
                                 vkml_error *err)
{
    char base[300];
    snprintf(base, sizeof(base), "%s/", n->name[0] ? n->name : n->op_type);
    int *map = malloc(sizeof(int) * ((size_t)body->n_values + 1));
    for (int v = 0; map && v < body->n_values; v++)
        map[v] = -1;
    vkml_status st = map ? lower_map_body(c, n, body, base, map, err) : oom(err);
    for (int i = 0; i < body->n_nodes && st == VKML_OK; i++)
        st = lower_inline_node(c, base, &body->nodes[i], map, err);
    for (int o = 0; o < n->n_outputs && st == VKML_OK; o++)
        st = lower_bind_output(c, n, o, map[body->outputs[o]], err);
    free(map);
    return st;
}

bool lower_known_bool(const graph_value *v, bool *out)
{
    if (!v->data || v->dtype != VKML_DTYPE_BOOL || vkml_tensor_element_count(v->rank, v->dims) != 1)
        return false;
    *out = *(const uint8_t *)v->data != 0; /* any nonzero byte is true, as ONNX reads it */
    return true;
}

/* The condition of an If, when the plan knows it. */
static bool known_condition(const lower_ctx *c, const graph_node *n, bool *cond)
{
    return lower_known_bool(&c->g->values[n->inputs[0]], cond);
}

/* Whether an input of n derives from a value whose planned extent is only a bound (a
 * data-dependent extent: NonZero, NonMaxSuppression, a run-time Loop's outputs): then
 * what folded from it (Shape of it, a condition on that) is no plan-time constant. */
static bool reads_bounds(const lower_ctx *c, const graph_node *n)
{
    const graph *g = c->g;
    bool *seen = calloc((size_t)g->n_values + 1, sizeof(bool));
    int *stack = malloc(sizeof(int) * ((size_t)g->n_values + 1));
    int top = 0;
    bool found = !seen || !stack; /* out of memory: assume so, and plan it at run time */
    for (int k = 0; !found && k < n->n_inputs; k++)
        if (n->inputs[k] >= 0 && !seen[n->inputs[k]]) {
            seen[n->inputs[k]] = true;
            stack[top++] = n->inputs[k];
        }
    while (!found && top > 0) {
        const graph_value *v = &g->values[stack[--top]];
        found = v->data_dependent;
        const graph_node *p =
            v->producer >= 0 && v->producer < g->n_nodes ? &g->nodes[v->producer] : NULL;
        for (int k = 0; p && k < p->n_inputs; k++)
            if (p->inputs[k] >= 0 && !seen[p->inputs[k]]) {
                seen[p->inputs[k]] = true;
                stack[top++] = p->inputs[k];
            }
    }
    free(seen);
    free(stack);
    return found;
}

/* The node, run here: its outputs become constants and it leaves the graph. */
static void drop_folded(lower_ctx *c, int k)
{
    const graph_node *n = &c->g->nodes[k];
    for (int o = 0; o < n->n_outputs; o++)
        if (n->outputs[o] >= 0) {
            graph_value *v = &c->g->values[n->outputs[o]];
            v->kind = GRAPH_VALUE_CONSTANT;
            v->producer = -1;
            v->data_dependent = false;
        }
    c->g->n_nodes--;
}

/* The node stays for the dynamic tail, with the shapes probed as its bounds; a Loop whose
 * iterations only append is marked so (cf_params.append_axes), for the tail to run them at
 * once. */
static vkml_status keep_for_tail(lower_ctx *c, int k, vkml_error *err)
{
    graph_node *n = &c->g->nodes[k];
    cf_params *p = vkml_arena_memdup(c->arena, n->params, sizeof(cf_params));
    graph_value *bounds =
        vkml_arena_calloc(c->arena, (size_t)n->n_outputs + 1, sizeof(graph_value));
    if (!p || !bounds)
        return oom(err);
    for (int o = 0; o < n->n_outputs; o++)
        if (n->outputs[o] >= 0)
            bounds[o] = c->g->values[n->outputs[o]];
    p->bounds = bounds;
    int n_carried = cf_explicit_inputs(n) - 2;
    int64_t *axes = n->op->id == OP_ID_Loop && n_carried > 0
                        ? vkml_arena_calloc(c->arena, (size_t)n_carried, sizeof(int64_t))
                        : NULL;
    if (axes && cf_loop_appends(p->bodies[0], n_carried, axes))
        p->append_axes = axes;
    n->params = p;
    return lower_settle_node(c, k, err);
}

/* An If whose condition folded from a planned bound, but whose branches no one shape can
 * bound (an exporter's `if x.shape[1] == 1: x.squeeze(1)` on a data-dependent x: the
 * branches differ in rank): it becomes the branch the plan's shapes take, as an If of a
 * known condition does, with a warning. Right when the condition reads a dim the data do
 * not change (the case torchvision exports); a run whose data flip it gets shapes its
 * nodes then refuse. */
static vkml_status inline_on_bound(lower_ctx *c, const graph_node *n, int k, bool cond,
                                   vkml_error *err)
{
    char label[300];
    VKML_LOGW("%s: the condition is known only from a planned bound; it stays %s (%s)",
              lower_node_label(n, label, sizeof(label)), cond ? "true" : "false",
              err ? err->message : "");
    for (int o = 0; o < n->n_outputs; o++)
        if (n->outputs[o] >= 0)
            c->g->values[n->outputs[o]].producer = -1;
    c->g->n_nodes = k; /* the node added for the probe goes */
    return inline_branch(c, n, ((const cf_params *)n->params)->bodies[cond ? 0 : 1], err);
}

vkml_status lower_cf_node(lower_ctx *c, const graph_node *n, vkml_error *err)
{
    const cf_params *p = n->params;
    cf_env env = c->env;
    env.inputs_are_bounds = reads_bounds(c, n);
    bool cond, known = n->op->id == OP_ID_If && known_condition(c, n, &cond);
    if (known && !env.inputs_are_bounds)
        return inline_branch(c, n, p->bodies[cond ? 0 : 1], err);
    if (!env.inputs_are_bounds && (n->op->id == OP_ID_Loop || n->op->id == OP_ID_Scan)) {
        bool unrolled = false;
        vkml_status st = lower_unroll(c, n, &unrolled, err);
        if (st != VKML_OK || unrolled)
            return st;
    }
    for (int k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] >= 0 && c->seqs[n->inputs[k]].is_seq)
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                             "%s: input '%s' is a sequence; vkml runs control flow over tensors "
                             "only (a sequence lowers to tensors at plan time, so it cannot be "
                             "carried through a run-time loop)",
                             lower_node_label(n, (char[300]){0}, 300),
                             c->g->values[n->inputs[k]].name);
    int k = graph_add_node(c->g, "", "", "", 0, 0, 0);
    if (k < 0)
        return oom(err);
    c->g->nodes[k] = *n;
    for (int o = 0; o < n->n_outputs; o++)
        if (n->outputs[o] >= 0)
            c->g->values[n->outputs[o]].producer = k;
    vkml_status st = cf_probe_node(&env, c->g, c->g->values, k, c->arena, err);
    if (st != VKML_OK && st != VKML_ERROR_OUT_OF_MEMORY && known)
        return inline_on_bound(c, n, k, cond, err);
    if (st != VKML_OK)
        return st;
    if (fold_outputs_known(c->g->values, n)) {
        drop_folded(c, k);
        return VKML_OK;
    }
    return keep_for_tail(c, k, err);
}
