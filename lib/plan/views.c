/* Views: values that live inside another value's memory at an offset, so that the copy
 * that would make them is not run (plan/views.h). */
#include "plan/views.h"
#include "ops/gather.h"
#include "ops/movement.h"
#include "ops/op.h"

#include <stdlib.h>
#include <string.h>

/* Step k of movement node n when it copies one contiguous block (source and destination
 * both dense runs): its element offsets in the source and the destination. */
static bool contiguous_step(const plan *p, const graph_node *n, int k, int64_t *src_off,
                            int64_t *dst_off)
{
    mv_step s;
    vkml_error err = {0};
    if (mv_describe(p->values, n, NULL, k, &s, &err) != VKML_OK || !mv_step_contiguous(&s))
        return false;
    *src_off = s.src_offset;
    *dst_off = s.dst_offset;
    return true;
}

/* Whether the device keeps step k of node n as a copy: a channel range, on a device that
 * may store its values channels-last (device.channels_last). */
static bool channels_copied(const plan *p, int slot, const graph_node *n, int k)
{
    mv_channels c;
    return p->devices[slot].dev->channels_last && mv_channel_range(p->values, n, k, &c);
}

/* Whether v may become a view: a used intermediate the host never touches, no constant,
 * not yet an alias. */
static bool may_become_view(const plan *p, const device_value_plan *plans, int v)
{
    return v >= 0 && plans[v].used && !plans[v].host_access && !plans[v].constant &&
           plans[v].alias_of < 0 && !plans[v].shared_host &&
           p->values[v].kind == GRAPH_VALUE_INTERMEDIATE;
}

/* Slice and Split outputs that are one block of their input, Transposes that move only
 * dims of size 1 (a relabelling: PyTorch's batch-first transposes at batch 1), and Gathers
 * of one block (gather_block): views of it. */
static void mark_slices(plan *p, int slot, device_value_plan *plans, uint64_t align)
{
    const graph *g = p->graph;
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node *n = &g->nodes[i];
        if (p->node_slot[i] != slot || !n->op ||
            (n->op->id != OP_ID_Slice && n->op->id != OP_ID_Split && n->op->id != OP_ID_Gather &&
             n->op->id != OP_ID_Transpose))
            continue;
        bool gather = n->op->id == OP_ID_Gather;
        for (int k = 0; k < (gather ? 1 : mv_step_count(n)); k++) {
            int64_t src_off, dst_off;
            int out = n->op->id == OP_ID_Split ? n->outputs[k] : n->outputs[0];
            int in = n->inputs[0];
            if (in < 0 || !may_become_view(p, plans, out) ||
                (!gather && channels_copied(p, slot, n, k)) ||
                !(gather ? gather_block(p->values, n, &src_off)
                         : contiguous_step(p, n, k, &src_off, &dst_off)))
                continue;
            uint64_t root_off;
            int root = device_alias_root(plans, g->n_values, in, &root_off);
            uint64_t off = (uint64_t)src_off * vkml_dtype_size(p->values[out].dtype);
            if (plans[root].constant || p->values[root].kind == GRAPH_VALUE_CONSTANT ||
                (root_off + off) % align != 0)
                continue;
            plans[out].alias_of = in;
            plans[out].alias_offset = off;
        }
    }
}

/* One input of a Concat: its block in the output, and the root whose memory holds it. */
typedef struct concat_part {
    bool contiguous;    /* the input is one block of the output */
    uint64_t at, bytes; /* that block: bytes into the output, its size */
    int root;           /* the input's root (itself unless it is an alias or a view) */
    int64_t root_at;    /* where the root would start in the output (at - the input's
                           offset in the root) */
    bool placed;        /* the root goes into the output there */
} concat_part;

/* Bytes of value v (0 when it has none). */
static uint64_t bytes_of(const plan *p, int v)
{
    size_t bytes = 0;
    if (!vkml_tensor_bytes(p->values[v].dtype, p->values[v].rank, p->values[v].dims, &bytes))
        return 0;
    return bytes;
}

static bool overlap(uint64_t a, uint64_t a_bytes, uint64_t b, uint64_t b_bytes)
{
    return a < b + b_bytes && b < a + a_bytes;
}

/* Whether root r of part k may go into the output of Concat n at parts[k].root_at: made
 * on this device by a node that is not an alias, never seen by the host, wholly inside
 * the output, aligned, and where every other input's part reading it expects it. */
static bool root_fits(const plan *p, int slot, const device_value_plan *plans, uint64_t align,
                      int out, const concat_part *parts, int n_parts, int k)
{
    const graph *g = p->graph;
    int r = parts[k].root, producer = r >= 0 ? p->values[r].producer : -1;
    if (r == out || !may_become_view(p, plans, r) || producer < 0 ||
        p->node_slot[producer] != slot || (g->nodes[producer].op->flags & OP_ALIAS))
        return false;
    /* whole 16-byte blocks: a kernel writing its output a vector at a time never touches a
     * neighbour's bytes */
    int64_t at = parts[k].root_at;
    uint64_t root_bytes = bytes_of(p, r);
    if (at < 0 || (uint64_t)at % align != 0 || root_bytes == 0 || root_bytes % 16 != 0 ||
        (uint64_t)at + root_bytes > bytes_of(p, out))
        return false;
    for (int j = 0; j < n_parts; j++)
        if (parts[j].root == r && (!parts[j].contiguous || parts[j].root_at != at))
            return false;
    return true;
}

/* Concat inputs that are one block of the output, made in place: the memory they live in
 * (their own, or the value they are a view or alias of) becomes a view of the output where
 * they go, so that their producer writes there. A root placed so must not overlap another
 * input's block (placed or copied). */
static void mark_concats(plan *p, int slot, device_value_plan *plans, uint64_t align)
{
    const graph *g = p->graph;
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node *n = &g->nodes[i];
        int out = n->n_outputs > 0 ? n->outputs[0] : -1;
        if (p->node_slot[i] != slot || !n->op || n->op->id != OP_ID_Concat || n->n_inputs < 1 ||
            !may_become_view(p, plans, out))
            continue;
        concat_part *parts = calloc((size_t)n->n_inputs, sizeof(*parts));
        if (!parts)
            return; /* views are an optimisation: without memory, every copy runs */
        for (int k = 0; k < n->n_inputs; k++) {
            int v = n->inputs[k];
            int64_t src_off, dst_off;
            parts[k].root = -1;
            if (v < 0 || channels_copied(p, slot, n, k) ||
                !contiguous_step(p, n, k, &src_off, &dst_off))
                continue;
            uint64_t in_root;
            parts[k].contiguous = true;
            parts[k].at = (uint64_t)dst_off * vkml_dtype_size(p->values[out].dtype);
            parts[k].bytes = bytes_of(p, v);
            parts[k].root = device_alias_root(plans, g->n_values, v, &in_root);
            parts[k].root_at = (int64_t)parts[k].at - (int64_t)in_root;
        }
        for (int k = 0; k < n->n_inputs; k++)
            parts[k].placed =
                parts[k].contiguous && root_fits(p, slot, plans, align, out, parts, n->n_inputs, k);
        /* a placed root's extent must miss every other root's extent and copied block */
        for (bool changed = true; changed;) {
            changed = false;
            for (int k = 0; k < n->n_inputs; k++) {
                if (!parts[k].placed)
                    continue;
                int r = parts[k].root;
                uint64_t rb = bytes_of(p, r);
                for (int j = 0; j < n->n_inputs && parts[k].placed; j++) {
                    if (parts[j].root == r)
                        continue;
                    /* part j's bytes in the output: its root's, its block, or (copied by
                     * a strided step) anywhere */
                    uint64_t ja = parts[j].at, jb = parts[j].bytes;
                    if (parts[j].placed) {
                        ja = (uint64_t)parts[j].root_at;
                        jb = bytes_of(p, parts[j].root);
                    } else if (!parts[j].contiguous) {
                        ja = 0;
                        jb = bytes_of(p, out);
                    }
                    if (overlap((uint64_t)parts[k].root_at, rb, ja, jb)) {
                        for (int m = 0; m < n->n_inputs; m++)
                            if (parts[m].root == r)
                                parts[m].placed = false;
                        changed = true;
                    }
                }
            }
        }
        for (int k = 0; k < n->n_inputs; k++) {
            int r = parts[k].root;
            if (parts[k].placed && plans[r].alias_of < 0) {
                plans[r].alias_of = out;
                plans[r].alias_offset = (uint64_t)parts[k].root_at;
            }
        }
        free(parts);
    }
}

void plan_mark_views(plan *p, int slot)
{
    device_value_plan *plans = p->devices[slot].value_plans;
    uint64_t align = p->devices[slot].dev->view_align;
    if (!align || vkml_env_flag("VKML_NO_VIEWS"))
        return;
    mark_slices(p, slot, plans, align);
    mark_concats(p, slot, plans, align);
}
