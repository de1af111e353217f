/* The dynamic tail's heavy nodes on the session's GPU: see tail_gpu.h. */
#include "plan/tail_gpu.h"
#include "onnx/model.h"
#include "plan/context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A chain's session planned for `rows` rows (a power of two). */
typedef struct tail_gpu_entry {
    int first; /* the chain's first position in the tail */
    int64_t rows;
    vkml_session *session;
    vkml_tensor *in, *out; /* the session's inputs and outputs, their data staged here */
    size_t n_in, n_out;
    int *input_of; /* per session input: the input of the chain's first node it is */
} tail_gpu_entry;

struct tail_gpu {
    vkml_context *ctx;
    int device; /* public index of the plan's first device */
    bool every; /* VKML_TAIL_GPU=1: every chain it can take, whatever its size */
    bool fast;  /* the session is fp32-fast: so are the chains' */
    int *nodes; /* the tail's nodes, in order */
    int n_nodes;
    int *chain;    /* per position: the length of the chain starting there, 0: none */
    int *next;     /* per position: the position of the chain's next node after it, or -1 */
    bool *refused; /* per position: its chain failed once on the GPU, left to the host */
    tail_gpu_entry *entries;
    int n_entries, cap_entries;
};

static bool is_constant(const graph_value *values, int v)
{
    return v >= 0 && values[v].kind == GRAPH_VALUE_CONSTANT;
}

/* The heavy ops: a product of the rows by constant weights. */
static bool heavy_op(const graph_node *n)
{
    const char *op = n->op_type;
    return !strcmp(op, "Conv") || !strcmp(op, "ConvTranspose") || !strcmp(op, "Gemm") ||
           !strcmp(op, "MatMul");
}

/* Whether node n computes each row of its outputs from the same row of its inputs (those
 * that are not constants), whatever the row count. */
static bool row_local(const graph_node *n, const graph_value *values)
{
    static const char *const unary[] = {"Relu",      "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid",
                                        "HardSwish", "Elu",       "Selu",    "Clip", "Identity"};
    if (!n->op || *n->domain || n->n_inputs < 1 || n->inputs[0] < 0 || n->n_outputs != 1 ||
        n->outputs[0] < 0 ||
        (n->epilogue && (n->epilogue->view_rank[0] || n->epilogue->view_rank[1])))
        return false;
    if (heavy_op(n)) {
        if (n->n_inputs < 2 || !is_constant(values, n->inputs[1]))
            return false;
        if (!strcmp(n->op_type, "Gemm"))
            return graph_attr_int(n, "transA", 0) == 0 &&
                   (n->n_inputs < 3 || n->inputs[2] < 0 || is_constant(values, n->inputs[2]));
        return strcmp(n->op_type, "MatMul") || values[n->inputs[1]].rank == 2;
    }
    if (!strcmp(n->op_type, "Flatten"))
        return graph_attr_int(n, "axis", 1) == 1;
    for (size_t i = 0; i < sizeof(unary) / sizeof(unary[0]); i++)
        if (!strcmp(n->op_type, unary[i])) {
            for (int k = 1; k < n->n_inputs; k++) /* Clip's bounds */
                if (n->inputs[k] >= 0 && !is_constant(values, n->inputs[k]))
                    return false;
            return true;
        }
    return false;
}

/* The position of the tail node after position k that continues its chain: the only
 * reader of its output, row-local, reading it first and constants otherwise; -1 if none.
 * readers: per value, the nodes of g reading it. */
static int chain_next(const tail_gpu *tg, const graph *g, const graph_value *values,
                      const int *readers, int k)
{
    int v = g->nodes[tg->nodes[k]].outputs[0];
    if (readers[v] != 1 || values[v].is_output)
        return -1;
    for (int q = k + 1; q < tg->n_nodes; q++) {
        const graph_node *n = &g->nodes[tg->nodes[q]];
        if (n->inputs[0] != v)
            continue;
        bool joins = row_local(n, values);
        for (int i = 1; joins && i < n->n_inputs; i++)
            joins = n->inputs[i] < 0 || is_constant(values, n->inputs[i]);
        return joins ? q : -1;
    }
    return -1;
}

/* The chains: from each position, row-local tail nodes each reading only its
 * predecessor's output (read by nothing else) and constants, with at least one heavy
 * node among them. Other tail nodes may come between them in the tail's order: they read
 * nothing inside the chain. */
static void find_chains(tail_gpu *tg, const graph *g, const graph_value *values, int *readers)
{
    for (int i = 0; i < g->n_nodes; i++)
        for (int k = 0; k < g->nodes[i].n_inputs; k++)
            if (g->nodes[i].inputs[k] >= 0)
                readers[g->nodes[i].inputs[k]]++;
    for (int k = 0; k < tg->n_nodes; k++)
        tg->next[k] =
            row_local(&g->nodes[tg->nodes[k]], values) ? chain_next(tg, g, values, readers, k) : -1;
    for (int k = 0; k < tg->n_nodes; k++) {
        if (!row_local(&g->nodes[tg->nodes[k]], values))
            continue;
        int len = 0;
        bool heavy = false;
        for (int q = k; q >= 0; q = tg->next[q], len++)
            heavy |= heavy_op(&g->nodes[tg->nodes[q]]);
        tg->chain[k] = heavy ? len : 0;
    }
}

tail_gpu *tail_gpu_create(const plan_target *target, const graph *g, const graph_value *values,
                          const int *nodes, int n_nodes)
{
    const char *env = getenv("VKML_TAIL_GPU");
    bool every = env && !strcmp(env, "1");
    if ((env && !strcmp(env, "0")) || !target->ctx || target->n_devices == 0 || n_nodes == 0)
        return NULL;
    vkml_device_type type = target->devices[0]->info.type;
    if (type == VKML_DEVICE_TYPE_CPU || (type == VKML_DEVICE_TYPE_VULKAN_CPU && !every))
        return NULL;
    tail_gpu *tg = calloc(1, sizeof(*tg));
    int *readers = calloc((size_t)g->n_values + 1, sizeof(int));
    if (!tg || !readers || !(tg->nodes = malloc(sizeof(int) * (size_t)n_nodes)) ||
        !(tg->chain = calloc((size_t)n_nodes, sizeof(int))) ||
        !(tg->next = calloc((size_t)n_nodes, sizeof(int))) ||
        !(tg->refused = calloc((size_t)n_nodes, sizeof(bool)))) {
        free(readers);
        tail_gpu_destroy(&tg);
        return NULL;
    }
    memcpy(tg->nodes, nodes, sizeof(int) * (size_t)n_nodes);
    tg->n_nodes = n_nodes;
    tg->ctx = target->ctx;
    tg->device = target->dev_index[0];
    tg->every = every;
    tg->fast = target->fast_math;
    find_chains(tg, g, values, readers);
    free(readers);
    return tg;
}

int tail_gpu_chain(const tail_gpu *tg, int k)
{
    return tg && k >= 0 && k < tg->n_nodes && !tg->refused[k] ? tg->chain[k] : 0;
}

int tail_gpu_member(const tail_gpu *tg, int k, int j)
{
    for (; j > 0 && k >= 0; j--)
        k = tg->next[k];
    return k;
}

/* The chain at position k's nodes (graph indices) into nodes[]: its length. */
static int chain_nodes(const tail_gpu *tg, int k, int *nodes)
{
    int len = 0;
    for (int q = k; q >= 0 && len < tg->chain[k]; q = tg->next[q])
        nodes[len++] = tg->nodes[q];
    return len;
}

static void entry_free(tail_gpu_entry *e)
{
    vkml_session_destroy(&e->session);
    for (size_t i = 0; e->in && i < e->n_in; i++)
        free(e->in[i].data);
    for (size_t i = 0; e->out && i < e->n_out; i++)
        free(e->out[i].data);
    free(e->in);
    free(e->out);
    free(e->input_of);
}

void tail_gpu_destroy(tail_gpu **tgp)
{
    tail_gpu *tg = tgp ? *tgp : NULL;
    if (!tg)
        return;
    for (int i = 0; i < tg->n_entries; i++)
        entry_free(&tg->entries[i]);
    free(tg->entries);
    free(tg->nodes);
    free(tg->chain);
    free(tg->next);
    free(tg->refused);
    free(tg);
    *tgp = NULL;
}

static int64_t elements(const graph_value *v)
{
    return (int64_t)vkml_tensor_element_count(v->rank, v->dims);
}

/* Node n's multiply-adds in this run (its shapes `values`); 0 for the light ops. */
static int64_t macs(const graph_node *n, const graph_value *values)
{
    if (!heavy_op(n))
        return 0;
    const graph_value *x = &values[n->inputs[0]], *w = &values[n->inputs[1]],
                      *y = &values[n->outputs[0]];
    if (w->dims[0] < 1)
        return 0;
    if (!strcmp(n->op_type, "Conv"))
        return elements(y) * (elements(w) / w->dims[0]);
    if (!strcmp(n->op_type, "ConvTranspose"))
        return elements(x) * (elements(w) / w->dims[0]);
    if (!strcmp(n->op_type, "Gemm"))
        return x->dims[0] * elements(w);
    return elements(x) / w->dims[0] * elements(w); /* MatMul */
}

/* The chain's rows this run (every value of it not a constant has them first), or -1. */
static int64_t chain_rows(const graph *g, const graph_value *values, const int *nodes, int len,
                          int64_t *total_macs)
{
    int64_t rows = values[g->nodes[nodes[0]].inputs[0]].dims[0];
    *total_macs = 0;
    for (int j = 0; j < len && rows >= 1; j++) {
        const graph_node *n = &g->nodes[nodes[j]];
        for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
            int v = i < n->n_inputs ? n->inputs[i] : n->outputs[i - n->n_inputs];
            if (v >= 0 && !is_constant(values, v) &&
                (values[v].rank < 2 || values[v].dims[0] != rows))
                return -1;
        }
        *total_macs += macs(n, values);
    }
    return rows;
}

/* The chain's model: its nodes with their non-constant values `rows` long in their first
 * dim, its constants the model's bytes; the first node's non-constant inputs are its
 * inputs, the last node's outputs its outputs. */
static vkml_status chain_model(const graph *g, const graph_value *values, const int *nodes, int len,
                               int64_t rows, vkml_model **out, vkml_error *err)
{
    graph *ng = graph_create();
    int *map = calloc((size_t)g->n_values + 1, sizeof(int));
    const graph_node *first = &g->nodes[nodes[0]], *last = &g->nodes[nodes[len - 1]];
    vkml_status st = VKML_OK;
    if (!ng || !map ||
        !(ng->inputs = vkml_arena_calloc(ng->arena, (size_t)first->n_inputs + 1, sizeof(int))) ||
        !(ng->outputs = vkml_arena_calloc(ng->arena, (size_t)last->n_outputs + 1, sizeof(int))))
        st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory for a tail chain's model");
    for (int v = 0; map && v < g->n_values; v++)
        map[v] = -1;
    if (ng)
        ng->opset = g->opset;
    for (int j = 0; st == VKML_OK && j < len; j++) {
        const graph_node *n = &g->nodes[nodes[j]];
        int k = graph_add_node(ng, n->name, n->op_type, n->domain, n->n_inputs, n->n_outputs, 0);
        if (k < 0) {
            st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory for a tail chain's model");
            break;
        }
        for (int i = 0; st == VKML_OK && i < n->n_inputs + n->n_outputs; i++) {
            bool is_in = i < n->n_inputs;
            int v = is_in ? n->inputs[i] : n->outputs[i - n->n_inputs];
            if (v >= 0 && map[v] < 0) {
                int nv = graph_add_value(ng, values[v].name ? values[v].name : "");
                if (nv < 0) {
                    st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY,
                                   "out of memory for a tail chain's model");
                    break;
                }
                graph_value *to = &ng->values[nv];
                const char *name = to->name;
                *to = values[v];
                to->name = name;
                to->producer = -1;
                to->data_dependent = to->unbounded = to->is_output = false;
                memset(to->dim_names, 0, sizeof(to->dim_names));
                if (to->kind != GRAPH_VALUE_CONSTANT) {
                    to->dims[0] = rows;
                    to->data = NULL;
                    to->data_size = 0;
                    to->kind = j == 0 && is_in ? GRAPH_VALUE_INPUT : GRAPH_VALUE_INTERMEDIATE;
                    if (to->kind == GRAPH_VALUE_INPUT)
                        ng->inputs[ng->n_inputs++] = nv;
                }
                map[v] = nv;
            }
            if (is_in)
                ng->nodes[k].inputs[i] = v >= 0 ? map[v] : -1;
            else
                ng->nodes[k].outputs[i - n->n_inputs] = v >= 0 ? map[v] : -1;
        }
        graph_node *nn = &ng->nodes[k];
        nn->attrs = n->attrs; /* the model's (the session holds it) */
        nn->n_attrs = n->n_attrs;
        nn->opset = n->opset;
        nn->epilogue = n->epilogue;
    }
    for (int o = 0; st == VKML_OK && o < last->n_outputs; o++)
        if (last->outputs[o] >= 0) {
            int nv = map[last->outputs[o]];
            ng->values[nv].is_output = true;
            ng->outputs[ng->n_outputs++] = nv;
        }
    free(map);
    if (st == VKML_OK)
        st = graph_sort(ng, err);
    if (st != VKML_OK) {
        graph_destroy(&ng);
        return st;
    }
    return model_from_graph(ng, out, err);
}

/* The session of the chain at position k for `rows` rows, made on first use. */
static vkml_status entry_for(tail_gpu *tg, const graph *g, const graph_value *values, int k,
                             int64_t rows, tail_gpu_entry **out, vkml_error *err)
{
    for (int i = 0; i < tg->n_entries; i++)
        if (tg->entries[i].first == k && tg->entries[i].rows == rows) {
            *out = &tg->entries[i];
            return VKML_OK;
        }
    if (tg->n_entries == tg->cap_entries) {
        int cap = tg->cap_entries ? 2 * tg->cap_entries : 8;
        tail_gpu_entry *grown = realloc(tg->entries, sizeof(*grown) * (size_t)cap);
        if (!grown)
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory for a tail chain");
        tg->entries = grown;
        tg->cap_entries = cap;
    }
    tail_gpu_entry *e = &tg->entries[tg->n_entries];
    *e = (tail_gpu_entry){.first = k, .rows = rows};
    vkml_model *m = NULL;
    int len = tg->chain[k];
    int *nodes = malloc(sizeof(int) * (size_t)len);
    vkml_status st =
        nodes ? chain_model(g, values, nodes, chain_nodes(tg, k, nodes), rows, &m, err)
              : vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory for a tail chain");
    free(nodes);
    /* float16 values stay float16 (the chain's model has their types); fp32-fast stays so */
    vkml_session_params params = {.device = tg->device,
                                  .precision =
                                      tg->fast ? VKML_PRECISION_FP32_FAST : VKML_PRECISION_FP32};
    if (st == VKML_OK)
        st = vkml_session_create(tg->ctx, m, &params, &e->session, err);
    vkml_model_destroy(&m); /* the session holds it */
    const graph_node *n = &g->nodes[tg->nodes[k]];
    if (st == VKML_OK) {
        e->n_in = vkml_session_input_count(e->session);
        e->n_out = vkml_session_output_count(e->session);
        e->in = calloc(e->n_in + 1, sizeof(vkml_tensor));
        e->out = calloc(e->n_out + 1, sizeof(vkml_tensor));
        e->input_of = calloc(e->n_in + 1, sizeof(int));
        if (!e->in || !e->out || !e->input_of)
            st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory for a tail chain");
    }
    for (size_t i = 0, j = 0; st == VKML_OK && i < (size_t)n->n_inputs && j < e->n_in; i++) {
        int v = n->inputs[i];
        if (v < 0 || is_constant(values, v))
            continue;
        e->input_of[j] = (int)i;
        const vkml_tensor_info *info = vkml_session_input(e->session, j);
        vkml_tensor *t = &e->in[j++];
        t->dtype = info->dtype;
        t->rank = info->rank;
        memcpy(t->dims, info->dims, sizeof(t->dims));
        t->size = vkml_dtype_size(t->dtype) * vkml_tensor_element_count(t->rank, t->dims);
        if (!(t->data = calloc(1, t->size ? t->size : 1)))
            st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory for a tail chain");
    }
    for (size_t o = 0; st == VKML_OK && o < e->n_out; o++)
        st = vkml_session_alloc_output(e->session, o, &e->out[o], err);
    if (st != VKML_OK) {
        entry_free(e);
        return st;
    }
    char label[300];
    VKML_LOGD("%s and the %d nodes after it in the dynamic tail run on device %d, planned for "
              "%lld rows",
              graph_node_label(g, tg->nodes[k], label, sizeof(label)), len - 1, tg->device,
              (long long)rows);
    tg->n_entries++;
    *out = e;
    return VKML_OK;
}

vkml_status tail_gpu_run(tail_gpu *tg, const graph *g, const graph_value *values, int k,
                         const void *const *in, void *const *out, bool *ran, vkml_error *err)
{
    *ran = false;
    int len = tail_gpu_chain(tg, k);
    if (len == 0)
        return VKML_OK;
    int nodes[len];
    chain_nodes(tg, k, nodes);
    int64_t total = 0, count = chain_rows(g, values, nodes, len, &total), rows = 1;
    if (count < 1 || (!tg->every && total < TAIL_GPU_MIN_MACS))
        return VKML_OK;
    while (rows < count)
        rows *= 2;
    tail_gpu_entry *e = NULL;
    vkml_error why = {0};
    char label[300];
    if (entry_for(tg, g, values, k, rows, &e, &why) != VKML_OK) {
        tg->refused[k] = true; /* the host runs it, now and from now on */
        VKML_LOGW("%s and the %d nodes after it in the dynamic tail run on the host: on device "
                  "%d they failed (%s)",
                  graph_node_label(g, tg->nodes[k], label, sizeof(label)), len - 1, tg->device,
                  why.message);
        return VKML_OK;
    }
    const graph_node *first = &g->nodes[nodes[0]], *last = &g->nodes[nodes[len - 1]];
    /* With as many rows as planned, the run reads and writes the tail's buffers in place;
     * with fewer, through the entry's, the rows past this run's padding. */
    bool in_place = count == rows;
    vkml_tensor ins[e->n_in + 1], outs[e->n_out + 1];
    memcpy(ins, e->in, sizeof(vkml_tensor) * e->n_in);
    memcpy(outs, e->out, sizeof(vkml_tensor) * e->n_out);
    for (size_t i = 0; i < e->n_in; i++) {
        const graph_value *v = &values[first->inputs[e->input_of[i]]];
        size_t bytes = vkml_dtype_size(v->dtype) * (size_t)elements(v);
        if (in_place)
            ins[i].data = (void *)in[e->input_of[i]];
        else
            memcpy(ins[i].data, in[e->input_of[i]], bytes);
    }
    for (int o = 0, j = 0; in_place && o < last->n_outputs && (size_t)j < e->n_out; o++)
        if (last->outputs[o] >= 0)
            outs[j++].data = out[o];
    vkml_status st = vkml_session_run(e->session, ins, e->n_in, outs, e->n_out, err);
    if (st != VKML_OK)
        return st;
    for (int o = 0, j = 0; !in_place && o < last->n_outputs && (size_t)j < e->n_out; o++) {
        const graph_value *v = last->outputs[o] >= 0 ? &values[last->outputs[o]] : NULL;
        if (v)
            memcpy(out[o], e->out[j++].data, vkml_dtype_size(v->dtype) * (size_t)elements(v));
    }
    *ran = true;
    return VKML_OK;
}
