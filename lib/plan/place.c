/* Placement: which device of the session's set runs each node, within each GPU's memory
 * budget (plan.h says how; this file is the greedy pass and its memory estimate). */
#include "ops/op.h"
#include "plan/plan.h"
#include "plan/tail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The running memory estimate of the pass: per slot, the constants it holds and the
 * intermediates live there now; per (value, slot), whether the value is resident. */
typedef struct placer {
    plan *p;
    const plan_target *t;
    int *last_use;     /* per value: the last node reading it or an alias of it (n_nodes:
                          held all session: a graph input or output) */
    uint8_t *is_alias; /* per value: an OP_ALIAS output, sharing its input's memory */
    uint8_t *resident; /* [value * PLAN_MAX_DEVICES + slot] */
    uint64_t weights[PLAN_MAX_DEVICES], live[PLAN_MAX_DEVICES];
} placer;

static uint64_t value_bytes(const graph_value *v)
{
    size_t bytes = 0;
    return vkml_tensor_bytes(v->dtype, v->rank, v->dims, &bytes) ? (uint64_t)bytes : UINT64_MAX / 4;
}

/* Bytes a value adds where it is resident: none for an alias (the device session's memory
 * plan gives it its input's range). */
static uint64_t resident_bytes(const placer *pl, int v)
{
    return pl->is_alias[v] ? 0 : value_bytes(&pl->p->values[v]);
}

static uint64_t slot_budget(const placer *pl, int slot)
{
    const device *dev = pl->p->devices[slot].dev;
    if (dev == pl->t->host)
        return UINT64_MAX; /* the CPU device: host memory, no budget */
    uint64_t own = dev->memory_budget ? dev->memory_budget : UINT64_MAX;
    return pl->t->budget && pl->t->budget < own ? pl->t->budget : own;
}

/* Bytes node n adds on slot s: constants not yet there, inputs and copies not yet
 * there, its outputs. *weights gets the constants' share. */
static uint64_t node_cost(const placer *pl, const graph_node *n, int s, uint64_t *weights)
{
    const graph_value *values = pl->p->values;
    uint64_t total = 0;
    *weights = 0;
    for (int i = 0; i < n->n_inputs; i++) {
        int v = n->inputs[i];
        if (v < 0 || pl->resident[(size_t)v * PLAN_MAX_DEVICES + (size_t)s])
            continue;
        bool repeated = false; /* the same value twice (Mul(x, x)) counts once */
        for (int j = 0; j < i; j++)
            repeated |= n->inputs[j] == v;
        if (repeated)
            continue;
        uint64_t b = resident_bytes(pl, v);
        total += b;
        if (values[v].kind == GRAPH_VALUE_CONSTANT)
            *weights += b;
    }
    for (int o = 0; o < n->n_outputs; o++)
        if (n->outputs[o] >= 0)
            total += resident_bytes(pl, n->outputs[o]);
    return total;
}

/* Places node i on slot s, which node_cost priced at `cost` (`weights` of it constants):
 * its values become resident there. */
static void commit(placer *pl, int i, int s, uint64_t cost, uint64_t weights)
{
    plan *p = pl->p;
    const graph_node *n = &p->graph->nodes[i];
    plan_device *d = &p->devices[s];
    pl->weights[s] += weights;
    pl->live[s] += cost - weights;
    for (int k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] >= 0)
            pl->resident[(size_t)n->inputs[k] * PLAN_MAX_DEVICES + (size_t)s] = 1;
    for (int o = 0; o < n->n_outputs; o++)
        if (n->outputs[o] >= 0)
            pl->resident[(size_t)n->outputs[o] * PLAN_MAX_DEVICES + (size_t)s] = 1;
    if (pl->live[s] > d->peak_bytes)
        d->peak_bytes = pl->live[s];
    d->weight_bytes = pl->weights[s];
    if (d->n_nodes++ == 0)
        d->first_node = i;
    d->last_node = i;
    p->node_slot[i] = s;
}

/* After node i: values it was the last reader of (and outputs nobody reads) leave every
 * slot; constants stay. */
static void release(placer *pl, int i)
{
    plan *p = pl->p;
    const graph_node *n = &p->graph->nodes[i];
    for (int pass = 0; pass < 2; pass++) {
        const int *ids = pass ? n->outputs : n->inputs;
        int count = pass ? n->n_outputs : n->n_inputs;
        for (int k = 0; k < count; k++) {
            int v = ids[k];
            if (v < 0 || pl->last_use[v] > i || p->values[v].kind == GRAPH_VALUE_CONSTANT)
                continue;
            for (int s = 0; s < p->n_devices; s++) {
                uint8_t *r = &pl->resident[(size_t)v * PLAN_MAX_DEVICES + (size_t)s];
                if (*r) {
                    *r = 0;
                    pl->live[s] -= resident_bytes(pl, v);
                }
            }
        }
    }
}

static void format_bytes(uint64_t b, char *buf, size_t size)
{
    if (b >= (1ull << 30))
        snprintf(buf, size, "%.2f GiB", (double)b / (double)(1ull << 30));
    else if (b >= (1ull << 20))
        snprintf(buf, size, "%.2f MiB", (double)b / (double)(1ull << 20));
    else
        snprintf(buf, size, "%llu bytes", (unsigned long long)b);
}

static vkml_status refuse_fit(placer *pl, int i, int s, vkml_error *err)
{
    char label[300], need_s[32], used_s[32], budget_s[32];
    uint64_t weights, need = node_cost(pl, &pl->p->graph->nodes[i], s, &weights);
    format_bytes(need, need_s, sizeof(need_s));
    format_bytes(pl->weights[s] + pl->live[s], used_s, sizeof(used_s));
    format_bytes(slot_budget(pl, s), budget_s, sizeof(budget_s));
    return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY,
                     "%s does not fit the devices of the session: it needs %s (weights and "
                     "tensors) on %s, the last GPU that runs it, which already holds %s of its "
                     "%s budget (%d GPU(s) in the set; raise the budget or add devices)",
                     graph_node_label(pl->p->graph, i, label, sizeof(label)), need_s,
                     pl->p->devices[s].dev->info.name, used_s, budget_s, pl->t->n_devices);
}

static int slot_of(plan *p, device *dev, int index)
{
    for (int s = 0; s < p->n_devices; s++)
        if (p->devices[s].dev == dev)
            return s;
    p->devices[p->n_devices].dev = dev;
    p->devices[p->n_devices].index = index;
    p->devices[p->n_devices].first_node = p->devices[p->n_devices].last_node = -1;
    return p->n_devices++;
}

/* Node i on the first GPU from *cur on that runs it and has room (moving *cur past full
 * ones), else on the CPU when no GPU runs it. */
static vkml_status place_node(placer *pl, int i, int *cur, vkml_error *err)
{
    plan *p = pl->p;
    const plan_target *t = pl->t;
    const graph_node *n = &p->graph->nodes[i];
    char label[300], why[256] = "", why_cpu[256] = "";
    int full = -1;
    for (int k = *cur; k < t->n_devices; k++) {
        device *dev = t->devices[k];
        if (!dev->cls->supports_node(dev, p->values, n, why, sizeof(why)))
            continue;
        int s = slot_of(p, dev, t->dev_index[k]);
        uint64_t weights, need = node_cost(pl, n, s, &weights);
        uint64_t budget = slot_budget(pl, s), used = pl->weights[s] + pl->live[s];
        if (need > budget || used > budget - need) {
            full = s;
            continue;
        }
        if (full >= 0)
            *cur = k; /* the earlier GPUs are full: stay on this one */
        commit(pl, i, s, need, weights);
        return VKML_OK;
    }
    if (full >= 0)
        return refuse_fit(pl, i, full, err);
    if (!t->host->cls->supports_node(t->host, p->values, n, why_cpu, sizeof(why_cpu)))
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s: no device can run it (%s%s%s%s)",
                         graph_node_label(p->graph, i, label, sizeof(label)),
                         t->n_devices ? why : "", t->n_devices ? "; " : "", "CPU: ", why_cpu);
    if (t->n_devices)
        VKML_LOGI("%s runs on the CPU: %s", graph_node_label(p->graph, i, label, sizeof(label)),
                  why);
    int cpu = slot_of(p, t->host, VKML_DEVICE_CPU);
    uint64_t weights, need = node_cost(pl, n, cpu, &weights);
    commit(pl, i, cpu, need, weights);
    return VKML_OK;
}

/* Lives as the device sessions' memory plans see them (device/mem_plan.h): graph inputs and
 * outputs (host-visible) stay all session; an OP_ALIAS output shares its non-constant
 * input's memory, which lives as long as the alias is read. */
static void find_lives(placer *pl, const bool *folded)
{
    const plan *p = pl->p;
    const graph *g = p->graph;
    for (int v = 0; v < g->n_values; v++)
        pl->last_use[v] = p->values[v].is_output || p->values[v].kind == GRAPH_VALUE_INPUT ||
                                  plan_tail_reads(p->tail, v)
                              ? g->n_nodes
                              : -1;
    for (int i = 0; i < g->n_nodes; i++)
        for (int k = 0; k < g->nodes[i].n_inputs; k++)
            if (g->nodes[i].inputs[k] >= 0 && pl->last_use[g->nodes[i].inputs[k]] < i)
                pl->last_use[g->nodes[i].inputs[k]] = i;
    for (int i = g->n_nodes - 1; i >= 0; i--) { /* backwards: chains of aliases */
        const graph_node *n = &g->nodes[i];
        if (folded[i] || plan_tail_has_node(p->tail, i) || !(n->op->flags & OP_ALIAS) ||
            n->n_inputs < 1 || n->n_outputs < 1 || n->inputs[0] < 0 || n->outputs[0] < 0 ||
            p->values[n->inputs[0]].kind == GRAPH_VALUE_CONSTANT)
            continue;
        int in = n->inputs[0], out = n->outputs[0];
        pl->is_alias[out] = 1;
        if (pl->last_use[out] > pl->last_use[in])
            pl->last_use[in] = pl->last_use[out];
    }
}

vkml_status plan_place_nodes(plan *p, const plan_target *t, const bool *folded, vkml_error *err)
{
    const graph *g = p->graph;
    placer pl = {.p = p, .t = t};
    pl.last_use = calloc((size_t)g->n_values + 1, sizeof(int));
    pl.is_alias = calloc((size_t)g->n_values + 1, 1);
    pl.resident = calloc((size_t)g->n_values * PLAN_MAX_DEVICES + 1, 1);
    if (!pl.last_use || !pl.is_alias || !pl.resident) {
        free(pl.last_use);
        free(pl.is_alias);
        free(pl.resident);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory placing nodes");
    }
    find_lives(&pl, folded);
    /* The first device of the set has a slot even when everything folds. */
    if (t->n_devices)
        slot_of(p, t->devices[0], t->dev_index[0]);
    else
        slot_of(p, t->host, VKML_DEVICE_CPU);
    vkml_status st = VKML_OK;
    int cur = 0;
    for (int i = 0; i < g->n_nodes && st == VKML_OK; i++) {
        p->node_slot[i] = plan_tail_has_node(p->tail, i) ? PLAN_SLOT_TAIL : -1;
        if (folded[i] || p->node_slot[i] == PLAN_SLOT_TAIL)
            continue;
        st = place_node(&pl, i, &cur, err);
        release(&pl, i);
    }
    free(pl.last_use);
    free(pl.is_alias);
    free(pl.resident);
    return st;
}
