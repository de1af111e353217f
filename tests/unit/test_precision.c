/* Precision as a session parameter: fp16 sessions of mnist-8 and of random conv / gemm /
 * elementwise graphs against the fp32 session on the CPU device, on the CPU device and on
 * every Vulkan device. Bound: max |fp16 - fp32| <= 1e-2 x max |fp32| per output. The
 * outputs stay float32, the fp16 plan really holds float16 tensors, its converted weights
 * are shared by the lanes, Exp (unsafe in float16) stays float32, and a Resize moves
 * float16 with float32 scales while a folded Shape adds no Cast; a float32 constant past
 * float16's range becomes -65504, not an infinity. */
#include "plan/session.h"
#include "test_graph.h"

#include <math.h>

#define FP16_BOUND 1e-2

/* Runs `m` once at `precision` on `device` with `x` (float32, shape of input 0); returns
 * output `o`'s values (malloc'ed) and checks its dtype; *ran (may be NULL): the precision
 * the session says it ran at. */
static float *run(vkml_context *ctx, vkml_model *m, int device, vkml_precision precision,
                  const float *x, size_t n_x, size_t o, size_t *n_out, vkml_precision *ran)
{
    vkml_error err = {0};
    vkml_session *s = NULL;
    vkml_session_params params = {.device = device, .precision = precision};
    CHECK_OK(vkml_session_create(ctx, m, &params, &s, &err), &err);
    if (!s)
        return NULL;
    if (ran)
        *ran = vkml_session_precision(s);
    const vkml_tensor_info *info = vkml_session_input(s, 0);
    CHECK(info->dtype == VKML_DTYPE_FLOAT, "input dtype %s", vkml_dtype_name(info->dtype));
    vkml_tensor in = {.dtype = VKML_DTYPE_FLOAT,
                      .rank = info->rank,
                      .data = (void *)x,
                      .size = n_x * sizeof(float)};
    memcpy(in.dims, info->dims, sizeof(in.dims));
    size_t n_outputs = vkml_session_output_count(s);
    vkml_tensor out[4] = {0};
    for (size_t k = 0; k < n_outputs && k < 4; k++) {
        CHECK(vkml_session_output(s, k)->dtype == VKML_DTYPE_FLOAT,
              "%s: output %zu is %s, not float", vkml_precision_name(precision), k,
              vkml_dtype_name(vkml_session_output(s, k)->dtype));
        CHECK_OK(vkml_session_alloc_output(s, k, &out[k], &err), &err);
    }
    CHECK_OK(vkml_session_run(s, &in, 1, out, n_outputs, &err), &err);
    *n_out = vkml_tensor_element_count(out[o].rank, out[o].dims);
    for (size_t k = 0; k < n_outputs && k < 4; k++)
        if (k != o)
            vkml_tensor_release(&out[k]);
    vkml_session_destroy(&s);
    return out[o].data;
}

/* Float16 values of an fp16 session's plan (nodes that really run in float16), and
 * whether its lanes share the converted weights. */
static void check_fp16_plan(vkml_context *ctx, vkml_model *m, int device, const char *what)
{
    vkml_error err = {0};
    vkml_session *s = NULL;
    vkml_session_params params = {
        .device = device, .precision = VKML_PRECISION_FP16_ALWAYS, .runs_in_flight = 2};
    CHECK_OK(vkml_session_create(ctx, m, &params, &s, &err), &err);
    if (!s)
        return;
    const plan *p0 = s->lanes[0].plan, *p1 = s->lanes[1].plan;
    int half_values = 0, half_constants = 0, shared = 0;
    for (int v = 0; v < p0->graph->n_values; v++) {
        if (p0->values[v].dtype != VKML_DTYPE_FLOAT16)
            continue;
        half_values++;
        if (s->graph->values[v].kind == GRAPH_VALUE_CONSTANT) {
            half_constants++;
            shared += p0->values[v].data == p1->values[v].data;
        }
    }
    CHECK(half_values > 0, "%s, device %d: the fp16 plan has no float16 value", what, device);
    CHECK(half_constants > 0 && shared == half_constants,
          "%s, device %d: %d of %d float16 weights shared by the lanes", what, device, shared,
          half_constants);
    vkml_session_destroy(&s);
}

/* fp16 against the fp32 CPU reference on every device; returns the worst normalised error. */
static double compare(vkml_context *ctx, vkml_model *m, const float *x, size_t n_x, size_t o,
                      const char *what)
{
    size_t n_ref = 0, n = 0;
    float *ref = run(ctx, m, VKML_DEVICE_CPU, VKML_PRECISION_FP32, x, n_x, o, &n_ref, NULL);
    double worst = 0;
    TEST_FOR_EACH_TARGET(t, ctx, true, VKML_PRECISION_FP16_ALWAYS) {
        if (!ref)
            break;
        int device = t.device;
        float *got = run(ctx, m, device, t.precision, x, n_x, o, &n, NULL);
        double max_ref = 0, max_err = 0;
        for (size_t i = 0; i < n_ref; i++)
            max_ref = fmax(max_ref, fabs(ref[i]));
        for (size_t i = 0; got && n == n_ref && i < n; i++)
            max_err = isfinite(got[i]) ? fmax(max_err, fabs(got[i] - ref[i])) : INFINITY;
        CHECK(got && n == n_ref && max_ref > 0 && max_err <= FP16_BOUND * max_ref,
              "%s, device %d: fp16 max error %.3g > %.0e x max |ref| %.3g", what, device, max_err,
              FP16_BOUND, max_ref);
        printf("%s, device %d: fp16 vs fp32 max error %.3g (max |ref| %.3g: %.2e of it)\n", what,
               device, max_err, max_ref, max_ref > 0 ? max_err / max_ref : 0);
        worst = fmax(worst, max_ref > 0 ? max_err / max_ref : INFINITY);
        check_fp16_plan(ctx, m, device, what);
        free(got);
    }
    free(ref);
    return worst;
}

static void test_mnist(vkml_context *ctx)
{
    char path[1024];
    vkml_model *m = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_model_load_file(test_corpus_path(path, sizeof(path), "models/mnist-8/model.onnx"),
                                  &m, &err),
             &err);
    if (!m)
        return;
    float x[28 * 28];
    uint64_t seed = 5;
    for (int i = 0; i < 28 * 28; i++)
        x[i] = test_randf(&seed, 0, 255); /* mnist-8 takes raw pixel values */
    compare(ctx, m, x, 28 * 28, 0, "mnist-8");
    vkml_model_destroy(&m);
}

/* X[1,C,H,W] -> Conv(W1,B1) -> Relu -> Mul(X2 const) -> Add -> Flatten -> Gemm(W2,B2) ->
 * Tanh = Y; and Exp(Gemm output / 4) = Z (Exp stays float32). Shapes from the seed. */
static vkml_model *random_model(uint64_t *seed, int64_t *x_dims)
{
    int64_t c = 1 + (int64_t)test_randf(seed, 0, 4), h = 5 + (int64_t)test_randf(seed, 0, 7),
            w = 5 + (int64_t)test_randf(seed, 0, 9), k = 2 + (int64_t)test_randf(seed, 0, 6),
            n = 3 + (int64_t)test_randf(seed, 0, 9);
    int64_t xd[] = {1, c, h, w}, wd[] = {k, c, 3, 3}, bd[] = {k}, yd[] = {1, k, h - 2, w - 2};
    int64_t fl = k * (h - 2) * (w - 2), w2d[] = {fl, n}, b2d[] = {n}, one[] = {1};
    memcpy(x_dims, xd, sizeof(xd));
    graph *g = graph_create();
    int x = tg_value(g, "X", VKML_DTYPE_FLOAT, 4, xd);
    int w1 = tg_random_constant(g, "W1", 4, wd, -0.5f, 0.5f, seed);
    int b1 = tg_random_constant(g, "B1", 1, bd, -0.5f, 0.5f, seed);
    int scale = tg_random_constant(g, "scale", 4, yd, 0.5f, 1.5f, seed);
    int w2 = tg_random_constant(g, "W2", 2, w2d, -0.2f, 0.2f, seed);
    int b2 = tg_random_constant(g, "B2", 1, b2d, -0.2f, 0.2f, seed);
    int quarter = tg_value(g, "quarter", VKML_DTYPE_FLOAT, 1, one);
    static const float q = 0.25f;
    g->values[quarter].kind = GRAPH_VALUE_CONSTANT;
    g->values[quarter].data = &q;
    g->values[quarter].data_size = sizeof(q);
    int conv = graph_add_value(g, "conv"), relu = graph_add_value(g, "relu"),
        mul = graph_add_value(g, "mul"), add = graph_add_value(g, "add"),
        flat = graph_add_value(g, "flat"), gemm = graph_add_value(g, "gemm"),
        y = graph_add_value(g, "Y"), small = graph_add_value(g, "small"),
        z = graph_add_value(g, "Z");
    tg_node_io(g, "conv", "Conv", (int[]){x, w1, b1}, 3, (int[]){conv}, 1, 13);
    tg_node(g, "relu", "Relu", conv, -1, relu, 13);
    tg_node(g, "mul", "Mul", relu, scale, mul, 13);
    tg_node(g, "add", "Add", mul, conv, add, 13);
    tg_node(g, "flatten", "Flatten", add, -1, flat, 13);
    int gn = graph_add_node(g, "gemm", "Gemm", "", 3, 1, 0);
    g->nodes[gn].inputs[0] = flat;
    g->nodes[gn].inputs[1] = w2;
    g->nodes[gn].inputs[2] = b2;
    g->nodes[gn].outputs[0] = gemm;
    g->nodes[gn].opset = 13;
    tg_node(g, "tanh", "Tanh", gemm, -1, y, 13);
    tg_node(g, "scale_down", "Mul", gemm, quarter, small, 13);
    tg_node(g, "exp", "Exp", small, -1, z, 13);
    return tg_model(g, (int[]){x}, 1, (int[]){y, z}, 2, 13);
}

/* The Exp node keeps float32: its inputs and output in the fp16 plan are float. */
static void check_exp_stays_fp32(vkml_context *ctx, vkml_model *m)
{
    vkml_error err = {0};
    vkml_session *s = NULL;
    vkml_session_params params = {.device = VKML_DEVICE_CPU,
                                  .precision = VKML_PRECISION_FP16_ALWAYS};
    CHECK_OK(vkml_session_create(ctx, m, &params, &s, &err), &err);
    const plan *p = s ? s->plan : NULL;
    int exps = 0;
    for (int i = 0; p && i < p->graph->n_nodes; i++) {
        const graph_node *n = &p->graph->nodes[i];
        if (strcmp(n->op_type, "Exp"))
            continue;
        exps++;
        CHECK(p->values[n->inputs[0]].dtype == VKML_DTYPE_FLOAT &&
                  p->values[n->outputs[0]].dtype == VKML_DTYPE_FLOAT,
              "Exp runs in %s", vkml_dtype_name(p->values[n->outputs[0]].dtype));
    }
    CHECK(exps == 1, "%d Exp nodes in the fp16 plan", exps);
    vkml_session_destroy(&s);
}

static void test_random_graphs(vkml_context *ctx)
{
    uint64_t seed = 77;
    for (int t = 0; t < 4; t++) {
        int64_t xd[4];
        vkml_model *m = random_model(&seed, xd);
        if (!m)
            return;
        size_t n_x = vkml_tensor_element_count(4, xd);
        float *x = malloc(n_x * sizeof(float));
        for (size_t i = 0; i < n_x; i++)
            x[i] = test_randf(&seed, -1, 1);
        char what[96];
        snprintf(what, sizeof(what), "random graph %d [1,%lld,%lld,%lld] Y", t, (long long)xd[1],
                 (long long)xd[2], (long long)xd[3]);
        compare(ctx, m, x, n_x, 0, what);
        snprintf(what, sizeof(what), "random graph %d Z (Exp)", t);
        compare(ctx, m, x, n_x, 1, what);
        if (t == 0)
            check_exp_stays_fp32(ctx, m);
        free(x);
        vkml_model_destroy(&m);
    }
}

/* A detector's neck as PyTorch exports it: a channel gain, Relu, then a 2x nearest Resize
 * whose output is reshaped to a shape computed from Shape of the Relu's output (folded at
 * plan time). */
static vkml_model *neck_model(void)
{
    int64_t xd[] = {1, 4, 6, 8}, four[] = {4}, gd[] = {1, 4, 1, 1};
    uint64_t seed = 9;
    graph *g = graph_create();
    int x = tg_value(g, "X", VKML_DTYPE_FLOAT, 4, xd);
    int gain = tg_random_constant(g, "gain", 4, gd, 0.5f, 2.0f, &seed);
    static const float scales[] = {1, 1, 2, 2};
    static const int64_t twice[] = {1, 1, 2, 2};
    int sc = tg_value(g, "scales", VKML_DTYPE_FLOAT, 1, four);
    g->values[sc].kind = GRAPH_VALUE_CONSTANT;
    g->values[sc].data = scales;
    g->values[sc].data_size = sizeof(scales);
    int tw = tg_value(g, "twice", VKML_DTYPE_INT64, 1, four);
    g->values[tw].kind = GRAPH_VALUE_CONSTANT;
    g->values[tw].data = twice;
    g->values[tw].data_size = sizeof(twice);
    int gained = graph_add_value(g, "gained"), relu = graph_add_value(g, "relu"),
        shape = graph_add_value(g, "shape"), target = graph_add_value(g, "target"),
        up = graph_add_value(g, "up"), y = graph_add_value(g, "Y");
    tg_node(g, "gain", "Mul", x, gain, gained, 13);
    tg_node(g, "relu", "Relu", gained, -1, relu, 13);
    tg_node(g, "shape", "Shape", relu, -1, shape, 13);
    tg_node(g, "target", "Mul", shape, tw, target, 13);
    int rn = graph_add_node(g, "up", "Resize", "", 3, 1, 0);
    g->nodes[rn].inputs[0] = relu;
    g->nodes[rn].inputs[1] = -1;
    g->nodes[rn].inputs[2] = sc;
    g->nodes[rn].outputs[0] = up;
    g->nodes[rn].opset = 13;
    tg_node(g, "reshape", "Reshape", up, target, y, 13);
    return tg_model(g, (int[]){x}, 1, (int[]){y}, 1, 13);
}

/* The neck's fp16 plan: the Resize moves float16 with its scales kept float32, and the
 * folded Shape costs no Cast. No Cast at all: the runs convert the float32 input and
 * output as they copy them (the plan's X and Y are float16, the session's float32). */
static void test_neck(vkml_context *ctx)
{
    vkml_model *m = neck_model();
    if (!m)
        return;
    float x[1 * 4 * 6 * 8];
    uint64_t seed = 5;
    for (size_t i = 0; i < sizeof(x) / sizeof(x[0]); i++)
        x[i] = test_randf(&seed, -1, 1);
    compare(ctx, m, x, sizeof(x) / sizeof(x[0]), 0, "neck (Shape, Resize)");
    TEST_FOR_EACH_TARGET(t, ctx, true, VKML_PRECISION_FP16_ALWAYS) {
        int d = t.device;
        vkml_error err = {0};
        vkml_session *s = NULL;
        vkml_session_params params = {.device = d, .precision = t.precision};
        CHECK_OK(vkml_session_create(ctx, m, &params, &s, &err), &err);
        const plan *p = s ? s->plan : NULL;
        int casts = 0, resizes = 0;
        for (int i = 0; p && i < p->graph->n_nodes; i++) {
            const graph_node *n = &p->graph->nodes[i];
            casts += !strcmp(n->op_type, "Cast");
            if (strcmp(n->op_type, "Resize"))
                continue;
            resizes++;
            CHECK(p->values[n->inputs[0]].dtype == VKML_DTYPE_FLOAT16 &&
                      p->values[n->outputs[0]].dtype == VKML_DTYPE_FLOAT16 &&
                      p->values[n->inputs[2]].dtype == VKML_DTYPE_FLOAT,
                  "device %d: the Resize reads %s with %s scales", d,
                  vkml_dtype_name(p->values[n->inputs[0]].dtype),
                  vkml_dtype_name(p->values[n->inputs[2]].dtype));
        }
        CHECK(p && resizes == 1 && casts == 0,
              "device %d: the fp16 plan has %d Resize and %d Casts (want 1 and 0)", d, resizes,
              casts);
        CHECK(p && p->values[p->graph->inputs[0]].dtype == VKML_DTYPE_FLOAT16 &&
                  p->values[p->graph->outputs[0]].dtype == VKML_DTYPE_FLOAT16 &&
                  vkml_session_input(s, 0)->dtype == VKML_DTYPE_FLOAT &&
                  vkml_session_output(s, 0)->dtype == VKML_DTYPE_FLOAT,
              "device %d: the plan's X and Y float16, the session's float32", d);
        vkml_session_destroy(&s);
    }
    vkml_model_destroy(&m);
}

/* A float32 constant past float16's range: Hugging Face's mask, (1 - M) * float32's lowest,
 * M an input of 0 and 1. The fp16 plan holds the constant as -65504, so that where M is 1,
 * 0 times it stays 0; an infinity there made NaNs. */
static void test_lowest_constant(vkml_context *ctx)
{
    graph *g = graph_create();
    int x = tg_value(g, "M", VKML_DTYPE_FLOAT, 2, (int64_t[]){2, 4});
    int one = tg_const(g, "one", (float[]){1.0f}, 0, NULL);
    int low = tg_const(g, "lowest", (float[]){-3.4028235e38f}, 0, NULL);
    int inv = tg_value(g, "inv", VKML_DTYPE_FLOAT, 0, NULL);
    int y = tg_value(g, "Y", VKML_DTYPE_FLOAT, 0, NULL);
    tg_node(g, "inv", "Sub", one, x, inv, 13);
    tg_node(g, "scale", "Mul", inv, low, y, 13);
    vkml_model *m = tg_model(g, (int[]){x}, 1, (int[]){y}, 1, 13);
    float xs[8] = {1, 1, 0, 1, 0, 1, 1, 0};
    TEST_FOR_EACH_TARGET(t, ctx, true, VKML_PRECISION_FP16_ALWAYS) {
        size_t n = 0;
        float *got = m ? run(ctx, m, t.device, t.precision, xs, 8, 0, &n, NULL) : NULL;
        for (size_t i = 0; got && i < n; i++)
            CHECK(xs[i] == 1 ? got[i] == 0 : got[i] <= -65504.0f,
                  "device %d %s: Y[%zu] = %g where M is %g", t.device,
                  vkml_precision_name(t.precision), i, got[i], xs[i]);
        CHECK(got && n == 8, "device %d: no output", t.device);
        free(got);
    }
    vkml_model_destroy(&m);
}

/* The runs' bulk conversions (F16C where the CPU has it) give vkml_half_from_float's and
 * vkml_half_to_float's bits: every float16, and float32 ties, the overflow edge, subnormals,
 * NaNs and random patterns, at lengths that leave a tail past the 8-wide steps. */
static void test_bulk_conversion(void)
{
    enum { N = 65536 + 3 };
    static uint16_t h[N], h2[N];
    static float f[N], f2[N];
    for (uint32_t i = 0; i < N; i++)
        h[i] = (uint16_t)(i * 40503u); /* every pattern once in the first 65536 */
    vkml_floats_from_halves(f, h, N);
    int bad = 0;
    for (uint32_t i = 0; i < N; i++) {
        float want = vkml_half_to_float(h[i]);
        bad += memcmp(&want, &f[i], 4) != 0;
    }
    CHECK(bad == 0, "float16 -> float32: %d of %d differ from vkml_half_to_float", bad, N);
    static const uint32_t edges[] = {0x477fefffu, 0x477ff000u, 0x477fe000u, 0x33000000u,
                                     0x33000001u, 0x387fe000u, 0x38801000u, 0x38803000u,
                                     0x7fc00001u, 0xff800001u, 0x80000000u, 0x00000001u};
    uint64_t seed = 3;
    for (uint32_t i = 0; i < N; i++) {
        uint32_t u = i < VKML_ARRAY_SIZE(edges)
                         ? edges[i]
                         : (uint32_t)(test_randf(&seed, 0, 1) * 4294967040.0f);
        if (i % 3 == 0 && i >= VKML_ARRAY_SIZE(edges)) /* near float16's range */
            u = (0x33000000u + u % 0x14800000u) | (u & 0x80000000u);
        memcpy(&f2[i], &u, 4);
    }
    vkml_halves_from_floats(h2, f2, N);
    bad = 0;
    for (uint32_t i = 0; i < N; i++)
        bad += h2[i] != vkml_half_from_float(f2[i]);
    CHECK(bad == 0, "float32 -> float16: %d of %d differ from vkml_half_from_float", bad, N);
}

static void test_names(vkml_context *ctx)
{
    vkml_precision p = VKML_PRECISION_FP32;
    CHECK(vkml_precision_parse("fp16", &p) && p == VKML_PRECISION_FP16, "parse fp16");
    CHECK(vkml_precision_parse("fp16-always", &p) && p == VKML_PRECISION_FP16_ALWAYS,
          "parse fp16-always");
    CHECK(vkml_precision_parse("fp32-fast", &p) && p == VKML_PRECISION_FP32_FAST,
          "parse fp32-fast");
    CHECK(!vkml_precision_parse("fp8", &p) && p == VKML_PRECISION_FP32_FAST, "fp8 refused");
    CHECK(!vkml_precision_parse(NULL, &p), "NULL refused");
    CHECK(!strcmp(vkml_precision_name(VKML_PRECISION_FP32), "fp32") &&
              !strcmp(vkml_precision_name((vkml_precision)42), "unknown"),
          "precision names");
    /* An out-of-range precision is the caller's error, named. */
    uint64_t seed = 1;
    int64_t xd[4];
    vkml_model *m = random_model(&seed, xd);
    vkml_session *s = NULL;
    vkml_error err = {0};
    vkml_session_params params = {.device = VKML_DEVICE_CPU, .precision = (vkml_precision)9};
    CHECK(vkml_session_create(ctx, m, &params, &s, &err) == VKML_ERROR_INVALID_ARGUMENT && !s &&
              strstr(err.message, "precision"),
          "precision 9: %s", err.message);
    vkml_model_destroy(&m);
}

/* The last "precision fp16:" message a context logged. */
typedef struct fp16_log {
    char text[512];
    int count;
} fp16_log;

static void capture_fp16(void *user, vkml_log_level level, const char *message)
{
    fp16_log *log = user;
    if (level == VKML_LOG_INFO && strstr(message, "precision fp16:")) {
        snprintf(log->text, sizeof(log->text), "%s", message);
        log->count++;
    }
}

/* Precision fp16 (float16 where it pays) on every device: the session times its float16
 * plan against float32 and says so; it runs at the faster, and its output is bit for bit
 * that precision's (fp16-always or fp32); a second session of the model on the device
 * takes the same choice without timing again. */
static void test_measured_choice(void)
{
    fp16_log log = {0};
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    vkml_context_params cp = {.log_level = VKML_LOG_INFO,
                              .log_level_set = true,
                              .log_callback = capture_fp16,
                              .log_user = &log};
    CHECK_OK(vkml_context_create(&cp, &ctx, &err), &err);
    if (!ctx)
        return;
    uint64_t seed = 11;
    int64_t xd[4];
    vkml_model *m = random_model(&seed, xd);
    size_t n_x = (size_t)(xd[0] * xd[1] * xd[2] * xd[3]);
    float *x = malloc(n_x * sizeof(float));
    for (size_t i = 0; x && i < n_x; i++)
        x[i] = test_randf(&seed, -1, 1);
    TEST_FOR_EACH_TARGET(t, ctx, true, VKML_PRECISION_FP16) {
        if (!m || !x)
            break;
        vkml_precision ran = VKML_PRECISION_FP32_FAST, again = VKML_PRECISION_FP32_FAST, other;
        size_t n = 0, n_same = 0, n_again = 0;
        int logged = log.count;
        float *got = run(ctx, m, t.device, t.precision, x, n_x, 0, &n, &ran);
        double us16 = -1, us32 = -1;
        int nodes = 0;
        char at[16] = "";
        const char *took = strstr(log.text, "a run took ");
        CHECK(log.count == logged + 1 && took &&
                  sscanf(took, "a run took %lf us in float16 (%d nodes), %lf us in float32", &us16,
                         &nodes, &us32) == 3 &&
                  strstr(log.text, "the session runs at ") &&
                  sscanf(strstr(log.text, "the session runs at ") + 20, "%15s", at) == 1,
              "device %d: fp16 logged '%s'", t.device, log.text);
        CHECK(us16 > 0 && us32 > 0 && nodes > 0, "device %d: times %g / %g us, %d nodes", t.device,
              us16, us32, nodes);
        vkml_precision want = us16 <= us32 ? VKML_PRECISION_FP16 : VKML_PRECISION_FP32;
        CHECK(ran == want && !strcmp(at, want == VKML_PRECISION_FP16 ? "float16" : "float32"),
              "device %d: %g us at float16, %g at float32, but the session runs at %s ('%s')",
              t.device, us16, us32, vkml_precision_name(ran), at);
        float *same =
            run(ctx, m, t.device,
                ran == VKML_PRECISION_FP16 ? VKML_PRECISION_FP16_ALWAYS : VKML_PRECISION_FP32, x,
                n_x, 0, &n_same, &other);
        CHECK(got && same && n == n_same && !memcmp(got, same, n * sizeof(float)),
              "device %d: fp16 chose %s, its output differs from that precision's", t.device,
              vkml_precision_name(ran));
        logged = log.count;
        float *second = run(ctx, m, t.device, t.precision, x, n_x, 0, &n_again, &again);
        CHECK(again == ran && log.count == logged + 1 &&
                  strstr(log.text, "timed by an earlier session of the model"),
              "device %d: a second fp16 session ran at %s after %s ('%s')", t.device,
              vkml_precision_name(again), vkml_precision_name(ran), log.text);
        printf("device %d: precision fp16 %.1f us, fp32 %.1f us: runs at %s\n", t.device, us16,
               us32, vkml_precision_name(ran));
        free(got);
        free(same);
        free(second);
    }
    free(x);
    vkml_model_destroy(&m);
    vkml_context_destroy(&ctx);
}

/* A Cast node of `in` to `to`. */
static void cast_node(graph *g, const char *name, int in, int out, vkml_dtype to)
{
    int n = graph_add_node(g, name, "Cast", "", 1, 1, 1);
    g->nodes[n].inputs[0] = in;
    g->nodes[n].outputs[0] = out;
    g->nodes[n].opset = 13;
    g->nodes[n].attrs[0] = (graph_attr){.name = "to", .type = GRAPH_ATTR_INT, .i = to};
}

/* A float16 model on the CPU device computes and keeps float32 between nodes (the widened
 * graph), while an explicit Cast to float16 still rounds: Y = fp16(fp16(b) + b) for
 * b = Relu(X * gain), X, gain and Y float16. The output equals that computed here in
 * float32 bit for bit; with VKML_CPU_WIDEN=0 the plan keeps b float16. */
static void test_cpu_widen(vkml_context *ctx)
{
    int64_t xd[] = {1, 4, 6, 8}, gd[] = {1, 4, 1, 1};
    enum { N = 1 * 4 * 6 * 8 };
    uint64_t seed = 11;
    graph *g = graph_create();
    int x = tg_value(g, "X", VKML_DTYPE_FLOAT16, 4, xd);
    int gain = tg_value(g, "gain", VKML_DTYPE_FLOAT16, 4, gd);
    uint16_t *gh = vkml_arena_calloc(g->arena, 4, sizeof(uint16_t));
    for (int c = 0; c < 4; c++)
        gh[c] = vkml_half_from_float(test_randf(&seed, 0.5f, 3.0f));
    g->values[gain].kind = GRAPH_VALUE_CONSTANT;
    g->values[gain].data = gh;
    g->values[gain].data_size = 4 * sizeof(uint16_t);
    int a = graph_add_value(g, "a"), b = graph_add_value(g, "b"), c32 = graph_add_value(g, "c"),
        d = graph_add_value(g, "d"), y = graph_add_value(g, "Y");
    tg_node(g, "mul", "Mul", x, gain, a, 13);
    tg_node(g, "relu", "Relu", a, -1, b, 13);
    cast_node(g, "to32", b, c32, VKML_DTYPE_FLOAT);
    cast_node(g, "to16", c32, d, VKML_DTYPE_FLOAT16);
    tg_node(g, "add", "Add", d, b, y, 13);
    vkml_model *m = tg_model(g, (int[]){x}, 1, (int[]){y}, 1, 13);
    if (!m)
        return;
    uint16_t xh[N], want[N];
    for (int i = 0; i < N; i++) {
        xh[i] = vkml_half_from_float(test_randf(&seed, -3, 3));
        float bf = vkml_half_to_float(xh[i]) * vkml_half_to_float(gh[i / 48]);
        bf = bf > 0 ? bf : 0;
        want[i] = vkml_half_from_float(vkml_half_to_float(vkml_half_from_float(bf)) + bf);
    }
    for (int widen = 1; widen >= 0; widen--) {
        setenv("VKML_CPU_WIDEN", widen ? "1" : "0", 1);
        vkml_error err = {0};
        vkml_session *s = NULL;
        vkml_session_params params = {.device = VKML_DEVICE_CPU};
        CHECK_OK(vkml_session_create(ctx, m, &params, &s, &err), &err);
        if (!s)
            continue;
        const plan *p = s->plan;
        vkml_dtype relu_out = VKML_DTYPE_UNDEFINED;
        for (int v = 0; v < p->graph->n_values; v++)
            if (!strcmp(p->graph->values[v].name, "b"))
                relu_out = p->values[v].dtype;
        CHECK(relu_out == (widen ? VKML_DTYPE_FLOAT : VKML_DTYPE_FLOAT16) &&
                  vkml_session_input(s, 0)->dtype == VKML_DTYPE_FLOAT16 &&
                  vkml_session_output(s, 0)->dtype == VKML_DTYPE_FLOAT16,
              "widen %d: the Relu writes %s; the session's X %s and Y %s", widen,
              vkml_dtype_name(relu_out), vkml_dtype_name(vkml_session_input(s, 0)->dtype),
              vkml_dtype_name(vkml_session_output(s, 0)->dtype));
        uint16_t got[N];
        vkml_tensor in = {.dtype = VKML_DTYPE_FLOAT16, .rank = 4, .data = xh, .size = sizeof(xh)};
        vkml_tensor out = {
            .dtype = VKML_DTYPE_FLOAT16, .rank = 4, .data = got, .size = sizeof(got)};
        memcpy(in.dims, xd, sizeof(xd));
        memcpy(out.dims, xd, sizeof(xd));
        CHECK_OK(vkml_session_run(s, &in, 1, &out, 1, &err), &err);
        int off = 0;
        for (int i = 0; widen && i < N; i++)
            off += got[i] != want[i];
        CHECK(off == 0, "widened: %d of %d outputs differ from fp16(fp16(b) + b) in float32", off,
              N);
        vkml_session_destroy(&s);
    }
    unsetenv("VKML_CPU_WIDEN");
    vkml_model_destroy(&m);
}

int main(void)
{
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    test_require_vulkan(ctx);
    test_names(ctx);
    test_bulk_conversion();
    test_random_graphs(ctx);
    test_neck(ctx);
    test_lowest_constant(ctx);
    test_mnist(ctx);
    test_measured_choice();
    test_cpu_widen(ctx);
    vkml_context_destroy(&ctx);
    return test_finish("test_precision");
}
