/* The CPU kernels on hand-computed cases: each builds a one-node graph in code, runs shape
 * inference and the op's CPU kernel, and checks shapes and values; plus shape errors and
 * the CPU device running a small chain. */
#include "cpu/cpu_device.h"
#include "cpu/cpu_kernels.h"
#include "ops/op.h"
#include "passes/infer.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_IO 4

typedef struct tspec {
    const char *name;
    vkml_dtype dtype;
    int rank;
    int64_t dims[VKML_MAX_RANK];
    const void *data;
    bool constant; /* an initializer (shape functions may read it) */
} tspec;

/* What a run produced: output shapes and malloc'ed data. */
typedef struct tresult {
    vkml_status status;
    vkml_error err;
    graph_value out[MAX_IO];
    void *data[MAX_IO];
    int n_out;
} tresult;

#define A_INT(n, v) ((graph_attr){.name = (n), .type = GRAPH_ATTR_INT, .i = (v)})
#define A_FLOAT(n, v) ((graph_attr){.name = (n), .type = GRAPH_ATTR_FLOAT, .f = (v)})
#define A_STR(n, v)                                                                                \
    ((graph_attr){.name = (n), .type = GRAPH_ATTR_STRING, .s = (v), .s_len = strlen(v)})
#define A_INTS(n, ...)                                                                             \
    ((graph_attr){.name = (n),                                                                     \
                  .type = GRAPH_ATTR_INTS,                                                         \
                  .ints = (const int64_t[]){__VA_ARGS__},                                          \
                  .count = sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)})
#define A_FLOATS(n, ...)                                                                           \
    ((graph_attr){.name = (n),                                                                     \
                  .type = GRAPH_ATTR_FLOATS,                                                       \
                  .floats = (const float[]){__VA_ARGS__},                                          \
                  .count = sizeof((float[]){__VA_ARGS__}) / sizeof(float)})

static int add_tensor(graph *g, const tspec *t)
{
    int v = graph_add_value(g, t->name);
    graph_value *val = &g->values[v];
    val->kind = t->constant ? GRAPH_VALUE_CONSTANT : GRAPH_VALUE_INPUT;
    val->dtype = t->dtype;
    val->rank = t->rank;
    memcpy(val->dims, t->dims, sizeof(t->dims));
    if (t->constant) {
        val->data = t->data;
        vkml_tensor_bytes(t->dtype, t->rank, t->dims, &val->data_size);
    }
    return v;
}

/* Builds node "n0" (op_type at opset) over the inputs (name NULL: omitted optional input),
 * infers shapes and runs the CPU kernel. */
static tresult run_node(const char *op_type, int opset, const tspec *ins, int n_in, int n_out,
                        const graph_attr *attrs, int n_attrs)
{
    tresult r = {.n_out = n_out};
    graph *g = graph_create();
    int node = graph_add_node(g, "n0", op_type, "", n_in, n_out, n_attrs);
    for (int i = 0; i < n_in; i++)
        g->nodes[node].inputs[i] = ins[i].name ? add_tensor(g, &ins[i]) : -1;
    for (int i = 0; i < n_out; i++) {
        char name[16];
        snprintf(name, sizeof(name), "y%d", i);
        g->nodes[node].outputs[i] = graph_add_value(g, name);
    }
    for (int i = 0; i < n_attrs; i++)
        g->nodes[node].attrs[i] = attrs[i];
    g->nodes[node].opset = opset;
    graph_value *values = NULL;
    /* Attribute errors come from the parse at load; the loader names the node (model.c). */
    if ((r.status = op_bind_node(g->arena, &g->nodes[node], &r.err))) {
        vkml_error_prefix(&r.err, "node 'n0' (%s)", op_type);
        goto done;
    }
    if ((r.status = graph_sort(g, &r.err)))
        goto done;
    values = graph_values_clone(g);
    if ((r.status = graph_infer(g, values, 1, &r.err)))
        goto done;
    const graph_node *n = &g->nodes[0];
    const void *in[MAX_IO] = {0};
    for (int i = 0; i < n_in; i++)
        in[i] = ins[i].data;
    for (int i = 0; i < n_out; i++) {
        size_t bytes = 0;
        r.out[i] = values[n->outputs[i]];
        vkml_tensor_bytes(r.out[i].dtype, r.out[i].rank, r.out[i].dims, &bytes);
        r.data[i] = malloc(bytes + 1);
        memset(r.data[i], 0xcd, bytes + 1); /* poison: a kernel must write every element */
    }
    op_cpu_args args = {.values = values, .node = n, .in = in, .out = r.data};
    r.status = cpu_run_node(&args, &r.err);
done:
    free(values);
    graph_destroy(&g);
    return r;
}

static void result_free(tresult *r)
{
    for (int i = 0; i < r->n_out; i++)
        free(r->data[i]);
}

static void check_shape(const char *what, const graph_value *v, int rank, const int64_t *dims)
{
    char got[160], want[160];
    bool same = v->rank == rank;
    for (int d = 0; same && d < rank; d++)
        same = v->dims[d] == dims[d];
    CHECK(same, "%s: shape %s, expected %s", what,
          graph_shape_string(v->rank, v->dims, got, sizeof(got)),
          graph_shape_string(rank, dims, want, sizeof(want)));
}

static void check_floats(const char *what, const float *got, const float *want, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        bool ok = isnan(want[i]) ? isnan(got[i])
                                 : fabsf(got[i] - want[i]) <= 1e-5f + 1e-5f * fabsf(want[i]);
        CHECK(ok, "%s[%zu] = %.7g, expected %.7g", what, i, got[i], want[i]);
        if (!ok)
            return;
    }
}

/* Runs a float op expected to succeed and checks output 0's shape and values. */
#define EXPECT_F32(what, r, rank_, dims_, ...)                                                     \
    do {                                                                                           \
        const float want_[] = {__VA_ARGS__};                                                       \
        CHECK((r).status == VKML_OK, "%s: %s", what, (r).err.message);                             \
        if ((r).status == VKML_OK) {                                                               \
            check_shape(what, &(r).out[0], rank_, (const int64_t[])dims_);                         \
            check_floats(what, (r).data[0], want_, VKML_ARRAY_SIZE(want_));                        \
        }                                                                                          \
    } while (0)
#define DIMS(...)                                                                                  \
    {                                                                                              \
        __VA_ARGS__                                                                                \
    }

static void check_error(const char *what, const tresult *r, vkml_status want, const char *needle)
{
    CHECK(r->status == want, "%s: status %s, expected %s (%s)", what, vkml_status_name(r->status),
          vkml_status_name(want), r->err.message);
    CHECK(strstr(r->err.message, "n0") && strstr(r->err.message, needle),
          "%s: message '%s' should name the node and '%s'", what, r->err.message, needle);
}

static float *iota(float *buf, size_t n, float start, float step)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = start + step * (float)i;
    return buf;
}

static void test_elementwise(void)
{
    float a[6], b[3] = {10, 20, 30};
    iota(a, 6, 1, 1);
    tspec ins[] = {{"a", VKML_DTYPE_FLOAT, 2, {2, 3}, a, false},
                   {"b", VKML_DTYPE_FLOAT, 1, {3}, b, false}};
    tresult r = run_node("Add", 14, ins, 2, 1, NULL, 0);
    EXPECT_F32("Add [2,3]+[3]", r, 2, DIMS(2, 3), 11, 22, 33, 14, 25, 36);
    result_free(&r);

    float col[2] = {1, 2}, row[3] = {10, 20, 30};
    tspec outer[] = {{"a", VKML_DTYPE_FLOAT, 2, {2, 1}, col, false},
                     {"b", VKML_DTYPE_FLOAT, 2, {1, 3}, row, false}};
    r = run_node("Sub", 14, outer, 2, 1, NULL, 0);
    EXPECT_F32("Sub [2,1]-[1,3]", r, 2, DIMS(2, 3), -9, -19, -29, -8, -18, -28);
    result_free(&r);
    r = run_node("Mul", 7, outer, 2, 1, NULL, 0);
    EXPECT_F32("Mul [2,1]*[1,3]", r, 2, DIMS(2, 3), 10, 20, 30, 20, 40, 60);
    result_free(&r);

    int32_t ia[4] = {7, -7, 9, -1}, ib[1] = {2};
    tspec idiv[] = {{"a", VKML_DTYPE_INT32, 1, {4}, ia, false},
                    {"b", VKML_DTYPE_INT32, 0, {0}, ib, false}};
    r = run_node("Div", 14, idiv, 2, 1, NULL, 0);
    CHECK(r.status == VKML_OK, "int32 Div: %s", r.err.message);
    if (!r.status) {
        const int32_t *y = r.data[0];
        CHECK(y[0] == 3 && y[1] == -3 && y[2] == 4 && y[3] == 0, "int32 Div truncates: %d %d %d %d",
              y[0], y[1], y[2], y[3]);
    }
    result_free(&r);

    int64_t la[2] = {INT64_C(5000000000), -3}, lb[2] = {1, 4};
    tspec lsub[] = {{"a", VKML_DTYPE_INT64, 1, {2}, la, false},
                    {"b", VKML_DTYPE_INT64, 1, {2}, lb, false}};
    r = run_node("Sub", 14, lsub, 2, 1, NULL, 0);
    CHECK(!r.status && ((int64_t *)r.data[0])[0] == INT64_C(4999999999) &&
              ((int64_t *)r.data[0])[1] == -7,
          "int64 Sub");
    result_free(&r);

    int32_t wa[2] = {INT32_MAX, INT32_MIN}, wb[2] = {2, -1};
    tspec wrap[] = {{"a", VKML_DTYPE_INT32, 1, {2}, wa, false},
                    {"b", VKML_DTYPE_INT32, 1, {2}, wb, false}};
    r = run_node("Mul", 14, wrap, 2, 1, NULL, 0);
    CHECK(!r.status && ((int32_t *)r.data[0])[0] == -2 && ((int32_t *)r.data[0])[1] == INT32_MIN,
          "int32 Mul wraps: %s", r.err.message);
    result_free(&r);
    r = run_node("Div", 14, wrap, 2, 1, NULL, 0);
    CHECK(!r.status && ((int32_t *)r.data[0])[0] == INT32_MAX / 2 &&
              ((int32_t *)r.data[0])[1] == INT32_MIN,
          "int32 MIN / -1 wraps: %s", r.err.message);
    result_free(&r);

    uint8_t ua[2] = {200, 7}, ub[2] = {100, 2};
    tspec u8[] = {{"a", VKML_DTYPE_UINT8, 1, {2}, ua, false},
                  {"b", VKML_DTYPE_UINT8, 1, {2}, ub, false}};
    r = run_node("Add", 14, u8, 2, 1, NULL, 0);
    CHECK(!r.status && ((uint8_t *)r.data[0])[0] == 44 && ((uint8_t *)r.data[0])[1] == 9,
          "uint8 Add wraps: %s", r.err.message);
    result_free(&r);
    int16_t sa[2] = {300, -7}, sb[2] = {300, 2};
    tspec s16[] = {{"a", VKML_DTYPE_INT16, 1, {2}, sa, false},
                   {"b", VKML_DTYPE_INT16, 1, {2}, sb, false}};
    r = run_node("Mul", 14, s16, 2, 1, NULL, 0);
    CHECK(!r.status && ((int16_t *)r.data[0])[0] == 24464 && ((int16_t *)r.data[0])[1] == -14,
          "int16 Mul wraps: %s", r.err.message);
    result_free(&r);
    r = run_node("Div", 14, s16, 2, 1, NULL, 0);
    CHECK(!r.status && ((int16_t *)r.data[0])[0] == 1 && ((int16_t *)r.data[0])[1] == -3,
          "int16 Div truncates: %s", r.err.message);
    result_free(&r);
    uint32_t qa[2] = {5, UINT32_MAX}, qb[2] = {UINT32_MAX, 2};
    tspec u32[] = {{"a", VKML_DTYPE_UINT32, 1, {2}, qa, false},
                   {"b", VKML_DTYPE_UINT32, 1, {2}, qb, false}};
    r = run_node("Div", 14, u32, 2, 1, NULL, 0);
    CHECK(!r.status && ((uint32_t *)r.data[0])[0] == 0 &&
              ((uint32_t *)r.data[0])[1] == UINT32_MAX / 2,
          "uint32 Div (a divisor of all ones is not -1): %s", r.err.message);
    result_free(&r);
    double da[2] = {1, -3}, db[1] = {0.5};
    tspec f64[] = {{"a", VKML_DTYPE_DOUBLE, 1, {2}, da, false},
                   {"b", VKML_DTYPE_DOUBLE, 0, {0}, db, false}};
    r = run_node("Sub", 14, f64, 2, 1, NULL, 0);
    CHECK(!r.status && ((double *)r.data[0])[0] == 0.5 && ((double *)r.data[0])[1] == -3.5,
          "double Sub: %s", r.err.message);
    result_free(&r);

    float u[4] = {-2, 0, 0.5f, 3};
    tspec un[] = {{"x", VKML_DTYPE_FLOAT, 1, {4}, u, false}};
    r = run_node("Relu", 14, un, 1, 1, NULL, 0);
    EXPECT_F32("Relu", r, 1, DIMS(4), 0, 0, 0.5f, 3);
    result_free(&r);
    r = run_node("Sigmoid", 13, un, 1, 1, NULL, 0);
    EXPECT_F32("Sigmoid", r, 1, DIMS(4), 0.11920292f, 0.5f, 0.62245933f, 0.95257413f);
    result_free(&r);
    r = run_node("Tanh", 13, un, 1, 1, NULL, 0);
    EXPECT_F32("Tanh", r, 1, DIMS(4), -0.96402758f, 0, 0.46211716f, 0.99505475f);
    result_free(&r);
}

/* Opsets 1-6: B broadcasts onto A from attribute axis, only with broadcast=1. */
static void test_elementwise_legacy(void)
{
    float a[12], b[3] = {100, 200, 300};
    iota(a, 12, 0, 1);
    tspec ins[] = {{"a", VKML_DTYPE_FLOAT, 3, {2, 3, 2}, a, false},
                   {"b", VKML_DTYPE_FLOAT, 1, {3}, b, false}};
    graph_attr axis1[] = {A_INT("broadcast", 1), A_INT("axis", 1)};
    tresult r = run_node("Add", 6, ins, 2, 1, axis1, 2);
    EXPECT_F32("Add-6 broadcast axis 1", r, 3, DIMS(2, 3, 2), 100, 101, 202, 203, 304, 305, 106,
               107, 208, 209, 310, 311);
    result_free(&r);
    r = run_node("Add", 6, ins, 2, 1, NULL, 0);
    check_error("Add-6 without broadcast", &r, VKML_ERROR_INVALID_MODEL, "broadcast");
    result_free(&r);
    graph_attr trailing[] = {A_INT("broadcast", 1)};
    r = run_node("Add", 6, ins, 2, 1, trailing, 1);
    check_error("Add-6 [3] onto trailing dim 2", &r, VKML_ERROR_INVALID_MODEL, "broadcast");
    result_free(&r);
    float b2[2] = {10, 20};
    tspec tail[] = {ins[0], {"b", VKML_DTYPE_FLOAT, 1, {2}, b2, false}};
    r = run_node("Sub", 6, tail, 2, 1, trailing, 1);
    EXPECT_F32("Sub-6 trailing", r, 3, DIMS(2, 3, 2), -10, -19, -8, -17, -6, -15);
    result_free(&r);
}

static void test_elementwise_errors(void)
{
    float a[6] = {0}, b[2] = {0};
    tspec bad[] = {{"a", VKML_DTYPE_FLOAT, 2, {2, 3}, a, false},
                   {"b", VKML_DTYPE_FLOAT, 1, {2}, b, false}};
    tresult r = run_node("Add", 14, bad, 2, 1, NULL, 0);
    check_error("Add [2,3]+[2]", &r, VKML_ERROR_INVALID_MODEL, "broadcast");
    result_free(&r);
    double d[2] = {0};
    tspec dbl[] = {{"a", VKML_DTYPE_DOUBLE, 1, {2}, d, false},
                   {"b", VKML_DTYPE_DOUBLE, 1, {2}, d, false}};
    uint16_t h[2] = {0};
    tspec half[] = {{"a", VKML_DTYPE_FLOAT16, 1, {2}, h, false},
                    {"b", VKML_DTYPE_FLOAT16, 1, {2}, h, false}};
    r = run_node("And", 7, half, 2, 1, NULL, 0);
    check_error("And float16", &r, VKML_ERROR_UNSUPPORTED, "float16");
    result_free(&r);
    r = run_node("Not", 1, dbl, 1, 1, NULL, 0);
    check_error("Not double", &r, VKML_ERROR_UNSUPPORTED, "double");
    result_free(&r);
}

static void test_conv(void)
{
    float x[50], w[18], b[2] = {0.5f, -1.0f};
    iota(x, 50, 0, 0.1f);
    iota(w, 18, -2.25f, 0.25f);
    tspec ins[] = {{"x", VKML_DTYPE_FLOAT, 4, {1, 2, 5, 5}, x, false},
                   {"w", VKML_DTYPE_FLOAT, 4, {2, 1, 3, 3}, w, true},
                   {"b", VKML_DTYPE_FLOAT, 1, {2}, b, true}};
    graph_attr attrs[] = {A_INTS("pads", 1, 0, 1, 2), A_INTS("strides", 2, 1),
                          A_INTS("dilations", 1, 2), A_INT("group", 2)};
    tresult r = run_node("Conv", 11, ins, 3, 1, attrs, 4);
    EXPECT_F32("Conv 2-D pads/strides/dilations/group", r, 4, DIMS(1, 2, 3, 3), -1.1f, -0.875f,
               -1.275f, -10.45f, -7.825f, -8.65f, -17.75f, -12.725f, -13.425f, 24.1f, 14.175f,
               14.675f, 34.85f, 20.0f, 20.525f, 16.45f, 8.325f, 8.525f);
    result_free(&r);

    float x1[5] = {1, 2, 3, 4, 5}, w1[3] = {1, 0, -1};
    tspec ins1[] = {{"x", VKML_DTYPE_FLOAT, 3, {1, 1, 5}, x1, false},
                    {"w", VKML_DTYPE_FLOAT, 3, {1, 1, 3}, w1, true}};
    graph_attr same[] = {A_STR("auto_pad", "SAME_UPPER"), A_INTS("strides", 2)};
    r = run_node("Conv", 11, ins1, 2, 1, same, 2);
    EXPECT_F32("Conv 1-D SAME_UPPER stride 2", r, 3, DIMS(1, 1, 3), -2, -2, 4);
    result_free(&r);
    graph_attr valid[] = {A_STR("auto_pad", "VALID"), A_INTS("kernel_shape", 3)};
    r = run_node("Conv", 1, ins1, 2, 1, valid, 2);
    EXPECT_F32("Conv 1-D VALID", r, 3, DIMS(1, 1, 3), -2, -2, -2);
    result_free(&r);

    float x3[8], w3[8];
    iota(x3, 8, 1, 0);
    iota(w3, 8, 1, 1);
    tspec ins3[] = {{"x", VKML_DTYPE_FLOAT, 5, {1, 1, 2, 2, 2}, x3, false},
                    {"w", VKML_DTYPE_FLOAT, 5, {1, 1, 2, 2, 2}, w3, true}};
    r = run_node("Conv", 22, ins3, 2, 1, NULL, 0);
    EXPECT_F32("Conv 3-D", r, 5, DIMS(1, 1, 1, 1, 1), 36);
    result_free(&r);

    float xbad[75] = {0}, wbad[36] = {0};
    tspec bad[] = {{"x", VKML_DTYPE_FLOAT, 4, {1, 3, 5, 5}, xbad, false},
                   {"w", VKML_DTYPE_FLOAT, 4, {2, 2, 3, 3}, wbad, true}};
    r = run_node("Conv", 11, bad, 2, 1, NULL, 0);
    check_error("Conv channel mismatch", &r, VKML_ERROR_INVALID_MODEL, "channels");
    result_free(&r);
    graph_attr float_group[] = {A_FLOAT("group", 1.0f)};
    r = run_node("Conv", 11, ins1, 2, 1, float_group, 1);
    check_error("Conv group of type float", &r, VKML_ERROR_INVALID_MODEL, "group");
    result_free(&r);
    graph_attr huge_pads[] = {A_INTS("pads", INT64_MAX, 0)};
    r = run_node("Conv", 11, ins1, 2, 1, huge_pads, 1);
    check_error("Conv pads of 2^63-1", &r, VKML_ERROR_UNSUPPORTED, "pads");
    result_free(&r);
    graph_attr odd_pads[] = {A_INTS("pads", 1, 1, 1)};
    r = run_node("Conv", 11, ins1, 2, 1, odd_pads, 1);
    check_error("Conv pads of 3 values for 1-D", &r, VKML_ERROR_INVALID_MODEL, "pads");
    result_free(&r);
    graph_attr both[] = {A_INTS("pads", 1, 1), A_STR("auto_pad", "SAME_UPPER")};
    r = run_node("Conv", 11, ins1, 2, 1, both, 2);
    check_error("Conv pads with auto_pad", &r, VKML_ERROR_INVALID_MODEL, "auto_pad");
    result_free(&r);
    graph_attr too_big[] = {A_INTS("kernel_shape", 9)};
    r = run_node("MaxPool", 12, ins1, 1, 1, too_big, 1);
    check_error("MaxPool kernel larger than its input", &r, VKML_ERROR_INVALID_MODEL, "fit");
    result_free(&r);
}

static void test_pool(void)
{
    float x[16];
    iota(x, 16, 1, 1);
    tspec ins[] = {{"x", VKML_DTYPE_FLOAT, 4, {1, 1, 4, 4}, x, false}};
    graph_attr ceil[] = {A_INTS("kernel_shape", 3, 3), A_INTS("strides", 2, 2),
                         A_INT("ceil_mode", 1), A_INT("storage_order", 1)};
    tresult r = run_node("MaxPool", 12, ins, 1, 2, ceil, 4);
    EXPECT_F32("MaxPool ceil_mode", r, 4, DIMS(1, 1, 2, 2), 11, 12, 15, 16);
    if (!r.status) {
        const int64_t *idx = r.data[1];
        CHECK(r.out[1].dtype == VKML_DTYPE_INT64 && idx[0] == 10 && idx[1] == 14 && idx[2] == 11 &&
                  idx[3] == 15,
              "MaxPool column-major indices %lld %lld %lld %lld", (long long)idx[0],
              (long long)idx[1], (long long)idx[2], (long long)idx[3]);
    }
    result_free(&r);
    r = run_node("MaxPool", 12, ins, 1, 1, ceil, 2);
    EXPECT_F32("MaxPool floor", r, 4, DIMS(1, 1, 1, 1), 11);
    result_free(&r);

    float x3[9];
    iota(x3, 9, 1, 1);
    tspec ins3[] = {{"x", VKML_DTYPE_FLOAT, 4, {1, 1, 3, 3}, x3, false}};
    graph_attr incl[] = {A_INTS("kernel_shape", 2, 2), A_INTS("pads", 1, 1, 1, 1),
                         A_INT("count_include_pad", 1)};
    r = run_node("AveragePool", 11, ins3, 1, 1, incl, 3);
    EXPECT_F32("AveragePool count_include_pad", r, 4, DIMS(1, 1, 4, 4), 0.25f, 0.75f, 1.25f, 0.75f,
               1.25f, 3, 4, 2.25f, 2.75f, 6, 7, 3.75f, 1.75f, 3.75f, 4.25f, 2.25f);
    result_free(&r);
    r = run_node("AveragePool", 11, ins3, 1, 1, incl, 2);
    EXPECT_F32("AveragePool exclude pad", r, 4, DIMS(1, 1, 4, 4), 1, 1.5f, 2.5f, 3, 2.5f, 3, 4,
               4.5f, 5.5f, 6, 7, 7.5f, 7, 7.5f, 8.5f, 9);
    result_free(&r);

    float x1[5] = {1, 2, 3, 4, 5};
    tspec ins1[] = {{"x", VKML_DTYPE_FLOAT, 3, {1, 1, 5}, x1, false}};
    graph_attr ceil1[] = {A_INTS("kernel_shape", 2), A_INTS("strides", 2), A_INT("ceil_mode", 1),
                          A_INT("count_include_pad", 1)};
    r = run_node("AveragePool", 11, ins1, 1, 1, ceil1, 4);
    EXPECT_F32("AveragePool 1-D ceil_mode", r, 3, DIMS(1, 1, 3), 1.5f, 3.5f, 5);
    result_free(&r);
    graph_attr dil[] = {A_INTS("kernel_shape", 2), A_INTS("dilations", 2)};
    r = run_node("AveragePool", 19, ins1, 1, 1, dil, 2);
    EXPECT_F32("AveragePool dilations (opset 19)", r, 3, DIMS(1, 1, 3), 2, 3, 4);
    result_free(&r);
    r = run_node("AveragePool", 11, ins1, 1, 1, dil, 2);
    check_error("AveragePool dilations at opset 11", &r, VKML_ERROR_INVALID_MODEL, "dilations");
    result_free(&r);

    float g[8] = {1, 2, 3, 6, -1, -2, -3, -4};
    tspec gin[] = {{"x", VKML_DTYPE_FLOAT, 4, {1, 2, 2, 2}, g, false}};
    r = run_node("GlobalAveragePool", 1, gin, 1, 1, NULL, 0);
    EXPECT_F32("GlobalAveragePool", r, 4, DIMS(1, 2, 1, 1), 3, -2.5f);
    result_free(&r);
    r = run_node("GlobalMaxPool", 1, gin, 1, 1, NULL, 0);
    EXPECT_F32("GlobalMaxPool", r, 4, DIMS(1, 2, 1, 1), 6, -1);
    result_free(&r);
}

static void test_matmul(void)
{
    float v1[3] = {1, 2, 3}, v2[3] = {4, 5, 6}, m32[6] = {1, 2, 3, 4, 5, 6};
    tspec vv[] = {{"a", VKML_DTYPE_FLOAT, 1, {3}, v1, false},
                  {"b", VKML_DTYPE_FLOAT, 1, {3}, v2, false}};
    tresult r = run_node("MatMul", 13, vv, 2, 1, NULL, 0);
    EXPECT_F32("MatMul 1-D x 1-D", r, 0, DIMS(0), 32);
    result_free(&r);
    tspec vm[] = {{"a", VKML_DTYPE_FLOAT, 1, {3}, v1, false},
                  {"b", VKML_DTYPE_FLOAT, 2, {3, 2}, m32, false}};
    r = run_node("MatMul", 13, vm, 2, 1, NULL, 0);
    EXPECT_F32("MatMul 1-D x 2-D", r, 1, DIMS(2), 22, 28);
    result_free(&r);
    tspec mv[] = {{"a", VKML_DTYPE_FLOAT, 2, {2, 3}, m32, false},
                  {"b", VKML_DTYPE_FLOAT, 1, {3}, v1, false}};
    r = run_node("MatMul", 13, mv, 2, 1, NULL, 0);
    EXPECT_F32("MatMul 2-D x 1-D", r, 1, DIMS(2), 14, 32);
    result_free(&r);

    float a[8], b[12];
    iota(a, 8, 0, 1);
    iota(b, 12, -5, 1);
    tspec bat[] = {{"a", VKML_DTYPE_FLOAT, 4, {2, 1, 2, 2}, a, false},
                   {"b", VKML_DTYPE_FLOAT, 3, {3, 2, 2}, b, false}};
    r = run_node("MatMul", 13, bat, 2, 1, NULL, 0);
    EXPECT_F32("MatMul batch broadcast", r, 4, DIMS(2, 3, 2, 2), -3, -2, -19, -14, 1, 2, 1, 6, 5, 6,
               21, 26, -35, -26, -51, -38, 1, 10, 1, 14, 37, 46, 53, 66);
    result_free(&r);

    float ga[6], gb[12], gc[4] = {1, 2, 3, 4};
    iota(ga, 6, 0, 1);
    iota(gb, 12, -6, 1);
    tspec gin[] = {{"a", VKML_DTYPE_FLOAT, 2, {3, 2}, ga, false},
                   {"b", VKML_DTYPE_FLOAT, 2, {4, 3}, gb, false},
                   {"c", VKML_DTYPE_FLOAT, 1, {4}, gc, false}};
    graph_attr gat[] = {A_INT("transA", 1), A_INT("transB", 1), A_FLOAT("alpha", 0.5f),
                        A_FLOAT("beta", 2.0f)};
    r = run_node("Gemm", 13, gin, 3, 1, gat, 4);
    EXPECT_F32("Gemm transA transB alpha beta", r, 2, DIMS(2, 4), -11, 0, 11, 22, -18.5f, -3, 12.5f,
               28);
    result_free(&r);
    r = run_node("Gemm", 13, gin, 2, 1, gat, 3);
    EXPECT_F32("Gemm without C", r, 2, DIMS(2, 4), -13, -4, 5, 14, -20.5f, -7, 6.5f, 20);
    result_free(&r);
}

static void test_softmax(void)
{
    float x[8] = {0, 1, 2, 3, 1, 1, 0, -1};
    tspec in[] = {{"x", VKML_DTYPE_FLOAT, 3, {2, 2, 2}, x, false}};
    graph_attr axis0[] = {A_INT("axis", 0)};
    tresult r = run_node("Softmax", 13, in, 1, 1, axis0, 1);
    EXPECT_F32("Softmax-13 axis 0", r, 3, DIMS(2, 2, 2), 0.26894142f, 0.5f, 0.88079708f,
               0.98201379f, 0.73105858f, 0.5f, 0.11920292f, 0.01798621f);
    result_free(&r);
    r = run_node("Softmax", 13, in, 1, 1, NULL, 0);
    EXPECT_F32("Softmax-13 default axis -1", r, 3, DIMS(2, 2, 2), 0.26894142f, 0.73105858f,
               0.26894142f, 0.73105858f, 0.5f, 0.5f, 0.73105858f, 0.26894142f);
    result_free(&r);
    r = run_node("Softmax", 11, in, 1, 1, NULL, 0);
    EXPECT_F32("Softmax-11 default axis 1 (2-D coercion)", r, 3, DIMS(2, 2, 2), 0.0320586f,
               0.08714432f, 0.23688282f, 0.64391426f, 0.3994863f, 0.3994863f, 0.1469628f,
               0.05406459f);
    result_free(&r);
    r = run_node("Softmax", 11, in, 1, 1, axis0, 1);
    EXPECT_F32("Softmax-11 axis 0 (whole tensor)", r, 3, DIMS(2, 2, 2), 0.02631765f, 0.07153878f,
               0.19446257f, 0.52860407f, 0.07153878f, 0.07153878f, 0.02631765f, 0.00968172f);
    result_free(&r);
}

static void test_reshape_flatten(void)
{
    float x[24];
    iota(x, 24, 0, 1);
    int64_t shape[2] = {0, -1};
    tspec in[] = {{"x", VKML_DTYPE_FLOAT, 3, {2, 3, 4}, x, false},
                  {"s", VKML_DTYPE_INT64, 1, {2}, shape, true}};
    tresult r = run_node("Reshape", 13, in, 2, 1, NULL, 0);
    EXPECT_F32("Reshape [0,-1]", r, 2, DIMS(2, 12), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
               14, 15, 16, 17, 18, 19, 20, 21, 22, 23);
    result_free(&r);

    int64_t zshape[2] = {3, 0};
    tspec zin[] = {{"x", VKML_DTYPE_FLOAT, 2, {0, 3}, x, false},
                   {"s", VKML_DTYPE_INT64, 1, {2}, zshape, true}};
    graph_attr allowzero[] = {A_INT("allowzero", 1)};
    r = run_node("Reshape", 14, zin, 2, 1, allowzero, 1);
    CHECK(r.status == VKML_OK, "Reshape allowzero: %s", r.err.message);
    if (!r.status)
        check_shape("Reshape allowzero", &r.out[0], 2, (const int64_t[]){3, 0});
    result_free(&r);
    r = run_node("Reshape", 14, zin, 2, 1, NULL, 0);
    check_error("Reshape 0 copies a dim without allowzero", &r, VKML_ERROR_INVALID_MODEL,
                "reshape");
    result_free(&r);

    int64_t bad[2] = {5, -1}, two[2] = {-1, -1};
    tspec badin[] = {in[0], {"s", VKML_DTYPE_INT64, 1, {2}, bad, true}};
    r = run_node("Reshape", 13, badin, 2, 1, NULL, 0);
    check_error("Reshape 24 elements to [5,-1]", &r, VKML_ERROR_INVALID_MODEL, "reshape");
    result_free(&r);
    badin[1].data = two;
    r = run_node("Reshape", 13, badin, 2, 1, NULL, 0);
    check_error("Reshape two -1", &r, VKML_ERROR_INVALID_MODEL, "-1");
    result_free(&r);

    graph_attr neg[] = {A_INT("axis", -1)};
    r = run_node("Flatten", 13, in, 1, 1, neg, 1);
    EXPECT_F32("Flatten axis -1", r, 2, DIMS(6, 4), 0, 1, 2, 3, 4, 5, 6, 7);
    result_free(&r);
    graph_attr zero[] = {A_INT("axis", 0)};
    r = run_node("Flatten", 13, in, 1, 1, zero, 1);
    EXPECT_F32("Flatten axis 0", r, 2, DIMS(1, 24), 0, 1, 2);
    result_free(&r);
    r = run_node("Flatten", 9, in, 1, 1, neg, 1);
    check_error("Flatten axis -1 at opset 9", &r, VKML_ERROR_INVALID_MODEL, "axis");
    result_free(&r);
    r = run_node("Identity", 16, in, 1, 1, NULL, 0);
    EXPECT_F32("Identity", r, 3, DIMS(2, 3, 4), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
               15, 16, 17, 18, 19, 20, 21, 22, 23);
    result_free(&r);
}

static void test_constant(void)
{
    graph_attr floats[] = {A_FLOATS("value_floats", 1.5f, -2, 4)};
    tresult r = run_node("Constant", 13, NULL, 0, 1, floats, 1);
    EXPECT_F32("Constant value_floats", r, 1, DIMS(3), 1.5f, -2, 4);
    CHECK(r.out[0].data != NULL, "Constant output keeps its data for later shape functions");
    result_free(&r);
    graph_attr one[] = {A_INT("value_int", 42)};
    r = run_node("Constant", 13, NULL, 0, 1, one, 1);
    CHECK(!r.status && r.out[0].rank == 0 && r.out[0].dtype == VKML_DTYPE_INT64 &&
              *(int64_t *)r.data[0] == 42,
          "Constant value_int: %s", r.err.message);
    result_free(&r);
    float t[2] = {7, 8};
    graph_tensor tensor = {
        .dtype = VKML_DTYPE_FLOAT, .rank = 2, .dims = {1, 2}, .data = t, .size = sizeof(t)};
    graph_attr value[] = {{.name = "value", .type = GRAPH_ATTR_TENSOR, .tensor = &tensor}};
    r = run_node("Constant", 13, NULL, 0, 1, value, 1);
    EXPECT_F32("Constant value", r, 2, DIMS(1, 2), 7, 8);
    result_free(&r);
    graph_attr str[] = {A_STR("value_string", "hi")};
    r = run_node("Constant", 13, NULL, 0, 1, str, 1);
    check_error("Constant value_string", &r, VKML_ERROR_UNSUPPORTED, "value_string");
    result_free(&r);
}

/* Checks a run succeeded with output 0 equal to want[0..n), then frees it. */
static void check_run(const char *what, tresult *r, const float *want, size_t n)
{
    CHECK(r->status == VKML_OK, "%s: %s", what, r->err.message);
    if (r->status == VKML_OK)
        check_floats(what, r->data[0], want, n);
    result_free(r);
}

/* Broadcast Add and Tanh over 301,000 elements (split over threads) against naive loops. */
static void test_large_elementwise(uint64_t *seed)
{
    enum { B = 5, R = 200, C = 301 };
    float *x = malloc(sizeof(float) * B * R * C), col[R];
    float *want = malloc(sizeof(float) * B * R * C);
    for (int i = 0; i < B * R * C; i++)
        x[i] = test_randf(seed, -3, 3);
    for (int i = 0; i < R; i++)
        col[i] = test_randf(seed, -3, 3);
    for (int i = 0; i < B * R * C; i++)
        want[i] = x[i] + col[(i / C) % R];
    tspec add[] = {{"a", VKML_DTYPE_FLOAT, 3, {B, R, C}, x, false},
                   {"b", VKML_DTYPE_FLOAT, 2, {R, 1}, col, false}};
    tresult r = run_node("Add", 14, add, 2, 1, NULL, 0);
    check_run("Add [5,200,301]+[200,1]", &r, want, B * R * C);
    for (int i = 0; i < B * R * C; i++)
        want[i] = tanhf(x[i]);
    r = run_node("Tanh", 13, add, 1, 1, NULL, 0);
    check_run("Tanh [5,200,301]", &r, want, B * R * C);
    free(x);
    free(want);
}

/* Odd, larger shapes (large enough for the kernels to split work over threads) against
 * naive loops written here. */
static void test_large_against_naive(void)
{
    enum { M = 67, K = 130, N = 71 };
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * K * N);
    float *want = malloc(sizeof(float) * M * N);
    for (int i = 0; i < M * K; i++)
        a[i] = test_randf(&seed, -1, 1);
    for (int i = 0; i < K * N; i++)
        b[i] = test_randf(&seed, -1, 1);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double acc = 0;
            for (int k = 0; k < K; k++)
                acc += (double)a[i * K + k] * b[k * N + j];
            want[i * N + j] = (float)acc;
        }
    tspec mm[] = {{"a", VKML_DTYPE_FLOAT, 2, {M, K}, a, false},
                  {"b", VKML_DTYPE_FLOAT, 2, {K, N}, b, false}};
    tresult r = run_node("MatMul", 13, mm, 2, 1, NULL, 0);
    check_run("MatMul 67x130x71", &r, want, M * N);

    /* Depthwise 3x3, pads 1: one output channel per group, so Y is split by columns. */
    enum { C = 2, H = 131, W = 129 };
    float *x = realloc(a, sizeof(float) * C * H * W), w[C * 9];
    float *yw = realloc(want, sizeof(float) * C * H * W);
    for (int i = 0; i < C * H * W; i++)
        x[i] = test_randf(&seed, -1, 1);
    for (int i = 0; i < C * 9; i++)
        w[i] = test_randf(&seed, -1, 1);
    for (int c = 0; c < C; c++)
        for (int i = 0; i < H; i++)
            for (int j = 0; j < W; j++) {
                double acc = 0;
                for (int ki = 0; ki < 3; ki++)
                    for (int kj = 0; kj < 3; kj++) {
                        int yi = i + ki - 1, xj = j + kj - 1;
                        if (yi >= 0 && yi < H && xj >= 0 && xj < W)
                            acc += (double)x[(c * H + yi) * W + xj] * w[c * 9 + ki * 3 + kj];
                    }
                yw[(c * H + i) * W + j] = (float)acc;
            }
    tspec cv[] = {{"x", VKML_DTYPE_FLOAT, 4, {1, C, H, W}, x, false},
                  {"w", VKML_DTYPE_FLOAT, 4, {C, 1, 3, 3}, w, true}};
    graph_attr attrs[] = {A_INTS("pads", 1, 1, 1, 1), A_INT("group", C)};
    r = run_node("Conv", 11, cv, 2, 1, attrs, 2);
    check_run("depthwise Conv 2x131x129", &r, yw, C * H * W);
    free(x);
    free(b);
    free(yw);
    test_large_elementwise(&seed);
}

int main(void)
{
    test_elementwise();
    test_elementwise_legacy();
    test_elementwise_errors();
    test_conv();
    test_pool();
    test_matmul();
    test_softmax();
    test_reshape_flatten();
    test_constant();
    test_large_against_naive();
    return test_finish("test_cpu_kernels");
}
