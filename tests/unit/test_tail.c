/* The dynamic tail: X -> Relu (planned, on the session's device) -> NonZero (an output
 * whose extent depends on the data) -> Transpose -> Y. Y's dims change from run to run as
 * the data does; the values are the indices of the positive elements, on the CPU and on
 * every Vulkan device. Then torchvision's min(k, count) before a TopK: a Shape of a
 * data-dependent value folds to the planned bound, and is computed again each run. */
#include "onnx/model.h"
#include "test_graph.h"
#include "testutil.h"

#define ROWS 3
#define COLS 5

static vkml_model *make_model(void)
{
    graph *g = graph_create();
    int x = graph_add_value(g, "X");
    g->values[x].kind = GRAPH_VALUE_INPUT;
    g->values[x].dtype = VKML_DTYPE_FLOAT;
    g->values[x].rank = 2;
    g->values[x].dims[0] = ROWS;
    g->values[x].dims[1] = COLS;
    int relu = graph_add_value(g, "relu"), nz = graph_add_value(g, "nz");
    int y = graph_add_value(g, "Y");
    const char *ops[] = {"Relu", "NonZero", "Transpose"};
    int io[][2] = {{x, relu}, {relu, nz}, {nz, y}};
    for (int i = 0; i < 3; i++) {
        int n = graph_add_node(g, ops[i], ops[i], "", 1, 1, 0);
        g->nodes[n].inputs[0] = io[i][0];
        g->nodes[n].outputs[0] = io[i][1];
        g->nodes[n].opset = 13;
    }
    g->values[y].is_output = true;
    g->inputs = vkml_arena_calloc(g->arena, 1, sizeof(int));
    g->inputs[g->n_inputs++] = x;
    g->outputs = vkml_arena_calloc(g->arena, 1, sizeof(int));
    g->outputs[g->n_outputs++] = y;
    g->opset = 13;
    vkml_error err = {0};
    CHECK_OK(graph_sort(g, &err), &err);
    vkml_model *m = NULL;
    CHECK_OK(model_from_graph(g, &m, &err), &err);
    return m;
}

/* One run with `positive` elements > 0 (every `step`-th); checks Y. */
static void run(vkml_session *s, int step)
{
    float x[ROWS * COLS];
    int64_t want[ROWS * COLS][2];
    int n = 0;
    for (int i = 0; i < ROWS * COLS; i++) {
        x[i] = i % step == 0 ? 1.0f + (float)i : -1.0f;
        if (x[i] > 0) {
            want[n][0] = i / COLS;
            want[n][1] = i % COLS;
            n++;
        }
    }
    vkml_error err = {0};
    vkml_tensor in = {
        .dtype = VKML_DTYPE_FLOAT, .rank = 2, .dims = {ROWS, COLS}, .data = x, .size = sizeof(x)};
    vkml_tensor out = {0};
    CHECK_OK(vkml_session_alloc_output(s, 0, &out, &err), &err);
    CHECK_OK(vkml_session_run(s, &in, 1, &out, 1, &err), &err);
    CHECK(out.rank == 2 && out.dims[0] == n && out.dims[1] == 2,
          "step %d: Y is [%lld,%lld], expected [%d,2]", step, (long long)out.dims[0],
          (long long)out.dims[1], n);
    const int64_t *y = out.data;
    for (int i = 0; y && out.dims[0] == n && i < n; i++)
        CHECK(y[2 * i] == want[i][0] && y[2 * i + 1] == want[i][1], "step %d: row %d", step, i);
    vkml_tensor_release(&out);
}

#define TOPK_N 8
#define TOPK_K 5 /* less than the bound (TOPK_N), more than some runs' counts */

/* An int64 [1] constant. */
static int int64_constant(graph *g, const char *name, int64_t value)
{
    int v = tg_value(g, name, VKML_DTYPE_INT64, 1, (int64_t[]){1});
    int64_t *data = vkml_arena_calloc(g->arena, 1, sizeof(int64_t));
    *data = value;
    g->values[v].kind = GRAPH_VALUE_CONSTANT;
    g->values[v].data = data;
    g->values[v].data_size = sizeof(int64_t);
    return v;
}

/* X [8] -> its nonzero values (NonZero, Gather) -> TopK with K = min(5, their count), the
 * count read by Shape of the gathered values, as torchvision writes it (a Shape of the
 * NonZero itself does not fold). Output: the K best values. */
static vkml_model *make_topk_model(void)
{
    graph *g = graph_create();
    int x = tg_value(g, "X", VKML_DTYPE_FLOAT, 1, (int64_t[]){TOPK_N});
    int nz = tg_value(g, "nz", VKML_DTYPE_UNDEFINED, -1, NULL);
    int idx = tg_value(g, "idx", VKML_DTYPE_UNDEFINED, -1, NULL);
    int pos = tg_value(g, "pos", VKML_DTYPE_UNDEFINED, -1, NULL);
    int count = tg_value(g, "count", VKML_DTYPE_UNDEFINED, -1, NULL);
    int k = tg_value(g, "k", VKML_DTYPE_UNDEFINED, -1, NULL);
    int y = tg_value(g, "Y", VKML_DTYPE_UNDEFINED, -1, NULL);
    int yi = tg_value(g, "Yi", VKML_DTYPE_UNDEFINED, -1, NULL);
    int flat = int64_constant(g, "flat", -1), kmax = int64_constant(g, "kmax", TOPK_K);
    tg_node(g, "nonzero", "NonZero", x, -1, nz, 13);
    tg_node(g, "flatten", "Reshape", nz, flat, idx, 13);
    tg_node(g, "positives", "Gather", x, idx, pos, 13);
    tg_node(g, "count", "Shape", pos, -1, count, 13);
    tg_node(g, "k", "Min", count, kmax, k, 13);
    tg_node_io(g, "topk", "TopK", (int[]){pos, k}, 2, (int[]){y, yi}, 2, 13);
    return tg_model(g, (int[]){x}, 1, (int[]){y}, 1, 13);
}

/* `positive` of the 8 values nonzero (1, 2, ...; the rest 0): Y is the min(5, positive)
 * largest. */
static void run_topk(vkml_session *s, int positive)
{
    float x[TOPK_N];
    for (int i = 0; i < TOPK_N; i++)
        x[i] = i < positive ? 1.0f + (float)i : 0.0f;
    size_t n = 0;
    float *y = tg_run_session(s, x, TOPK_N, &n);
    size_t want = positive < TOPK_K ? (size_t)positive : TOPK_K;
    CHECK(n == want, "%d positive: TopK gave %zu values, expected %zu", positive, n, want);
    for (size_t i = 0; y && i < n && i < want; i++)
        CHECK(y[i] == (float)(positive - (int)i), "%d positive: value %zu is %g", positive, i,
              y[i]);
    free(y);
}

static void test_topk_of_count(vkml_context *ctx)
{
    vkml_model *m = make_topk_model();
    vkml_error err = {0};
    TEST_FOR_EACH_DEVICE(t, ctx) {
        vkml_session *s = NULL;
        vkml_session_params params = {.device = t.device};
        CHECK_OK(vkml_session_create(ctx, m, &params, &s, &err), &err);
        if (!s)
            continue;
        for (int positive = 0; positive <= TOPK_N; positive += 2) /* K 0, 2, 4, 5, 5 */
            run_topk(s, positive);
        printf("device %d: TopK's K = min(5, count) follows the data\n", t.device);
        vkml_session_destroy(&s);
    }
    vkml_model_destroy(&m);
}

int main(void)
{
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    test_require_vulkan(ctx);
    vkml_model *m = make_model();
    TEST_FOR_EACH_DEVICE(t, ctx) {
        if (!m)
            break;
        int d = t.device;
        vkml_session *s = NULL;
        vkml_session_params params = {.device = d};
        CHECK_OK(vkml_session_create(ctx, m, &params, &s, &err), &err);
        if (!s)
            continue;
        const vkml_tensor_info *info = vkml_session_output(s, 0);
        CHECK(info->data_dependent && info->dims[0] == ROWS * COLS && info->dims[1] == 2,
              "Y's bound is [15,2], data dependent");
        size_t folded, on_device, on_cpu;
        vkml_session_node_counts(s, &folded, &on_device, &on_cpu);
        CHECK(on_device == (d < 0 ? 3u : 1u) && on_cpu == (d < 0 ? 0u : 2u),
              "Relu planned on the device, the tail on the CPU (%zu, %zu)", on_device, on_cpu);
        for (int step = 1; step <= 7; step += 3) /* 15, 5, 3 positive elements */
            run(s, step);
        run(s, 1);
        printf("device %d: NonZero -> Transpose dims follow the data\n", d);
        vkml_session_destroy(&s);
    }
    vkml_model_destroy(&m);
    test_topk_of_count(ctx);
    vkml_context_destroy(&ctx);
    return test_finish("test_tail");
}
