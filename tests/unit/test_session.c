/* Sessions: a model whose nodes the GPU cannot all run is split over the Vulkan device
 * and the CPU with transfers between them and gives the CPU-only answer; API misuse gives
 * INVALID_ARGUMENT with a message, never a crash. */
#include "plan/plan.h"
#include "test_graph.h"

/* X[1,2,3,4,5,2] -> Conv 4-D (no GPU kernel: CPU) -> Relu -> Flatten -> MatMul -> Y, and
 * the Relu output is a graph output too. */
static vkml_model *make_split_model(void)
{
    uint64_t seed = 42;
    graph *g = graph_create();
    int x = tg_value(g, "X", VKML_DTYPE_FLOAT, 6, (int64_t[]){1, 2, 3, 4, 5, 2});
    int w = tg_random_constant(g, "W", 6, (int64_t[]){3, 2, 2, 2, 2, 2}, -1, 1, &seed);
    int conv = graph_add_value(g, "conv");
    int relu = graph_add_value(g, "relu");
    int flat = graph_add_value(g, "flat");
    int m = tg_random_constant(g, "M", 2, (int64_t[]){3 * 2 * 3 * 4 * 1, 7}, -1, 1, &seed);
    int y = graph_add_value(g, "Y");
    tg_node(g, "Conv", "Conv", x, w, conv, 13);
    tg_node(g, "Relu", "Relu", conv, -1, relu, 13);
    tg_node(g, "Flatten", "Flatten", relu, -1, flat, 13);
    tg_node(g, "MatMul", "MatMul", flat, m, y, 13);
    return tg_model(g, &x, 1, (int[]){y, relu}, 2, 13);
}

static void run(vkml_context *ctx, vkml_model *model, int device, vkml_tensor *outs,
                const plan **plan_out, vkml_session **keep)
{
    vkml_error err = {0};
    vkml_session *s = NULL;
    vkml_session_params params = {.device = device};
    CHECK_OK(vkml_session_create(ctx, model, &params, &s, &err), &err);
    if (!s)
        return;
    float x[240];
    uint64_t seed = 7;
    for (int i = 0; i < 240; i++)
        x[i] = test_randf(&seed, -1, 1);
    vkml_tensor in = {.dtype = VKML_DTYPE_FLOAT,
                      .rank = 6,
                      .dims = {1, 2, 3, 4, 5, 2},
                      .data = x,
                      .size = sizeof(x)};
    for (int o = 0; o < 2; o++) {
        CHECK_OK(vkml_session_alloc_output(s, (size_t)o, &outs[o], &err), &err);
        for (size_t i = 0; i < outs[o].size / 4; i++)
            ((float *)outs[o].data)[i] = NAN;
    }
    /* Twice: the second run re-submits the recorded work. */
    CHECK_OK(vkml_session_run(s, &in, 1, outs, 2, &err), &err);
    CHECK_OK(vkml_session_run(s, &in, 1, outs, 2, &err), &err);
    *plan_out = session_plan(s);
    *keep = s;
}

static void test_split_matches_cpu(vkml_context *ctx)
{
    vkml_model *model = make_split_model();
    if (!model)
        return;
    vkml_tensor cpu_out[2] = {0}, gpu_out[2] = {0};
    const plan *cpu_plan = NULL, *gpu_plan = NULL;
    vkml_session *cpu_s = NULL, *gpu_s = NULL;
    run(ctx, model, VKML_DEVICE_CPU, cpu_out, &cpu_plan, &cpu_s);
    run(ctx, model, 0, gpu_out, &gpu_plan, &gpu_s);
    if (cpu_plan && gpu_plan) {
        CHECK(cpu_plan->n_devices == 1 && cpu_plan->n_chunks == 1,
              "CPU plan: %d devices, %d chunks", cpu_plan->n_devices, cpu_plan->n_chunks);
        CHECK(gpu_plan->n_devices == 2 && gpu_plan->n_chunks == 2,
              "split plan: %d devices, %d chunks (want the Conv on the CPU, the rest on the GPU)",
              gpu_plan->n_devices, gpu_plan->n_chunks);
        for (int o = 0; o < 2; o++) {
            const float *a = cpu_out[o].data, *b = gpu_out[o].data;
            size_t n = cpu_out[o].size / 4;
            double max_err = 0, max_ref = 1e-6;
            for (size_t i = 0; i < n; i++) {
                double d = fabs((double)a[i] - b[i]);
                max_err = d > max_err || isnan(d) ? d : max_err;
                max_ref = fabs(a[i]) > max_ref ? fabs(a[i]) : max_ref;
            }
            CHECK(!isnan(max_err) && max_err / max_ref < 1e-5,
                  "output %d: normalised error %g between CPU and split plan", o,
                  max_err / max_ref);
        }
    }
    for (int o = 0; o < 2; o++) {
        vkml_tensor_release(&cpu_out[o]);
        vkml_tensor_release(&gpu_out[o]);
    }
    vkml_session_destroy(&cpu_s);
    vkml_session_destroy(&gpu_s);
    vkml_model_destroy(&model);
}

static void test_misuse(vkml_context *ctx)
{
    vkml_model *model = make_split_model();
    vkml_session *s = NULL;
    vkml_error err = {0};
    vkml_session_params params = {.device = VKML_DEVICE_CPU};
    CHECK_OK(vkml_session_create(ctx, model, &params, &s, &err), &err);
    /* The session holds its own reference: the model may go first. */
    vkml_model_destroy(&model);
    if (!s)
        return;
    float x[240] = {0}, y[7], r[72];
    vkml_tensor in = {.dtype = VKML_DTYPE_FLOAT,
                      .rank = 6,
                      .dims = {1, 2, 3, 4, 5, 2},
                      .data = x,
                      .size = sizeof(x)};
    vkml_tensor outs[2] = {
        {.dtype = VKML_DTYPE_FLOAT, .rank = 2, .dims = {1, 7}, .data = y, .size = sizeof(y)},
        {.dtype = VKML_DTYPE_FLOAT,
         .rank = 6,
         .dims = {1, 3, 2, 3, 4, 1},
         .data = r,
         .size = sizeof(r)},
    };
    CHECK_OK(vkml_session_run(s, &in, 1, outs, 2, &err), &err);
    struct {
        const char *what, *expect;
        vkml_tensor in;
        size_t n_in;
    } cases[] = {
        {"wrong input count", "inputs", in, 0},
        {"wrong dtype",
         "dtype",
         {.dtype = VKML_DTYPE_INT32,
          .rank = 6,
          .dims = {1, 2, 3, 4, 5, 2},
          .data = x,
          .size = sizeof(x)},
         1},
        {"wrong shape",
         "shape",
         {.dtype = VKML_DTYPE_FLOAT, .rank = 4, .dims = {1, 2, 3, 4}, .data = x, .size = sizeof(x)},
         1},
        {"too small",
         "bytes",
         {.dtype = VKML_DTYPE_FLOAT, .rank = 6, .dims = {1, 2, 3, 4, 5, 2}, .data = x, .size = 10},
         1},
        {"NULL data",
         "bytes",
         {.dtype = VKML_DTYPE_FLOAT,
          .rank = 6,
          .dims = {1, 2, 3, 4, 5, 2},
          .data = NULL,
          .size = sizeof(x)},
         1},
    };
    for (size_t i = 0; i < VKML_ARRAY_SIZE(cases); i++) {
        memset(&err, 0, sizeof(err));
        vkml_status st = vkml_session_run(s, &cases[i].in, cases[i].n_in, outs, 2, &err);
        CHECK(st == VKML_ERROR_INVALID_ARGUMENT, "%s: status %s", cases[i].what,
              vkml_status_name(st));
        CHECK(strstr(err.message, cases[i].expect) != NULL, "%s: message '%s' lacks '%s'",
              cases[i].what, err.message, cases[i].expect);
    }
    CHECK(vkml_session_run(NULL, &in, 1, outs, 2, &err) == VKML_ERROR_INVALID_ARGUMENT,
          "NULL session");
    vkml_session *none = NULL;
    vkml_session_destroy(&none);
    vkml_session_destroy(&s);
    CHECK(s == NULL, "destroy clears the handle");
    params.device = 99;
    model = make_split_model();
    CHECK(vkml_session_create(ctx, model, &params, &s, &err) == VKML_ERROR_INVALID_ARGUMENT &&
              strstr(err.message, "no device 99"),
          "device 99: %s", err.message);
    vkml_model_destroy(&model);
}

/* A context destroyed before its session stays alive for it: the session still runs and
 * gives the same answer, and destroying the session frees every Vulkan object. */
static void test_context_outlived_by_session(int device)
{
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    vkml_model *model = make_split_model();
    vkml_session *s = NULL;
    vkml_session_params params = {.device = device};
    CHECK_OK(vkml_session_create(ctx, model, &params, &s, &err), &err);
    vkml_model_destroy(&model);
    if (!s) {
        vkml_context_destroy(&ctx);
        return;
    }
    float x[240], y_before[7], y_after[7], r[72];
    uint64_t seed = 3;
    for (int i = 0; i < 240; i++)
        x[i] = test_randf(&seed, -1, 1);
    vkml_tensor in = {.dtype = VKML_DTYPE_FLOAT,
                      .rank = 6,
                      .dims = {1, 2, 3, 4, 5, 2},
                      .data = x,
                      .size = sizeof(x)};
    vkml_tensor outs[2] = {
        {.dtype = VKML_DTYPE_FLOAT,
         .rank = 2,
         .dims = {1, 7},
         .data = y_before,
         .size = sizeof(y_before)},
        {.dtype = VKML_DTYPE_FLOAT,
         .rank = 6,
         .dims = {1, 3, 2, 3, 4, 1},
         .data = r,
         .size = sizeof(r)},
    };
    CHECK_OK(vkml_session_run(s, &in, 1, outs, 2, &err), &err);
    vkml_context_destroy(&ctx);
    CHECK(ctx == NULL, "destroy clears the handle");
    outs[0].data = y_after;
    for (int i = 0; i < 7; i++)
        y_after[i] = NAN;
    CHECK_OK(vkml_session_run(s, &in, 1, outs, 2, &err), &err);
    CHECK(memcmp(y_before, y_after, sizeof(y_before)) == 0,
          "device %d: a run after the context's destroy differs", device);
    vkml_session_destroy(&s);
    vkml_vk_counts counts;
    vkml_debug_vk_counts(&counts);
    for (int k = 0; k < VKML_VK_OBJECT_KINDS; k++)
        CHECK(counts.live[k] == 0, "device %d: %lld %s(s) alive after the last session", device,
              (long long)counts.live[k], vkml_vk_object_name((vkml_vk_object)k));
}

/* X[2048] -> Neg -> Y (8 KiB), Relu -> R (8 KiB): both outputs written by the GPU. */
static vkml_model *make_output_model(void)
{
    graph *g = graph_create();
    int x = tg_value(g, "X", VKML_DTYPE_FLOAT, 1, (int64_t[]){2048});
    int y = graph_add_value(g, "Y");
    int r = graph_add_value(g, "R");
    tg_node(g, "Neg", "Neg", x, -1, y, 13);
    tg_node(g, "Relu", "Relu", x, -1, r, 13);
    return tg_model(g, &x, 1, (int[]){y, r}, 2, 13);
}

/* Outputs read back by a copy (vk_device.output_copy_min, VKML_OUTPUT_COPY_MIN): with the
 * size rule at `min` (NULL: the default, "off": none) and `lanes` runs in flight, each
 * lane's chunk records its copy out (a semaphore, a second command buffer) exactly when
 * several runs are in flight and an output is at least that large, and every run of every
 * lane gives the exact values. */
static void test_output_copy(const char *min, int lanes, bool copied)
{
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    if (min)
        setenv("VKML_OUTPUT_COPY_MIN", min, 1);
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    unsetenv("VKML_OUTPUT_COPY_MIN");
    vkml_model *model = make_output_model();
    vkml_session *s = NULL;
    vkml_session_params params = {.device = 0, .runs_in_flight = lanes};
    if (ctx && model)
        CHECK_OK(vkml_session_create(ctx, model, &params, &s, &err), &err);
    vkml_model_destroy(&model);
    float x[2048], y[3][2048], r[3][2048];
    uint64_t seed = 11;
    for (int i = 0; i < 2048; i++)
        x[i] = test_randf(&seed, -1, 1);
    vkml_tensor in = {
        .dtype = VKML_DTYPE_FLOAT, .rank = 1, .dims = {2048}, .data = x, .size = sizeof(x)};
    vkml_tensor outs[3][2];
    vkml_run *runs[3] = {0};
    for (int k = 0; s && k < 3; k++) { /* lanes 0, 1, 0 (or 0, 0, 0) */
        for (int i = 0; i < 2048; i++)
            y[k][i] = r[k][i] = NAN;
        for (int o = 0; o < 2; o++)
            outs[k][o] = (vkml_tensor){.dtype = VKML_DTYPE_FLOAT,
                                       .rank = 1,
                                       .dims = {2048},
                                       .data = o ? r[k] : y[k],
                                       .size = sizeof(y[k])};
        CHECK_OK(vkml_session_submit(s, &in, 1, outs[k], 2, NULL, NULL, &runs[k], &err), &err);
    }
    for (int k = 0; k < 3; k++) {
        if (!runs[k])
            continue;
        CHECK_OK(vkml_run_wait(&runs[k], &err), &err);
        int bad = 0;
        for (int i = 0; i < 2048; i++)
            bad += y[k][i] != -x[i] || r[k][i] != (x[i] > 0 ? x[i] : 0);
        CHECK(bad == 0, "VKML_OUTPUT_COPY_MIN=%s: run %d: %d wrong output values", min ? min : "",
              k, bad);
    }
    vkml_vk_counts counts;
    vkml_debug_vk_counts(&counts);
    int64_t want = copied ? lanes : 0; /* one copy out a lane */
    CHECK(!s || counts.live[VKML_VK_SEMAPHORE] == want,
          "VKML_OUTPUT_COPY_MIN=%s: %lld semaphore(s), expected %lld", min ? min : "(unset)",
          (long long)counts.live[VKML_VK_SEMAPHORE], (long long)want);
    vkml_session_destroy(&s);
    vkml_context_destroy(&ctx);
}

int main(void)
{
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    if (!ctx)
        return test_finish("test_session");
    test_misuse(ctx);
    test_require_vulkan(ctx);
    test_split_matches_cpu(ctx);
    vkml_context_destroy(&ctx);
    test_context_outlived_by_session(VKML_DEVICE_CPU);
    test_context_outlived_by_session(0);
    test_output_copy("0", 2, true);
    test_output_copy("8192", 2, true);
    test_output_copy("8193", 2, false);
    test_output_copy("off", 2, false);
    test_output_copy("0", 1, false); /* one run in flight: the copy would only add latency */
    /* lavapipe: a CPU device, whose device memory is host memory, reads back nothing by
     * copy unless told */
    test_output_copy(NULL, 2, false);
    return test_finish("test_session");
}
