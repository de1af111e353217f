/* vkml_model: op resolution over a loaded graph, and the public model API. */
#include "onnx/model.h"
#include "device/registry.h"
#include "onnx/onnx_file.h"
#include "ops/op.h"
#include "passes/fold.h"
#include "passes/fuse.h"
#include "passes/lower.h"

#include <libgen.h>
#include <stdlib.h>
#include <string.h>

/* Checks node `i` against the op table and records its op. */
static vkml_status resolve_node(graph *g, int i, vkml_error *err)
{
    graph_node *n = &g->nodes[i];
    char label[300];
    graph_node_label(g, i, label, sizeof(label));
    bool default_domain = !n->domain[0];
    if (n->opset <= 0 && default_domain)
        n->opset = g->opset > 0 ? (int)g->opset : 0;
    if (n->opset <= 0 && op_find(n->domain, n->op_type))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: the model imports no opset for domain '%s'", label,
                         default_domain ? "ai.onnx" : n->domain);
    vkml_status st = op_bind_node(g->arena, n, err);
    if (st == VKML_ERROR_UNSUPPORTED && err) /* kept for a model loaded with allow_unsupported */
        n->unsupported = vkml_arena_strdup(g->arena, err->message);
    if (st != VKML_OK)
        vkml_error_prefix(err, "%s", label);
    return st;
}

static vkml_status resolve_graph(graph *g, bool allow_unsupported, vkml_error *err);

/* Binds the nodes of the subgraphs of node i (If branches, Loop and Scan bodies). */
static vkml_status resolve_subgraphs(graph *g, int i, vkml_error *err)
{
    const graph_node *n = &g->nodes[i];
    char label[300];
    vkml_status st = VKML_OK;
    for (int a = 0; a < n->n_attrs && st == VKML_OK; a++) {
        const graph_attr *attr = &n->attrs[a];
        size_t count = attr->type == GRAPH_ATTR_GRAPH    ? 1
                       : attr->type == GRAPH_ATTR_GRAPHS ? attr->count
                                                         : 0;
        for (size_t k = 0; k < count && st == VKML_OK; k++) {
            graph *sub = attr->type == GRAPH_ATTR_GRAPH ? attr->graph : attr->graphs[k];
            sub->opset = g->opset;
            if ((st = resolve_graph(sub, false, err)) != VKML_OK)
                vkml_error_prefix(err, "%s: attribute '%s'",
                                  graph_node_label(g, i, label, sizeof(label)), attr->name);
        }
    }
    return st;
}

/* Binds every node of g, and of its subgraphs, to the op table. */
static vkml_status resolve_graph(graph *g, bool allow_unsupported, vkml_error *err)
{
    vkml_status st = VKML_OK;
    for (int i = 0; st == VKML_OK && i < g->n_nodes; i++) {
        st = resolve_node(g, i, err);
        if (st == VKML_OK)
            st = resolve_subgraphs(g, i, err);
        if (st == VKML_ERROR_UNSUPPORTED && allow_unsupported)
            st = VKML_OK; /* op stays NULL: sessions refuse the node by name and reason */
    }
    return st;
}

static vkml_tensor_info *tensor_infos(graph *g, const int *values, int count)
{
    vkml_tensor_info *infos =
        vkml_arena_calloc(g->arena, (size_t)count + 1, sizeof(vkml_tensor_info));
    for (int i = 0; infos && i < count; i++)
        graph_value_info(&g->values[values[i]], &infos[i]);
    return infos;
}

/* Whether a graph input has a symbolic or unknown dim. */
static bool has_symbolic_inputs(const graph *g)
{
    for (int i = 0; i < g->n_inputs; i++) {
        const graph_value *v = &g->values[g->inputs[i]];
        for (int d = 0; d < v->rank; d++)
            if (v->dims[d] < 0)
                return true;
    }
    return false;
}

/* Epilogue fusion (graph_fuse_epilogues) on shapes inferred with every symbolic dim 1, and
 * again 2 when there are some (a residual must match the output in both). A graph whose
 * shapes cannot be inferred here, or that has sequence ops, stays unfused. */
static vkml_status fuse_epilogues(graph *g, vkml_error *err)
{
    if (graph_fusion_disabled() || !graph_epilogue_candidates(g) || lower_needed(g))
        return VKML_OK;
    bool symbolic = has_symbolic_inputs(g);
    vkml_arena *arena = vkml_arena_create();
    graph_value *one = graph_values_clone(g), *two = symbolic ? graph_values_clone(g) : NULL;
    vkml_error ignored = {0};
    const op_host_runner *runner = device_host_runner();
    bool inferred =
        arena && one && fold_infer(g, one, 1, runner, arena, NULL, &ignored) == VKML_OK &&
        (!symbolic || (two && fold_infer(g, two, 2, runner, arena, NULL, &ignored) == VKML_OK));
    vkml_status st = inferred ? graph_fuse_epilogues(g, one, two, NULL, err) : VKML_OK;
    free(one);
    free(two);
    vkml_arena_destroy(&arena);
    return st;
}

vkml_status model_from_graph(graph *g, vkml_model **out, vkml_error *err)
{
    return model_wrap_graph(g, false, out, err);
}

vkml_status model_wrap_graph(graph *g, bool allow_unsupported, vkml_model **out, vkml_error *err)
{
    *out = NULL;
    if (!g)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "model_from_graph: no graph");
    /* BatchNormalization after Conv becomes part of the Conv's weights; a Pad of zeros
     * before a Conv or AveragePool, its padding. */
    vkml_status st = graph_fuse_conv_batchnorm(g, NULL, err);
    if (st == VKML_OK && !graph_fusion_disabled())
        st = graph_fuse_pads(g, NULL, err);
    if (st == VKML_OK)
        st = resolve_graph(g, allow_unsupported, err);
    /* Activations and residual Adds after Conv, Gemm and MatMul become their epilogues. */
    if (st == VKML_OK)
        st = fuse_epilogues(g, err);
    vkml_model *m = NULL;
    if (st == VKML_OK) {
        m = calloc(1, sizeof(*m));
        if (m) {
            m->inputs = tensor_infos(g, g->inputs, g->n_inputs);
            m->outputs = tensor_infos(g, g->outputs, g->n_outputs);
        }
        if (!m || !m->inputs || !m->outputs)
            st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory building the model");
    }
    if (st != VKML_OK) {
        free(m);
        graph_destroy(&g);
        return st;
    }
    atomic_init(&m->refs, 1);
    atomic_init(&m->probe, NULL);
    atomic_init(&m->fp16_choices, NULL);
    m->graph = g;
    m->n_inputs = (size_t)g->n_inputs;
    m->n_outputs = (size_t)g->n_outputs;
    *out = m;
    return VKML_OK;
}

vkml_model *model_ref(vkml_model *m)
{
    if (m)
        atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed);
    return m;
}

static void probe_free(model_probe *probe)
{
    if (probe) {
        vkml_arena_destroy(&probe->arena);
        free(probe->values);
        free(probe);
    }
}

/* Infers the probe's values; a graph with sequence ops is lowered as a session would
 * (its first values are the model's, same indices), all or nothing. */
static void probe_infer(const graph *g, model_probe *probe)
{
    graph *lowered = NULL;
    cf_env env = {.runner = device_host_runner(),
                  .max_iterations = VKML_DEFAULT_MAX_LOOP_ITERATIONS};
    if (!lower_needed(g)) {
        fold_infer(g, probe->values, 1, device_host_runner(), probe->arena, &probe->n_inferred,
                   &probe->error);
    } else if (lower_graph(g, probe->values, 1, &env, probe->arena, &lowered, &probe->error) ==
               VKML_OK) {
        memcpy(probe->values, lowered->values, sizeof(graph_value) * (size_t)g->n_values);
        probe->n_inferred = g->n_nodes;
        graph_destroy(&lowered);
    }
}

const model_probe *model_get_probe(const vkml_model *cm)
{
    vkml_model *m = (vkml_model *)cm; /* the probe is a cache: logically const */
    /* Acquire pairs with the release of the CAS below: the probe's contents are visible. */
    model_probe *probe = atomic_load_explicit(&m->probe, memory_order_acquire);
    if (probe)
        return probe;
    model_probe *made = calloc(1, sizeof(*made));
    if (!made || !(made->values = graph_values_clone(m->graph)) ||
        !(made->arena = vkml_arena_create())) {
        probe_free(made);
        return NULL;
    }
    probe_infer(m->graph, made);
    /* Release publishes the probe's contents; acquire on failure reads the winner's. */
    if (atomic_compare_exchange_strong_explicit(&m->probe, &probe, made, memory_order_acq_rel,
                                                memory_order_acquire))
        return made;
    probe_free(made);
    return probe;
}

const model_fp16_choice *model_fp16_choice_find(const vkml_model *cm, const char *key)
{
    vkml_model *m = (vkml_model *)cm; /* a cache: logically const */
    /* Acquire pairs with the release of the CAS in model_fp16_choice_add. */
    for (const model_fp16_choice *c = atomic_load_explicit(&m->fp16_choices, memory_order_acquire);
         c; c = c->next)
        if (!strcmp(c->key, key))
            return c;
    return NULL;
}

void model_fp16_choice_add(vkml_model *m, const model_fp16_choice *c)
{
    model_fp16_choice *made = malloc(sizeof(*made));
    if (!made)
        return;
    *made = *c;
    made->next = atomic_load_explicit(&m->fp16_choices, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&m->fp16_choices, &made->next, made,
                                                  memory_order_release, memory_order_relaxed))
        ;
}

void model_unref(vkml_model *m)
{
    if (!m)
        return;
    /* acq_rel: the last owner sees every other owner's use of the model complete. */
    if (atomic_fetch_sub_explicit(&m->refs, 1, memory_order_acq_rel) != 1)
        return;
    probe_free(atomic_load_explicit(&m->probe, memory_order_relaxed));
    model_fp16_choice *c = atomic_load_explicit(&m->fp16_choices, memory_order_relaxed);
    while (c) {
        model_fp16_choice *next = c->next;
        free(c);
        c = next;
    }
    graph_destroy(&m->graph);
    free(m);
}

static vkml_status load(const void *bytes, size_t size, const char *base_dir, onnx_const_mode mode,
                        bool allow_unsupported, vkml_model **out, vkml_error *err, graph **loaded)
{
    graph *g;
    vkml_status st = onnx_load_graph(bytes, size, base_dir, mode, &g, err);
    if (st != VKML_OK)
        return st;
    if (loaded)
        *loaded = g;
    return model_wrap_graph(g, allow_unsupported, out, err);
}

static void release_mapping(void *p)
{
    onnx_unmap(p);
    free(p);
}

static vkml_status load_file(const char *path, bool allow_unsupported, vkml_model **out,
                             vkml_error *err)
{
    if (!out)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "vkml_model_load_file: out is NULL");
    *out = NULL;
    if (!path || !path[0])
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "vkml_model_load_file: no path");
    char *dir_copy = strdup(path);
    onnx_mapping *map = calloc(1, sizeof(*map));
    if (!dir_copy || !map) {
        free(dir_copy);
        free(map);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "model '%s': out of memory", path);
    }
    vkml_status st = onnx_map_file(path, true, map, err); /* its errors name the path */
    graph *g = NULL;
    if (st == VKML_OK) {
        /* Constants stay in the copy (moved within it to be aligned): the graph keeps it. */
        st = map->size ? load(map->data, map->size, dirname(dir_copy), ONNX_CONST_REALIGN,
                              allow_unsupported, out, err, &g)
                       : vkml_fail(err, VKML_ERROR_INVALID_MODEL, "the file is empty");
        onnx_map_seal(map);
        if (st != VKML_OK)
            vkml_error_prefix(err, "model '%s'", path);
    }
    if (st == VKML_OK && !onnx_graph_keep(g, release_mapping, map)) {
        vkml_model_destroy(out);
        st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "model '%s': out of memory", path);
    } else if (st != VKML_OK) {
        release_mapping(map);
    }
    free(dir_copy);
    return st;
}

static vkml_status load_memory(const void *bytes, size_t size, const char *base_dir,
                               bool allow_unsupported, vkml_model **out, vkml_error *err)
{
    if (!out)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "vkml_model_load_memory: out is NULL");
    *out = NULL;
    if (!bytes && size)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "vkml_model_load_memory: no bytes");
    /* Constants are copied out of `bytes`, so the caller's bytes need no copy. */
    return load(bytes, size, base_dir, ONNX_CONST_COPY, allow_unsupported, out, err, NULL);
}

vkml_status vkml_model_load(const vkml_model_params *params, vkml_model **out, vkml_error *err)
{
    if (!params)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "vkml_model_load: params is NULL");
    if (params->path && params->bytes)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "vkml_model_load: give a path or bytes, not both");
    log_sink log = {.callback = params->log_callback,
                    .user = params->log_user,
                    .level = params->log_level_set ? (int)params->log_level : -1};
    /* Without a sink of its own the load logs to the caller's thread's. */
    bool own_sink = params->log_callback != NULL;
    const log_sink *outer = own_sink ? log_scope_enter(&log) : NULL;
    vkml_status st = params->path ? load_file(params->path, params->allow_unsupported, out, err)
                                  : load_memory(params->bytes, params->size, params->base_dir,
                                                params->allow_unsupported, out, err);
    if (own_sink)
        log_scope_leave(outer);
    return st;
}

vkml_status vkml_model_load_file(const char *path, vkml_model **out, vkml_error *err)
{
    return load_file(path, false, out, err);
}

vkml_status vkml_model_load_memory(const void *bytes, size_t size, const char *base_dir,
                                   vkml_model **out, vkml_error *err)
{
    return load_memory(bytes, size, base_dir, false, out, err);
}

void vkml_model_destroy(vkml_model **model)
{
    if (!model)
        return;
    model_unref(*model);
    *model = NULL;
}

vkml_model *vkml_model_retain(vkml_model *model)
{
    return model_ref(model);
}

size_t vkml_model_input_count(const vkml_model *model)
{
    return model ? model->n_inputs : 0;
}

size_t vkml_model_output_count(const vkml_model *model)
{
    return model ? model->n_outputs : 0;
}

const vkml_tensor_info *vkml_model_input(const vkml_model *model, size_t index)
{
    return model && index < model->n_inputs ? &model->inputs[index] : NULL;
}

const vkml_tensor_info *vkml_model_output(const vkml_model *model, size_t index)
{
    return model && index < model->n_outputs ? &model->outputs[index] : NULL;
}

int64_t vkml_model_opset(const vkml_model *model)
{
    return model ? model->graph->opset : 0;
}

size_t vkml_model_node_count(const vkml_model *model)
{
    return model ? (size_t)model->graph->n_nodes : 0;
}

vkml_status vkml_model_node(const vkml_model *model, size_t index, vkml_node_info *info,
                            vkml_error *err)
{
    if (!model || !info || index >= (size_t)model->graph->n_nodes)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "vkml_model_node: no node %zu in the model", index);
    const graph_node *n = &model->graph->nodes[index];
    info->name = n->name;
    info->op_type = n->op_type;
    info->domain = n->domain;
    info->opset = n->opset;
    info->implemented = n->op != NULL;
    info->fused = n->epilogue ? n->epilogue->absorbed : "";
    return VKML_OK;
}
