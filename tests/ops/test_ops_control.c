/* If, Loop and Scan end to end: an If of a shape test planned as its branch on the GPU
 * (no control-flow node left); run-time If (outer captures, branches of different
 * shapes), Loop (carried values, scan outputs, trip count and condition combinations, a
 * while loop), a Loop nested in an If reading values two scopes out, a reversed Scan over
 * axis 1 and a batched Scan of opset 8; and bad input: the iteration limit, nesting too deep, a
 * body that does not match its node or its declaration. Expected values are worked out by hand
 * here. Runs on the CPU device and on every Vulkan device. The models come from
 * make_control_models.py (argv[1], default ./control_models). */
#include "ops/op.h"
#include "plan/plan.h"
#include "testutil.h"

static const char *models_dir;

static vkml_model *load(const char *name, vkml_status want, const char *text)
{
    return test_load_model(models_dir, name, want, text);
}

/* A model of the folder and its session on `device` (max_iter: the Loop limit, 0 the
 * default); the session, or NULL (a check failed). close_model frees both. */
static vkml_session *open_model(vkml_context *ctx, const char *name, int device, int64_t max_iter,
                                vkml_model **m)
{
    vkml_session *s = NULL;
    vkml_error err = {0};
    vkml_session_params params = {.device = device, .max_loop_iterations = max_iter};
    if ((*m = load(name, VKML_OK, NULL)))
        CHECK_OK(vkml_session_create(ctx, *m, &params, &s, &err), &err);
    return s;
}

static void close_model(vkml_session **s, vkml_model **m)
{
    vkml_session_destroy(s);
    vkml_model_destroy(m);
}

static vkml_tensor tensor(vkml_dtype dtype, int rank, const int64_t *dims, const void *data)
{
    vkml_tensor t = {.dtype = dtype, .rank = rank, .data = (void *)data};
    if (rank)
        memcpy(t.dims, dims, sizeof(int64_t) * (size_t)rank);
    t.size = vkml_tensor_element_count(rank, dims) * vkml_dtype_bits(dtype) / 8;
    return t;
}

static vkml_tensor f32(int rank, const int64_t *dims, const float *data)
{
    return tensor(VKML_DTYPE_FLOAT, rank, dims, data);
}

static vkml_tensor scalar_bool(const bool *b)
{
    return tensor(VKML_DTYPE_BOOL, 0, NULL, b);
}

static vkml_tensor scalar_i64(const int64_t *v)
{
    return tensor(VKML_DTYPE_INT64, 0, NULL, v);
}

/* Runs s; checks output `index` has shape (rank, dims) and the floats want. Returns the
 * run's status (the outputs released). */
static vkml_status check_run(vkml_session *s, const char *label, const vkml_tensor *in, size_t n_in,
                             size_t index, int rank, const int64_t *dims, const float *want)
{
    size_t n_out = vkml_session_output_count(s);
    vkml_tensor out[4] = {0};
    vkml_error err = {0};
    for (size_t o = 0; o < n_out; o++)
        CHECK_OK(vkml_session_alloc_output(s, o, &out[o], &err), &err);
    vkml_status st = vkml_session_run(s, in, n_in, out, n_out, &err);
    CHECK(st == VKML_OK, "%s: run: %s", label, err.message);
    const vkml_tensor *t = &out[index];
    if (st == VKML_OK) {
        CHECK(t->rank == rank, "%s: rank %d, expected %d", label, t->rank, rank);
        for (int d = 0; d < rank && d < t->rank; d++)
            CHECK(t->dims[d] == dims[d], "%s: dim %d is %lld, expected %lld", label, d,
                  (long long)t->dims[d], (long long)dims[d]);
        size_t n = vkml_tensor_element_count(rank, dims);
        const float *got = t->data;
        for (size_t i = 0; i < n && t->rank == rank; i++)
            CHECK(got[i] == want[i], "%s: [%zu] is %g, expected %g", label, i, got[i], want[i]);
    }
    for (size_t o = 0; o < n_out; o++)
        vkml_tensor_release(&out[o]);
    return st;
}

/* Runs s and expects it to fail with `text` in the message. */
static void check_run_fails(vkml_session *s, const char *label, const vkml_tensor *in, size_t n_in,
                            vkml_status want, const char *text)
{
    size_t n_out = vkml_session_output_count(s);
    vkml_tensor out[4] = {0};
    vkml_error err = {0};
    for (size_t o = 0; o < n_out; o++)
        CHECK_OK(vkml_session_alloc_output(s, o, &out[o], &err), &err);
    vkml_status st = vkml_session_run(s, in, n_in, out, n_out, &err);
    CHECK(st == want && strstr(err.message, text), "%s: %s: '%s', expected %s with '%s'", label,
          vkml_status_name(st), err.message, vkml_status_name(want), text);
    for (size_t o = 0; o < n_out; o++)
        vkml_tensor_release(&out[o]);
}

/* rank(X) == 2 folds: the If is its then branch, every node on the session's device. */
static void test_if_folds(vkml_context *ctx, int device)
{
    vkml_model *m;
    vkml_session *s = open_model(ctx, "if_shape_test.onnx", device, 0, &m);
    if (!s)
        goto done;
    const plan *p = session_plan(s);
    for (int i = 0; i < p->graph->n_nodes; i++) {
        const graph_node *n = &p->graph->nodes[i];
        CHECK(!(n->op->flags & OP_CONTROL_FLOW), "device %d: node %d is %s", device, i, n->op_type);
        CHECK(p->node_slot[i] == -1 ||
                  (p->node_slot[i] >= 0 && p->devices[p->node_slot[i]].index == device),
              "device %d: node %d (%s) runs elsewhere", device, i, n->op_type);
    }
    size_t folded, on_device, on_cpu;
    vkml_session_node_counts(s, &folded, &on_device, &on_cpu);
    CHECK(on_cpu == 0 && on_device >= 1, "device %d: %zu nodes on the CPU fallback", device,
          on_cpu);
    const float x[6] = {-1, 2, -3, 4, 0, 5}, want[6] = {1, 3, 1, 5, 1, 6};
    vkml_tensor in = f32(2, (int64_t[]){2, 3}, x);
    check_run(s, "if of a shape test", &in, 1, 0, 2, (int64_t[]){2, 3}, want);
done:
    close_model(&s, &m);
}

/* Control-flow nodes the session's plan leaves in the dynamic tail. */
static int tail_control_nodes(vkml_session *s)
{
    const plan *p = session_plan(s);
    int kept = 0;
    for (int i = 0; i < p->graph->n_nodes; i++)
        kept +=
            (p->graph->nodes[i].op->flags & OP_CONTROL_FLOW) && p->node_slot[i] == PLAN_SLOT_TAIL;
    return kept;
}

/* A condition folded from NonZero's planned bound is no plan-time constant: the If stays
 * (in the dynamic tail). */
static void test_if_on_bound(vkml_context *ctx, int device)
{
    vkml_model *m;
    vkml_session *s = open_model(ctx, "if_on_bound.onnx", device, 0, &m);
    if (!s)
        goto done;
    int kept = tail_control_nodes(s);
    CHECK(kept == 1, "device %d: %d If nodes in the tail, expected 1", device, kept);
    const float x[4] = {1, 2, 3, 4};
    vkml_tensor in = f32(1, (int64_t[]){4}, x);
    check_run(s, "if on a bound, every element set", &in, 1, 0, 1, (int64_t[]){4},
              (const float[]){2, 3, 4, 5});
done:
    close_model(&s, &m);
}

/* An If on a bound whose then branch is empty (of another rank): bounded by its else
 * branch, it stays in the tail, and a run gives the extent its data make. */
static void test_if_empty_branch(vkml_context *ctx, int device)
{
    vkml_model *m;
    vkml_session *s = open_model(ctx, "if_empty_branch.onnx", device, 0, &m);
    if (!s)
        goto done;
    int kept = tail_control_nodes(s);
    CHECK(kept == 1, "device %d: %d If nodes in the tail, expected 1", device, kept);
    const float x[4] = {1, 0, 3, 4};
    vkml_tensor in = f32(1, (int64_t[]){4}, x);
    check_run(s, "if with an empty branch, three set", &in, 1, 0, 1, (int64_t[]){3},
              (const float[]){0, 2, 3});
done:
    close_model(&s, &m);
}

static void test_if_runtime(vkml_context *ctx, int device)
{
    vkml_model *m;
    vkml_session *s = open_model(ctx, "if_runtime.onnx", device, 0, &m);
    if (s) {
        const float x[3] = {1, 2, 3};
        bool yes = true, no = false;
        vkml_tensor in[2] = {scalar_bool(&yes), f32(1, (int64_t[]){3}, x)};
        check_run(s, "if true: X + bias (outer)", in, 2, 0, 1, (int64_t[]){3},
                  (const float[]){11, 22, 33});
        in[0] = scalar_bool(&no);
        check_run(s, "if false: X[0:2] (a shorter output)", in, 2, 0, 1, (int64_t[]){2},
                  (const float[]){1, 2});
    }
    close_model(&s, &m);
}

/* x <- x * w + i; stops after min(M, limit) iterations, or at once when cond is false. */
static void test_loop_carried(vkml_context *ctx, int device)
{
    vkml_model *m;
    vkml_session *s = open_model(ctx, "loop_carried.onnx", device, 0, &m);
    if (s) {
        int64_t trip = 5, limit = 3;
        bool yes = true, no = false;
        const float x0[2] = {1, 1};
        vkml_tensor in[4] = {scalar_i64(&trip), scalar_bool(&yes), f32(1, (int64_t[]){2}, x0),
                             scalar_i64(&limit)};
        /* i=0: [2,3]; i=1: [5,10]; i=2: [12,32]; the condition 2 < 2 then stops it. */
        const float xs[6] = {2, 3, 5, 10, 12, 32};
        check_run(s, "the condition stops it (3 of 5)", in, 4, 0, 1, (int64_t[]){2}, xs + 4);
        check_run(s, "scan output of 3 iterations", in, 4, 1, 2, (int64_t[]){3, 2}, xs);
        trip = 2;
        check_run(s, "the trip count stops it (2)", in, 4, 1, 2, (int64_t[]){2, 2}, xs);
        trip = 0;
        check_run(s, "no iteration: x0", in, 4, 0, 1, (int64_t[]){2}, x0);
        check_run(s, "no iteration: no rows", in, 4, 1, 2, (int64_t[]){0, 2}, xs);
        trip = 5;
        in[1] = scalar_bool(&no);
        check_run(s, "condition false at the start", in, 4, 0, 1, (int64_t[]){2}, x0);
        /* a bool tensor's byte other than 0 or 1 (from a fuzzed model) reads as true */
        const uint8_t odd = 74;
        in[1] = tensor(VKML_DTYPE_BOOL, 0, NULL, &odd);
        check_run(s, "condition byte 74: true", in, 4, 0, 1, (int64_t[]){2}, xs + 4);
    }
    close_model(&s, &m);

    s = open_model(ctx, "loop_while.onnx", device, 0, &m);
    if (s) {
        bool yes = true;
        float sum0 = 0.5f, step = 2, stop = 7;
        vkml_tensor in[4] = {scalar_bool(&yes), f32(0, NULL, &sum0), f32(0, NULL, &step),
                             f32(0, NULL, &stop)};
        check_run(s, "while sum < stop", in, 4, 0, 0, NULL, (const float[]){8.5f});
    }
    close_model(&s, &m);
}

/* Loops whose trip count and condition the plan knows unroll: no control-flow node is
 * left, every node runs on the session's device; x <- x * w + i as in test_loop_carried. */
static void test_loop_unrolled(vkml_context *ctx, int device)
{
    static const struct {
        const char *model, *label;
        int64_t rows;
    } cases[] = {
        {"loop_unroll_for.onnx", "for i in range(4)", 4},
        {"loop_unroll_stop.onnx", "M 5, stopped by the condition after 3", 3},
    };
    const float x0[2] = {1, 1}, xs[8] = {2, 3, 5, 10, 12, 32, 27, 99};
    for (size_t c = 0; c < VKML_ARRAY_SIZE(cases); c++) {
        vkml_model *m;
        vkml_session *s = open_model(ctx, cases[c].model, device, 0, &m);
        if (!s)
            continue;
        const plan *p = session_plan(s);
        int cf = 0;
        for (int i = 0; i < p->graph->n_nodes; i++)
            cf += (p->graph->nodes[i].op->flags & OP_CONTROL_FLOW) != 0;
        size_t folded, on_device, on_cpu;
        vkml_session_node_counts(s, &folded, &on_device, &on_cpu);
        CHECK(cf == 0 && on_cpu == 0 && on_device >= 3 * (size_t)cases[c].rows,
              "device %d, %s: %d control-flow nodes, %zu on the device, %zu on the CPU fallback",
              device, cases[c].label, cf, on_device, on_cpu);
        vkml_tensor in = f32(1, (int64_t[]){2}, x0);
        check_run(s, cases[c].label, &in, 1, 0, 1, (int64_t[]){2}, xs + 2 * (cases[c].rows - 1));
        check_run(s, cases[c].label, &in, 1, 1, 2, (int64_t[]){cases[c].rows, 2}, xs);
        close_model(&s, &m);
    }
    /* nested: x + 3 per outer iteration, then + i: [4, 4], [8, 8] */
    vkml_model *m;
    vkml_session *s = open_model(ctx, "loop_unroll_nested.onnx", device, 0, &m);
    if (s) {
        CHECK(tail_control_nodes(s) == 0, "device %d: nested Loops left in the tail", device);
        vkml_tensor in = f32(1, (int64_t[]){2}, x0);
        check_run(s, "nested loops, final", &in, 1, 0, 1, (int64_t[]){2}, (const float[]){8, 8});
        check_run(s, "nested loops, scanned", &in, 1, 1, 2, (int64_t[]){2, 2},
                  (const float[]){4, 4, 8, 8});
    }
    close_model(&s, &m);
}

/* acc grows by the row x + i each iteration, from empty: planned for one row per iteration
 * the session's limit (8 here) allows, run for M of them (the iterations only append: they
 * run at once, passes/cf_loop_append.c). */
static void test_loop_grow(vkml_context *ctx, int device)
{
    vkml_model *m;
    vkml_session *s = open_model(ctx, "loop_grow.onnx", device, 8, &m);
    if (s) {
        const vkml_tensor_info *info = vkml_session_output(s, 0);
        CHECK(info->rank == 2 && info->dims[0] == 8 && info->dims[1] == 2,
              "grown Loop output planned as [%lld, %lld], expected [8, 2]",
              (long long)info->dims[0], (long long)info->dims[1]);
        int64_t trip = 3;
        const float x[2] = {1, -2};
        vkml_tensor in[2] = {scalar_i64(&trip), f32(1, (int64_t[]){2}, x)};
        check_run(s, "3 rows appended", in, 2, 0, 2, (int64_t[]){3, 2},
                  (const float[]){1, -2, 2, -1, 3, 0});
        trip = 0;
        check_run(s, "no iteration: empty", in, 2, 0, 2, (int64_t[]){0, 2}, x);
        trip = 8;
        check_run(s, "the limit's 8 rows", in, 2, 0, 2, (int64_t[]){8, 2},
                  (const float[]){1, -2, 2, -1, 3, 0, 4, 1, 5, 2, 6, 3, 7, 4, 8, 5});
    }
    close_model(&s, &m);
    /* 300 iterations: two batches of iterations at once (CF_APPEND_BATCH 256), in order. */
    s = open_model(ctx, "loop_grow.onnx", device, 600, &m);
    if (s) {
        int64_t trip = 300;
        const float x[2] = {0.5f, -1};
        static float want[600];
        for (int i = 0; i < 300; i++)
            want[2 * i] = x[0] + (float)i, want[2 * i + 1] = x[1] + (float)i;
        vkml_tensor in[2] = {scalar_i64(&trip), f32(1, (int64_t[]){2}, x)};
        check_run(s, "300 rows appended", in, 2, 0, 2, (int64_t[]){300, 2}, want);
    }
    close_model(&s, &m);
    /* Rows that read the carried value's size: x + 2i, iterations in order. */
    s = open_model(ctx, "loop_grow_reads.onnx", device, 8, &m);
    if (s) {
        int64_t trip = 3;
        const float x[2] = {1, -2};
        vkml_tensor in[2] = {scalar_i64(&trip), f32(1, (int64_t[]){2}, x)};
        check_run(s, "3 rows, each reading the carried size", in, 2, 0, 2, (int64_t[]){3, 2},
                  (const float[]){1, -2, 3, 0, 5, 2});
    }
    close_model(&s, &m);
    /* A value that doubles each iteration has no such bound: refused, naming it. */
    if ((m = load("loop_double.onnx", VKML_OK, NULL))) {
        vkml_error err = {0};
        vkml_session_params params = {.device = device};
        vkml_status st = vkml_session_create(ctx, m, &params, &s, &err);
        CHECK(st == VKML_ERROR_UNSUPPORTED &&
                  strstr(err.message, "carried value 'acc_out' changes shape"),
              "doubling Loop: %s: '%s'", vkml_status_name(st), err.message);
    }
    close_model(&s, &m);
}

/* acc grows by a row of n = max(x) elements each iteration: no bound before the run, so
 * the output is unbounded: vkml_session_alloc_output gives no buffer, the run allocates
 * one of the run's size; a caller's buffer too small fails naming the way out. */
/* Items of a batcher (N 1) over loop_unbounded.onnx: each gets its run's allocation, of
 * its own extent; an item offering a buffer is refused. */
static void batcher_unbounded(vkml_session *s)
{
    vkml_error err = {0};
    vkml_batcher *b = NULL;
    CHECK_OK(vkml_batcher_create(s, NULL, &b, &err), &err);
    if (!b)
        return;
    CHECK(vkml_batcher_batch_size(b) == 1 && vkml_batcher_output(b, 0)->unbounded,
          "batcher over an unbounded output: N %d", vkml_batcher_batch_size(b));
    const float x[2][3] = {{1, 3, 2}, {0, 2, 1}};
    int64_t trips[2] = {2, 3};
    vkml_tensor outs[2][1] = {{{.dtype = VKML_DTYPE_FLOAT}}, {{.dtype = VKML_DTYPE_FLOAT}}};
    vkml_run *runs[2] = {NULL, NULL};
    vkml_tensor in[2][2];
    for (int i = 0; i < 2; i++) { /* both in flight, then waited */
        in[i][0] = scalar_i64(&trips[i]);
        in[i][1] = f32(1, (int64_t[]){3}, x[i]);
        CHECK_OK(vkml_batcher_submit(b, in[i], 2, outs[i], 1, NULL, NULL, &runs[i], &err), &err);
    }
    for (int i = 0; i < 2; i++)
        if (runs[i])
            CHECK_OK(vkml_run_wait(&runs[i], &err), &err);
    /* item 0: 2 rows of 3 (0 0 0 1 1 1); item 1: 3 rows of 2 (0 0 1 1 2 2) */
    const float want[2][6] = {{0, 0, 0, 1, 1, 1}, {0, 0, 1, 1, 2, 2}};
    for (int i = 0; i < 2; i++) {
        const vkml_tensor *t = &outs[i][0];
        bool ok = t->data && t->rank == 1 && t->dims[0] == 6 && t->size == 6 * sizeof(float);
        for (int e = 0; ok && e < 6; e++)
            ok = ((const float *)t->data)[e] == want[i][e];
        CHECK(ok, "batcher item %d: its run's rows (data %p, rank %d, dims[0] %lld)", i, t->data,
              t->rank, (long long)t->dims[0]);
        vkml_tensor_release(&outs[i][0]);
    }
    float room[8];
    vkml_tensor given = {.dtype = VKML_DTYPE_FLOAT, .rank = 1, .data = room, .size = sizeof(room)};
    vkml_status st = vkml_batcher_submit(b, in[0], 2, &given, 1, NULL, NULL, NULL, &err);
    CHECK(st == VKML_ERROR_INVALID_ARGUMENT && strstr(err.message, "give it data NULL"),
          "batcher item with a buffer for an unbounded output: %s: '%s'", vkml_status_name(st),
          err.message);
    vkml_batcher_destroy(&b);
}

static void test_loop_unbounded(vkml_context *ctx, int device)
{
    vkml_model *m;
    vkml_session *s = open_model(ctx, "loop_unbounded.onnx", device, 0, &m);
    if (s) {
        const vkml_tensor_info *info = vkml_session_output(s, 0);
        CHECK(info->unbounded && info->data_dependent && info->rank == 1 && info->dims[0] == 0,
              "unbounded Loop output: unbounded %d, rank %d, dims[0] %lld", info->unbounded,
              info->rank, (long long)info->dims[0]);
        int64_t trip = 2;
        const float x[3] = {1, 3, 2};
        vkml_tensor in[2] = {scalar_i64(&trip), f32(1, (int64_t[]){3}, x)};
        check_run(s, "2 rows of 3 (the run allocates)", in, 2, 0, 1, (int64_t[]){6},
                  (const float[]){0, 0, 0, 1, 1, 1});
        trip = 3;
        const float wider[3] = {4, 0, 1};
        in[1] = f32(1, (int64_t[]){3}, wider);
        check_run(s, "3 rows of 4", in, 2, 0, 1, (int64_t[]){12},
                  (const float[]){0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2});
        float room[4];
        vkml_tensor out = {
            .dtype = VKML_DTYPE_FLOAT, .rank = 1, .data = room, .size = sizeof(room)};
        vkml_error err = {0};
        vkml_status st = vkml_session_run(s, in, 2, &out, 1, &err);
        CHECK(st == VKML_ERROR_INVALID_ARGUMENT && strstr(err.message, "give it data NULL"),
              "unbounded output into 16 bytes: %s: '%s'", vkml_status_name(st), err.message);
        batcher_unbounded(s);
    }
    close_model(&s, &m);
}

/* then: acc = 3 * X * k (k 0.5, X two scopes out) + 1; else: -X. */
static void test_loop_in_if(vkml_context *ctx, int device)
{
    vkml_model *m;
    vkml_session *s = open_model(ctx, "loop_in_if.onnx", device, 0, &m);
    if (s) {
        bool yes = true, no = false;
        const float x[2] = {2, -4};
        vkml_tensor in[2] = {scalar_bool(&yes), f32(1, (int64_t[]){2}, x)};
        check_run(s, "loop in the then branch", in, 2, 0, 1, (int64_t[]){2},
                  (const float[]){4, -5});
        in[0] = scalar_bool(&no);
        check_run(s, "the else branch", in, 2, 0, 1, (int64_t[]){2}, (const float[]){-2, 4});
    }
    close_model(&s, &m);
}

/* X [2,3] scanned along axis 1 from the end: st += 2 * X[:, t]. */
static void test_scan(vkml_context *ctx, int device)
{
    vkml_model *m;
    vkml_session *s = open_model(ctx, "scan_reverse.onnx", device, 0, &m);
    if (s) {
        const float st0[2] = {100, 200}, x[6] = {1, 2, 3, 4, 5, 6};
        vkml_tensor in[2] = {f32(1, (int64_t[]){2}, st0), f32(2, (int64_t[]){2, 3}, x)};
        /* columns from the end: [3,6], [2,5], [1,4] */
        const float ys[6] = {106, 212, 110, 222, 112, 230};
        check_run(s, "scan: final state", in, 2, 0, 1, (int64_t[]){2}, ys + 4);
        check_run(s, "scan: outputs", in, 2, 1, 2, (int64_t[]){3, 2}, ys);
    }
    close_model(&s, &m);
}

/* Opset 8: per batch element, s += X[b, t]. */
static void test_scan8(vkml_context *ctx, int device)
{
    vkml_model *m;
    vkml_session *s = open_model(ctx, "scan8_batch.onnx", device, 0, &m);
    if (s) {
        const float s0[2] = {0, 100}, x[6] = {1, 2, 3, 10, 20, 30};
        vkml_tensor in[2] = {f32(2, (int64_t[]){2, 1}, s0), f32(3, (int64_t[]){2, 3, 1}, x)};
        check_run(s, "scan 8: final states", in, 2, 0, 2, (int64_t[]){2, 1},
                  (const float[]){6, 160});
        check_run(s, "scan 8: outputs", in, 2, 1, 3, (int64_t[]){2, 3, 1},
                  (const float[]){1, 3, 6, 110, 130, 160});
    }
    close_model(&s, &m);
}

/* Runs that must fail: a Loop without a bound at a limit of 100, a trip count of 10^12
 * at the default limit, a body output of another type than it declares. */
static void test_limits(vkml_context *ctx, int device)
{
    static const struct {
        const char *model;
        int64_t max_iterations;
        vkml_status want;
        const char *text;
    } cases[] = {
        {"loop_forever.onnx", 100, VKML_ERROR_INVALID_ARGUMENT,
         "node 'x_node' (Loop): stopped after 100 iterations"},
        {"loop_huge_trip.onnx", 0, VKML_ERROR_INVALID_ARGUMENT, "stopped after 65536 iterations"},
        {"loop_output_type_runtime.onnx", 0, VKML_ERROR_INVALID_MODEL,
         "subgraph output 'x_out' is float, its declaration says int64"},
    };
    const float x0 = 1;
    vkml_tensor in = f32(1, (int64_t[]){1}, &x0);
    for (size_t i = 0; i < VKML_ARRAY_SIZE(cases); i++) {
        vkml_model *m;
        vkml_session *s = open_model(ctx, cases[i].model, device, cases[i].max_iterations, &m);
        if (s)
            check_run_fails(s, cases[i].model, &in, 1, cases[i].want, cases[i].text);
        close_model(&s, &m);
    }
    /* Under a constant trip count the Loop unrolls when the session is planned, and its
     * body's outputs are checked there. */
    vkml_model *m = load("loop_output_type.onnx", VKML_OK, NULL);
    if (m) {
        vkml_session *s = NULL;
        vkml_error err = {0};
        vkml_session_params params = {.device = device};
        vkml_status st = vkml_session_create(ctx, m, &params, &s, &err);
        CHECK(
            st == VKML_ERROR_INVALID_MODEL &&
                strstr(err.message, "subgraph output 'x_out' is float, its declaration says int64"),
            "unrolled Loop of a mistyped body: %s: '%s'", vkml_status_name(st), err.message);
        close_model(&s, &m);
    }
}

static void test_bad_models(void)
{
    vkml_model *m =
        load("if_too_deep.onnx", VKML_ERROR_UNSUPPORTED, "subgraphs are nested more than 16 deep");
    vkml_model_destroy(&m);
    m = load("loop_outputs_mismatch.onnx", VKML_ERROR_INVALID_MODEL,
             "Loop: the body gives 2 outputs (the condition, 1 carried values and the scan "
             "outputs), the node has 2 outputs");
    vkml_model_destroy(&m);
}

int main(int argc, char **argv)
{
    models_dir = argc > 1 ? argv[1] : "control_models";
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    if (!ctx)
        return test_finish("ops_control");
    test_require_vulkan(ctx);
    test_bad_models();
    TEST_FOR_EACH_DEVICE(t, ctx) {
        test_if_folds(ctx, t.device);
        test_if_on_bound(ctx, t.device);
        test_if_empty_branch(ctx, t.device);
        test_if_runtime(ctx, t.device);
        test_loop_carried(ctx, t.device);
        test_loop_unrolled(ctx, t.device);
        test_loop_grow(ctx, t.device);
        test_loop_unbounded(ctx, t.device);
        test_loop_in_if(ctx, t.device);
        test_scan(ctx, t.device);
        test_scan8(ctx, t.device);
        test_limits(ctx, t.device);
    }
    vkml_context_destroy(&ctx);
    return test_finish("ops_control");
}
