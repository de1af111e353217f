/* Random graphs over random device splits: 40 random DAGs of elementwise ops (and CumSum,
 * which only the CPU runs, so CPU chunks fall between GPU ones), planned over 3 logical
 * lavapipe devices with budgets that split them, run with 1 to 3 runs in flight from two
 * threads at once (a session each), give the CPU device's answer for every run. Under
 * TSan in CI: the scheduler's counts, the lanes and the transfers race-free. */
#include "plan/plan.h"
#include "test_graph.h"

#include <math.h>
#include <pthread.h>

#define N 64 /* elements per value */
#define GRAPHS 40
#define RUNS 6

static int add_value(graph *g, const char *name)
{
    return tg_value(g, name, VKML_DTYPE_FLOAT, 1, (int64_t[]){N});
}

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Inputs A, B; `n_nodes` nodes each reading one or two earlier values; the last node and
 * one random other value are the outputs. */
static vkml_model *random_graph(uint64_t seed, int n_nodes)
{
    static const char *unary[] = {"Relu", "Neg", "Sigmoid", "Tanh", "Abs", "CumSum"};
    static const char *binary[] = {"Add", "Mul", "Sub", "Max"};
    graph *g = graph_create();
    int ids[80], n = 0;
    char name[32];
    for (int i = 0; i < 2; i++) {
        snprintf(name, sizeof(name), "in%d", i);
        ids[n++] = add_value(g, name);
    }
    int axis = graph_add_value(g, "axis");
    int64_t *zero = vkml_arena_calloc(g->arena, 1, sizeof(int64_t));
    g->values[axis].dtype = VKML_DTYPE_INT64;
    g->values[axis].rank = 0;
    g->values[axis].kind = GRAPH_VALUE_CONSTANT;
    g->values[axis].data = zero;
    g->values[axis].data_size = sizeof(int64_t);
    for (int k = 0; k < n_nodes; k++) {
        snprintf(name, sizeof(name), "v%d", k);
        int out = add_value(g, name);
        int a = ids[n - 1 - (int)(next(&seed) % (uint64_t)(n < 6 ? n : 6))];
        int b = ids[next(&seed) % (uint64_t)n];
        bool two = next(&seed) % 2;
        const char *op = two ? binary[next(&seed) % 4] : unary[next(&seed) % 6];
        bool cumsum = strcmp(op, "CumSum") == 0;
        tg_node(g, name, op, a, cumsum ? axis : two ? b : -1, out, 14);
        ids[n++] = out;
    }
    int other = ids[2 + next(&seed) % (uint64_t)(n - 3)];
    return tg_model(g, ids, 2, (int[]){ids[n - 1], other}, 2, 14);
}

typedef struct job {
    vkml_context *ctx;
    vkml_model *model;
    const vkml_session_params *params;
    const float (*in)[2][N];
    float (*want)[2][N]; /* per run: the CPU's outputs */
    int failures;
    char what[96];
} job;

static void *run_job(void *arg)
{
    job *j = arg;
    vkml_error err = {0};
    vkml_session *s = NULL;
    if (vkml_session_create(j->ctx, j->model, j->params, &s, &err) != VKML_OK) {
        fprintf(stderr, "%s: session: %s\n", j->what, err.message);
        j->failures++;
        return NULL;
    }
    static _Thread_local float got[RUNS][2][N];
    vkml_tensor ins[RUNS][2], outs[RUNS][2];
    vkml_run *runs[RUNS] = {0};
    for (int r = 0; r < RUNS; r++) {
        for (int i = 0; i < 2; i++) {
            ins[r][i] = (vkml_tensor){.dtype = VKML_DTYPE_FLOAT,
                                      .rank = 1,
                                      .dims = {N},
                                      .data = (void *)j->in[r][i],
                                      .size = sizeof(float) * N};
            outs[r][i] = (vkml_tensor){.dtype = VKML_DTYPE_FLOAT,
                                       .rank = 1,
                                       .dims = {N},
                                       .data = got[r][i],
                                       .size = sizeof(float) * N};
        }
        if (vkml_session_submit(s, ins[r], 2, outs[r], 2, NULL, NULL, &runs[r], &err) != VKML_OK)
            j->failures++;
    }
    for (int r = 0; r < RUNS; r++) {
        if (runs[r] && vkml_run_wait(&runs[r], &err) != VKML_OK)
            j->failures++;
        for (int i = 0; i < 2; i++)
            for (int e = 0; e < N; e++) {
                double w = j->want[r][i][e], d = fabs((double)got[r][i][e] - w);
                if (!(d <= 1e-5 * (1 + fabs(w)))) {
                    if (j->failures++ == 0)
                        fprintf(stderr, "%s: run %d output %d [%d]: %g, the CPU says %g\n", j->what,
                                r, i, e, (double)got[r][i][e], w);
                    break;
                }
            }
    }
    vkml_session_destroy(&s);
    return NULL;
}

int main(void)
{
    vkml_context_params cp = {.logical_devices_per_gpu = 3};
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(&cp, &ctx, &err), &err);
    test_require_vulkan(ctx);
    int n_gpus = vkml_context_device_count(ctx);
    int all[VKML_MAX_SESSION_DEVICES];
    size_t n_all = 0;
    CHECK_OK(vkml_context_parse_devices(ctx, "all", all, VKML_MAX_SESSION_DEVICES, &n_all, &err),
             &err);
    static float in[RUNS][2][N], want[GRAPHS][RUNS][2][N];
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int r = 0; r < RUNS; r++)
        for (int i = 0; i < 2; i++)
            for (int e = 0; e < N; e++)
                in[r][i][e] = test_randf(&seed, -2, 2);
    int split = 0;
    for (int gi = 0; gi < GRAPHS; gi++) {
        vkml_model *model = random_graph(seed + (uint64_t)gi * 7919, 10 + gi % 30);
        vkml_session_params cpu = {.device = VKML_DEVICE_CPU};
        vkml_session *ref = NULL;
        CHECK_OK(vkml_session_create(ctx, model, &cpu, &ref, &err), &err);
        for (int r = 0; r < RUNS; r++) {
            vkml_tensor ins[2], outs[2];
            for (int i = 0; i < 2; i++) {
                ins[i] = (vkml_tensor){.dtype = VKML_DTYPE_FLOAT,
                                       .rank = 1,
                                       .dims = {N},
                                       .data = in[r][i],
                                       .size = sizeof(float) * N};
                outs[i] = (vkml_tensor){.dtype = VKML_DTYPE_FLOAT,
                                        .rank = 1,
                                        .dims = {N},
                                        .data = want[gi][r][i],
                                        .size = sizeof(float) * N};
            }
            CHECK_OK(vkml_session_run(ref, ins, 2, outs, 2, &err), &err);
        }
        vkml_session_destroy(&ref);
        /* A budget of a few live values per GPU: long graphs move from GPU to GPU. */
        uint64_t budget = (uint64_t)(4 + gi % 5) * N * sizeof(float);
        vkml_session_params params = {.devices = all,
                                      .n_devices = n_all,
                                      .device_budget = budget,
                                      .runs_in_flight = 1 + gi % 3};
        vkml_session *probe = NULL;
        vkml_status st = vkml_session_create(ctx, model, &params, &probe, &err);
        if (st == VKML_ERROR_OUT_OF_MEMORY) { /* too tight for this graph: no budget */
            params.device_budget = 0;
            st = vkml_session_create(ctx, model, &params, &probe, &err);
        }
        CHECK_OK(st, &err);
        split += vkml_session_plan_part_count(probe) > 1;
        vkml_session_destroy(&probe);
        /* Two sessions of the graph on two threads, runs in flight in each. */
        job jobs[2];
        pthread_t threads[2];
        for (int t = 0; t < 2; t++) {
            jobs[t] = (job){.ctx = ctx,
                            .model = model,
                            .params = &params,
                            .in = (const float(*)[2][N])in,
                            .want = want[gi]};
            snprintf(jobs[t].what, sizeof(jobs[t].what),
                     "graph %d (%d GPUs, budget %llu), thread %d", gi, n_gpus,
                     (unsigned long long)params.device_budget, t);
            CHECK(pthread_create(&threads[t], NULL, run_job, &jobs[t]) == 0, "thread");
        }
        for (int t = 0; t < 2; t++) {
            pthread_join(threads[t], NULL);
            CHECK(jobs[t].failures == 0, "%s: %d failures", jobs[t].what, jobs[t].failures);
        }
        vkml_model_destroy(&model);
    }
    CHECK(n_gpus < 2 || split >= GRAPHS / 4, "only %d of %d graphs split over devices", split,
          GRAPHS);
    printf("dag: %d of %d graphs split over %d devices\n", split, GRAPHS, n_gpus);
    vkml_context_destroy(&ctx);
    return test_finish("dag");
}
