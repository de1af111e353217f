/* Views (plan/views.h): a C2f-like block, y = X * g1; a, b = Split(y); d = Relu(b);
 * z = Concat(a, b, d); Y = z * g2, at batch 1 (the Split outputs are views of y, y and d
 * are written in place into z: no copy runs) and batch 2 (no block is contiguous: every
 * copy runs), and with the Concat's inputs in an order that leaves y where it is
 * (Concat(a, d, b): a and b copied, d in place). On the CPU device and every Vulkan device
 * the outputs equal those of the same session without views (VKML_NO_VIEWS=1), and the
 * plan marks the views it should: none of these on the CPU device when its library kernels
 * run (it may store the values channels-last; the block runs again on its C kernels). Then Gathers
 * of one index and Transposes, y = X * g1; q = Gather(y, i) or Transpose(y, perm); Y = q * 2: a
 * view where every dim before the Gather's axis is 1 (PyTorch's q, k, v = proj[0], proj[1],
 * proj[2]) or the Transpose moves only dims of size 1 (a batch-first transpose at batch 1), a copy
 * otherwise. */
#include "plan/session.h"
#include "test_graph.h"

#define C 4
#define H 6
#define W 8

static vkml_model *block_model(int64_t batch, bool d_between)
{
    int64_t xd[] = {batch, C, H, W}, g1d[] = {1, C, 1, 1}, g2d[] = {1, 2 * C - C / 2, 1, 1},
            two[] = {2};
    uint64_t seed = 3;
    graph *g = graph_create();
    int x = tg_value(g, "X", VKML_DTYPE_FLOAT, 4, xd);
    int g1 = tg_random_constant(g, "g1", 4, g1d, 0.5f, 2.0f, &seed);
    int g2 = tg_random_constant(g, "g2", 4, g2d, 0.5f, 2.0f, &seed);
    static const int64_t halves[] = {C / 2, C / 2};
    int split = tg_value(g, "split", VKML_DTYPE_INT64, 1, two);
    g->values[split].kind = GRAPH_VALUE_CONSTANT;
    g->values[split].data = halves;
    g->values[split].data_size = sizeof(halves);
    int y = graph_add_value(g, "y"), a = graph_add_value(g, "a"), b = graph_add_value(g, "b"),
        d = graph_add_value(g, "d"), z = graph_add_value(g, "z"), out = graph_add_value(g, "Y");
    tg_node(g, "scale", "Mul", x, g1, y, 13);
    int sn = graph_add_node(g, "split", "Split", "", 2, 2, 1);
    g->nodes[sn].attrs[0] = (graph_attr){.name = "axis", .type = GRAPH_ATTR_INT, .i = 1};
    g->nodes[sn].inputs[0] = y;
    g->nodes[sn].inputs[1] = split;
    g->nodes[sn].outputs[0] = a;
    g->nodes[sn].outputs[1] = b;
    g->nodes[sn].opset = 13;
    tg_node(g, "relu", "Relu", b, -1, d, 13);
    int cn = graph_add_node(g, "concat", "Concat", "", 3, 1, 1);
    int order[3] = {a, b, d};
    if (d_between)
        order[1] = d, order[2] = b;
    for (int k = 0; k < 3; k++)
        g->nodes[cn].inputs[k] = order[k];
    g->nodes[cn].outputs[0] = z;
    g->nodes[cn].opset = 13;
    g->nodes[cn].attrs[0] = (graph_attr){.name = "axis", .type = GRAPH_ATTR_INT, .i = 1};
    tg_node(g, "scale_out", "Mul", z, g2, out, 13);
    return tg_model(g, (int[]){x}, 1, (int[]){out}, 1, 13);
}

/* Runs m on device once; returns Y (malloc'ed), the bytes the device's memory plan holds
 * for intermediates, and, when views is not NULL, which of "a", "b", "y", "d", "q" are
 * views in the plan (bits 0..4). */
static float *run(vkml_context *ctx, vkml_model *m, int device, const float *x, size_t n_x,
                  size_t *n_y, uint64_t *held, unsigned *views)
{
    vkml_error err = {0};
    vkml_session *s = NULL;
    vkml_session_params params = {.device = device};
    CHECK_OK(vkml_session_create(ctx, m, &params, &s, &err), &err);
    if (!s)
        return NULL;
    *held = s->plan->devices[0].memory.intermediate_bytes;
    if (views) {
        static const char *names[] = {"a", "b", "y", "d", "q"};
        const plan *p = s->plan;
        *views = 0;
        for (int v = 0; v < p->graph->n_values; v++)
            for (int k = 0; k < (int)VKML_ARRAY_SIZE(names); k++)
                if (p->graph->values[v].name && !strcmp(p->graph->values[v].name, names[k]) &&
                    p->devices[0].value_plans[v].alias_of >= 0)
                    *views |= 1u << k;
    }
    float *y = tg_run_session(s, x, n_x, n_y);
    vkml_session_destroy(&s);
    return y;
}

/* y = X * g1 (X of rank 3, dims xd); q = Gather(y, index, axis), or Transpose(y, perm)
 * where perm is not NULL; Y = q * 2. */
static vkml_model *gather_model(const int64_t *xd, int64_t axis, int64_t index, const int64_t *perm)
{
    static int64_t indices[8];
    static int n_indices;
    int64_t *at = &indices[n_indices++ % 8];
    *at = index;
    int64_t gd[] = {1, 1, xd[2]};
    uint64_t seed = 5;
    graph *g = graph_create();
    int x = tg_value(g, "X", VKML_DTYPE_FLOAT, 3, xd);
    int g1 = tg_random_constant(g, "g1", 3, gd, 0.5f, 2.0f, &seed);
    int two = tg_random_constant(g, "two", 0, NULL, 2.0f, 2.0f, &seed);
    int i = tg_value(g, "i", VKML_DTYPE_INT64, 0, NULL);
    g->values[i].kind = GRAPH_VALUE_CONSTANT;
    g->values[i].data = at;
    g->values[i].data_size = sizeof(*at);
    int y = graph_add_value(g, "y"), q = graph_add_value(g, "q"), out = graph_add_value(g, "Y");
    tg_node(g, "scale", "Mul", x, g1, y, 13);
    int gn = perm ? tg_node(g, "transpose", "Transpose", y, -1, q, 13)
                  : tg_node(g, "gather", "Gather", y, i, q, 13);
    graph_node *n = &g->nodes[gn];
    n->attrs = vkml_arena_calloc(g->arena, 1, sizeof(graph_attr));
    n->attrs[0] =
        perm ? (graph_attr){.name = "perm", .type = GRAPH_ATTR_INTS, .ints = perm, .count = 3}
             : (graph_attr){.name = "axis", .type = GRAPH_ATTR_INT, .i = axis};
    n->n_attrs = 1;
    tg_node(g, "twice", "Mul", q, two, out, 13);
    return tg_model(g, (int[]){x}, 1, (int[]){out}, 1, 13);
}

/* Runs m (input of n_x floats, output of n_out) on the CPU device and every Vulkan device,
 * with and without views: equal outputs, the views want_views (bits as run's), and less
 * memory for intermediates exactly when there are views. */
/* Whether the CPU device stores values channels-last (its library kernels run: the device
 * names oneDNN, and VKML_CPU_KERNELS does not ask for the C kernels): then it makes no view
 * of a range of channels (plan/views.h). */
static bool cpu_channels_last(const vkml_context *ctx)
{
    vkml_device_info info;
    vkml_error err = {0};
    const char *kernels = getenv("VKML_CPU_KERNELS");
    return vkml_context_device_info(ctx, VKML_DEVICE_CPU, &info, &err) == VKML_OK &&
           strstr(info.name, "oneDNN") && !(kernels && strcmp(kernels, "reference") == 0);
}

static void check_model(vkml_context *ctx, vkml_model *m, size_t n_x, size_t n_out,
                        unsigned want_views, bool channel_ranges, const char *what)
{
    float *x = malloc(n_x * sizeof(float));
    uint64_t seed = 11;
    for (size_t i = 0; i < n_x; i++)
        x[i] = test_randf(&seed, -1, 1);
    TEST_FOR_EACH_DEVICE(t, ctx) {
        int device = t.device;
        size_t n_ref = 0, n = 0;
        uint64_t held_ref = 0, held = 0;
        unsigned views = 0, want = want_views;
        if (channel_ranges && device == VKML_DEVICE_CPU && cpu_channels_last(ctx))
            want = 0;
        setenv("VKML_NO_VIEWS", "1", 1);
        float *ref = run(ctx, m, device, x, n_x, &n_ref, &held_ref, NULL);
        unsetenv("VKML_NO_VIEWS");
        float *got = run(ctx, m, device, x, n_x, &n, &held, &views);
        /* what lives inside another value takes no memory of its own */
        CHECK(want ? held < held_ref : held == held_ref,
              "%s, device %d: intermediates of %llu bytes with views, %llu without", what, device,
              (unsigned long long)held, (unsigned long long)held_ref);
        CHECK(ref && got && n == n_ref && n == n_out, "%s, device %d: %zu outputs against %zu",
              what, device, n, n_ref);
        size_t bad = 0;
        for (size_t i = 0; ref && got && i < n && i < n_ref; i++)
            bad += got[i] != ref[i];
        CHECK(bad == 0, "%s, device %d: %zu of %zu outputs differ with views", what, device, bad,
              n);
        CHECK(views == want, "%s, device %d: views a b y d q = %u%u%u%u%u, want %u%u%u%u%u", what,
              device, views & 1, (views >> 1) & 1, (views >> 2) & 1, (views >> 3) & 1,
              (views >> 4) & 1, want & 1, (want >> 1) & 1, (want >> 2) & 1, (want >> 3) & 1,
              (want >> 4) & 1);
        free(ref);
        free(got);
    }
    free(x);
}

static void check_block(vkml_context *ctx, int64_t batch, bool d_between, unsigned want_views)
{
    vkml_model *m = block_model(batch, d_between);
    char what[64];
    snprintf(what, sizeof(what), "batch %lld%s", (long long)batch, d_between ? " (a, d, b)" : "");
    if (m)
        check_model(ctx, m, (size_t)(batch * C * H * W), (size_t)(batch * (2 * C - C / 2) * H * W),
                    want_views, true, what);
    vkml_model_destroy(&m);
}

static void check_gather(vkml_context *ctx, const int64_t *xd, int64_t axis, int64_t index,
                         bool view)
{
    vkml_model *m = gather_model(xd, axis, index, NULL);
    char what[96];
    snprintf(what, sizeof(what), "Gather(X [%lld,%lld,%lld], %lld, axis %lld)", (long long)xd[0],
             (long long)xd[1], (long long)xd[2], (long long)index, (long long)axis);
    size_t n_x = (size_t)(xd[0] * xd[1] * xd[2]);
    if (m)
        check_model(ctx, m, n_x, n_x / (size_t)xd[axis], view ? 0x10 : 0, false, what);
    vkml_model_destroy(&m);
}

static void check_transpose(vkml_context *ctx, const int64_t *xd, const int64_t *perm, bool view)
{
    vkml_model *m = gather_model(xd, 0, 0, perm);
    char what[96];
    snprintf(what, sizeof(what), "Transpose(X [%lld,%lld,%lld], [%lld,%lld,%lld])",
             (long long)xd[0], (long long)xd[1], (long long)xd[2], (long long)perm[0],
             (long long)perm[1], (long long)perm[2]);
    size_t n_x = (size_t)(xd[0] * xd[1] * xd[2]);
    if (m)
        check_model(ctx, m, n_x, n_x, view ? 0x10 : 0, false, what);
    vkml_model_destroy(&m);
}

int main(void)
{
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    test_require_vulkan(ctx);
    check_block(ctx, 1, false, 0xf); /* a, b views of y; y and d in z */
    check_block(ctx, 2, false, 0x0); /* channel blocks are strided at batch 2 */
    check_block(ctx, 1, true, 0xb);  /* Concat(a, d, b): y stays, d goes into z */
    /* the CPU device on its C kernels (read when the context opens its devices) */
    vkml_context *plain = NULL;
    setenv("VKML_CPU_KERNELS", "reference", 1);
    CHECK_OK(vkml_context_create(NULL, &plain, &err), &err);
    if (plain) {
        check_block(plain, 1, false, 0xf);
        check_block(plain, 1, true, 0xb);
    }
    unsetenv("VKML_CPU_KERNELS");
    vkml_context_destroy(&plain);
    check_gather(ctx, (int64_t[]){3, 4, 8}, 0, 1, true);  /* proj[1] */
    check_gather(ctx, (int64_t[]){3, 4, 8}, 0, -1, true); /* proj[-1] */
    check_gather(ctx, (int64_t[]){1, 3, 8}, 1, 2, true);  /* a leading dim of 1 */
    check_gather(ctx, (int64_t[]){2, 3, 8}, 1, 2, false); /* strided: copied */
    check_gather(ctx, (int64_t[]){3, 1, 3}, 0, 1, false); /* 12 bytes in: never aligned */
    static const int64_t swap01[] = {1, 0, 2}, swap12[] = {0, 2, 1};
    check_transpose(ctx, (int64_t[]){1, 4, 8}, swap01, true);  /* batch first at batch 1 */
    check_transpose(ctx, (int64_t[]){4, 1, 8}, swap01, true);  /* and back */
    check_transpose(ctx, (int64_t[]){2, 4, 8}, swap01, false); /* batch 2: copied */
    check_transpose(ctx, (int64_t[]){1, 4, 8}, swap12, false); /* rows and columns swap */
    vkml_context_destroy(&ctx);
    return test_finish("views");
}
