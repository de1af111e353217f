/* Pad folding at load (passes/fuse_pad.c): a Pad of zeros before an AveragePool or a Conv
 * becomes its padding, the model one node shorter, its output the padded tensor's pool or
 * convolution summed here directly, on the CPU and every Vulkan device. Pads this cannot
 * express (reflect, a non-zero value, the channel axis, before a MaxPool, a ceil_mode pool,
 * a Pad read twice) are left. */
#include "test_graph.h"

#define C 3
#define H 6
#define W 7
#define K 3

static uint64_t seed = 5;

/* An int64 constant value of n elements. */
static int int_constant(graph *g, const char *name, const int64_t *v, int n)
{
    int id = tg_value(g, name, VKML_DTYPE_INT64, 1, (int64_t[]){n});
    int64_t *data = vkml_arena_calloc(g->arena, (size_t)n, sizeof(int64_t));
    memcpy(data, v, sizeof(int64_t) * (size_t)n);
    g->values[id].kind = GRAPH_VALUE_CONSTANT;
    g->values[id].data = data;
    g->values[id].data_size = sizeof(int64_t) * (size_t)n;
    return id;
}

/* The pads as a Constant node's tensor (as exporters write them). */
static int int_constant_node(graph *g, const char *name, const int64_t *v, int n)
{
    int id = tg_value(g, name, VKML_DTYPE_INT64, 1, (int64_t[]){n});
    graph_tensor *t = vkml_arena_calloc(g->arena, 1, sizeof(*t));
    int64_t *data = vkml_arena_calloc(g->arena, (size_t)n, sizeof(int64_t));
    memcpy(data, v, sizeof(int64_t) * (size_t)n);
    *t = (graph_tensor){.dtype = VKML_DTYPE_INT64,
                        .rank = 1,
                        .dims = {n},
                        .data = data,
                        .size = sizeof(int64_t) * (size_t)n};
    int node = graph_add_node(g, name, "Constant", "", 0, 1, 1);
    g->nodes[node].outputs[0] = id;
    g->nodes[node].opset = 13;
    g->nodes[node].attrs[0] = (graph_attr){.name = "value", .type = GRAPH_ATTR_TENSOR, .tensor = t};
    return id;
}

enum consumer { AVG_POOL, CONV, MAX_POOL };

typedef struct pad_case {
    const char *name;
    enum consumer consumer;
    int64_t pads[8];     /* the Pad's, begins then ends over N, C, H, W */
    int64_t own_pads[4]; /* the consumer's own */
    const char *mode;    /* NULL: constant */
    float value;         /* the Pad's constant value */
    bool has_value;      /* the Pad's constant_value input given */
    bool pads_node;      /* pads from a Constant node, not an initializer */
    bool ceil_mode, read_twice, count_include_pad;
    bool folds;
} pad_case;

/* X -> Pad -> consumer -> Y (and the Pad's output as a second graph output when read
 * twice). *w: the Conv's weights (C x C x K x K), when the consumer is a Conv. */
static vkml_model *make_model(const pad_case *pc, const float **w)
{
    graph *g = graph_create();
    int x = tg_value(g, "X", VKML_DTYPE_FLOAT, 4, (int64_t[]){1, C, H, W});
    int pads = pc->pads_node ? int_constant_node(g, "pads", pc->pads, 8)
                             : int_constant(g, "pads", pc->pads, 8);
    int value = -1;
    if (pc->has_value) {
        value = tg_value(g, "value", VKML_DTYPE_FLOAT, 0, NULL);
        float *d = vkml_arena_calloc(g->arena, 1, sizeof(float));
        *d = pc->value;
        g->values[value].kind = GRAPH_VALUE_CONSTANT;
        g->values[value].data = d;
        g->values[value].data_size = sizeof(float);
    }
    int padded = tg_value(g, "padded", VKML_DTYPE_FLOAT, 0, NULL);
    int pad = tg_node_io(g, "pad", "Pad", (int[]){x, pads, value}, value >= 0 ? 3 : 2,
                         (int[]){padded}, 1, 13);
    if (pc->mode) {
        g->nodes[pad].attrs = vkml_arena_calloc(g->arena, 1, sizeof(graph_attr));
        g->nodes[pad].attrs[0] = (graph_attr){
            .name = "mode", .type = GRAPH_ATTR_STRING, .s = pc->mode, .s_len = strlen(pc->mode)};
        g->nodes[pad].n_attrs = 1;
    }
    int y = tg_value(g, "Y", VKML_DTYPE_FLOAT, 0, NULL);
    int wv = -1;
    if (pc->consumer == CONV) {
        wv = tg_random_constant(g, "W", 4, (int64_t[]){C, C, K, K}, -1, 1, &seed);
        *w = g->values[wv].data;
    }
    const char *op = pc->consumer == CONV       ? "Conv"
                     : pc->consumer == AVG_POOL ? "AveragePool"
                                                : "MaxPool";
    int c = tg_node(g, "consumer", op, padded, wv, y, 13);
    graph_attr *a = vkml_arena_calloc(g->arena, 4, sizeof(graph_attr));
    int64_t *kernel = vkml_arena_calloc(g->arena, 2, sizeof(int64_t));
    kernel[0] = kernel[1] = K;
    int n = 0;
    a[n++] =
        (graph_attr){.name = "kernel_shape", .type = GRAPH_ATTR_INTS, .ints = kernel, .count = 2};
    a[n++] =
        (graph_attr){.name = "pads", .type = GRAPH_ATTR_INTS, .ints = pc->own_pads, .count = 4};
    if (pc->consumer != CONV)
        a[n++] = (graph_attr){.name = "ceil_mode", .type = GRAPH_ATTR_INT, .i = pc->ceil_mode};
    if (pc->consumer == AVG_POOL)
        a[n++] = (graph_attr){
            .name = "count_include_pad", .type = GRAPH_ATTR_INT, .i = pc->count_include_pad};
    g->nodes[c].attrs = a;
    g->nodes[c].n_attrs = n;
    int outputs[2] = {y, padded};
    return tg_model(g, (int[]){x}, 1, outputs, pc->read_twice ? 2 : 1, 13);
}

/* The consumer over x padded by pc's pads then its own: direct sums. *oh, *ow: its size. */
static float *reference(const pad_case *pc, const float *x, const float *w, int *oh, int *ow)
{
    int top = (int)(pc->pads[2] + pc->own_pads[0]), left = (int)(pc->pads[3] + pc->own_pads[1]);
    int ph = H + top + (int)(pc->pads[6] + pc->own_pads[2]);
    int pw = W + left + (int)(pc->pads[7] + pc->own_pads[3]);
    *oh = ph - K + 1, *ow = pw - K + 1;
    float *y = calloc((size_t)C * *oh * *ow, sizeof(float));
    for (int o = 0; o < C; o++)
        for (int i = 0; i < *oh; i++)
            for (int j = 0; j < *ow; j++) {
                double sum = 0;
                for (int c = 0; c < C; c++) {
                    if (pc->consumer != CONV && c != o)
                        continue;
                    for (int u = 0; u < K; u++)
                        for (int v = 0; v < K; v++) {
                            int r = i + u - top, s = j + v - left;
                            float xv =
                                r >= 0 && r < H && s >= 0 && s < W ? x[(c * H + r) * W + s] : 0;
                            sum +=
                                pc->consumer == CONV ? xv * w[((o * C + c) * K + u) * K + v] : xv;
                        }
                }
                y[(o * *oh + i) * *ow + j] = (float)(pc->consumer == CONV ? sum : sum / (K * K));
            }
    return y;
}

int main(void)
{
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    test_require_vulkan(ctx);
    const pad_case cases[] = {
        {"avg pool, Pad 1 all round (PyTorch's avg_pool2d(padding=1))",
         AVG_POOL,
         {0, 0, 1, 1, 0, 0, 1, 1},
         {0},
         .folds = true},
        {"avg pool, uneven Pad from a Constant node",
         AVG_POOL,
         {0, 0, 2, 0, 0, 0, 1, 3},
         {0},
         .pads_node = true,
         .folds = true},
        {"avg pool padding itself, count_include_pad",
         AVG_POOL,
         {0, 0, 1, 0, 0, 0, 0, 1},
         {1, 1, 0, 1},
         .count_include_pad = true,
         .folds = true},
        {"conv, uneven Pad added to its own",
         CONV,
         {0, 0, 0, 2, 0, 0, 1, 0},
         {1, 0, 0, 1},
         .pads_node = true,
         .folds = true},
        {"conv, Pad of zeros given as the value",
         CONV,
         {0, 0, 1, 1, 0, 0, 1, 1},
         {0},
         .has_value = true,
         .folds = true},
        {"reflect", AVG_POOL, {0, 0, 1, 1, 0, 0, 1, 1}, {0}, .mode = "reflect"},
        {"value 0.5", CONV, {0, 0, 1, 1, 0, 0, 1, 1}, {0}, .value = 0.5f, .has_value = true},
        {"channel axis padded", CONV, {0, 1, 1, 1, 0, 0, 1, 1}, {0}, .folds = false},
        {"max pool", MAX_POOL, {0, 0, 1, 1, 0, 0, 1, 1}, {0}, .folds = false},
        {"ceil_mode pool", AVG_POOL, {0, 0, 1, 1, 0, 0, 1, 1}, {0}, .ceil_mode = true},
        {"pool padding itself without count_include_pad",
         AVG_POOL,
         {0, 0, 1, 1, 0, 0, 1, 1},
         {1, 1, 1, 1},
         .folds = false},
        {"Pad read twice", AVG_POOL, {0, 0, 1, 1, 0, 0, 1, 1}, {0}, .read_twice = true},
    };
    float x[C * H * W];
    uint64_t s = 9;
    for (int i = 0; i < C * H * W; i++)
        x[i] = test_randf(&s, -1, 1);
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        const pad_case *pc = &cases[k];
        const float *w = NULL;
        vkml_model *m = make_model(pc, &w);
        if (!m)
            continue;
        size_t nodes = vkml_model_node_count(m);
        CHECK(nodes == (pc->folds ? 1u : 2u), "%s: %zu nodes after load, want %d", pc->name, nodes,
              pc->folds ? 1 : 2);
        if (!pc->folds) {
            printf("%s: left as Pad and %s\n", pc->name, pc->consumer == CONV ? "Conv" : "pool");
            vkml_model_destroy(&m);
            continue;
        }
        int oh, ow;
        float *ref = reference(pc, x, w, &oh, &ow);
        TEST_FOR_EACH_DEVICE(t, ctx) {
            vkml_session *sess = NULL;
            vkml_session_params params = {.device = t.device};
            CHECK_OK(vkml_session_create(ctx, m, &params, &sess, &err), &err);
            if (!sess)
                continue;
            size_t n_y = 0;
            float *y = tg_run_session(sess, x, C * H * W, &n_y);
            double max_err = 0;
            CHECK(y && n_y == (size_t)C * oh * ow, "%s: device %d: %zu outputs, want %d", pc->name,
                  t.device, n_y, C * oh * ow);
            for (size_t i = 0; y && n_y == (size_t)C * oh * ow && i < n_y; i++)
                max_err = fmax(max_err, fabs(y[i] - ref[i]));
            CHECK(max_err < 1e-5, "%s: device %d: max error %g against the padded sums", pc->name,
                  t.device, max_err);
            printf("%s: folded, device %d: max error %.1e\n", pc->name, t.device, max_err);
            free(y);
            vkml_session_destroy(&sess);
        }
        free(ref);
        vkml_model_destroy(&m);
    }
    vkml_context_destroy(&ctx);
    return test_finish("test_fuse_pad");
}
