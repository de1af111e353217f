/* Load-time epilogue fusion (graph.h, graph_fuse_epilogues): a Conv, Gemm or MatMul takes
 * over the activation and the residual Add after it, so its kernel writes the final value
 * once instead of three kernels reading and writing it; a small 2-D Conv also takes the
 * MaxPool after them (LeNet's and mnist-8's Conv + Relu + MaxPool: one kernel computes the
 * window's conv outputs and writes their max). Activations written as several nodes (SiLU,
 * HardSwish, the erf form of Gelu) are matched as one. */
#include "passes/fuse.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Inputs a producer has of its own, optional ones included (the fused ones come after:
 * a MatMul's bias, then the residual); -1 for other ops. */
static int own_inputs(const graph_node *n)
{
    if (fuse_is_op(n, "Conv") || fuse_is_op(n, "Gemm"))
        return 3;
    return fuse_is_op(n, "MatMul") ? 2 : -1;
}

/* Where a fused bias goes: MatMul only (Conv and Gemm have their own). */
static int bias_slot(const graph_node *n)
{
    return fuse_is_op(n, "MatMul") ? 2 : -1;
}

typedef struct fuse_state {
    graph *g;
    const graph_value *shapes, *shapes2; /* inferred values (shapes2 may be NULL) */
    const int *readers;                  /* per value: how many node inputs read it */
    int *first, *second;                 /* per value: the first two reading nodes, or -1 */
} fuse_state;

static bool removed(const graph_node *n)
{
    return !n->op_type[0];
}

static void remove_node(graph_node *n)
{
    n->op_type = "";
    n->n_inputs = 0;
    n->n_outputs = 0;
}

/* A float constant scalar (one element) of the inferred values, into *out: an initializer,
 * or a value inference computed (a Constant node's output, as the TorchScript exporter
 * writes Clip's bounds: its kind stays that of a node's output, its data is known). */
static bool const_scalar(const fuse_state *s, const graph_node *n, int i, float *out)
{
    if (i >= n->n_inputs || n->inputs[i] < 0)
        return true; /* omitted: the default stays */
    return fuse_scalar_value(&s->shapes[n->inputs[i]], out);
}

/* The activation node n (reading value `in` alone) as an epilogue activation. */
static bool match_act(const fuse_state *s, const graph_node *n, int in, graph_epilogue *e)
{
    if (n->n_inputs < 1 || n->inputs[0] != in || n->n_outputs != 1)
        return false;
    e->alpha = 0;
    e->beta = 0;
    if (fuse_is_op(n, "Relu") && n->n_inputs == 1)
        e->act = ELT_RELU;
    else if (fuse_is_op(n, "Sigmoid") && n->n_inputs == 1)
        e->act = ELT_SIGMOID;
    else if (fuse_is_op(n, "HardSwish") && n->n_inputs == 1)
        e->act = ELT_HARD_SWISH;
    else if (fuse_is_op(n, "LeakyRelu") && n->n_inputs == 1) {
        e->act = ELT_LEAKY_RELU;
        e->alpha = graph_attr_float(n, "alpha", 0.01f);
    } else if (fuse_is_op(n, "HardSigmoid") && n->n_inputs == 1) {
        e->act = ELT_HARD_SIGMOID;
        e->alpha = graph_attr_float(n, "alpha", 0.2f);
        e->beta = graph_attr_float(n, "beta", 0.5f);
    } else if (fuse_is_op(n, "Gelu") && n->n_inputs == 1) {
        const char *approx = graph_attr_string(n, "approximate", "none");
        e->act = strcmp(approx, "tanh") == 0 ? ELT_GELU_TANH : ELT_GELU;
        if (e->act == ELT_GELU && strcmp(approx, "none") != 0)
            return false;
    } else if (fuse_is_op(n, "Clip")) {
        e->act = ELT_CLIP;
        e->alpha = n->opset < 11 ? graph_attr_float(n, "min", -FLT_MAX) : -FLT_MAX;
        e->beta = n->opset < 11 ? graph_attr_float(n, "max", FLT_MAX) : FLT_MAX;
        if (n->opset >= 11 &&
            (!const_scalar(s, n, 1, &e->alpha) || !const_scalar(s, n, 2, &e->beta)))
            return false;
    } else {
        return false;
    }
    return true;
}

/* x * Sigmoid(x) (SiLU) or x * HardSigmoid(x) (HardSwish as opset 13 exports write it) with
 * x = value `in` read by exactly those two nodes: *sig is the gate, *mul the Mul; e gets
 * the activation. */
static bool match_gated(const fuse_state *s, int in, int *sig, int *mul, graph_epilogue *e)
{
    int a = s->first[in], b = s->second[in];
    if (s->readers[in] != 2 || a < 0 || b < 0)
        return false;
    graph_node *na = &s->g->nodes[a], *nb = &s->g->nodes[b];
    if (fuse_is_op(nb, "Sigmoid") || fuse_is_op(nb, "HardSigmoid")) {
        graph_node *t = na;
        na = nb;
        nb = t;
        int ti = a;
        a = b;
        b = ti;
    }
    bool hard = fuse_is_op(na, "HardSigmoid");
    if ((!hard && !fuse_is_op(na, "Sigmoid")) || na->n_inputs != 1 || na->n_outputs != 1 ||
        !fuse_is_op(nb, "Mul") || nb->n_inputs != 2 || nb->n_outputs != 1)
        return false;
    e->act = hard ? ELT_X_HARD_SIGMOID : ELT_SILU;
    e->alpha = hard ? graph_attr_float(na, "alpha", 0.2f) : 1;
    e->beta = hard ? graph_attr_float(na, "beta", 0.5f) : 0;
    int sv = na->outputs[0];
    if (sv < 0 || s->readers[sv] != 1 || s->g->values[sv].is_output)
        return false;
    bool pair = (nb->inputs[0] == in && nb->inputs[1] == sv) ||
                (nb->inputs[1] == in && nb->inputs[0] == sv);
    *sig = a;
    *mul = b;
    return pair;
}

/* The one node that reads value v, when it is op `op` with one output and v is no graph
 * output; else -1. */
static int only_reader(const fuse_state *s, int v, const char *op)
{
    int r = v >= 0 ? s->first[v] : -1;
    if (r < 0 || s->readers[v] != 1 || s->g->values[v].is_output ||
        !fuse_is_op(&s->g->nodes[r], op) || s->g->nodes[r].n_outputs != 1)
        return -1;
    return r;
}

/* Whether binary node n reads value `in` and a float constant scalar equal to `want`
 * (within a float's rounding: exporters write sqrt(2) as its float). */
static bool with_scalar(const fuse_state *s, const graph_node *n, int in, float want)
{
    if (n->n_inputs != 2 || (n->inputs[0] != in && n->inputs[1] != in))
        return false;
    float c;
    int k = n->inputs[0] == in ? 1 : 0;
    return n->inputs[k] >= 0 && n->inputs[k] != in && const_scalar(s, n, k, &c) &&
           fabsf(c - want) <= 1e-6f * want;
}

/* Whether binary node n reads values a and b, in either order. */
static bool reads_pair(const graph_node *n, int a, int b)
{
    return n->n_inputs == 2 &&
           ((n->inputs[0] == a && n->inputs[1] == b) || (n->inputs[0] == b && n->inputs[1] == a));
}

/* x * (Erf(x / sqrt(2)) + 1) * 0.5: Gelu as the TorchScript exporter writes it below opset
 * 20 (BERT's feed-forward), or x * 0.5 * (1 + Erf(x / sqrt(2))) as Hugging Face's Python
 * gelu does; x = value `in` read by exactly the Div and the first Mul. chain[] gets the
 * five nodes in order (Div, Erf, Add, the first Mul, the last). */
static bool match_gelu_erf(const fuse_state *s, int in, int chain[5])
{
    int a = s->first[in], b = s->second[in];
    if (s->readers[in] != 2 || a < 0 || b < 0)
        return false;
    if (!fuse_is_op(&s->g->nodes[a], "Div")) {
        int t = a;
        a = b;
        b = t;
    }
    const graph_node *div = &s->g->nodes[a], *mul = &s->g->nodes[b];
    if (!fuse_is_op(div, "Div") || div->n_outputs != 1 || div->inputs[0] != in ||
        !with_scalar(s, div, in, sqrtf(2.0f)) || !fuse_is_op(mul, "Mul") || mul->n_outputs != 1)
        return false;
    int erf = only_reader(s, div->outputs[0], "Erf");
    if (erf < 0 || s->g->nodes[erf].n_inputs != 1)
        return false;
    int add = only_reader(s, s->g->nodes[erf].outputs[0], "Add");
    if (add < 0 || !with_scalar(s, &s->g->nodes[add], s->g->nodes[erf].outputs[0], 1.0f))
        return false;
    int sum = s->g->nodes[add].outputs[0], last;
    if (with_scalar(s, mul, in, 0.5f)) { /* (x * 0.5) * (1 + Erf) */
        last = only_reader(s, mul->outputs[0], "Mul");
        if (last < 0 || only_reader(s, sum, "Mul") != last ||
            !reads_pair(&s->g->nodes[last], mul->outputs[0], sum))
            return false;
    } else { /* (x * (Erf + 1)) * 0.5 */
        if (only_reader(s, sum, "Mul") != b || !reads_pair(mul, in, sum))
            return false;
        last = only_reader(s, mul->outputs[0], "Mul");
        if (last < 0 || !with_scalar(s, &s->g->nodes[last], mul->outputs[0], 0.5f))
            return false;
    }
    int found[5] = {a, erf, add, b, last};
    memcpy(chain, found, sizeof(found));
    return true;
}

static bool same_shape(const graph_value *a, const graph_value *b)
{
    if (a->dtype != b->dtype || a->rank != b->rank || a->rank < 0)
        return false;
    for (int d = 0; d < a->rank; d++)
        if (a->dims[d] < 0 || a->dims[d] != b->dims[d])
            return false;
    return true;
}

/* Add(in, B) with B a float constant of in's last dim's length ([N] or [1, .., N]): a bias
 * along the last dim (fused into MatMul). B's value, or -1. */
static int match_bias(const fuse_state *s, const graph_node *n, int in)
{
    if (!fuse_is_op(n, "Add") || n->n_inputs != 2 || n->n_outputs != 1 || n->n_attrs > 0)
        return -1;
    int other = n->inputs[0] == in ? n->inputs[1] : n->inputs[1] == in ? n->inputs[0] : -1;
    if (other < 0 || other == in)
        return -1;
    const graph_value *b = &s->shapes[other], *y = &s->shapes[in];
    if (b->kind != GRAPH_VALUE_CONSTANT || b->dtype != y->dtype || b->rank < 1 ||
        b->rank > y->rank || y->rank < 1 || b->dims[b->rank - 1] != y->dims[y->rank - 1] ||
        vkml_tensor_element_count(b->rank, b->dims) != (size_t)y->dims[y->rank - 1])
        return -1;
    return other;
}

/* Add(in, B) after a Conv without a bias of its own, with B a float32 constant of one
 * value per output channel ([C, 1, 1], [1, C, 1, 1]) or one value: B becomes the Conv's
 * bias (exact: the kernels add the bias after the sum, as the Add did). B's value, or -1. */
static int match_channel_bias(const fuse_state *s, const graph_node *conv, const graph_node *n,
                              int in)
{
    if (!fuse_is_op(conv, "Conv") || conv->n_inputs < 2 ||
        (conv->n_inputs > 2 && conv->inputs[2] >= 0) || !fuse_is_op(n, "Add") || n->n_inputs != 2 ||
        n->n_outputs != 1 || n->n_attrs > 0)
        return -1;
    int other = n->inputs[0] == in ? n->inputs[1] : n->inputs[1] == in ? n->inputs[0] : -1;
    if (other < 0 || other == in)
        return -1;
    const graph_value *b = &s->shapes[other], *y = &s->shapes[in];
    if (b->kind != GRAPH_VALUE_CONSTANT || !b->data || b->dtype != VKML_DTYPE_FLOAT ||
        y->dtype != VKML_DTYPE_FLOAT || y->rank < 3 || b->rank > y->rank || y->dims[1] <= 0)
        return -1;
    size_t count = vkml_tensor_element_count(b->rank, b->dims);
    if ((count != 1 && count != (size_t)y->dims[1]) || b->data_size < count * sizeof(float))
        return -1;
    for (int j = 0; j < b->rank; j++) {
        int axis = y->rank - b->rank + j;
        if (b->dims[j] != 1 && (axis != 1 || b->dims[j] != y->dims[1]))
            return -1;
    }
    return other;
}

/* The Conv bias [C] of Add constant b (one value per channel, or one for all): its value,
 * or -1 on out of memory. */
static int conv_bias_constant(graph *g, int b, int64_t channels)
{
    const graph_value *v = &g->values[b];
    const float *src = v->data; /* read before adding a value: the array may move */
    bool one = vkml_tensor_element_count(v->rank, v->dims) == 1;
    float *data;
    int c = fuse_new_constant(g, v->name, "_conv_bias", 1, &channels, &data);
    for (int64_t k = 0; c >= 0 && k < channels; k++)
        data[k] = src[one ? 0 : k];
    return c;
}

/* Add(in, R) with R of in's shape (in both inferences): R's value, or -1. */
static int match_residual(const fuse_state *s, const graph_node *n, int in)
{
    if (!fuse_is_op(n, "Add") || n->n_inputs != 2 || n->n_outputs != 1 || n->n_attrs > 0)
        return -1;
    int other = n->inputs[0] == in ? n->inputs[1] : n->inputs[1] == in ? n->inputs[0] : -1;
    if (other < 0 || other == in || !same_shape(&s->shapes[other], &s->shapes[in]) ||
        (s->shapes2 && !same_shape(&s->shapes2[other], &s->shapes2[in])))
        return -1;
    return other;
}

/* Conv outputs (elements, in both inferences) up to which a MaxPool fuses into the Conv:
 * small convs, which the direct kernel's POOL form runs well (lib/vulkan/ops_conv.c); a
 * large one keeps its product kernels and the pool its own. */
#define POOL_FUSE_MAX_ELEMENTS 65536
/* and whose weights give each output at most this many products (C / group x kernel) */
#define POOL_FUSE_MAX_K 1024
/* Taps of a pool window that fuses at most (the direct kernel computes a pooled output's
 * taps side by side, in a workgroup). */
#define POOL_FUSE_MAX_TAPS 16

static bool small_conv_output(const graph_value *v)
{
    if (!v || v->rank != 4)
        return false;
    for (int d = 0; d < v->rank; d++)
        if (v->dims[d] <= 0)
            return false;
    return vkml_tensor_element_count(v->rank, v->dims) <= POOL_FUSE_MAX_ELEMENTS;
}

/* MaxPool n (reading value `in` alone) after a small 2-D Conv p (POOL_FUSE_MAX_ELEMENTS
 * outputs, POOL_FUSE_MAX_K products each) without a residual: one output (no Indices),
 * dilations 1, at most POOL_FUSE_MAX_TAPS taps. */
static bool match_pool(const fuse_state *s, const graph_node *p, const graph_node *n, int in)
{
    if (!fuse_is_op(p, "Conv") || !fuse_is_op(n, "MaxPool") || !n->params || n->n_inputs != 1 ||
        n->inputs[0] != in || (n->n_outputs > 1 && n->outputs[1] >= 0) ||
        !small_conv_output(&s->shapes[in]) || (s->shapes2 && !small_conv_output(&s->shapes2[in])) ||
        p->n_inputs < 2 || p->inputs[1] < 0)
        return false;
    const graph_value *w = &s->shapes[p->inputs[1]];
    if (w->rank != 4 || w->dims[1] < 1 || w->dims[2] < 1 || w->dims[3] < 1 ||
        w->dims[1] * w->dims[2] * w->dims[3] > POOL_FUSE_MAX_K)
        return false;
    size_t k = 0, d = 0;
    const int64_t *dil = graph_attr_ints(n, "dilations", &d);
    const int64_t *kernel = graph_attr_ints(n, "kernel_shape", &k);
    if (!kernel || k != 2 || kernel[0] < 1 || kernel[1] < 1 ||
        kernel[0] * kernel[1] > POOL_FUSE_MAX_TAPS)
        return false;
    for (size_t i = 0; dil && i < d; i++)
        if (dil[i] != 1)
            return false;
    return true;
}

/* Whether node n, reading `in` (the output of MatMul or Gemm p), is a LayerNormalization
 * over in's last dim alone with a scale (and maybe a bias) of that dim's length and in's
 * dtype, no other output, stash_type 1: its epsilon into *eps. */
static bool match_norm(const fuse_state *s, const graph_node *p, const graph_node *n, int in,
                       float *eps)
{
    if ((!fuse_is_op(p, "MatMul") && !fuse_is_op(p, "Gemm")) ||
        !fuse_is_op(n, "LayerNormalization") || n->n_inputs < 2 || n->n_inputs > 3 ||
        n->inputs[0] != in || n->inputs[1] < 0 || n->n_outputs < 1 || n->outputs[0] < 0)
        return false;
    for (int o = 1; o < n->n_outputs; o++)
        if (n->outputs[o] >= 0)
            return false;
    for (int k = 0; k < 2; k++) {
        const graph_value *x = k ? (s->shapes2 ? &s->shapes2[in] : NULL) : &s->shapes[in];
        if (!x)
            continue;
        int64_t axis = graph_attr_int(n, "axis", -1);
        if (x->rank < 1 || (axis != -1 && axis != x->rank - 1) || x->dims[x->rank - 1] < 1)
            return false;
        for (int i = 1; i < n->n_inputs; i++) {
            const graph_value *v = n->inputs[i] >= 0 ? &s->shapes[n->inputs[i]] : NULL;
            if (v && (v->dtype != x->dtype || v->rank != 1 || v->dims[0] != x->dims[x->rank - 1]))
                return false;
        }
    }
    if (graph_attr_int(n, "stash_type", 1) != 1)
        return false;
    *eps = graph_attr_float(n, "epsilon", 1e-5f);
    return true;
}

/* Whether values a and b (in both shape passes) end in the same dim. */
static bool same_last_dim(const fuse_state *s, int a, int b)
{
    for (int k = 0; k < 2; k++) {
        const graph_value *sh = k ? s->shapes2 : s->shapes;
        if (!sh)
            continue;
        if (sh[a].rank < 1 || sh[b].rank < 1 ||
            sh[a].dims[sh[a].rank - 1] != sh[b].dims[sh[b].rank - 1])
            return false;
    }
    return true;
}

/* Appends "+op" (or op to an empty buf), cut at size. */
static void append_absorbed(char *buf, size_t size, const char *op)
{
    size_t len = strlen(buf);
    if (len && len + 1 < size)
        buf[len++] = '+';
    for (; *op && len + 1 < size; op++)
        buf[len++] = *op;
    buf[len] = '\0';
}

/* One absorption step after value `out` of producer p: the node that reads it becomes
 * part of e. Returns the new output value, or -1 when nothing matched. */
static int absorb_next(fuse_state *s, int p, int out, graph_epilogue *e, int *bias, int *residual,
                       char *absorbed, size_t size)
{
    graph *g = s->g;
    if (g->values[out].is_output || e->pool || e->norm)
        return -1; /* nothing after a pool or a normalization */
    int sig, mul;
    graph_epilogue gated = *e;
    if (e->act == ELT_IDENTITY && match_gated(s, out, &sig, &mul, &gated)) {
        *e = gated;
        append_absorbed(absorbed, size, g->nodes[sig].op_type);
        append_absorbed(absorbed, size, "Mul");
        int y = g->nodes[mul].outputs[0];
        remove_node(&g->nodes[sig]);
        remove_node(&g->nodes[mul]);
        return y;
    }
    int chain[5];
    if (e->act == ELT_IDENTITY && match_gelu_erf(s, out, chain)) {
        e->act = ELT_GELU;
        e->alpha = 0;
        e->beta = 0;
        for (int k = 0; k < 5; k++)
            append_absorbed(absorbed, size, g->nodes[chain[k]].op_type);
        int y = g->nodes[chain[4]].outputs[0];
        for (int k = 0; k < 5; k++)
            remove_node(&g->nodes[chain[k]]);
        return y;
    }
    int r = s->first[out];
    if (s->readers[out] != 1 || r < 0 || removed(&g->nodes[r]))
        return -1;
    graph_node *n = &g->nodes[r];
    graph_epilogue act = *e;
    int other;
    bool first_step = !absorbed[0];
    const graph_node *prod = &g->nodes[p];
    /* A bias runs along B's columns: B must be a matrix (a 1-D B drops that dim). */
    bool matrix_b =
        prod->n_inputs > 1 && prod->inputs[1] >= 0 && s->shapes[prod->inputs[1]].rank >= 2;
    if (first_step && bias_slot(prod) >= 0 && matrix_b && (other = match_bias(s, n, out)) >= 0) {
        *bias = other; /* before anything else: the product's own bias */
    } else if (first_step && (other = match_channel_bias(s, prod, n, out)) >= 0) {
        *bias = other; /* the Conv's own bias, made from the Add's constant by attach */
    } else if (e->act == ELT_IDENTITY && match_act(s, n, out, &act)) {
        *e = act;
    } else if (*residual < 0 && (other = match_residual(s, n, out)) >= 0) {
        *residual = other;
        e->residual_first = e->act == ELT_IDENTITY;
    } else if (*residual < 0 && match_pool(s, prod, n, out)) {
        e->pool = n->params;
        e->pool_opset = n->opset;
    } else {
        return -1;
    }
    append_absorbed(absorbed, size, n->op_type);
    int y = n->outputs[0];
    remove_node(n);
    return y;
}

/* Gives producer p the epilogue e, b >= 0 the bias input b (a Conv: the per-channel Add
 * constant that becomes its bias, of `channels` values) and r >= 0 the residual input r;
 * output y. */
static bool attach(graph *g, int p, const graph_epilogue *e, int b, int64_t channels, int r,
                   const int norm_in[2], int y, const char *absorbed)
{
    bool conv_bias = b >= 0 && fuse_is_op(&g->nodes[p], "Conv");
    if (conv_bias && (b = conv_bias_constant(g, b, channels)) < 0)
        return false;
    graph_node *n = &g->nodes[p];
    graph_epilogue *ep = vkml_arena_calloc(g->arena, 1, sizeof(*ep));
    if (!ep || !(ep->absorbed = vkml_arena_strdup(g->arena, absorbed)))
        return false;
    *ep = (graph_epilogue){.act = e->act,
                           .alpha = e->alpha,
                           .beta = e->beta,
                           .bias = -1,
                           .residual = -1,
                           .residual_first = e->residual_first,
                           .absorbed = ep->absorbed,
                           .pool = e->pool,
                           .pool_opset = e->pool_opset,
                           .scaled = e->scaled,
                           .scale = e->scale,
                           .view_rank = {e->view_rank[0], e->view_rank[1]},
                           .norm = e->norm,
                           .norm_epsilon = e->norm_epsilon,
                           .norm_scale = -1,
                           .norm_bias = -1};
    memcpy(ep->view, e->view, sizeof(ep->view));
    int ns = e->norm ? norm_in[0] : -1, nb = e->norm ? norm_in[1] : -1;
    int own = own_inputs(n),
        total = own + (b >= 0 && !conv_bias) + (r >= 0) + (ns >= 0) + (nb >= 0);
    if (b >= 0 || r >= 0 || ns >= 0) {
        int *inputs = vkml_arena_calloc(g->arena, (size_t)total, sizeof(int));
        if (!inputs)
            return false;
        for (int i = 0; i < own; i++)
            inputs[i] = i < n->n_inputs ? n->inputs[i] : -1;
        if (conv_bias)
            inputs[2] = b;
        else if (b >= 0)
            inputs[ep->bias = own] = b;
        int at = own + (b >= 0 && !conv_bias);
        if (r >= 0)
            inputs[ep->residual = at++] = r;
        if (ns >= 0)
            inputs[ep->norm_scale = at++] = ns;
        if (nb >= 0)
            inputs[ep->norm_bias = at++] = nb;
        n->inputs = inputs;
        n->n_inputs = total;
    }
    n->outputs[0] = y;
    n->epilogue = ep;
    return true;
}

/* The Muls of MatMul p's inputs by float constant scalars, and their Divs by one (each
 * read by p alone, keeping the input's shape): p reads their other input instead and takes
 * their product as its scale (attention's query and key scales: PyTorch 2's
 * scaled_dot_product_attention export multiplies, PyTorch 1's divides the query).
 * Returns how many were absorbed. */
static int absorb_scales(fuse_state *s, int p, float *scale, char *absorbed, size_t size)
{
    graph *g = s->g;
    graph_node *n = &g->nodes[p];
    int count = 0;
    for (int k = 0; k < 2 && k < n->n_inputs; k++) {
        int v = n->inputs[k], q = v >= 0 ? g->values[v].producer : -1;
        if (q < 0 || removed(&g->nodes[q]) || s->readers[v] != 1 || g->values[v].is_output)
            continue;
        graph_node *mul = &g->nodes[q];
        bool div = fuse_is_op(mul, "Div");
        if ((!div && !fuse_is_op(mul, "Mul")) || mul->n_inputs != 2 || mul->n_outputs != 1 ||
            mul->inputs[0] < 0 || mul->inputs[1] < 0)
            continue;
        float c;
        int j = const_scalar(s, mul, 1, &c) ? 1 : !div && const_scalar(s, mul, 0, &c) ? 0 : -1;
        if (div && (j != 1 || c == 0.0f || !isfinite(1.0f / c)))
            continue;
        if (div) /* x / c as x * (1 / c): within an ulp of it */
            c = 1.0f / c;
        int x = j >= 0 ? mul->inputs[1 - j] : -1;
        if (x < 0 || s->shapes[x].dtype != VKML_DTYPE_FLOAT ||
            !same_shape(&s->shapes[x], &s->shapes[v]) ||
            (s->shapes2 && !same_shape(&s->shapes2[x], &s->shapes2[v])))
            continue;
        *scale *= c;
        n->inputs[k] = x;
        if (s->first[x] == q) /* x's reader is p now */
            s->first[x] = p;
        if (s->second[x] == q)
            s->second[x] = p;
        remove_node(mul);
        append_absorbed(absorbed, size, div ? "Div" : "Mul");
        count++;
    }
    return count;
}

/* Whether node t (reading in, writing out: inferred values) only adds or drops dims of size
 * 1 (Reshape, Squeeze, Unsqueeze, Flatten, Identity): then corr[d] is the dim of `in` that
 * out's dim d is, or -1 for a dim of size 1. */
static bool reshapes_ones(const graph_node *t, const graph_value *in, const graph_value *out,
                          int *corr)
{
    if (!fuse_is_op(t, "Reshape") && !fuse_is_op(t, "Squeeze") && !fuse_is_op(t, "Unsqueeze") &&
        !fuse_is_op(t, "Flatten") && !fuse_is_op(t, "Identity"))
        return false;
    int i = 0;
    for (int d = 0; d < out->rank; d++) {
        corr[d] = -1;
        if (out->dims[d] == 1)
            continue;
        while (i < in->rank && in->dims[i] == 1)
            i++;
        if (i == in->rank || in->dims[i] != out->dims[d] || out->dims[d] < 0)
            return false;
        corr[d] = i++;
    }
    while (i < in->rank && in->dims[i] == 1)
        i++;
    return i == in->rank;
}

/* One node t (in -> out) of a view's chain: out's dim d is in's dim corr[d] (-1: a dim of
 * size 1 out adds) for a Transpose or a reshape of dims of size 1; false for any other.
 * *moves: a Transpose that reorders dims of more than one element (one that moves only
 * dims of size 1 is a free view already, plan/views.h). */
static bool view_step(const graph_node *t, const graph_value *in, const graph_value *out, int *corr,
                      bool *moves)
{
    *moves = false;
    if (!fuse_is_op(t, "Transpose"))
        return reshapes_ones(t, in, out, corr);
    size_t np = 0;
    const int64_t *perm = graph_attr_ints(t, "perm", &np);
    if (out->rank != in->rank || (perm && np != (size_t)out->rank))
        return false;
    int last = -1;
    for (int d = 0; d < out->rank; d++) { /* no perm: the dims reversed */
        corr[d] = perm ? (int)perm[d] : out->rank - 1 - d;
        if (corr[d] < 0 || corr[d] >= in->rank)
            return false;
        if (in->dims[corr[d]] != 1) {
            *moves |= corr[d] < last;
            last = corr[d];
        }
    }
    return true;
}

/* The Transposes, and the reshapes adding or dropping dims of size 1 between them, that make
 * input k of MatMul p, each read by the next alone: p reads the first one's input instead,
 * through the composed permutation (graph_epilogue.view: *rank, view). Only for shapes
 * without symbolic dims (one inference). Returns the nodes absorbed (their op names put
 * before `absorbed`), 0 when no Transpose among them reorders dims of more than one
 * element (a batch-first transpose at batch 1 is a view already, and read through one a
 * [128,1,768] x [768,2304] projection would lose its batch folded into rows). */
static int absorb_view(fuse_state *s, int p, int k, int *rank, int8_t *view, char *absorbed,
                       size_t size)
{
    graph *g = s->g;
    int v = g->nodes[p].inputs[k], r = v >= 0 ? s->shapes[v].rank : 0;
    if (s->shapes2 || r < 2 || r > VKML_MAX_RANK)
        return 0;
    enum { MAX_CHAIN = 2 * VKML_MAX_RANK };
    /* maps[i][j]: the dim of step i's input that the product's dim j is */
    int maps[MAX_CHAIN][VKML_MAX_RANK], map[VKML_MAX_RANK], passed[MAX_CHAIN];
    int n_passed = 0, through = 0, cur = v;
    for (int j = 0; j < r; j++)
        map[j] = j;
    while (n_passed < MAX_CHAIN) {
        int q = g->values[cur].producer, corr[VKML_MAX_RANK];
        if (q < 0 || removed(&g->nodes[q]) || s->readers[cur] != 1 || g->values[cur].is_output)
            break;
        const graph_node *t = &g->nodes[q];
        bool moves;
        if (t->n_inputs < 1 || t->inputs[0] < 0 || t->n_outputs != 1 ||
            !view_step(t, &s->shapes[t->inputs[0]], &s->shapes[cur], corr, &moves))
            break;
        for (int j = 0; j < r; j++)
            map[j] = map[j] < 0 ? -1 : corr[map[j]];
        memcpy(maps[n_passed], map, sizeof(map));
        passed[n_passed++] = q;
        if (moves)
            through = n_passed; /* up to the last real Transpose: what is before it stays */
        cur = t->inputs[0];
    }
    /* a constant's Transposes fold at session creation: nothing to save */
    if (!through || s->shapes[g->nodes[passed[through - 1]].inputs[0]].data)
        return 0;
    char names[160] = "";
    for (int i = through - 1; i >= 0; i--) {
        append_absorbed(names, sizeof(names), g->nodes[passed[i]].op_type);
        remove_node(&g->nodes[passed[i]]);
    }
    if (absorbed[0])
        append_absorbed(names, sizeof(names), absorbed);
    snprintf(absorbed, size, "%s", names);
    int last = passed[through - 1], src = g->nodes[last].inputs[0];
    g->nodes[p].inputs[k] = src;
    if (s->first[src] == last) /* src's reader is p now */
        s->first[src] = p;
    if (s->second[src] == last)
        s->second[src] = p;
    *rank = r;
    for (int j = 0; j < r; j++)
        view[j] = (int8_t)maps[through - 1][j];
    return through;
}

/* MatMul p's operands, after every epilogue is fused (a Mul that ends one, as the erf
 * Gelu's, belongs to it): the scales of its inputs (absorb_scales), then the Transposes
 * that make them (absorb_view), into p's epilogue or a new one. Returns the nodes absorbed,
 * -1 on out of memory. */
static int fuse_operands(fuse_state *s, int p)
{
    graph *g = s->g;
    graph_node *n = &g->nodes[p];
    if (!fuse_is_op(n, "MatMul") || n->n_inputs < 2)
        return 0;
    graph_epilogue e = n->epilogue
                           ? *n->epilogue
                           : (graph_epilogue){.act = ELT_IDENTITY, .bias = -1, .residual = -1};
    float scale = 1;
    char names[160] = "";
    int count = absorb_scales(s, p, &scale, names, sizeof(names));
    if (count) {
        e.scaled = true;
        e.scale = scale;
    }
    if (n->epilogue)
        append_absorbed(names, sizeof(names), n->epilogue->absorbed);
    for (int k = 1; k >= 0; k--) /* B first: each puts its names in front, A's end first */
        count += absorb_view(s, p, k, &e.view_rank[k], e.view[k], names, sizeof(names));
    if (!count)
        return 0;
    if (!n->epilogue)
        return attach(g, p, &e, -1, 0, -1, NULL, n->outputs[0], names) ? count : -1;
    graph_epilogue *copy = vkml_arena_calloc(g->arena, 1, sizeof(*copy));
    if (!copy)
        return -1;
    *copy = e;
    if (!(copy->absorbed = vkml_arena_strdup(g->arena, names)))
        return -1;
    n->epilogue = copy;
    return count;
}

/* After MatMul or Gemm p's output `out`, views that keep its memory as it is (each read by
 * the next alone: reshapes of dims of size 1, Transposes moving only such dims) and then
 * Add(view, R) of at most 3 dims: R, of the same elements in the same order, becomes p's
 * residual (*residual), the chain's last view writes the Add's output, and the Add goes.
 * PyTorch's attention leaves its output projection so before the residual Add (a
 * batch-first Transpose at batch 1). Returns whether it matched. */
static bool residual_through_views(fuse_state *s, int p, int out, int *residual, int *last)
{
    graph *g = s->g;
    if (!fuse_is_op(&g->nodes[p], "MatMul") && !fuse_is_op(&g->nodes[p], "Gemm"))
        return false;
    int cur = out, last_view = -1;
    for (int steps = 0; steps < 2 * VKML_MAX_RANK; steps++) {
        int r = s->first[cur];
        if (g->values[cur].is_output || s->readers[cur] != 1 || r < 0 || removed(&g->nodes[r]))
            return false;
        graph_node *n = &g->nodes[r];
        int other = match_residual(s, n, cur);
        if (other >= 0) {
            if (last_view < 0 || s->shapes[cur].rank > 3 || s->shapes[out].rank > 3)
                return false;
            *residual = other;
            *last = last_view;
            g->nodes[last_view].outputs[0] = n->outputs[0];
            remove_node(n);
            return true;
        }
        int corr[VKML_MAX_RANK], y = n->n_outputs == 1 ? n->outputs[0] : -1;
        bool moves = false, moves2 = false;
        if (y < 0 || n->n_inputs < 1 || n->inputs[0] != cur ||
            !view_step(n, &s->shapes[cur], &s->shapes[y], corr, &moves) || moves ||
            (s->shapes2 &&
             (!view_step(n, &s->shapes2[cur], &s->shapes2[y], corr, &moves2) || moves2)))
            return false;
        last_view = r;
        cur = y;
    }
    return false;
}

/* Fuses what follows producer p; returns the nodes absorbed (0 or more), -1 on out of
 * memory. */
static int fuse_producer(fuse_state *s, int p)
{
    graph_node *n = &s->g->nodes[p];
    if (own_inputs(n) < 0 || n->epilogue || !n->op || n->n_outputs != 1 || n->outputs[0] < 0 ||
        n->n_inputs > own_inputs(n))
        return 0;
    int out = n->outputs[0];
    vkml_dtype dt = s->shapes[out].dtype;
    if (dt != VKML_DTYPE_FLOAT && dt != VKML_DTYPE_FLOAT16)
        return 0;
    graph_epilogue e = {.act = ELT_IDENTITY, .bias = -1, .residual = -1};
    int bias = -1, residual = -1, steps = 0, next, last_view = -1;
    char names[96] = "";
    /* At most a bias, then an activation and an Add in either order, then a MaxPool. */
    while (steps < 4 &&
           (next = absorb_next(s, p, out, &e, &bias, &residual, names, sizeof(names))) >= 0) {
        out = next;
        steps++;
    }
    if (residual < 0 && !e.pool && residual_through_views(s, p, out, &residual, &last_view)) {
        e.residual_first = e.act == ELT_IDENTITY;
        append_absorbed(names, sizeof(names), "Add");
        steps++;
    }
    /* then a LayerNormalization over the last dim (an encoder's, after its residual), on
     * the product's output or on the views after it that now write the Add's output,
     * where their last dim is the product's (its rows the same memory) */
    int norm_in[2] = {-1, -1};
    int tail = last_view >= 0 ? s->g->nodes[last_view].outputs[0] : out, r = s->first[tail];
    if (!e.pool && !s->g->values[tail].is_output && s->readers[tail] == 1 && r >= 0 &&
        !removed(&s->g->nodes[r]) && same_last_dim(s, out, tail) &&
        match_norm(s, &s->g->nodes[p], &s->g->nodes[r], tail, &e.norm_epsilon)) {
        graph_node *ln = &s->g->nodes[r];
        e.norm = true;
        norm_in[0] = ln->inputs[1];
        norm_in[1] = ln->n_inputs > 2 ? ln->inputs[2] : -1;
        append_absorbed(names, sizeof(names), "LayerNormalization");
        if (last_view >= 0)
            s->g->nodes[last_view].outputs[0] = ln->outputs[0];
        else
            out = ln->outputs[0];
        remove_node(ln);
        steps++;
    }
    if (!steps)
        return 0;
    /* every absorbed node named one op in names (x * Sigmoid(x) two, the erf Gelu five) */
    int nodes = 1;
    for (const char *c = names; *c; c++)
        nodes += *c == '+';
    int64_t channels = bias >= 0 ? s->shapes[n->outputs[0]].dims[1] : 0; /* a Conv's bias */
    return attach(s->g, p, &e, bias, channels, residual, norm_in, out, names) ? nodes : -1;
}

bool graph_epilogue_candidates(const graph *g)
{
    static const char *readers[] = {"Relu",      "Clip", "Sigmoid", "HardSigmoid", "HardSwish",
                                    "LeakyRelu", "Gelu", "Add",     "MaxPool"};
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node *n = &g->nodes[i];
        for (int k = 0; k < n->n_inputs; k++) {
            int v = n->inputs[k], p = v >= 0 ? g->values[v].producer : -1;
            if (p >= 0 && fuse_is_op(n, "MatMul") &&
                (fuse_is_op(&g->nodes[p], "Mul") || fuse_is_op(&g->nodes[p], "Div") ||
                 fuse_is_op(&g->nodes[p], "Transpose") || fuse_is_op(&g->nodes[p], "Reshape")))
                return true; /* a scale or a view (absorb_scales, absorb_view) */
            if (p < 0 || own_inputs(&g->nodes[p]) < 0)
                continue;
            for (size_t r = 0; r < VKML_ARRAY_SIZE(readers); r++)
                if (fuse_is_op(n, readers[r]))
                    return true;
        }
    }
    return false;
}

bool graph_fusion_disabled(void)
{
    return vkml_env_flag("VKML_NO_FUSE");
}

/* The first two readers of every value. */
static void find_readers(const graph *g, int *first, int *second)
{
    for (int v = 0; v < g->n_values; v++)
        first[v] = second[v] = -1;
    for (int i = 0; i < g->n_nodes; i++)
        for (int k = 0; k < g->nodes[i].n_inputs; k++) {
            int v = g->nodes[i].inputs[k];
            if (v < 0 || first[v] == i || second[v] == i)
                continue;
            if (first[v] < 0)
                first[v] = i;
            else if (second[v] < 0)
                second[v] = i;
        }
}

/* Shape nodes whose result is known (one static binding: no symbolic dims) become that
 * constant, so that a Shape does not keep alive a value fusion would absorb: PyTorch 2's
 * attention export reads the scaled query's shape for its scale, which kept the query's
 * head transpose a copy. Returns the nodes folded, -1 on out of memory. */
static int fold_static_shapes(fuse_state *s)
{
    graph *g = s->g;
    int folded = 0;
    for (int i = 0; s->shapes2 == NULL && i < g->n_nodes; i++) {
        graph_node *n = &g->nodes[i];
        if (removed(n) || !fuse_is_op(n, "Shape") || n->n_inputs < 1 || n->inputs[0] < 0 ||
            n->n_outputs != 1 || n->outputs[0] < 0)
            continue;
        int out = n->outputs[0];
        const graph_value *known = &s->shapes[out];
        if (!known->data || known->dtype != VKML_DTYPE_INT64 || known->rank != 1 ||
            s->shapes[n->inputs[0]].data_dependent || g->values[out].is_output)
            continue;
        void *copy = vkml_arena_memdup(g->arena, known->data, known->data_size);
        if (!copy)
            return -1;
        graph_value *v = &g->values[out];
        v->kind = GRAPH_VALUE_CONSTANT;
        v->data = copy;
        v->data_size = known->data_size;
        v->dtype = VKML_DTYPE_INT64;
        v->rank = 1;
        v->dims[0] = known->dims[0];
        v->producer = -1;
        remove_node(n);
        folded++;
    }
    return folded;
}

vkml_status graph_fuse_epilogues(graph *g, const graph_value *shapes, const graph_value *shapes2,
                                 int *n_fused, vkml_error *err)
{
    int fused = 0;
    fuse_state s = {.g = g, .shapes = shapes, .shapes2 = shapes2};
    int folded = fold_static_shapes(&s);
    if (folded < 0)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory fusing epilogues");
    int *readers = fuse_count_readers(g);
    int *first = calloc((size_t)g->n_values + 1, sizeof(int));
    int *second = calloc((size_t)g->n_values + 1, sizeof(int));
    vkml_status st = VKML_OK;
    if (!readers || !first || !second) {
        st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory fusing epilogues");
        goto done;
    }
    find_readers(g, first, second);
    s.readers = readers;
    s.first = first;
    s.second = second;
    /* Last producer first: of two Convs meeting in an Add, the later one takes the Add
     * (its kernel runs after the other's, which it then reads). */
    for (int i = g->n_nodes - 1; i >= 0; i--) {
        if (removed(&g->nodes[i]))
            continue;
        int n = fuse_producer(&s, i);
        if (n < 0) {
            st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory fusing epilogues");
            goto done;
        }
        fused += n;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        int n = removed(&g->nodes[i]) ? 0 : fuse_operands(&s, i);
        if (n < 0) {
            st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory fusing epilogues");
            goto done;
        }
        fused += n;
    }
    if (fused || folded) {
        fuse_compact(g);
        st = graph_sort(g, err);
    }
done:
    free(readers);
    free(first);
    free(second);
    if (n_fused)
        *n_fused = st == VKML_OK ? fused : 0;
    return st;
}
