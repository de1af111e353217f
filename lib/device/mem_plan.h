#pragma once
/*
 * Memory plan of a device session's intermediates, over the whole session (every chunk of
 * the device). Transient values (roots only this device touches: not host_access, not
 * constant; an alias shares its root's life) share one range; two of them may overlap in
 * memory only when one's life is over before the other's begins in every run:
 *   - inside one chunk, nodes run in order (the recorder's barriers see a reuse as a write
 *     after read), so the lives are node positions;
 *   - across chunks, a chunk ends before another starts when it is its ancestor in the
 *     plan's chunk graph (mem_order.before), or, on a device that runs its chunks one at a
 *     time (serial: one Vulkan queue, each command buffer starting with a full barrier),
 *     for two values each touched by a single chunk, whichever chunk runs first.
 * Offsets: values in one order, each at an aligned offset where it fits between the
 * placed values its life conflicts with (the lowest, or the smallest gap that fits); the
 * orders are largest first (greedy by size, as TFLite's arena planner), by birth, and by
 * size x life; the smallest of the six results is kept.
 *
 * The liveness lower bound: chunks in index order (a topological order) and their nodes in
 * order make the device's steps; the bound is the largest sum of the sizes, rounded up to
 * the alignment, of the transient roots live at one step (first to last step touching the
 * root or an alias of it; aliases counted once). Every value starts at an aligned offset
 * and the range's size is rounded up too, so no placement respecting the conflicts above
 * can use less.
 */
#include "device/device.h"

/* Which chunks of a device end before which others start. */
typedef struct mem_order {
    const uint8_t *before; /* [a * n_chunks + b]: chunk a ends before chunk b starts in every
                              run (local indices); NULL: none known */
    int n_chunks;
    bool serial; /* chunks never run at the same time (one queue, in submission order) */
} mem_order;

/* One transient root's life and, after mem_assign, its offset. */
typedef struct mem_life {
    uint64_t size;              /* bytes, > 0 */
    int first_chunk, first_pos; /* first touch (its producer): chunk and node position */
    int last_chunk, last_pos;   /* last touch in chunk index order */
    int first_step, last_step;  /* in the device's step order (for the bound) */
    const int *chunks;          /* the distinct chunks touching it, ascending */
    int n_chunks;
    uint64_t offset; /* set by mem_assign */
} mem_life;

/* Whether a and b may share memory: one's life ends before the other's begins. */
bool mem_lives_disjoint(const mem_life *a, const mem_life *b, const mem_order *order);

/* Offsets for every life (the best of the placements above; each offset a multiple of
 * alignment, ends rounded up to it) and *total, the range they need. */
vkml_status mem_assign(mem_life *lives, int n, const mem_order *order, uint64_t alignment,
                       uint64_t *total, vkml_error *err);

/* The liveness lower bound of these lives (see above). 0 when n is 0. */
uint64_t mem_bound(const mem_life *lives, int n, uint64_t alignment);

/* The plan of a device session's transient roots. root[v]: the value whose memory v shares
 * (itself when not an alias); size[r]: the bytes to reserve for root r (> 0);
 * transient[r]: r may share the range. On success placed[r] says which roots got an offset
 * (offsets[r]); a transient root no chunk touches is not placed. *total: the range's bytes
 * (alignment included); *bound: the liveness lower bound of the placed roots. */
typedef struct mem_plan_args {
    const device_session_desc *desc;
    const int *root;
    const uint64_t *size;
    const bool *transient;
    uint64_t alignment; /* a power of two */
    bool serial;        /* mem_order.serial */
} mem_plan_args;
vkml_status mem_plan_session(const mem_plan_args *args, uint64_t *offsets, bool *placed,
                             uint64_t *total, uint64_t *bound, vkml_error *err);
