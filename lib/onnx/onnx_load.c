/*
 * ModelProto -> graph. The weights (raw_data of the main graph's initializers) never go
 * through protobuf-c (see onnx_strip.c): with copy_constants false, those aligned for
 * their type stay where they lie in `bytes`, the others are copied. Other byte fields
 * (subgraph initializers, tensor attributes) are copied by protobuf-c, and large ones are
 * then adopted by the graph rather than copied again.
 */
#include "onnx/onnx_load.h"
#include "onnx/model.h"
#include "onnx/onnx_wire.h"
#include "ops/op.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Name -> value index, open addressing. Slots hold index + 1; 0 is empty. */
typedef struct name_map {
    int *slots;
    size_t mask;
    size_t used;
} name_map;

static size_t hash_name(const char *s)
{
    return (size_t)vkml_fnv1a(VKML_FNV1A_SEED, s, strlen(s));
}

static size_t map_slot(const name_map *m, const graph *g, const char *name)
{
    size_t i = hash_name(name) & m->mask;
    while (m->slots[i] && strcmp(g->values[m->slots[i] - 1].name, name) != 0)
        i = (i + 1) & m->mask;
    return i;
}

static int map_find(const name_map *m, const graph *g, const char *name)
{
    return m->slots[map_slot(m, g, name)] - 1;
}

static bool map_grow(name_map *m, const graph *g)
{
    size_t cap = (m->mask + 1) * 2;
    name_map bigger = {.slots = calloc(cap, sizeof(int)), .mask = cap - 1};
    if (!bigger.slots)
        return false;
    for (size_t i = 0; i <= m->mask; i++)
        if (m->slots[i])
            bigger.slots[map_slot(&bigger, g, g->values[m->slots[i] - 1].name)] = m->slots[i];
    bigger.used = m->used;
    free(m->slots);
    *m = bigger;
    return true;
}

/* Adds a value named `name`; -1 on out of memory. */
static int map_add_value(name_map *m, graph *g, const char *name)
{
    if ((m->used + 1) * 2 > m->mask + 1 && !map_grow(m, g))
        return -1;
    int v = graph_add_value(g, name);
    if (v < 0)
        return -1;
    size_t slot = map_slot(m, g, name);
    if (!m->slots[slot])
        m->used++;
    m->slots[slot] = v + 1;
    return v;
}

typedef struct body {
    const onnx_loader *L;
    graph *g;
    name_map names;
    bool subgraph;
} body;

static vkml_status oom(vkml_error *err, const char *what)
{
    return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
}

/* Declared type of a graph input or output (tensor types only; others stay unknown). */
static vkml_status apply_type(body *b, const Onnx__ValueInfoProto *vi, int v, const char *what,
                              vkml_error *err)
{
    const Onnx__TypeProto *type = vi->type;
    if (!type || type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !type->tensor_type)
        return VKML_OK;
    const Onnx__TypeProto__Tensor *tt = type->tensor_type;
    vkml_dtype dtype = VKML_DTYPE_UNDEFINED;
    if (tt->has_elem_type && tt->elem_type != 0) {
        vkml_status st = onnx_dtype(tt->elem_type, what, &dtype, err);
        if (st != VKML_OK)
            return st;
    }
    graph_value *val = &b->g->values[v];
    val->dtype = dtype;
    if (!tt->shape)
        return VKML_OK;
    if (tt->shape->n_dim > VKML_MAX_RANK)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s: rank %zu exceeds vkml's maximum of %d",
                         what, tt->shape->n_dim, VKML_MAX_RANK);
    val->rank = (int)tt->shape->n_dim;
    for (int i = 0; i < val->rank; i++) {
        const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
        val->dims[i] = -1;
        val->dim_names[i] = NULL;
        if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
            if (d->dim_value < 0)
                return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: dimension %d is %lld", what, i,
                                 (long long)d->dim_value);
            val->dims[i] = d->dim_value;
        } else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
                   d->dim_param && d->dim_param[0]) {
            val->dim_names[i] = vkml_arena_strdup(b->g->arena, d->dim_param);
            if (!val->dim_names[i])
                return oom(err, what);
        }
    }
    return VKML_OK;
}

static vkml_status load_initializers(body *b, Onnx__GraphProto *gp, vkml_error *err)
{
    onnx_tensor_ctx ctx = {.arena = b->g->arena,
                           .base_dir = b->L->base_dir,
                           .backing = b->L->backing,
                           .alias_spans = b->L->alias_spans,
                           .realign_spans = b->L->realign_spans};
    const onnx_raw_span *spans = b->subgraph ? NULL : b->L->spans;
    size_t aliased = 0;
    char what[300];
    if (gp->n_sparse_initializer)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "sparse initializers are not supported");
    if (spans && b->L->n_spans != gp->n_initializer)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "the graph's initializers do not match their encoding");
    for (size_t i = 0; i < gp->n_initializer; i++) {
        Onnx__TensorProto *tp = gp->initializer[i];
        if (!tp->name || !tp->name[0])
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "initializer #%zu has no name", i);
        snprintf(what, sizeof(what), "initializer '%s'", tp->name);
        if (map_find(&b->names, b->g, tp->name) >= 0)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s is defined twice", what);
        graph_tensor t;
        vkml_status st = onnx_tensor_decode_span(&ctx, tp, spans ? &spans[i] : NULL, what, &t, err);
        if (st != VKML_OK)
            return st;
        int v = map_add_value(&b->names, b->g, tp->name);
        if (v < 0)
            return oom(err, what);
        graph_value *val = &b->g->values[v];
        val->kind = GRAPH_VALUE_CONSTANT;
        val->dtype = t.dtype;
        val->rank = t.rank;
        memcpy(val->dims, t.dims, sizeof(val->dims));
        val->data = t.data;
        val->data_size = t.size;
        const uint8_t *at = t.data;
        aliased += spans && spans[i].present && at <= spans[i].data &&
                   at >= spans[i].data - spans[i].head; /* in place, or moved within it */
    }
    if (spans)
        VKML_LOGD("%zu of %zu initializers stay in the model's bytes", aliased, gp->n_initializer);
    return VKML_OK;
}

/* Adds one graph input. IR < 4 lists initializers among the inputs too: those stay
 * constants (*v stays -1: not an input). */
static vkml_status add_input(body *b, const Onnx__ValueInfoProto *vi, const char *what, int *v,
                             vkml_error *err)
{
    int found = map_find(&b->names, b->g, vi->name);
    if (found >= 0 && b->g->values[found].kind == GRAPH_VALUE_CONSTANT)
        return VKML_OK;
    if (found >= 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s is listed twice", what);
    if ((*v = map_add_value(&b->names, b->g, vi->name)) < 0)
        return oom(err, what);
    b->g->values[*v].kind = GRAPH_VALUE_INPUT;
    return apply_type(b, vi, *v, what, err);
}

/* Marks one graph output; its declared type is kept on values nodes produce. */
static vkml_status add_output(body *b, const Onnx__ValueInfoProto *vi, const char *what, int *v,
                              vkml_error *err)
{
    *v = map_find(&b->names, b->g, vi->name);
    if (*v < 0 && !b->subgraph)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s is not produced by any node, nor an input or initializer", what);
    if (*v < 0 && (*v = map_add_value(&b->names, b->g, vi->name)) < 0)
        return oom(err, what);
    b->g->values[*v].is_output = true;
    if (b->g->values[*v].kind != GRAPH_VALUE_INTERMEDIATE)
        return VKML_OK;
    return apply_type(b, vi, *v, what, err);
}

typedef vkml_status (*add_info_fn)(body *b, const Onnx__ValueInfoProto *vi, const char *what,
                                   int *v, vkml_error *err);

/* Graph inputs or outputs into *list (value indices, in model order). */
static vkml_status load_infos(body *b, Onnx__ValueInfoProto **infos, size_t count, const char *kind,
                              add_info_fn add, int **list, int *n_list, vkml_error *err)
{
    char what[300];
    *list = vkml_arena_calloc(b->g->arena, count + 1, sizeof(int));
    if (!*list)
        return oom(err, kind);
    for (size_t i = 0; i < count; i++) {
        const Onnx__ValueInfoProto *vi = infos[i];
        if (!vi->name || !vi->name[0])
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "graph %s #%zu has no name", kind, i);
        snprintf(what, sizeof(what), "graph %s '%s'", kind, vi->name);
        int v = -1;
        vkml_status st = add(b, vi, what, &v, err);
        if (st != VKML_OK)
            return st;
        if (v >= 0)
            (*list)[(*n_list)++] = v;
    }
    return VKML_OK;
}

/* Value indices of a node's input or output names ("" is an omitted optional one). */
static vkml_status link_names(body *b, char **names, size_t count, int *indices, const char *what,
                              vkml_error *err)
{
    for (size_t i = 0; i < count; i++) {
        const char *name = names[i] ? names[i] : "";
        if (!name[0])
            continue;
        int v = map_find(&b->names, b->g, name);
        if (v < 0)
            v = map_add_value(&b->names, b->g, name);
        if (v < 0)
            return oom(err, what);
        indices[i] = v;
    }
    return VKML_OK;
}

static int64_t opset_of(const onnx_loader *L, const char *domain)
{
    for (size_t i = 0; i < L->n_opsets; i++)
        if (strcmp(L->opsets[i].domain, domain) == 0)
            return L->opsets[i].version;
    return 0;
}

static const char *normal_domain(const char *domain)
{
    return !domain || strcmp(domain, "ai.onnx") == 0 ? "" : domain;
}

/* The value named `name`, added when new (a name produced later, or by an enclosing
 * graph); -1 on out of memory. */
static int find_or_add_name(void *ctx, const char *name)
{
    body *b = ctx;
    int v = map_find(&b->names, b->g, name);
    return v >= 0 ? v : map_add_value(&b->names, b->g, name);
}

static vkml_status load_node(body *b, Onnx__NodeProto *np, size_t index, vkml_error *err)
{
    char where[300];
    if (!np->op_type || !np->op_type[0])
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "node #%zu ('%s') has no op_type", index,
                         np->name ? np->name : "");
    if (np->n_input > INT_MAX || np->n_output > INT_MAX || np->n_attribute > INT_MAX)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "node #%zu: too many fields", index);
    int n = graph_add_node(b->g, np->name ? np->name : "", np->op_type, normal_domain(np->domain),
                           (int)np->n_input, (int)np->n_output, (int)np->n_attribute);
    if (n < 0)
        return oom(err, np->op_type);
    graph_node *node = &b->g->nodes[n];
    graph_node_label(b->g, n, where, sizeof(where));
    int64_t opset = opset_of(b->L, node->domain);
    node->opset = opset > INT_MAX ? INT_MAX : (int)opset;
    vkml_status st = link_names(b, np->input, np->n_input, node->inputs, where, err);
    if (st == VKML_OK)
        st = link_names(b, np->output, np->n_output, node->outputs, where, err);
    for (size_t i = 0; st == VKML_OK && i < np->n_attribute; i++) {
        st = onnx_load_attr(b->L, b->g, np->attribute[i], where, &node->attrs[i], err);
        for (size_t k = 0; st == VKML_OK && k < i; k++)
            if (strcmp(node->attrs[k].name, node->attrs[i].name) == 0)
                st = vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: attribute '%s' is given twice",
                               where, node->attrs[i].name);
    }
    if (st == VKML_OK)
        st = onnx_link_outer_names(b->g, n, find_or_add_name, b, err);
    return st;
}

/* In a subgraph, names nothing in it produces come from enclosing graphs: they become
 * inputs that are not among g->inputs, listed in g->outer_values. */
static vkml_status mark_outer_names(graph *g, vkml_error *err)
{
    bool *produced = calloc((size_t)g->n_values + 1, sizeof(bool));
    g->outer_values = vkml_arena_calloc(g->arena, (size_t)g->n_values + 1, sizeof(int));
    if (!produced || !g->outer_values) {
        free(produced);
        return oom(err, "subgraph");
    }
    for (int i = 0; i < g->n_nodes; i++)
        for (int o = 0; o < g->nodes[i].n_outputs; o++)
            if (g->nodes[i].outputs[o] >= 0)
                produced[g->nodes[i].outputs[o]] = true;
    for (int v = 0; v < g->n_values; v++)
        if (g->values[v].kind == GRAPH_VALUE_INTERMEDIATE && !produced[v]) {
            g->values[v].kind = GRAPH_VALUE_INPUT;
            g->outer_values[g->n_outer++] = v;
        }
    free(produced);
    return VKML_OK;
}

vkml_status onnx_load_graph_body(const onnx_loader *L, Onnx__GraphProto *gp, graph *g,
                                 bool subgraph, vkml_error *err)
{
    body b = {.L = L,
              .g = g,
              .subgraph = subgraph,
              .names = {.slots = calloc(64, sizeof(int)), .mask = 63}};
    if (!b.names.slots)
        return oom(err, "graph");
    vkml_status st = load_initializers(&b, gp, err);
    if (st == VKML_OK)
        st = load_infos(&b, gp->input, gp->n_input, "input", add_input, &g->inputs, &g->n_inputs,
                        err);
    for (size_t i = 0; st == VKML_OK && i < gp->n_node; i++)
        st = load_node(&b, gp->node[i], i, err);
    if (st == VKML_OK)
        st = load_infos(&b, gp->output, gp->n_output, "output", add_output, &g->outputs,
                        &g->n_outputs, err);
    if (st == VKML_OK && subgraph)
        st = mark_outer_names(g, err);
    free(b.names.slots);
    return st;
}

static vkml_status read_opsets(onnx_loader *L, graph *g, const Onnx__ModelProto *mp,
                               vkml_error *err)
{
    if (mp->n_opset_import == 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "the model imports no opset");
    L->opsets = vkml_arena_calloc(g->arena, mp->n_opset_import, sizeof(onnx_opset));
    if (!L->opsets)
        return oom(err, "opset imports");
    for (size_t i = 0; i < mp->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *op = mp->opset_import[i];
        const char *domain = normal_domain(op->domain);
        if (!op->has_version || op->version < 1)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "opset import of domain '%s' has no valid version", domain);
        if (opset_of(L, domain))
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "domain '%s' is imported twice",
                             domain);
        L->opsets[L->n_opsets++] = (onnx_opset){vkml_arena_strdup(g->arena, domain), op->version};
        if (!L->opsets[L->n_opsets - 1].domain)
            return oom(err, "opset imports");
    }
    g->opset = opset_of(L, "");
    if (g->opset > VKML_MAX_OPSET)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "the model imports ai.onnx opset %lld; vkml supports opsets up to %d",
                         (long long)g->opset, VKML_MAX_OPSET);
    return VKML_OK;
}

static vkml_status load_model(onnx_loader *L, graph *g, Onnx__ModelProto *mp, vkml_error *err)
{
    vkml_status st = read_opsets(L, g, mp, err);
    if (st != VKML_OK)
        return st;
    if (!mp->graph)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "the model has no graph");
    if ((st = onnx_check_nesting(mp->graph, err)) != VKML_OK)
        return st;
    st = onnx_load_graph_body(L, mp->graph, g, false, err);
    if (st == VKML_OK)
        st = graph_sort(g, err);
    return st;
}

vkml_status onnx_load_graph(const void *bytes, size_t size, const char *base_dir,
                            onnx_const_mode mode, graph **out, vkml_error *err)
{
    if (!out)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "onnx_load_graph: out is NULL");
    *out = NULL;
    onnx_stripped stripped;
    ProtobufCMessage *msg = NULL;
    vkml_status st = onnx_strip_raw_data(bytes, size, "model", &stripped, err);
    if (st != VKML_OK)
        return st;
    st = onnx_unpack(&onnx__model_proto__descriptor, stripped.bytes, stripped.size, "model", &msg,
                     err);
    if (st != VKML_OK) {
        onnx_stripped_free(&stripped);
        return st;
    }
    graph *g = graph_create();
    onnx_backing *backing = calloc(1, sizeof(onnx_backing));
    if (!g || !backing) {
        free(backing);
        graph_destroy(&g);
        protobuf_c_message_free_unpacked(msg, NULL);
        onnx_stripped_free(&stripped);
        return oom(err, "model");
    }
    graph_set_backing(g, onnx_backing_release, backing);
    onnx_loader L = {.base_dir = base_dir,
                     .backing = backing,
                     .spans = stripped.spans,
                     .n_spans = stripped.n_spans,
                     .alias_spans = mode != ONNX_CONST_COPY,
                     .realign_spans = mode == ONNX_CONST_REALIGN};
    st = load_model(&L, g, (Onnx__ModelProto *)msg, err);
    protobuf_c_message_free_unpacked(msg, NULL);
    onnx_stripped_free(&stripped);
    if (st != VKML_OK)
        graph_destroy(&g);
    *out = g;
    return st;
}

bool onnx_graph_keep(graph *g, void (*release)(void *), void *ctx)
{
    if (!g || g->backing_release != onnx_backing_release) {
        release(ctx);
        return false;
    }
    return onnx_backing_add(g->backing_ctx, release, ctx);
}
