/* The library's part of a CPU device session (onednn.h): which nodes it takes, the layout
 * of each value between them, and their runs. */
#include "cpu/onednn/onednn.h"
#include "cpu/onednn/onednn_node.h"
#include "ops/op.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libgomp's (oneDNN's OpenMP runtime): the calling thread's team size for what it starts. */
void omp_set_num_threads(int n);

struct onednn_session {
    onednn_node **nodes; /* per graph node; NULL: the C kernel runs it */
    int n_nodes, count;
    dnnl_stream_t *streams; /* per chunk */
    int n_streams;
    int threads;
};

static const onednn_op *op_for(const graph_node *node)
{
    if (!node->op)
        return NULL;
    switch (node->op->id) {
    case OP_ID_Conv: return &onednn_conv_op;
    case OP_ID_MatMul: return &onednn_matmul_op;
    case OP_ID_Gemm: return &onednn_gemm_op;
    case OP_ID_MaxPool:
    case OP_ID_AveragePool:
    case OP_ID_GlobalAveragePool:
    case OP_ID_GlobalMaxPool: return &onednn_pool_op;
    default: return NULL;
    }
}

bool onednn_enabled(void)
{
    const char *env = getenv("VKML_CPU_KERNELS");
    return !(env && strcmp(env, "reference") == 0) && onednn_engine() != NULL;
}

const char *onednn_version(void)
{
    static char text[32];
    const dnnl_version_t *v = dnnl_version();
    snprintf(text, sizeof(text), "oneDNN %d.%d.%d", v->major, v->minor, v->patch);
    return text;
}

static void node_destroy(onednn_node **np)
{
    onednn_node *n = *np;
    if (!n)
        return;
    for (int i = 0; i < n->n_steps; i++)
        dnnl_primitive_destroy(n->steps[i].prim);
    for (int i = 0; i < n->n_mems; i++)
        dnnl_memory_destroy(n->mems[i]);
    for (int i = 0; i < n->n_buffers; i++)
        free(n->buffers[i]);
    free(n);
    *np = NULL;
}

void onednn_session_destroy(onednn_session **sp)
{
    onednn_session *s = *sp;
    if (!s)
        return;
    for (int i = 0; s->nodes && i < s->n_nodes; i++)
        node_destroy(&s->nodes[i]);
    for (int c = 0; s->streams && c < s->n_streams; c++)
        if (s->streams[c])
            dnnl_stream_destroy(s->streams[c]);
    free(s->streams);
    free(s->nodes);
    free(s);
    *sp = NULL;
}

/* What planning knows of each node and value. */
typedef struct layout_plan {
    bool *claimed;       /* per node: the library may take it */
    uint32_t *cl_inputs; /* per node */
    bool *cl_output;     /* per node */
    bool *aliased;       /* per value: some view or alias shares its memory */
    bool *channels_last; /* per value: the result */
} layout_plan;

/* A value kept channels-last: a library node writes it channels-last, every reader on the
 * device is a library node reading it so, and no one else sees its memory. */
static void plan_layouts(const device_session_desc *desc, const layout_plan *lp)
{
    const graph *g = desc->graph;
    const device_value_plan *plans = desc->value_plans;
    memset(lp->channels_last, 0, sizeof(bool) * (size_t)g->n_values);
    for (int c = 0; c < desc->n_chunks; c++)
        for (int k = 0; k < desc->chunks[c].n_nodes; k++) {
            int i = desc->chunks[c].nodes[k], v = g->nodes[i].outputs[0];
            const graph_value *val = &desc->values[v];
            lp->channels_last[v] = lp->claimed[i] && lp->cl_output[i] && plans[v].used &&
                                   !plans[v].host_access && !plans[v].constant &&
                                   !plans[v].shared_host && plans[v].alias_of < 0 &&
                                   !lp->aliased[v] && val->rank >= 3 && val->rank <= 5 &&
                                   !onednn_layouts_agree(val->rank, val->dims);
        }
    for (int c = 0; c < desc->n_chunks; c++)
        for (int k = 0; k < desc->chunks[c].n_nodes; k++) {
            int i = desc->chunks[c].nodes[k];
            const graph_node *node = &g->nodes[i];
            for (int in = 0; in < node->n_inputs; in++)
                if (node->inputs[in] >= 0 &&
                    !(lp->claimed[i] && in < 32 && (lp->cl_inputs[i] >> in & 1u)))
                    lp->channels_last[node->inputs[in]] = false;
            for (int o = 1; o < node->n_outputs; o++) /* only output 0 is ever kept so */
                if (node->outputs[o] >= 0)
                    lp->channels_last[node->outputs[o]] = false;
        }
}

static vkml_status build_nodes(const device_session_desc *desc, void *const *ptrs,
                               const layout_plan *lp, onednn_session *s, bool *declined,
                               vkml_error *err)
{
    const graph *g = desc->graph;
    *declined = false;
    for (int c = 0; c < desc->n_chunks; c++)
        for (int k = 0; k < desc->chunks[c].n_nodes; k++) {
            int i = desc->chunks[c].nodes[k];
            if (!lp->claimed[i])
                continue;
            onednn_build b = {.values = desc->values,
                              .node = &g->nodes[i],
                              .plans = desc->value_plans,
                              .channels_last = lp->channels_last,
                              .ptrs = ptrs,
                              .fast_math = desc->fast_math};
            bool taken = false;
            if (!(s->nodes[i] = calloc(1, sizeof(onednn_node))))
                return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory");
            vkml_status st = op_for(&g->nodes[i])->build(&b, s->nodes[i], &taken, err);
            if (st)
                return st;
            if (!taken) { /* the C kernel runs it; its values' layouts change */
                node_destroy(&s->nodes[i]);
                lp->claimed[i] = false;
                *declined = true;
                return VKML_OK;
            }
            VKML_LOGD("CPU device: %s runs on oneDNN (%s)", g->nodes[i].op_type,
                      s->nodes[i]->impl);
        }
    return VKML_OK;
}

static void claim_nodes(const device_session_desc *desc, const layout_plan *lp)
{
    const graph *g = desc->graph;
    const device_value_plan *plans = desc->value_plans;
    for (int v = 0; v < g->n_values; v++)
        if (plans[v].used && plans[v].alias_of >= 0)
            lp->aliased[v] = lp->aliased[device_alias_root(plans, g->n_values, v, NULL)] = true;
    for (int c = 0; c < desc->n_chunks; c++)
        for (int k = 0; k < desc->chunks[c].n_nodes; k++) {
            int i = desc->chunks[c].nodes[k];
            const graph_node *node = &g->nodes[i];
            const onednn_op *op = op_for(node);
            lp->claimed[i] = op && node->n_outputs >= 1 && node->outputs[0] >= 0 &&
                             op->claim(desc->values, node, plans, &lp->cl_inputs[i],
                                       &lp->cl_output[i]);
        }
}

vkml_status onednn_session_create(const device_session_desc *desc, void *const *ptrs,
                                  onednn_session **out, vkml_error *err)
{
    *out = NULL;
    if (!onednn_enabled())
        return VKML_OK;
    const graph *g = desc->graph;
    size_t nn = (size_t)g->n_nodes + 1, nv = (size_t)g->n_values + 1;
    onednn_session *s = calloc(1, sizeof(*s));
    layout_plan lp = {.claimed = calloc(nn, sizeof(bool)),
                      .cl_inputs = calloc(nn, sizeof(uint32_t)),
                      .cl_output = calloc(nn, sizeof(bool)),
                      .aliased = calloc(nv, sizeof(bool)),
                      .channels_last = calloc(nv, sizeof(bool))};
    vkml_status st = VKML_OK;
    if (!s || !lp.claimed || !lp.cl_inputs || !lp.cl_output || !lp.aliased ||
        !lp.channels_last || !(s->nodes = calloc(nn, sizeof(onednn_node *))) ||
        !(s->streams = calloc((size_t)desc->n_chunks + 1, sizeof(dnnl_stream_t))))
        st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "CPU device: out of memory");
    if (!st) {
        s->n_nodes = g->n_nodes;
        s->n_streams = desc->n_chunks;
        s->threads = desc->cpu_threads > 0 ? desc->cpu_threads : 1;
        omp_set_num_threads(s->threads); /* oneDNN sizes its kernels' work for this */
        claim_nodes(desc, &lp);
    }
    /* A node the library declines after all changes its values' layouts: plan again. */
    for (bool declined = true; !st && declined;) {
        for (int i = 0; i < g->n_nodes; i++)
            node_destroy(&s->nodes[i]);
        plan_layouts(desc, &lp);
        st = build_nodes(desc, ptrs, &lp, s, &declined, err);
    }
    for (int c = 0; !st && c < desc->n_chunks; c++)
        st = onednn_check(dnnl_stream_create(&s->streams[c], onednn_engine(),
                                             dnnl_stream_default_flags),
                          "creating a stream", err);
    for (int i = 0; !st && i < g->n_nodes; i++)
        s->count += s->nodes[i] != NULL;
    free(lp.claimed);
    free(lp.cl_inputs);
    free(lp.cl_output);
    free(lp.aliased);
    free(lp.channels_last);
    if (st) {
        onednn_session_destroy(&s);
        return st;
    }
    *out = s;
    return VKML_OK;
}

bool onednn_session_has(const onednn_session *s, int node)
{
    return s && node >= 0 && node < s->n_nodes && s->nodes[node];
}

int onednn_session_node_count(const onednn_session *s)
{
    return s ? s->count : 0;
}

vkml_status onednn_session_run(onednn_session *s, int chunk, int node, vkml_error *err)
{
    onednn_node *n = s->nodes[node];
    dnnl_stream_t stream = s->streams[chunk];
    omp_set_num_threads(s->threads);
    for (int i = 0; i < n->n_steps; i++) {
        const onednn_step *step = &n->steps[i];
        dnnl_status_t st = dnnl_primitive_execute(step->prim, stream, step->n_args, step->args);
        if (st != dnnl_success)
            return onednn_check(st, "running a primitive", err);
    }
    return onednn_check(dnnl_stream_wait(stream), "waiting for a stream", err);
}
