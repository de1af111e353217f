/* The public view of a session's plan (vkml_session_plan_*): its parts per device and the
 * values copied between devices, read from the plan as placement left it. */
#include "ops/fused.h"
#include "ops/fused_attention.h"
#include "plan/plan.h"
#include "plan/tail.h"

#include <stdlib.h>
#include <string.h>

static const char *node_name(const graph *g, int i)
{
    if (i < 0)
        return "";
    const graph_node *n = &g->nodes[i];
    return n->name && n->name[0] ? n->name : n->op_type;
}

size_t vkml_session_plan_part_count(const vkml_session *s)
{
    const plan *p = session_plan(s);
    size_t n = 0;
    for (int d = 0; p && d < p->n_devices; d++)
        n += d == 0 || p->devices[d].n_nodes > 0; /* the set's first device is always listed */
    return n;
}

bool vkml_session_plan_part(const vkml_session *s, size_t index, vkml_plan_part *part)
{
    const plan *p = session_plan(s);
    for (int d = 0; p && part && d < p->n_devices; d++) {
        const plan_device *pd = &p->devices[d];
        if (d > 0 && pd->n_nodes == 0)
            continue;
        if (index-- > 0)
            continue;
        size_t n_fused = 0, n_fused_nodes = 0;
        for (int i = 0; i < p->graph->n_nodes; i++) {
            const graph_node *n = &p->graph->nodes[i];
            if (p->node_slot[i] != d || !n->op || n->op->id != OP_ID_FusedElementwise)
                continue;
            n_fused++;
            n_fused_nodes += (size_t)((const fused_params *)n->params)->n_nodes;
        }
        *part = (vkml_plan_part){
            .device = pd->index,
            .n_nodes = (size_t)pd->n_nodes,
            .first_node = node_name(p->graph, pd->first_node),
            .last_node = node_name(p->graph, pd->last_node),
            .weight_bytes = pd->weight_bytes,
            .peak_bytes = pd->peak_bytes,
            .n_fused = n_fused,
            .n_fused_nodes = n_fused_nodes,
            .intermediate_bytes = pd->memory.intermediate_bytes,
            .intermediate_bound = pd->memory.intermediate_bound,
        };
        return true;
    }
    return false;
}

/* The index-th (chunk, transfer) pair in chunk order; false past the end. */
static bool nth_transfer(const plan *p, size_t index, int *chunk, int *value)
{
    for (int c = 0; p && c < p->n_chunks; c++) {
        if (index < (size_t)p->chunks[c].n_transfers) {
            *chunk = c;
            *value = p->chunks[c].transfers[index];
            return true;
        }
        index -= (size_t)p->chunks[c].n_transfers;
    }
    return false;
}

size_t vkml_session_plan_transfer_count(const vkml_session *s)
{
    const plan *p = session_plan(s);
    size_t n = 0;
    for (int c = 0; p && c < p->n_chunks; c++)
        n += (size_t)p->chunks[c].n_transfers;
    return n;
}

bool vkml_session_plan_transfer(const vkml_session *s, size_t index, vkml_plan_transfer *t)
{
    const plan *p = session_plan(s);
    int c, v;
    if (!t || !nth_transfer(p, index, &c, &v))
        return false;
    const graph_value *val = &p->values[v];
    size_t bytes = 0;
    vkml_tensor_bytes(val->dtype, val->rank, val->dims, &bytes);
    *t = (vkml_plan_transfer){
        .value = val->name,
        .from = p->devices[p->value_home[v]].index,
        .to = p->devices[p->chunks[c].slot].index,
        .bytes = bytes,
        .shared_host = p->shared_host && p->shared_host[v] &&
                       p->devices[p->chunks[c].slot].value_plans[v].shared_host,
    };
    return true;
}

/* The index-th fused node of the plan (node order), or -1. */
static int nth_fused(const plan *p, size_t index)
{
    for (int i = 0; p && i < p->graph->n_nodes; i++) {
        const graph_node *n = &p->graph->nodes[i];
        if (n->op && n->op->id == OP_ID_FusedElementwise && p->node_slot[i] >= 0 && index-- == 0)
            return i;
    }
    return -1;
}

size_t vkml_session_plan_fused_count(const vkml_session *s)
{
    const plan *p = session_plan(s);
    size_t n = 0;
    while (nth_fused(p, n) >= 0)
        n++;
    return n;
}

bool vkml_session_plan_fused(const vkml_session *s, size_t index, vkml_plan_fused *fused)
{
    const plan *p = session_plan(s);
    int i = nth_fused(p, index);
    if (!fused || i < 0)
        return false;
    const fused_params *fp = p->graph->nodes[i].params;
    *fused = (vkml_plan_fused){
        .device = p->devices[p->node_slot[i]].index,
        .name = node_name(p->graph, i),
        .ops = fp->summary,
        .n_nodes = (size_t)fp->n_nodes,
    };
    return true;
}

vkml_status vkml_session_profile(vkml_session *s, vkml_node_time *out, size_t cap, size_t *n,
                                 vkml_error *err)
{
    plan *p = (plan *)session_plan(s);
    if (!p || !n || (cap && !out))
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "vkml_session_profile: no session, count or output array");
    double *t = calloc((size_t)p->graph->n_nodes + 1, sizeof(double));
    if (!t)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory reading the profile");
    vkml_status st = plan_node_times(p, t, err);
    size_t k = 0;
    for (int c = 0; st == VKML_OK && c < p->n_chunks; c++) {
        const plan_chunk *chunk = &p->chunks[c];
        for (int j = 0; j < chunk->n_nodes; j++, k++) {
            int i = chunk->nodes[j];
            const graph_node *node = &p->graph->nodes[i];
            if (k >= cap)
                continue;
            const char *detail =
                node->epilogue && node->epilogue->absorbed ? node->epilogue->absorbed : "";
            if (node->op && node->op->id == OP_ID_FusedElementwise)
                detail = ((const fused_params *)node->params)->summary;
            if (node->op && node->op->id == OP_ID_FusedAttention)
                detail = ((const fused_attention_params *)node->params)->summary;
            out[k] = (vkml_node_time){.name = node_name(p->graph, i),
                                      .op = node->op_type,
                                      .detail = detail,
                                      .device = p->devices[chunk->slot].index,
                                      .us = t[i]};
        }
    }
    int node;
    double us;
    for (int j = 0; st == VKML_OK && plan_tail_node_time(p->tail, j, &node, &us); j++, k++)
        if (k < cap)
            out[k] = (vkml_node_time){.name = node_name(p->graph, node),
                                      .op = p->graph->nodes[node].op_type,
                                      .detail = "host",
                                      .device = VKML_DEVICE_CPU,
                                      .us = us};
    free(t);
    *n = st == VKML_OK ? k : 0;
    return st;
}
