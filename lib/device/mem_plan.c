#include "device/mem_plan.h"

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

/* Orders to place lives in; mem_assign keeps the best result of each with each gap rule.
 * Largest first is TFLite's greedy by size; the others win on some graphs (ViT: many
 * equal sizes whose order of birth packs them tighter). */
#define MEM_PLAN_MAX_TRIED_LIVES 4000    /* values past which one greedy order is tried */
#define MEM_PLAN_SEARCH_STEPS 2000       /* most placements the local search tries */
#define MEM_PLAN_SEARCH_WORK 20000000ull /* its budget: placements x values^2 */

typedef enum place_order { ORDER_SIZE, ORDER_BIRTH, ORDER_AREA, ORDER_COUNT } place_order;

static int compare_lives(const mem_life *a, const mem_life *b, place_order order)
{
    uint64_t ka = a->size, kb = b->size;
    if (order == ORDER_AREA) {
        ka *= (uint64_t)(a->last_step - a->first_step + 1);
        kb *= (uint64_t)(b->last_step - b->first_step + 1);
    }
    if (order != ORDER_BIRTH && ka != kb)
        return ka < kb ? 1 : -1;
    if (a->first_step != b->first_step)
        return a->first_step < b->first_step ? -1 : 1;
    if (a->size != b->size)
        return a->size < b->size ? 1 : -1;
    return a < b ? -1 : a > b;
}

static int by_size(const void *pa, const void *pb)
{
    return compare_lives(*(mem_life *const *)pa, *(mem_life *const *)pb, ORDER_SIZE);
}

static int by_birth(const void *pa, const void *pb)
{
    return compare_lives(*(mem_life *const *)pa, *(mem_life *const *)pb, ORDER_BIRTH);
}

static int by_area(const void *pa, const void *pb)
{
    return compare_lives(*(mem_life *const *)pa, *(mem_life *const *)pb, ORDER_AREA);
}

static int by_offset(const void *pa, const void *pb)
{
    const mem_life *a = *(mem_life *const *)pa, *b = *(mem_life *const *)pb;
    return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* An aligned offset where l fits between the placed lives it conflicts with: the lowest
 * (first fit), or the one of the smallest gap that fits, above the top when none does
 * (best fit). */
static uint64_t find_gap(const mem_life *l, mem_life **placed, int n_placed, mem_life **scratch,
                         const mem_order *order, uint64_t alignment, bool best_fit)
{
    int n = 0;
    for (int i = 0; i < n_placed; i++)
        if (!mem_lives_disjoint(l, placed[i], order))
            scratch[n++] = placed[i];
    qsort(scratch, (size_t)n, sizeof(*scratch), by_offset);
    uint64_t offset = 0, best = UINT64_MAX, best_gap = UINT64_MAX;
    for (int i = 0; i < n; i++) {
        if (scratch[i]->offset >= offset + l->size) {
            uint64_t gap = scratch[i]->offset - offset;
            if (!best_fit)
                return offset;
            if (gap < best_gap) {
                best_gap = gap;
                best = offset;
            }
        }
        uint64_t end = align_up(scratch[i]->offset + scratch[i]->size, alignment);
        offset = end > offset ? end : offset;
    }
    return best != UINT64_MAX ? best : offset;
}

/* One placement: lives in `sorted` order, each into its gap; the range's bytes. */
static uint64_t place_all(mem_life **sorted, int n, mem_life **scratch, const mem_order *order,
                          uint64_t alignment, bool best_fit)
{
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        mem_life *l = sorted[i];
        l->offset = find_gap(l, sorted, i, scratch, order, alignment, best_fit);
        uint64_t end = align_up(l->offset + l->size, alignment);
        total = end > total ? end : total;
    }
    return total;
}

/* The best placement found so far: its order and offsets. */
typedef struct placement {
    mem_life **order;
    uint64_t *offsets; /* per life (index in lives) */
    uint64_t total;
} placement;

static void keep_if_better(placement *best, mem_life **order, mem_life *lives, int n,
                           uint64_t total)
{
    if (total > best->total)
        return;
    best->total = total;
    memcpy(best->order, order, sizeof(*order) * (size_t)n);
    for (int i = 0; i < n; i++)
        best->offsets[i] = lives[i].offset;
}

/* The greedy tries: each order with each gap rule. */
static void try_greedy(placement *best, mem_life *lives, int n, mem_life **work, mem_life **scratch,
                       const mem_order *order, uint64_t alignment)
{
    static int (*const orders[ORDER_COUNT])(const void *, const void *) = {by_size, by_birth,
                                                                           by_area};
    int tries = n > MEM_PLAN_MAX_TRIED_LIVES ? 1 : ORDER_COUNT * 2;
    for (int o = 0; o < tries; o++) {
        for (int i = 0; i < n; i++)
            work[i] = &lives[i];
        qsort(work, (size_t)n, sizeof(*work), orders[o / 2]);
        uint64_t t = place_all(work, n, scratch, order, alignment, o % 2 == 1);
        if (t < best->total)
            keep_if_better(best, work, lives, n, t);
    }
}

/* Local search from the best order: swap one to three random pairs, place first fit, keep
 * when no worse (plateaus are walked); stops at the bound, which nothing beats, or when
 * MEM_PLAN_SEARCH_WORK conflict checks are spent. Deterministic (a fixed seed). */
static void try_swaps(placement *best, mem_life *lives, int n, mem_life **work, mem_life **scratch,
                      const mem_order *order, uint64_t alignment, uint64_t bound)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull, per_try = (uint64_t)n * (uint64_t)n + 1;
    uint64_t steps = MEM_PLAN_SEARCH_WORK / per_try;
    steps = steps > MEM_PLAN_SEARCH_STEPS ? MEM_PLAN_SEARCH_STEPS : steps;
    for (uint64_t step = 0; step < steps && best->total > bound && n > 1; step++) {
        memcpy(work, best->order, sizeof(*work) * (size_t)n);
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        int swaps = 1 + (int)((seed >> 33) % 3);
        for (int k = 0; k < swaps; k++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            int i = (int)((seed >> 33) % (uint64_t)n);
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            int j = (int)((seed >> 33) % (uint64_t)n);
            mem_life *t = work[i];
            work[i] = work[j];
            work[j] = t;
        }
        keep_if_better(best, work, lives, n, place_all(work, n, scratch, order, alignment, false));
    }
}

vkml_status mem_assign(mem_life *lives, int n, const mem_order *order, uint64_t alignment,
                       uint64_t *total, vkml_error *err)
{
    *total = 0;
    if (n <= 0)
        return VKML_OK;
    if (alignment == 0)
        alignment = 1;
    mem_life **work = calloc((size_t)n, sizeof(*work));
    mem_life **scratch = calloc((size_t)n, sizeof(*scratch));
    placement best = {.order = calloc((size_t)n, sizeof(mem_life *)),
                      .offsets = calloc((size_t)n, sizeof(uint64_t)),
                      .total = UINT64_MAX};
    vkml_status status = VKML_OK;
    if (!work || !scratch || !best.order || !best.offsets) {
        status = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "memory plan: out of host memory");
    } else {
        try_greedy(&best, lives, n, work, scratch, order, alignment);
        try_swaps(&best, lives, n, work, scratch, order, alignment, mem_bound(lives, n, alignment));
        for (int i = 0; i < n; i++)
            lives[i].offset = best.offsets[i];
        *total = best.total;
    }
    free(work);
    free(scratch);
    free(best.order);
    free(best.offsets);
    return status;
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
                        .first_chunk = c,
                        .first_pos = pos,
                        .first_step = step,
                        .last_chunk = c,
                        .last_pos = pos,
                        .last_step = step};
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
