/* The op test harness: see op_harness.h. */
#include "op_harness.h"
#include "cpu/cpu_device.h"
#include "cpu/cpu_elem.h"
#include "cpu/cpu_kernels.h"
#include "graph/graph.h"
#include "ops/op.h"
#include "passes/infer.h"
#include "testutil.h"
#include "vulkan/vk_device.h"
#include "vulkan/vk_gemm_tune.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define OH_MAX_INPUTS 16
#define OH_MAX_OUTPUTS 8
#define OH_MAX_ATTRS 16
#define OH_MAX_NODES 8
#define OH_MAX_VALUES (OH_MAX_INPUTS + OH_MAX_NODES * OH_MAX_OUTPUTS)

typedef struct oh_input_spec {
    bool constant;
    int node, slot; /* the node it feeds and its input index there */
    vkml_dtype dtype;
    int rank;
    int64_t dims[VKML_MAX_RANK];
    void *data; /* filled at add time (random or given) */
    size_t bytes;
} oh_input_spec;

/* One node of the case: its inputs are value specs (c->in), OH_OMITTED or OH_PREVIOUS. */
#define OH_OMITTED (-1)
#define OH_PREVIOUS (-2) /* the previous node's first output */

typedef struct oh_node_spec {
    char op[64];
    int opset;
    int in[OH_MAX_INPUTS];
    int n_in;
    int n_out;
    bool out_omitted[OH_MAX_OUTPUTS];
    graph_attr attrs[OH_MAX_ATTRS];
    int n_attrs;
} oh_node_spec;

struct oh_case {
    oh_node_spec nodes[OH_MAX_NODES];
    int n_nodes;
    oh_input_spec in[OH_MAX_INPUTS]; /* every node's inputs and constants */
    int n_in;
    vkml_arena *arena; /* attribute and data storage */
    bool expect_gpu;
    void *expected[OH_MAX_OUTPUTS];
    int expected_rank[OH_MAX_OUTPUTS]; /* -1: not given */
    int64_t expected_dims[OH_MAX_OUTPUTS][VKML_MAX_RANK];
    bool expect_error;
    vkml_status error_status;
    char error_text[256];
    bool has_epilogue;
    graph_epilogue epilogue;
    const char *refusal;  /* oh_expect_refusal */
    bool no_alias, reuse; /* oh_no_alias, oh_expect_reuse */
    const char *session_error;
    void (*device_edit)(graph *g);
};

static struct {
    bool ready;
    uint64_t rng;
    vk_context *vk;
    int n_gpus;
    bool prefer_tiled[8]; /* each device's own choice (first 8 devices) */
    bool fast_math;       /* sessions as under precision fp32-fast */
    int cases, refusals;
} oh;

void oh_init(void)
{
    if (oh.ready)
        return;
    oh.ready = true;
    const char *seed = getenv("VKML_TEST_SEED");
    oh.rng = seed ? strtoull(seed, NULL, 0) : (uint64_t)time(NULL) * 2654435761u + 1;
    printf("seed %llu (VKML_TEST_SEED reproduces it)\n", (unsigned long long)oh.rng);
    vkml_error err = {0};
    CHECK_OK(vk_context_create(NULL, &oh.vk, &err), &err);
    oh.n_gpus = oh.vk ? vk_context_device_count(oh.vk) : 0;
    for (int d = 0; d < oh.n_gpus && d < 8; d++)
        oh.prefer_tiled[d] = ((vk_device *)vk_context_device(oh.vk, d))->caps.prefer_tiled;
    if (oh.n_gpus == 0)
        test_skip_gpu_part();
}

/* The node oh_input, oh_attr_* and oh_outputs apply to: the last one added. */
static oh_node_spec *cur(oh_case *c)
{
    return &c->nodes[c->n_nodes - 1];
}

void oh_then(oh_case *c, const char *op, int opset)
{
    if (c->n_nodes == OH_MAX_NODES) {
        CHECK(false, "%s: too many nodes", op);
        return;
    }
    oh_node_spec *n = &c->nodes[c->n_nodes++];
    snprintf(n->op, sizeof(n->op), "%s", op);
    n->opset = opset;
    n->n_out = 1;
    if (c->n_nodes > 1)
        n->in[n->n_in++] = OH_PREVIOUS;
}

oh_case *oh_new(const char *op, int opset)
{
    oh_init();
    oh_case *c = calloc(1, sizeof(*c));
    oh_then(c, op, opset);
    c->expect_gpu = true;
    c->arena = vkml_arena_create();
    for (int o = 0; o < OH_MAX_OUTPUTS; o++)
        c->expected_rank[o] = -1;
    return c;
}

static double rand_unit(void)
{
    return test_randf(&oh.rng, 0.0f, 1.0f);
}

/* Element i of a dense buffer as a double and back: the CPU kernels' own accessors. */
static void store(vkml_dtype dt, void *p, size_t i, double v)
{
    cpu_store_f64(p, dt, (int64_t)i, v);
}

static double load(vkml_dtype dt, const void *p, size_t i)
{
    return cpu_load_f64(p, dt, (int64_t)i);
}

static bool is_float(vkml_dtype dt)
{
    return dt == VKML_DTYPE_FLOAT || dt == VKML_DTYPE_DOUBLE || dt == VKML_DTYPE_FLOAT16 ||
           dt == VKML_DTYPE_BFLOAT16 || vkml_dtype_is_small_float(dt);
}

static oh_input_spec *add_spec(oh_case *c, vkml_dtype dtype, int rank, const int64_t *dims)
{
    oh_node_spec *n = cur(c);
    if (c->n_in == OH_MAX_INPUTS || n->n_in == OH_MAX_INPUTS || rank < 0 || rank > VKML_MAX_RANK) {
        CHECK(false, "%s: too many inputs or bad rank", n->op);
        return NULL;
    }
    oh_input_spec *s = &c->in[c->n_in];
    s->node = c->n_nodes - 1;
    s->slot = n->n_in;
    n->in[n->n_in++] = c->n_in++;
    s->dtype = dtype;
    s->rank = rank;
    if (rank)
        memcpy(s->dims, dims, sizeof(int64_t) * (size_t)rank);
    vkml_tensor_bytes(dtype, rank, s->dims, &s->bytes);
    s->data = vkml_arena_alloc(c->arena, s->bytes ? s->bytes : 1);
    return s;
}

static void fill_random(oh_input_spec *s, double lo, double hi)
{
    size_t n = vkml_tensor_element_count(s->rank, s->dims);
    for (size_t i = 0; i < n; i++) {
        double v = lo + (hi - lo) * rand_unit();
        if (!is_float(s->dtype))
            v = s->dtype == VKML_DTYPE_BOOL ? (rand_unit() < 0.5)
                                            : floor(lo + (hi - lo + 1) * rand_unit());
        if (!is_float(s->dtype) && v > hi)
            v = hi;
        store(s->dtype, s->data, i, v);
    }
}

int oh_input(oh_case *c, vkml_dtype dtype, int rank, const int64_t *dims, double lo, double hi)
{
    oh_input_spec *s = add_spec(c, dtype, rank, dims);
    if (s)
        fill_random(s, lo, hi);
    return cur(c)->n_in - 1;
}

int oh_const_random(oh_case *c, vkml_dtype dtype, int rank, const int64_t *dims, double lo,
                    double hi)
{
    oh_input_spec *s = add_spec(c, dtype, rank, dims);
    if (s) {
        fill_random(s, lo, hi);
        s->constant = true;
    }
    return cur(c)->n_in - 1;
}

int oh_const(oh_case *c, vkml_dtype dtype, int rank, const int64_t *dims, const void *data)
{
    oh_input_spec *s = add_spec(c, dtype, rank, dims);
    if (s) {
        memcpy(s->data, data, s->bytes);
        s->constant = true;
    }
    return cur(c)->n_in - 1;
}

int oh_const_i64(oh_case *c, int n, const int64_t *values)
{
    return oh_const(c, VKML_DTYPE_INT64, 1, (int64_t[]){n}, values);
}

void oh_skip_input(oh_case *c)
{
    oh_node_spec *n = cur(c);
    if (n->n_in < OH_MAX_INPUTS)
        n->in[n->n_in++] = OH_OMITTED;
}

void oh_outputs(oh_case *c, int n)
{
    cur(c)->n_out = n < 1 ? 1 : n > OH_MAX_OUTPUTS ? OH_MAX_OUTPUTS : n;
}

void oh_skip_output(oh_case *c, int index)
{
    if (index >= 0 && index < OH_MAX_OUTPUTS)
        cur(c)->out_omitted[index] = true;
}

static graph_attr *new_attr(oh_case *c, const char *name, graph_attr_type type)
{
    oh_node_spec *n = cur(c);
    if (n->n_attrs == OH_MAX_ATTRS) {
        CHECK(false, "%s: too many attributes", n->op);
        static graph_attr spare;
        return &spare;
    }
    graph_attr *a = &n->attrs[n->n_attrs++];
    memset(a, 0, sizeof(*a));
    a->name = vkml_arena_strdup(c->arena, name);
    a->type = type;
    return a;
}

void oh_attr_int(oh_case *c, const char *name, int64_t v)
{
    new_attr(c, name, GRAPH_ATTR_INT)->i = v;
}

void oh_attr_ints(oh_case *c, const char *name, int n, const int64_t *v)
{
    graph_attr *a = new_attr(c, name, GRAPH_ATTR_INTS);
    a->ints = vkml_arena_memdup(c->arena, v, sizeof(int64_t) * (size_t)(n ? n : 1));
    a->count = (size_t)n;
}

void oh_attr_float(oh_case *c, const char *name, float v)
{
    new_attr(c, name, GRAPH_ATTR_FLOAT)->f = v;
}

void oh_attr_floats(oh_case *c, const char *name, int n, const float *v)
{
    graph_attr *a = new_attr(c, name, GRAPH_ATTR_FLOATS);
    a->floats = vkml_arena_memdup(c->arena, v, sizeof(float) * (size_t)(n ? n : 1));
    a->count = (size_t)n;
}

void oh_attr_string(oh_case *c, const char *name, const char *s)
{
    graph_attr *a = new_attr(c, name, GRAPH_ATTR_STRING);
    a->s = vkml_arena_strdup(c->arena, s);
    a->s_len = strlen(s);
}

void oh_expect_gpu(oh_case *c, bool expect)
{
    c->expect_gpu = expect;
}

void oh_expect(oh_case *c, int index, const void *data)
{
    if (index >= 0 && index < OH_MAX_OUTPUTS)
        c->expected[index] = (void *)data;
}

void oh_expect_dims(oh_case *c, int index, int rank, const int64_t *dims)
{
    if (index < 0 || index >= OH_MAX_OUTPUTS || rank < 0 || rank > VKML_MAX_RANK)
        return;
    c->expected_rank[index] = rank;
    memcpy(c->expected_dims[index], dims, sizeof(int64_t) * (size_t)rank);
}

void oh_expect_error(oh_case *c, vkml_status status, const char *text)
{
    c->expect_error = true;
    c->error_status = status;
    snprintf(c->error_text, sizeof(c->error_text), "%s", text);
}

void oh_expect_refusal(oh_case *c, const char *reason)
{
    c->refusal = reason;
}

void oh_no_alias(oh_case *c)
{
    c->no_alias = true;
}

void oh_expect_reuse(oh_case *c)
{
    c->reuse = true;
}

void oh_expect_session_error(oh_case *c, void (*edit)(graph *g), const char *text)
{
    c->device_edit = edit;
    c->session_error = text;
}

/* The graph of the case: a value per input spec, the nodes in order, the last node's
 * outputs the graph outputs. */
static graph *build_graph(const oh_case *c)
{
    graph *g = graph_create();
    int spec_value[OH_MAX_INPUTS], previous = -1;
    for (int i = 0; i < c->n_in; i++) {
        const oh_input_spec *s = &c->in[i];
        char name[24]; /* by input slot, so messages name the slot a case expects */
        if (s->node == 0)
            snprintf(name, sizeof(name), "x%d", s->slot);
        else
            snprintf(name, sizeof(name), "x%d_%d", s->node, s->slot);
        int v = spec_value[i] = graph_add_value(g, name);
        graph_value *val = &g->values[v];
        val->kind = s->constant ? GRAPH_VALUE_CONSTANT : GRAPH_VALUE_INPUT;
        val->dtype = s->dtype;
        val->rank = s->rank;
        memcpy(val->dims, s->dims, sizeof(val->dims));
        if (s->constant) {
            val->data = s->data;
            val->data_size = s->bytes;
        }
    }
    for (int k = 0; k < c->n_nodes; k++) {
        const oh_node_spec *ns = &c->nodes[k];
        char name[24];
        snprintf(name, sizeof(name), "n%d", k);
        int node = graph_add_node(g, name, ns->op, "", ns->n_in, ns->n_out, ns->n_attrs);
        graph_node *n = &g->nodes[node];
        n->opset = ns->opset;
        for (int i = 0; i < ns->n_in; i++)
            n->inputs[i] = ns->in[i] == OH_PREVIOUS  ? previous
                           : ns->in[i] == OH_OMITTED ? -1
                                                     : spec_value[ns->in[i]];
        for (int o = 0; o < ns->n_out; o++) {
            if (ns->out_omitted[o])
                continue;
            snprintf(name, sizeof(name), "y%d_%d", k, o);
            int v = graph_add_value(g, name);
            g->nodes[node].outputs[o] = v;
            g->values[v].is_output = k == c->n_nodes - 1;
        }
        previous = g->nodes[node].outputs[0];
        for (int a = 0; a < ns->n_attrs; a++)
            g->nodes[node].attrs[a] = ns->attrs[a];
        if (c->has_epilogue && k == c->n_nodes - 1)
            g->nodes[node].epilogue = &c->epilogue;
    }
    return g;
}

static size_t value_bytes(const graph_value *v)
{
    size_t b = 0;
    vkml_tensor_bytes(v->dtype, v->rank, v->dims, &b);
    return b;
}

/* Compares `got` with the reference `want` (same dtype and shape); true when within bound. */
static bool compare(const char *label, const char *who, const graph_value *v, const void *want,
                    const void *got, double bound)
{
    size_t n = vkml_tensor_element_count(v->rank, v->dims);
    double max_err = 0, max_ref = 1;
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        double w = load(v->dtype, want, i), g = load(v->dtype, got, i);
        if (!is_float(v->dtype)) {
            if (w != g && bad++ == 0)
                fprintf(stderr, "%s: %s: '%s'[%zu] is %.17g, the CPU says %.17g\n", label, who,
                        v->name, i, g, w);
            continue;
        }
        if (isnan(w) || isnan(g) || isinf(w) || isinf(g)) {
            bool same = (isnan(w) && isnan(g)) || w == g;
            if (!same && bad++ == 0)
                fprintf(stderr, "%s: %s: '%s'[%zu] is %g, the CPU says %g\n", label, who, v->name,
                        i, g, w);
            continue;
        }
        double e = fabs(g - w);
        max_err = e > max_err ? e : max_err;
        max_ref = fabs(w) > max_ref ? fabs(w) : max_ref;
    }
    CHECK(bad == 0, "%s: %s: %zu of %zu elements of '%s' differ", label, who, bad, n, v->name);
    double rel = max_err / max_ref;
    CHECK(rel <= bound, "%s: %s: normalised max error %.3g over the bound %.1g", label, who, rel,
          bound);
    return bad == 0 && rel <= bound;
}

static bool check_error(const oh_case *c, const char *label, vkml_status st, const vkml_error *err)
{
    CHECK(st == c->error_status && strstr(err->message, c->error_text),
          "%s: expected %s naming '%s', got %s: %s", label, vkml_status_name(c->error_status),
          c->error_text, vkml_status_name(st), err->message);
    return st == c->error_status && strstr(err->message, c->error_text);
}

/* Device-only intermediates whose lives do not overlap share memory. Seen through the
 * host pointers, so only where device memory is mapped (lavapipe); elsewhere not checked. */
static void check_reuse(const char *label, device *dev, const graph *g, const graph_value *values,
                        const device_value_plan *plans, device_session *ds)
{
    int shared = 0, mapped = 0;
    for (int a = 0; a < g->n_values; a++) {
        void *pa = dev->cls->value_host_ptr(ds, a);
        bool transient_a = values[a].kind == GRAPH_VALUE_INTERMEDIATE && !values[a].is_output &&
                           plans[a].alias_of < 0;
        mapped += pa != NULL;
        for (int b = a + 1; b < g->n_values && transient_a && pa; b++)
            shared += plans[b].alias_of < 0 && values[b].kind == GRAPH_VALUE_INTERMEDIATE &&
                      dev->cls->value_host_ptr(ds, b) == pa;
    }
    if (mapped == g->n_values)
        CHECK(shared > 0, "%s: %s: no two intermediates share memory", label, dev->info.name);
}

/* Whether the device accepts every node; a refusal is checked against the case's
 * expectation (oh_expect_gpu, oh_expect_refusal). *ok: the case's verdict on a refusal. */
static bool device_accepts(const oh_case *c, const char *label, device *dev, const graph *g,
                           const graph_value *values, bool *ok)
{
    char why[512] = "";
    int i = 0;
    while (i < g->n_nodes && dev->cls->supports_node(dev, values, &g->nodes[i], why, sizeof(why)))
        i++;
    if (i == g->n_nodes) {
        CHECK(!c->refusal, "%s: %s accepts the node, expected a refusal naming '%s'", label,
              dev->info.name, c->refusal);
        *ok = !c->refusal;
        return !c->refusal;
    }
    oh.refusals++;
    if (c->refusal) {
        *ok = strstr(why, c->refusal) != NULL;
        CHECK(*ok, "%s: %s refuses the node, not naming '%s': %s", label, dev->info.name,
              c->refusal, why);
    } else if (c->expect_gpu) {
        *ok = false;
        CHECK(false, "%s: %s refuses %s: %s", label, dev->info.name, g->nodes[i].op_type, why);
    } else {
        *ok = true;
        printf("%-48s %s: refused (%s)\n", label, dev->info.name, why);
    }
    return false;
}

/* Runs the graph on one device (one chunk of every node), twice, each output compared with
 * the CPU's (buf). */
static bool run_device(const oh_case *c, const char *label, device *dev, graph *g,
                       graph_value *values, void **buf, double bound)
{
    bool ok = true;
    if (!device_accepts(c, label, dev, g, values, &ok))
        return ok;
    device_value_plan plans[OH_MAX_VALUES];
    int nodes[OH_MAX_NODES];
    for (int v = 0; v < g->n_values; v++) {
        plans[v] = (device_value_plan){.used = true, .alias_of = -1};
        plans[v].host_access = values[v].kind == GRAPH_VALUE_INPUT || values[v].is_output;
        if (values[v].kind == GRAPH_VALUE_CONSTANT)
            plans[v].constant = values[v].data;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node *n = &g->nodes[i];
        nodes[i] = i;
        if ((n->op->flags & OP_ALIAS) && !c->no_alias && n->inputs[0] >= 0 &&
            values[n->inputs[0]].kind != GRAPH_VALUE_CONSTANT)
            plans[n->outputs[0]].alias_of = n->inputs[0];
    }
    device_chunk_desc chunk = {.nodes = nodes, .n_nodes = g->n_nodes};
    device_session_desc desc = {.graph = g,
                                .values = values,
                                .value_plans = plans,
                                .chunks = &chunk,
                                .n_chunks = 1,
                                .fast_math = oh.fast_math};
    device_session *ds = NULL;
    vkml_error err = {0};
    vkml_status st = dev->cls->session_create(dev, &desc, &ds, &err);
    if (c->session_error) {
        ok = st != VKML_OK && ds == NULL && strstr(err.message, c->session_error);
        CHECK(ok, "%s: %s: expected the session to fail naming '%s', got %s: %s", label,
              dev->info.name, c->session_error, vkml_status_name(st), err.message);
        dev->cls->session_destroy(&ds);
        return ok;
    }
    CHECK(st == VKML_OK, "%s: %s: session: %s", label, dev->info.name, err.message);
    if (st != VKML_OK)
        return false;
    if (c->reuse)
        check_reuse(label, dev, g, values, plans, ds);
    for (int v = 0; v < g->n_values; v++)
        if (values[v].kind == GRAPH_VALUE_INPUT)
            memcpy(dev->cls->value_host_ptr(ds, v), buf[v], value_bytes(&values[v]));
    /* Twice: a re-submitted command buffer must give the same answer. */
    for (int run = 0; run < 2 && ok; run++) {
        for (int v = 0; v < g->n_values; v++)
            if (values[v].is_output && plans[v].alias_of < 0)
                memset(dev->cls->value_host_ptr(ds, v), 0xff, value_bytes(&values[v]));
        st = device_run_chunk(dev, ds, 0, &err);
        CHECK(st == VKML_OK, "%s: %s: run: %s", label, dev->info.name, err.message);
        ok = st == VKML_OK;
        for (int v = 0; ok && v < g->n_values; v++)
            if (values[v].is_output)
                ok = compare(label, dev->info.name, &values[v], buf[v],
                             dev->cls->value_host_ptr(ds, v), bound);
    }
    dev->cls->session_destroy(&ds);
    CHECK(ds == NULL, "%s: session_destroy did not clear the pointer", dev->info.name);
    return ok;
}

/* Runs the nodes in order on the CPU kernels, each output into a new buffer (buf[v]);
 * data-dependent outputs take the extent the kernel produced. */
static vkml_status run_cpu(const char *label, graph *g, graph_value *values, void **buf,
                           vkml_error *err)
{
    for (int i = 0; i < g->n_nodes; i++) {
        graph_node *n = &g->nodes[i];
        const void *in[OH_MAX_INPUTS] = {0};
        void *out[OH_MAX_OUTPUTS] = {0};
        int64_t out_dims[OH_MAX_OUTPUTS][VKML_MAX_RANK];
        for (int k = 0; k < n->n_inputs; k++)
            in[k] = n->inputs[k] >= 0 ? buf[n->inputs[k]] : NULL;
        for (int o = 0; o < n->n_outputs; o++) {
            int v = n->outputs[o];
            if (v < 0)
                continue;
            size_t bytes = value_bytes(&values[v]);
            buf[v] = out[o] = malloc(bytes + 1);
            memset(out[o], 0xcd, bytes + 1);
            memcpy(out_dims[o], values[v].dims, sizeof(out_dims[o]));
        }
        op_cpu_args args = {
            .values = values, .node = n, .in = in, .out = out, .out_dims = out_dims};
        vkml_status st = cpu_run_node(&args, err);
        if (st != VKML_OK)
            return st;
        for (int o = 0; o < n->n_outputs; o++) {
            graph_value *v = n->outputs[o] >= 0 ? &values[n->outputs[o]] : NULL;
            if (!v || !v->data_dependent)
                continue;
            for (int d = 0; d < v->rank; d++)
                CHECK(out_dims[o][d] >= 0 && out_dims[o][d] <= v->dims[d],
                      "%s: data-dependent dim %d is %lld, over the bound %lld", label, d,
                      (long long)out_dims[o][d], (long long)v->dims[d]);
            memcpy(v->dims, out_dims[o], sizeof(int64_t) * (size_t)v->rank);
        }
    }
    return VKML_OK;
}

/* The CPU's outputs of the last node against oh_expect_dims and oh_expect. */
static bool check_expected(const oh_case *c, const char *label, const graph_node *n,
                           const graph_value *values, void **buf, double bound)
{
    bool ok = true;
    for (int o = 0; o < n->n_outputs; o++) {
        const graph_value *v = n->outputs[o] >= 0 ? &values[n->outputs[o]] : NULL;
        if (!v || c->expected_rank[o] < 0)
            continue;
        bool same = v->rank == c->expected_rank[o] &&
                    !memcmp(v->dims, c->expected_dims[o], sizeof(int64_t) * (size_t)v->rank);
        char got[160], want[160];
        CHECK(same, "%s: output %d is %s, expected %s", label, o,
              graph_shape_string(v->rank, v->dims, got, sizeof(got)),
              graph_shape_string(c->expected_rank[o], c->expected_dims[o], want, sizeof(want)));
        ok &= same;
    }
    for (int o = 0; ok && o < n->n_outputs; o++)
        if (c->expected[o] && n->outputs[o] >= 0)
            ok &= compare(label, "expected values", &values[n->outputs[o]], c->expected[o],
                          buf[n->outputs[o]], bound);
    return ok;
}

bool oh_run(oh_case *c, const char *label, double bound)
{
    graph *g = build_graph(c);
    graph_value *values = NULL;
    void *buf[OH_MAX_VALUES] = {0}; /* inputs: the specs' data; the rest: the CPU's outputs */
    vkml_error err = {0};
    bool ok = false;
    oh.cases++;
    vkml_status st = VKML_OK;
    for (int i = 0; st == VKML_OK && i < g->n_nodes; i++)
        st = op_bind_node(g->arena, &g->nodes[i], &err);
    if (st == VKML_OK && (st = graph_sort(g, &err)) == VKML_OK) {
        values = graph_values_clone(g);
        st = graph_infer(g, values, 1, &err);
    }
    for (int i = 0; i < c->n_in; i++)
        buf[i] = c->in[i].data; /* build_graph made spec i value i */
    if (st == VKML_OK)
        st = run_cpu(label, g, values, buf, &err);
    if (c->expect_error) {
        ok = check_error(c, label, st, &err);
        if (ok)
            printf("%-48s ok (%s)\n", label, err.message);
        goto done;
    }
    CHECK(st == VKML_OK, "%s: CPU: %s", label, err.message);
    if (st != VKML_OK)
        goto done;
    ok = check_expected(c, label, &g->nodes[g->n_nodes - 1], values, buf, bound);
    if (c->device_edit)
        c->device_edit(g);
    for (int d = 0; d < oh.n_gpus; d++)
        ok &= run_device(c, label, vk_context_device(oh.vk, d), g, values, buf, bound);
    if (ok)
        printf("%-48s ok\n", label);
done:
    for (int v = c->n_in; v < OH_MAX_VALUES; v++)
        free(buf[v]);
    free(values);
    graph_destroy(&g);
    vkml_arena_destroy(&c->arena);
    free(c);
    return ok;
}

void oh_epilogue(oh_case *c, const graph_epilogue *e)
{
    c->has_epilogue = true;
    c->epilogue = *e;
}

void oh_gpu_kernels(oh_kernels k, int gemm_force)
{
    oh_init();
    for (int d = 0; d < oh.n_gpus && d < 8; d++) {
        struct gpu_caps *caps = &((vk_device *)vk_context_device(oh.vk, d))->caps;
        caps->prefer_tiled = k == OH_KERNELS_DEVICE ? oh.prefer_tiled[d] : k != OH_KERNELS_PLAIN;
        caps->gemm_force = gemm_force;
    }
}

void oh_coop(int coop_force, bool fast_math)
{
    oh_init();
    oh.fast_math = fast_math;
    for (int d = 0; d < oh.n_gpus && d < 8; d++)
        ((vk_device *)vk_context_device(oh.vk, d))->caps.coop_force = coop_force;
}

void oh_splitk(int splitk_force)
{
    oh_init();
    for (int d = 0; d < oh.n_gpus && d < 8; d++)
        ((vk_device *)vk_context_device(oh.vk, d))->caps.splitk_force = splitk_force;
}

void oh_splitk_wide(bool wide)
{
    oh_init();
    for (int d = 0; d < oh.n_gpus && d < 8; d++)
        ((vk_device *)vk_context_device(oh.vk, d))->caps.splitk_wide = wide;
}

int oh_gemm_tune_measured(bool forget)
{
    oh_init();
    int n = 0;
    for (int d = 0; d < oh.n_gpus && d < 8; d++) {
        vk_device *vd = (vk_device *)vk_context_device(oh.vk, d);
        n += vk_gemm_tune_measured(vd);
        if (forget)
            vk_gemm_tune_free(vd);
    }
    return n;
}

void oh_cm2(int cm2_force)
{
    oh_init();
    for (int d = 0; d < oh.n_gpus && d < 8; d++)
        ((vk_device *)vk_context_device(oh.vk, d))->caps.cm2_force = cm2_force;
}

int oh_cm2_devices(void)
{
    oh_init();
    int n = 0;
    for (int d = 0; d < oh.n_gpus; d++)
        n += ((vk_device *)vk_context_device(oh.vk, d))->caps.coopmat2;
    return n;
}

int oh_coop_devices(void)
{
    oh_init();
    int n = 0;
    for (int d = 0; d < oh.n_gpus; d++)
        n += ((vk_device *)vk_context_device(oh.vk, d))->caps.cooperative_matrix;
    return n;
}

int oh_finish(void)
{
    printf("%d cases, %d device refusals\n", oh.cases, oh.refusals);
    vk_context_destroy(&oh.vk);
    return test_finish("ops");
}

/* Lines of the files in dir (the cache folder's choice files), -1 when it cannot be read. */
static int cache_lines(const char *dir, const char *append)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int lines = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char path[512];
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (append) {
            FILE *w = fopen(path, "a");
            if (w) {
                fputs(append, w);
                fclose(w);
            }
            continue;
        }
        FILE *f = fopen(path, "r");
        for (int ch; f && (ch = fgetc(f)) != EOF;)
            lines += ch == '\n';
        if (f)
            fclose(f);
    }
    closedir(d);
    return lines;
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[512];
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        remove(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

void oh_tune_check(const char *what, void (*shapes)(void), int n, const char *const *forced,
                   int n_forced)
{
    char dir[] = "/tmp/vkml-tune-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(false, "%s: a temporary folder", what);
        return;
    }
    printf("-- %s: kernel choice by measurement (cache in %s)\n", what, dir);
    setenv("VKML_CACHE_DIR", dir, 1);
    setenv("VKML_GEMM_TUNE", "1", 1);
    oh_gpu_kernels(OH_KERNELS_TILED, 0);
    oh_gemm_tune_measured(true);
    shapes();
    int measured = oh_gemm_tune_measured(false);
    CHECK(measured >= n && measured % n == 0, "%s: %d shapes a device measured, got %d", what, n,
          measured);
    CHECK(cache_lines(dir, NULL) == measured, "%s: a line a choice in the cache, %d of %d", what,
          cache_lines(dir, NULL), measured);
    shapes();
    CHECK(oh_gemm_tune_measured(false) == measured, "%s: the same shapes measured again", what);
    /* a new process's view: the choices from the file, past lines it cannot use */
    cache_lines(dir, "garbage\nproduct 1 0 1 1 5 5 5 1 no-such-kernel\nconv 1 0 1\n"
                     "product 1 0 1 1 5 5 5 1 tiled1 extra\n");
    oh_gemm_tune_measured(true);
    shapes();
    CHECK(oh_gemm_tune_measured(false) == 0, "%s: choices read back from the cache", what);
    for (int i = 0; i < n_forced; i++) {
        printf("-- VKML_GEMM_TUNE=%s\n", forced[i]);
        setenv("VKML_GEMM_TUNE", forced[i], 1);
        oh_gemm_tune_measured(true);
        shapes();
    }
    CHECK(oh_gemm_tune_measured(false) == 0, "%s: nothing measured when one is forced", what);
    unsetenv("VKML_GEMM_TUNE");
    unsetenv("VKML_CACHE_DIR");
    oh_gpu_kernels(OH_KERNELS_DEVICE, 0);
    oh_gemm_tune_measured(true);
    remove_dir(dir);
}
