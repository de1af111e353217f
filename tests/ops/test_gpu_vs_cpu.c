/*
 * Every Vulkan kernel against its CPU kernel (suite 'ops').
 *
 * Each case builds a small graph in code, runs it once through the op table's CPU kernels
 * and once through the Vulkan device class (one chunk, recorded once), on fresh random
 * data (seed printed; VKML_TEST_SEED reproduces a run) and odd shapes. GPU outputs are
 * poisoned with NaN before the run; the check is: no NaN/Inf, and the normalised max
 * error  max|gpu - cpu| / max(1, max|cpu|)  under the bound stated per case.
 */
#include "cpu/cpu_kernels.h"
#include "ops/op.h"
#include "cpu/cpu_device.h"
#include "passes/infer.h"
#include "vk_testutil.h"
#include "vulkan/vk_device.h"

#include <time.h>

#define MAX_VALUES 32

/* Bounds on the normalised max error. Elementwise ops and max pools are exact up to
 * rounding of one operation; sums (average pools, softmax) and dot products (conv,
 * matmul, gemm) are summed in another order on the GPU. */
#define BOUND_EXACT 1e-6
#define BOUND_TRANSCENDENTAL 1e-5
#define BOUND_SUM 1e-5
#define BOUND_DOT 1e-5

static uint64_t rng_state;
static device *gpu;

typedef struct test_graph {
    graph *g;
    float lo[MAX_VALUES], hi[MAX_VALUES]; /* random range per input/constant */
    bool no_alias;                        /* give OP_ALIAS outputs their own memory */
    bool expect_reuse; /* two intermediates with disjoint lives must share memory */
} test_graph;

static void tg_init(test_graph *t)
{
    memset(t, 0, sizeof(*t));
    t->g = graph_create();
}

static float *random_floats(graph *g, size_t n, float lo, float hi)
{
    float *p = vkml_arena_calloc(g->arena, n ? n : 1, sizeof(float));
    for (size_t i = 0; i < n; i++)
        p[i] = test_randf(&rng_state, lo, hi);
    return p;
}

/* A float input (or, constant, a float initializer with random data) in [lo, hi). */
static int tg_tensor(test_graph *t, const char *name, bool constant, int rank, const int64_t *dims,
                     float lo, float hi)
{
    int v = graph_add_value(t->g, name);
    graph_value *val = &t->g->values[v];
    val->kind = constant ? GRAPH_VALUE_CONSTANT : GRAPH_VALUE_INPUT;
    val->dtype = VKML_DTYPE_FLOAT;
    val->rank = rank;
    memcpy(val->dims, dims, (size_t)rank * sizeof(int64_t));
    t->lo[v] = lo;
    t->hi[v] = hi;
    if (constant) {
        size_t n = vkml_tensor_element_count(rank, dims);
        val->data = random_floats(t->g, n, lo, hi);
        val->data_size = n * sizeof(float);
    }
    return v;
}

static int tg_int64_constant(test_graph *t, const char *name, int n, const int64_t *data)
{
    int v = graph_add_value(t->g, name);
    graph_value *val = &t->g->values[v];
    val->kind = GRAPH_VALUE_CONSTANT;
    val->dtype = VKML_DTYPE_INT64;
    val->rank = 1;
    val->dims[0] = n;
    val->data = vkml_arena_memdup(t->g->arena, data, (size_t)n * sizeof(int64_t));
    val->data_size = (size_t)n * sizeof(int64_t);
    return v;
}

/* Adds a node with one new output value; returns the output value. */
static int tg_node(test_graph *t, const char *op, int opset, const int *in, int n_in, int n_attrs,
                   int *node_out)
{
    char name[64];
    int node = graph_add_node(t->g, op, op, "", n_in, 1, n_attrs);
    graph_node *n = &t->g->nodes[node];
    n->opset = opset;
    n->op = op_find("", op);
    memcpy(n->inputs, in, (size_t)n_in * sizeof(int));
    snprintf(name, sizeof(name), "%s_out%d", op, node);
    int out = graph_add_value(t->g, name);
    t->g->nodes[node].outputs[0] = out;
    *node_out = node;
    return out;
}

static graph_attr *tg_attr(test_graph *t, int node, int slot, const char *name)
{
    graph_attr *a = &t->g->nodes[node].attrs[slot];
    a->name = vkml_arena_strdup(t->g->arena, name);
    return a;
}

static void tg_ints(test_graph *t, int node, int slot, const char *name, int n, const int64_t *v)
{
    graph_attr *a = tg_attr(t, node, slot, name);
    a->type = GRAPH_ATTR_INTS;
    a->ints = vkml_arena_memdup(t->g->arena, v, (size_t)n * sizeof(int64_t));
    a->count = (size_t)n;
}

static void tg_int(test_graph *t, int node, int slot, const char *name, int64_t v)
{
    graph_attr *a = tg_attr(t, node, slot, name);
    a->type = GRAPH_ATTR_INT;
    a->i = v;
}

static void tg_float(test_graph *t, int node, int slot, const char *name, float v)
{
    graph_attr *a = tg_attr(t, node, slot, name);
    a->type = GRAPH_ATTR_FLOAT;
    a->f = v;
}

static size_t value_bytes(const graph_value *v)
{
    size_t b = 0;
    vkml_tensor_bytes(v->dtype, v->rank, v->dims, &b);
    return b;
}

/* Runs every node on the CPU; bufs[v] receives each value's bytes. */
static bool run_cpu(const graph *g, const graph_value *values, void **bufs)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node *n = &g->nodes[i];
        const void *in[8] = {0};
        void *out[4] = {0};
        for (int k = 0; k < n->n_inputs; k++)
            in[k] = n->inputs[k] >= 0 ? bufs[n->inputs[k]] : NULL;
        for (int k = 0; k < n->n_outputs; k++) {
            int v = n->outputs[k];
            bufs[v] = calloc(1, value_bytes(&values[v]) + 1);
            out[k] = bufs[v];
        }
        op_cpu_args args = {.values = values, .node = n, .in = in, .out = out};
        vkml_error err = {0};
        vkml_status st = cpu_run_node(&args, &err);
        CHECK(st == VKML_OK, "CPU kernel of %s: %s", n->op_type, err.message);
        if (st != VKML_OK)
            return false;
    }
    return true;
}

static void plan_values(const test_graph *t, const graph_value *values, device_value_plan *plans)
{
    const graph *g = t->g;
    for (int v = 0; v < g->n_values; v++) {
        plans[v] = (device_value_plan){.used = true, .alias_of = -1};
        plans[v].host_access = values[v].kind == GRAPH_VALUE_INPUT || values[v].is_output;
        if (values[v].kind == GRAPH_VALUE_CONSTANT)
            plans[v].constant = values[v].data;
    }
    for (int i = 0; i < g->n_nodes && !t->no_alias; i++) {
        const graph_node *n = &g->nodes[i];
        if (n->op->flags & OP_ALIAS)
            plans[n->outputs[0]].alias_of = n->inputs[0];
    }
}

/* Normalised max error of one output; also checks NaN/Inf. */
static double compare(const char *label, const graph_value *v, const float *cpu,
                      const float *gpu_out)
{
    size_t n = value_bytes(v) / sizeof(float);
    double max_err = 0, max_ref = 1;
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(gpu_out[i]) || !isfinite(cpu[i])) {
            if (bad++ == 0)
                fprintf(stderr, "%s: '%s'[%zu]: gpu %g cpu %g\n", label, v->name, i, gpu_out[i],
                        cpu[i]);
            continue;
        }
        double e = fabs((double)gpu_out[i] - cpu[i]);
        max_err = e > max_err ? e : max_err;
        max_ref = fabs(cpu[i]) > max_ref ? fabs(cpu[i]) : max_ref;
    }
    CHECK(bad == 0, "%s: %zu of %zu outputs of '%s' not finite", label, bad, n, v->name);
    return max_err / max_ref;
}

/* Device-only intermediates whose lives do not overlap share memory. Seen through the
 * host pointers, so only where device memory is mapped (lavapipe); elsewhere not checked. */
static void check_reuse(const char *label, const graph *g, const graph_value *values,
                        const device_value_plan *plans, device_session *ds)
{
    int shared = 0, mapped = 0;
    for (int a = 0; a < g->n_values; a++) {
        void *pa = gpu->cls->value_host_ptr(ds, a);
        bool transient_a = values[a].kind == GRAPH_VALUE_INTERMEDIATE && !values[a].is_output &&
                           plans[a].alias_of < 0;
        mapped += pa != NULL;
        for (int b = a + 1; b < g->n_values && transient_a && pa; b++)
            shared += plans[b].alias_of < 0 && values[b].kind == GRAPH_VALUE_INTERMEDIATE &&
                      gpu->cls->value_host_ptr(ds, b) == pa;
    }
    if (mapped == g->n_values)
        CHECK(shared > 0, "%s: no two intermediates share memory", label);
}

static void run_gpu_and_compare(const char *label, const test_graph *t, graph_value *values,
                                void **bufs, double bound)
{
    const graph *g = t->g;
    device_value_plan plans[MAX_VALUES];
    int nodes[MAX_VALUES];
    plan_values(t, values, plans);
    for (int i = 0; i < g->n_nodes; i++)
        nodes[i] = i;
    device_chunk_desc chunk = {.nodes = nodes, .n_nodes = g->n_nodes};
    device_session_desc desc = {
        .graph = g,
        .values = values,
        .value_plans = plans,
        .chunks = &chunk,
        .n_chunks = 1,
    };
    device_session *ds = NULL;
    vkml_error err = {0};
    CHECK_OK(gpu->cls->session_create(gpu, &desc, &ds, &err), &err);
    if (!ds)
        return;
    if (t->expect_reuse)
        check_reuse(label, g, values, plans, ds);
    for (int v = 0; v < g->n_values; v++) {
        void *p = gpu->cls->value_host_ptr(ds, v);
        if (values[v].kind == GRAPH_VALUE_INPUT)
            memcpy(p, bufs[v], value_bytes(&values[v]));
        else if (values[v].is_output)
            memset(p, 0xff, value_bytes(&values[v])); /* NaN poison */
    }
    /* Twice: a re-submitted command buffer must give the same answer. */
    for (int run = 0; run < 2; run++) {
        CHECK_OK(device_run_chunk(gpu, ds, 0, &err), &err);
        for (int v = 0; v < g->n_values; v++) {
            if (!values[v].is_output)
                continue;
            double e = compare(label, &values[v], bufs[v], gpu->cls->value_host_ptr(ds, v));
            CHECK(e <= bound, "%s: normalised max error %.3g over the bound %.1g", label, e, bound);
            if (run == 0)
                printf("%-44s max error %.2e (bound %.0e)\n", label, e, bound);
        }
    }
    gpu->cls->session_destroy(&ds);
    CHECK(ds == NULL, "session_destroy did not clear the pointer");
}

/* Resolves every node's op and parses its attributes (after the test set them). */
static void tg_bind(test_graph *t)
{
    vkml_error err = {0};
    for (int i = 0; i < t->g->n_nodes; i++)
        CHECK_OK(op_bind_node(t->g->arena, &t->g->nodes[i], &err), &err);
}

/* Marks the last node's output as the graph output, runs both devices and compares. */
static void run_case(const char *label, test_graph *t, double bound)
{
    graph *g = t->g;
    vkml_error err = {0};
    g->values[g->nodes[g->n_nodes - 1].outputs[0]].is_output = true;
    tg_bind(t);
    CHECK_OK(graph_sort(g, &err), &err);
    graph_value *values = graph_values_clone(g);
    void *bufs[MAX_VALUES] = {0};
    vkml_status st = graph_infer(g, values, 1, &err);
    CHECK(st == VKML_OK, "%s: shape inference: %s", label, err.message);
    for (int i = 0; st == VKML_OK && i < g->n_nodes; i++) {
        char why[256] = "";
        bool ok = gpu->cls->supports_node(gpu, values, &g->nodes[i], why, sizeof(why));
        CHECK(ok, "%s: the Vulkan device refuses %s: %s", label, g->nodes[i].op_type, why);
        st = ok ? VKML_OK : VKML_ERROR_UNSUPPORTED;
    }
    for (int v = 0; st == VKML_OK && v < g->n_values; v++) {
        if (values[v].kind == GRAPH_VALUE_INPUT)
            bufs[v] = random_floats(g, value_bytes(&values[v]) / 4, t->lo[v], t->hi[v]);
        else if (values[v].kind == GRAPH_VALUE_CONSTANT)
            bufs[v] = (void *)values[v].data;
    }
    if (st == VKML_OK && run_cpu(g, values, bufs))
        run_gpu_and_compare(label, t, values, bufs, bound);
    for (int v = 0; v < g->n_values; v++)
        if (values[v].kind == GRAPH_VALUE_INTERMEDIATE)
            free(bufs[v]);
    free(values);
    graph_destroy(&t->g);
}

/* ---- cases ------------------------------------------------------------------------ */

static void binary_case(const char *op, int ra, const int64_t *a, int rb, const int64_t *b,
                        float blo)
{
    test_graph t;
    tg_init(&t);
    int in[2] = {tg_tensor(&t, "a", false, ra, a, -1, 1), tg_tensor(&t, "b", false, rb, b, blo, 2)};
    int node;
    tg_node(&t, op, 14, in, 2, 0, &node);
    char label[64];
    snprintf(label, sizeof(label), "%s broadcast r%d x r%d", op, ra, rb);
    run_case(label, &t, BOUND_EXACT);
}

static void test_elementwise(void)
{
    const int64_t a[] = {5, 7, 11, 13}, b[] = {7, 1, 13}, c[] = {5, 1, 11, 1}, d[] = {1, 7, 1, 13};
    binary_case("Add", 4, a, 3, b, -1);
    binary_case("Sub", 4, c, 4, d, -1);
    binary_case("Mul", 4, a, 4, a, -1);
    binary_case("Div", 3, b, 4, a, 0.5f); /* divisor in [0.5, 2) */
    binary_case("Add", 0, a, 4, a, -1);   /* a scalar */
    const int64_t e[] = {2, 3, 1, 4, 1, 5}, f[] = {3, 2, 4, 3, 1}, g[] = {5, 1, 11, 13},
                  h[] = {7, 1, 1};
    binary_case("Mul", 6, e, 5, f, -1);
    binary_case("Sub", 4, g, 3, h, -1);
    /* Over 65535 workgroups of 64: the grid spills into y. */
    const int64_t big[] = {1, 3, 1201, 1203}, row[] = {1203};
    binary_case("Add", 4, big, 1, row, -1);
    const char *unary[] = {"Relu", "Sigmoid", "Tanh"};
    for (size_t i = 0; i < VKML_ARRAY_SIZE(unary); i++) {
        test_graph t;
        tg_init(&t);
        int x = tg_tensor(&t, "x", false, 4, a, -6, 6), node;
        tg_node(&t, unary[i], 14, &x, 1, 0, &node);
        run_case(unary[i], &t, i == 0 ? BOUND_EXACT : BOUND_TRANSCENDENTAL);
    }
}

typedef struct conv_case {
    const char *label;
    int rank;
    int64_t x[4], w[4];
    int64_t group;
    int64_t strides[2], pads[4], dilations[2];
    bool bias;
} conv_case;

static void run_conv(const conv_case *c)
{
    test_graph t;
    tg_init(&t);
    int s = c->rank - 2, node;
    int in[3] = {tg_tensor(&t, "x", false, c->rank, c->x, -1, 1),
                 tg_tensor(&t, "w", true, c->rank, c->w, -1, 1), -1};
    if (c->bias)
        in[2] = tg_tensor(&t, "b", true, 1, c->w, -1, 1);
    tg_node(&t, "Conv", 11, in, c->bias ? 3 : 2, 4, &node);
    tg_int(&t, node, 0, "group", c->group);
    tg_ints(&t, node, 1, "strides", s, c->strides);
    tg_ints(&t, node, 2, "pads", 2 * s, c->pads);
    tg_ints(&t, node, 3, "dilations", s, c->dilations);
    run_case(c->label, &t, BOUND_DOT);
}

static void test_conv(void)
{
    static const conv_case cases[] = {
        {"Conv 2-D group 2 strides pads dilations",
         4,
         {2, 6, 11, 13},
         {8, 3, 3, 5},
         2,
         {2, 1},
         {1, 2, 0, 1},
         {1, 2},
         true},
        {"Conv 2-D depthwise no bias",
         4,
         {1, 6, 9, 9},
         {6, 1, 3, 3},
         6,
         {1, 1},
         {1, 1, 1, 1},
         {1, 1},
         false},
        {"Conv 2-D 5x5 mnist-like",
         4,
         {1, 1, 28, 28},
         {8, 1, 5, 5},
         1,
         {1, 1},
         {2, 2, 2, 2},
         {1, 1},
         true},
        /* square 3, 5, 7 windows: conv_window.comp's unrolled variants (KSIZE) */
        {"Conv 2-D depthwise 5x5 stride 2 dilation 2 uneven pads",
         4,
         {2, 4, 15, 12},
         {4, 1, 5, 5},
         4,
         {2, 2},
         {3, 1, 0, 4},
         {2, 2},
         true},
        {"Conv 2-D depthwise 3x3 stride 2",
         4,
         {1, 5, 10, 7},
         {5, 1, 3, 3},
         5,
         {2, 2},
         {0, 1, 1, 0},
         {1, 1},
         true},
        {"Conv 2-D 3x3 5 channels (not a multiple of the unrolled 4)",
         4,
         {2, 5, 9, 8},
         {6, 5, 3, 3},
         1,
         {1, 1},
         {1, 1, 1, 1},
         {1, 1},
         true},
        {"Conv 2-D 7x7 group 2 stride 2 pads 3",
         4,
         {1, 4, 16, 13},
         {6, 2, 7, 7},
         2,
         {2, 1},
         {3, 3, 3, 2},
         {1, 1},
         false},
        {"Conv 1-D stride 2", 3, {3, 4, 17}, {5, 4, 3}, 1, {2}, {1, 1}, {1}, true},
        /* 8 or more output channels per group: the implicit GEMM, where tiles pay off. */
        {"Conv 2-D 24 channels strides pads dilations",
         4,
         {2, 5, 13, 11},
         {24, 5, 3, 3},
         1,
         {2, 1},
         {1, 0, 2, 1},
         {1, 2},
         true},
        {"Conv 2-D 17 channels/group no bias",
         4,
         {1, 6, 9, 10},
         {34, 3, 3, 2},
         2,
         {1, 2},
         {1, 1, 1, 1},
         {1, 1},
         false},
        {"Conv 1-D 9 channels", 3, {2, 7, 29}, {9, 7, 5}, 1, {1}, {2, 2}, {2}, true},
    };
    for (size_t i = 0; i < VKML_ARRAY_SIZE(cases); i++)
        run_conv(&cases[i]);
}

typedef struct pool_case {
    const char *label;
    const char *op;
    int opset, rank;
    int64_t x[4], kernel[2], strides[2], pads[4], dilations[2];
    int64_t ceil_mode, count_include_pad;
} pool_case;

static void run_pool(const pool_case *c)
{
    test_graph t;
    tg_init(&t);
    int s = c->rank - 2, node, x = tg_tensor(&t, "x", false, c->rank, c->x, -1, 1);
    bool max = strcmp(c->op, "MaxPool") == 0;
    tg_node(&t, c->op, c->opset, &x, 1, 5, &node);
    tg_ints(&t, node, 0, "kernel_shape", s, c->kernel);
    tg_ints(&t, node, 1, "strides", s, c->strides);
    tg_ints(&t, node, 2, "pads", 2 * s, c->pads);
    tg_int(&t, node, 3, "ceil_mode", c->ceil_mode);
    if (max)
        tg_ints(&t, node, 4, "dilations", s, c->dilations);
    else
        tg_int(&t, node, 4, "count_include_pad", c->count_include_pad);
    run_case(c->label, &t, max ? BOUND_EXACT : BOUND_SUM);
}

static void test_pool(void)
{
    static const pool_case cases[] = {
        {"MaxPool 2-D ceil_mode dilations",
         "MaxPool",
         12,
         4,
         {2, 3, 11, 13},
         {3, 2},
         {2, 2},
         {1, 0, 1, 1},
         {1, 2},
         1,
         0},
        {"MaxPool 2-D 2x2 mnist-like",
         "MaxPool",
         12,
         4,
         {1, 8, 28, 28},
         {2, 2},
         {2, 2},
         {0, 0, 0, 0},
         {1, 1},
         0,
         0},
        {"MaxPool 1-D", "MaxPool", 12, 3, {3, 5, 19}, {4}, {3}, {2, 1}, {1}, 0, 0},
        {"AveragePool ceil_mode count_include_pad",
         "AveragePool",
         11,
         4,
         {2, 3, 11, 13},
         {3, 3},
         {2, 2},
         {1, 1, 1, 1},
         {1, 1},
         1,
         1},
        {"AveragePool ceil_mode exclude pad",
         "AveragePool",
         11,
         4,
         {2, 3, 10, 13},
         {3, 2},
         {3, 2},
         {1, 0, 2, 1},
         {1, 1},
         1,
         0},
    };
    for (size_t i = 0; i < VKML_ARRAY_SIZE(cases); i++)
        run_pool(&cases[i]);
    /* the global pools run as ReduceMean / ReduceMax over the planes: short planes, and an
     * EfficientNet-sized first squeeze-excitation (32 planes of 112x112: a workgroup each) */
    const char *global[] = {"GlobalAveragePool", "GlobalMaxPool"};
    const int64_t dims[][4] = {{5, 7, 11, 13}, {1, 32, 112, 112}};
    for (size_t d = 0; d < VKML_ARRAY_SIZE(dims); d++)
        for (size_t i = 0; i < VKML_ARRAY_SIZE(global); i++) {
            test_graph t;
            tg_init(&t);
            int x = tg_tensor(&t, "x", false, 4, dims[d], -1, 1), node;
            tg_node(&t, global[i], 11, &x, 1, 0, &node);
            run_case(global[i], &t, BOUND_SUM);
        }
}

static void matmul_case(const char *label, int ra, const int64_t *a, int rb, const int64_t *b)
{
    test_graph t;
    tg_init(&t);
    int in[2] = {tg_tensor(&t, "a", false, ra, a, -1, 1), tg_tensor(&t, "b", true, rb, b, -1, 1)};
    int node;
    tg_node(&t, "MatMul", 13, in, 2, 0, &node);
    run_case(label, &t, BOUND_DOT);
}

typedef struct gemm_case {
    const char *label;
    int64_t a[2], b[2];
    int c_rank;
    int64_t c[2];
    int64_t trans_a, trans_b;
    float alpha, beta;
} gemm_case;

static void run_gemm(const gemm_case *c)
{
    test_graph t;
    tg_init(&t);
    int in[3] = {tg_tensor(&t, "a", false, 2, c->a, -1, 1),
                 tg_tensor(&t, "b", true, 2, c->b, -1, 1), -1};
    if (c->c_rank >= 0)
        in[2] = tg_tensor(&t, "c", true, c->c_rank, c->c, -1, 1);
    int node;
    tg_node(&t, "Gemm", 13, in, c->c_rank >= 0 ? 3 : 2, 4, &node);
    tg_int(&t, node, 0, "transA", c->trans_a);
    tg_int(&t, node, 1, "transB", c->trans_b);
    tg_float(&t, node, 2, "alpha", c->alpha);
    tg_float(&t, node, 3, "beta", c->beta);
    run_case(c->label, &t, BOUND_DOT);
}

static void test_matmul(void)
{
    const int64_t a4[] = {3, 1, 5, 7}, b3[] = {4, 7, 9};
    matmul_case("MatMul batched broadcast", 4, a4, 3, b3);
    const int64_t a2[] = {33, 17}, b2[] = {17, 29};
    matmul_case("MatMul 2-D", 2, a2, 2, b2);
    const int64_t a5[] = {129, 77}, b5[] = {77, 131}; /* several tiles in every dim */
    matmul_case("MatMul 2-D 129x77x131", 2, a5, 2, b5);
    const int64_t v[] = {7}, b3b[] = {2, 7, 5};
    matmul_case("MatMul 1-D x batched", 1, v, 3, b3b);
    const int64_t a1[] = {3, 2, 7}, v1[] = {7};
    matmul_case("MatMul batched x 1-D", 3, a1, 1, v1);
    static const gemm_case cases[] = {
        {"Gemm transA transB C[n]", {19, 13}, {23, 19}, 1, {23}, 1, 1, 0.7f, 1.3f},
        {"Gemm C[m,1]", {13, 19}, {19, 23}, 2, {13, 1}, 0, 0, 1.0f, 0.5f},
        {"Gemm transB no C", {5, 64}, {10, 64}, -1, {0}, 0, 1, 2.0f, 1.0f},
        {"Gemm scalar C", {17, 3}, {3, 31}, 0, {0}, 0, 0, 1.0f, 1.0f},
    };
    for (size_t i = 0; i < VKML_ARRAY_SIZE(cases); i++)
        run_gemm(&cases[i]);
}

static void softmax_case(const char *label, int opset, int rank, const int64_t *dims, int64_t axis,
                         float range)
{
    test_graph t;
    tg_init(&t);
    int x = tg_tensor(&t, "x", false, rank, dims, -range, range), node;
    tg_node(&t, "Softmax", opset, &x, 1, 1, &node);
    tg_int(&t, node, 0, "axis", axis);
    run_case(label, &t, BOUND_SUM);
}

static void test_softmax(void)
{
    const int64_t dims[] = {5, 7, 11}, rows[] = {3, 1000};
    softmax_case("Softmax axis 1 (opset 13)", 13, 3, dims, 1, 8);
    softmax_case("Softmax coerced 2-D (opset 11)", 11, 3, dims, 1, 8);
    softmax_case("Softmax rows of 1000, large values", 13, 2, rows, -1, 80);
}

/* Conv -> Relu -> MaxPool -> Reshape -> MatMul -> Add: intermediates in device memory,
 * barriers between dependent dispatches, Reshape as an alias (or, no_alias, a copy). */
static void test_chain(bool no_alias)
{
    test_graph t;
    tg_init(&t);
    t.no_alias = no_alias;
    t.expect_reuse = true;
    const int64_t xd[] = {1, 1, 12, 12}, wd[] = {4, 1, 3, 3}, bd[] = {4}, shape[] = {1, 144},
                  md[] = {144, 10}, ad[] = {1, 10};
    int node, in[3];
    in[0] = tg_tensor(&t, "x", false, 4, xd, -1, 1);
    in[1] = tg_tensor(&t, "w", true, 4, wd, -1, 1);
    in[2] = tg_tensor(&t, "b", true, 1, bd, -1, 1);
    int y = tg_node(&t, "Conv", 11, in, 3, 1, &node);
    tg_ints(&t, node, 0, "pads", 4, (const int64_t[]){1, 1, 1, 1});
    y = tg_node(&t, "Relu", 14, &y, 1, 0, &node);
    y = tg_node(&t, "MaxPool", 12, &y, 1, 2, &node);
    tg_ints(&t, node, 0, "kernel_shape", 2, (const int64_t[]){2, 2});
    tg_ints(&t, node, 1, "strides", 2, (const int64_t[]){2, 2});
    int r_in[2] = {y, tg_int64_constant(&t, "shape", 2, shape)};
    y = tg_node(&t, "Reshape", 14, r_in, 2, 0, &node);
    int m_in[2] = {y, tg_tensor(&t, "m", true, 2, md, -1, 1)};
    y = tg_node(&t, "MatMul", 13, m_in, 2, 0, &node);
    int a_in[2] = {y, tg_tensor(&t, "bias", true, 2, ad, -1, 1)};
    tg_node(&t, "Add", 14, a_in, 2, 0, &node);
    run_case(no_alias ? "chain with Reshape as a copy" : "chain with Reshape as an alias", &t,
             BOUND_DOT);
}

/* Nodes the Vulkan kernels do not handle are refused with a reason (they go to the CPU),
 * and a session asked to run one anyway fails cleanly. */
static bool refuses(test_graph *t, const char *expect)
{
    vkml_error err = {0};
    graph *g = t->g;
    tg_bind(t);
    CHECK_OK(graph_sort(g, &err), &err);
    graph_value *values = graph_values_clone(g);
    CHECK_OK(graph_infer(g, values, 1, &err), &err);
    char why[256] = "";
    bool ok = gpu->cls->supports_node(gpu, values, &g->nodes[0], why, sizeof(why));
    CHECK(!ok && strstr(why, expect), "%s: expected a refusal naming '%s', got %d '%s'",
          g->nodes[0].op_type, expect, ok, why);
    free(values);
    graph_destroy(&t->g);
    return !ok;
}

static void test_refusals(void)
{
    test_graph t;
    /* 4 spatial dims: the Vulkan kernels take 1 to 3. */
    const int64_t x3[] = {1, 2, 3, 4, 5, 6}, w3[] = {3, 2, 2, 2, 2, 2};
    tg_init(&t);
    int node,
        in[2] = {tg_tensor(&t, "x", false, 6, x3, -1, 1), tg_tensor(&t, "w", true, 6, w3, -1, 1)};
    tg_node(&t, "Conv", 11, in, 2, 0, &node);
    refuses(&t, "spatial dims");

    const int64_t x2[] = {1, 2, 6, 6};
    tg_init(&t);
    int x = tg_tensor(&t, "x", false, 6, x3, -1, 1);
    tg_node(&t, "MaxPool", 12, &x, 1, 1, &node);
    tg_ints(&t, node, 0, "kernel_shape", 4, (const int64_t[]){2, 2, 2, 2});
    refuses(&t, "spatial dims");

    tg_init(&t);
    int a = tg_tensor(&t, "a", false, 4, x2, -1, 1);
    t.g->values[a].dtype = VKML_DTYPE_BFLOAT16;
    int ab[2] = {a, a};
    tg_node(&t, "Add", 14, ab, 2, 0, &node);
    refuses(&t, "bfloat16");

    /* The session itself refuses to record it, and frees what it made. */
    tg_init(&t);
    a = tg_tensor(&t, "a", false, 4, x2, -1, 1);
    t.g->values[a].dtype = VKML_DTYPE_INT32;
    int ab2[2] = {a, a};
    tg_node(&t, "Sub", 14, ab2, 2, 0, &node);
    vkml_error err = {0};
    tg_bind(&t);
    CHECK_OK(graph_sort(t.g, &err), &err);
    graph_value *values = graph_values_clone(t.g);
    CHECK_OK(graph_infer(t.g, values, 1, &err), &err);
    device_value_plan plans[MAX_VALUES];
    plan_values(&t, values, plans);
    int nodes[] = {0};
    device_chunk_desc chunk = {.nodes = nodes, .n_nodes = 1};
    device_session_desc desc = {
        .graph = t.g, .values = values, .value_plans = plans, .chunks = &chunk, .n_chunks = 1};
    device_session *ds = NULL;
    /* The lowering itself does not check dtypes (supports_node does). So feed it a node
     * with an input missing. */
    t.g->nodes[0].n_inputs = 1;
    vkml_status st = gpu->cls->session_create(gpu, &desc, &ds, &err);
    CHECK(st != VKML_OK && ds == NULL, "session_create accepted a malformed node");
    CHECK(strstr(err.message, "Sub") != NULL, "error does not name the node: %s", err.message);
    free(values);
    graph_destroy(&t.g);
}

int main(void)
{
    const char *seed = getenv("VKML_TEST_SEED");
    rng_state = seed ? strtoull(seed, NULL, 0) : (uint64_t)time(NULL) * 2654435761u + 1;
    printf("seed %llu (VKML_TEST_SEED reproduces it)\n", (unsigned long long)rng_state);
    vk_context *vk = test_vk_context();
    gpu = vk_context_device(vk, 0);
    printf("device: %s (%s)\n", gpu->info.name, gpu->info.vendor);
    test_elementwise();
    /* Conv, the matrix products and Softmax have a tiled (GPU) and a plain (CPU device) variant,
     * chosen by caps: run both, whatever the device prefers. */
    struct gpu_caps *caps = &((vk_device *)gpu)->caps;
    for (int variant = 0; variant < 2; variant++) {
        printf("-- %s kernels\n", caps->prefer_tiled ? "tiled" : "plain");
        test_conv();
        test_matmul();
        test_softmax();
        caps->prefer_tiled = !caps->prefer_tiled;
    }
    test_pool();
    test_chain(false);
    test_chain(true);
    test_refusals();
    vk_context_destroy(&vk);
    return test_finish("test_gpu_vs_cpu");
}
