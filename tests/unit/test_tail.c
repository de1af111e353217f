/* The dynamic tail: X -> Relu (planned, on the session's device) -> NonZero (an output
 * whose extent depends on the data) -> Transpose -> Y. Y's dims change from run to run as
 * the data does; the values are the indices of the positive elements, on the CPU and on
 * every Vulkan device. */
#include "onnx/model.h"
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
    vkml_context_destroy(&ctx);
    return test_finish("test_tail");
}
