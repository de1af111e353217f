/* Conv weights packed over taps (vk_conv_packs_weights; gemm_coop.comp's CONV=2 form on
 * devices with cooperative matrices): Y = Conv(Conv(X, W), W), both convs reading one
 * packed W, and Y = Conv(X, W) + W, where the Add reads W too, so that W stays as the
 * model has it and the conv takes the other kernels. X is [64, 64, 3, 3], W [64, 64, 3, 3],
 * pads 1: 64 output channels over 576 pixels, K 576, what the CONV=2 form takes. On every
 * Vulkan device, at fp16 and fp32-fast, the outputs match the CPU device's within float16
 * rounding (OUT_BOUND of the output's scale); on devices without cooperative matrices
 * (lavapipe) nothing is packed and the same comparison holds. */
#include "plan/session.h"
#include "test_graph.h"

#include <math.h>

#define OUT_BOUND 2e-2 /* two convs in float16 (inputs rounded, float32 sums) */

static void conv_attrs(graph *g, int node)
{
    static const int64_t pads[] = {1, 1, 1, 1};
    graph_node *n = &g->nodes[node];
    n->attrs = vkml_arena_calloc(g->arena, 1, sizeof(graph_attr));
    n->attrs[0] = (graph_attr){.name = "pads", .type = GRAPH_ATTR_INTS, .ints = pads, .count = 4};
    n->n_attrs = 1;
}

/* twice: Conv(Conv(X, W), W); else Conv(X, W) + W. */
static vkml_model *shared_weights_model(bool twice)
{
    int64_t d[] = {64, 64, 3, 3};
    uint64_t seed = 11;
    graph *g = graph_create();
    int x = tg_value(g, "X", VKML_DTYPE_FLOAT, 4, d);
    int w = tg_random_constant(g, "W", 4, d, -0.05f, 0.05f, &seed);
    int z = graph_add_value(g, "z"), y = graph_add_value(g, "Y");
    conv_attrs(g, tg_node(g, "conv1", "Conv", x, w, z, 11));
    if (twice)
        conv_attrs(g, tg_node(g, "conv2", "Conv", z, w, y, 11));
    else
        tg_node(g, "add", "Add", z, w, y, 13);
    return tg_model(g, (int[]){x}, 1, (int[]){y}, 1, 13);
}

static float *run(vkml_context *ctx, vkml_model *m, int device, vkml_precision precision,
                  const float *x, size_t n_x, size_t *n_y)
{
    vkml_error err = {0};
    vkml_session *s = NULL;
    vkml_session_params params = {.device = device, .precision = precision};
    CHECK_OK(vkml_session_create(ctx, m, &params, &s, &err), &err);
    if (!s)
        return NULL;
    float *y = tg_run_session(s, x, n_x, n_y);
    vkml_session_destroy(&s);
    return y;
}

int main(void)
{
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    test_require_vulkan(ctx);
    size_t n_x = 64 * 64 * 3 * 3;
    float *x = malloc(n_x * sizeof(float));
    uint64_t seed = 7;
    for (size_t i = 0; x && i < n_x; i++)
        x[i] = test_randf(&seed, -1.0f, 1.0f);
    for (int twice = 0; twice < 2; twice++) {
        const char *what = twice ? "Conv(Conv(X, W), W)" : "Conv(X, W) + W";
        vkml_model *m = shared_weights_model(twice);
        size_t n_ref = 0;
        float *ref = run(ctx, m, VKML_DEVICE_CPU, VKML_PRECISION_FP32, x, n_x, &n_ref);
        double scale = 1.0;
        for (size_t i = 0; ref && i < n_ref; i++)
            scale = fmax(scale, fabs(ref[i]));
        TEST_FOR_EACH_TARGET(t, ctx, false, VKML_PRECISION_FP16_ALWAYS, VKML_PRECISION_FP32_FAST) {
            int d = t.device;
            size_t n = 0;
            float *got = run(ctx, m, d, t.precision, x, n_x, &n);
            double worst = 0;
            for (size_t i = 0; ref && got && i < n && i < n_ref; i++)
                worst = fmax(worst, fabs((double)got[i] - ref[i]) / scale);
            CHECK(ref && got && n == n_ref && worst <= OUT_BOUND,
                  "%s, device %d, %s: %zu outputs against %zu, error %.2e of scale (bound "
                  "%.0e)",
                  what, d, vkml_precision_name(t.precision), n, n_ref, worst, OUT_BOUND);
            printf("%s, device %d, %s: error %.2e of scale\n", what, d,
                   vkml_precision_name(t.precision), worst);
            free(got);
        }
        free(ref);
        vkml_model_destroy(&m);
    }
    free(x);
    vkml_context_destroy(&ctx);
    return test_finish("conv weights packed over taps");
}
