/* The dynamic tail's heavy nodes on the session's GPU: see tail_gpu.h. */
#include "plan/tail_gpu.h"
#include "onnx/model.h"
#include "plan/context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A one-node session planned for `rows` rows (a power of two). */
typedef struct tail_gpu_entry {
    int node;
    int64_t rows;
    vkml_session *session;
    vkml_tensor *in, *out; /* the session's inputs and outputs, their data staged here */
    size_t n_in, n_out;
    int *input_of; /* per session input: the node input it is */
} tail_gpu_entry;

struct tail_gpu {
    vkml_context *ctx;
    int device;    /* public index of the plan's first device */
    bool every;    /* VKML_TAIL_GPU=1: every node it can take, whatever its size */
    bool *refused; /* per node: failed once on the GPU, left to the host */
    tail_gpu_entry *entries;
    int n_entries, cap_entries;
};

tail_gpu *tail_gpu_create(const plan_target *target, const graph *g)
{
    const char *env = getenv("VKML_TAIL_GPU");
    bool every = env && !strcmp(env, "1");
    if ((env && !strcmp(env, "0")) || !target->ctx || target->n_devices == 0)
        return NULL;
    vkml_device_type type = target->devices[0]->info.type;
    if (type == VKML_DEVICE_TYPE_CPU || (type == VKML_DEVICE_TYPE_VULKAN_CPU && !every))
        return NULL;
    tail_gpu *tg = calloc(1, sizeof(*tg));
    if (!tg || !(tg->refused = calloc((size_t)g->n_nodes + 1, sizeof(bool)))) {
        free(tg);
        return NULL;
    }
    tg->ctx = target->ctx;
    tg->device = target->dev_index[0];
    tg->every = every;
    return tg;
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
    free(tg->refused);
    free(tg);
    *tgp = NULL;
}

static int64_t elements(const graph_value *v)
{
    return (int64_t)vkml_tensor_element_count(v->rank, v->dims);
}

/* The node's multiply-adds this run where the GPU can take it (its weights constant, its
 * rows independent), else -1. */
static int64_t row_macs(const graph_node *n, const graph_value *values)
{
    if (n->n_inputs < 2 || n->inputs[0] < 0 || n->inputs[1] < 0 || n->n_outputs < 1 ||
        n->outputs[0] < 0)
        return -1;
    const graph_value *x = &values[n->inputs[0]], *w = &values[n->inputs[1]],
                      *y = &values[n->outputs[0]];
    if (w->kind != GRAPH_VALUE_CONSTANT || x->rank < 2 || y->rank != x->rank ||
        x->dims[0] != y->dims[0] || x->dims[0] < 1 || w->rank < 2 || w->dims[0] < 1 ||
        (n->epilogue && (n->epilogue->view_rank[0] || n->epilogue->view_rank[1])))
        return -1;
    for (int k = 2; k < n->n_inputs; k++) { /* bias, residual: constants, or rows too */
        const graph_value *v = n->inputs[k] >= 0 ? &values[n->inputs[k]] : NULL;
        if (v && v->kind != GRAPH_VALUE_CONSTANT &&
            (v->rank != y->rank || v->dims[0] != y->dims[0]))
            return -1;
    }
    const char *op = n->op_type;
    if (*n->domain)
        return -1;
    if (!strcmp(op, "Conv"))
        return elements(y) * (elements(w) / w->dims[0]);
    if (!strcmp(op, "ConvTranspose"))
        return elements(x) * (elements(w) / w->dims[0]);
    if (!strcmp(op, "Gemm") && x->rank == 2 && graph_attr_int(n, "transA", 0) == 0)
        return x->dims[0] * elements(w);
    if (!strcmp(op, "MatMul") && w->rank == 2)
        return elements(x) * w->dims[1];
    return -1;
}

/* The one-node model: node `index` of g with its non-constant inputs and its outputs
 * `rows` long in their first dim, its constants the model's bytes. */
static vkml_status one_node_model(const graph *g, const graph_value *values, int index,
                                  int64_t rows, vkml_model **out, vkml_error *err)
{
    const graph_node *n = &g->nodes[index];
    graph *ng = graph_create();
    int k = ng ? graph_add_node(ng, n->name, n->op_type, n->domain, n->n_inputs, n->n_outputs, 0)
               : -1;
    if (k < 0 || !(ng->inputs = vkml_arena_calloc(ng->arena, (size_t)n->n_inputs + 1, sizeof(int))) ||
        !(ng->outputs = vkml_arena_calloc(ng->arena, (size_t)n->n_outputs + 1, sizeof(int)))) {
        graph_destroy(&ng);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory for a tail node's model");
    }
    ng->opset = g->opset;
    for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
        bool is_in = i < n->n_inputs;
        int v = is_in ? n->inputs[i] : n->outputs[i - n->n_inputs];
        int nv = v >= 0 ? graph_add_value(ng, values[v].name) : -1;
        if (v >= 0 && nv < 0) {
            graph_destroy(&ng);
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory for a tail node's model");
        }
        if (is_in)
            ng->nodes[k].inputs[i] = nv;
        else
            ng->nodes[k].outputs[i - n->n_inputs] = nv;
        if (nv < 0)
            continue;
        graph_value *to = &ng->values[nv];
        const char *name = to->name;
        *to = values[v];
        to->name = name;
        to->producer = -1;
        to->data_dependent = to->unbounded = to->is_output = false;
        memset(to->dim_names, 0, sizeof(to->dim_names));
        if (to->kind == GRAPH_VALUE_CONSTANT)
            continue;
        to->dims[0] = rows;
        to->data = NULL;
        to->data_size = 0;
        if (is_in) {
            to->kind = GRAPH_VALUE_INPUT;
            ng->inputs[ng->n_inputs++] = nv;
        } else {
            to->kind = GRAPH_VALUE_INTERMEDIATE;
            to->is_output = true;
            ng->outputs[ng->n_outputs++] = nv;
        }
    }
    graph_node *nn = &ng->nodes[k];
    nn->attrs = n->attrs; /* the model's (the session holds it) */
    nn->n_attrs = n->n_attrs;
    nn->opset = n->opset;
    nn->epilogue = n->epilogue;
    vkml_status st = graph_sort(ng, err);
    if (st != VKML_OK) {
        graph_destroy(&ng);
        return st;
    }
    return model_from_graph(ng, out, err);
}

/* The session of node `index` for `rows` rows, made on first use. */
static vkml_status entry_for(tail_gpu *tg, const graph *g, const graph_value *values, int index,
                             int64_t rows, tail_gpu_entry **out, vkml_error *err)
{
    for (int i = 0; i < tg->n_entries; i++)
        if (tg->entries[i].node == index && tg->entries[i].rows == rows) {
            *out = &tg->entries[i];
            return VKML_OK;
        }
    if (tg->n_entries == tg->cap_entries) {
        int cap = tg->cap_entries ? 2 * tg->cap_entries : 8;
        tail_gpu_entry *grown = realloc(tg->entries, sizeof(*grown) * (size_t)cap);
        if (!grown)
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory for a tail node");
        tg->entries = grown;
        tg->cap_entries = cap;
    }
    tail_gpu_entry *e = &tg->entries[tg->n_entries];
    *e = (tail_gpu_entry){.node = index, .rows = rows};
    vkml_model *m = NULL;
    vkml_status st = one_node_model(g, values, index, rows, &m, err);
    vkml_session_params params = {.device = tg->device};
    if (st == VKML_OK)
        st = vkml_session_create(tg->ctx, m, &params, &e->session, err);
    vkml_model_destroy(&m); /* the session holds it */
    const graph_node *n = &g->nodes[index];
    if (st == VKML_OK) {
        e->n_in = vkml_session_input_count(e->session);
        e->n_out = vkml_session_output_count(e->session);
        e->in = calloc(e->n_in + 1, sizeof(vkml_tensor));
        e->out = calloc(e->n_out + 1, sizeof(vkml_tensor));
        e->input_of = calloc(e->n_in + 1, sizeof(int));
        if (!e->in || !e->out || !e->input_of)
            st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory for a tail node");
    }
    for (size_t i = 0, k = 0; st == VKML_OK && i < (size_t)n->n_inputs; i++) {
        int v = n->inputs[i];
        if (v < 0 || values[v].kind == GRAPH_VALUE_CONSTANT)
            continue;
        e->input_of[k] = (int)i;
        const vkml_tensor_info *info = vkml_session_input(e->session, k);
        vkml_tensor *t = &e->in[k++];
        t->dtype = info->dtype;
        t->rank = info->rank;
        memcpy(t->dims, info->dims, sizeof(t->dims));
        t->size = vkml_dtype_size(t->dtype) * vkml_tensor_element_count(t->rank, t->dims);
        if (!(t->data = calloc(1, t->size ? t->size : 1)))
            st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory for a tail node");
    }
    for (size_t o = 0; st == VKML_OK && o < e->n_out; o++)
        st = vkml_session_alloc_output(e->session, o, &e->out[o], err);
    if (st != VKML_OK) {
        entry_free(e);
        return st;
    }
    char label[300];
    VKML_LOGD("%s of the dynamic tail runs on device %d, planned for %lld rows",
              graph_node_label(g, index, label, sizeof(label)), tg->device, (long long)rows);
    tg->n_entries++;
    *out = e;
    return VKML_OK;
}

vkml_status tail_gpu_run(tail_gpu *tg, const graph *g, const graph_value *values, int index,
                         const void *const *in, void *const *out, bool *ran, vkml_error *err)
{
    *ran = false;
    const graph_node *n = &g->nodes[index];
    int64_t macs = tg && !tg->refused[index] ? row_macs(n, values) : -1;
    if (macs < 0 || (!tg->every && macs < TAIL_GPU_MIN_MACS))
        return VKML_OK;
    int64_t count = values[n->inputs[0]].dims[0], rows = 1;
    while (rows < count)
        rows *= 2;
    tail_gpu_entry *e = NULL;
    vkml_error why = {0};
    char label[300];
    if (entry_for(tg, g, values, index, rows, &e, &why) != VKML_OK) {
        tg->refused[index] = true; /* the host runs it, now and from now on */
        VKML_LOGW("%s of the dynamic tail runs on the host: on device %d it failed (%s)",
                  graph_node_label(g, index, label, sizeof(label)), tg->device, why.message);
        return VKML_OK;
    }
    for (size_t k = 0; k < e->n_in; k++) { /* this run's rows; those past them pad */
        const graph_value *v = &values[n->inputs[e->input_of[k]]];
        size_t row = vkml_dtype_size(v->dtype) * (vkml_tensor_element_count(v->rank, v->dims) /
                                                  (size_t)v->dims[0]);
        memcpy(e->in[k].data, in[e->input_of[k]], row * (size_t)count);
    }
    vkml_status st = vkml_session_run(e->session, e->in, e->n_in, e->out, e->n_out, err);
    if (st != VKML_OK)
        return st;
    for (size_t o = 0; o < e->n_out && (int)o < n->n_outputs; o++) {
        const graph_value *v = n->outputs[o] >= 0 ? &values[n->outputs[o]] : NULL;
        if (v)
            memcpy(out[o],
                   e->out[o].data,
                   vkml_dtype_size(v->dtype) * vkml_tensor_element_count(v->rank, v->dims));
    }
    *ran = true;
    return VKML_OK;
}
