#include "onnx/onnx_load.h"

#include <stdio.h>
#include <string.h>

/* IR versions before 2 had no `type`: the type is whichever field is set. */
static int attr_type_of(const Onnx__AttributeProto *ap)
{
    if (ap->has_type && ap->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED)
        return (int)ap->type;
    if (ap->has_f)
        return GRAPH_ATTR_FLOAT;
    if (ap->has_i)
        return GRAPH_ATTR_INT;
    if (ap->has_s)
        return GRAPH_ATTR_STRING;
    if (ap->t)
        return GRAPH_ATTR_TENSOR;
    if (ap->g)
        return GRAPH_ATTR_GRAPH;
    if (ap->n_floats)
        return GRAPH_ATTR_FLOATS;
    if (ap->n_ints)
        return GRAPH_ATTR_INTS;
    if (ap->n_strings)
        return GRAPH_ATTR_STRINGS;
    if (ap->n_tensors)
        return GRAPH_ATTR_TENSORS;
    if (ap->n_graphs)
        return GRAPH_ATTR_GRAPHS;
    return GRAPH_ATTR_UNDEFINED;
}

static vkml_status oom(vkml_error *err, const char *what)
{
    return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
}

static void release_graph(void *p)
{
    graph *g = p;
    graph_destroy(&g);
}

static vkml_status load_subgraph(const onnx_loader *outer, Onnx__GraphProto *gp, const char *what,
                                 graph **out, vkml_error *err)
{
    const onnx_loader *L = outer;
    graph *sub = graph_create();
    if (!sub || !onnx_backing_add(L->backing, release_graph, sub))
        return oom(err, what);
    *out = sub; /* owned by the backing from here on */
    vkml_status st = onnx_load_graph_body(L, gp, sub, true, err);
    if (st == VKML_OK)
        st = graph_sort(sub, err);
    if (st != VKML_OK)
        vkml_error_prefix(err, "%s: subgraph '%s'", what, gp->name ? gp->name : "");
    return st;
}

static vkml_status load_tensors(const onnx_loader *L, graph *g, Onnx__TensorProto **tps,
                                size_t count, const char *what, graph_tensor *out, vkml_error *err)
{
    onnx_tensor_ctx ctx = {.arena = g->arena, .base_dir = L->base_dir, .backing = L->backing};
    for (size_t i = 0; i < count; i++) {
        vkml_status st = onnx_tensor_decode(&ctx, tps[i], what, &out[i], err);
        if (st != VKML_OK)
            return st;
    }
    return VKML_OK;
}

static vkml_status load_list(const onnx_loader *L, graph *g, Onnx__AttributeProto *ap,
                             const char *what, graph_attr *out, vkml_error *err)
{
    vkml_arena *arena = g->arena;
    switch (out->type) {
    case GRAPH_ATTR_FLOATS:
        out->count = ap->n_floats;
        out->floats = vkml_arena_memdup(arena, ap->floats, ap->n_floats * sizeof(float));
        return out->floats ? VKML_OK : oom(err, what);
    case GRAPH_ATTR_INTS:
        out->count = ap->n_ints;
        out->ints = vkml_arena_memdup(arena, ap->ints, ap->n_ints * sizeof(int64_t));
        return out->ints ? VKML_OK : oom(err, what);
    case GRAPH_ATTR_STRINGS: {
        out->count = ap->n_strings;
        const char **strings = vkml_arena_calloc(arena, ap->n_strings + 1, sizeof(char *));
        if (!strings)
            return oom(err, what);
        for (size_t i = 0; i < ap->n_strings; i++) {
            strings[i] =
                vkml_arena_strndup(arena, (const char *)ap->strings[i].data, ap->strings[i].len);
            if (!strings[i])
                return oom(err, what);
        }
        out->strings = strings;
        return VKML_OK;
    }
    case GRAPH_ATTR_TENSORS:
        out->count = ap->n_tensors;
        out->tensors = vkml_arena_calloc(arena, ap->n_tensors + 1, sizeof(graph_tensor));
        if (!out->tensors)
            return oom(err, what);
        return load_tensors(L, g, ap->tensors, ap->n_tensors, what, out->tensors, err);
    case GRAPH_ATTR_GRAPHS:
        out->count = ap->n_graphs;
        out->graphs = vkml_arena_calloc(arena, ap->n_graphs + 1, sizeof(graph *));
        if (!out->graphs)
            return oom(err, what);
        for (size_t i = 0; i < ap->n_graphs; i++) {
            vkml_status st = load_subgraph(L, ap->graphs[i], what, &out->graphs[i], err);
            if (st != VKML_OK)
                return st;
        }
        return VKML_OK;
    default: return VKML_OK;
    }
}

static vkml_status load_value(const onnx_loader *L, graph *g, Onnx__AttributeProto *ap,
                              const char *what, graph_attr *out, vkml_error *err)
{
    vkml_status st = VKML_OK;
    switch (out->type) {
    case GRAPH_ATTR_FLOAT: out->f = ap->f; break;
    case GRAPH_ATTR_INT: out->i = ap->i; break;
    case GRAPH_ATTR_STRING:
        out->s_len = ap->s.len;
        out->s =
            vkml_arena_strndup(g->arena, ap->s.data ? (const char *)ap->s.data : "", ap->s.len);
        st = out->s ? VKML_OK : oom(err, what);
        break;
    case GRAPH_ATTR_TENSOR:
        if (!ap->t)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: type TENSOR without a tensor",
                             what);
        out->tensor = vkml_arena_alloc(g->arena, sizeof(graph_tensor));
        if (!out->tensor)
            return oom(err, what);
        return load_tensors(L, g, &ap->t, 1, what, out->tensor, err);
    case GRAPH_ATTR_GRAPH:
        if (!ap->g)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: type GRAPH without a graph", what);
        return load_subgraph(L, ap->g, what, &out->graph, err);
    /* Sparse tensors and type protos are recorded by type and count only: no op vkml
     * implements reads them. */
    case GRAPH_ATTR_SPARSE_TENSOR:
    case GRAPH_ATTR_TYPE_PROTO: out->count = 1; break;
    case GRAPH_ATTR_SPARSE_TENSORS: out->count = ap->n_sparse_tensors; break;
    case GRAPH_ATTR_TYPE_PROTOS: out->count = ap->n_type_protos; break;
    default: st = load_list(L, g, ap, what, out, err); break;
    }
    return st;
}

vkml_status onnx_load_attr(const onnx_loader *L, graph *g, Onnx__AttributeProto *ap,
                           const char *where, graph_attr *out, vkml_error *err)
{
    char what[400];
    if (!ap->name || !ap->name[0])
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: an attribute has no name", where);
    snprintf(what, sizeof(what), "%s: attribute '%s'", where, ap->name);
    out->name = vkml_arena_strdup(g->arena, ap->name);
    if (!out->name)
        return oom(err, what);
    if (ap->ref_attr_name)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: refers to a function attribute outside a function", what);
    int type = attr_type_of(ap);
    if (type <= GRAPH_ATTR_UNDEFINED || type > GRAPH_ATTR_TYPE_PROTOS)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: invalid attribute type %d", what,
                         type);
    out->type = (graph_attr_type)type;
    return load_value(L, g, ap, what, out, err);
}
