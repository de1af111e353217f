/* Plan-time fusion of elementwise groups (passes/fuse_eltwise.c): random chains (random ops,
 * random broadcast shapes of the side operands, lengths 1 to 50, SiLU diamonds) give the
 * same outputs fused and unfused, on the CPU (bit for bit: the interpreter runs the same
 * block math) and on every Vulkan device (within 1e-4 relative: one fused kernel may contract
 * a * b + c into an fma where two dispatches round in between); a chain of 1,000 Adds is one
 * node (one dispatch) and gives the sum computed here; mnist-8 fuses its two Add -> Relu
 * pairs and answers as unfused; values read outside a group or that are graph outputs stay
 * unfused; a model may not contain the planner's FusedElementwise.
 * On Vulkan devices every random chain also runs through the interpreter kernel
 * (VKML_FUSED_INTERPRETER=1) besides its generated shader (vk_fused_gen.h): the two agree
 * within GEN_ULPS (same formulas, fused_apply.glsl; most elements bit for bit), each group
 * is compiled once and a second session of the same model finds its pipeline in the
 * device's cache and gives the same bits. */
#include "plan/plan.h"
#include "test_graph.h"
#include "vulkan/vk_fused_gen.h"

#include <math.h>
#include <stdlib.h>

#define MAX_CHAIN 50
#define OUT_RANK 3
static const int64_t out_dims[OUT_RANK] = {5, 7, 11};
#define OUT_COUNT (5 * 7 * 11)

typedef struct unary_op {
    const char *name;
    int opset;
} unary_op;

static const unary_op unary_ops[] = {
    {"Relu", 14},       {"Sigmoid", 13},   {"Tanh", 13},      {"Abs", 13},
    {"Neg", 13},        {"Erf", 13},       {"Softsign", 1},   {"Softplus", 1},
    {"HardSigmoid", 6}, {"HardSwish", 14}, {"LeakyRelu", 16}, {"Elu", 6},
    {"Selu", 6},        {"Celu", 12},      {"Gelu", 20},      {"Mish", 18},
};
static const char *const binary_ops[] = {"Add", "Sub", "Mul", "Div", "Max", "Min", "PRelu", "Pow"};

/* A side operand: a constant of a random broadcast shape of the output, or input b. */
static int side_operand(graph *g, int b, const char *op, int step, uint64_t *seed)
{
    if (b >= 0 && test_randf(seed, 0, 1) < 0.3f && strcmp(op, "Pow") != 0 && strcmp(op, "Div") != 0)
        return b;
    int rank = (int)test_randf(seed, 0, OUT_RANK + 1);
    int64_t dims[OUT_RANK];
    for (int d = 0; d < rank; d++)
        dims[d] = test_randf(seed, 0, 1) < 0.5f ? 1 : out_dims[OUT_RANK - rank + d];
    char name[32];
    snprintf(name, sizeof(name), "c%d", step);
    if (strcmp(op, "Pow") == 0) { /* integral exponents: defined for negative bases */
        int v = tg_random_constant(g, name, rank, dims, 0, 1, seed);
        float *data = (float *)g->values[v].data;
        for (size_t i = 0; i < g->values[v].data_size / sizeof(float); i++)
            data[i] = data[i] < 0.5f ? 1.0f : 2.0f;
        return v;
    }
    bool divisor = strcmp(op, "Div") == 0;
    return tg_random_constant(g, name, rank, dims, divisor ? 0.5f : -1.5f, divisor ? 2.0f : 1.5f,
                              seed);
}

/* Clip(x, -0.5, 0.8) with its bounds as constant inputs (opset 13). */
static void clip_node(graph *g, int in, int out, int step)
{
    char name[32];
    snprintf(name, sizeof(name), "clip%d", step);
    int n = graph_add_node(g, name, "Clip", "", 3, 1, 0);
    float *lo = vkml_arena_calloc(g->arena, 2, sizeof(float));
    lo[0] = -0.5f, lo[1] = 0.8f;
    for (int k = 0; k < 2; k++) {
        snprintf(name, sizeof(name), "clip%d_%d", step, k);
        int v = tg_value(g, name, VKML_DTYPE_FLOAT, 0, NULL);
        g->values[v].kind = GRAPH_VALUE_CONSTANT;
        g->values[v].data = &lo[k];
        g->values[v].data_size = sizeof(float);
        g->nodes[n].inputs[1 + k] = v;
    }
    g->nodes[n].inputs[0] = in;
    g->nodes[n].outputs[0] = out;
    g->nodes[n].opset = 13;
}

/* Cast to float of a float: an identity member. */
static void cast_node(graph *g, int in, int out, int step)
{
    char name[32];
    snprintf(name, sizeof(name), "cast%d", step);
    int n = graph_add_node(g, name, "Cast", "", 1, 1, 1);
    g->nodes[n].attrs[0] = (graph_attr){.name = "to", .type = GRAPH_ATTR_INT, .i = 1};
    g->nodes[n].inputs[0] = in;
    g->nodes[n].outputs[0] = out;
    g->nodes[n].opset = 13;
}

/* One random step from prev into a new value; returns it and adds its node count. */
static int random_step(graph *g, int prev, int b, int step, int room, int *n_nodes, uint64_t *seed)
{
    char name[32];
    snprintf(name, sizeof(name), "t%d", step);
    int y = tg_value(g, name, VKML_DTYPE_FLOAT, OUT_RANK, out_dims);
    float pick = test_randf(seed, 0, 1);
    if (pick < 0.08f && room >= 2) { /* SiLU: prev * Sigmoid(prev), prev read twice */
        snprintf(name, sizeof(name), "s%d", step);
        int sig = tg_value(g, name, VKML_DTYPE_FLOAT, OUT_RANK, out_dims);
        tg_node(g, name, "Sigmoid", prev, -1, sig, 13);
        snprintf(name, sizeof(name), "silu%d", step);
        tg_node(g, name, "Mul", prev, sig, y, 14);
        *n_nodes += 2;
        return y;
    }
    *n_nodes += 1;
    if (pick < 0.12f) {
        clip_node(g, prev, y, step);
    } else if (pick < 0.15f) {
        cast_node(g, prev, y, step);
    } else if (pick < 0.55f) {
        const unary_op *u = &unary_ops[(int)test_randf(seed, 0, VKML_ARRAY_SIZE(unary_ops))];
        tg_node(g, name, u->name, prev, -1, y, u->opset);
    } else {
        const char *op = binary_ops[(int)test_randf(seed, 0, VKML_ARRAY_SIZE(binary_ops))];
        int side = side_operand(g, b, op, step, seed);
        bool side_first =
            strcmp(op, "PRelu") != 0 && strcmp(op, "Pow") != 0 && test_randf(seed, 0, 1) < 0.3f;
        tg_node(g, name, op, side_first ? side : prev, side_first ? prev : side, y,
                strcmp(op, "PRelu") == 0 ? 16
                : strcmp(op, "Pow") == 0 ? 15
                                         : 14);
    }
    return y;
}

/* A chain of `length` nodes from input x (and maybe input b); *n_nodes the nodes made. */
static vkml_model *random_chain(int length, uint64_t *seed, int *n_nodes, int64_t *b_dims,
                                int *b_rank)
{
    graph *g = graph_create();
    int x = tg_value(g, "x", VKML_DTYPE_FLOAT, OUT_RANK, out_dims);
    *b_rank = 1 + (int)test_randf(seed, 0, OUT_RANK);
    for (int d = 0; d < *b_rank; d++)
        b_dims[d] = test_randf(seed, 0, 1) < 0.5f ? 1 : out_dims[OUT_RANK - *b_rank + d];
    int b = tg_value(g, "b", VKML_DTYPE_FLOAT, *b_rank, b_dims);
    int prev = x;
    *n_nodes = 0;
    for (int step = 0; *n_nodes < length; step++)
        prev = random_step(g, prev, b, step, length - *n_nodes, n_nodes, seed);
    return tg_model(g, (int[]){x, b}, 2, &prev, 1, 20);
}

/* Runs the model (inputs x, b of random data from input_seed) into out[OUT_COUNT]; returns
 * the session (the caller destroys it). */
static vkml_session *run_chain(vkml_context *ctx, vkml_model *model, int device, bool no_fuse,
                               const int64_t *b_dims, int b_rank, uint64_t input_seed, float *out)
{
    vkml_error err = {0};
    vkml_session *s = NULL;
    vkml_session_params params = {.device = device, .no_fuse = no_fuse};
    CHECK_OK(vkml_session_create(ctx, model, &params, &s, &err), &err);
    if (!s)
        return NULL;
    float x[OUT_COUNT], b[OUT_COUNT];
    for (int i = 0; i < OUT_COUNT; i++) {
        x[i] = test_randf(&input_seed, -2, 2);
        b[i] = test_randf(&input_seed, -2, 2);
    }
    vkml_tensor in[2] = {
        {.dtype = VKML_DTYPE_FLOAT, .rank = OUT_RANK, .data = x, .size = sizeof(x)},
        {.dtype = VKML_DTYPE_FLOAT,
         .rank = b_rank,
         .data = b,
         .size = sizeof(float) * vkml_tensor_element_count(b_rank, b_dims)},
    };
    memcpy(in[0].dims, out_dims, sizeof(out_dims));
    memcpy(in[1].dims, b_dims, sizeof(int64_t) * (size_t)b_rank);
    vkml_tensor y = {.dtype = VKML_DTYPE_FLOAT,
                     .rank = OUT_RANK,
                     .data = out,
                     .size = sizeof(float) * OUT_COUNT};
    memcpy(y.dims, out_dims, sizeof(out_dims));
    for (int i = 0; i < OUT_COUNT; i++)
        out[i] = -12345.0f; /* poison: every element must be written */
    CHECK_OK(vkml_session_run(s, in, 2, &y, 1, &err), &err);
    return s;
}

/* a and b agree: both NaN, equal (infinities included), or within rel * max(1, |b|). */
static bool close_enough(float a, float b, float rel)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    if (isinf(a) || isinf(b))
        return a == b;
    return fabsf(a - b) <= rel * fmaxf(1.0f, fabsf(b));
}

/* The fused plan: one group of all n_nodes (n_nodes >= 2), or none. */
static void check_fused_plan(const vkml_session *s, int n_nodes, int length, int device)
{
    size_t want = n_nodes >= 2 ? 1 : 0;
    CHECK(vkml_session_plan_fused_count(s) == want, "device %d, length %d: %zu fused groups",
          device, length, vkml_session_plan_fused_count(s));
    vkml_plan_fused f;
    if (want && vkml_session_plan_fused(s, 0, &f))
        CHECK(f.n_nodes == (size_t)n_nodes && f.device == device && f.ops && f.ops[0],
              "device %d: the group has %zu of %d nodes on device %d", device, f.n_nodes, n_nodes,
              f.device);
    vkml_plan_part part;
    CHECK(vkml_session_plan_part(s, 0, &part) && part.n_nodes == (want ? 1 : (size_t)n_nodes) &&
              part.n_fused == want && part.n_fused_nodes == (want ? (size_t)n_nodes : 0),
          "device %d: part of %zu nodes, %zu fused of %zu", device, part.n_nodes, part.n_fused,
          part.n_fused_nodes);
}

/* How far the generated shader may be from the interpreter: the driver may still contract
 * or reorder inside an op's helpers (erf, tanh, ...) differently once they are inlined into
 * straight-line code with constant parameters, and the differences add up along a chain
 * (seen: at most 4 ulp on lavapipe; 18 ulp over a 27-node chain on the H200): GEN_ULPS,
 * plus GEN_ULPS_PER_NODE for each node of the group. */
#define GEN_ULPS 8
#define GEN_ULPS_PER_NODE 2

/* Distance in units in the last place between two finite floats (of the same sign). */
static uint32_t ulps_apart(float a, float b)
{
    int32_t ia, ib;
    memcpy(&ia, &a, sizeof(ia));
    memcpy(&ib, &b, sizeof(ib));
    if ((ia < 0) != (ib < 0))
        return a == b ? 0 : UINT32_MAX; /* +0 and -0 */
    return ia > ib ? (uint32_t)(ia - ib) : (uint32_t)(ib - ia);
}

/* The chain's fused group ran its generated shader (compiled or cached: one group when
 * n_nodes >= 2), which gave `fused`; the interpreter gives the same bits; a second session
 * of the model compiles nothing. */
static void check_generated(vkml_context *ctx, vkml_model *model, int device, int n_nodes,
                            const int64_t *b_dims, int b_rank, uint64_t input_seed,
                            const float *fused, int c)
{
    static vk_fused_gen_stats last; /* after the previous chain's sessions */
    vk_fused_gen_stats st, st2;
    vk_fused_gen_stats_get(&st);
    long groups = n_nodes >= 2 ? 1 : 0;
    bool gen = vk_fused_gen_available();
    if (c > 0) /* `last` is of the previous chain on this device */
        CHECK(st.compiled + st.cached - last.compiled - last.cached == (gen ? groups : 0) &&
                  st.interpreted == last.interpreted,
              "device %d, chain %d: %ld compiled, %ld cached, %ld interpreted", device, c,
              st.compiled - last.compiled, st.cached - last.cached,
              st.interpreted - last.interpreted);
    float interp[OUT_COUNT], again[OUT_COUNT];
    setenv("VKML_FUSED_INTERPRETER", "1", 1);
    vkml_session *si = run_chain(ctx, model, device, false, b_dims, b_rank, input_seed, interp);
    unsetenv("VKML_FUSED_INTERPRETER");
    vkml_session *s2 = run_chain(ctx, model, device, false, b_dims, b_rank, input_seed, again);
    vk_fused_gen_stats_get(&st2);
    CHECK(st2.interpreted - st.interpreted == (gen ? groups : 2 * groups) &&
              st2.compiled == st.compiled && st2.cached - st.cached == (gen ? groups : 0),
          "device %d, chain %d: second session compiled %ld, cached %ld", device, c,
          st2.compiled - st.compiled, st2.cached - st.cached);
    int bad = 0;
    for (int i = 0; i < OUT_COUNT; i++) {
        bool same =
            (isnan(fused[i]) && isnan(interp[i])) ||
            ulps_apart(fused[i], interp[i]) <= GEN_ULPS + GEN_ULPS_PER_NODE * (uint32_t)n_nodes;
        if ((!same || memcmp(&fused[i], &again[i], sizeof(float)) != 0) && bad++ < 3)
            CHECK(false,
                  "device %d, chain %d (%d nodes): element %d generated %a, interpreter %a, "
                  "second session %a",
                  device, c, n_nodes, i, (double)fused[i], (double)interp[i], (double)again[i]);
    }
    vkml_session_destroy(&si);
    vkml_session_destroy(&s2);
    vk_fused_gen_stats_get(&last);
}

static void test_random_chains(vkml_context *ctx, int device, int n_chains)
{
    uint64_t seed = 0x5eed0000u + (uint64_t)(device + 2);
    float fused[OUT_COUNT], plain[OUT_COUNT];
    float rel = device == VKML_DEVICE_CPU ? 0.0f : 1e-4f;
    for (int c = 0; c < n_chains; c++) {
        int length = 1 + c % MAX_CHAIN, n_nodes, b_rank;
        int64_t b_dims[OUT_RANK];
        vkml_model *model = random_chain(length, &seed, &n_nodes, b_dims, &b_rank);
        if (!model)
            return;
        uint64_t input_seed = seed ^ 0x1234u;
        vkml_session *a = run_chain(ctx, model, device, false, b_dims, b_rank, input_seed, fused);
        vkml_session *u = run_chain(ctx, model, device, true, b_dims, b_rank, input_seed, plain);
        if (a)
            check_fused_plan(a, n_nodes, length, device);
        if (u)
            CHECK(vkml_session_plan_fused_count(u) == 0, "no_fuse: nothing fused");
        if (device != VKML_DEVICE_CPU)
            check_generated(ctx, model, device, n_nodes, b_dims, b_rank, input_seed, fused, c);
        int bad = 0;
        for (int i = 0; i < OUT_COUNT; i++)
            if (!close_enough(fused[i], plain[i], rel) && bad++ < 3)
                CHECK(false, "device %d, chain %d (%d nodes): element %d fused %g, unfused %g",
                      device, c, n_nodes, i, (double)fused[i], (double)plain[i]);
        vkml_session_destroy(&a);
        vkml_session_destroy(&u);
        vkml_model_destroy(&model);
    }
}

/* y = x + c_0 + c_1 + ... + c_999, the c_k alternately scalars and a vector [11]. */
static void test_thousand_adds(vkml_context *ctx, int device)
{
    enum { K = 1000 };
    uint64_t seed = 99;
    graph *g = graph_create();
    int x = tg_value(g, "x", VKML_DTYPE_FLOAT, OUT_RANK, out_dims);
    int vec = tg_random_constant(g, "vec", 1, (int64_t[]){11}, -1, 1, &seed);
    const float *vec_data = g->values[vec].data;
    float scalars_sum = 0;
    int prev = x;
    for (int k = 0; k < K; k++) {
        char name[32];
        int side = vec;
        if (k % 2 == 0) {
            snprintf(name, sizeof(name), "c%d", k);
            side = tg_random_constant(g, name, 0, NULL, -1, 1, &seed);
            scalars_sum += *(const float *)g->values[side].data;
        }
        snprintf(name, sizeof(name), "y%d", k);
        int y = tg_value(g, name, VKML_DTYPE_FLOAT, OUT_RANK, out_dims);
        tg_node(g, name, "Add", prev, side, y, 14);
        prev = y;
    }
    vkml_model *model = tg_model(g, &x, 1, &prev, 1, 14);
    if (!model)
        return;
    vkml_error err = {0};
    vkml_session *s = NULL;
    vkml_session_params params = {.device = device};
    CHECK_OK(vkml_session_create(ctx, model, &params, &s, &err), &err);
    if (s) {
        const plan *p = session_plan(s);
        CHECK(p->n_chunks == 1 && p->chunks[0].n_nodes == 1 &&
                  p->graph->nodes[p->chunks[0].nodes[0]].op->id == OP_ID_FusedElementwise,
              "device %d: 1,000 Adds are one fused node in one chunk (%d chunks, %d nodes)", device,
              p->n_chunks, p->n_chunks ? p->chunks[0].n_nodes : 0);
        float in[OUT_COUNT], out[OUT_COUNT];
        for (int i = 0; i < OUT_COUNT; i++)
            in[i] = test_randf(&seed, -1, 1);
        vkml_tensor ti = {
            .dtype = VKML_DTYPE_FLOAT, .rank = OUT_RANK, .data = in, .size = sizeof(in)};
        vkml_tensor to = {
            .dtype = VKML_DTYPE_FLOAT, .rank = OUT_RANK, .data = out, .size = sizeof(out)};
        memcpy(ti.dims, out_dims, sizeof(out_dims));
        memcpy(to.dims, out_dims, sizeof(out_dims));
        CHECK_OK(vkml_session_run(s, &ti, 1, &to, 1, &err), &err);
        int bad = 0;
        for (int i = 0; i < OUT_COUNT; i++) {
            /* summed in double here; float rounding over 1,000 adds stays under 1e-3 */
            double want = (double)in[i] + scalars_sum + (K / 2) * (double)vec_data[i % 11];
            if (fabs(out[i] - want) > 1e-3 * fmax(1.0, fabs(want)) && bad++ < 3)
                CHECK(false, "device %d: element %d is %g, want %g", device, i, (double)out[i],
                      want);
        }
    }
    vkml_session_destroy(&s);
    vkml_model_destroy(&model);
}

/* Values that leave the group (a graph output, a second reader) keep their nodes apart. */
static void test_boundaries(vkml_context *ctx, int device)
{
    graph *g = graph_create();
    int64_t dims[1] = {4};
    int x = tg_value(g, "x", VKML_DTYPE_FLOAT, 1, dims);
    int r = tg_value(g, "r", VKML_DTYPE_FLOAT, 1, dims);
    int s1 = tg_value(g, "s1", VKML_DTYPE_FLOAT, 1, dims);
    int s2 = tg_value(g, "s2", VKML_DTYPE_FLOAT, 1, dims);
    int t = tg_value(g, "t", VKML_DTYPE_FLOAT, 1, dims);
    tg_node(g, "relu", "Relu", x, -1, r, 14);    /* r: a graph output */
    tg_node(g, "sig", "Sigmoid", r, -1, s1, 13); /* s1 read by two nodes */
    tg_node(g, "neg", "Neg", s1, -1, s2, 13);
    tg_node(g, "tanh", "Tanh", s1, -1, t, 13);
    vkml_model *model = tg_model(g, &x, 1, (int[]){r, s2, t}, 3, 14);
    vkml_error err = {0};
    vkml_session *s = NULL;
    vkml_session_params params = {.device = device};
    CHECK_OK(vkml_session_create(ctx, model, &params, &s, &err), &err);
    if (s) {
        CHECK(vkml_session_plan_fused_count(s) == 0, "device %d: %zu groups across boundaries",
              device, vkml_session_plan_fused_count(s));
        float in[4] = {-1, 0.5f, 2, -3}, out[3][4];
        vkml_tensor ti = {
            .dtype = VKML_DTYPE_FLOAT, .rank = 1, .dims = {4}, .data = in, .size = sizeof(in)};
        vkml_tensor to[3];
        for (int o = 0; o < 3; o++)
            to[o] = (vkml_tensor){.dtype = VKML_DTYPE_FLOAT,
                                  .rank = 1,
                                  .dims = {4},
                                  .data = out[o],
                                  .size = sizeof(out[o])};
        CHECK_OK(vkml_session_run(s, &ti, 1, to, 3, &err), &err);
        for (int i = 0; i < 4; i++) {
            float relu = in[i] > 0 ? in[i] : 0, sig = 1 / (1 + expf(-relu));
            CHECK(fabsf(out[0][i] - relu) < 1e-6f && fabsf(out[1][i] + sig) < 1e-6f &&
                      fabsf(out[2][i] - tanhf(sig)) < 1e-6f,
                  "device %d: element %d", device, i);
        }
    }
    vkml_session_destroy(&s);
    vkml_model_destroy(&model);
}

/* mnist-8: its Add -> Relu pairs leave no elementwise group (the per-channel Adds fold into
 * the Convs' biases at load, the Relus become their epilogues); the scores match the
 * unfused run, on the CPU exactly. */
static void test_mnist(vkml_context *ctx, int device)
{
    char path[1024];
    vkml_model_params mp = {.path =
                                test_corpus_path(path, sizeof(path), "models/mnist-8/model.onnx")};
    vkml_model *model = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_model_load(&mp, &model, &err), &err);
    if (!model)
        return;
    float in[28 * 28], out[2][10];
    uint64_t seed = 3;
    for (int i = 0; i < 28 * 28; i++)
        in[i] = test_randf(&seed, 0, 255);
    vkml_tensor ti = {.dtype = VKML_DTYPE_FLOAT,
                      .rank = 4,
                      .dims = {1, 1, 28, 28},
                      .data = in,
                      .size = sizeof(in)};
    for (int f = 0; f < 2; f++) {
        vkml_session *s = NULL;
        vkml_session_params params = {.device = device, .no_fuse = f == 1};
        CHECK_OK(vkml_session_create(ctx, model, &params, &s, &err), &err);
        if (!s)
            continue;
        CHECK(vkml_session_plan_fused_count(s) == 0, "device %d: mnist-8 has %zu fused groups",
              device, vkml_session_plan_fused_count(s));
        vkml_tensor to = {.dtype = VKML_DTYPE_FLOAT,
                          .rank = 2,
                          .dims = {1, 10},
                          .data = out[f],
                          .size = sizeof(out[f])};
        CHECK_OK(vkml_session_run(s, &ti, 1, &to, 1, &err), &err);
        vkml_session_destroy(&s);
    }
    for (int i = 0; i < 10; i++)
        CHECK(close_enough(out[0][i], out[1][i], device == VKML_DEVICE_CPU ? 0.0f : 1e-4f),
              "device %d: mnist-8 score %d fused %g, unfused %g", device, i, (double)out[0][i],
              (double)out[1][i]);
    vkml_model_destroy(&model);
}

/* The planner's op is refused in a model, by name. */
static void test_refused_in_models(void)
{
    graph *g = graph_create();
    int x = tg_value(g, "x", VKML_DTYPE_FLOAT, 1, (int64_t[]){4});
    int y = tg_value(g, "y", VKML_DTYPE_FLOAT, 1, (int64_t[]){4});
    int n = graph_add_node(g, "f", "FusedElementwise", "vkml.internal", 2, 1, 0);
    g->nodes[n].inputs[0] = x;
    g->nodes[n].inputs[1] = x;
    g->nodes[n].outputs[0] = y;
    g->nodes[n].opset = 1;
    g->values[x].kind = GRAPH_VALUE_INPUT;
    g->inputs = vkml_arena_calloc(g->arena, 1, sizeof(int));
    g->inputs[g->n_inputs++] = x;
    g->outputs = vkml_arena_calloc(g->arena, 1, sizeof(int));
    g->outputs[g->n_outputs++] = y;
    g->values[y].is_output = true;
    vkml_error err = {0};
    vkml_model *model = NULL;
    CHECK_OK(graph_sort(g, &err), &err);
    vkml_status st = model_from_graph(g, &model, &err);
    CHECK(st == VKML_ERROR_INVALID_MODEL && strstr(err.message, "FusedElementwise"),
          "a model's FusedElementwise: %s (%s)", vkml_status_name(st), err.message);
    vkml_model_destroy(&model); /* NULL when refused: model_from_graph freed the graph */
}

int main(void)
{
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    test_refused_in_models();
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    if (!ctx)
        return test_finish("test_fuse_eltwise");
    test_random_chains(ctx, VKML_DEVICE_CPU, 2 * MAX_CHAIN);
    test_thousand_adds(ctx, VKML_DEVICE_CPU);
    test_boundaries(ctx, VKML_DEVICE_CPU);
    test_mnist(ctx, VKML_DEVICE_CPU);
    test_require_vulkan(ctx);
    const char *ci = getenv("CI");
    CHECK(vk_fused_gen_available() || !ci || strcmp(ci, "true") != 0,
          "CI: vkml built without libshaderc (.ci/deps.sh installs libshaderc-dev)");
    TEST_FOR_EACH_GPU(t, ctx) {
        test_random_chains(ctx, t.device, MAX_CHAIN);
        test_thousand_adds(ctx, t.device);
        test_boundaries(ctx, t.device);
        test_mnist(ctx, t.device);
    }
    vkml_context_destroy(&ctx);
    return test_finish("test_fuse_eltwise");
}
