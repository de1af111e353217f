/*
 * Sequence ops lowered to tensor ops at plan time (lower_seq.h). The model's graph is
 * copied node by node into the plan's own graph, shapes inferred and constants folded as
 * each node lands; a sequence value becomes the list of tensor value ids it holds:
 *   SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceErase: list edits
 *   SequenceAt: Identity of the element         SequenceLength: an int64 constant
 *   SplitToSequence: Split into constant sizes, then Squeeze each when keepdims=0
 *   ConcatFromSequence: Concat of the elements, Unsqueezed first when new_axis=1
 */
#include "ops/sequence.h"
#include "passes/fold.h"
#include "passes/infer.h"
#include "passes/lower_ctx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool lower_needed(const graph *g)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].op && (g->nodes[i].op->flags & (OP_LOWERED | OP_CONTROL_FLOW)))
            return true;
    return false;
}

static const char *node_name(const lower_ctx *c, char *buf, size_t size)
{
    snprintf(buf, size, "%s", c->cur->name[0] ? c->cur->name : c->cur->op_type);
    return buf;
}

const char *lower_node_label(const graph_node *n, char *buf, size_t size)
{
    if (n->name[0])
        snprintf(buf, size, "node '%s' (%s)", n->name, n->op_type);
    else
        snprintf(buf, size, "node (%s)", n->op_type);
    return buf;
}

vkml_status lower_grow_seqs(lower_ctx *c)
{
    if (c->n_seqs >= c->g->n_values)
        return VKML_OK;
    int n = c->g->n_values * 2 + 16;
    seq_list *grown = realloc(c->seqs, sizeof(seq_list) * (size_t)n);
    if (!grown)
        return VKML_ERROR_OUT_OF_MEMORY;
    memset(grown + c->n_seqs, 0, sizeof(seq_list) * (size_t)(n - c->n_seqs));
    c->seqs = grown;
    c->n_seqs = n;
    return VKML_OK;
}

/* A new value of the lowered graph named "<base><suffix>"; -1 on out of memory. */
int lower_new_value(lower_ctx *c, const char *base, const char *suffix)
{
    char name[512];
    snprintf(name, sizeof(name), "%s%s", base, suffix);
    return graph_add_value(c->g, name);
}

int lower_new_ints(lower_ctx *c, const char *name, int rank, const int64_t *data, int64_t n)
{
    int64_t *copy = vkml_arena_memdup(c->arena, data, sizeof(int64_t) * (size_t)(n ? n : 1));
    int v = copy ? lower_new_value(c, name, "") : -1;
    if (v < 0)
        return -1;
    graph_value *val = &c->g->values[v];
    val->kind = GRAPH_VALUE_CONSTANT;
    val->dtype = VKML_DTYPE_INT64;
    val->rank = rank;
    val->dims[0] = n;
    val->data = copy;
    val->data_size = sizeof(int64_t) * (size_t)n;
    return v;
}

/* Infers the shapes of the lowered graph's node k and folds it when it can. */
vkml_status lower_settle_node(lower_ctx *c, int k, vkml_error *err)
{
    const graph_node *n = &c->g->nodes[k];
    for (int o = 0; o < n->n_outputs; o++)
        if (n->outputs[o] >= 0)
            c->g->values[n->outputs[o]].producer = k;
    vkml_status st = graph_infer_node(c->g, c->g->values, k, err);
    return st != VKML_OK ? st
                         : fold_if_constant(c->g, c->g->values, k, c->env.runner, c->arena, err);
}

/* Adds a tensor node `op` (ai.onnx, LOWER_SEQ_OPSET) from inputs to outputs, with an
 * `axis` attribute when axis >= 0; binds it to the op table and settles it. */
vkml_status lower_emit(lower_ctx *c, const char *op, const int *inputs, int n_in,
                       const int *outputs, int n_out, int64_t axis, vkml_error *err)
{
    char base[300], name[400];
    if (++c->n_added > LOWER_SEQ_MAX_ADDED)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "lowering the sequences would add more than %d nodes",
                         LOWER_SEQ_MAX_ADDED);
    snprintf(name, sizeof(name), "%s/%s", node_name(c, base, sizeof(base)), op);
    int k = graph_add_node(c->g, name, op, "", n_in, n_out, axis >= 0 ? 1 : 0);
    if (k < 0)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory lowering to %s", op);
    graph_node *n = &c->g->nodes[k];
    memcpy(n->inputs, inputs, sizeof(int) * (size_t)n_in);
    memcpy(n->outputs, outputs, sizeof(int) * (size_t)n_out);
    if (axis >= 0)
        n->attrs[0] = (graph_attr){.name = "axis", .type = GRAPH_ATTR_INT, .i = axis};
    n->opset = LOWER_SEQ_OPSET;
    vkml_status st = op_bind_node(c->g->arena, n, err);
    return st != VKML_OK ? st : lower_settle_node(c, k, err);
}

/* The sequence at input k of the node. */
static vkml_status seq_input(lower_ctx *c, const graph_node *n, int k, seq_list *out,
                             vkml_error *err)
{
    int v = k < n->n_inputs ? n->inputs[k] : -1;
    if (v < 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "input %d (a sequence) is missing", k);
    if (!c->seqs[v].is_seq)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "input %d '%s' is not a sequence", k,
                         c->g->values[v].name);
    *out = c->seqs[v];
    return VKML_OK;
}

/* The tensor at input k of the node (present, not a sequence, shapes inferred). */
static vkml_status tensor_input(lower_ctx *c, const graph_node *n, int k, vkml_error *err)
{
    int v = k < n->n_inputs ? n->inputs[k] : -1;
    if (v < 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "input %d (a tensor) is missing", k);
    if (c->seqs[v].is_seq)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "input %d '%s' is a sequence, not a tensor",
                         k, c->g->values[v].name);
    const graph_value *val = &c->g->values[v];
    if (val->rank < 0 || val->dtype == VKML_DTYPE_UNDEFINED)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "input %d '%s' has no known shape", k,
                         val->name);
    return VKML_OK;
}

/* Input k as plan-time int64s (a position or split sizes), at most max of them;
 * *present false when the optional input is omitted. */
static vkml_status const_input(lower_ctx *c, const graph_node *n, int k, int64_t *out, size_t max,
                               size_t *count, bool *present, vkml_error *err)
{
    int v = k < n->n_inputs ? n->inputs[k] : -1;
    *present = v >= 0;
    *count = 0;
    if (v < 0)
        return VKML_OK;
    const graph_value *val = &c->g->values[v];
    if (!val->data)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "input %d '%s' must be a constant (sequence positions and sizes are "
                         "resolved when the session is planned; run-time ones are not "
                         "supported)",
                         k, val->name);
    vkml_status st = op_const_ints(c->g->values, n, k, out, max, count, err);
    if (st == VKML_OK && val->rank > 1)
        st = vkml_fail(err, VKML_ERROR_INVALID_MODEL, "input %d '%s' must be a scalar or 1-D", k,
                       val->name);
    return st;
}

/* The position at input k, normalised against a sequence of n elements: valid in
 * [-n, n - 1 + extra] (extra 1 for an insertion); `fallback` when omitted. */
static vkml_status position(lower_ctx *c, const graph_node *n, int k, int size, int extra,
                            int fallback, int *pos, vkml_error *err)
{
    int64_t p = fallback;
    size_t count;
    bool present;
    vkml_status st = const_input(c, n, k, &p, 1, &count, &present, err);
    if (st != VKML_OK)
        return st;
    if (present && count != 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "position '%s' holds %zu values, not one",
                         c->g->values[n->inputs[k]].name, count);
    if (p < -(int64_t)size || p > (int64_t)size - 1 + extra)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "position %lld is out of range for a sequence of %d element(s) "
                         "(%d to %d)",
                         (long long)p, size, -size, size - 1 + extra);
    *pos = (int)(p < 0 ? p + size : p);
    return VKML_OK;
}

/* Sets output 0 of the node to the sequence (items copied into the graph's arena). */
static vkml_status set_seq(lower_ctx *c, const graph_node *n, vkml_dtype dtype, const int *items,
                           int count, vkml_error *err)
{
    if (count > LOWER_SEQ_MAX_ELEMENTS)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "a sequence of %d elements (at most %d)",
                         count, LOWER_SEQ_MAX_ELEMENTS);
    if ((c->n_items += count) > LOWER_SEQ_MAX_ITEMS)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "the sequences of the model hold more than %d elements in all",
                         LOWER_SEQ_MAX_ITEMS);
    int *copy = vkml_arena_calloc(c->g->arena, (size_t)count + 1, sizeof(int));
    if (!copy)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory lowering a sequence");
    if (count)
        memcpy(copy, items, sizeof(int) * (size_t)count);
    if (n->n_outputs < 1 || n->outputs[0] < 0)
        return VKML_OK; /* nobody reads it */
    c->seqs[n->outputs[0]] = (seq_list){.is_seq = true, .dtype = dtype, .items = copy, .n = count};
    return VKML_OK;
}

/* Checks element `v` may join a sequence of `dtype` (UNDEFINED: any). */
static vkml_status check_dtype(lower_ctx *c, int v, vkml_dtype dtype, vkml_error *err)
{
    vkml_dtype t = c->g->values[v].dtype;
    if (dtype != VKML_DTYPE_UNDEFINED && t != dtype)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "tensor '%s' is %s, the sequence holds %s",
                         c->g->values[v].name, vkml_dtype_name(t), vkml_dtype_name(dtype));
    return VKML_OK;
}

static vkml_status lower_construct(lower_ctx *c, const graph_node *n, vkml_error *err)
{
    if (n->n_inputs < 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "needs at least one input");
    vkml_status st = VKML_OK;
    for (int k = 0; k < n->n_inputs && st == VKML_OK; k++)
        if ((st = tensor_input(c, n, k, err)) == VKML_OK)
            st = check_dtype(c, n->inputs[k], c->g->values[n->inputs[0]].dtype, err);
    return st != VKML_OK
               ? st
               : set_seq(c, n, c->g->values[n->inputs[0]].dtype, n->inputs, n->n_inputs, err);
}

static vkml_status lower_insert(lower_ctx *c, const graph_node *n, vkml_error *err)
{
    seq_list s;
    int pos;
    vkml_status st;
    if ((st = seq_input(c, n, 0, &s, err)) || (st = tensor_input(c, n, 1, err)) ||
        (st = check_dtype(c, n->inputs[1], s.dtype, err)) ||
        (st = position(c, n, 2, s.n, 1, s.n, &pos, err)))
        return st;
    int items[s.n + 1];
    memcpy(items, s.items, sizeof(int) * (size_t)pos);
    items[pos] = n->inputs[1];
    memcpy(items + pos + 1, s.items + pos, sizeof(int) * (size_t)(s.n - pos));
    return set_seq(c, n, s.dtype, items, s.n + 1, err);
}

static vkml_status lower_erase(lower_ctx *c, const graph_node *n, vkml_error *err)
{
    seq_list s;
    int pos;
    vkml_status st = seq_input(c, n, 0, &s, err);
    if (st == VKML_OK && s.n == 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "erases from an empty sequence");
    if (st || (st = position(c, n, 1, s.n, 0, s.n - 1, &pos, err)))
        return st;
    int items[s.n];
    memcpy(items, s.items, sizeof(int) * (size_t)pos);
    memcpy(items + pos, s.items + pos + 1, sizeof(int) * (size_t)(s.n - pos - 1));
    return set_seq(c, n, s.dtype, items, s.n - 1, err);
}

static vkml_status lower_at(lower_ctx *c, const graph_node *n, vkml_error *err)
{
    seq_list s;
    int pos;
    vkml_status st;
    if ((st = seq_input(c, n, 0, &s, err)))
        return st;
    if (n->n_inputs < 2 || n->inputs[1] < 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "input 1 (the position) is missing");
    if ((st = position(c, n, 1, s.n, 0, 0, &pos, err)))
        return st;
    return n->n_outputs < 1 || n->outputs[0] < 0
               ? VKML_OK
               : lower_emit(c, "Identity", &s.items[pos], 1, n->outputs, 1, -1, err);
}

static vkml_status lower_length(lower_ctx *c, const graph_node *n, vkml_error *err)
{
    seq_list s;
    vkml_status st = seq_input(c, n, 0, &s, err);
    if (st != VKML_OK || n->n_outputs < 1 || n->outputs[0] < 0)
        return st;
    int64_t *length = vkml_arena_alloc(c->arena, sizeof(int64_t));
    if (!length)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory lowering a sequence");
    *length = s.n;
    graph_value *out = &c->g->values[n->outputs[0]];
    out->kind = GRAPH_VALUE_CONSTANT;
    out->dtype = VKML_DTYPE_INT64;
    out->rank = 0;
    out->data = length;
    out->data_size = sizeof(int64_t);
    return VKML_OK;
}

/* Axis `axis` of rank `rank` (plus `extra` for a new axis), normalised. */
static vkml_status normal_axis(int64_t axis, int rank, int extra, int *out, vkml_error *err)
{
    int r = rank + extra;
    if (r < 1 || axis < -r || axis >= r)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "axis %lld is out of range for rank %d",
                         (long long)axis, r);
    *out = (int)(axis < 0 ? axis + r : axis);
    return VKML_OK;
}

/* SplitToSequence's chunk sizes along an axis of `dim`: ones, the split input's sizes, or
 * chunks of its scalar size (the last one smaller when it does not divide dim). */
static vkml_status split_sizes(lower_ctx *c, const graph_node *n, int64_t dim, int64_t *sizes,
                               int *count, vkml_error *err)
{
    size_t got;
    bool present;
    vkml_status st = const_input(c, n, 1, sizes, LOWER_SEQ_MAX_ELEMENTS, &got, &present, err);
    if (st != VKML_OK)
        return st;
    if (!present || c->g->values[n->inputs[1]].rank == 0) {
        int64_t chunk = present ? sizes[0] : 1;
        if (chunk <= 0)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "split size %lld is not positive",
                             (long long)chunk);
        int64_t chunks = dim / chunk + (dim % chunk != 0);
        if (chunks > LOWER_SEQ_MAX_ELEMENTS)
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "splits %lld into more than %d elements",
                             (long long)dim, LOWER_SEQ_MAX_ELEMENTS);
        *count = (int)chunks;
        for (int i = 0; i < *count; i++)
            sizes[i] = dim - chunk * i < chunk ? dim - chunk * i : chunk;
        return VKML_OK;
    }
    int64_t total = 0;
    for (size_t i = 0; i < got && total >= 0; i++)
        total = sizes[i] < 0 || sizes[i] > dim ? -1 : total + sizes[i];
    if (total != dim || got == 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "the %zu split sizes do not add up to %lld",
                         got, (long long)dim);
    *count = (int)got;
    return VKML_OK;
}

/* Elements' value names: "<sequence>[k]<suffix>". */
static vkml_status new_elements(lower_ctx *c, const graph_node *n, const char *suffix, int count,
                                int *ids, vkml_error *err)
{
    const char *base = n->n_outputs > 0 && n->outputs[0] >= 0 ? c->g->values[n->outputs[0]].name
                                                              : c->g->values[n->inputs[0]].name;
    for (int i = 0; i < count; i++) {
        char index[64];
        snprintf(index, sizeof(index), "[%d]%s", i, suffix);
        if ((ids[i] = lower_new_value(c, base, index)) < 0)
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory lowering a sequence");
    }
    return VKML_OK;
}

static vkml_status lower_split(lower_ctx *c, const graph_node *n, vkml_error *err)
{
    const seq_params *p = n->params;
    vkml_status st = tensor_input(c, n, 0, err);
    int axis = 0, count = 0;
    if (st || (st = normal_axis(p->axis, c->g->values[n->inputs[0]].rank, 0, &axis, err)))
        return st;
    if (c->g->values[n->inputs[0]].data_dependent)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "input 0 '%s' has an extent known only at run time, so the number "
                         "of elements is too",
                         c->g->values[n->inputs[0]].name);
    vkml_dtype dtype = c->g->values[n->inputs[0]].dtype;
    int64_t sizes[LOWER_SEQ_MAX_ELEMENTS];
    if ((st = split_sizes(c, n, c->g->values[n->inputs[0]].dims[axis], sizes, &count, err)))
        return st;
    bool squeeze = !p->keepdims && (n->n_inputs < 2 || n->inputs[1] < 0);
    int parts[count + 1], elems[count + 1];
    int64_t axes = axis;
    int split = count ? lower_new_ints(c, "split", 1, sizes, count) : 0;
    int axes_v = squeeze && count ? lower_new_ints(c, "axes", 1, &axes, 1) : 0;
    if (split < 0 || axes_v < 0)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory lowering a sequence");
    int inputs[2] = {n->inputs[0], split};
    if (count && ((st = new_elements(c, n, squeeze ? "/split" : "", count, parts, err)) ||
                  (st = lower_emit(c, "Split", inputs, 2, parts, count, axis, err))))
        return st;
    if (!squeeze)
        return set_seq(c, n, dtype, parts, count, err);
    if ((st = new_elements(c, n, "", count, elems, err)))
        return st;
    for (int i = 0; i < count && st == VKML_OK; i++) {
        int in[2] = {parts[i], axes_v};
        st = lower_emit(c, "Squeeze", in, 2, &elems[i], 1, -1, err);
    }
    return st != VKML_OK ? st : set_seq(c, n, dtype, elems, count, err);
}

static vkml_status lower_concat(lower_ctx *c, const graph_node *n, vkml_error *err)
{
    const seq_params *p = n->params;
    seq_list s;
    int axis = 0;
    vkml_status st = seq_input(c, n, 0, &s, err);
    if (st == VKML_OK && s.n == 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "concatenates an empty sequence");
    if (st || (st = normal_axis(p->axis, c->g->values[s.items[0]].rank, p->new_axis, &axis, err)))
        return st;
    if (n->n_outputs < 1 || n->outputs[0] < 0)
        return VKML_OK;
    if (!p->new_axis)
        return lower_emit(c, "Concat", s.items, s.n, n->outputs, 1, axis, err);
    int parts[s.n];
    int64_t axes = axis;
    int axes_v = lower_new_ints(c, "axes", 1, &axes, 1);
    if (axes_v < 0)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory lowering a sequence");
    if ((st = new_elements(c, n, "/unsqueezed", s.n, parts, err)))
        return st;
    for (int i = 0; i < s.n && st == VKML_OK; i++) {
        int in[2] = {s.items[i], axes_v};
        st = lower_emit(c, "Unsqueeze", in, 2, &parts[i], 1, -1, err);
    }
    return st != VKML_OK ? st : lower_emit(c, "Concat", parts, s.n, n->outputs, 1, axis, err);
}

static vkml_status lower_node(lower_ctx *c, const graph_node *n, vkml_error *err)
{
    switch (n->op->id) {
    case OP_ID_SequenceEmpty:
        return set_seq(c, n, ((const seq_params *)n->params)->dtype, NULL, 0, err);
    case OP_ID_SequenceConstruct: return lower_construct(c, n, err);
    case OP_ID_SequenceInsert: return lower_insert(c, n, err);
    case OP_ID_SequenceErase: return lower_erase(c, n, err);
    case OP_ID_SequenceAt: return lower_at(c, n, err);
    case OP_ID_SequenceLength: return lower_length(c, n, err);
    case OP_ID_SplitToSequence: return lower_split(c, n, err);
    case OP_ID_ConcatFromSequence: return lower_concat(c, n, err);
    default:
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s has no plan-time lowering", n->op->name);
    }
}

/* Copies tensor node n into the lowered graph (sharing its arrays) and settles it. */
static vkml_status copy_node(lower_ctx *c, const graph_node *n, vkml_error *err)
{
    char label[300];
    for (int k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] >= 0 && c->seqs[n->inputs[k]].is_seq)
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                             "%s: input %d '%s' is a sequence: only the sequence ops read "
                             "sequences (they are lowered to tensor ops at plan time)",
                             lower_node_label(n, label, sizeof(label)), k,
                             c->g->values[n->inputs[k]].name);
    int k = graph_add_node(c->g, "", "", "", 0, 0, 0);
    if (k < 0)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory lowering sequences");
    c->g->nodes[k] = *n;
    return lower_settle_node(c, k, err);
}

/* Sequences cross no graph boundary: vkml's inputs and outputs are tensors. */
static vkml_status check_boundaries(const graph *g, const graph_value *values, vkml_error *err)
{
    char label[300];
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node *n = &g->nodes[i];
        if (!n->op || !(n->op->flags & OP_LOWERED))
            continue;
        int id = n->op->id;
        bool reads_seq = id == OP_ID_SequenceInsert || id == OP_ID_SequenceErase ||
                         id == OP_ID_SequenceAt || id == OP_ID_SequenceLength ||
                         id == OP_ID_ConcatFromSequence;
        bool makes_seq = !(id == OP_ID_SequenceAt || id == OP_ID_SequenceLength ||
                           id == OP_ID_ConcatFromSequence);
        int in = reads_seq && n->n_inputs > 0 ? n->inputs[0] : -1;
        int out = makes_seq && n->n_outputs > 0 ? n->outputs[0] : -1;
        if (in >= 0 && values[in].kind != GRAPH_VALUE_INTERMEDIATE)
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                             "%s: input 0 '%s' is a graph input or initializer: sequences as "
                             "graph inputs are not supported (vkml lowers sequences to tensors "
                             "at plan time)",
                             graph_node_label(g, i, label, sizeof(label)), values[in].name);
        if (out >= 0 && values[out].is_output)
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                             "%s: output '%s' is a sequence graph output, which is not "
                             "supported (vkml lowers sequences to tensors at plan time)",
                             graph_node_label(g, i, label, sizeof(label)), values[out].name);
    }
    return VKML_OK;
}

/* The lowered graph starts as g's values in their session state, no nodes. */
static graph *start_graph(const graph *g, const graph_value *values)
{
    graph *lg = graph_create();
    for (int v = 0; lg && v < g->n_values; v++) {
        if (graph_add_value(lg, "") != v) {
            graph_destroy(&lg);
            break;
        }
        lg->values[v] = values[v];
    }
    if (lg) {
        lg->inputs = g->inputs;
        lg->n_inputs = g->n_inputs;
        lg->outputs = g->outputs;
        lg->n_outputs = g->n_outputs;
        lg->opset = g->opset;
    }
    return lg;
}

vkml_status lower_one(lower_ctx *c, const graph_node *n, vkml_error *err)
{
    char label[300];
    vkml_status st = lower_grow_seqs(c);
    if (st != VKML_OK)
        return vkml_fail(err, st, "out of memory lowering");
    const graph_node *outer = c->cur;
    c->cur = n;
    if (n->op && (n->op->flags & OP_CONTROL_FLOW))
        st = lower_cf_node(c, n, err);
    else if (!n->op || !(n->op->flags & OP_LOWERED))
        st = copy_node(c, n, err);
    else if ((st = lower_node(c, n, err)) != VKML_OK)
        vkml_error_prefix(err, "%s", lower_node_label(n, label, sizeof(label)));
    c->cur = outer;
    return st;
}

static vkml_status lower_all(lower_ctx *c, int64_t symbolic_value, vkml_error *err)
{
    /* producer still says which values are node outputs: prepare forgets their shapes. */
    vkml_status st = graph_infer_prepare(c->g, c->g->values, symbolic_value, err);
    for (int v = 0; v < c->g->n_values; v++)
        c->g->values[v].producer = -1;
    for (int i = 0; i < c->src->n_nodes && st == VKML_OK; i++)
        st = lower_one(c, &c->src->nodes[i], err);
    return st;
}

vkml_status lower_graph(const graph *g, const graph_value *values, int64_t symbolic_value,
                        const cf_env *env, vkml_arena *arena, graph **out, vkml_error *err)
{
    *out = NULL;
    vkml_status st = check_boundaries(g, values, err);
    if (st != VKML_OK)
        return st;
    lower_ctx c = {.src = g, .env = *env, .arena = arena};
    c.env.probe = false;
    c.g = start_graph(g, values);
    if (!c.g)
        st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory lowering sequences");
    else
        st = lower_all(&c, symbolic_value, err);
    free(c.seqs);
    if (st != VKML_OK)
        graph_destroy(&c.g);
    *out = c.g;
    return st;
}
