#include "plan/mem_plan.h"

#include <stdlib.h>
#include <string.h>

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

/* Every chunk touching a ends before b's life begins: an ancestor of b's first chunk, or
 * that chunk itself with a's last touch before b's first. */
static bool ends_before(const mem_life *a, const mem_life *b, const mem_order *order)
{
    int start = b->first_chunk;
    for (int i = 0; i < a->n_chunks; i++) {
        int c = a->chunks[i];
        if (c == start) {
            if (a->last_chunk != start || a->last_pos >= b->first_pos)
                return false;
        } else if (!order->before || c < 0 || c >= order->n_chunks || start < 0 ||
                   start >= order->n_chunks ||
                   !order->before[(size_t)c * (size_t)order->n_chunks + (size_t)start]) {
            return false;
        }
    }
    return true;
}

bool mem_lives_disjoint(const mem_life *a, const mem_life *b, const mem_order *order)
{
    bool single = a->n_chunks == 1 && b->n_chunks == 1;
    if (single && a->first_chunk == b->first_chunk)
        return a->last_pos < b->first_pos || b->last_pos < a->first_pos;
    if (single && order->serial)
        return true; /* two chunks of one queue never overlap, in either order */
    return ends_before(a, b, order) || ends_before(b, a, order);
}

static int by_size_desc(const void *pa, const void *pb)
{
    const mem_life *a = *(mem_life *const *)pa, *b = *(mem_life *const *)pb;
    if (a->size != b->size)
        return a->size < b->size ? 1 : -1;
    if (a->first_step != b->first_step)
        return a->first_step < b->first_step ? -1 : 1;
    return a < b ? -1 : a > b;
}

static int by_offset(const void *pa, const void *pb)
{
    const mem_life *a = *(mem_life *const *)pa, *b = *(mem_life *const *)pb;
    return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* Lowest aligned offset where l fits between the placed lives it conflicts with. */
static uint64_t first_fit(const mem_life *l, mem_life **placed, int n_placed, mem_life **scratch,
                          const mem_order *order, uint64_t alignment)
{
    int n = 0;
    for (int i = 0; i < n_placed; i++)
        if (!mem_lives_disjoint(l, placed[i], order))
            scratch[n++] = placed[i];
    qsort(scratch, (size_t)n, sizeof(*scratch), by_offset);
    uint64_t offset = 0;
    for (int i = 0; i < n; i++) {
        if (scratch[i]->offset >= offset + l->size)
            break;
        uint64_t end = align_up(scratch[i]->offset + scratch[i]->size, alignment);
        offset = end > offset ? end : offset;
    }
    return offset;
}

vkml_status mem_assign(mem_life *lives, int n, const mem_order *order, uint64_t alignment,
                       uint64_t *total, vkml_error *err)
{
    *total = 0;
    if (n <= 0)
        return VKML_OK;
    if (alignment == 0)
        alignment = 1;
    mem_life **sorted = calloc((size_t)n, sizeof(*sorted));
    mem_life **scratch = calloc((size_t)n, sizeof(*scratch));
    if (!sorted || !scratch) {
        free(sorted);
        free(scratch);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "memory plan: out of host memory");
    }
    for (int i = 0; i < n; i++)
        sorted[i] = &lives[i];
    qsort(sorted, (size_t)n, sizeof(*sorted), by_size_desc);
    for (int i = 0; i < n; i++) {
        mem_life *l = sorted[i];
        l->offset = first_fit(l, sorted, i, scratch, order, alignment);
        uint64_t end = align_up(l->offset + l->size, alignment);
        *total = end > *total ? end : *total;
    }
    free(sorted);
    free(scratch);
    return VKML_OK;
}

uint64_t mem_bound(const mem_life *lives, int n, uint64_t alignment)
{
    if (alignment == 0)
        alignment = 1;
    int steps = 0;
    for (int i = 0; i < n; i++)
        steps = lives[i].last_step + 1 > steps ? lives[i].last_step + 1 : steps;
    /* delta[s]: bytes becoming live at step s minus those dead after step s - 1. */
    int64_t *delta = calloc((size_t)steps + 2, sizeof(*delta));
    uint64_t best = 0;
    if (!delta) { /* only a report: fall back to the sum, an upper bound on the bound */
        for (int i = 0; i < n; i++)
            best += align_up(lives[i].size, alignment);
        return best;
    }
    for (int i = 0; i < n; i++) {
        int64_t size = (int64_t)align_up(lives[i].size, alignment);
        delta[lives[i].first_step] += size;
        delta[lives[i].last_step + 1] -= size;
    }
    int64_t live = 0;
    for (int s = 0; s < steps; s++) {
        live += delta[s];
        best = (uint64_t)live > best ? (uint64_t)live : best;
    }
    free(delta);
    return best;
}

/* The lives of desc's transient roots, built in two passes over the chunks: the first
 * counts each root's distinct chunks, the second records them. */
typedef struct life_table {
    mem_life *lives; /* per root value (index = value), size 0: not touched */
    int *chunk_lists;
    int *next_slot; /* per value: where its next chunk goes in chunk_lists */
} life_table;

static void touch(life_table *t, const mem_plan_args *a, int v, int c, int pos, int step,
                  bool record)
{
    int n = a->desc->graph->n_values;
    if (v < 0 || v >= n || a->root[v] < 0 || a->root[v] >= n || !a->transient[a->root[v]])
        return;
    mem_life *l = &t->lives[a->root[v]];
    bool seen = l->size != 0;
    if (!seen) {
        *l = (mem_life){.size = a->size[a->root[v]] ? a->size[a->root[v]] : 1,
                        .first_chunk = c, .first_pos = pos, .first_step = step,
                        .last_chunk = c, .last_pos = pos, .last_step = step};
    }
    if (!seen || l->last_chunk != c) {
        if (record)
            t->chunk_lists[t->next_slot[a->root[v]]++] = c;
        l->n_chunks++;
    }
    l->last_chunk = c;
    l->last_pos = pos;
    l->last_step = step;
}

static void walk(life_table *t, const mem_plan_args *a, bool record)
{
    const device_session_desc *desc = a->desc;
    int step = 0;
    memset(t->lives, 0, sizeof(mem_life) * (size_t)desc->graph->n_values);
    for (int c = 0; c < desc->n_chunks; c++) {
        for (int i = 0; i < desc->chunks[c].n_nodes; i++, step++) {
            int index = desc->chunks[c].nodes[i];
            if (index < 0 || index >= desc->graph->n_nodes)
                continue;
            const graph_node *node = &desc->graph->nodes[index];
            for (int k = 0; k < node->n_inputs; k++)
                touch(t, a, node->inputs[k], c, i, step, record);
            for (int k = 0; k < node->n_outputs; k++)
                touch(t, a, node->outputs[k], c, i, step, record);
        }
    }
}

vkml_status mem_plan_session(const mem_plan_args *args, uint64_t *offsets, bool *placed,
                             uint64_t *total, uint64_t *bound, vkml_error *err)
{
    vkml_status status = VKML_OK;
    int n = args->desc->graph->n_values;
    life_table t = {
        .lives = calloc((size_t)n + 1, sizeof(mem_life)),
        .next_slot = calloc((size_t)n + 1, sizeof(int)),
    };
    mem_life *packed = calloc((size_t)n + 1, sizeof(mem_life));
    int *owner = calloc((size_t)n + 1, sizeof(int));
    *total = *bound = 0;
    if (!t.lives || !t.next_slot || !packed || !owner)
        goto oom;
    walk(&t, args, false);
    size_t n_lists = 0;
    for (int v = 0; v < n; v++) {
        t.next_slot[v] = (int)n_lists;
        n_lists += (size_t)t.lives[v].n_chunks;
    }
    if (!(t.chunk_lists = calloc(n_lists + 1, sizeof(int))))
        goto oom;
    walk(&t, args, true);
    int n_packed = 0;
    for (int v = 0; v < n; v++) {
        placed[v] = false;
        if (t.lives[v].size == 0)
            continue;
        packed[n_packed] = t.lives[v];
        packed[n_packed].chunks = t.chunk_lists + (t.next_slot[v] - t.lives[v].n_chunks);
        owner[n_packed++] = v;
    }
    mem_order order = {.before = args->desc->chunk_before,
                       .n_chunks = args->desc->n_chunks,
                       .serial = args->serial};
    status = mem_assign(packed, n_packed, &order, args->alignment, total, err);
    for (int i = 0; status == VKML_OK && i < n_packed; i++) {
        offsets[owner[i]] = packed[i].offset;
        placed[owner[i]] = true;
    }
    if (status == VKML_OK)
        *bound = mem_bound(packed, n_packed, args->alignment);
    goto done;
oom:
    status = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "memory plan: out of host memory");
done:
    free(t.lives);
    free(t.next_slot);
    free(t.chunk_lists);
    free(packed);
    free(owner);
    return status;
}
