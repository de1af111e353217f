/* Profiled sessions (vkml_session_params.profile): on the CPU device and every Vulkan
 * device, vkml_session_profile lists each node that ran, once, in execution order, with
 * its op, fused epilogue, device and a non-negative time whose sum is positive; outputs
 * are those of an unprofiled session; a split over two logical devices reports both;
 * an unprofiled session, or a too-small array, is answered as the API says. */
#include "test_graph.h"

#include <math.h>

#define N 96

/* x[N,N] -> MatMul W0 -> Relu (fused into it) -> MatMul W1 -> Mul x -> Sigmoid -> y:
 * three nodes after fusion (MatMul+Relu, MatMul, and a fused Mul -> Sigmoid group). */
static vkml_model *make_model(void)
{
    uint64_t seed = 3;
    graph *g = graph_create();
    int64_t d[2] = {N, N};
    int x = tg_value(g, "x", VKML_DTYPE_FLOAT, 2, d);
    int w0 = tg_random_constant(g, "w0", 2, d, -0.2f, 0.2f, &seed);
    int w1 = tg_random_constant(g, "w1", 2, d, -0.2f, 0.2f, &seed);
    int m0 = tg_value(g, "m0", VKML_DTYPE_FLOAT, 2, d),
        r0 = tg_value(g, "r0", VKML_DTYPE_FLOAT, 2, d);
    int m1 = tg_value(g, "m1", VKML_DTYPE_FLOAT, 2, d),
        p1 = tg_value(g, "p1", VKML_DTYPE_FLOAT, 2, d);
    int y = tg_value(g, "y", VKML_DTYPE_FLOAT, 2, d);
    tg_node(g, "mm0", "MatMul", x, w0, m0, 13);
    tg_node(g, "relu0", "Relu", m0, -1, r0, 13);
    tg_node(g, "mm1", "MatMul", r0, w1, m1, 13);
    tg_node(g, "gate", "Mul", m1, x, p1, 13);
    tg_node(g, "sig1", "Sigmoid", p1, -1, y, 13);
    return tg_model(g, &x, 1, &y, 1, 13);
}

static void run(vkml_session *s, float *out)
{
    static float x[N * N];
    uint64_t seed = 11;
    for (int i = 0; i < N * N; i++)
        x[i] = test_randf(&seed, -1, 1);
    vkml_tensor in = {
        .dtype = VKML_DTYPE_FLOAT, .rank = 2, .dims = {N, N}, .data = x, .size = sizeof(x)};
    vkml_tensor o = {.dtype = VKML_DTYPE_FLOAT,
                     .rank = 2,
                     .dims = {N, N},
                     .data = out,
                     .size = sizeof(float) * N * N};
    vkml_error err = {0};
    CHECK_OK(vkml_session_run(s, &in, 1, &o, 1, &err), &err);
}

static void check_device(vkml_context *ctx, vkml_model *m, const int *devs, size_t n_devs,
                         uint64_t budget, const char *what)
{
    vkml_error err = {0};
    vkml_session *plain = NULL, *prof = NULL;
    vkml_session_params pp = {.devices = devs, .n_devices = n_devs, .device_budget = budget};
    CHECK_OK(vkml_session_create(ctx, m, &pp, &plain, &err), &err);
    pp.profile = true;
    CHECK_OK(vkml_session_create(ctx, m, &pp, &prof, &err), &err);
    static float want[N * N], got[N * N];
    run(plain, want);
    run(prof, got);
    for (int i = 0; i < N * N; i++)
        CHECK(got[i] == want[i], "%s: output %d: %g profiled, %g not", what, i, (double)got[i],
              (double)want[i]);

    size_t n = 0, on_devices = 0;
    vkml_session_node_counts(prof, NULL, &on_devices, NULL);
    CHECK_OK(vkml_session_profile(prof, NULL, 0, &n, &err), &err);
    CHECK(n == on_devices && n == 3, "%s: %zu nodes profiled, %zu ran", what, n, on_devices);
    vkml_node_time t[8], small[1];
    size_t n2 = 0;
    CHECK_OK(vkml_session_profile(prof, t, 8, &n2, &err), &err);
    double sum = 0;
    bool seen_mm0 = false, seen_group = false, seen_parts[2] = {false, false};
    for (size_t i = 0; i < n2; i++) {
        CHECK(t[i].us >= 0 && isfinite(t[i].us) && t[i].name[0] && t[i].op[0],
              "%s: node %zu '%s' (%s) %g us", what, i, t[i].name, t[i].op, t[i].us);
        sum += t[i].us;
        if (!strcmp(t[i].name, "mm0"))
            seen_mm0 = !strcmp(t[i].op, "MatMul") && !strcmp(t[i].detail, "Relu") && i == 0;
        if (!strcmp(t[i].op, "FusedElementwise"))
            seen_group = strstr(t[i].detail, "Sigmoid") && strstr(t[i].detail, "Mul");
        for (size_t k = 0; k < n_devs && k < 2; k++)
            seen_parts[k] |= t[i].device == devs[k];
    }
    CHECK(sum > 0, "%s: no time at all", what);
    CHECK(seen_mm0 && seen_group, "%s: the first node is MatMul+Relu and a fused group follows",
          what);
    CHECK(seen_parts[0] && (n_devs < 2 || seen_parts[1]), "%s: times from every device used", what);
    /* room for fewer: the count is still the whole */
    CHECK_OK(vkml_session_profile(prof, small, 1, &n2, &err), &err);
    CHECK(n2 == n && !strcmp(small[0].name, t[0].name), "%s: a short array", what);
    CHECK(vkml_session_profile(plain, t, 8, &n2, &err) == VKML_ERROR_INVALID_ARGUMENT &&
              strstr(err.message, "profile"),
          "%s: an unprofiled session: %s", what, err.message);
    vkml_session_destroy(&plain);
    vkml_session_destroy(&prof);
}

int main(void)
{
    vkml_model *m = make_model();
    vkml_context_params cp = {.logical_devices_per_gpu = 2};
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(&cp, &ctx, &err), &err);
    int cpu = VKML_DEVICE_CPU;
    check_device(ctx, m, &cpu, 1, 0, "CPU device");
    test_require_vulkan(ctx);
    int gpu0 = 0;
    check_device(ctx, m, &gpu0, 1, 0, "GPU 0");
    if (vkml_context_device_count(ctx) >= 2) {
        /* two weights and a few activations per device: the second MatMul moves on */
        int both[2] = {0, 1};
        uint64_t w = N * N * sizeof(float);
        check_device(ctx, m, both, 2, w + 3 * w + w / 2, "split over two logical devices");
    } else {
        test_missing("a Vulkan device opened as two logical devices");
    }
    vkml_context_destroy(&ctx);
    vkml_model_destroy(&m);
    return test_finish("profile");
}
