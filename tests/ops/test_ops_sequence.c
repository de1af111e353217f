/* The sequence ops, lowered to tensor ops at plan time (lib/passes/lower_seq.c): small graphs
 * of them run on the CPU device and on every Vulkan device with every node on the GPU,
 * checked against values computed here; negative positions, keepdims=0, new_axis=1, split
 * sizes; and the refusals: a position out of range, a position only known at run time, a
 * sequence graph input or output, a sequence read by a tensor op, a split of a tensor
 * whose extent is only known at run time. */
#include "onnx/model.h"
#include "testutil.h"

#define MAX_IO 8

typedef struct builder {
    graph *g;
    int inputs[MAX_IO], n_inputs;
    int outputs[MAX_IO], n_outputs;
} builder;

static builder start(void)
{
    return (builder){.g = graph_create()};
}

/* A graph input of a known shape; rank -1: no declared type (as a sequence input). */
static int input(builder *b, const char *name, vkml_dtype dtype, int rank, const int64_t *dims)
{
    int v = graph_add_value(b->g, name);
    graph_value *val = &b->g->values[v];
    val->kind = GRAPH_VALUE_INPUT;
    val->dtype = dtype;
    val->rank = rank;
    for (int d = 0; d < rank; d++)
        val->dims[d] = dims[d];
    b->inputs[b->n_inputs++] = v;
    return v;
}

/* An int64 initializer of rank 0 (one value) or 1. */
static int ints(builder *b, const char *name, int rank, int n, const int64_t *data)
{
    int v = graph_add_value(b->g, name);
    graph_value *val = &b->g->values[v];
    val->kind = GRAPH_VALUE_CONSTANT;
    val->dtype = VKML_DTYPE_INT64;
    val->rank = rank;
    val->dims[0] = n;
    val->data = vkml_arena_memdup(b->g->arena, data, sizeof(int64_t) * (size_t)n);
    val->data_size = sizeof(int64_t) * (size_t)n;
    return v;
}

static int scalar(builder *b, const char *name, int64_t x)
{
    return ints(b, name, 0, 1, &x);
}

/* A value produced by a node; named values are found again by name. */
static int value(builder *b, const char *name)
{
    int v = graph_find_value(b->g, name);
    return v >= 0 ? v : graph_add_value(b->g, name);
}

/* Node `op` from inputs (names; "" omitted) to one output; up to two int attributes. */
static void node(builder *b, const char *op, const char *out, int n_in, const char **in,
                 const char *attr1, int64_t v1, const char *attr2, int64_t v2)
{
    int n_attrs = (attr1 != NULL) + (attr2 != NULL);
    int k = graph_add_node(b->g, out, op, "", n_in, 1, n_attrs);
    graph_node *n = &b->g->nodes[k];
    for (int i = 0; i < n_in; i++)
        n->inputs[i] = in[i][0] ? value(b, in[i]) : -1;
    n->outputs[0] = value(b, out);
    if (attr1)
        n->attrs[0] = (graph_attr){.name = attr1, .type = GRAPH_ATTR_INT, .i = v1};
    if (attr2)
        n->attrs[1] = (graph_attr){.name = attr2, .type = GRAPH_ATTR_INT, .i = v2};
    n->opset = 13;
}

#define NODE(b, op, out, ...)                                                                      \
    node(b, op, out, VKML_ARRAY_SIZE(((const char *[]){__VA_ARGS__})),                             \
         (const char *[]){__VA_ARGS__}, NULL, 0, NULL, 0)

static void output(builder *b, const char *name)
{
    int v = value(b, name);
    b->g->values[v].is_output = true;
    b->outputs[b->n_outputs++] = v;
}

/* The model (NULL, with the status and message in *err, when loading fails). */
static vkml_model *finish(builder *b, vkml_error *err)
{
    graph *g = b->g;
    g->inputs = vkml_arena_memdup(g->arena, b->inputs, sizeof(int) * MAX_IO);
    g->n_inputs = b->n_inputs;
    g->outputs = vkml_arena_memdup(g->arena, b->outputs, sizeof(int) * MAX_IO);
    g->n_outputs = b->n_outputs;
    g->opset = 13;
    vkml_model *m = NULL;
    vkml_status st = graph_sort(g, err);
    if (st != VKML_OK)
        graph_destroy(&g);
    else
        model_from_graph(g, &m, err);
    return m;
}

static vkml_tensor tensor(vkml_dtype dtype, int rank, const int64_t *dims, void *data)
{
    vkml_tensor t = {.dtype = dtype, .rank = rank, .data = data};
    if (rank > 0)
        memcpy(t.dims, dims, sizeof(int64_t) * (size_t)rank);
    t.size = vkml_tensor_element_count(rank, dims) * vkml_dtype_size(dtype);
    return t;
}

/* Expected output `index`: dtype, shape and bytes. */
typedef struct expect {
    vkml_dtype dtype;
    int rank;
    int64_t dims[VKML_MAX_RANK];
    const void *data;
} expect;

/* Runs the model on every device (CPU, then each Vulkan device with no node on the CPU)
 * and checks every output exactly (the lowering only moves data). */
static void run_everywhere(vkml_context *ctx, vkml_model *m, const char *label,
                           const vkml_tensor *in, int n_in, const expect *want, int n_out,
                           const vkml_tensor *fixed)
{
    if (!m)
        return;
    TEST_FOR_EACH_DEVICE(t, ctx) {
        int d = t.device;
        vkml_error err = {0};
        vkml_session *s = NULL;
        vkml_session_params params = {.device = d, .input_values = fixed};
        CHECK_OK(vkml_session_create(ctx, m, &params, &s, &err), &err);
        if (!s)
            continue;
        vkml_tensor out[MAX_IO] = {{0}};
        for (int o = 0; o < n_out; o++)
            CHECK_OK(vkml_session_alloc_output(s, (size_t)o, &out[o], &err), &err);
        CHECK_OK(vkml_session_run(s, in, (size_t)n_in, out, (size_t)n_out, &err), &err);
        for (int o = 0; o < n_out; o++) {
            const expect *w = &want[o];
            size_t bytes = vkml_tensor_element_count(w->rank, w->dims) * vkml_dtype_size(w->dtype);
            bool shape = out[o].dtype == w->dtype && out[o].rank == w->rank &&
                         memcmp(out[o].dims, w->dims, sizeof(int64_t) * (size_t)w->rank) == 0;
            CHECK(shape, "%s, device %d, output %d: %s rank %d, want %s rank %d", label, d, o,
                  vkml_dtype_name(out[o].dtype), out[o].rank, vkml_dtype_name(w->dtype), w->rank);
            CHECK(shape && out[o].data && memcmp(out[o].data, w->data, bytes) == 0,
                  "%s, device %d, output %d: wrong values", label, d, o);
            vkml_tensor_release(&out[o]);
        }
        size_t folded = 0, on_device = 0, on_cpu = 0;
        vkml_session_node_counts(s, &folded, &on_device, &on_cpu);
        CHECK(on_cpu == 0, "%s, device %d: %zu node(s) on the CPU fallback", label, d, on_cpu);
        vkml_session_destroy(&s);
    }
}

/* A, B, C -> Construct -> Insert D at -1 -> Erase at -3 -> [A, D, C]: At -2 (D), Length
 * (3), Concat on axis 0. Float elements of 2x3, 2x3, 1x3. */
static void test_edits(vkml_context *ctx)
{
    builder b = start();
    int64_t d23[] = {2, 3}, d13[] = {1, 3};
    input(&b, "A", VKML_DTYPE_FLOAT, 2, d23);
    input(&b, "B", VKML_DTYPE_FLOAT, 2, d23);
    input(&b, "C", VKML_DTYPE_FLOAT, 2, d13);
    input(&b, "D", VKML_DTYPE_FLOAT, 2, d23);
    scalar(&b, "minus1", -1);
    scalar(&b, "minus2", -2);
    scalar(&b, "minus3", -3);
    NODE(&b, "SequenceConstruct", "abc", "A", "B", "C");
    NODE(&b, "SequenceInsert", "abdc", "abc", "D", "minus1");
    NODE(&b, "SequenceErase", "adc", "abdc", "minus3");
    NODE(&b, "SequenceAt", "at", "adc", "minus2");
    NODE(&b, "SequenceLength", "length", "adc");
    node(&b, "ConcatFromSequence", "concat", 1, (const char *[]){"adc"}, "axis", 0, NULL, 0);
    output(&b, "at");
    output(&b, "length");
    output(&b, "concat");
    vkml_error err = {0};
    vkml_model *m = finish(&b, &err);
    CHECK(m, "edits model: %s", err.message);
    float a[6], bb[6], c[3], d[6], concat[15];
    for (int i = 0; i < 6; i++) {
        a[i] = (float)i;
        bb[i] = 10.0f + (float)i;
        d[i] = 30.0f + (float)i;
    }
    for (int i = 0; i < 3; i++)
        c[i] = 20.0f + (float)i;
    memcpy(concat, a, sizeof(a));
    memcpy(concat + 6, d, sizeof(d));
    memcpy(concat + 12, c, sizeof(c));
    int64_t three = 3;
    vkml_tensor in[] = {tensor(VKML_DTYPE_FLOAT, 2, d23, a), tensor(VKML_DTYPE_FLOAT, 2, d23, bb),
                        tensor(VKML_DTYPE_FLOAT, 2, d13, c), tensor(VKML_DTYPE_FLOAT, 2, d23, d)};
    expect want[] = {{VKML_DTYPE_FLOAT, 2, {2, 3}, d},
                     {VKML_DTYPE_INT64, 0, {0}, &three},
                     {VKML_DTYPE_FLOAT, 2, {5, 3}, concat}};
    run_everywhere(ctx, m, "edits", in, 4, want, 3, NULL);
    /* The model's own probe lowers too: every node, sequence ops included, is runnable. */
    for (size_t i = 0; m && i < vkml_model_node_count(m); i++) {
        char why[512] = "";
        CHECK(vkml_context_device_supports_node(ctx, VKML_DEVICE_CPU, m, i, why, sizeof(why)),
              "edits: node %zu: %s", i, why);
    }
    vkml_model_destroy(&m);
}

/* The op table lists the sequence ops as lowered (no kernel), and only them. */
static void test_op_table(void)
{
    static const char *seq_ops[] = {"SequenceEmpty",   "SequenceConstruct", "SequenceInsert",
                                    "SequenceErase",   "SequenceAt",        "SequenceLength",
                                    "SplitToSequence", "ConcatFromSequence"};
    size_t found = 0, lowered = 0;
    for (size_t i = 0; i < vkml_op_count(); i++) {
        const vkml_op_info *op = vkml_op(i);
        bool is_seq = false;
        for (size_t k = 0; k < VKML_ARRAY_SIZE(seq_ops); k++)
            is_seq |= strcmp(op->name, seq_ops[k]) == 0;
        found += is_seq;
        lowered += op->lowered;
        CHECK(op->lowered == is_seq, "%s: lowered %d", op->name, op->lowered);
        for (int d = 0; op->lowered && d < op->n_kernels; d++)
            CHECK(!op->kernels[d].present, "%s: lowered, with a %s kernel", op->name,
                  op->kernels[d].device_kind);
    }
    CHECK(found == VKML_ARRAY_SIZE(seq_ops) && lowered == found, "%zu sequence ops, %zu lowered",
          found, lowered);
}

/* X [3,4] -> SplitToSequence axis 1, keepdims 0: 4 columns of [3]; ConcatFromSequence
 * new_axis 1 on axis 0 stacks them: X transposed. At 2: column 2. Length: 4. */
static void test_split_stack(vkml_context *ctx)
{
    builder b = start();
    int64_t d34[] = {3, 4};
    input(&b, "X", VKML_DTYPE_FLOAT, 2, d34);
    scalar(&b, "two", 2);
    node(&b, "SplitToSequence", "columns", 1, (const char *[]){"X"}, "axis", 1, "keepdims", 0);
    node(&b, "ConcatFromSequence", "stacked", 1, (const char *[]){"columns"}, "axis", 0, "new_axis",
         1);
    NODE(&b, "SequenceAt", "column2", "columns", "two");
    NODE(&b, "SequenceLength", "length", "columns");
    output(&b, "stacked");
    output(&b, "column2");
    output(&b, "length");
    vkml_error err = {0};
    vkml_model *m = finish(&b, &err);
    CHECK(m, "split/stack model: %s", err.message);
    float x[12], xt[12], col[3];
    for (int i = 0; i < 12; i++)
        x[i] = (float)(i * i) - 7.5f;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            xt[c * 3 + r] = x[r * 4 + c];
    for (int r = 0; r < 3; r++)
        col[r] = x[r * 4 + 2];
    int64_t four = 4;
    vkml_tensor in[] = {tensor(VKML_DTYPE_FLOAT, 2, d34, x)};
    expect want[] = {{VKML_DTYPE_FLOAT, 2, {4, 3}, xt},
                     {VKML_DTYPE_FLOAT, 1, {3}, col},
                     {VKML_DTYPE_INT64, 0, {0}, &four}};
    run_everywhere(ctx, m, "split/stack", in, 1, want, 3, NULL);
    vkml_model_destroy(&m);
}

/* int32 X [7,2] split on axis 0 by a scalar 3 (chunks 3, 3, 1: the last alone smaller) and
 * by sizes [2, 5]; At -1 of each; new_axis 1 on the last axis (-1 -> 2) of the
 * three-chunks' first two: [3, 2, 2]. */
static void test_split_sizes(vkml_context *ctx)
{
    builder b = start();
    int64_t d72[] = {7, 2}, sizes[] = {2, 5};
    input(&b, "X", VKML_DTYPE_INT32, 2, d72);
    scalar(&b, "three", 3);
    ints(&b, "sizes", 1, 2, sizes);
    scalar(&b, "last", -1);
    NODE(&b, "SplitToSequence", "threes", "X", "three");
    NODE(&b, "SplitToSequence", "two_five", "X", "sizes");
    NODE(&b, "SequenceAt", "tail", "threes", "last");
    NODE(&b, "SequenceAt", "five", "two_five", "last");
    NODE(&b, "SequenceErase", "first_two", "threes");
    node(&b, "ConcatFromSequence", "pairs", 1, (const char *[]){"first_two"}, "axis", -1,
         "new_axis", 1);
    output(&b, "tail");
    output(&b, "five");
    output(&b, "pairs");
    vkml_error err = {0};
    vkml_model *m = finish(&b, &err);
    CHECK(m, "split sizes model: %s", err.message);
    int32_t x[14], pairs[12];
    for (int i = 0; i < 14; i++)
        x[i] = 100 * i - 3;
    /* pairs[r][c][k] = chunk k (rows 3k..3k+2), row r, column c */
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 2; c++)
            for (int k = 0; k < 2; k++)
                pairs[(r * 2 + c) * 2 + k] = x[(3 * k + r) * 2 + c];
    vkml_tensor in[] = {tensor(VKML_DTYPE_INT32, 2, d72, x)};
    expect want[] = {{VKML_DTYPE_INT32, 2, {1, 2}, x + 12},
                     {VKML_DTYPE_INT32, 2, {5, 2}, x + 4},
                     {VKML_DTYPE_INT32, 3, {3, 2, 2}, pairs}};
    run_everywhere(ctx, m, "split sizes", in, 1, want, 3, NULL);
    vkml_model_destroy(&m);
}

/* SequenceEmpty of double, Insert X (end), Insert Y at 0, Concat axis 0: [Y; X]. The
 * position of the second insertion is a graph input the session fixes (input_values). */
static void test_empty_double_fixed_position(vkml_context *ctx)
{
    builder b = start();
    int64_t d2[] = {2}, d3[] = {3};
    input(&b, "X", VKML_DTYPE_DOUBLE, 1, d2);
    input(&b, "Y", VKML_DTYPE_DOUBLE, 1, d3);
    input(&b, "pos", VKML_DTYPE_INT64, 0, NULL);
    node(&b, "SequenceEmpty", "empty", 0, NULL, "dtype", VKML_DTYPE_DOUBLE, NULL, 0);
    NODE(&b, "SequenceInsert", "x", "empty", "X");
    NODE(&b, "SequenceInsert", "yx", "x", "Y", "pos");
    node(&b, "ConcatFromSequence", "out", 1, (const char *[]){"yx"}, "axis", 0, NULL, 0);
    output(&b, "out");
    vkml_error err = {0};
    vkml_model *m = finish(&b, &err);
    CHECK(m, "double model: %s", err.message);
    double x[] = {1.25, -2.5}, y[] = {1e300, -0.0, 3.0}, out[] = {1e300, -0.0, 3.0, 1.25, -2.5};
    int64_t pos = 0;
    vkml_tensor in[] = {tensor(VKML_DTYPE_DOUBLE, 1, d2, x), tensor(VKML_DTYPE_DOUBLE, 1, d3, y),
                        tensor(VKML_DTYPE_INT64, 0, NULL, &pos)};
    vkml_tensor fixed[] = {{0}, {0}, in[2]};
    expect want[] = {{VKML_DTYPE_DOUBLE, 1, {5}, out}};
    run_everywhere(ctx, m, "double, fixed position", in, 3, want, 1, fixed);
    /* Unfixed, the position is run-time data: refused, naming it. */
    vkml_session *s = NULL;
    vkml_session_params params = {.device = VKML_DEVICE_CPU};
    vkml_status st = vkml_session_create(ctx, m, &params, &s, &err);
    CHECK(st == VKML_ERROR_UNSUPPORTED && strstr(err.message, "SequenceInsert") &&
              strstr(err.message, "'pos' must be a constant"),
          "run-time position: %s: %s", vkml_status_name(st), err.message);
    vkml_session_destroy(&s);
    vkml_model_destroy(&m);
}

/* A model of one sequence op chain whose session creation must fail with `status` and a
 * message containing `text` (and the op's name). */
static void expect_refused(vkml_context *ctx, builder *b, vkml_status status, const char *op,
                           const char *text)
{
    vkml_error err = {0};
    vkml_model *m = finish(b, &err);
    CHECK(m, "%s: the model loads: %s", text, err.message);
    vkml_session *s = NULL;
    vkml_session_params params = {.device = VKML_DEVICE_CPU};
    vkml_status st = m ? vkml_session_create(ctx, m, &params, &s, &err) : VKML_OK;
    CHECK(st == status && strstr(err.message, op) && strstr(err.message, text),
          "want %s naming %s and '%s', got %s: %s", vkml_status_name(status), op, text,
          vkml_status_name(st), err.message);
    vkml_session_destroy(&s);
    vkml_model_destroy(&m);
}

/* A, B -> SequenceConstruct "ab" (A, B float [2]). */
static builder two_elements(void)
{
    builder b = start();
    int64_t d2[] = {2};
    input(&b, "A", VKML_DTYPE_FLOAT, 1, d2);
    input(&b, "B", VKML_DTYPE_FLOAT, 1, d2);
    NODE(&b, "SequenceConstruct", "ab", "A", "B");
    return b;
}

static void test_refusals(vkml_context *ctx)
{
    builder b = two_elements();
    scalar(&b, "two", 2);
    NODE(&b, "SequenceAt", "y", "ab", "two");
    output(&b, "y");
    expect_refused(ctx, &b, VKML_ERROR_INVALID_MODEL, "SequenceAt", "out of range");

    b = two_elements();
    scalar(&b, "minus3", -3);
    NODE(&b, "SequenceInsert", "abc", "ab", "A", "minus3");
    NODE(&b, "SequenceLength", "y", "abc");
    output(&b, "y");
    expect_refused(ctx, &b, VKML_ERROR_INVALID_MODEL, "SequenceInsert", "out of range");

    b = two_elements();
    scalar(&b, "two", 2);
    NODE(&b, "SequenceErase", "a", "ab", "two");
    NODE(&b, "SequenceLength", "y", "a");
    output(&b, "y");
    expect_refused(ctx, &b, VKML_ERROR_INVALID_MODEL, "SequenceErase", "out of range");

    b = start();
    node(&b, "SequenceEmpty", "e", 0, NULL, NULL, 0, NULL, 0);
    NODE(&b, "SequenceErase", "y", "e");
    NODE(&b, "SequenceLength", "n", "y");
    output(&b, "n");
    expect_refused(ctx, &b, VKML_ERROR_INVALID_MODEL, "SequenceErase", "empty sequence");

    b = start();
    node(&b, "SequenceEmpty", "e", 0, NULL, NULL, 0, NULL, 0);
    node(&b, "ConcatFromSequence", "y", 1, (const char *[]){"e"}, "axis", 0, NULL, 0);
    output(&b, "y");
    expect_refused(ctx, &b, VKML_ERROR_INVALID_MODEL, "ConcatFromSequence", "empty sequence");

    b = two_elements();
    int64_t d2[] = {2};
    input(&b, "I", VKML_DTYPE_INT64, 1, d2);
    NODE(&b, "SequenceInsert", "y", "ab", "I");
    NODE(&b, "SequenceLength", "n", "y");
    output(&b, "n");
    expect_refused(ctx, &b, VKML_ERROR_INVALID_MODEL, "SequenceInsert", "the sequence holds");

    b = two_elements();
    output(&b, "ab");
    expect_refused(ctx, &b, VKML_ERROR_UNSUPPORTED, "SequenceConstruct", "sequence graph output");

    b = start();
    input(&b, "S", VKML_DTYPE_UNDEFINED, -1, NULL);
    scalar(&b, "zero", 0);
    NODE(&b, "SequenceAt", "y", "S", "zero");
    output(&b, "y");
    expect_refused(ctx, &b, VKML_ERROR_UNSUPPORTED, "SequenceAt", "sequences as graph inputs");

    b = two_elements();
    NODE(&b, "NonZero", "nz", "A");
    node(&b, "SplitToSequence", "parts", 1, (const char *[]){"nz"}, "axis", 1, NULL, 0);
    NODE(&b, "SequenceLength", "n", "parts");
    output(&b, "n");
    expect_refused(ctx, &b, VKML_ERROR_UNSUPPORTED, "SplitToSequence", "only at run time");

    b = two_elements();
    NODE(&b, "Identity", "y", "ab");
    NODE(&b, "SequenceLength", "n", "y");
    output(&b, "n");
    expect_refused(ctx, &b, VKML_ERROR_UNSUPPORTED, "Identity", "'ab' is a sequence");
}

int main(void)
{
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    if (!ctx)
        return 1;
    test_require_vulkan(ctx);
    test_op_table();
    test_edits(ctx);
    test_split_stack(ctx);
    test_split_sizes(ctx);
    test_empty_double_fixed_position(ctx);
    test_refusals(ctx);
    vkml_context_destroy(&ctx);
    return test_finish("ops_sequence");
}
