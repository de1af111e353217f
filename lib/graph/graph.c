#include "graph/graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

graph *graph_create(void)
{
    graph *g = calloc(1, sizeof(graph));
    if (!g)
        return NULL;
    g->arena = vkml_arena_create();
    if (!g->arena) {
        free(g);
        return NULL;
    }
    return g;
}

void graph_destroy(graph **gp)
{
    if (!gp || !*gp)
        return;
    graph *g = *gp;
    if (g->backing_release)
        g->backing_release(g->backing_ctx);
    free(g->values);
    free(g->nodes);
    vkml_arena_destroy(&g->arena);
    free(g);
    *gp = NULL;
}

void graph_set_backing(graph *g, void (*release)(void *), void *ctx)
{
    g->backing_release = release;
    g->backing_ctx = ctx;
}

/* Grows *array (of elem bytes) to hold at least need elements. */
static bool grow(void **array, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return true;
    int new_cap = *cap ? *cap * 2 : 16;
    while (new_cap < need)
        new_cap *= 2;
    void *p = realloc(*array, (size_t)new_cap * elem);
    if (!p)
        return false;
    memset((char *)p + (size_t)*cap * elem, 0, (size_t)(new_cap - *cap) * elem);
    *array = p;
    *cap = new_cap;
    return true;
}

int graph_add_value(graph *g, const char *name)
{
    if (!grow((void **)&g->values, &g->cap_values, g->n_values + 1, sizeof(graph_value)))
        return -1;
    graph_value *v = &g->values[g->n_values];
    memset(v, 0, sizeof(*v));
    v->name = vkml_arena_strdup(g->arena, name);
    if (!v->name)
        return -1;
    v->rank = -1;
    v->producer = -1;
    for (int i = 0; i < VKML_MAX_RANK; i++)
        v->dims[i] = -1;
    return g->n_values++;
}

int graph_find_value(const graph *g, const char *name)
{
    for (int i = g->n_values - 1; i >= 0; i--)
        if (strcmp(g->values[i].name, name) == 0)
            return i;
    return -1;
}

int graph_add_node(graph *g, const char *name, const char *op_type, const char *domain,
                   int n_inputs, int n_outputs, int n_attrs)
{
    if (n_inputs < 0 || n_outputs < 0 || n_attrs < 0)
        return -1;
    if (!grow((void **)&g->nodes, &g->cap_nodes, g->n_nodes + 1, sizeof(graph_node)))
        return -1;
    graph_node *n = &g->nodes[g->n_nodes];
    memset(n, 0, sizeof(*n));
    n->name = vkml_arena_strdup(g->arena, name);
    n->op_type = vkml_arena_strdup(g->arena, op_type);
    n->domain = vkml_arena_strdup(g->arena, domain);
    n->inputs = vkml_arena_calloc(g->arena, (size_t)n_inputs + 1, sizeof(int));
    n->outputs = vkml_arena_calloc(g->arena, (size_t)n_outputs + 1, sizeof(int));
    n->attrs = vkml_arena_calloc(g->arena, (size_t)n_attrs + 1, sizeof(graph_attr));
    if (!n->name || !n->op_type || !n->domain || !n->inputs || !n->outputs || !n->attrs)
        return -1;
    for (int i = 0; i < n_inputs; i++)
        n->inputs[i] = -1;
    for (int i = 0; i < n_outputs; i++)
        n->outputs[i] = -1;
    n->n_inputs = n_inputs;
    n->n_outputs = n_outputs;
    n->n_attrs = n_attrs;
    return g->n_nodes++;
}

const char *graph_node_label(const graph *g, int node, char *buf, size_t size)
{
    const graph_node *n = &g->nodes[node];
    if (n->name && n->name[0])
        snprintf(buf, size, "node '%s' (%s)", n->name, n->op_type);
    else
        snprintf(buf, size, "node #%d (%s)", node, n->op_type);
    return buf;
}

/* Kahn's algorithm. Producers are assigned first so that a value produced twice, or
 * consumed without a producer, is reported by name before ordering. */
vkml_status graph_sort(graph *g, vkml_error *err)
{
    char label[300];
    vkml_status status = VKML_OK;
    int *indegree = calloc((size_t)g->n_nodes + 1, sizeof(int));
    int *order = calloc((size_t)g->n_nodes + 1, sizeof(int));
    int *consumers_start = calloc((size_t)g->n_values + 1, sizeof(int));
    int *consumers = NULL;
    graph_node *sorted = NULL;
    int *new_index = calloc((size_t)g->n_nodes + 1, sizeof(int));
    if (!indegree || !order || !consumers_start || !new_index) {
        status = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory sorting the graph");
        goto done;
    }
    for (int v = 0; v < g->n_values; v++)
        g->values[v].producer = -1;
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node *n = &g->nodes[i];
        for (int o = 0; o < n->n_outputs; o++) {
            int v = n->outputs[o];
            if (v < 0)
                continue;
            graph_value *val = &g->values[v];
            if (val->producer >= 0 || val->kind != GRAPH_VALUE_INTERMEDIATE) {
                status = vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: output '%s' is already %s",
                                   graph_node_label(g, i, label, sizeof(label)), val->name,
                                   val->producer >= 0               ? "produced by another node"
                                   : val->kind == GRAPH_VALUE_INPUT ? "a graph input"
                                                                    : "an initializer");
                goto done;
            }
            val->producer = i;
        }
    }
    /* Count edges per value (consumer lists in CSR form). */
    size_t n_edges = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node *n = &g->nodes[i];
        for (int k = 0; k < n->n_inputs; k++) {
            int v = n->inputs[k];
            if (v < 0)
                continue;
            const graph_value *val = &g->values[v];
            if (val->kind == GRAPH_VALUE_INTERMEDIATE && val->producer < 0) {
                status = vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                                   "%s: input '%s' is not produced by any node, nor a graph "
                                   "input or initializer",
                                   graph_node_label(g, i, label, sizeof(label)), val->name);
                goto done;
            }
            if (val->producer >= 0) {
                indegree[i]++;
                consumers_start[v]++;
                n_edges++;
            }
        }
    }
    consumers = calloc(n_edges + 1, sizeof(int));
    if (!consumers) {
        status = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory sorting the graph");
        goto done;
    }
    int running = 0;
    for (int v = 0; v < g->n_values; v++) {
        int count = consumers_start[v];
        consumers_start[v] = running;
        running += count;
    }
    {
        int *fill = calloc((size_t)g->n_values + 1, sizeof(int));
        if (!fill) {
            status = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory sorting the graph");
            goto done;
        }
        for (int i = 0; i < g->n_nodes; i++) {
            const graph_node *n = &g->nodes[i];
            for (int k = 0; k < n->n_inputs; k++) {
                int v = n->inputs[k];
                if (v >= 0 && g->values[v].producer >= 0)
                    consumers[consumers_start[v] + fill[v]++] = i;
            }
        }
        free(fill);
    }
    int head = 0, tail = 0;
    for (int i = 0; i < g->n_nodes; i++)
        if (indegree[i] == 0)
            order[tail++] = i;
    while (head < tail) {
        const graph_node *n = &g->nodes[order[head++]];
        for (int o = 0; o < n->n_outputs; o++) {
            int v = n->outputs[o];
            if (v < 0)
                continue;
            int end = v + 1 < g->n_values ? consumers_start[v + 1] : (int)n_edges;
            for (int c = consumers_start[v]; c < end; c++)
                if (--indegree[consumers[c]] == 0)
                    order[tail++] = consumers[c];
        }
    }
    if (tail < g->n_nodes) {
        for (int i = 0; i < g->n_nodes; i++) {
            if (indegree[i] > 0) {
                status =
                    vkml_fail(err, VKML_ERROR_INVALID_MODEL, "the graph has a cycle through %s",
                              graph_node_label(g, i, label, sizeof(label)));
                goto done;
            }
        }
    }
    sorted = malloc(sizeof(graph_node) * ((size_t)g->n_nodes + 1));
    if (!sorted) {
        status = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory sorting the graph");
        goto done;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        sorted[i] = g->nodes[order[i]];
        new_index[order[i]] = i;
    }
    for (int v = 0; v < g->n_values; v++)
        if (g->values[v].producer >= 0)
            g->values[v].producer = new_index[g->values[v].producer];
    free(g->nodes);
    g->nodes = sorted;
    g->cap_nodes = g->n_nodes + 1;
    sorted = NULL;
done:
    free(indegree);
    free(order);
    free(consumers_start);
    free(consumers);
    free(new_index);
    free(sorted);
    return status;
}

const graph_attr *graph_node_attr(const graph_node *n, const char *name)
{
    for (int i = 0; i < n->n_attrs; i++)
        if (n->attrs[i].name && strcmp(n->attrs[i].name, name) == 0)
            return &n->attrs[i];
    return NULL;
}

int64_t graph_attr_int(const graph_node *n, const char *name, int64_t fallback)
{
    const graph_attr *a = graph_node_attr(n, name);
    return a && a->type == GRAPH_ATTR_INT ? a->i : fallback;
}

float graph_attr_float(const graph_node *n, const char *name, float fallback)
{
    const graph_attr *a = graph_node_attr(n, name);
    return a && a->type == GRAPH_ATTR_FLOAT ? a->f : fallback;
}

const char *graph_attr_string(const graph_node *n, const char *name, const char *fallback)
{
    const graph_attr *a = graph_node_attr(n, name);
    return a && a->type == GRAPH_ATTR_STRING && a->s ? a->s : fallback;
}

const int64_t *graph_attr_ints(const graph_node *n, const char *name, size_t *count)
{
    const graph_attr *a = graph_node_attr(n, name);
    if (!a || a->type != GRAPH_ATTR_INTS) {
        *count = 0;
        return NULL;
    }
    *count = a->count;
    return a->ints;
}

const float *graph_attr_floats(const graph_node *n, const char *name, size_t *count)
{
    const graph_attr *a = graph_node_attr(n, name);
    if (!a || a->type != GRAPH_ATTR_FLOATS) {
        *count = 0;
        return NULL;
    }
    *count = a->count;
    return a->floats;
}

graph_value *graph_node_input(graph_value *values, const graph_node *n, int i)
{
    if (i < 0 || i >= n->n_inputs || n->inputs[i] < 0)
        return NULL;
    return &values[n->inputs[i]];
}

graph_value *graph_node_output(graph_value *values, const graph_node *n, int i)
{
    if (i < 0 || i >= n->n_outputs || n->outputs[i] < 0)
        return NULL;
    return &values[n->outputs[i]];
}

const char *graph_shape_string(int rank, const int64_t *dims, char *buf, size_t size)
{
    if (rank < 0) {
        snprintf(buf, size, "[unknown]");
        return buf;
    }
    size_t used = 0;
    used += (size_t)snprintf(buf + used, size - used, "[");
    for (int i = 0; i < rank && used < size; i++) {
        if (dims[i] < 0)
            used += (size_t)snprintf(buf + used, size - used, "%s?", i ? "," : "");
        else
            used += (size_t)snprintf(buf + used, size - used, "%s%lld", i ? "," : "",
                                     (long long)dims[i]);
    }
    if (used < size)
        snprintf(buf + used, size - used, "]");
    return buf;
}

graph_value *graph_values_clone(const graph *g)
{
    graph_value *copy = malloc(sizeof(graph_value) * ((size_t)g->n_values + 1));
    if (copy && g->n_values)
        memcpy(copy, g->values, sizeof(graph_value) * (size_t)g->n_values);
    return copy;
}

vkml_status graph_derive(graph *f, const graph *g, const graph_value *values, int n_extra,
                         vkml_error *err)
{
    int n_values = g->n_values + n_extra;
    f->values = malloc(sizeof(graph_value) * ((size_t)n_values + 1));
    f->nodes = calloc((size_t)g->n_nodes + 1, sizeof(graph_node));
    if (!f->values || !f->nodes)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory rewriting a graph");
    memcpy(f->values, values, sizeof(graph_value) * (size_t)g->n_values);
    memset(f->values + g->n_values, 0, sizeof(graph_value) * (size_t)n_extra);
    f->n_values = f->cap_values = n_values;
    f->cap_nodes = g->n_nodes + 1;
    for (int v = 0; v < n_values; v++)
        f->values[v].producer = -1; /* set again as the nodes are added */
    f->inputs = g->inputs;
    f->n_inputs = g->n_inputs;
    f->outputs = g->outputs;
    f->n_outputs = g->n_outputs;
    f->opset = g->opset;
    return VKML_OK;
}

void graph_derive_add(graph *f, const graph_node *n)
{
    graph_node *to = &f->nodes[f->n_nodes];
    *to = *n;
    for (int o = 0; o < to->n_outputs; o++)
        if (to->outputs[o] >= 0)
            f->values[to->outputs[o]].producer = f->n_nodes;
    f->n_nodes++;
}

void graph_value_info(const graph_value *v, vkml_tensor_info *info)
{
    memset(info, 0, sizeof(*info));
    info->name = v->name;
    info->dtype = v->dtype;
    info->rank = v->rank;
    info->data_dependent = v->data_dependent;
    info->unbounded = v->unbounded;
    for (int d = 0; d < v->rank && d < VKML_MAX_RANK; d++) {
        info->dims[d] = v->dims[d];
        info->dim_names[d] = v->dim_names[d];
    }
}
