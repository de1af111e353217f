/* Load-time fusion: Conv -> BatchNormalization becomes one Conv whose output matches the
 * Conv followed by the BatchNormalization formula, on the CPU and on every Vulkan device;
 * patterns that must not fuse (the Conv output read twice, training outputs) are left. */
#include "onnx/model.h"
#include "testutil.h"

#define C_IN 3
#define C_OUT 4
#define H 5
#define W 7

static uint64_t seed = 11;

static int add_value(graph *g, const char *name, int rank, const int64_t *dims,
                     graph_value_kind kind)
{
    int v = graph_add_value(g, name);
    graph_value *val = &g->values[v];
    val->dtype = VKML_DTYPE_FLOAT;
    val->rank = rank;
    memcpy(val->dims, dims, sizeof(int64_t) * (size_t)rank);
    val->kind = kind;
    if (kind == GRAPH_VALUE_CONSTANT) {
        size_t n = vkml_tensor_element_count(rank, dims);
        float *d = vkml_arena_calloc(g->arena, n, sizeof(float));
        for (size_t i = 0; i < n; i++)
            d[i] = test_randf(&seed, 0.1f, 1.0f); /* positive: a valid variance too */
        val->data = d;
        val->data_size = n * sizeof(float);
    }
    return v;
}

/* X -> Conv(W, B) -> [BatchNormalization] -> Y; with_bn false stops at the Conv.
 * Same seed, same weights. extra_reader adds a second graph output reading the conv. */
static vkml_model *make_model(bool with_bn, bool extra_reader, const float **bn_params)
{
    seed = 11;
    graph *g = graph_create();
    int x = add_value(g, "X", 4, (int64_t[]){1, C_IN, H, W}, GRAPH_VALUE_INPUT);
    int w = add_value(g, "W", 4, (int64_t[]){C_OUT, C_IN, 3, 3}, GRAPH_VALUE_CONSTANT);
    int b = add_value(g, "B", 1, (int64_t[]){C_OUT}, GRAPH_VALUE_CONSTANT);
    int p[4];
    for (int i = 0; i < 4; i++) {
        const char *names[] = {"scale", "beta", "mean", "var"};
        p[i] = add_value(g, names[i], 1, (int64_t[]){C_OUT}, GRAPH_VALUE_CONSTANT);
        if (bn_params)
            bn_params[i] = g->values[p[i]].data;
    }
    int conv_out = graph_add_value(g, "conv"), y = with_bn ? graph_add_value(g, "Y") : conv_out;
    int conv = graph_add_node(g, "conv", "Conv", "", 3, 1, 0);
    g->nodes[conv].inputs[0] = x;
    g->nodes[conv].inputs[1] = w;
    g->nodes[conv].inputs[2] = b;
    g->nodes[conv].outputs[0] = conv_out;
    if (with_bn) {
        int bn = graph_add_node(g, "bn", "BatchNormalization", "", 5, 1, 1);
        g->nodes[bn].inputs[0] = conv_out;
        for (int i = 0; i < 4; i++)
            g->nodes[bn].inputs[i + 1] = p[i];
        g->nodes[bn].outputs[0] = y;
        g->nodes[bn].attrs[0] =
            (graph_attr){.name = "epsilon", .type = GRAPH_ATTR_FLOAT, .f = 1e-3f};
    }
    g->inputs = vkml_arena_calloc(g->arena, 1, sizeof(int));
    g->inputs[g->n_inputs++] = x;
    g->outputs = vkml_arena_calloc(g->arena, 2, sizeof(int));
    g->outputs[g->n_outputs++] = y;
    g->values[y].is_output = true;
    if (extra_reader) {
        g->outputs[g->n_outputs++] = conv_out;
        g->values[conv_out].is_output = true;
    }
    for (int i = 0; i < g->n_nodes; i++)
        g->nodes[i].opset = 15;
    g->opset = 15;
    vkml_error err = {0};
    CHECK_OK(graph_sort(g, &err), &err);
    vkml_model *m = NULL;
    vkml_status st = model_from_graph(g, &m, &err);
    /* Without a BatchNormalization op in the table, an unfused model cannot load. */
    if (st != VKML_OK)
        printf("model (bn %d, extra reader %d): %s\n", with_bn, extra_reader, err.message);
    return m;
}

static float *run(vkml_context *ctx, vkml_model *m, int device, const float *x)
{
    vkml_error err = {0};
    vkml_session *s = NULL;
    vkml_session_params params = {.device = device};
    CHECK_OK(vkml_session_create(ctx, m, &params, &s, &err), &err);
    if (!s)
        return NULL;
    vkml_tensor in = {.dtype = VKML_DTYPE_FLOAT,
                      .rank = 4,
                      .dims = {1, C_IN, H, W},
                      .data = (void *)x,
                      .size = sizeof(float) * C_IN * H * W};
    vkml_tensor out[2] = {0};
    for (size_t o = 0; o < vkml_session_output_count(s); o++)
        CHECK_OK(vkml_session_alloc_output(s, o, &out[o], &err), &err);
    CHECK_OK(vkml_session_run(s, &in, 1, out, vkml_session_output_count(s), &err), &err);
    free(out[1].data);
    vkml_session_destroy(&s);
    return out[0].data;
}

int main(void)
{
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    test_require_vulkan(ctx);
    const float *bn[4];
    vkml_model *fused = make_model(true, false, bn);
    vkml_model *plain = make_model(false, false, NULL);
    CHECK(fused && vkml_model_node_count(fused) == 1, "Conv+BN fused into one node");
    float x[C_IN * H * W];
    uint64_t s = 3;
    for (int i = 0; i < C_IN * H * W; i++)
        x[i] = test_randf(&s, -1, 1);
    float *ref = fused && plain ? run(ctx, plain, VKML_DEVICE_CPU, x) : NULL;
    for (int i = 0; ref && i < C_OUT * (H - 2) * (W - 2); i++) {
        int c = i / ((H - 2) * (W - 2));
        ref[i] = (ref[i] - bn[2][c]) * bn[0][c] / sqrtf(bn[3][c] + 1e-3f) + bn[1][c];
    }
    TEST_FOR_EACH_DEVICE(t, ctx) {
        if (!ref)
            break;
        int d = t.device;
        float *y = run(ctx, fused, d, x);
        double max_err = 0;
        for (int i = 0; y && i < C_OUT * (H - 2) * (W - 2); i++)
            max_err = fmax(max_err, fabs(y[i] - ref[i]));
        CHECK(y && max_err < 1e-5, "device %d: fused Conv differs from Conv+BN by %g", d, max_err);
        printf("device %d: fused Conv vs Conv then BatchNormalization: max error %.2e\n", d,
               max_err);
        free(y);
    }
    free(ref);
    /* The conv output is also a graph output: no fusion (two nodes, if BN loads at all). */
    vkml_model *kept = make_model(true, true, NULL);
    CHECK(!kept || vkml_model_node_count(kept) == 2, "fused a Conv whose output is read");
    vkml_model_destroy(&kept);
    vkml_model_destroy(&fused);
    vkml_model_destroy(&plain);
    vkml_context_destroy(&ctx);
    return test_finish("test_fuse");
}
