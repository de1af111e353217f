/* Control-flow nodes run on the host (cf_run.h). */
#include "ops/control.h"
#include "passes/cf_body.h"
#include "passes/fold.h"
#include "passes/infer.h"

#include <stdlib.h>
#include <string.h>

static const uint64_t no_bytes; /* the data of an empty tensor */

static vkml_status oom(vkml_error *err)
{
    return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory running a subgraph");
}

void cf_bind_value(graph_value *dst, const graph_value *src)
{
    dst->dtype = src->dtype;
    dst->rank = src->rank;
    memcpy(dst->dims, src->dims, sizeof(dst->dims));
    if (!vkml_tensor_bytes(dst->dtype, dst->rank, dst->dims, &dst->data_size))
        dst->data_size = 0;
    dst->data = src->data ? src->data : dst->data_size == 0 ? &no_bytes : NULL;
    dst->kind = dst->data ? GRAPH_VALUE_CONSTANT : GRAPH_VALUE_INPUT; /* INPUT: a probe's */
    dst->data_dependent = false;
}

void cf_set_output(graph_value *values, const graph_node *n, int o, const graph_value *v)
{
    graph_value *out = graph_node_output(values, n, o);
    if (out)
        cf_bind_value(out, v);
}

/* Runs node i of a subgraph whose inputs all have data: its outputs get theirs. */
static vkml_status run_one(const cf_env *env, const graph *body, graph_value *vals, int i,
                           vkml_arena *arena, vkml_error *err)
{
    const graph_node *n = &body->nodes[i];
    char label[300];
    vkml_status st;
    if (n->op && (n->op->flags & OP_LOWERED))
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "%s works on sequences, which vkml lowers to tensors when it plans a "
                         "session: a subgraph that runs at run time cannot hold one",
                         graph_node_label(body, i, label, sizeof(label)));
    if (n->op && (n->op->flags & OP_CONTROL_FLOW))
        st = (env->probe ? cf_probe_node : cf_run_node)(env, body, vals, i, arena, err);
    else if ((st = graph_infer_node(body, vals, i, err)) == VKML_OK)
        st = fold_if_constant(body, vals, i, env->runner, arena, err);
    for (int o = 0; st == VKML_OK && !env->probe && o < n->n_outputs; o++) {
        graph_value *v = graph_node_output(vals, n, o);
        if (v && !v->data)
            st = vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                           "%s did not run on the host: no host kernel, or output '%s' over %zu "
                           "bytes",
                           graph_node_label(body, i, label, sizeof(label)), v->name,
                           FOLD_MAX_OUTPUT_BYTES);
        else if (v)
            v->kind = GRAPH_VALUE_CONSTANT;
    }
    return st;
}

/* A subgraph output has a value of the element type it declares. */
static vkml_status check_output(const cf_env *env, const graph *body, const graph_value *vals,
                                int o, vkml_error *err)
{
    int v = body->outputs[o];
    vkml_dtype declared = body->values[v].dtype;
    if (!vals[v].data && !env->probe)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "subgraph output '%s' has no value",
                         vals[v].name);
    if (body->values[v].kind == GRAPH_VALUE_INTERMEDIATE && declared != VKML_DTYPE_UNDEFINED &&
        declared != vals[v].dtype)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "subgraph output '%s' is %s, its declaration says %s", vals[v].name,
                         vkml_dtype_name(vals[v].dtype), vkml_dtype_name(declared));
    return VKML_OK;
}

vkml_status cf_run_body(const cf_env *env, const graph_node *owner, const graph_value *outer,
                        const graph *body, const graph_value *args, vkml_arena *arena,
                        graph_value **out, vkml_error *err)
{
    graph_value *vals = graph_values_clone(body);
    *out = NULL;
    if (!vals)
        return oom(err);
    for (int i = 0; i < body->n_inputs; i++)
        cf_bind_value(&vals[body->inputs[i]], &args[i]);
    for (int j = 0; j < body->n_outer; j++)
        cf_bind_value(&vals[body->outer_values[j]], &outer[owner->inputs[body->outer_inputs[j]]]);
    vkml_status st = VKML_OK;
    for (int i = 0; i < body->n_nodes && st == VKML_OK; i++)
        st = run_one(env, body, vals, i, arena, err);
    for (int o = 0; o < body->n_outputs && st == VKML_OK; o++)
        st = check_output(env, body, vals, o, err);
    if (st != VKML_OK)
        free(vals);
    else
        *out = vals;
    return st;
}

vkml_status cf_scalar_of(const graph_value *v, vkml_dtype dtype, const char *what, void *out,
                         vkml_error *err)
{
    if (v->dtype != dtype || vkml_tensor_element_count(v->rank, v->dims) != 1 || !v->data)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s '%s' must be one %s, not %s %s", what,
                         v->name, vkml_dtype_name(dtype), vkml_dtype_name(v->dtype),
                         v->rank == 0 ? "scalar" : "tensor");
    if (dtype == VKML_DTYPE_BOOL) /* any nonzero byte is true; a bool holds only 0 or 1 */
        *(bool *)out = *(const uint8_t *)v->data != 0;
    else
        memcpy(out, v->data, vkml_dtype_bits(dtype) / 8);
    return VKML_OK;
}

static vkml_status run_if(const cf_env *env, graph_value *values, const graph_node *n,
                          vkml_arena *arena, vkml_error *err)
{
    const cf_params *p = n->params;
    bool cond = false;
    graph_value *vals = NULL;
    vkml_status st =
        cf_scalar_of(&values[n->inputs[0]], VKML_DTYPE_BOOL, "the condition", &cond, err);
    const graph *branch = p->bodies[cond ? 0 : 1];
    if (st == VKML_OK)
        st = cf_run_body(env, n, values, branch, NULL, arena, &vals, err);
    for (int o = 0; st == VKML_OK && o < n->n_outputs; o++)
        cf_set_output(values, n, o, &vals[branch->outputs[o]]);
    free(vals);
    return st;
}

vkml_status cf_run_node(const cf_env *env, const graph *g, graph_value *values, int node,
                        vkml_arena *arena, vkml_error *err)
{
    const graph_node *n = &g->nodes[node];
    char label[300];
    vkml_status st;
    switch (n->op->id) {
    case OP_ID_If: st = run_if(env, values, n, arena, err); break;
    case OP_ID_Loop: st = cf_run_loop(env, values, n, arena, err); break;
    case OP_ID_Scan:
        st = ((const cf_params *)n->params)->batched
                 ? cf_run_batched(env, values, n, arena, cf_run_scan, err)
                 : cf_run_scan(env, values, n, arena, err);
        break;
    default:
        st = vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s is no control-flow op", n->op_type);
        break;
    }
    if (st != VKML_OK)
        vkml_error_prefix(err, "%s", graph_node_label(g, node, label, sizeof(label)));
    return st;
}
