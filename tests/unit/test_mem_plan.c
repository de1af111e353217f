/* The memory plan's offset assignment (device/mem_plan.h) on hand-made lifetimes: values
 * whose lives overlap never share memory; values said to be disjoint are so in every order
 * the device may run its chunks in (all topological orders of random chunk graphs,
 * enumerated); offsets are aligned; the liveness bound, recomputed here step by step, is
 * never beaten and is reached on cases where it is the optimum (equal sizes on one chunk,
 * alternating sizes along a chain); values of different chunks share on a serial device or
 * when their chunks are ordered, and not otherwise. */
#include "device/mem_plan.h"
#include "testutil.h"

#define MAX_CHUNKS 4
#define MAX_NODES 6
#define MAX_LIVES 24

typedef struct scenario {
    int n_chunks, nodes[MAX_CHUNKS], start[MAX_CHUNKS]; /* start: the chunk's first step */
    uint8_t before[MAX_CHUNKS * MAX_CHUNKS];
    mem_life lives[MAX_LIVES];
    int chunk_lists[MAX_LIVES][MAX_CHUNKS];
    int n;
} scenario;

static uint32_t next_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

static int rand_below(uint64_t *s, int n)
{
    return (int)(next_rand(s) % (uint32_t)n);
}

/* A random chunk DAG (edges from lower to higher index, closed transitively) and lives: a
 * producer chunk and position, readers in it or in descendant chunks. */
static void make_scenario(scenario *sc, uint64_t *seed, uint64_t max_size)
{
    memset(sc, 0, sizeof(*sc));
    sc->n_chunks = 1 + rand_below(seed, MAX_CHUNKS);
    for (int c = 0, step = 0; c < sc->n_chunks; c++) {
        sc->nodes[c] = 1 + rand_below(seed, MAX_NODES);
        sc->start[c] = step;
        step += sc->nodes[c];
    }
    int m = sc->n_chunks;
    for (int b = 0; b < m; b++)
        for (int a = 0; a < b; a++)
            sc->before[a * m + b] = rand_below(seed, 100) < 40;
    for (int k = 0; k < m; k++) /* transitive closure */
        for (int a = 0; a < m; a++)
            for (int b = 0; b < m; b++)
                if (sc->before[a * m + k] && sc->before[k * m + b])
                    sc->before[a * m + b] = 1;
    sc->n = 2 + rand_below(seed, MAX_LIVES - 1);
    for (int i = 0; i < sc->n; i++) {
        mem_life *l = &sc->lives[i];
        int f = rand_below(seed, m), fp = rand_below(seed, sc->nodes[f]);
        int *list = sc->chunk_lists[i], n_list = 0;
        list[n_list++] = f;
        for (int c = f + 1; c < m; c++)
            if (sc->before[f * m + c] && rand_below(seed, 100) < 35)
                list[n_list++] = c;
        int last = list[n_list - 1];
        int lp = last == f ? fp + rand_below(seed, sc->nodes[f] - fp)
                           : rand_below(seed, sc->nodes[last]);
        *l = (mem_life){.size = 1 + (uint64_t)rand_below(seed, (int)max_size),
                        .first_chunk = f,
                        .first_pos = fp,
                        .last_chunk = last,
                        .last_pos = lp,
                        .first_step = sc->start[f] + fp,
                        .last_step = sc->start[last] + lp,
                        .chunks = list,
                        .n_chunks = n_list};
    }
}

/* The bound, step by step: the most aligned bytes live at one step. */
static uint64_t bound_by_steps(const scenario *sc, uint64_t alignment)
{
    uint64_t best = 0;
    int steps = sc->start[sc->n_chunks - 1] + sc->nodes[sc->n_chunks - 1];
    for (int s = 0; s < steps; s++) {
        uint64_t live = 0;
        for (int i = 0; i < sc->n; i++)
            if (sc->lives[i].first_step <= s && s <= sc->lives[i].last_step)
                live += (sc->lives[i].size + alignment - 1) / alignment * alignment;
        best = live > best ? live : best;
    }
    return best;
}

/* Time of (chunk, pos) when the chunks run one after another in `perm` order. */
static int time_of(const int *rank, int chunk, int pos)
{
    return rank[chunk] * 100 + pos;
}

/* [start, end] of a life in that order: a chunk other than its last in index order is
 * taken as touched to its end (mem_life keeps no positions there). */
static void interval(const scenario *sc, const mem_life *l, const int *rank, int *start, int *end)
{
    *start = time_of(rank, l->first_chunk, l->first_pos);
    *end = *start;
    for (int k = 0; k < l->n_chunks; k++) {
        int c = l->chunks[k];
        int pos = c == l->last_chunk ? l->last_pos : sc->nodes[c] - 1;
        int t = time_of(rank, c, pos);
        *end = t > *end ? t : *end;
    }
}

/* Every pair said disjoint is so in every order the chunk graph allows (serial device):
 * each permutation of the chunks, kept when it respects `before`. */
static void check_disjoint_in_all_orders(const scenario *sc, const mem_order *order)
{
    int m = sc->n_chunks, rank[MAX_CHUNKS], orders = 0;
    int total = 1;
    for (int k = 2; k <= m; k++)
        total *= k;
    for (int code = 0; code < total; code++) {
        bool used[MAX_CHUNKS] = {0}, valid = true;
        for (int k = 0, rest = code; k < m; k++) { /* the code-th permutation */
            int pick = rest % (m - k), c = 0;
            rest /= m - k;
            for (;; c++)
                if (!used[c] && pick-- == 0)
                    break;
            used[c] = true;
            rank[c] = k;
        }
        for (int a = 0; a < m; a++)
            for (int b = 0; b < m; b++)
                valid &= !sc->before[a * m + b] || rank[a] < rank[b];
        if (!valid)
            continue;
        orders++;
        for (int i = 0; i < sc->n; i++)
            for (int j = i + 1; j < sc->n; j++) {
                if (!mem_lives_disjoint(&sc->lives[i], &sc->lives[j], order))
                    continue;
                int s1, e1, s2, e2;
                interval(sc, &sc->lives[i], rank, &s1, &e1);
                interval(sc, &sc->lives[j], rank, &s2, &e2);
                CHECK(e1 < s2 || e2 < s1, "lives %d [%d,%d] and %d [%d,%d] overlap in time", i, s1,
                      e1, j, s2, e2);
            }
    }
    CHECK(orders > 0, "the chunk graph allows no order");
}

/* Conflicting lives never overlap in memory; offsets aligned; the total covers them. */
static void check_assignment(const scenario *sc, const mem_order *order, uint64_t alignment,
                             uint64_t total)
{
    for (int i = 0; i < sc->n; i++) {
        const mem_life *a = &sc->lives[i];
        CHECK(a->offset % alignment == 0, "offset %llu not aligned to %llu",
              (unsigned long long)a->offset, (unsigned long long)alignment);
        CHECK(a->offset + a->size <= total, "life %d ends past the total", i);
        for (int j = i + 1; j < sc->n; j++) {
            const mem_life *b = &sc->lives[j];
            if (mem_lives_disjoint(a, b, order))
                continue;
            CHECK(a->offset + a->size <= b->offset || b->offset + b->size <= a->offset,
                  "conflicting lives %d and %d share memory", i, j);
        }
    }
}

static void test_random(void)
{
    uint64_t seed = 12345;
    for (int round = 0; round < 600; round++) {
        scenario sc;
        make_scenario(&sc, &seed, 1000);
        uint64_t alignment = 1ull << rand_below(&seed, 7);
        mem_order order = {
            .before = sc.before, .n_chunks = sc.n_chunks, .serial = rand_below(&seed, 2)};
        check_disjoint_in_all_orders(&sc, &order);
        uint64_t total = 0;
        vkml_error err = {0};
        CHECK_OK(mem_assign(sc.lives, sc.n, &order, alignment, &total, &err), &err);
        check_assignment(&sc, &order, alignment, total);
        uint64_t bound = mem_bound(sc.lives, sc.n, alignment);
        CHECK(bound == bound_by_steps(&sc, alignment), "bound %llu, by steps %llu",
              (unsigned long long)bound, (unsigned long long)bound_by_steps(&sc, alignment));
        CHECK(total >= bound, "total %llu under the bound %llu", (unsigned long long)total,
              (unsigned long long)bound);
    }
}

/* One chunk, random intervals of one size: first fit in start order is optimal on
 * interval graphs, so the total is the bound. */
static void test_equal_sizes_reach_bound(void)
{
    uint64_t seed = 777;
    for (int round = 0; round < 500; round++) {
        scenario sc;
        make_scenario(&sc, &seed, 1);
        for (int i = 0; i < sc.n; i++) { /* all on chunk 0, random intervals */
            mem_life *l = &sc.lives[i];
            int a = rand_below(&seed, 20), b = rand_below(&seed, 20);
            *l = (mem_life){.size = 48,
                            .first_chunk = 0,
                            .last_chunk = 0,
                            .first_pos = a < b ? a : b,
                            .last_pos = a < b ? b : a,
                            .chunks = sc.chunk_lists[i],
                            .n_chunks = 1};
            l->first_step = l->first_pos;
            l->last_step = l->last_pos;
            sc.chunk_lists[i][0] = 0;
        }
        sc.n_chunks = 1;
        sc.nodes[0] = 20;
        mem_order order = {.n_chunks = 1, .serial = true};
        uint64_t total = 0;
        vkml_error err = {0};
        CHECK_OK(mem_assign(sc.lives, sc.n, &order, 16, &total, &err), &err);
        check_assignment(&sc, &order, 16, total);
        CHECK(total == bound_by_steps(&sc, 16), "equal sizes: total %llu, bound %llu",
              (unsigned long long)total, (unsigned long long)bound_by_steps(&sc, 16));
    }
}

/* A chain v0 -> v1 -> ... (node i reads v[i], writes v[i+1]) of sizes 100, 40, 100, 40:
 * the bound 140 is reached: every 100 at 0, every 40 above. */
static void test_chain(void)
{
    mem_life lives[9];
    int zero = 0;
    for (int i = 0; i < 9; i++)
        lives[i] = (mem_life){.size = i % 2 ? 40 : 100,
                              .first_pos = i > 0 ? i - 1 : 0,
                              .last_pos = i,
                              .chunks = &zero,
                              .n_chunks = 1};
    for (int i = 0; i < 9; i++) {
        lives[i].first_step = lives[i].first_pos;
        lives[i].last_step = lives[i].last_pos;
    }
    mem_order order = {.n_chunks = 1};
    uint64_t total = 0;
    vkml_error err = {0};
    CHECK_OK(mem_assign(lives, 9, &order, 4, &total, &err), &err);
    CHECK(total == 140 && mem_bound(lives, 9, 4) == 140, "chain: total %llu, bound %llu",
          (unsigned long long)total, (unsigned long long)mem_bound(lives, 9, 4));
    for (int i = 0; i < 9; i++)
        CHECK(lives[i].offset == (i % 2 ? 100u : 0u), "chain value %d at %llu", i,
              (unsigned long long)lives[i].offset);
}

/* Values of different chunks: x only in chunk 0, y only in chunk 1, z in chunks 0 and 2. */
static void test_chunks(void)
{
    int c0[1] = {0}, c1[1] = {1}, c02[2] = {0, 2};
    mem_life x = {.size = 64, .first_chunk = 0, .last_chunk = 0, .chunks = c0, .n_chunks = 1};
    mem_life y = {.size = 64, .first_chunk = 1, .last_chunk = 1, .chunks = c1, .n_chunks = 1};
    mem_life z = {.size = 64, .first_chunk = 0, .last_chunk = 2, .chunks = c02, .n_chunks = 2};
    uint8_t none[9] = {0}, chain[9] = {0, 1, 1, 0, 0, 1, 0, 0, 0}; /* 0 -> 1 -> 2 */
    mem_order serial = {.before = none, .n_chunks = 3, .serial = true};
    mem_order concurrent = {.before = none, .n_chunks = 3, .serial = false};
    mem_order ordered = {.before = chain, .n_chunks = 3, .serial = false};
    CHECK(mem_lives_disjoint(&x, &y, &serial), "one queue: chunks 0 and 1 never overlap");
    CHECK(!mem_lives_disjoint(&x, &y, &concurrent), "unordered chunks may run at once");
    CHECK(mem_lives_disjoint(&x, &y, &ordered), "chunk 0 ends before chunk 1 starts");
    /* z spans chunks 0 to 2: chunk 1 may run in between unless ordered after 2. */
    CHECK(!mem_lives_disjoint(&y, &z, &serial), "chunk 1 may run between z's chunks");
    CHECK(!mem_lives_disjoint(&y, &z, &ordered), "chunk 1 runs between z's chunks");
    z.first_pos = 3; /* x's life in chunk 0 ends (pos 0) before z begins there */
    CHECK(mem_lives_disjoint(&x, &z, &ordered) && mem_lives_disjoint(&x, &z, &concurrent),
          "x ends before z starts in chunk 0");
    x.last_pos = 3;
    CHECK(!mem_lives_disjoint(&x, &z, &serial), "x and z both live at chunk 0 position 3");
}

int main(void)
{
    test_random();
    test_equal_sizes_reach_bound();
    test_chain();
    test_chunks();
    return test_finish("mem_plan");
}
