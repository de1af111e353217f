/* The dynamic tail's heavy nodes on the GPU (plan/tail_gpu.h): rows of X picked by the
 * data (Greater -> NonZero -> Gather, as an R-CNN picks its rois) go through a chain
 * Conv -> Relu -> Conv (1x1), and Flatten -> Gemm and Flatten -> MatMul, all in the tail.
 * With VKML_TAIL_GPU=1 each Vulkan device runs the chain and the two products as sessions
 * planned for the row count rounded up to a power of two; their outputs match the CPU
 * device's (the host kernels) for 0, 1, 3, 5 and 8 rows, and the sessions made are one per
 * chain and power of two seen (1, 4 and 8 rows: 9). */
#include "test_graph.h"

#include <math.h>

#define K 8  /* rows of X */
#define C 16 /* X's channels */
#define HW 5 /* X's height and width */
#define M 32 /* the conv's output channels */

static vkml_model *make_model(void)
{
    uint64_t seed = 3;
    graph *g = graph_create();
    int64_t xd[] = {K, C, HW, HW}, sd[] = {K}, wd[] = {M, C, 3, 3}, bd[] = {M},
            w2d[] = {C * HW * HW, 24}, b2d[] = {24}, w3d[] = {C * HW * HW, 12}, one[] = {1};
    int x = tg_value(g, "X", VKML_DTYPE_FLOAT, 4, xd),
        s = tg_value(g, "S", VKML_DTYPE_FLOAT, 1, sd);
    int zero = tg_random_constant(g, "zero", 0, NULL, 0, 0, &seed);
    int keep = tg_value(g, "keep", VKML_DTYPE_BOOL, 1, sd);
    int nz = tg_value(g, "nz", VKML_DTYPE_INT64, 2, (int64_t[]){1, K});
    int flat_shape = graph_add_value(g, "flat_shape");
    static const int64_t minus_one = -1;
    g->values[flat_shape] = (graph_value){.name = g->values[flat_shape].name,
                                          .kind = GRAPH_VALUE_CONSTANT,
                                          .dtype = VKML_DTYPE_INT64,
                                          .rank = 1,
                                          .dims = {1},
                                          .data = &minus_one,
                                          .data_size = sizeof(minus_one),
                                          .producer = -1};
    (void)one;
    int idx = tg_value(g, "idx", VKML_DTYPE_INT64, 1, sd);
    int picked = tg_value(g, "picked", VKML_DTYPE_FLOAT, 4, xd);
    int w = tg_random_constant(g, "W", 4, wd, -0.3f, 0.3f, &seed);
    int b = tg_random_constant(g, "B", 1, bd, -0.5f, 0.5f, &seed);
    int conv = tg_value(g, "conv", VKML_DTYPE_FLOAT, 4, (int64_t[]){K, M, HW, HW});
    int relu = tg_value(g, "relu", VKML_DTYPE_FLOAT, 4, (int64_t[]){K, M, HW, HW});
    int w4 = tg_random_constant(g, "W4", 4, (int64_t[]){M, M, 1, 1}, -0.3f, 0.3f, &seed);
    int y1 = tg_value(g, "Y1", VKML_DTYPE_FLOAT, 4, (int64_t[]){K, M, HW, HW});
    int flat = tg_value(g, "flat", VKML_DTYPE_FLOAT, 2, (int64_t[]){K, C * HW * HW});
    int w2 = tg_random_constant(g, "W2", 2, w2d, -0.1f, 0.1f, &seed);
    int b2 = tg_random_constant(g, "B2", 1, b2d, -0.5f, 0.5f, &seed);
    int y2 = tg_value(g, "Y2", VKML_DTYPE_FLOAT, 2, (int64_t[]){K, 24});
    int w3 = tg_random_constant(g, "W3", 2, w3d, -0.1f, 0.1f, &seed);
    int y3 = tg_value(g, "Y3", VKML_DTYPE_FLOAT, 2, (int64_t[]){K, 12});
    tg_node(g, "greater", "Greater", s, zero, keep, 13);
    tg_node(g, "nonzero", "NonZero", keep, -1, nz, 13);
    tg_node(g, "reshape", "Reshape", nz, flat_shape, idx, 13);
    tg_node(g, "gather", "Gather", x, idx, picked, 13);
    tg_node_io(g, "conv", "Conv", (int[]){picked, w, b}, 3, &conv, 1, 13);
    int c = g->n_nodes - 1;
    graph_node *cn = &g->nodes[c];
    cn->attrs = vkml_arena_calloc(g->arena, 1, sizeof(graph_attr));
    cn->n_attrs = 1;
    int64_t *pads = vkml_arena_calloc(g->arena, 4, sizeof(int64_t));
    for (int i = 0; i < 4; i++)
        pads[i] = 1;
    cn->attrs[0] = (graph_attr){.name = "pads", .type = GRAPH_ATTR_INTS, .ints = pads, .count = 4};
    tg_node(g, "relu", "Relu", conv, -1, relu, 13);
    tg_node(g, "conv1x1", "Conv", relu, w4, y1, 13);
    tg_node(g, "flatten", "Flatten", picked, -1, flat, 13);
    tg_node_io(g, "gemm", "Gemm", (int[]){flat, w2, b2}, 3, &y2, 1, 13);
    tg_node(g, "matmul", "MatMul", flat, w3, y3, 13);
    return tg_model(g, (int[]){x, s}, 2, (int[]){y1, y2, y3}, 3, 13);
}

typedef struct made_log {
    int sessions; /* "run on device" messages of the tail */
} made_log;

static void capture(void *user, vkml_log_level level, const char *message)
{
    made_log *log = user;
    if (level == VKML_LOG_DEBUG && strstr(message, "in the dynamic tail run on device"))
        log->sessions++;
}

/* Runs s on X and S (its first `rows` scores positive): the three outputs (malloc'ed) and
 * their element counts. */
static void run(vkml_session *s, const float *x, int rows, float *y[3], size_t n[3])
{
    float scores[K];
    for (int i = 0; i < K; i++)
        scores[i] = i < rows ? 1.0f + (float)i : -1.0f;
    vkml_tensor in[2] = {{.dtype = VKML_DTYPE_FLOAT,
                          .rank = 4,
                          .dims = {K, C, HW, HW},
                          .data = (void *)x,
                          .size = sizeof(float) * K * C * HW * HW},
                         {.dtype = VKML_DTYPE_FLOAT,
                          .rank = 1,
                          .dims = {K},
                          .data = scores,
                          .size = sizeof(scores)}};
    vkml_tensor out[3] = {0};
    vkml_error err = {0};
    for (int o = 0; o < 3; o++)
        CHECK_OK(vkml_session_alloc_output(s, (size_t)o, &out[o], &err), &err);
    CHECK_OK(vkml_session_run(s, in, 2, out, 3, &err), &err);
    for (int o = 0; o < 3; o++) {
        n[o] = vkml_tensor_element_count(out[o].rank, out[o].dims);
        CHECK(out[o].dims[0] == rows, "output %d: %lld rows, want %d", o, (long long)out[o].dims[0],
              rows);
        y[o] = out[o].data;
    }
}

int main(void)
{
    setenv("VKML_TAIL_GPU", "1", 1); /* lavapipe too, and every size */
    made_log log = {0};
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    vkml_context_params cp = {.log_level = VKML_LOG_DEBUG,
                              .log_level_set = true,
                              .log_callback = capture,
                              .log_user = &log};
    CHECK_OK(vkml_context_create(&cp, &ctx, &err), &err);
    test_require_vulkan(ctx);
    vkml_model *m = make_model();
    float *x = malloc(sizeof(float) * K * C * HW * HW);
    uint64_t seed = 9;
    for (int i = 0; x && i < K * C * HW * HW; i++)
        x[i] = test_randf(&seed, -1, 1);
    static const int rows[] = {3, 8, 1, 5, 0, 3};
    float *ref[6][3] = {{0}};
    size_t n_ref[6][3] = {{0}};
    TEST_FOR_EACH_DEVICE(t, ctx) {
        if (!m || !x)
            break;
        vkml_session *s = NULL;
        vkml_session_params params = {.device = t.device};
        CHECK_OK(vkml_session_create(ctx, m, &params, &s, &err), &err);
        if (!s)
            continue;
        log.sessions = 0;
        double worst = 0;
        for (int r = 0; r < 6; r++) {
            float *y[3] = {0};
            size_t n[3] = {0};
            run(s, x, rows[r], y, n);
            for (int o = 0; o < 3; o++) {
                if (t.device == VKML_DEVICE_CPU) {
                    ref[r][o] = y[o];
                    n_ref[r][o] = n[o];
                    continue;
                }
                double scale = 0, diff = 0;
                for (size_t i = 0; i < n_ref[r][o]; i++)
                    scale = fmax(scale, fabs(ref[r][o][i]));
                for (size_t i = 0; y[o] && n[o] == n_ref[r][o] && i < n[o]; i++)
                    diff = fmax(diff, fabs(y[o][i] - ref[r][o][i]));
                CHECK(y[o] && n[o] == n_ref[r][o] && diff <= 1e-4 * fmax(scale, 1e-30),
                      "device %d, %d rows, output %d: max difference %.3g (scale %.3g)", t.device,
                      rows[r], o, diff, scale);
                worst = fmax(worst, scale > 0 ? diff / scale : 0);
                free(y[o]);
            }
        }
        /* the CPU device has no GPU to send them to */
        int want = t.device == VKML_DEVICE_CPU ? 0 : 9;
        CHECK(log.sessions == want, "device %d: %d tail sessions made, want %d", t.device,
              log.sessions, want);
        printf("device %d: Conv -> Relu -> Conv, Gemm and MatMul of 0-8 picked rows, %d sessions, "
               "max error %.2e of scale\n",
               t.device, log.sessions, worst);
        vkml_session_destroy(&s);
    }
    for (int r = 0; r < 6; r++)
        for (int o = 0; o < 3; o++)
            free(ref[r][o]);
    free(x);
    vkml_model_destroy(&m);
    vkml_context_destroy(&ctx);
    return test_finish("test_tail_gpu");
}
