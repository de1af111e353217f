/* Outer-scope names of subgraphs become implicit inputs of the node that owns them. */
#include "onnx/onnx_load.h"

#include <stdlib.h>
#include <string.h>

/* Calls fn for every subgraph among the node's attributes. */
static vkml_status each_subgraph(graph_node *n, vkml_status (*fn)(void *ctx, graph *sub), void *ctx)
{
    vkml_status st = VKML_OK;
    for (int a = 0; a < n->n_attrs && st == VKML_OK; a++) {
        const graph_attr *attr = &n->attrs[a];
        if (attr->type == GRAPH_ATTR_GRAPH && attr->graph)
            st = fn(ctx, attr->graph);
        for (size_t i = 0; attr->type == GRAPH_ATTR_GRAPHS && i < attr->count && st == VKML_OK; i++)
            st = fn(ctx, attr->graphs[i]);
    }
    return st;
}

typedef struct outer_link {
    graph *g;
    int (*find_or_add)(void *ctx, const char *name);
    void *ctx;
    int n_explicit;
    int *names; /* values of g the node reads implicitly, in order */
    int n_names, cap;
    vkml_error *err;
} outer_link;

static vkml_status oom(vkml_error *err)
{
    return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory linking a subgraph");
}

/* Index of the implicit input named `name`, added when new; -1 on out of memory. */
static int implicit_index(outer_link *l, const char *name)
{
    for (int k = 0; k < l->n_names; k++)
        if (strcmp(l->g->values[l->names[k]].name, name) == 0)
            return k;
    if (l->n_names == l->cap) {
        int cap = l->cap ? l->cap * 2 : 8;
        int *grown = realloc(l->names, sizeof(int) * (size_t)cap);
        if (!grown)
            return -1;
        l->names = grown;
        l->cap = cap;
    }
    int v = l->find_or_add(l->ctx, name);
    if (v < 0)
        return -1;
    l->names[l->n_names] = v;
    return l->n_names++;
}

static vkml_status link_subgraph(void *ctx, graph *sub)
{
    outer_link *l = ctx;
    sub->outer_inputs = vkml_arena_calloc(sub->arena, (size_t)sub->n_outer + 1, sizeof(int));
    if (!sub->outer_inputs)
        return oom(l->err);
    for (int j = 0; j < sub->n_outer; j++) {
        int k = implicit_index(l, sub->values[sub->outer_values[j]].name);
        if (k < 0)
            return oom(l->err);
        sub->outer_inputs[j] = l->n_explicit + k;
    }
    return VKML_OK;
}

vkml_status onnx_link_outer_names(graph *g, int node,
                                  int (*find_or_add)(void *ctx, const char *name), void *ctx,
                                  vkml_error *err)
{
    graph_node *n = &g->nodes[node];
    outer_link l = {
        .g = g, .find_or_add = find_or_add, .ctx = ctx, .n_explicit = n->n_inputs, .err = err};
    vkml_status st = each_subgraph(n, link_subgraph, &l);
    if (st == VKML_OK && l.n_names > 0) {
        int *inputs = vkml_arena_calloc(g->arena, (size_t)(n->n_inputs + l.n_names), sizeof(int));
        if (!inputs) {
            st = oom(err);
        } else {
            memcpy(inputs, n->inputs, sizeof(int) * (size_t)n->n_inputs);
            memcpy(inputs + n->n_inputs, l.names, sizeof(int) * (size_t)l.n_names);
            n->inputs = inputs;
            n->n_inputs += l.n_names;
            n->n_implicit = l.n_names;
        }
    }
    free(l.names);
    return st;
}

/* The deepest nesting below gp, counting gp as `depth`; stops past the limit, naming the
 * node there in *where. */
static int nesting(const Onnx__GraphProto *gp, int depth, const char **where)
{
    int deepest = depth;
    for (size_t i = 0; gp && i < gp->n_node && deepest <= ONNX_MAX_SUBGRAPH_DEPTH; i++) {
        const Onnx__NodeProto *np = gp->node[i];
        for (size_t a = 0; a < np->n_attribute && deepest <= ONNX_MAX_SUBGRAPH_DEPTH; a++) {
            const Onnx__AttributeProto *ap = np->attribute[a];
            for (size_t k = 0; k <= ap->n_graphs && deepest <= ONNX_MAX_SUBGRAPH_DEPTH; k++) {
                const Onnx__GraphProto *sub = k < ap->n_graphs ? ap->graphs[k] : ap->g;
                if (!sub)
                    continue;
                if (depth + 1 > ONNX_MAX_SUBGRAPH_DEPTH && !*where)
                    *where = np->name && np->name[0] ? np->name : np->op_type;
                int d = nesting(sub, depth + 1, where);
                deepest = d > deepest ? d : deepest;
            }
        }
    }
    return deepest;
}

vkml_status onnx_check_nesting(const Onnx__GraphProto *gp, vkml_error *err)
{
    const char *where = NULL;
    if (nesting(gp, 0, &where) > ONNX_MAX_SUBGRAPH_DEPTH)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "subgraphs are nested more than %d deep (vkml's limit), at node '%s'",
                         ONNX_MAX_SUBGRAPH_DEPTH, where ? where : "");
    return VKML_OK;
}
