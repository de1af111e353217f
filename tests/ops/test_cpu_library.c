/* The CPU device's library kernels (lib/cpu/onednn/) against its plain C kernels
 * (VKML_CPU_KERNELS=reference): each case is a small graph of float32 inputs, run on the
 * CPU device both ways. The library must take the nodes the case names (the debug log says
 * which ran on oneDNN) and agree with the C kernels to 1e-4 of the output's scale; integer
 * outputs exactly, requantized int8 and uint8 ones to 1 (quantized_compare says why).
 *
 * Cases: Conv in 1, 2 and 3 spatial dims with every stride, pad (asymmetric, auto_pad),
 * dilation and group form of the ONNX node suite (grouped, depthwise, depthwise with a
 * multiplier, 1x1, the 3-channel stem, a batch of 2), with and without bias, with each fused
 * activation and a residual, and a fused MaxPool; MaxPool and AveragePool (pads, ceil_mode,
 * dilations, count_include_pad) and the global pools; MatMul (batched, broadcast, 1-D
 * operands, constant and dynamic B, transposes absorbed) and Gemm (transposes, alpha, beta,
 * each C shape); Add, Sub, Mul and Div with broadcasting; Softmax, LogSoftmax and
 * LayerNormalization; float16 Convs, MatMuls and Gemms (computed in float32); MatMulInteger;
 * QLinearConv and ConvInteger (strides, pads, dilations, groups, depthwise, 1-3 spatial
 * dims, uint8 and int8 in and out, zero points, per-tensor and per-channel scales, bias, a
 * chain kept channels-last) and QLinearMatMul (batched, broadcast, ragged, per-column
 * scales), uint8 weights and per-channel weights zero points (packed less their zero
 * points), with the forms left to the C kernel (weights that less their zero points leave
 * int8, a dynamic uint8 B); Resize
 * by whole nearest factors (and forms left to the C kernel); Concat, Split and Slice over channels
 * (a YOLO C2f block, with ranges that cut blocks of 16); the thread count a session asks for; and
 * chains whose values stay in the library's layouts between nodes, broken by a node the library
 * does not run. */
#include "cpu/onednn/onednn.h"
#include "test_graph.h"

/* The case tables give each row's leading fields; the rest are zero. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

static uint64_t seed = 7;

/* ---- building ---------------------------------------------------------------------- */

static graph_attr ints(graph *g, const char *name, int n, const int64_t *v)
{
    return (graph_attr){.name = name,
                        .type = GRAPH_ATTR_INTS,
                        .count = (size_t)n,
                        .ints = vkml_arena_memdup(g->arena, v, sizeof(int64_t) * (size_t)n)};
}

static graph_attr one_int(const char *name, int64_t v)
{
    return (graph_attr){.name = name, .type = GRAPH_ATTR_INT, .i = v};
}

static graph_attr one_float(const char *name, float v)
{
    return (graph_attr){.name = name, .type = GRAPH_ATTR_FLOAT, .f = v};
}

static graph_attr text(const char *name, const char *v)
{
    return (graph_attr){.name = name, .type = GRAPH_ATTR_STRING, .s = v, .s_len = strlen(v)};
}

/* A node of n_in inputs (-1: omitted), one output, the attributes given (n_attrs of them). */
static int add_node(graph *g, const char *op, int opset, int n_in, const int *in, int out,
                    int n_attrs, const graph_attr *attrs)
{
    char name[32];
    snprintf(name, sizeof(name), "n%d", g->n_nodes);
    int n = graph_add_node(g, name, op, "", n_in, 1, n_attrs);
    memcpy(g->nodes[n].inputs, in, sizeof(int) * (size_t)n_in);
    g->nodes[n].outputs[0] = out;
    g->nodes[n].opset = opset;
    if (n_attrs)
        memcpy(g->nodes[n].attrs, attrs, sizeof(graph_attr) * (size_t)n_attrs);
    return n;
}

static int value(graph *g)
{
    char name[32];
    snprintf(name, sizeof(name), "v%d", g->n_values);
    return graph_add_value(g, name);
}

static int input(graph *g, int rank, const int64_t *dims)
{
    char name[32];
    snprintf(name, sizeof(name), "in%d", g->n_values);
    return tg_value(g, name, VKML_DTYPE_FLOAT, rank, dims);
}

static int weights(graph *g, int rank, const int64_t *dims)
{
    char name[32];
    snprintf(name, sizeof(name), "w%d", g->n_values);
    return tg_random_constant(g, name, rank, dims, -0.5f, 0.5f, &seed);
}

/* ---- running ----------------------------------------------------------------------- */

static int library_nodes;   /* nodes on oneDNN in the session being created */
static int library_threads; /* its "N nodes on oneDNN, T threads each" */
static int thread_trials;   /* small nodes timed on both team sizes, and those kept wide */
static int wide_kept;
static char first_stored[32];   /* how its first library node's output is stored */
static char first_impl[64];     /* and its implementation ("jit:avx512_core") */
static char first_out[32];      /* and the layout it writes ("blocked") */
static bool first_split;        /* its int8 weights split in two (no VNNI: onednn_quant.c) */
static int in_place_convs;      /* convs the CPU device put in their residual's memory */
static int ref_convs;           /* convs on oneDNN's reference code (ref:any) */
static char winograd_timed[16]; /* a conv's timed choice: "Winograd" or "direct" ("": none) */
static char blocks_timed[24];   /* a direct conv's in a blocked plan: "in blocks" or "as oneDNN
                                 * picks" ("": not timed) */

static void count_library(void *user, vkml_log_level level, const char *message)
{
    (void)user;
    (void)level;
    int nodes, threads;
    const char *p = strstr(message, "output stored ");
    if (getenv("VKML_TEST_LOG"))
        printf("  log: %s\n", message);
    if (strstr(message, "runs on oneDNN") && library_nodes++ == 0) {
        snprintf(first_stored, sizeof(first_stored), "%.*s", p ? (int)strcspn(p + 14, ";") : 0,
                 p ? p + 14 : "");
        const char *impl = strstr(message, "oneDNN (");
        snprintf(first_impl, sizeof(first_impl), "%.*s", impl ? (int)strcspn(impl + 8, ";") : 0,
                 impl ? impl + 8 : "");
        first_split = strstr(message, ", weights split;") != NULL;
        const char *out = strstr(message, " in, ");
        snprintf(first_out, sizeof(first_out), "%.*s", out ? (int)strcspn(out + 5, " ") : 0,
                 out ? out + 5 : "");
    }
    if (strstr(message, "Conv runs on oneDNN (ref:"))
        ref_convs++;
    if (strstr(message, "by Winograd's algorithm") && strrchr(message, ':'))
        snprintf(winograd_timed, sizeof(winograd_timed), "%s", strrchr(message, ':') + 2);
    if (strstr(message, "values in blocks: directly") && strrchr(message, ':'))
        snprintf(blocks_timed, sizeof(blocks_timed), "%s", strrchr(message, ':') + 2);
    if (strstr(message, "in their residual's memory") &&
        sscanf(message, "CPU device: %d convs", &nodes) == 1)
        in_place_convs += nodes;
    const char *trial = strstr(message, " thread");
    int kept;
    if (strstr(message, "CPU device: ") && trial && strstr(trial, ") or 1 (") &&
        sscanf(strrchr(message, ':') + 1, "%d", &kept) == 1) {
        thread_trials++;
        wide_kept += kept > 1;
    }
    if (sscanf(message, "CPU device: %d nodes on oneDNN, %d thread", &nodes, &threads) == 2) {
        library_threads = threads;
        library_nodes = nodes; /* a node declined at build logs the others twice */
    }
}

#define MAX_IO 4

typedef struct io {
    vkml_tensor t[MAX_IO];
    int n;
} io;

static void run(vkml_context *ctx, vkml_model *m, const io *in, io *out, bool reference)
{
    vkml_error err = {0};
    vkml_session *s = NULL;
    if (reference)
        setenv("VKML_CPU_KERNELS", "reference", 1);
    library_nodes = 0;
    first_split = false;
    vkml_session_params params = {.device = VKML_DEVICE_CPU};
    CHECK_OK(vkml_session_create(ctx, m, &params, &s, &err), &err);
    unsetenv("VKML_CPU_KERNELS");
    if (!s)
        return;
    out->n = (int)vkml_session_output_count(s);
    for (int o = 0; o < out->n; o++)
        CHECK_OK(vkml_session_alloc_output(s, (size_t)o, &out->t[o], &err), &err);
    CHECK_OK(vkml_session_run(s, in->t, (size_t)in->n, out->t, (size_t)out->n, &err), &err);
    vkml_session_destroy(&s);
}

/* Whether the case's requantized outputs must equal the C kernels' (set by the case). */
static bool requant_exact;

/* A requantized (int8 or uint8) output: oneDNN requantizes in float32 ((float)acc * scale
 * rounded half to even, plus the zero point), the C kernel rounds the exact product (a
 * double) half to even: where the float32 product rounds across a half the two differ by
 * 1. Any element may differ by at most 1, and at most 1 in 200 may differ at all; with
 * requant_exact (scales whose multiplier and products are exact: ties), none. */
static void quantized_compare(const char *label, int o, const vkml_tensor *got,
                              const vkml_tensor *ref)
{
    CHECK(got->size == ref->size, "%s: output %d: %zu bytes, expected %zu", label, o, got->size,
          ref->size);
    if (got->size != ref->size)
        return;
    bool is_signed = ref->dtype == VKML_DTYPE_INT8;
    size_t n = ref->size, differ = 0, saturated = 0;
    int worst = 0, lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
    for (size_t k = 0; k < n; k++) {
        int a = is_signed ? ((const int8_t *)got->data)[k] : ((const uint8_t *)got->data)[k];
        int b = is_signed ? ((const int8_t *)ref->data)[k] : ((const uint8_t *)ref->data)[k];
        differ += a != b;
        saturated += b == lo || b == hi;
        worst = abs(a - b) > worst ? abs(a - b) : worst;
    }
    bool ok = requant_exact ? differ == 0 : worst <= 1 && differ * 200 <= n;
    CHECK(ok, "%s: output %d: %zu of %zu differ, by up to %d", label, o, differ, n, worst);
    if (!ok || getenv("VKML_TEST_VERBOSE"))
        printf("%-44s output %d: %zu of %zu differ by 1 (%zu saturated)\n", label, o, differ, n,
               saturated);
}

/* Nodes an integer product's (MatMulInteger, QLinearMatMul) library run must take: `n` on a
 * CPU with VNNI. Without it oneDNN's uint8 x int8 products saturate, and the library takes
 * only a constant B, split into saturation-free halves (onednn_matmul.c). Either way the
 * outputs must match the C kernels'. */
static int int8_expect(int n, bool b_constant)
{
    return onednn_int8_exact() || b_constant ? n : 0;
}

/* The same for an integer convolution: without VNNI (onednn_quant.c's split) not a form
 * oneDNN has only reference code for there (split_ref). */
static int int8_conv_expect(int n, bool split_ref)
{
    return onednn_int8_exact() || !split_ref ? n : 0;
}

/* Builds the case's graph, runs it both ways, compares; `expect`: nodes the library must
 * take at least (0: none; JIT_OR_NONE: none, or one on oneDNN's jit code). */
#define JIT_OR_NONE (-1)
static void check_case(vkml_context *ctx, const char *label, graph *g, const int *inputs,
                       int n_inputs, const int *outputs, int n_outputs, int expect)
{
    io in = {.n = n_inputs};
    for (int i = 0; i < n_inputs; i++) {
        const graph_value *v = &g->values[inputs[i]];
        size_t n = vkml_tensor_element_count(v->rank, v->dims), es = vkml_dtype_size(v->dtype);
        char *d = malloc(n * es + 1);
        for (size_t k = 0; k < n; k++) {
            float f = test_randf(&seed, -2, 2);
            if (v->dtype == VKML_DTYPE_FLOAT16)
                ((uint16_t *)d)[k] = vkml_half_from_float(f);
            else if (v->dtype == VKML_DTYPE_UINT8)
                ((uint8_t *)d)[k] = (uint8_t)test_randf(&seed, 0, 256);
            else if (v->dtype == VKML_DTYPE_INT8)
                ((int8_t *)d)[k] = (int8_t)test_randf(&seed, -128, 128);
            else
                ((float *)d)[k] = f;
        }
        in.t[i] = (vkml_tensor){.dtype = v->dtype, .rank = v->rank, .data = d, .size = n * es};
        memcpy(in.t[i].dims, v->dims, sizeof(int64_t) * (size_t)v->rank);
    }
    vkml_model *m = tg_model(g, inputs, n_inputs, outputs, n_outputs, 17);
    io ref = {0}, got = {0};
    if (m) {
        run(ctx, m, &in, &ref, true);
        CHECK(library_nodes == 0, "%s: the reference run used oneDNN", label);
        run(ctx, m, &in, &got, false);
        if (expect == JIT_OR_NONE)
            CHECK(library_nodes == 0 || (library_nodes == 1 && !strncmp(first_impl, "jit", 3)),
                  "%s: %d nodes ran on oneDNN (%s), expected none or its jit code", label,
                  library_nodes, first_impl);
        else
            CHECK(expect ? library_nodes >= expect : library_nodes == 0,
                  "%s: %d nodes ran on oneDNN, expected %s%d", label, library_nodes,
                  expect ? "at least " : "", expect);
    }
    for (int o = 0; m && o < n_outputs && o < got.n && o < ref.n; o++) {
        bool half = ref.t[o].dtype == VKML_DTYPE_FLOAT16;
        if (ref.t[o].dtype == VKML_DTYPE_UINT8 || ref.t[o].dtype == VKML_DTYPE_INT8) {
            quantized_compare(label, o, &got.t[o], &ref.t[o]);
            continue;
        }
        if (!half && ref.t[o].dtype != VKML_DTYPE_FLOAT) { /* Shape and such: equal bytes */
            CHECK(got.t[o].size == ref.t[o].size &&
                      memcmp(got.t[o].data, ref.t[o].data, ref.t[o].size) == 0,
                  "%s: output %d differs", label, o);
            continue;
        }
        size_t n = ref.t[o].size / vkml_dtype_size(ref.t[o].dtype);
        double scale = 0, worst = 0;
        /* float16: the library rounds once after its fused epilogue, the C kernels after
         * each op */
        double tolerance = half ? 4e-3 : 1e-4;
        CHECK(got.t[o].size == ref.t[o].size, "%s: output %d: %zu bytes, expected %zu", label, o,
              got.t[o].size, ref.t[o].size);
        for (size_t k = 0; k < n && got.t[o].size == ref.t[o].size; k++) {
            double a = half ? vkml_half_to_float(((const uint16_t *)got.t[o].data)[k])
                            : ((const float *)got.t[o].data)[k];
            double b = half ? vkml_half_to_float(((const uint16_t *)ref.t[o].data)[k])
                            : ((const float *)ref.t[o].data)[k];
            scale = fmax(scale, fabs(b));
            worst = fmax(worst, fabs(a - b));
        }
        CHECK(worst <= tolerance * fmax(scale, 1e-3), "%s: output %d differs by %g (scale %g)",
              label, o, worst, scale);
        if (worst > tolerance * fmax(scale, 1e-3) || getenv("VKML_TEST_VERBOSE"))
            printf("%-44s output %d: max diff %.3g of %.3g\n", label, o, worst, scale);
    }
    for (int i = 0; i < MAX_IO; i++) {
        free(in.t[i].data);
        free(ref.t[i].data);
        free(got.t[i].data);
    }
    vkml_model_destroy(&m);
}

/* ---- Conv -------------------------------------------------------------------------- */

typedef struct conv_case {
    const char *label;
    int spatial;
    int64_t batch, c, m, group;
    int64_t in[3], kernel[3], strides[3], dilations[3], pads[6];
    const char *auto_pad; /* NULL: pads */
    bool bias;
    const char *act;     /* NULL, or an activation op after it ("Relu", "Clip", ...) */
    bool residual;       /* an Add of another input after it (before the activation) */
    bool max_pool;       /* a 2x2 MaxPool after everything */
    bool residual_after; /* the Add after the activation instead (YOLOv8's bottleneck) */
    bool winograd;       /* with AVX-512 and VKML_WINOGRAD=1, must run by Winograd's algorithm */
} conv_case;

/* Whether oneDNN's avx512_core code (and so its Winograd convolutions) runs here. */
static bool avx512_core(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
}

/* Sets environment variable name to value (NULL: unset) and returns its value before (a
 * copy to pass back to env_restore, which frees it). */
static char *env_swap(const char *name, const char *value)
{
    const char *was = getenv(name);
    char *saved = was ? strdup(was) : NULL;
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
    return saved;
}

static void env_restore(const char *name, char *saved)
{
    free(env_swap(name, saved));
    free(saved);
}

/* With blocks, its values stored in blocks (VKML_CPU_BLOCKS=1: the plan a session on one
 * thread takes where every conv has whole blocks of channels). */
static void conv_check(vkml_context *ctx, const conv_case *k, bool blocks)
{
    graph *g = graph_create();
    int rank = 2 + k->spatial;
    int64_t xd[5] = {k->batch, k->c}, wd[5] = {k->m, k->c / k->group};
    for (int d = 0; d < k->spatial; d++) {
        xd[2 + d] = k->in[d];
        wd[2 + d] = k->kernel[d];
    }
    int x = input(g, rank, xd), inputs[2] = {x, -1}, n_inputs = 1;
    int in[3] = {x, weights(g, rank, wd), k->bias ? weights(g, 1, &k->m) : -1};
    graph_attr a[6];
    int na = 0;
    a[na++] = ints(g, "kernel_shape", k->spatial, k->kernel);
    a[na++] = ints(g, "strides", k->spatial, k->strides);
    a[na++] = ints(g, "dilations", k->spatial, k->dilations);
    a[na++] = one_int("group", k->group);
    a[na++] =
        k->auto_pad ? text("auto_pad", k->auto_pad) : ints(g, "pads", 2 * k->spatial, k->pads);
    int y = value(g);
    add_node(g, "Conv", 11, k->bias ? 3 : 2, in, y, na, a);
    int r = -1;
    if (k->residual || k->residual_after) { /* the conv's output shape, as ONNX's formula */
        int64_t rd[5] = {k->batch, k->m};
        for (int d = 0; d < k->spatial; d++) {
            int64_t extent = (k->kernel[d] - 1) * k->dilations[d] + 1;
            rd[2 + d] = k->auto_pad ? (k->in[d] + k->strides[d] - 1) / k->strides[d]
                                    : (k->in[d] + k->pads[d] + k->pads[k->spatial + d] - extent) /
                                              k->strides[d] +
                                          1;
        }
        r = input(g, rank, rd);
        inputs[n_inputs++] = r;
    }
    if (k->residual) {
        int sum = value(g);
        add_node(g, "Add", 14, 2, (int[]){y, r}, sum, 0, NULL);
        y = sum;
    }
    if (k->act) {
        int z = value(g);
        graph_attr aa[2];
        int n_aa = 0;
        if (strcmp(k->act, "LeakyRelu") == 0)
            aa[n_aa++] = one_float("alpha", 0.1f);
        if (strcmp(k->act, "HardSigmoid") == 0) {
            aa[n_aa++] = one_float("alpha", 0.3f);
            aa[n_aa++] = one_float("beta", 0.4f);
        }
        if (strcmp(k->act, "Clip") == 0) {
            int lo = tg_random_constant(g, "lo", 0, NULL, -0.5f, -0.5f, &seed);
            int hi = tg_random_constant(g, "hi", 0, NULL, 0.75f, 0.75f, &seed);
            add_node(g, "Clip", 13, 3, (int[]){y, lo, hi}, z, 0, NULL);
        } else if (strcmp(k->act, "SiLU") == 0) { /* x Sigmoid(x): fused as one epilogue */
            int sig = value(g);
            add_node(g, "Sigmoid", 13, 1, (int[]){y}, sig, 0, NULL);
            add_node(g, "Mul", 14, 2, (int[]){y, sig}, z, 0, NULL);
        } else {
            add_node(g, k->act, 14, 1, (int[]){y}, z, n_aa, aa);
        }
        y = z;
    }
    if (k->residual_after) {
        int sum = value(g);
        add_node(g, "Add", 14, 2, (int[]){y, r}, sum, 0, NULL);
        y = sum;
    }
    if (k->max_pool) {
        int z = value(g);
        graph_attr pa[2] = {ints(g, "kernel_shape", 2, (int64_t[]){2, 2}),
                            ints(g, "strides", 2, (int64_t[]){2, 2})};
        add_node(g, "MaxPool", 12, 1, (int[]){y}, z, 2, pa);
        y = z;
    }
    ref_convs = 0;
    if (k->winograd) /* whatever the timing would choose on this CPU */
        setenv("VKML_WINOGRAD", "1", 1);
    char label[96];
    snprintf(label, sizeof(label), "%s%s", k->label, blocks ? ", in blocks" : "");
    char *blocks_was = blocks ? env_swap("VKML_CPU_BLOCKS", "1") : NULL;
    check_case(ctx, label, g, inputs, n_inputs, (int[]){y}, 1, 1);
    unsetenv("VKML_WINOGRAD");
    if (blocks)
        env_restore("VKML_CPU_BLOCKS", blocks_was);
    if (blocks)
        CHECK(!strcmp(first_out, "blocked"), "%s: its output written %s", label, first_out);
    /* oneDNN's reference code is 50-100x slower than its jit kernels and than the C
     * kernel: a form whose every variant is ref:any runs the C kernel instead. */
    CHECK(ref_convs == 0, "%s: the Conv ran oneDNN's reference code", label);
    if (k->winograd && avx512_core())
        CHECK(strstr(first_impl, "wino") != NULL, "%s: ran %s, expected Winograd's algorithm",
              label, first_impl);
}

/* clang-format off */
static const conv_case conv_cases[] = {
    {"conv 2d 3x3 pad 1", 2, 1, 8, 16, 1, {9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},
    {"conv 2d bias, batch 2", 2, 2, 6, 10, 1, {7, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, .bias = true},
    {"conv 2d stride 2, asymmetric pads", 2, 1, 5, 7, 1, {10, 9}, {3, 3}, {2, 2}, {1, 1}, {0, 1, 2, 0}},
    {"conv 2d stride (1,3), kernel 3x5", 2, 1, 4, 6, 1, {8, 13}, {3, 5}, {1, 3}, {1, 1}, {1, 2, 1, 2}},
    {"conv 2d dilation 2", 2, 1, 4, 8, 1, {11, 11}, {3, 3}, {1, 1}, {2, 2}, {2, 2, 2, 2}},
    {"conv 2d dilation (2,3) stride 2", 2, 1, 3, 5, 1, {12, 14}, {3, 2}, {2, 2}, {2, 3}, {1, 0, 1, 1}},
    {"conv 2d group 2", 2, 1, 8, 12, 2, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, .bias = true},
    {"conv 2d group 4 stride 2", 2, 1, 16, 8, 4, {9, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}},
    {"conv 2d depthwise", 2, 1, 24, 24, 24, {14, 14}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, .bias = true},
    {"conv 2d depthwise stride 2", 2, 1, 32, 32, 32, {15, 15}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}},
    {"conv 2d depthwise 5x5 multiplier 2", 2, 1, 8, 16, 8, {10, 10}, {5, 5}, {1, 1}, {1, 1}, {2, 2, 2, 2}},
    {"conv 2d 1x1", 2, 1, 32, 16, 1, {6, 6}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, .bias = true},
    {"conv 2d 1x1 stride 2", 2, 1, 16, 32, 1, {7, 7}, {1, 1}, {2, 2}, {1, 1}, {0, 0, 0, 0}},
    {"conv 2d stem 7x7 stride 2, 3 channels", 2, 1, 3, 16, 1, {32, 32}, {7, 7}, {2, 2}, {1, 1}, {3, 3, 3, 3}, .bias = true},
    {"conv 2d SAME_UPPER stride 2", 2, 1, 4, 4, 1, {8, 7}, {3, 3}, {2, 2}, {1, 1}, {0}, "SAME_UPPER"},
    {"conv 2d SAME_LOWER", 2, 1, 4, 4, 1, {6, 6}, {4, 4}, {1, 1}, {1, 1}, {0}, "SAME_LOWER"},
    {"conv 2d VALID", 2, 1, 4, 4, 1, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {0}, "VALID"},
    {"conv 2d kernel as large as the input", 2, 1, 4, 6, 1, {5, 5}, {5, 5}, {1, 1}, {1, 1}, {0, 0, 0, 0}},
    {"conv 1d stride 2 dilation 2", 1, 2, 3, 4, 1, {17}, {3}, {2}, {2}, {1, 2}, .bias = true},
    {"conv 1d group 2", 1, 1, 4, 6, 2, {9}, {3}, {1}, {1}, {1, 1}},
    {"conv 3d", 3, 1, 4, 6, 1, {5, 6, 7}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}, .bias = true},
    {"conv 3d group 2 stride (1,2,1)", 3, 1, 4, 6, 2, {4, 7, 5}, {2, 3, 3}, {1, 2, 1}, {1, 1, 1}, {0, 1, 1, 1, 0, 1}},
    {"conv + Relu", 2, 1, 16, 16, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, .bias = true, .act = "Relu"},
    {"conv + Add + Relu (residual)", 2, 1, 16, 16, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, .bias = true, .act = "Relu", .residual = true},
    {"conv + Add (residual)", 2, 1, 8, 24, 1, {6, 6}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, .residual = true},
    {"conv + Clip", 2, 1, 8, 8, 1, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, .act = "Clip"},
    {"conv + LeakyRelu", 2, 1, 8, 8, 1, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, .act = "LeakyRelu"},
    {"conv + Sigmoid", 2, 1, 8, 8, 1, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, .act = "Sigmoid"},
    /* SiLU (Sigmoid and Mul, fused as one epilogue: oneDNN's swish); 128 x 40 x 40 spans
     * the threads */
    {"conv + SiLU", 2, 1, 16, 128, 1, {40, 40}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, .bias = true, .act = "SiLU"},
    {"conv + Add + SiLU (residual)", 2, 1, 8, 16, 1, {9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, .act = "SiLU", .residual = true},
    /* the residual after the activation: AVX2's jit conv takes a sum post-op only first,
     * so this runs with the residual as a binary add */
    {"conv + SiLU + Add (residual after)", 2, 1, 16, 32, 1, {10, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, .bias = true, .act = "SiLU", .residual_after = true},
    {"conv 1x1 + Relu + Add (residual after)", 2, 1, 16, 16, 1, {8, 8}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, .act = "Relu", .residual_after = true},
    {"conv + HardSigmoid", 2, 1, 8, 8, 1, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, .act = "HardSigmoid"},
    {"conv + HardSwish", 2, 1, 8, 8, 1, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, .act = "HardSwish"},
    {"conv + Relu + MaxPool (fused pool)", 2, 1, 3, 16, 1, {16, 16}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, .bias = true, .act = "Relu", .max_pool = true},
    /* 3x3 stride 1 over whole blocks of channels: Winograd's algorithm with AVX-512 (its
     * tiles of 4 or 2 outputs a side over ragged extents, pads, batches, epilogues) */
    {"winograd 3x3 32 -> 48, 13x11, pad 1", 2, 1, 32, 48, 1, {13, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, .bias = true, .winograd = true},
    {"winograd 3x3 16 -> 16, batch 2, no pads", 2, 2, 16, 16, 1, {10, 7}, {3, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}, .winograd = true},
    {"winograd 3x3 64 -> 32, 30x30, + Relu", 2, 1, 64, 32, 1, {30, 30}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, .bias = true, .act = "Relu", .winograd = true},
    {"winograd 3x3 64 -> 64, 9x9, + Add + Relu", 2, 1, 64, 64, 1, {9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, .bias = true, .act = "Relu", .residual = true, .winograd = true},
    {"winograd 3x3 32 -> 32, 20x20, + SiLU", 2, 1, 32, 32, 1, {20, 20}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, .bias = true, .act = "SiLU", .winograd = true},
    {"3x3 32 -> 32, + SiLU + Add (residual after)", 2, 1, 32, 32, 1, {12, 12}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, .bias = true, .act = "SiLU", .residual_after = true},
    {"3x3 512 -> 512 at 7x7, + Relu", 2, 1, 512, 512, 1, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, .bias = true, .act = "Relu", .winograd = true},
};
/* clang-format on */

/* ---- pools ------------------------------------------------------------------------- */

typedef struct pool_case {
    const char *label;
    const char *op;
    int opset, spatial;
    int64_t c, in[3], kernel[3], strides[3], dilations[3], pads[6];
    int64_t ceil, include_pad;
} pool_case;

/* clang-format off */
static const pool_case pool_cases[] = {
    {"MaxPool 3x3 stride 2 pad 1", "MaxPool", 12, 2, 16, {11, 11}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}},
    {"MaxPool ceil_mode", "MaxPool", 12, 2, 8, {10, 9}, {3, 3}, {2, 2}, {1, 1}, {0, 0, 0, 0}, 1},
    {"MaxPool dilation 2", "MaxPool", 12, 2, 8, {9, 9}, {2, 2}, {1, 1}, {2, 2}, {1, 0, 1, 0}},
    {"MaxPool 1d", "MaxPool", 12, 1, 5, {13}, {3}, {2}, {1}, {1, 1}},
    {"MaxPool 3d", "MaxPool", 12, 3, 4, {5, 6, 7}, {2, 2, 2}, {2, 2, 2}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}},
    {"AveragePool exclude pad", "AveragePool", 11, 2, 8, {9, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}},
    {"AveragePool include pad", "AveragePool", 11, 2, 8, {9, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, 0, 1},
    {"AveragePool ceil_mode", "AveragePool", 11, 2, 8, {10, 10}, {3, 3}, {2, 2}, {1, 1}, {0, 0, 0, 0}, 1},
    {"AveragePool 1d asymmetric pads", "AveragePool", 11, 1, 3, {12}, {4}, {3}, {1}, {2, 1}},
    {"GlobalAveragePool", "GlobalAveragePool", 1, 2, 32, {7, 7}},
    {"GlobalMaxPool", "GlobalMaxPool", 1, 2, 8, {5, 6}},
    {"GlobalAveragePool 3d", "GlobalAveragePool", 1, 3, 6, {3, 4, 5}},
};
/* clang-format on */

/* The case's attributes, in g's arena; returns their count. */
static int pool_case_attrs(graph *g, const pool_case *k, graph_attr *a)
{
    int na = 0;
    if (strncmp(k->op, "Global", 6) != 0) {
        a[na++] = ints(g, "kernel_shape", k->spatial, k->kernel);
        a[na++] = ints(g, "strides", k->spatial, k->strides);
        a[na++] = ints(g, "pads", 2 * k->spatial, k->pads);
        a[na++] = one_int("ceil_mode", k->ceil);
        if (strcmp(k->op, "MaxPool") == 0)
            a[na++] = ints(g, "dilations", k->spatial, k->dilations);
        else
            a[na++] = one_int("count_include_pad", k->include_pad);
    }
    return na;
}

static void pool_check(vkml_context *ctx, const pool_case *k)
{
    graph *g = graph_create();
    int64_t xd[5] = {2, k->c};
    for (int d = 0; d < k->spatial; d++)
        xd[2 + d] = k->in[d];
    int x = input(g, 2 + k->spatial, xd), y = value(g);
    graph_attr a[6];
    int na = pool_case_attrs(g, k, a);
    add_node(g, k->op, k->opset, 1, (int[]){x}, y, na, a);
    /* A 2-D window over a plain input runs the C kernel where oneDNN has only simple_nchw or
     * ref there (slower; an AVX-512 CPU has jit code for it); after a 1x1 Conv it reads the
     * library's layout, on oneDNN (a MaxPool as the Conv's epilogue: one node). */
    bool plain_c = k->spatial == 2 && strncmp(k->op, "Global", 6) != 0;
    check_case(ctx, k->label, g, (int[]){x}, 1, (int[]){y}, 1, plain_c ? JIT_OR_NONE : 1);
    if (!plain_c)
        return;
    g = graph_create();
    x = input(g, 2 + k->spatial, xd);
    int h = value(g), z = value(g);
    add_node(g, "Conv", 11, 2, (int[]){x, weights(g, 4, (int64_t[]){k->c, k->c, 1, 1})}, h, 0,
             NULL);
    na = pool_case_attrs(g, k, a);
    add_node(g, k->op, k->opset, 1, (int[]){h}, z, na, a);
    char label[96];
    snprintf(label, sizeof(label), "1x1 Conv -> %s", k->label);
    check_case(ctx, label, g, (int[]){x}, 1, (int[]){z}, 1, strcmp(k->op, "MaxPool") ? 2 : 1);
}

/* ---- MatMul and Gemm --------------------------------------------------------------- */

typedef struct matmul_case {
    const char *label;
    int ra, rb;
    int64_t a[4], b[4];
    bool b_constant;
} matmul_case;

/* clang-format off */
static const matmul_case matmul_cases[] = {
    {"MatMul 2d, constant B", 2, 2, {5, 12}, {12, 9}, true},
    {"MatMul 2d, dynamic B", 2, 2, {7, 16}, {16, 3}, false},
    {"MatMul batched, constant B", 3, 2, {3, 5, 8}, {8, 11}, true},
    {"MatMul batch of 1-row products, constant B", 3, 2, {6, 1, 8}, {8, 5}, true},
    {"MatMul batched, both dynamic", 4, 4, {2, 3, 6, 5}, {2, 3, 5, 4}, false},
    {"MatMul broadcast batch", 4, 3, {3, 1, 4, 5}, {2, 5, 6}, false},
    {"MatMul 1-d A", 1, 2, {5}, {5, 6}, true},
    {"MatMul 1-d B", 3, 1, {2, 4, 5}, {5}, false},
};
/* clang-format on */

static void matmul_check(vkml_context *ctx, const matmul_case *k)
{
    graph *g = graph_create();
    int a = input(g, k->ra, k->a), y = value(g);
    int b = k->b_constant ? weights(g, k->rb, k->b) : input(g, k->rb, k->b);
    add_node(g, "MatMul", 13, 2, (int[]){a, b}, y, 0, NULL);
    int inputs[2] = {a, b};
    check_case(ctx, k->label, g, inputs, k->b_constant ? 1 : 2, (int[]){y}, 1, 1);
}

/* MatMul reading both operands through absorbed Transposes (attention's form), + bias. */
static void matmul_views_check(vkml_context *ctx)
{
    graph *g = graph_create();
    int q = input(g, 4, (int64_t[]){1, 6, 2, 4}), k = input(g, 4, (int64_t[]){1, 6, 2, 4});
    int qt = value(g), kt = value(g), y = value(g), yb = value(g);
    add_node(g, "Transpose", 13, 1, (int[]){q}, qt, 1,
             (graph_attr[]){ints(g, "perm", 4, (int64_t[]){0, 2, 1, 3})});
    add_node(g, "Transpose", 13, 1, (int[]){k}, kt, 1,
             (graph_attr[]){ints(g, "perm", 4, (int64_t[]){0, 2, 3, 1})});
    add_node(g, "MatMul", 13, 2, (int[]){qt, kt}, y, 0, NULL);
    int bias = weights(g, 1, (int64_t[]){6});
    add_node(g, "Add", 14, 2, (int[]){y, bias}, yb, 0, NULL);
    check_case(ctx, "MatMul through transposes, + bias", g, (int[]){q, k}, 2, (int[]){yb}, 1, 1);
}

typedef struct gemm_case {
    const char *label;
    int64_t m, n, k;
    int trans_a, trans_b;
    float alpha, beta;
    int c_rank; /* 0: no C */
    int64_t c[2];
    bool c_constant;
} gemm_case;

/* clang-format off */
static const gemm_case gemm_cases[] = {
    {"Gemm classifier (transB, C [n])", 1, 10, 32, 0, 1, 1, 1, 1, {10}, true},
    {"Gemm transA, alpha 0.5, no C", 6, 5, 7, 1, 0, 0.5f, 1, 0},
    {"Gemm beta 2, C [m, 1]", 4, 6, 5, 0, 0, 1, 2, 2, {4, 1}, true},
    {"Gemm C [m, n] dynamic", 3, 4, 5, 0, 1, 1, 1, 2, {3, 4}, false},
    {"Gemm C scalar, alpha and beta", 5, 3, 4, 1, 1, 1.5f, 0.25f, 1, {1}, true},
};
/* clang-format on */

static void gemm_check(vkml_context *ctx, const gemm_case *k)
{
    graph *g = graph_create();
    int a = input(g, 2, k->trans_a ? (int64_t[]){k->k, k->m} : (int64_t[]){k->m, k->k});
    int b = weights(g, 2, k->trans_b ? (int64_t[]){k->n, k->k} : (int64_t[]){k->k, k->n});
    int c = -1, inputs[2] = {a, -1}, n_inputs = 1;
    if (k->c_rank)
        c = k->c_constant ? weights(g, k->c_rank, k->c)
                          : (inputs[n_inputs++] = input(g, k->c_rank, k->c));
    int y = value(g);
    graph_attr at[4] = {one_int("transA", k->trans_a), one_int("transB", k->trans_b),
                        one_float("alpha", k->alpha), one_float("beta", k->beta)};
    add_node(g, "Gemm", 13, k->c_rank ? 3 : 2, (int[]){a, b, c}, y, 4, at);
    check_case(ctx, k->label, g, inputs, n_inputs, (int[]){y}, 1, 1);
}

/* ---- elementwise and normalisations ---------------------------------------------- */

typedef struct binary_case {
    const char *label, *op;
    int ra, rb;
    int64_t a[4], b[4];
    int expect; /* 0: a form the library leaves to the C kernel */
} binary_case;

/* clang-format off */
static const binary_case binary_cases[] = {
    {"Add, same shapes", "Add", 4, 4, {1, 8, 5, 6}, {1, 8, 5, 6}, 1},
    {"Mul by [1, C, 1, 1] (squeeze-excitation)", "Mul", 4, 4, {2, 8, 5, 6}, {1, 8, 1, 1}, 1},
    {"Sub of a row", "Sub", 3, 1, {2, 3, 7}, {7}, 1},
    {"Div by a scalar", "Div", 3, 0, {4, 3, 5}, {0}, 1},
    {"Add, the first input broadcast", "Add", 2, 3, {1, 5}, {3, 4, 5}, 1},
    {"Sub, the first input broadcast (C kernel)", "Sub", 2, 3, {1, 5}, {3, 4, 5}, 0},
    /* LayerNorm's x - mean over the innermost dim: oneDNN 2.6 has only ref:any for it */
    {"Sub of the innermost dim's mean (C kernel)", "Sub", 4, 4, {1, 4, 4, 96}, {1, 4, 4, 1}, 0},
};
/* clang-format on */

static void binary_check(vkml_context *ctx, const binary_case *k)
{
    graph *g = graph_create();
    int a = input(g, k->ra, k->a), b = input(g, k->rb, k->b), y = value(g);
    add_node(g, k->op, 14, 2, (int[]){a, b}, y, 0, NULL);
    check_case(ctx, k->label, g, (int[]){a, b}, 2, (int[]){y}, 1, k->expect);
}

/* Conv -> Mul by its own GlobalAveragePool (squeeze-excitation's form) -> Conv: the Mul
 * reads and writes the library's layout. */
static void excitation_check(vkml_context *ctx)
{
    graph *g = graph_create();
    int x = input(g, 4, (int64_t[]){1, 16, 9, 9});
    int y1 = value(g), s = value(g), y2 = value(g), y3 = value(g);
    add_node(g, "Conv", 11, 2, (int[]){x, weights(g, 4, (int64_t[]){32, 16, 1, 1})}, y1, 0, NULL);
    add_node(g, "GlobalAveragePool", 1, 1, (int[]){y1}, s, 0, NULL);
    add_node(g, "Mul", 14, 2, (int[]){y1, s}, y2, 0, NULL);
    add_node(g, "Conv", 11, 2, (int[]){y2, weights(g, 4, (int64_t[]){16, 32, 1, 1})}, y3, 0, NULL);
    check_case(ctx, "Conv, Mul by its pool, Conv", g, (int[]){x}, 1, (int[]){y3}, 1, 4);
}

/* A residual block as ResNet's: A = Conv(X), B = Relu(Conv(A)), Y = Relu(Conv(B) + A), then
 * Conv(Y). A's
 * last reader is the third Conv, so the CPU device puts Y in A's memory (the log says so):
 * oneDNN's sum post-op adds A where it lies, and the C kernel reads A from a copy before it
 * writes Y there. Both runs must agree, and agree with a session without it. */
/* A 3x3 conv Winograd's algorithm may take: by timing (with AVX-512 the session times both
 * forms and runs the one it chose), and with VKML_WINOGRAD=0 directly, untimed. */
static void winograd_choice_check(vkml_context *ctx)
{
    static const char *const settings[] = {NULL, "0"};
    for (int k = 0; k < 2; k++) {
        graph *g = graph_create();
        int x = input(g, 4, (int64_t[]){1, 48, 24 + k, 24});
        int y = value(g), r = value(g);
        graph_attr pads = ints(g, "pads", 4, (int64_t[]){1, 1, 1, 1});
        add_node(
            g, "Conv", 11, 3,
            (int[]){x, weights(g, 4, (int64_t[]){48, 48, 3, 3}), weights(g, 1, (int64_t[]){48})}, y,
            1, &pads);
        add_node(g, "Relu", 14, 1, (int[]){y}, r, 0, NULL);
        if (settings[k])
            setenv("VKML_WINOGRAD", settings[k], 1);
        winograd_timed[0] = '\0';
        char label[64];
        snprintf(label, sizeof(label), "3x3 48 -> 48, VKML_WINOGRAD %s",
                 settings[k] ? settings[k] : "unset");
        check_case(ctx, label, g, (int[]){x}, 1, (int[]){r}, 1, 1);
        unsetenv("VKML_WINOGRAD");
        bool wino = strstr(first_impl, "wino") != NULL;
        if (!settings[k] && avx512_core()) {
            CHECK(winograd_timed[0], "%s: no timing of the two forms was logged", label);
            CHECK(wino == !strcmp(winograd_timed, "Winograd"), "%s: timed %s, ran %s", label,
                  winograd_timed, first_impl);
        } else {
            CHECK(!winograd_timed[0] && !wino, "%s: timed (%s) or ran %s", label, winograd_timed,
                  first_impl);
        }
        if (getenv("VKML_TEST_VERBOSE"))
            printf("%-44s timed: %s, ran %s\n", label, winograd_timed[0] ? winograd_timed : "no",
                   first_impl);
    }
}

/* Which layout a session keeps its convs' values in: in blocks on one thread where every
 * conv has whole blocks of channels, else (a team, VKML_CPU_BLOCKS=0, a conv of another
 * count) as oneDNN picks them, channels-last with AVX-512. */
static void blocks_plan_check(vkml_context *ctx)
{
    static const struct {
        const char *label, *threads, *setting;
        int64_t mid;  /* the first conv's output channels */
        bool blocked; /* stored in blocks */
        bool avx512;  /* checked only with AVX-512 (with AVX2, oneDNN picks blocks too) */
    } cases[] = {
        {"two convs, one thread", "1", NULL, 32, true, false},
        {"two convs, two threads", "2", NULL, 32, false, true},
        {"two convs, one thread, VKML_CPU_BLOCKS=0", "1", "0", 32, false, true},
        {"two convs, two threads, VKML_CPU_BLOCKS=1", "2", "1", 32, true, false},
        {"24 channels between, one thread", "1", NULL, 24, false, true},
    };
    for (size_t k = 0; k < VKML_ARRAY_SIZE(cases); k++) {
        graph *g = graph_create();
        int x = input(g, 4, (int64_t[]){1, 16, 19, 17});
        int y = value(g), r = value(g), z = value(g);
        /* pointwise: a 3x3 one may keep oneDNN's layouts by timing (mixed_blocks_check) */
        graph_attr a = ints(g, "strides", 2, (int64_t[]){2, 2});
        add_node(g, "Conv", 11, 3,
                 (int[]){x, weights(g, 4, (int64_t[]){cases[k].mid, 16, 1, 1}),
                         weights(g, 1, (int64_t[]){cases[k].mid})},
                 y, 1, &a);
        add_node(g, "Relu", 14, 1, (int[]){y}, r, 0, NULL);
        add_node(g, "Conv", 11, 2, (int[]){r, weights(g, 4, (int64_t[]){32, cases[k].mid, 1, 1})},
                 z, 0, NULL);
        char *threads_was = env_swap("VKML_CPU_THREADS", cases[k].threads);
        char *blocks_was = env_swap("VKML_CPU_BLOCKS", cases[k].setting);
        check_case(ctx, cases[k].label, g, (int[]){x}, 1, (int[]){z}, 1, 2);
        env_restore("VKML_CPU_THREADS", threads_was);
        env_restore("VKML_CPU_BLOCKS", blocks_was);
        bool blocked = !strcmp(first_stored, "blocked");
        if (!cases[k].avx512 || avx512_core())
            CHECK(blocked == cases[k].blocked, "%s: the first conv's output stored %s",
                  cases[k].label, first_stored);
        if (getenv("VKML_TEST_VERBOSE"))
            printf("%-44s stored %s\n", cases[k].label, first_stored);
    }
}

/* A session in blocks on one thread whose stride-2 3x3 conv may run in the layouts oneDNN
 * picks, by timing (onednn_conv.c, blocked_claim; with AVX-512 oneDNN's channels-last
 * `brgconv` took 256 -> 512 at 14x14 in 0.5-0.6 ms against 0.6-0.8 in blocks): its input
 * reordered out of the blocks the conv before wrote and its output back into the next
 * conv's, right either way; with VKML_CPU_BLOCKS=1 every conv in blocks. */
static void mixed_blocks_check(vkml_context *ctx)
{
    for (int forced = 0; forced < 2; forced++) {
        graph *g = graph_create();
        int x = input(g, 4, (int64_t[]){1, 64, 14, 14});
        int a = value(g), b = value(g), c = value(g), y = value(g);
        add_node(g, "Conv", 11, 2, (int[]){x, weights(g, 4, (int64_t[]){256, 64, 1, 1})}, a, 0,
                 NULL);
        graph_attr s2[2] = {ints(g, "strides", 2, (int64_t[]){2, 2}),
                            ints(g, "pads", 4, (int64_t[]){1, 1, 1, 1})};
        add_node(
            g, "Conv", 11, 3,
            (int[]){a, weights(g, 4, (int64_t[]){512, 256, 3, 3}), weights(g, 1, (int64_t[]){512})},
            b, 2, s2);
        add_node(g, "Relu", 14, 1, (int[]){b}, c, 0, NULL);
        add_node(g, "Conv", 11, 2, (int[]){c, weights(g, 4, (int64_t[]){32, 512, 1, 1})}, y, 0,
                 NULL);
        const char *label = forced ? "stride-2 conv between, VKML_CPU_BLOCKS=1"
                                   : "stride-2 conv between, one thread";
        char *threads_was = env_swap("VKML_CPU_THREADS", "1");
        char *blocks_was = env_swap("VKML_CPU_BLOCKS", forced ? "1" : NULL);
        blocks_timed[0] = '\0';
        check_case(ctx, label, g, (int[]){x}, 1, (int[]){y}, 1, 3);
        env_restore("VKML_CPU_THREADS", threads_was);
        env_restore("VKML_CPU_BLOCKS", blocks_was);
        CHECK(!strcmp(first_stored, "blocked"), "%s: the first conv's output stored %s", label,
              first_stored);
        /* timed in the session's own plan only (the reference run has no library) */
        CHECK(forced ? !blocks_timed[0] : blocks_timed[0] != '\0',
              "%s: the stride-2 conv's layouts %s", label,
              forced ? "timed where every conv is in blocks" : "not timed");
        if (getenv("VKML_TEST_VERBOSE"))
            printf("%-44s %s\n", label, forced ? "in blocks" : blocks_timed);
    }
}

static void in_place_check(vkml_context *ctx)
{
    graph *g = graph_create();
    int x = input(g, 4, (int64_t[]){1, 16, 12, 12});
    int a = value(g), b0 = value(g), b = value(g), c = value(g), y0 = value(g), y = value(g);
    add_node(g, "Conv", 11, 2, (int[]){x, weights(g, 4, (int64_t[]){16, 16, 1, 1})}, a, 0, NULL);
    graph_attr pads = ints(g, "pads", 4, (int64_t[]){1, 1, 1, 1});
    add_node(g, "Conv", 11, 2, (int[]){a, weights(g, 4, (int64_t[]){16, 16, 3, 3})}, b0, 1, &pads);
    add_node(g, "Relu", 14, 1, (int[]){b0}, b, 0, NULL);
    add_node(g, "Conv", 11, 2, (int[]){b, weights(g, 4, (int64_t[]){16, 16, 1, 1})}, c, 0, NULL);
    add_node(g, "Add", 14, 2, (int[]){c, a}, y0, 0, NULL);
    add_node(g, "Relu", 14, 1, (int[]){y0}, y, 0, NULL);
    int z = value(g); /* Y an intermediate, as a block's output is */
    add_node(g, "Conv", 11, 2, (int[]){y, weights(g, 4, (int64_t[]){8, 16, 1, 1})}, z, 0, NULL);
    in_place_convs = 0;
    check_case(ctx, "residual block, output in the residual's memory", g, (int[]){x}, 1, (int[]){z},
               1, 4);
    CHECK(in_place_convs >= 2,
          "in place: %d device sessions put a conv in its residual's "
          "memory, expected the reference's and the library's at least",
          in_place_convs);
}

typedef struct norm_case {
    const char *label, *op;
    int opset, rank;
    int64_t dims[4], axis;
    int param_rank; /* LayerNormalization: scale (and bias) of the normalised dims */
    bool bias;
    int expect;
} norm_case;

/* clang-format off */
static const norm_case norm_cases[] = {
    {"Softmax, last axis", "Softmax", 13, 3, {2, 3, 10}, -1, 0, false, 1},
    {"LogSoftmax, last axis", "LogSoftmax", 13, 2, {4, 9}, 1, 0, false, 1},
    {"Softmax opset 11, axis 1 of 3 (coerced to 2-d)", "Softmax", 11, 3, {2, 3, 4}, 1, 0, false, 1},
    {"Softmax, a middle axis (C kernel)", "Softmax", 13, 3, {2, 5, 4}, 1, 0, false, 0},
    {"LayerNormalization, last axis, bias", "LayerNormalization", 17, 3, {2, 4, 16}, -1, 1, true, 1},
    {"LayerNormalization over 2 dims, no bias", "LayerNormalization", 17, 3, {3, 4, 5}, -2, 2, false, 1},
};
/* clang-format on */

static void norm_check(vkml_context *ctx, const norm_case *k)
{
    graph *g = graph_create();
    int x = input(g, k->rank, k->dims), y = value(g);
    graph_attr a[2] = {one_int("axis", k->axis), one_float("epsilon", 1e-5f)};
    if (k->param_rank) {
        const int64_t *pd = k->dims + k->rank - k->param_rank;
        int in[3] = {x, weights(g, k->param_rank, pd),
                     k->bias ? weights(g, k->param_rank, pd) : -1};
        add_node(g, k->op, k->opset, k->bias ? 3 : 2, in, y, 2, a);
    } else {
        add_node(g, k->op, k->opset, 1, (int[]){x}, y, 1, a);
    }
    check_case(ctx, k->label, g, (int[]){x}, 1, (int[]){y}, 1, k->expect);
}

/* ---- threads ----------------------------------------------------------------------- */

/* vkml_session_params.cpu_threads reaches the library (its session logs the count),
 * VKML_CPU_THREADS sets the default, and a count out of range is refused. */
static void threads_check(vkml_context *ctx)
{
    graph *g = graph_create();
    int a = input(g, 2, (int64_t[]){4, 8}), y = value(g);
    add_node(g, "MatMul", 13, 2, (int[]){a, weights(g, 2, (int64_t[]){8, 3})}, y, 0, NULL);
    vkml_model *m = tg_model(g, (int[]){a}, 1, (int[]){y}, 1, 17);
    vkml_error err = {0};
    vkml_session *s = NULL;
    for (int asked = 1; m && asked <= 3; asked += 2) {
        library_threads = 0;
        vkml_session_params p = {.device = VKML_DEVICE_CPU, .cpu_threads = asked};
        CHECK_OK(vkml_session_create(ctx, m, &p, &s, &err), &err);
        CHECK(library_threads == asked, "cpu_threads %d: the library runs %d threads", asked,
              library_threads);
        vkml_session_destroy(&s);
    }
    setenv("VKML_CPU_THREADS", "2", 1);
    library_threads = 0;
    vkml_session_params p = {.device = VKML_DEVICE_CPU};
    CHECK_OK(vkml_session_create(ctx, m, &p, &s, &err), &err);
    CHECK(library_threads == 2, "VKML_CPU_THREADS=2: the library runs %d threads", library_threads);
    vkml_session_destroy(&s);
    setenv("VKML_CPU_THREADS", "lots", 1);
    CHECK(vkml_session_create(ctx, m, &p, &s, &err) == VKML_ERROR_INVALID_ARGUMENT &&
              strstr(err.message, "VKML_CPU_THREADS=lots"),
          "VKML_CPU_THREADS=lots: %s", err.message);
    vkml_session_destroy(&s);
    unsetenv("VKML_CPU_THREADS");
    p.cpu_threads = -1;
    CHECK(vkml_session_create(ctx, m, &p, &s, &err) == VKML_ERROR_INVALID_ARGUMENT &&
              strstr(err.message, "cpu_threads -1"),
          "cpu_threads -1: %s", err.message);
    vkml_session_destroy(&s);
    vkml_model_destroy(&m);
}

/* A small node that reads much (a classifier's product: one row by 512 x 1000 weights,
 * then a Softmax) is timed on one thread and on the team at session creation, and either
 * form gives the reference's values; with one thread there is nothing to time, and a node
 * that reads little (a Softmax of 1000) is never timed. */
static void thread_trial_check(vkml_context *ctx)
{
    for (int threads = 1; threads <= 3; threads += 2) {
        graph *g = graph_create();
        int x = input(g, 2, (int64_t[]){1, 512}), h = value(g), y = value(g);
        add_node(g, "MatMul", 13, 2, (int[]){x, weights(g, 2, (int64_t[]){512, 1000})}, h, 0, NULL);
        add_node(g, "Softmax", 13, 1, (int[]){h}, y, 0, NULL);
        char env[8], label[64];
        snprintf(env, sizeof(env), "%d", threads);
        snprintf(label, sizeof(label), "classifier MatMul, %d threads", threads);
        setenv("VKML_CPU_THREADS", env, 1);
        thread_trials = wide_kept = 0;
        check_case(ctx, label, g, (int[]){x}, 1, (int[]){y}, 1, 2);
        unsetenv("VKML_CPU_THREADS");
        /* the reference run and the library's: one trial, in the second */
        CHECK(thread_trials == (threads > 1 ? 1 : 0), "%s: %d nodes timed both ways", label,
              thread_trials);
        printf("%s: %s\n", label,
               threads == 1 ? "no trial"
               : wide_kept  ? "the team was faster"
                            : "one thread was faster");
    }
}

/* Conv -> y -> Conv, and Shape(y) (folded at plan time: it reads no data): y stays in the
 * library's layout. */
static void folded_reader_check(vkml_context *ctx)
{
    graph *g = graph_create();
    int x = input(g, 4, (int64_t[]){1, 16, 8, 8}), y = value(g), z = value(g), s = value(g);
    graph_attr pad1[1] = {ints(g, "pads", 4, (int64_t[]){1, 1, 1, 1})};
    add_node(g, "Conv", 11, 2, (int[]){x, weights(g, 4, (int64_t[]){32, 16, 3, 3})}, y, 1, pad1);
    add_node(g, "Conv", 11, 2, (int[]){y, weights(g, 4, (int64_t[]){16, 32, 3, 3})}, z, 1, pad1);
    add_node(g, "Shape", 15, 1, (int[]){y}, s, 0, NULL);
    check_case(ctx, "Conv, Conv, Shape of the first", g, (int[]){x}, 1, (int[]){z, s}, 2, 2);
    CHECK(strcmp(first_stored, "channels-last") == 0 || strcmp(first_stored, "blocked") == 0,
          "the first Conv's output is stored '%s': a folded Shape kept it in ONNX's layout",
          first_stored);
}

/* ---- float16 ----------------------------------------------------------------------- */

/* A float16 constant of random values. */
static int half_weights(graph *g, int rank, const int64_t *dims)
{
    int w = weights(g, rank, dims);
    graph_value *v = &g->values[w];
    size_t n = vkml_tensor_element_count(rank, dims);
    uint16_t *h = vkml_arena_calloc(g->arena, n, sizeof(uint16_t));
    for (size_t i = 0; i < n; i++)
        h[i] = vkml_half_from_float(((const float *)v->data)[i]);
    v->dtype = VKML_DTYPE_FLOAT16;
    v->data = h;
    v->data_size = n * sizeof(uint16_t);
    return w;
}

/* Float16 models. Conv (+bias) -> Relu -> Conv (+ the Relu's output: a residual) -> 3x3
 * depthwise Conv (+bias, HardSwish) -> MaxPool; and a Conv whose bias is a graph input
 * (float16, not constant: the C kernel runs it). The library computes in float32 between
 * the conversions at each node's edges. */
static void half_check(vkml_context *ctx)
{
    graph *g = graph_create();
    int64_t c = 24;
    int x = input(g, 4, (int64_t[]){1, 8, 14, 12});
    g->values[x].dtype = VKML_DTYPE_FLOAT16;
    int y1 = value(g), r1 = value(g), y2 = value(g), s2 = value(g), y3 = value(g), h3 = value(g),
        p = value(g);
    graph_attr pad1[1] = {ints(g, "pads", 4, (int64_t[]){1, 1, 1, 1})};
    add_node(g, "Conv", 11, 3,
             (int[]){x, half_weights(g, 4, (int64_t[]){c, 8, 3, 3}), half_weights(g, 1, &c)}, y1, 1,
             pad1);
    add_node(g, "Relu", 14, 1, (int[]){y1}, r1, 0, NULL);
    add_node(g, "Conv", 11, 2, (int[]){r1, half_weights(g, 4, (int64_t[]){c, c, 1, 1})}, y2, 0,
             NULL);
    add_node(g, "Add", 14, 2, (int[]){y2, r1}, s2, 0, NULL);
    add_node(g, "Conv", 11, 3,
             (int[]){s2, half_weights(g, 4, (int64_t[]){c, 1, 3, 3}), half_weights(g, 1, &c)}, y3,
             2, (graph_attr[]){pad1[0], one_int("group", c)});
    add_node(g, "HardSwish", 14, 1, (int[]){y3}, h3, 0, NULL);
    add_node(g, "MaxPool", 12, 1, (int[]){h3}, p, 2,
             (graph_attr[]){ints(g, "kernel_shape", 2, (int64_t[]){2, 2}),
                            ints(g, "strides", 2, (int64_t[]){2, 2})});
    int bias = input(g, 1, &c), q = value(g);
    g->values[bias].dtype = VKML_DTYPE_FLOAT16;
    add_node(g, "Conv", 11, 3, (int[]){p, half_weights(g, 4, (int64_t[]){c, c, 1, 1}), bias}, q, 0,
             NULL);
    check_case(ctx, "float16 Conv chain", g, (int[]){x, bias}, 2, (int[]){p, q}, 2, 3);

    /* MatMul by a constant (+ bias, Relu), MatMul by a graph input, Gemm (transB, alpha, C) */
    g = graph_create();
    int a = input(g, 3, (int64_t[]){2, 5, 12}), bd = input(g, 3, (int64_t[]){2, 16, 7}),
        ga = input(g, 2, (int64_t[]){3, 12});
    g->values[a].dtype = g->values[bd].dtype = g->values[ga].dtype = VKML_DTYPE_FLOAT16;
    int m1 = value(g), b1 = value(g), r = value(g), m2 = value(g), gy = value(g);
    add_node(g, "MatMul", 13, 2, (int[]){a, half_weights(g, 2, (int64_t[]){12, 16})}, m1, 0, NULL);
    add_node(g, "Add", 14, 2, (int[]){m1, half_weights(g, 1, (int64_t[]){16})}, b1, 0, NULL);
    add_node(g, "Relu", 14, 1, (int[]){b1}, r, 0, NULL);
    add_node(g, "MatMul", 13, 2, (int[]){r, bd}, m2, 0, NULL);
    add_node(
        g, "Gemm", 13, 3,
        (int[]){ga, half_weights(g, 2, (int64_t[]){10, 12}), half_weights(g, 1, (int64_t[]){10})},
        gy, 3,
        (graph_attr[]){one_int("transB", 1), one_float("alpha", 0.5f), one_float("beta", 1.0f)});
    check_case(ctx, "float16 MatMul and Gemm", g, (int[]){a, bd, ga}, 3, (int[]){m2, gy}, 2, 3);
}

/* ---- integer products -------------------------------------------------------------- */

/* A constant of int8 or uint8 values: `n` given, or random when values is NULL. */
/* With a limit > 0, random int8 constants lie in -limit .. limit (a case's 7-bit weights). */
static int int8_limit;

static int byte_constant(graph *g, vkml_dtype dtype, int rank, const int64_t *dims,
                         const int *values)
{
    char name[32];
    snprintf(name, sizeof(name), "q%d", g->n_values);
    int c = tg_value(g, name, dtype, rank, dims);
    size_t n = vkml_tensor_element_count(rank, dims);
    uint8_t *d = vkml_arena_calloc(g->arena, n ? n : 1, 1);
    for (size_t i = 0; i < n; i++)
        d[i] = (uint8_t)(values                      ? values[i]
                         : dtype == VKML_DTYPE_UINT8 ? (int)test_randf(&seed, 0, 256)
                         : int8_limit
                             ? (int)test_randf(&seed, (float)-int8_limit, (float)int8_limit + 1)
                             : (int)test_randf(&seed, -128, 128));
    g->values[c].kind = GRAPH_VALUE_CONSTANT;
    g->values[c].data = d;
    g->values[c].data_size = n;
    return c;
}

/* MatMulInteger, A [2, 7, 33] of a_type with zero point a_zero (-1: none) by B [33, 20]
 * (a constant, or a graph input) of b_type with zero point b_zero; `library`: whether
 * oneDNN must take it. The int32 results must be equal. */
static void integer_check(vkml_context *ctx, const char *label, vkml_dtype a_type, int a_zero,
                          vkml_dtype b_type, int b_zero, bool b_constant, bool library)
{
    graph *g = graph_create();
    int64_t ad[3] = {2, 7, 33}, bd[2] = {33, 20}, one = 1;
    int a = input(g, 3, ad), b, y = value(g);
    g->values[a].dtype = a_type;
    if (b_constant) {
        b = byte_constant(g, b_type, 2, bd, NULL);
    } else {
        b = input(g, 2, bd);
        g->values[b].dtype = b_type;
    }
    int az = a_zero < 0 ? -1 : byte_constant(g, a_type, 1, &one, &a_zero);
    int bz = b_zero < 0 ? -1 : byte_constant(g, b_type, 1, &one, &b_zero);
    add_node(g, "MatMulInteger", 10, 4, (int[]){a, b, az, bz}, y, 0, NULL);
    int inputs[2] = {a, b};
    /* without VNNI an int8 B's zero point other than 0 is packed less it (each half of the
     * split has none), which these random values in -128 .. 127 do not fit */
    bool packs = b_type == VKML_DTYPE_UINT8 || b_zero <= 0;
    check_case(ctx, label, g, inputs, b_constant ? 1 : 2, (int[]){y}, 1,
               int8_expect(library, b_constant && packs));
}

/* A float constant: `n` entries in [lo, hi] (rank 0 when n is 0). */
static int scale_constant(graph *g, int64_t n, float lo, float hi)
{
    char name[32];
    snprintf(name, sizeof(name), "s%d", g->n_values);
    return tg_random_constant(g, name, n ? 1 : 0, &n, lo, hi, &seed);
}

/* An int8 or uint8 zero point: `n` entries of v (rank 0 when n is 0). */
static int zero_constant(graph *g, vkml_dtype dtype, int64_t n, int v)
{
    int values[256];
    for (int i = 0; i < 256; i++)
        values[i] = v;
    return byte_constant(g, dtype, n ? 1 : 0, &n, values);
}

typedef struct qconv_case {
    const char *label;
    int spatial;
    int64_t batch, c, m, group;
    int64_t in[3], kernel[3], strides[3], dilations[3], pads[6];
    vkml_dtype x_type;
    int x_zero;
    vkml_dtype y_type; /* 0: ConvInteger */
    int y_zero;
    bool per_channel, bias;
    vkml_dtype w_type; /* 0: int8 */
    int w_zero;
    int w_zero_step; /* per channel: channel c's zero point w_zero + (c % 3 - 1) * step, and
                      * weights within 120 of it */
    bool ties;       /* as qmatmul_case's */
    int expect;      /* 0: a form the library leaves to the C kernel */
    bool split_ref;  /* without VNNI, a grouped form oneDNN 2.6's AVX2 kernels leave to its
                      * reference code (the C kernel runs it) */
    bool seven_bit;  /* int8 weights in -64 .. 64 (ONNX Runtime's reduce_range): without VNNI
                      * they run unsplit; all others split */
    bool w_floor;    /* its first weight -128, so that w minus a positive zero point leaves
                      * int8 whatever the other weights */
} qconv_case;

#define U8 VKML_DTYPE_UINT8
#define S8 VKML_DTYPE_INT8

/* clang-format off */
static const qconv_case qconv_cases[] = {
    {"QLinearConv 3x3 pad 1, u8 (zero 120)", 2, 1, 8, 16, 1, {9, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, U8, 120, U8, 7, .expect = 1},
    {"QLinearConv stride 2, asymmetric pads, per-channel", 2, 1, 5, 7, 1, {10, 9}, {3, 3}, {2, 2}, {1, 1}, {0, 1, 2, 0}, U8, 131, U8, 128, true, true, .expect = 1},
    {"QLinearConv dilation (2,3), s8 in and out", 2, 1, 3, 5, 1, {12, 14}, {3, 2}, {2, 2}, {2, 3}, {1, 0, 1, 1}, S8, -3, S8, 4, .bias = true, .expect = 1},
    {"QLinearConv group 2, per-channel, bias", 2, 1, 8, 12, 2, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, U8, 128, U8, 0, true, true, .expect = 1, .split_ref = true},
    {"QLinearConv group 4, 8 channels a group, u8", 2, 1, 32, 32, 4, {9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, U8, 128, U8, 128, true, true, .expect = 1},
    {"QLinearConv depthwise 3x3, u8", 2, 1, 32, 32, 32, {10, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, U8, 120, U8, 0, true, true, .expect = 1},
    {"QLinearConv 7-bit weights (reduce_range), u8", 2, 1, 16, 24, 1, {9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, U8, 128, U8, 128, true, true, .expect = 1, .seven_bit = true},
    {"QLinearConv 7-bit weights, s8 in", 2, 1, 16, 8, 1, {7, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, S8, -3, S8, 2, .expect = 1, .seven_bit = true},
    {"QLinearConv group 4 stride 2, s8 (zero 0)", 2, 1, 16, 8, 4, {9, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, S8, 0, S8, 0, .expect = 1, .split_ref = true},
    {"QLinearConv depthwise stride 2, per-channel", 2, 1, 24, 24, 24, {15, 15}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, U8, 100, U8, 110, true, true, .expect = 1},
    {"QLinearConv depthwise 5x5 multiplier 2", 2, 1, 8, 16, 8, {10, 10}, {5, 5}, {1, 1}, {1, 1}, {2, 2, 2, 2}, S8, 5, U8, 60, true, .expect = 1, .split_ref = true},
    {"QLinearConv 1x1, batch 2, s8 out", 2, 2, 32, 16, 1, {6, 7}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, U8, 128, S8, -10, true, true, .expect = 1},
    {"QLinearConv stem 7x7 stride 2, 3 channels", 2, 1, 3, 16, 1, {32, 30}, {7, 7}, {2, 2}, {1, 1}, {3, 3, 3, 3}, U8, 128, U8, 0, true, true, .expect = 1},
    {"QLinearConv 1d stride 2 dilation 2", 1, 2, 3, 4, 1, {17}, {3}, {2}, {2}, {1, 2}, U8, 128, U8, 128, .bias = true, .expect = 1},
    {"QLinearConv 3d group 2 stride (1,2,1)", 3, 1, 4, 6, 2, {4, 7, 5}, {2, 3, 3}, {1, 2, 1}, {1, 1, 1}, {0, 1, 1, 1, 0, 1}, U8, 90, U8, 128, true, .expect = 1, .split_ref = true},
    {"ConvInteger 3x3 pad 1, u8 (zero 130)", 2, 1, 8, 12, 1, {9, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, U8, 130, .expect = 1},
    {"ConvInteger s8, group 4 stride 2", 2, 2, 16, 8, 4, {9, 8}, {3, 3}, {2, 2}, {1, 1}, {0, 1, 1, 0}, S8, 0, .expect = 1, .split_ref = true},
    {"ConvInteger depthwise, u8 (zero 0)", 2, 1, 16, 16, 16, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, U8, 0, .expect = 1},
    {"QLinearConv u8 weights (zero 128)", 2, 1, 4, 8, 1, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, U8, 128, U8, 0, .w_type = U8, .w_zero = 128, .expect = 1},
    {"QLinearConv u8 weights, per-channel zero points", 2, 1, 6, 9, 3, {7, 8}, {3, 3}, {2, 1}, {1, 1}, {1, 1, 1, 1}, U8, 128, U8, 128, true, true, U8, 128, 5, .expect = 1, .split_ref = true},
    {"ConvInteger s8 weights, per-channel zero points", 2, 1, 8, 6, 1, {6, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, S8, -2, .per_channel = true, .w_zero = 0, .w_zero_step = 4, .expect = 1},
    {"QLinearConv ties (multiplier 2^-8), 1x1", 2, 1, 4, 16, 1, {9, 9}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, U8, 128, U8, 128, .bias = true, .expect = 1, .ties = true},
    {"QLinearConv ties (multiplier 2^-8), depthwise", 2, 1, 16, 16, 16, {8, 9}, {2, 2}, {1, 1}, {1, 1}, {0, 1, 1, 0}, S8, 3, S8, -1, .expect = 1, .ties = true},
    {"QLinearConv w zero point 3, w - 3 out of int8 (C kernel)", 2, 1, 4, 8, 1, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, U8, 128, U8, 0, .w_zero = 3, .w_floor = true},
    {"ConvInteger u8 weights of zero 0 (C kernel)", 2, 1, 4, 8, 1, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, U8, 128, .w_type = U8},
};
/* clang-format on */

/* y_scale for x (of zero point z) and weights of scale w_scale over k terms: the
 * product's spread maps onto about +-60, so that outputs fill the range, some saturate. */
static float out_scale_for(vkml_dtype x_type, int z, float w_scale, int64_t k)
{
    double x_spread = x_type == U8 ? fabs(127.5 - z) + 74.0 : fabs((double)z) + 74.0;
    return (float)(0.02 * w_scale * x_spread * 74.0 * sqrt((double)k) / 60.0);
}

static void qconv_check(vkml_context *ctx, const qconv_case *k)
{
    graph *g = graph_create();
    int rank = 2 + k->spatial;
    int64_t xd[5] = {k->batch, k->c}, wd[5] = {k->m, k->c / k->group}, terms = k->c / k->group;
    for (int d = 0; d < k->spatial; d++) {
        xd[2 + d] = k->in[d];
        wd[2 + d] = k->kernel[d];
        terms *= k->kernel[d];
    }
    vkml_dtype w_type = k->w_type ? k->w_type : S8;
    int x = input(g, rank, xd), y = value(g);
    g->values[x].dtype = k->x_type;
    int8_limit = k->seven_bit ? 64 : 0;
    int w = byte_constant(g, w_type, rank, wd, NULL);
    int8_limit = 0;
    if (k->w_floor)
        ((uint8_t *)g->values[w].data)[0] = (uint8_t)-128;
    int xz = zero_constant(g, k->x_type, 0, k->x_zero);
    int wz = zero_constant(g, w_type, k->per_channel ? k->m : 0, k->w_zero);
    if (k->w_zero_step) { /* per-channel zero points, the weights around them */
        uint8_t *zd = (uint8_t *)g->values[wz].data, *wdata = (uint8_t *)g->values[w].data;
        int64_t count = (int64_t)g->values[w].data_size, per = count / k->m;
        for (int64_t c = 0; c < k->m; c++)
            zd[c] = (uint8_t)(k->w_zero + (c % 3 - 1) * k->w_zero_step);
        for (int64_t i = 0; i < count; i++) {
            int zc = w_type == U8 ? zd[i / per] : (int8_t)zd[i / per];
            wdata[i] = (uint8_t)(zc + (int)test_randf(&seed, -120, 121));
        }
    }
    graph_attr a[5] = {ints(g, "kernel_shape", k->spatial, k->kernel),
                       ints(g, "strides", k->spatial, k->strides),
                       ints(g, "dilations", k->spatial, k->dilations), one_int("group", k->group),
                       ints(g, "pads", 2 * k->spatial, k->pads)};
    if (!k->y_type) {
        add_node(g, "ConvInteger", 10, 4, (int[]){x, w, xz, wz}, y, 5, a);
    } else {
        int xs = scale_constant(g, 0, 0.02f, 0.02f);
        int ws = scale_constant(g, k->per_channel ? k->m : 0, 0.002f, 0.01f);
        int ys = scale_constant(g, 0, 1, 1);
        *(float *)g->values[ys].data = out_scale_for(k->x_type, k->x_zero, 0.006f, terms);
        if (k->ties) {
            *(float *)g->values[xs].data = *(float *)g->values[ws].data = 1.0f / 16;
            *(float *)g->values[ys].data = 1.0f;
        }
        int yz = zero_constant(g, k->y_type, 0, k->y_zero), bias = -1;
        if (k->bias) {
            bias = tg_value(g, "bias", VKML_DTYPE_INT32, 1, &k->m);
            int32_t *bd = vkml_arena_calloc(g->arena, (size_t)k->m, sizeof(int32_t));
            for (int64_t i = 0; i < k->m; i++)
                bd[i] = (int32_t)test_randf(&seed, -40000, 40000);
            g->values[bias].kind = GRAPH_VALUE_CONSTANT;
            g->values[bias].data = bd;
            g->values[bias].data_size = sizeof(int32_t) * (size_t)k->m;
        }
        add_node(g, "QLinearConv", 10, k->bias ? 9 : 8, (int[]){x, xs, xz, w, ws, wz, ys, yz, bias},
                 y, 5, a);
    }
    requant_exact = k->ties;
    check_case(ctx, k->label, g, (int[]){x}, 1, (int[]){y}, 1,
               int8_conv_expect(k->expect, k->split_ref));
    requant_exact = false;
    if (!onednn_int8_exact() && library_nodes > 0)
        CHECK(first_split == !k->seven_bit, "%s: the weights ran %s, expected %s", k->label,
              first_split ? "split" : "unsplit", k->seven_bit ? "unsplit" : "split");
}

/* QLinearConv -> QLinearConv -> QLinearConv (1x1, 3x3 depthwise, 1x1): the uint8 values
 * between them stay channels-last (where oneDNN runs them: a CPU with VNNI). */
static void qconv_chain_check(vkml_context *ctx)
{
    graph *g = graph_create();
    int64_t c = 24;
    int x = input(g, 4, (int64_t[]){1, 16, 11, 13}), v[4] = {x, value(g), value(g), value(g)};
    g->values[x].dtype = U8;
    const int64_t wdims[3][4] = {{c, 16, 1, 1}, {c, 1, 3, 3}, {8, c, 1, 1}};
    for (int i = 0; i < 3; i++) {
        graph_attr a[2] = {one_int("group", i == 1 ? c : 1),
                           ints(g, "pads", 4, (int64_t[]){i == 1, i == 1, i == 1, i == 1})};
        int64_t terms = wdims[i][1] * wdims[i][2] * wdims[i][3];
        int xs = scale_constant(g, 0, 0.02f, 0.02f), xz = zero_constant(g, U8, 0, 128);
        int w = byte_constant(g, S8, 4, wdims[i], NULL);
        int ws = scale_constant(g, wdims[i][0], 0.002f, 0.01f), wz = zero_constant(g, S8, 0, 0);
        int ys = scale_constant(g, 0, 1, 1), yz = zero_constant(g, U8, 0, 128);
        *(float *)g->values[ys].data = out_scale_for(U8, 128, 0.006f, terms) * 0.02f / 0.02f;
        add_node(g, "QLinearConv", 10, 8, (int[]){v[i], xs, xz, w, ws, wz, ys, yz}, v[i + 1], 2, a);
    }
    check_case(ctx, "QLinearConv chain", g, (int[]){x}, 1, (int[]){v[3]}, 1, 3);
    CHECK(!onednn_int8_exact() || strcmp(first_stored, "channels-last") == 0,
          "QLinearConv chain: the first output is stored '%s', not channels-last", first_stored);
}

typedef struct qmatmul_case {
    const char *label;
    int ra, rb;
    int64_t a[4], b[4];
    bool b_constant, per_column;
    vkml_dtype a_type, y_type, b_type; /* b_type 0: int8 */
    int a_zero, y_zero;
    int expect;
    int b_zero_step; /* per column: column j's zero point 128 + (j % 3 - 1) * step (uint8 B),
                      * B within 120 of it */
    bool ties;       /* scales 1/16, 1/16 and 1: the multiplier 2^-8 is exact in float32, so a
                      * sum of 128 mod 256 is a tie both ways, rounded to even: outputs equal */
} qmatmul_case;

/* clang-format off */
static const qmatmul_case qmatmul_cases[] = {
    {"QLinearMatMul u8 by constant s8", 2, 2, {7, 33}, {33, 20}, true, false, U8, U8, 0, 128, 128, 1},
    {"QLinearMatMul batched, per-column scales", 3, 2, {3, 5, 17}, {17, 11}, true, true, S8, S8, 0, -4, 3, 1},
    {"QLinearMatMul both dynamic, batched", 4, 4, {2, 3, 6, 19}, {2, 3, 19, 7}, false, false, U8, S8, 0, 100, 0, 1},
    {"QLinearMatMul broadcast batch, per-column", 4, 3, {3, 1, 4, 9}, {2, 9, 6}, true, true, U8, U8, 0, 0, 250, 1},
    {"QLinearMatMul 1 row by 1 column", 2, 2, {1, 13}, {13, 1}, true, false, S8, U8, 0, 0, 128, 1},
    {"QLinearMatMul 1-d A, per-column", 1, 2, {21}, {21, 6}, true, true, U8, U8, 0, 128, 128, 1},
    {"QLinearMatMul 1-d B", 3, 1, {2, 4, 15}, {15}, false, false, S8, S8, 0, 0, 0, 1},
    {"QLinearMatMul constant u8 B (zero 128)", 2, 2, {4, 8}, {8, 5}, true, false, U8, U8, U8, 128, 128, 1},
    {"QLinearMatMul constant u8 B, per-column zero points", 3, 2, {2, 5, 12}, {12, 7}, true, true, S8, U8, U8, 3, 128, 1, 6},
    {"QLinearMatMul ties (multiplier 2^-8), u8 out", 2, 2, {64, 4}, {4, 64}, true, false, U8, U8, 0, 128, 128, 1, .ties = true},
    {"QLinearMatMul ties (multiplier 2^-8), s8 out", 2, 2, {48, 3}, {3, 40}, false, false, S8, S8, 0, -7, 5, 1, .ties = true},
    {"QLinearMatMul input u8 B (C kernel)", 2, 2, {4, 8}, {8, 5}, false, false, U8, U8, U8, 128, 128, 0},
};
/* clang-format on */

static void qmatmul_check(vkml_context *ctx, const qmatmul_case *k)
{
    graph *g = graph_create();
    vkml_dtype b_type = k->b_type ? k->b_type : S8;
    int a = input(g, k->ra, k->a), b, y = value(g);
    g->values[a].dtype = k->a_type;
    if (k->b_constant) {
        b = byte_constant(g, b_type, k->rb, k->b, NULL);
    } else {
        b = input(g, k->rb, k->b);
        g->values[b].dtype = b_type;
    }
    int64_t n = k->b[k->rb - 1], terms = k->a[k->ra - 1];
    int as = scale_constant(g, 0, 0.02f, 0.02f), az = zero_constant(g, k->a_type, 0, k->a_zero);
    int bs = scale_constant(g, k->per_column ? n : 0, 0.002f, 0.01f);
    int bz = zero_constant(g, b_type, k->b_zero_step ? n : 0, b_type == U8 ? 128 : 0);
    if (k->b_zero_step) {
        uint8_t *zd = (uint8_t *)g->values[bz].data, *bdata = (uint8_t *)g->values[b].data;
        for (int64_t j = 0; j < n; j++)
            zd[j] = (uint8_t)(128 + (j % 3 - 1) * k->b_zero_step);
        for (int64_t i = 0; i < (int64_t)g->values[b].data_size; i++)
            bdata[i] = (uint8_t)(zd[i % n] + (int)test_randf(&seed, -120, 121));
    }
    int ys = scale_constant(g, 0, 1, 1), yz = zero_constant(g, k->y_type, 0, k->y_zero);
    *(float *)g->values[ys].data = out_scale_for(k->a_type, k->a_zero, 0.006f, terms);
    if (k->ties) {
        *(float *)g->values[as].data = *(float *)g->values[bs].data = 1.0f / 16;
        *(float *)g->values[ys].data = 1.0f;
    }
    add_node(g, "QLinearMatMul", 10, 8, (int[]){a, as, az, b, bs, bz, ys, yz}, y, 0, NULL);
    requant_exact = k->ties;
    check_case(ctx, k->label, g, (int[]){a, b}, k->b_constant ? 1 : 2, (int[]){y}, 1,
               int8_expect(k->expect, k->b_constant));
    requant_exact = false;
}

/* ---- channel ranges ---------------------------------------------------------------- */

/* An int64 constant [n]. */
static int int_constant(graph *g, int n, const int64_t *v)
{
    char name[32];
    snprintf(name, sizeof(name), "i%d", g->n_values);
    int c = tg_value(g, name, VKML_DTYPE_INT64, 1, (int64_t[]){n});
    g->values[c].kind = GRAPH_VALUE_CONSTANT;
    g->values[c].data = vkml_arena_memdup(g->arena, v, sizeof(int64_t) * (size_t)n);
    g->values[c].data_size = sizeof(int64_t) * (size_t)n;
    return c;
}

/* Channels [first, first + count) of x (a Slice) into y. */
static void slice_channels(graph *g, int x, int64_t first, int64_t count, int y)
{
    add_node(g, "Slice", 13, 4,
             (int[]){x, int_constant(g, 1, &first), int_constant(g, 1, (int64_t[]){first + count}),
                     int_constant(g, 1, (int64_t[]){1})},
             y, 0, NULL);
}

/* A C2f block of YOLO-style detectors: Conv -> its two halves of `half` channels (a Split,
 * or two Slices) -> 3x3 Conv of the second -> Concat of both halves, that Conv's output, a
 * graph input and an Abs (a C kernel: both in ONNX's layout) -> 1x1 Conv; the first half
 * is a graph output too; images of side x (side + 2). Ranges of channels are library nodes
 * (values stay channels-last around them); `half` not a multiple of 16 cuts blocks of 16;
 * a large side copies on several threads. */
static void ranges_check(vkml_context *ctx, const char *label, int64_t half, int64_t side,
                         bool slices)
{
    graph *g = graph_create();
    int64_t c = 2 * half, total = 3 * half + 5 + 4;
    int x = input(g, 4, (int64_t[]){1, 8, side, side + 2}),
        w = input(g, 4, (int64_t[]){1, 5, side, side + 2});
    int y = value(g), y0 = value(g), y1 = value(g), z = value(g), a = value(g), cat = value(g),
        out = value(g);
    graph_attr pad1[1] = {ints(g, "pads", 4, (int64_t[]){1, 1, 1, 1})};
    add_node(g, "Conv", 11, 2, (int[]){x, weights(g, 4, (int64_t[]){c, 8, 1, 1})}, y, 0, NULL);
    if (slices) {
        slice_channels(g, y, 0, half, y0);
        slice_channels(g, y, half, half, y1);
    } else {
        int n = add_node(g, "Split", 13, 2, (int[]){y, int_constant(g, 2, (int64_t[]){half, half})},
                         y0, 1, (graph_attr[]){one_int("axis", 1)});
        graph_node *node = &g->nodes[n];
        node->n_outputs = 2;
        node->outputs = vkml_arena_memdup(g->arena, (int[]){y0, y1}, sizeof(int) * 2);
    }
    add_node(g, "Conv", 11, 2, (int[]){y1, weights(g, 4, (int64_t[]){half, half, 3, 3})}, z, 1,
             pad1);
    int a_in = value(g);
    slice_channels(g, x, 2, 4, a_in);
    add_node(g, "Abs", 13, 1, (int[]){a_in}, a, 0, NULL);
    add_node(g, "Concat", 13, 5, (int[]){y0, y1, z, w, a}, cat, 1,
             (graph_attr[]){one_int("axis", 1)});
    add_node(g, "Conv", 11, 2, (int[]){cat, weights(g, 4, (int64_t[]){16, total, 1, 1})}, out, 0,
             NULL);
    /* three Convs, the Split or Slices, the Concat (the Slice before Abs reads a graph input:
     * the library may take it too) */
    check_case(ctx, label, g, (int[]){x, w}, 2, (int[]){out, y0}, 2, slices ? 6 : 5);
    CHECK(strcmp(first_stored, "channels-last") == 0 || strcmp(first_stored, "blocked") == 0,
          "%s: the first Conv's output is stored '%s', not in a library layout", label,
          first_stored);
}

/* Inception-v3's reduction block at a small input: a 3x3 stride-2 Conv to 1x1 beside a
 * MaxPool, both into a Concat. Stored as the Concat wants, that Conv had only oneDNN's
 * reference code; it must write channels-last and reorder instead. */
static void concat_reader_check(vkml_context *ctx)
{
    graph *g = graph_create();
    int x = input(g, 4, (int64_t[]){1, 32, 3, 3});
    int a = value(g), b = value(g), p = value(g), cat = value(g);
    add_node(g, "Conv", 11, 2, (int[]){x, weights(g, 4, (int64_t[]){48, 32, 1, 1})}, a, 0, NULL);
    add_node(g, "Conv", 11, 2, (int[]){a, weights(g, 4, (int64_t[]){80, 48, 3, 3})}, b, 1,
             (graph_attr[]){ints(g, "strides", 2, (int64_t[]){2, 2})});
    add_node(g, "MaxPool", 12, 1, (int[]){a}, p, 2,
             (graph_attr[]){ints(g, "kernel_shape", 2, (int64_t[]){3, 3}),
                            ints(g, "strides", 2, (int64_t[]){2, 2})});
    add_node(g, "Concat", 13, 2, (int[]){b, p}, cat, 1, (graph_attr[]){one_int("axis", 1)});
    ref_convs = 0;
    check_case(ctx, "3x3 stride-2 Conv to 1x1 into a Concat", g, (int[]){x}, 1, (int[]){cat}, 1, 4);
    CHECK(ref_convs == 0, "a Conv into a Concat ran oneDNN's reference code (%d)", ref_convs);
}

/* ---- Resize ------------------------------------------------------------------------ */

/* Conv -> Resize (nearest, by `scales` over every dim, with the coordinate mode and
 * nearest mode given; opset 13) -> Conv, on a [1, 16, 6, 5...] input of `spatial` dims.
 * `library`: whether the Resize must run on oneDNN (whole upsampling factors). */
static void resize_check(vkml_context *ctx, const char *label, int spatial, const float *scales,
                         const char *coord, const char *nearest, bool library)
{
    graph *g = graph_create();
    int64_t dims[5] = {1, 16, 6, 5, 4}, k1[5] = {16, 16, 1, 1, 1};
    int rank = 2 + spatial;
    int x = input(g, rank, dims), y = value(g), r = value(g), out = value(g);
    add_node(g, "Conv", 11, 2, (int[]){x, weights(g, rank, k1)}, y, 0, NULL);
    int sc = tg_value(g, "scales", VKML_DTYPE_FLOAT, 1, (int64_t[]){rank});
    g->values[sc].kind = GRAPH_VALUE_CONSTANT;
    g->values[sc].data = vkml_arena_memdup(g->arena, scales, sizeof(float) * (size_t)rank);
    g->values[sc].data_size = sizeof(float) * (size_t)rank;
    add_node(g, "Resize", 13, 3, (int[]){y, -1, sc}, r, 3,
             (graph_attr[]){text("mode", "nearest"), text("coordinate_transformation_mode", coord),
                            text("nearest_mode", nearest)});
    add_node(g, "Conv", 11, 2, (int[]){r, weights(g, rank, k1)}, out, 0, NULL);
    check_case(ctx, label, g, (int[]){x}, 1, (int[]){out}, 1, library ? 3 : 2);
    CHECK(library || library_nodes == 2, "%s: %d nodes on oneDNN, expected the two Convs only",
          label, library_nodes);
}

/* ---- chains ------------------------------------------------------------------------ */

/* Conv -> Relu -> Conv (+ the first's output: a residual) -> MaxPool -> Conv ->
 * GlobalAveragePool -> Flatten -> Gemm, channels c: values between library nodes stay in
 * the library's layouts; with `break_chain`, an Abs (a C kernel) after the first conv
 * reads it in ONNX's layout. */
static void chain_check(vkml_context *ctx, const char *label, int64_t c, bool break_chain)
{
    graph *g = graph_create();
    int x = input(g, 4, (int64_t[]){1, 3, 12, 12});
    graph_attr pad1[1] = {ints(g, "pads", 4, (int64_t[]){1, 1, 1, 1})};
    int y1 = value(g), r1 = value(g), y2 = value(g), p = value(g), y3 = value(g), gp = value(g),
        f = value(g), out = value(g);
    add_node(g, "Conv", 11, 3,
             (int[]){x, weights(g, 4, (int64_t[]){c, 3, 3, 3}), weights(g, 1, &c)}, y1, 1, pad1);
    add_node(g, break_chain ? "Abs" : "Relu", 14, 1, (int[]){y1}, r1, 0, NULL);
    int c2 = value(g);
    add_node(g, "Conv", 11, 2, (int[]){r1, weights(g, 4, (int64_t[]){c, c, 3, 3})}, c2, 1, pad1);
    add_node(g, "Add", 14, 2, (int[]){c2, r1}, y2, 0, NULL);
    add_node(g, "MaxPool", 12, 1, (int[]){y2}, p, 2,
             (graph_attr[]){ints(g, "kernel_shape", 2, (int64_t[]){2, 2}),
                            ints(g, "strides", 2, (int64_t[]){2, 2})});
    add_node(g, "Conv", 11, 2, (int[]){p, weights(g, 4, (int64_t[]){2 * c, c, 1, 1})}, y3, 0, NULL);
    add_node(g, "GlobalAveragePool", 1, 1, (int[]){y3}, gp, 0, NULL);
    add_node(g, "Flatten", 13, 1, (int[]){gp}, f, 0, NULL);
    add_node(g, "Gemm", 13, 3,
             (int[]){f, weights(g, 2, (int64_t[]){2 * c, 10}), weights(g, 1, (int64_t[]){10})}, out,
             0, NULL);
    /* Conv (+Relu), Conv (+Add), MaxPool, Conv, GlobalAveragePool, Gemm */
    check_case(ctx, label, g, (int[]){x}, 1, (int[]){out}, 1, 6);
}

int main(void)
{
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    vkml_context_params cp = {.disable_vulkan = true,
                              .log_level = VKML_LOG_DEBUG,
                              .log_level_set = true,
                              .log_callback = count_library};
    CHECK_OK(vkml_context_create(&cp, &ctx, &err), &err);
    if (!ctx)
        return test_finish("test_cpu_library");
    int block = onednn_block_channels();
    for (size_t i = 0; i < VKML_ARRAY_SIZE(conv_cases); i++) {
        const conv_case *k = &conv_cases[i];
        conv_check(ctx, k, false);
        if (k->group == 1 && k->m % block == 0 && (k->c % block == 0 || k->c < block) &&
            !k->max_pool)
            conv_check(ctx, k, true);
    }
    winograd_choice_check(ctx);
    blocks_plan_check(ctx);
    mixed_blocks_check(ctx);
    for (size_t i = 0; i < VKML_ARRAY_SIZE(pool_cases); i++)
        pool_check(ctx, &pool_cases[i]);
    for (size_t i = 0; i < VKML_ARRAY_SIZE(matmul_cases); i++)
        matmul_check(ctx, &matmul_cases[i]);
    matmul_views_check(ctx);
    for (size_t i = 0; i < VKML_ARRAY_SIZE(gemm_cases); i++)
        gemm_check(ctx, &gemm_cases[i]);
    for (size_t i = 0; i < VKML_ARRAY_SIZE(binary_cases); i++)
        binary_check(ctx, &binary_cases[i]);
    excitation_check(ctx);
    in_place_check(ctx);
    concat_reader_check(ctx);
    for (size_t i = 0; i < VKML_ARRAY_SIZE(norm_cases); i++)
        norm_check(ctx, &norm_cases[i]);
    threads_check(ctx);
    thread_trial_check(ctx);
    folded_reader_check(ctx);
    half_check(ctx);
    integer_check(ctx, "MatMulInteger u8 (zero 128) by constant s8", VKML_DTYPE_UINT8, 128,
                  VKML_DTYPE_INT8, -1, true, true);
    integer_check(ctx, "MatMulInteger s8 by input s8 (zero 0)", VKML_DTYPE_INT8, -1,
                  VKML_DTYPE_INT8, 0, false, true);
    integer_check(ctx, "MatMulInteger u8 by constant s8 (zero 3)", VKML_DTYPE_UINT8, 7,
                  VKML_DTYPE_INT8, 3, true, true);
    integer_check(ctx, "MatMulInteger u8 by constant u8 (zero 128)", VKML_DTYPE_UINT8, 128,
                  VKML_DTYPE_UINT8, 128, true, true);
    int8_limit = 64; /* the weights unsplit without VNNI */
    integer_check(ctx, "MatMulInteger u8 by constant 7-bit s8", VKML_DTYPE_UINT8, 128,
                  VKML_DTYPE_INT8, -1, true, true);
    CHECK(onednn_int8_exact() || !first_split, "MatMulInteger u8 by constant 7-bit s8: split");
    int8_limit = 0;
    integer_check(ctx, "MatMulInteger u8 (zero 128) by constant s8, split", VKML_DTYPE_UINT8, 128,
                  VKML_DTYPE_INT8, -1, true, true);
    CHECK(onednn_int8_exact() || first_split, "MatMulInteger by constant s8: not split");
    integer_check(ctx, "MatMulInteger u8 by constant u8 of zero 0 (C kernel)", VKML_DTYPE_UINT8,
                  128, VKML_DTYPE_UINT8, 0, true, false);
    integer_check(ctx, "MatMulInteger u8 by input u8 (C kernel)", VKML_DTYPE_UINT8, 128,
                  VKML_DTYPE_UINT8, 128, false, false);
    for (size_t i = 0; i < VKML_ARRAY_SIZE(qconv_cases); i++)
        qconv_check(ctx, &qconv_cases[i]);
    qconv_chain_check(ctx);
    for (size_t i = 0; i < VKML_ARRAY_SIZE(qmatmul_cases); i++)
        qmatmul_check(ctx, &qmatmul_cases[i]);
    resize_check(ctx, "Resize 2x, asymmetric floor", 2, (float[]){1, 1, 2, 2}, "asymmetric",
                 "floor", true);
    resize_check(ctx, "Resize 3x2, half_pixel", 2, (float[]){1, 1, 3, 2}, "half_pixel",
                 "round_prefer_floor", true);
    resize_check(ctx, "Resize 1-D 4x, pytorch_half_pixel", 1, (float[]){1, 1, 4},
                 "pytorch_half_pixel", "round_prefer_ceil", true);
    resize_check(ctx, "Resize 3-D 2x, asymmetric floor", 3, (float[]){1, 1, 2, 2, 2}, "asymmetric",
                 "floor", true);
    resize_check(ctx, "Resize 2x, asymmetric round_prefer_ceil (C kernel)", 2,
                 (float[]){1, 1, 2, 2}, "asymmetric", "round_prefer_ceil", false);
    resize_check(ctx, "Resize 1.5x (C kernel)", 2, (float[]){1, 1, 1.5f, 1.5f}, "asymmetric",
                 "floor", false);
    resize_check(ctx, "Resize 0.5x (C kernel)", 2, (float[]){1, 1, 0.5f, 0.5f}, "asymmetric",
                 "floor", false);
    ranges_check(ctx, "C2f block, Split of 16 + 16", 16, 10, false);
    ranges_check(ctx, "C2f block, Slices of 16 + 16", 16, 10, true);
    ranges_check(ctx, "C2f block, Split of 12 + 12", 12, 10, false);
    ranges_check(ctx, "C2f block, Slices of 7 + 7", 7, 10, true);
    ranges_check(ctx, "C2f block 80x82, Split of 32 + 32", 32, 80, false);
    for (int c = 16; c <= 24; c += 8) {
        char label[64];
        snprintf(label, sizeof(label), "chain of %lld channels", (long long)c);
        chain_check(ctx, label, c, false);
        snprintf(label, sizeof(label), "chain of %lld channels, broken", (long long)c);
        chain_check(ctx, label, c, true);
    }
    vkml_context_destroy(&ctx);
    return test_finish("test_cpu_library");
}
