/* Precision rewrites: the float16 graph of VKML_PRECISION_FP16, and the float32 graph of a
 * float16 model on the CPU device (see passes/precision.h). */
#include "passes/precision.h"
#include "ops/op.h"
#include "passes/fold.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Ops that may run in float16: their kernels compute in float32 and their outputs stay
 * within float16's range for activations of a usual model. Not here on purpose: Exp, Pow,
 * Log, Reciprocal, Softplus, ReduceSum/ReduceSumSquare/ReduceProd/ReduceL1/ReduceL2/
 * ReduceLogSum(Exp), CumSum (values past 65504), and Range (its float inputs are its
 * values' parameters). Resize and Upsample move float16 data, their roi and scales stay
 * float32 (keeps_float32). */
static const char *const fp16_ops[] = {
    "Abs",
    "Add",
    "AveragePool",
    "BatchNormalization",
    "Clip",
    "Concat",
    "Conv",
    "ConvTranspose",
    "Div",
    "Elu",
    "Erf",
    "Expand",
    "Flatten",
    "Gather",
    "Gelu",
    "Gemm",
    "GlobalAveragePool",
    "GlobalMaxPool",
    "HardSigmoid",
    "HardSwish",
    "Identity",
    "LayerNormalization",
    "LeakyRelu",
    "MatMul",
    "Max",
    "MaxPool",
    "Min",
    "Mish",
    "Mul",
    "Neg",
    "Pad",
    "PRelu",
    "ReduceMax",
    "ReduceMean",
    "ReduceMin",
    "Relu",
    "Reshape",
    "Resize",
    "Selu",
    "Sigmoid",
    "Slice",
    "Softmax",
    "Split",
    "Sqrt",
    "Squeeze",
    "Sub",
    "Swish",
    "Tanh",
    "Tile",
    "Transpose",
    "Unsqueeze",
    "Upsample",
    "Where",
};

/* The Cast opset the inserted nodes claim (Cast-13: `to` only). */
#define PRECISION_CAST_OPSET 13

typedef struct rewrite {
    const graph *g;
    graph_value *probe;  /* g's values, types inferred (symbolic dims bound) */
    bool *folded;        /* per node of g: its outputs are constants */
    vkml_dtype from, to; /* narrowing: float32 -> float16; widening: float16 -> float32 */
    bool *moved;         /* per node of g: runs in `to` */
    graph *ng;           /* the rewritten graph; values 0 .. g->n_values-1 are g's */
    int *as_to;          /* per value of g: its `to` form in ng, -1 not made yet */
    int *as_from;        /* per value of g: its `from` form in ng, -1 not made yet */
    int *to_output;      /* per graph output produced in `to`: that value */
    bool *host_io;       /* NULL, or per graph input then output: float16 in ng (the host
                            converts) */
    bool *host_half;     /* per value of g: a graph input or output float16 in ng itself */
} rewrite;

static bool in_fp16_list(const graph_node *n)
{
    if (!n->op || n->op->domain[0])
        return false;
    for (size_t i = 0; i < sizeof(fp16_ops) / sizeof(fp16_ops[0]); i++)
        if (!strcmp(n->op->name, fp16_ops[i]))
            return true;
    return false;
}

/* Whether input k of a float16 node stays float32: Resize's roi and scales (Upsample's
 * scales), whose float16 rounding would move sampling positions and output sizes; ONNX
 * types them apart from X. */
static bool keeps_float32(const graph_node *n, int k)
{
    return k > 0 && n->op && !n->op->domain[0] &&
           (!strcmp(n->op->name, "Resize") || !strcmp(n->op->name, "Upsample"));
}

/* Whether input k of a converted node keeps its type: keeps_float32 when narrowing. */
static bool keeps_from(const rewrite *r, const graph_node *n, int k)
{
    return r->to == VKML_DTYPE_FLOAT16 && keeps_float32(n, k);
}

static bool is_float_type(vkml_dtype t)
{
    return t == VKML_DTYPE_FLOAT || t == VKML_DTYPE_FLOAT16 || t == VKML_DTYPE_DOUBLE ||
           t == VKML_DTYPE_BFLOAT16;
}

/* Whether the node's float tensors are all of type t, and it has at least one. */
static bool all_floats_are(const graph_value *values, const graph_node *n, vkml_dtype t)
{
    bool any = false;
    for (int k = 0; k < n->n_inputs + n->n_outputs; k++) {
        int v = k < n->n_inputs ? n->inputs[k] : n->outputs[k - n->n_inputs];
        if (v < 0)
            continue;
        if (is_float_type(values[v].dtype) && values[v].dtype != t)
            return false;
        any |= values[v].dtype == t;
    }
    return any;
}

/* value's data (of type `from`) as type `to` (float32 <-> float16), in the arena; NULL
 * when out of memory or malformed. A finite float32 past float16's range becomes the
 * largest float16 of its sign, not an infinity: models write "minus infinity" as
 * float32's lowest value (Hugging Face's attention mask, (1 - mask) * lowest), and an
 * infinity there makes 0 * -inf a NaN. */
static void *converted_data(vkml_arena *arena, const graph_value *value, vkml_dtype to)
{
    size_t n = vkml_tensor_element_count(value->rank, value->dims);
    size_t in = vkml_dtype_size(value->dtype), out = vkml_dtype_size(to);
    if (value->rank < 0 || (n == 0 && value->rank > 0) || n > value->data_size / in)
        return NULL;
    void *data = vkml_arena_alloc(arena, n ? n * out : 1);
    if (data && to == VKML_DTYPE_FLOAT16) {
        vkml_halves_from_floats(data, value->data, n);
        uint16_t *h = data;
        for (size_t i = 0; i < n; i++) {
            float f;
            memcpy(&f, (const char *)value->data + i * sizeof(f), sizeof(f));
            if (isfinite(f) && fabsf(f) > 65504.0f)
                h[i] = f > 0 ? 0x7bffu : 0xfbffu; /* +-65504 */
        }
    } else if (data)
        vkml_floats_from_halves(data, value->data, n);
    return data;
}

/* A `to` copy of initializer v (or of a value folded to a constant), in ng; -1 when out of
 * memory. */
static int converted_constant(rewrite *r, int v)
{
    const graph_value *src = &r->probe[v];
    char name[512];
    snprintf(name, sizeof(name), "%s/%s", src->name, r->to == VKML_DTYPE_FLOAT16 ? "fp16" : "fp32");
    void *data = converted_data(r->ng->arena, src, r->to);
    int h = data ? graph_add_value(r->ng, name) : -1;
    if (h < 0)
        return -1;
    graph_value *hv = &r->ng->values[h];
    const char *kept = hv->name;
    *hv = r->g->values[v];
    hv->name = kept;
    hv->dtype = r->to;
    hv->rank = src->rank; /* a folded value's shape is the probe's */
    memcpy(hv->dims, src->dims, sizeof(hv->dims));
    hv->kind = GRAPH_VALUE_CONSTANT;
    hv->producer = -1;
    hv->is_output = false; /* an initializer that is a graph output keeps its own self */
    hv->data = data;
    hv->data_size = vkml_tensor_element_count(src->rank, src->dims) * vkml_dtype_size(r->to);
    return h;
}

/* Appends Cast(from) -> a new value named `name`, to `to`; returns the value or -1. */
static int add_cast(rewrite *r, int from, const char *name, vkml_dtype to, vkml_error *err)
{
    int out = graph_add_value(r->ng, name);
    int k = out < 0 ? -1 : graph_add_node(r->ng, name, "Cast", "", 1, 1, 1);
    if (k < 0)
        return -1;
    graph_node *n = &r->ng->nodes[k];
    n->inputs[0] = from;
    n->outputs[0] = out;
    n->opset = PRECISION_CAST_OPSET;
    n->attrs[0] = (graph_attr){.name = "to", .type = GRAPH_ATTR_INT, .i = to};
    if (op_bind_node(r->ng->arena, n, err) != VKML_OK)
        return -1;
    return out;
}

/* Whether value v of g (of type `from`) is produced in `to` (by a moved node). */
static bool produced_to(const rewrite *r, int v)
{
    int producer = r->probe[v].producer;
    return producer >= 0 && r->moved[producer] && r->probe[v].dtype == r->from;
}

/* Value v of g as a node reads it in ng: as type `to` (want_to) or as its own type (-1:
 * out of memory). */
static int value_as(rewrite *r, int v, bool want_to, vkml_error *err)
{
    const graph_value *pv = &r->probe[v];
    bool made_to = produced_to(r, v) || r->host_half[v];
    if (pv->dtype != r->from || want_to == made_to)
        return made_to && r->to_output[v] >= 0 ? r->to_output[v] : v;
    if (!want_to && r->g->values[v].is_output && !r->host_half[v])
        return v; /* the graph output is the Cast back of the `to` value */
    int *form = want_to ? r->as_to : r->as_from;
    if (form[v] >= 0)
        return form[v];
    vkml_dtype t = want_to ? r->to : r->from;
    char name[512];
    snprintf(name, sizeof(name), "%s/%s", pv->name, t == VKML_DTYPE_FLOAT16 ? "fp16" : "fp32");
    if (want_to && (r->g->values[v].kind == GRAPH_VALUE_CONSTANT || pv->data))
        form[v] = converted_constant(r, v); /* an initializer, or a value folded to one */
    else
        form[v] = add_cast(r, v, name, t, err);
    return form[v];
}

/* The `to` data of a value the probe knows: an initializer's converted copy in ng (made
 * once), or a folded value's (converted for the probe only). NULL: out of memory. */
static const void *probe_converted_data(rewrite *r, int v)
{
    if (r->g->values[v].kind == GRAPH_VALUE_CONSTANT) {
        int h = r->as_to[v] >= 0 ? r->as_to[v] : (r->as_to[v] = converted_constant(r, v));
        return h >= 0 ? r->ng->values[h].data : NULL;
    }
    return converted_data(r->ng->arena, &r->probe[v], r->to);
}

/* Whether node i may run in `to`. Narrowing: an op of the float16 list whose float tensors
 * are all float32. Widening: any op but CastLike (whose output type is its second input's:
 * widened, it would not round) with a float16 tensor and no float types but float16 and
 * float32. */
static bool may_convert(const rewrite *r, const graph_node *n)
{
    if (r->to == VKML_DTYPE_FLOAT16)
        return in_fp16_list(n) && all_floats_are(r->probe, n, VKML_DTYPE_FLOAT);
    bool half = false;
    for (int k = 0; k < n->n_inputs + n->n_outputs; k++) {
        int v = k < n->n_inputs ? n->inputs[k] : n->outputs[k - n->n_inputs];
        vkml_dtype t = v >= 0 ? r->probe[v].dtype : VKML_DTYPE_UNDEFINED;
        if (is_float_type(t) && t != VKML_DTYPE_FLOAT16 && t != VKML_DTYPE_FLOAT)
            return false;
        half |= t == VKML_DTYPE_FLOAT16;
    }
    return half && n->op && n->n_implicit == 0 && strcmp(n->op->name, "CastLike") != 0;
}

/* Whether node i can run in `to`: may_convert, its shape function gives `to` outputs for
 * `to` inputs where they were `from` (same shapes), and the device runs it so (narrowing).
 * Leaves the probe values unchanged. */
static bool runs_converted(rewrite *r, const precision_device *dev, int i)
{
    const graph_node *n = &r->g->nodes[i];
    if (r->folded[i] || !may_convert(r, n))
        return false;
    int count = n->n_inputs + n->n_outputs;
    graph_value saved[count + 1];
    for (int k = 0; k < count; k++) {
        int v = k < n->n_inputs ? n->inputs[k] : n->outputs[k - n->n_inputs];
        if (v >= 0)
            saved[k] = r->probe[v];
    }
    /* `from` inputs become `to`; constant ones with their data converted (an
     * initializer's copy is the one the new graph keeps), as shape functions and support
     * checks may read it (Clip's bounds, Pad's value). */
    bool ok = true;
    for (int k = 0; ok && k < n->n_inputs; k++) {
        graph_value *in = n->inputs[k] >= 0 ? &r->probe[n->inputs[k]] : NULL;
        if (!in || in->dtype != r->from || keeps_from(r, n, k))
            continue;
        if (in->data) {
            const void *data = probe_converted_data(r, n->inputs[k]);
            ok = data != NULL;
            in->data = data;
            in->data_size = in->data_size / vkml_dtype_size(r->from) * vkml_dtype_size(r->to);
        }
        in->dtype = r->to;
    }
    vkml_error err = {0};
    if (ok)
        ok = n->op->infer(r->probe, n, &err) == VKML_OK;
    for (int o = 0; ok && o < n->n_outputs; o++) {
        int v = n->outputs[o];
        if (v < 0)
            continue;
        const graph_value *was = &saved[n->n_inputs + o], *now = &r->probe[v];
        vkml_dtype want = was->dtype == r->from ? r->to : was->dtype;
        ok = now->dtype == want && now->rank == was->rank &&
             !memcmp(now->dims, was->dims,
                     sizeof(int64_t) * (size_t)(was->rank > 0 ? was->rank : 0));
    }
    if (ok && dev)
        ok = dev->runs(dev->ctx, r->probe, n);
    for (int k = 0; k < count; k++) {
        int v = k < n->n_inputs ? n->inputs[k] : n->outputs[k - n->n_inputs];
        if (v >= 0)
            r->probe[v] = saved[k];
    }
    return ok;
}

/* ng starts with a copy of every value of g, at the same indices. */
static vkml_status copy_values(rewrite *r, vkml_error *err)
{
    for (int v = 0; v < r->g->n_values; v++) {
        int k = graph_add_value(r->ng, r->g->values[v].name);
        if (k < 0)
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY,
                             "out of memory for the rewritten graph");
        const char *kept = r->ng->values[k].name;
        r->ng->values[k] = r->g->values[v];
        r->ng->values[k].name = kept;
        r->ng->values[k].producer = -1;
        r->as_to[v] = r->as_from[v] = r->to_output[v] = -1;
    }
    return VKML_OK;
}

/* Node i of g into ng, reading each input in its own precision. */
static vkml_status emit_node(rewrite *r, int i, vkml_error *err)
{
    const graph_node *n = &r->g->nodes[i];
    int k = graph_add_node(r->ng, n->name, n->op_type, n->domain, n->n_inputs, n->n_outputs, 0);
    if (k < 0)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory for the rewritten graph");
    for (int o = 0; o < n->n_outputs; o++) {
        int v = n->outputs[o];
        r->ng->nodes[k].outputs[o] = v >= 0 && r->to_output[v] >= 0 ? r->to_output[v] : v;
    }
    for (int in = 0; in < n->n_inputs; in++) {
        int v = n->inputs[in];
        /* A folded node (Shape of an activation: its outputs are constants) never runs, so
         * it reads v as made: a Cast for it would run every time for nothing. */
        bool want_to =
            r->folded[i] ? v >= 0 && produced_to(r, v) : r->moved[i] && !keeps_from(r, n, in);
        int mapped = v >= 0 ? value_as(r, v, want_to, err) : -1;
        if (v >= 0 && mapped < 0)
            return err && err->status ? err->status
                                      : vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY,
                                                  "out of memory for the rewritten graph");
        r->ng->nodes[k].inputs[in] = mapped; /* nodes may have moved: index again */
    }
    graph_node *nn = &r->ng->nodes[k];
    nn->attrs = n->attrs; /* attributes and params stay the model's (the session holds it) */
    nn->n_attrs = n->n_attrs;
    nn->opset = n->opset;
    nn->op = n->op;
    nn->params = n->params;
    nn->unsupported = n->unsupported;
    nn->epilogue = n->epilogue;
    nn->n_implicit = n->n_implicit; /* the subgraphs' outer values, read by position */
    return VKML_OK;
}

/* A graph output made in `to` gets a `to` value of its own and a Cast back. */
static vkml_status split_converted_outputs(rewrite *r, vkml_error *err)
{
    for (int o = 0; o < r->g->n_outputs; o++) {
        int v = r->g->outputs[o];
        int producer = r->probe[v].producer;
        if (producer < 0 || !r->moved[producer] || r->probe[v].dtype != r->from ||
            r->to_output[v] >= 0 || r->host_half[v])
            continue;
        char name[512];
        snprintf(name, sizeof(name), "%s/%s", r->g->values[v].name,
                 r->to == VKML_DTYPE_FLOAT16 ? "fp16" : "fp32");
        int h = graph_add_value(r->ng, name);
        if (h < 0)
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY,
                             "out of memory for the rewritten graph");
        r->to_output[v] = h;
        int k = graph_add_node(r->ng, name, "Cast", "", 1, 1, 1);
        if (k < 0)
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY,
                             "out of memory for the rewritten graph");
        graph_node *n = &r->ng->nodes[k];
        n->inputs[0] = h;
        n->outputs[0] = v;
        n->opset = PRECISION_CAST_OPSET;
        n->attrs[0] = (graph_attr){.name = "to", .type = GRAPH_ATTR_INT, .i = r->from};
        vkml_status st = op_bind_node(r->ng->arena, n, err);
        if (st != VKML_OK)
            return st;
    }
    return VKML_OK;
}

/* With host_io: the graph inputs that every reader takes in float16 (not graph outputs
 * themselves), and the graph outputs made in float16, stay float16 values in ng: no Cast
 * runs for them, the session converts them as it copies them in and out (half the bytes
 * over the bus; ResNet-50 b8's 4.8 MB input). An input nothing reads is never copied. */
static void mark_host_half(rewrite *r)
{
    const graph *g = r->g;
    if (!r->host_io)
        return;
    for (int i = 0; i < g->n_inputs; i++) {
        int v = g->inputs[i];
        r->host_half[v] = r->probe[v].dtype == VKML_DTYPE_FLOAT && !g->values[v].is_output;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node *n = &g->nodes[i];
        for (int k = 0; k < n->n_inputs; k++) {
            int v = n->inputs[k];
            if (v >= 0 && g->values[v].kind == GRAPH_VALUE_INPUT &&
                (r->folded[i] || !r->moved[i] || keeps_float32(n, k)))
                r->host_half[v] = false; /* read as float32 */
        }
    }
    for (int o = 0; o < g->n_outputs; o++) {
        int v = g->outputs[o];
        int producer = r->probe[v].producer;
        if (producer >= 0 && r->moved[producer] && r->probe[v].dtype == VKML_DTYPE_FLOAT)
            r->host_half[v] = true;
    }
    for (int v = 0; v < g->n_values; v++)
        if (r->host_half[v])
            r->ng->values[v].dtype = VKML_DTYPE_FLOAT16;
    for (int i = 0; i < g->n_inputs + g->n_outputs; i++)
        r->host_io[i] = r->host_half[i < g->n_inputs ? g->inputs[i] : g->outputs[i - g->n_inputs]];
}

/* Whether widening keeps a float16 value float32 between two nodes (one widened node reads
 * another's output): else it adds Casts around single nodes for nothing. */
static bool widening_pays(const rewrite *r)
{
    for (int i = 0; i < r->g->n_nodes; i++) {
        const graph_node *n = &r->g->nodes[i];
        for (int k = 0; r->moved[i] && k < n->n_inputs; k++)
            if (n->inputs[k] >= 0 && produced_to(r, n->inputs[k]))
                return true;
    }
    return false;
}

static vkml_status build(rewrite *r, const precision_device *dev, int *n_moved, vkml_error *err)
{
    const graph *g = r->g;
    vkml_status st = copy_values(r, err);
    int count = 0;
    for (int i = 0; st == VKML_OK && i < g->n_nodes; i++)
        count += (r->moved[i] = runs_converted(r, dev, i));
    if (st == VKML_OK && r->to == VKML_DTYPE_FLOAT && (count == 0 || !widening_pays(r))) {
        *n_moved = 0; /* no graph: the model's is the plan's */
        return st;
    }
    if (st == VKML_OK) {
        mark_host_half(r);
        st = split_converted_outputs(r, err);
    }
    for (int i = 0; st == VKML_OK && i < g->n_nodes; i++)
        st = emit_node(r, i, err);
    if (st != VKML_OK)
        return st;
    graph *ng = r->ng;
    ng->inputs = vkml_arena_calloc(ng->arena, (size_t)g->n_inputs + 1, sizeof(int));
    ng->outputs = vkml_arena_calloc(ng->arena, (size_t)g->n_outputs + 1, sizeof(int));
    if (!ng->inputs || !ng->outputs)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory for the rewritten graph");
    memcpy(ng->inputs, g->inputs, sizeof(int) * (size_t)g->n_inputs);
    memcpy(ng->outputs, g->outputs, sizeof(int) * (size_t)g->n_outputs);
    ng->n_inputs = g->n_inputs;
    ng->n_outputs = g->n_outputs;
    ng->opset = g->opset;
    *n_moved = count;
    return graph_sort(ng, err);
}

/* g rewritten from `from` to `to` (float32 <-> float16): see precision.h. */
static vkml_status rewrite_graph(const graph *g, const precision_device *dev,
                                 const op_host_runner *runner, int64_t symbolic_value,
                                 vkml_dtype from, vkml_dtype to, bool *host_io, graph **out,
                                 int *n_moved, vkml_error *err)
{
    *out = NULL;
    int moved = 0;
    size_t nv = (size_t)g->n_values + 1, nn = (size_t)g->n_nodes + 1;
    rewrite r = {.g = g,
                 .from = from,
                 .to = to,
                 .probe = graph_values_clone(g),
                 .folded = calloc(nn, sizeof(bool)),
                 .moved = calloc(nn, sizeof(bool)),
                 .ng = graph_create(),
                 .as_to = calloc(nv, sizeof(int)),
                 .as_from = calloc(nv, sizeof(int)),
                 .to_output = calloc(nv, sizeof(int)),
                 .host_io = host_io,
                 .host_half = calloc(nv, sizeof(bool))};
    vkml_arena *fold_arena = vkml_arena_create();
    vkml_status st = VKML_OK;
    if (!r.probe || !r.folded || !r.moved || !r.ng || !r.as_to || !r.as_from || !r.to_output ||
        !r.host_half || !fold_arena)
        st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory for the rewritten graph");
    if (st == VKML_OK &&
        (st = fold_infer(g, r.probe, symbolic_value, runner, fold_arena, NULL, err)))
        vkml_error_prefix(err, "precision %s: inferring the model's types",
                          to == VKML_DTYPE_FLOAT16 ? "fp16" : "fp32");
    if (st == VKML_OK) {
        fold_mark_folded(g, r.probe, r.folded);
        st = build(&r, dev, &moved, err);
    }
    if (n_moved)
        *n_moved = moved;
    if (st == VKML_OK && (moved > 0 || to == VKML_DTYPE_FLOAT16))
        *out = r.ng;
    else
        graph_destroy(&r.ng);
    free(r.probe);
    free(r.folded);
    free(r.moved);
    free(r.as_to);
    free(r.as_from);
    free(r.to_output);
    free(r.host_half);
    vkml_arena_destroy(&fold_arena);
    return st;
}

vkml_status precision_fp16_graph(const graph *g, const precision_device *dev,
                                 const op_host_runner *runner, int64_t symbolic_value,
                                 bool *host_io, graph **out, int *n_half, vkml_error *err)
{
    return rewrite_graph(g, dev, runner, symbolic_value, VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16,
                         host_io, out, n_half, err);
}

vkml_status precision_fp32_graph(const graph *g, const op_host_runner *runner,
                                 int64_t symbolic_value, graph **out, int *n_wide, vkml_error *err)
{
    return rewrite_graph(g, NULL, runner, symbolic_value, VKML_DTYPE_FLOAT16, VKML_DTYPE_FLOAT,
                         NULL, out, n_wide, err);
}

static const char *const precision_names[] = {
    [VKML_PRECISION_FP32] = "fp32",
    [VKML_PRECISION_FP32_FAST] = "fp32-fast",
    [VKML_PRECISION_FP16] = "fp16",
    [VKML_PRECISION_FP16_ALWAYS] = "fp16-always",
};

const char *vkml_precision_name(vkml_precision precision)
{
    size_t i = (size_t)precision;
    return i < sizeof(precision_names) / sizeof(precision_names[0]) ? precision_names[i]
                                                                    : "unknown";
}

bool vkml_precision_parse(const char *text, vkml_precision *out)
{
    for (size_t i = 0; text && i < sizeof(precision_names) / sizeof(precision_names[0]); i++)
        if (!strcmp(text, precision_names[i])) {
            *out = (vkml_precision)i;
            return true;
        }
    return false;
}
