/* The loader on small models written by make_models.py: typed-field initializers, every
 * attribute type, subgraphs, symbolic dims, external data (good and hostile) and models
 * that must be refused with a message naming the culprit. */
#include "testutil.h"

#include "onnx/model.h"
#include "ops/op.h"

static const char *models_dir;

static const char *model_path(char *buf, size_t size, const char *rel)
{
    snprintf(buf, size, "%s/%s", models_dir, rel);
    return buf;
}

/* Loads rel into a graph through the internal loader (no op resolution). */
static graph *load_graph(const char *rel, vkml_status expect, const char *needle)
{
    char path[4096];
    model_path(path, sizeof(path), rel);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL, "open %s", path);
    if (!f)
        return NULL;
    static unsigned char bytes[1 << 20];
    size_t size = fread(bytes, 1, sizeof(bytes), f);
    fclose(f);
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s", path);
    *strrchr(dir, '/') = '\0';
    graph *g = NULL;
    vkml_error err = {0};
    vkml_status st = onnx_load_graph(bytes, size, dir, false, &g, &err);
    CHECK(st == expect, "%s: %s (%s), expected %s", rel, vkml_status_name(st), err.message,
          vkml_status_name(expect));
    if (st != VKML_OK) {
        CHECK(g == NULL, "%s: no graph on failure", rel);
        CHECK(err.message[0], "%s: empty message", rel);
        CHECK(!needle || strstr(err.message, needle), "%s: message '%s' lacks '%s'", rel,
              err.message, needle);
    }
    return g;
}

static const graph_value *constant(const graph *g, const char *name)
{
    int v = graph_find_value(g, name);
    CHECK(v >= 0 && g->values[v].kind == GRAPH_VALUE_CONSTANT, "constant %s", name);
    return v >= 0 ? &g->values[v] : NULL;
}

/* Checks a constant's dtype, shape and bytes. */
static void check_const(const graph *g, const char *name, vkml_dtype dtype, int rank,
                        const int64_t *dims, const void *expect, size_t size)
{
    const graph_value *v = constant(g, name);
    if (!v)
        return;
    CHECK(v->dtype == dtype && v->rank == rank, "%s: %s rank %d", name, vkml_dtype_name(v->dtype),
          v->rank);
    for (int i = 0; i < rank && i < v->rank; i++)
        CHECK(v->dims[i] == dims[i], "%s dim %d: %lld", name, i, (long long)v->dims[i]);
    CHECK(v->data_size == size && v->data, "%s: %zu bytes, expected %zu", name, v->data_size, size);
    CHECK(v->data_size != size || !v->data || size == 0 || memcmp(v->data, expect, size) == 0,
          "%s: values differ", name);
}

static void test_typed(void)
{
    graph *g = load_graph("typed.onnx", VKML_OK, NULL);
    if (!g)
        return;
    static const float f32[] = {1.5f, -2.0f, 3.25f, 0.0f};
    static const int32_t i32[] = {-7, 0, 2147483647};
    static const int8_t i8[] = {-128, 5, 127};
    static const uint8_t u8[] = {0, 200, 255}, b[] = {1, 0, 1};
    static const int16_t i16[] = {-32768, 1234};
    static const uint16_t u16[] = {65535, 7}, f16[] = {0x3c00, 0xb800}, bf16[] = {0x3fc0, 0xc000};
    static const int64_t i64[] = {-(1ll << 40), 9}, raw_i64[] = {-1, 2};
    static const double f64[] = {0.125, -1e300};
    static const uint32_t u32[] = {4000000000u, 1};
    static const uint64_t u64[] = {(1ull << 63) + 5, 3};
    static const float scalar = 42.0f, raw_f32[] = {0, 1, 2, 3, 4, 5};
    const int64_t d22[] = {2, 2}, d3[] = {3}, d2[] = {2}, d03[] = {0, 3}, d23[] = {2, 3};
    check_const(g, "f32", VKML_DTYPE_FLOAT, 2, d22, f32, sizeof(f32));
    check_const(g, "i32", VKML_DTYPE_INT32, 1, d3, i32, sizeof(i32));
    check_const(g, "i8", VKML_DTYPE_INT8, 1, d3, i8, sizeof(i8));
    check_const(g, "u8", VKML_DTYPE_UINT8, 1, d3, u8, sizeof(u8));
    check_const(g, "i16", VKML_DTYPE_INT16, 1, d2, i16, sizeof(i16));
    check_const(g, "u16", VKML_DTYPE_UINT16, 1, d2, u16, sizeof(u16));
    check_const(g, "b", VKML_DTYPE_BOOL, 1, d3, b, sizeof(b));
    check_const(g, "f16", VKML_DTYPE_FLOAT16, 1, d2, f16, sizeof(f16));
    check_const(g, "bf16", VKML_DTYPE_BFLOAT16, 1, d2, bf16, sizeof(bf16));
    check_const(g, "i64", VKML_DTYPE_INT64, 1, d2, i64, sizeof(i64));
    check_const(g, "f64", VKML_DTYPE_DOUBLE, 1, d2, f64, sizeof(f64));
    check_const(g, "u32", VKML_DTYPE_UINT32, 1, d2, u32, sizeof(u32));
    check_const(g, "u64", VKML_DTYPE_UINT64, 1, d2, u64, sizeof(u64));
    check_const(g, "scalar", VKML_DTYPE_FLOAT, 0, NULL, &scalar, sizeof(scalar));
    check_const(g, "empty", VKML_DTYPE_FLOAT, 2, d03, NULL, 0);
    check_const(g, "raw_f32", VKML_DTYPE_FLOAT, 2, d23, raw_f32, sizeof(raw_f32));
    check_const(g, "raw_i64", VKML_DTYPE_INT64, 1, d2, raw_i64, sizeof(raw_i64));
    const graph_value *big = constant(g, "raw_big");
    CHECK(big && big->data_size == 2048 * 4 && ((const float *)big->data)[2047] == 2047.0f,
          "raw_big (adopted buffer)");
    CHECK(g->n_inputs == 1 && strcmp(g->values[g->inputs[0]].name, "X") == 0, "inputs");
    graph_destroy(&g);
}

/* With ONNX_CONST_ALIAS, raw initializers stay in the caller's bytes exactly when they are
 * aligned for their type; with ONNX_CONST_COPY, never; with ONNX_CONST_REALIGN always,
 * moved back onto an aligned address with their values intact. Tried at every shift. */
static void test_aliasing(void)
{
    char path[4096];
    FILE *f = fopen(model_path(path, sizeof(path), "typed.onnx"), "rb");
    static unsigned char file[1 << 16];
    size_t size = f ? fread(file, 1, sizeof(file), f) : 0;
    if (f)
        fclose(f);
    CHECK(size > 0 && size < sizeof(file), "typed.onnx: %zu bytes", size);
    static _Alignas(64) unsigned char buf[(1 << 16) + 64];
    int aliased = 0, copied = 0;
    for (int copy = 0; copy <= 2; copy++) {
        for (size_t shift = 0; shift < 8; shift++) {
            memcpy(buf + shift, file, size);
            graph *g = NULL;
            vkml_error err = {0};
            CHECK_OK(onnx_load_graph(buf + shift, size, NULL, copy, &g, &err), &err);
            const graph_value *v = g ? constant(g, "raw_big") : NULL;
            if (!v)
                continue;
            const unsigned char *p = v->data;
            bool inside = p >= buf && p < buf + sizeof(buf);
            CHECK(!inside || (copy != ONNX_CONST_COPY && (uintptr_t)p % 4 == 0),
                  "mode %d shift %zu: %p aliases", copy, shift, (const void *)p);
            CHECK(inside || copy != ONNX_CONST_REALIGN, "mode %d shift %zu: copied", copy, shift);
            for (int i = 0; i < 2048; i += 89)
                CHECK(((const float *)v->data)[i] == (float)i, "mode %d shift %zu: raw_big[%d]",
                      copy, shift, i);
            aliased += inside;
            copied += !inside;
            memset(buf, 0, sizeof(buf)); /* copies must not depend on the bytes */
            CHECK(((const float *)v->data)[2047] == (inside ? 0.0f : 2047.0f), "raw_big values");
            graph_destroy(&g);
        }
    }
    CHECK(aliased == 10 && copied == 14, "%d aliased, %d copied", aliased, copied);
}

static const graph_attr *attr(const graph_node *n, const char *name, graph_attr_type type)
{
    const graph_attr *a = graph_node_attr(n, name);
    CHECK(a && a->type == type, "attribute %s: type %d, expected %d", name, a ? (int)a->type : -1,
          (int)type);
    return a && a->type == type ? a : NULL;
}

/* A subgraph of one node reading X from the enclosing graph. */
static void check_subgraph(const graph *sub, const char *op)
{
    CHECK(sub && sub->n_nodes == 1 && strcmp(sub->nodes[0].op_type, op) == 0, "subgraph %s", op);
    if (!sub || sub->n_nodes != 1)
        return;
    const graph_value *x = &sub->values[sub->nodes[0].inputs[0]];
    CHECK(strcmp(x->name, "X") == 0 && x->kind == GRAPH_VALUE_INPUT, "outer-scope X");
    CHECK(sub->n_outer == 1 && sub->outer_values[0] == sub->nodes[0].inputs[0] &&
              sub->outer_inputs[0] == 2,
          "X is the subgraph's outer value, carried by its node's input 2");
    CHECK(sub->n_inputs == 0 && sub->n_outputs == 1, "subgraph inputs/outputs");
}

static void test_attrs(void)
{
    graph *g = load_graph("attrs.onnx", VKML_OK, NULL);
    if (!g)
        return;
    CHECK(g->n_nodes == 1, "%d nodes", g->n_nodes);
    const graph_node *n = &g->nodes[0];
    CHECK(n->n_inputs == 3 && n->inputs[1] == -1, "omitted optional input is -1");
    /* X, which the subgraphs read, is the node's one implicit input, after its own. */
    CHECK(n->n_implicit == 1 && n->inputs[2] == n->inputs[0], "X is an implicit input");
    CHECK(n->n_attrs == 15, "%d attributes", n->n_attrs);
    const graph_attr *a;
    CHECK((a = attr(n, "f", GRAPH_ATTR_FLOAT)) && a->f == 0.5f, "f");
    CHECK((a = attr(n, "i", GRAPH_ATTR_INT)) && a->i == -3, "i");
    CHECK((a = attr(n, "untyped", GRAPH_ATTR_INT)) && a->i == 11, "IR 1 attribute");
    CHECK((a = attr(n, "s", GRAPH_ATTR_STRING)) && a->s_len == 5 && !strcmp(a->s, "hello"), "s");
    if ((a = attr(n, "t", GRAPH_ATTR_TENSOR)) && a->tensor) {
        const int64_t *v = a->tensor->data;
        CHECK(a->tensor->dtype == VKML_DTYPE_INT64 && a->tensor->rank == 1 &&
                  a->tensor->dims[0] == 3 && v && v[0] == 4 && v[2] == 6,
              "t");
        CHECK(strcmp(a->tensor->name, "tv") == 0, "t name %s", a->tensor->name);
    }
    if ((a = attr(n, "floats", GRAPH_ATTR_FLOATS)))
        CHECK(a->count == 2 && a->floats[0] == 1.0f && a->floats[1] == 2.0f, "floats");
    if ((a = attr(n, "ints", GRAPH_ATTR_INTS)))
        CHECK(a->count == 3 && a->ints[0] == 7 && a->ints[2] == 9, "ints");
    if ((a = attr(n, "strings", GRAPH_ATTR_STRINGS)))
        CHECK(a->count == 2 && !strcmp(a->strings[0], "a") && !strcmp(a->strings[1], "bc"),
              "strings");
    if ((a = attr(n, "tensors", GRAPH_ATTR_TENSORS)))
        CHECK(a->count == 2 && a->tensors[1].dtype == VKML_DTYPE_FLOAT &&
                  *(const float *)a->tensors[1].data == 2.5f,
              "tensors");
    if ((a = attr(n, "g", GRAPH_ATTR_GRAPH)))
        check_subgraph(a->graph, "Neg");
    if ((a = attr(n, "graphs", GRAPH_ATTR_GRAPHS)) && a->count == 2) {
        check_subgraph(a->graphs[0], "Neg");
        check_subgraph(a->graphs[1], "Abs");
    }
    CHECK((a = attr(n, "sp", GRAPH_ATTR_SPARSE_TENSOR)) && a->count == 1, "sparse tensor");
    CHECK((a = attr(n, "sps", GRAPH_ATTR_SPARSE_TENSORS)) && a->count == 2, "sparse tensors");
    CHECK((a = attr(n, "tp", GRAPH_ATTR_TYPE_PROTO)) && a->count == 1, "type proto");
    CHECK((a = attr(n, "tps", GRAPH_ATTR_TYPE_PROTOS)) && a->count == 3, "type protos");
    graph_destroy(&g);

    g = load_graph("nested_if.onnx", VKML_OK, NULL);
    graph_destroy(&g);
}

/* pad_pool.onnx: Constant pads -> Pad -> AveragePool 3x3 over ones [1, 2, 6, 6], as PyTorch
 * exports avg_pool2d(padding=1): loads as the pool alone (count_include_pad), corners 4/9,
 * edges 6/9, inside 1. */
static void test_pad_folded(void)
{
    char path[4096];
    vkml_model *m = NULL;
    vkml_context *ctx = NULL;
    vkml_session *s = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_model_load_file(model_path(path, sizeof(path), "pad_pool.onnx"), &m, &err), &err);
    if (!m)
        return;
    CHECK(vkml_model_node_count(m) == 1, "pad_pool.onnx: %zu nodes after load, want the pool alone",
          vkml_model_node_count(m));
    vkml_context_params cp = {.disable_vulkan = true};
    CHECK_OK(vkml_context_create(&cp, &ctx, &err), &err);
    vkml_session_params sp = {.device = VKML_DEVICE_CPU};
    if (ctx)
        CHECK_OK(vkml_session_create(ctx, m, &sp, &s, &err), &err);
    float x[72], y[72] = {0};
    for (int i = 0; i < 72; i++)
        x[i] = 1.0f;
    vkml_tensor in = {
        .dtype = VKML_DTYPE_FLOAT, .rank = 4, .dims = {1, 2, 6, 6}, .data = x, .size = sizeof(x)};
    vkml_tensor out = {
        .dtype = VKML_DTYPE_FLOAT, .rank = 4, .dims = {1, 2, 6, 6}, .data = y, .size = sizeof(y)};
    if (s)
        CHECK_OK(vkml_session_run(s, &in, 1, &out, 1, &err), &err);
    for (int c = 0; s && c < 2; c++)
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) {
                int rows = 3 - (i == 0 || i == 5), cols = 3 - (j == 0 || j == 5);
                float want = (float)(rows * cols) / 9.0f, got = y[(c * 6 + i) * 6 + j];
                CHECK(fabsf(got - want) < 1e-6f, "pad_pool.onnx: y[%d,%d,%d] %g, want %g", c, i, j,
                      got, want);
            }
    vkml_session_destroy(&s);
    vkml_context_destroy(&ctx);
    vkml_model_destroy(&m);
}

static void test_symbolic(void)
{
    char path[4096];
    vkml_model *m = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_model_load_file(model_path(path, sizeof(path), "symbolic.onnx"), &m, &err), &err);
    if (!m)
        return;
    const vkml_tensor_info *x = vkml_model_input(m, 0);
    CHECK(x->rank == 4 && x->dims[0] == -1 && x->dim_names[0] && !strcmp(x->dim_names[0], "N"),
          "symbolic N");
    CHECK(x->dims[1] == 3 && x->dim_names[1] == NULL, "dim 1");
    CHECK(x->dims[2] == -1 && x->dim_names[2] == NULL, "unknown dim 2");
    CHECK(x->dims[3] == 5, "dim 3");
    CHECK(vkml_model_output_count(m) == 2, "outputs");
    const vkml_tensor_info *z = vkml_model_output(m, 1);
    CHECK(z && !strcmp(z->name, "Z") && z->rank == -1 && z->dtype == VKML_DTYPE_FLOAT,
          "output without a shape");
    CHECK(vkml_model_opset(m) == 13, "opset");
    vkml_model_destroy(&m);

    CHECK_OK(vkml_model_load_file(model_path(path, sizeof(path), "ml_import.onnx"), &m, &err),
             &err);
    CHECK(m && vkml_model_opset(m) == 13, "a second domain import is recorded");
    vkml_model_destroy(&m);
}

/* Runs the symbolic Relu->Relu model on shape `dims` and checks Y = relu(X). */
static void run_symbolic(vkml_session *s, const int64_t *dims)
{
    vkml_error err = {0};
    const vkml_tensor_info *in = vkml_session_input(s, 0), *out = vkml_session_output(s, 0);
    CHECK(in->rank == 4 && !memcmp(in->dims, dims, 4 * sizeof(int64_t)), "input shape bound");
    CHECK(out->rank == 4 && !memcmp(out->dims, dims, 4 * sizeof(int64_t)), "output shape follows");
    size_t n = vkml_tensor_element_count(4, dims);
    float *x = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++)
        x[i] = (float)i - (float)n / 2;
    vkml_tensor xt = {.dtype = VKML_DTYPE_FLOAT, .rank = 4, .data = x, .size = n * 4};
    memcpy(xt.dims, dims, sizeof(int64_t) * 4);
    vkml_tensor outs[2] = {0};
    CHECK_OK(vkml_session_alloc_output(s, 0, &outs[0], &err), &err);
    CHECK_OK(vkml_session_alloc_output(s, 1, &outs[1], &err), &err);
    CHECK_OK(vkml_session_run(s, &xt, 1, outs, 2, &err), &err);
    const float *y = outs[0].data;
    for (size_t i = 0; y && i < n; i++)
        if (y[i] != (x[i] > 0 ? x[i] : 0)) {
            CHECK(false, "Y[%zu] = %g for X %g", i, y[i], x[i]);
            break;
        }
    free(outs[0].data);
    free(outs[1].data);
    free(x);
}

/* Symbolic dims bound per session (input_shapes), and a new input shape gives a new plan
 * (vkml_session_set_input_shapes); a shape that contradicts the model is refused and the
 * session keeps its shapes. */
static void test_input_shapes(void)
{
    char path[4096];
    vkml_model *m = NULL;
    vkml_context *ctx = NULL;
    vkml_session *s = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_model_load_file(model_path(path, sizeof(path), "symbolic.onnx"), &m, &err), &err);
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    if (!m || !ctx)
        return;
    vkml_tensor_info shape = *vkml_model_input(m, 0);
    const int64_t a[] = {2, 3, 7, 5}, b[] = {4, 3, 2, 5};
    memcpy(shape.dims, a, sizeof(a));
    vkml_session_params params = {.device = VKML_DEVICE_CPU, .input_shapes = &shape};
    CHECK_OK(vkml_session_create(ctx, m, &params, &s, &err), &err);
    if (s) {
        run_symbolic(s, a);
        memcpy(shape.dims, b, sizeof(b));
        CHECK_OK(vkml_session_set_input_shapes(s, &shape, &err), &err);
        run_symbolic(s, b);
        shape.dims[1] = 4; /* the model fixes dim 1 to 3 */
        vkml_status st = vkml_session_set_input_shapes(s, &shape, &err);
        CHECK(st == VKML_ERROR_INVALID_ARGUMENT && strstr(err.message, "does not fit"), "%s",
              err.message);
        run_symbolic(s, b);
        shape.rank = 3;
        st = vkml_session_set_input_shapes(s, &shape, &err);
        CHECK(st == VKML_ERROR_INVALID_ARGUMENT, "rank 3 accepted: %s", err.message);
    }
    vkml_session_destroy(&s);
    vkml_context_destroy(&ctx);
    vkml_model_destroy(&m);
}

static void test_external(void)
{
    graph *g = load_graph("ext/model.onnx", VKML_OK, NULL);
    if (g) {
        const float w3[] = {1, 2, 3}, w2[] = {10, 20};
        const int64_t d3[] = {3}, d2[] = {2};
        check_const(g, "w3", VKML_DTYPE_FLOAT, 1, d3, w3, sizeof(w3));
        check_const(g, "w2", VKML_DTYPE_FLOAT, 1, d2, w2, sizeof(w2));
        const float odd = 7.5f;
        const int64_t d1[] = {1};
        check_const(g, "odd", VKML_DTYPE_FLOAT, 1, d1, &odd, sizeof(odd));
        /* Aligned data stays in the page-aligned mapping (offset 28: no arena block is
         * at 12 mod 16); misaligned data is copied. */
        const graph_value *w2v = constant(g, "w2"), *oddv = constant(g, "odd");
        CHECK(w2v && (uintptr_t)w2v->data % 4096 == 28, "w2 lies in the mapping");
        CHECK(oddv && (uintptr_t)oddv->data % 4 == 0, "odd is copied to aligned memory");
        graph_destroy(&g);
    }
    /* The public file loader resolves relative to the model's folder, wherever we are. */
    char path[4096];
    vkml_model *m = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_model_load_file(model_path(path, sizeof(path), "ext/model.onnx"), &m, &err),
             &err);
    vkml_model_destroy(&m);
    /* From memory without a base folder, external data is refused. */
    FILE *f = fopen(path, "rb");
    unsigned char bytes[4096];
    size_t size = f ? fread(bytes, 1, sizeof(bytes), f) : 0;
    if (f)
        fclose(f);
    CHECK(vkml_model_load_memory(bytes, size, NULL, &m, &err) == VKML_ERROR_INVALID_MODEL &&
              strstr(err.message, "external"),
          "memory without base_dir: %s", err.message);

    load_graph("ext/bad_parent.onnx", VKML_ERROR_INVALID_MODEL, "'../outside.bin'");
    load_graph("ext/bad_dotdot.onnx", VKML_ERROR_INVALID_MODEL, "inside the model's folder");
    load_graph("ext/bad_absolute.onnx", VKML_ERROR_INVALID_MODEL, "not a relative path");
    load_graph("ext/bad_link.onnx", VKML_ERROR_INVALID_MODEL, "leads outside");
    load_graph("ext/bad_range.onnx", VKML_ERROR_INVALID_MODEL, "past the end");
    load_graph("ext/bad_offset.onnx", VKML_ERROR_INVALID_MODEL, "past the end");
    load_graph("ext/bad_length.onnx", VKML_ERROR_INVALID_MODEL, "its shape needs 12");
    load_graph("ext/bad_missing.onnx", VKML_ERROR_IO, "nothere.bin");
    load_graph("ext/bad_nolocation.onnx", VKML_ERROR_INVALID_MODEL, "without a location");
}

/* Models the loader itself refuses, with the words the message must contain. */
static void test_bad_graphs(void)
{
    static const struct {
        const char *model;
        vkml_status status;
        const char *needle;
    } cases[] = {
        {"bad/typed_count.onnx", VKML_ERROR_INVALID_MODEL, "initializer 'short': holds 2"},
        {"bad/raw_size.onnx", VKML_ERROR_INVALID_MODEL, "initializer 'raw': raw_data holds 8"},
        {"bad/neg_dim.onnx", VKML_ERROR_INVALID_MODEL, "initializer 'neg': dimension 0 is -2"},
        {"bad/huge_dims.onnx", VKML_ERROR_INVALID_MODEL,
         "initializer 'huge': shape [1099511627776,1099511627776] is too large"},
        {"bad/no_dtype.onnx", VKML_ERROR_INVALID_MODEL, "'notype': has no data type"},
        {"bad/complex.onnx", VKML_ERROR_UNSUPPORTED, "complex64"},
        {"bad/string_init.onnx", VKML_ERROR_UNSUPPORTED, "'str': string 0 holds a NUL byte"},
        {"bad/segment.onnx", VKML_ERROR_UNSUPPORTED, "segmented"},
        {"bad/dup_init.onnx", VKML_ERROR_INVALID_MODEL, "initializer 'd' is defined twice"},
        {"bad/no_opset.onnx", VKML_ERROR_INVALID_MODEL, "imports no opset"},
        {"bad/opset_high.onnx", VKML_ERROR_UNSUPPORTED, "opset 99"},
        {"bad/no_output_producer.onnx", VKML_ERROR_INVALID_MODEL, "graph output 'Z'"},
        {"bad/unproduced_input.onnx", VKML_ERROR_INVALID_MODEL, "node 'lost' (Identity)"},
        {"bad/cycle.onnx", VKML_ERROR_INVALID_MODEL, "cycle"},
        {"bad/twice.onnx", VKML_ERROR_INVALID_MODEL, "'Y'"},
        {"bad/no_op_type.onnx", VKML_ERROR_INVALID_MODEL, "'blank') has no op_type"},
        {"bad/dup_attr.onnx", VKML_ERROR_INVALID_MODEL, "node 'da' (Identity): attribute 'k'"},
        {"bad/deep.onnx", VKML_ERROR_INVALID_MODEL, "nested too deeply"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        graph *g = load_graph(cases[i].model, cases[i].status, cases[i].needle);
        graph_destroy(&g);
    }
}

/* Models that load as graphs but that model_from_graph refuses. */
static void test_unsupported_ops(void)
{
    char path[4096];
    vkml_model *m = NULL;
    vkml_error err = {0};
    vkml_status st =
        vkml_model_load_file(model_path(path, sizeof(path), "bad/unknown_op.onnx"), &m, &err);
    CHECK(st == VKML_ERROR_UNSUPPORTED && !m, "unknown op: %s", vkml_status_name(st));
    CHECK(strstr(err.message, "node 'mystery' (FooBar)") &&
              strstr(err.message, "not implemented") && strstr(err.message, "unknown_op.onnx"),
          "%s", err.message);

    st = vkml_model_load_file(model_path(path, sizeof(path), "bad/unknown_domain.onnx"), &m, &err);
    CHECK(st == VKML_ERROR_UNSUPPORTED && strstr(err.message, "com.example.Baz"), "%s",
          err.message);

    /* Add at opset 1: older than what the op table implements (when it is). */
    const op_def *add = op_find("", "Add");
    st = vkml_model_load_file(model_path(path, sizeof(path), "bad/old_add.onnx"), &m, &err);
    if (add && add->since_version > 1)
        CHECK(st == VKML_ERROR_UNSUPPORTED && strstr(err.message, "node 'old' (Add)") &&
                  strstr(err.message, "opset 1"),
              "%s", err.message);
    else
        CHECK(st == (add ? VKML_OK : VKML_ERROR_UNSUPPORTED), "%s", err.message);
    vkml_model_destroy(&m);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s MODELS_DIR\n", argv[0]);
        return 1;
    }
    models_dir = argv[1];
    test_typed();
    test_aliasing();
    test_attrs();
    test_symbolic();
    test_pad_folded();
    test_input_shapes();
    test_external();
    test_bad_graphs();
    test_unsupported_ops();
    return test_finish("test_onnx_models");
}
