/* Elementwise ops: attribute parsing (once, at load), shape functions and the broadcast
 * layout the kernels share. */
#include "ops/elementwise.h"
#include "ops/op_decls.h"

#include <math.h>
#include <string.h>

static const struct {
    const char *name, *id;
    eltwise_kind kind;
    eltwise_fuse fuse;
} eltwise_table[ELT_OP_COUNT] = {
#define X(id, name, kind, fuse, code, gpu) [ELT_##id] = {#name, #id, kind, ELT_##fuse},
    ELTWISE_OPS(X)
#undef X
};

/* The codes count 0, 1, 2, ... in list order (GLSL has them as numbers, not an enum). */
enum eltwise_op_position {
#define X(id, name, kind, fuse, code, gpu) ELT_POSITION_##id,
    ELTWISE_OPS(X)
#undef X
};
#define X(id, name, kind, fuse, code, gpu)                                                         \
    _Static_assert(ELT_##id == (int)ELT_POSITION_##id, "eltwise_ops.h: code of " #id);
ELTWISE_OPS(X)
#undef X

const char *eltwise_op_name(eltwise_op op)
{
    return op < ELT_OP_COUNT ? eltwise_table[op].name : "?";
}

const char *eltwise_op_id(eltwise_op op)
{
    return op < ELT_OP_COUNT ? eltwise_table[op].id : "?";
}

int eltwise_fused_arity(eltwise_op op)
{
    eltwise_fuse f = op < ELT_OP_COUNT ? eltwise_table[op].fuse : ELT_NOFUSE;
    return f == ELT_FUSE2 ? 2 : f == ELT_FUSE1 || f == ELT_FUSE1_EPI ? 1 : 0;
}

bool eltwise_is_epilogue(eltwise_op op)
{
    return op < ELT_OP_COUNT &&
           (eltwise_table[op].fuse == ELT_FUSE1_EPI || eltwise_table[op].fuse == ELT_EPI);
}

static vkml_status parse_cast_to(const graph_node *node, eltwise_params *p, vkml_error *err)
{
    if (!graph_node_attr(node, "to"))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Cast needs attribute 'to'");
    int64_t to = graph_attr_int(node, "to", 0);
    if (to == 14 || to == 15) /* ONNX types vkml has no storage for */
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "Cast to %s is not supported",
                         to == 14 ? "complex64" : "complex128");
    if (to <= 0 || to > VKML_DTYPE_INT2 || vkml_dtype_bits((vkml_dtype)to) == 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Cast: attribute 'to' %lld is not a type",
                         (long long)to);
    p->to = (vkml_dtype)to;
    return VKML_OK;
}

/* Cast/CastLike's saturate (opset 19) and round_mode (opset 24, for float8e8m0). */
static vkml_status parse_cast_rounding(const graph_node *node, eltwise_params *p, vkml_error *err)
{
    int64_t saturate = graph_attr_int(node, "saturate", 1);
    if (saturate != 0 && saturate != 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: attribute 'saturate' must be 0 or 1, not %lld", node->op_type,
                         (long long)saturate);
    p->no_saturate = saturate == 0;
    static const char *const modes[] = {
        [VKML_E8M0_UP] = "up", [VKML_E8M0_DOWN] = "down", [VKML_E8M0_NEAREST] = "nearest"};
    const char *mode = graph_attr_string(node, "round_mode", "up");
    for (int i = 0; i < (int)VKML_ARRAY_SIZE(modes); i++)
        if (strcmp(mode, modes[i]) == 0) {
            p->e8m0_round = i;
            return p->op == ELT_CAST ? parse_cast_to(node, p, err) : VKML_OK;
        }
    return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                     "%s: attribute 'round_mode' must be \"up\", \"down\" or \"nearest\", not %s",
                     node->op_type, mode);
}

/* A string attribute that must be one of two words; *second says which. */
static vkml_status parse_choice(const graph_node *node, const char *attr, const char *first,
                                const char *second_word, bool required, bool *second,
                                vkml_error *err)
{
    const char *s = graph_attr_string(node, attr, NULL);
    if (!s && !required) {
        *second = false;
        return VKML_OK;
    }
    if (s && (strcmp(s, first) == 0 || strcmp(s, second_word) == 0)) {
        *second = strcmp(s, second_word) == 0;
        return VKML_OK;
    }
    return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                     "%s: attribute '%s' must be \"%s\" or \"%s\"%s%s", node->op_type, attr, first,
                     second_word, s ? ", not " : " (missing)", s ? s : "");
}

/* alpha/beta/gamma with the op's defaults. */
static void parse_coefficients(const graph_node *node, eltwise_params *p)
{
    float alpha = 0, beta = 0, gamma = 0;
    switch (p->op) {
    case ELT_LEAKY_RELU: alpha = 0.01f; break;
    case ELT_ELU:
    case ELT_CELU:
    case ELT_THRESHOLDED_RELU:
    case ELT_SWISH: alpha = 1.0f; break;
    case ELT_SHRINK: alpha = 0.5f; break;
    case ELT_SELU: alpha = 1.67326319217681884765625f, gamma = 1.05070102214813232421875f; break;
    case ELT_HARD_SIGMOID: alpha = 0.2f, beta = 0.5f; break;
    case ELT_CLIP: alpha = -INFINITY, beta = INFINITY; break;
    default: break;
    }
    p->alpha = graph_attr_float(node,
                                p->op == ELT_CLIP     ? "min"
                                : p->op == ELT_SHRINK ? "lambd"
                                                      : "alpha",
                                alpha);
    p->beta = graph_attr_float(node,
                               p->op == ELT_CLIP     ? "max"
                               : p->op == ELT_SHRINK ? "bias"
                                                     : "beta",
                               beta);
    p->gamma = graph_attr_float(node, "gamma", gamma);
}

vkml_status eltwise_parse(const graph_node *node, void *params, vkml_error *err)
{
    static const op_attr_spec specs[] = {
        {"alpha", GRAPH_ATTR_FLOAT},
        {"beta", GRAPH_ATTR_FLOAT},
        {"gamma", GRAPH_ATTR_FLOAT},
        {"min", GRAPH_ATTR_FLOAT},
        {"max", GRAPH_ATTR_FLOAT},
        {"fmod", GRAPH_ATTR_INT},
        {"direction", GRAPH_ATTR_STRING},
        {"approximate", GRAPH_ATTR_STRING},
        {"detect_positive", GRAPH_ATTR_INT},
        {"detect_negative", GRAPH_ATTR_INT},
        {"to", GRAPH_ATTR_INT},
        {"broadcast", GRAPH_ATTR_INT},
        {"axis", GRAPH_ATTR_INT},
        {"saturate", GRAPH_ATTR_INT},
        {"round_mode", GRAPH_ATTR_STRING},
        {"lambd", GRAPH_ATTR_FLOAT},
        {"bias", GRAPH_ATTR_FLOAT},
    };
    eltwise_params *p = params;
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    if (st)
        return st;
    p->op = ELT_OP_COUNT;
    for (int i = 0; i < ELT_OP_COUNT; i++)
        if (eltwise_table[i].kind != ELT_INTERNAL &&
            strcmp(node->op_type, eltwise_table[i].name) == 0)
            p->op = (eltwise_op)i;
    if (p->op == ELT_OP_COUNT)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s is not an elementwise op", node->op_type);
    p->kind = eltwise_table[p->op].kind;
    parse_coefficients(node, p);
    int64_t fmod = graph_attr_int(node, "fmod", 0);
    if (fmod != 0 && fmod != 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Mod: attribute 'fmod' must be 0 or 1, not %lld", (long long)fmod);
    p->fmod = fmod == 1;
    p->detect_pos = graph_attr_int(node, "detect_positive", 1) != 0;
    p->detect_neg = graph_attr_int(node, "detect_negative", 1) != 0;
    p->legacy_broadcast = node->opset < 7 && graph_attr_int(node, "broadcast", 0) != 0;
    p->legacy_axis = graph_attr_int(node, "axis", -1);
    switch (p->op) {
    case ELT_BIT_SHIFT:
        return parse_choice(node, "direction", "RIGHT", "LEFT", true, &p->shift_left, err);
    case ELT_GELU: {
        bool tanh_form = false;
        st = parse_choice(node, "approximate", "none", "tanh", false, &tanh_form, err);
        p->op = tanh_form ? ELT_GELU_TANH : ELT_GELU;
        return st;
    }
    case ELT_CAST:
    case ELT_CAST_LIKE: return parse_cast_rounding(node, p, err);
    default: return VKML_OK;
    }
}

/* Inputs first..first+n-1 present and of one dtype. */
static vkml_status require_same_dtype(const graph_value *values, const graph_node *node, int first,
                                      int n, vkml_error *err)
{
    vkml_status st;
    for (int i = first; i < first + n; i++) {
        if ((st = op_require_input(values, node, i, err)))
            return st;
        vkml_dtype a = values[node->inputs[first]].dtype, b = values[node->inputs[i]].dtype;
        if (a != b)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "%s inputs %d and %d have different dtypes %s and %s", node->op_type,
                             first, i, vkml_dtype_name(a), vkml_dtype_name(b));
    }
    return VKML_OK;
}

/* Dims input i is read with: its own, or before opset 7 B lined up with A (broadcast=1,
 * from `axis`, default A's trailing dims) and padded with 1s to A's rank. */
static vkml_status input_dims(const graph_value *values, const graph_node *node, int i, int *rank,
                              int64_t *dims, vkml_error *err)
{
    const eltwise_params *p = node->params;
    const graph_value *v = &values[node->inputs[i]];
    *rank = v->rank;
    memcpy(dims, v->dims, sizeof(int64_t) * (size_t)v->rank);
    if (node->opset >= 7 || i != 1 || (p->kind != ELT_BINARY && p->op != ELT_POW))
        return VKML_OK;
    const graph_value *a = &values[node->inputs[0]];
    if (p->op == ELT_PRELU) {
        /* PRelu before opset 7: one slope, or one per channel (dim 1) as a 1-D tensor. */
        if (v->rank == 1 && a->rank >= 2 && v->dims[0] == a->dims[1] && v->dims[0] != 1) {
            *rank = a->rank;
            for (int d = 0; d < a->rank; d++)
                dims[d] = d == 1 ? v->dims[0] : 1;
        }
        return VKML_OK;
    }
    int64_t axis =
        p->legacy_broadcast ? (p->legacy_axis >= 0 ? p->legacy_axis : a->rank - v->rank) : 0;
    if (!p->legacy_broadcast && v->rank != a->rank)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s at opset %d without broadcast=1 needs inputs of one shape",
                         node->op_type, node->opset);
    if (axis < 0 || axis + v->rank > a->rank)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "attribute 'axis' %lld does not fit input B of rank %d into A of rank %d",
                         (long long)axis, v->rank, a->rank);
    *rank = a->rank;
    for (int d = 0; d < a->rank; d++)
        dims[d] = d >= axis && d < axis + v->rank ? v->dims[d - axis] : 1;
    return VKML_OK;
}

/* Add/Sub/Mul/Div/Pow before opset 7: the output has A's shape. */
static bool is_legacy_binary(const graph_node *node)
{
    const eltwise_params *p = node->params;
    return node->opset < 7 && p->op != ELT_PRELU && (p->kind == ELT_BINARY || p->op == ELT_POW);
}

/* Broadcast shape of the present inputs first..first+n-1. */
static vkml_status broadcast_shape(const graph_value *values, const graph_node *node, int first,
                                   int n, int *rank, int64_t *dims, vkml_error *err)
{
    vkml_status st;
    *rank = 0;
    for (int i = first; i < first + n; i++) {
        int r;
        int64_t d[VKML_MAX_RANK];
        if (i >= node->n_inputs || node->inputs[i] < 0)
            continue;
        if ((st = op_require_input(values, node, i, err)) ||
            (st = input_dims(values, node, i, &r, d, err)) ||
            (st = op_broadcast(node, *rank, dims, r, d, rank, dims, err)))
            return st;
    }
    const graph_value *a = &values[node->inputs[first]];
    if (is_legacy_binary(node) &&
        (*rank != a->rank || memcmp(dims, a->dims, sizeof(int64_t) * (size_t)*rank)))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s at opset %d: B does not broadcast onto A", node->op_type, node->opset);
    return VKML_OK;
}

static bool is_scalar(const graph_value *v)
{
    return vkml_tensor_element_count(v->rank, v->dims) == 1;
}

/* Clip from opset 11: optional min and max inputs, one-element tensors of x's dtype. */
static vkml_status clip_bounds(const graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    for (int i = 1; i < node->n_inputs; i++) {
        if (node->inputs[i] < 0)
            continue;
        if ((st = require_same_dtype(values, node, 0, 1, err)) ||
            (st = op_require_input(values, node, i, err)))
            return st;
        const graph_value *v = &values[node->inputs[i]];
        if (v->dtype != values[node->inputs[0]].dtype)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Clip: %s is %s, not the input's %s",
                             i == 1 ? "min" : "max", vkml_dtype_name(v->dtype),
                             vkml_dtype_name(values[node->inputs[0]].dtype));
        if (!is_scalar(v))
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Clip: %s must be a scalar",
                             i == 1 ? "min" : "max");
    }
    return VKML_OK;
}

/* A boolean constant input, or `fallback` when absent; UNSUPPORTED when computed. */
static vkml_status const_bool(const graph_value *values, const graph_node *node, int i,
                              bool fallback, bool *out, vkml_error *err)
{
    *out = fallback;
    if (i >= node->n_inputs || node->inputs[i] < 0)
        return VKML_OK;
    const graph_value *v = &values[node->inputs[i]];
    if (!v->data)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s: input %d '%s' must be a constant",
                         node->op_type, i, v->name);
    if (v->dtype != VKML_DTYPE_BOOL || !is_scalar(v) || v->data_size < 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: input %d '%s' must be a bool scalar",
                         node->op_type, i, v->name);
    *out = *(const uint8_t *)v->data != 0;
    return VKML_OK;
}

/* Dropout at inference is Identity (with a mask of all true); training mode drops at
 * random unless the ratio is a constant 0. */
static vkml_status dropout_check(const graph_value *values, const graph_node *node, vkml_error *err)
{
    bool training;
    vkml_status st = const_bool(values, node, 2, false, &training, err);
    if (st || !training)
        return st;
    const graph_value *r =
        node->n_inputs > 1 && node->inputs[1] >= 0 ? &values[node->inputs[1]] : NULL;
    double ratio = 0.5;
    if (r && !r->data)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "Dropout in training mode: input 1 '%s' must be a constant", r->name);
    if (r && (!is_scalar(r) || r->data_size < vkml_dtype_size(r->dtype) ||
              !(r->dtype == VKML_DTYPE_FLOAT || r->dtype == VKML_DTYPE_DOUBLE ||
                r->dtype == VKML_DTYPE_FLOAT16)))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Dropout: ratio '%s' must be a float scalar", r->name);
    if (r)
        ratio = r->dtype == VKML_DTYPE_FLOAT    ? *(const float *)r->data
                : r->dtype == VKML_DTYPE_DOUBLE ? *(const double *)r->data
                                                : vkml_half_to_float(*(const uint16_t *)r->data);
    if (ratio != 0.0)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "Dropout in training mode with ratio %g (random drops) is not supported; "
                         "only ratio 0 (identity) is",
                         ratio);
    return VKML_OK;
}

/* Checks of the ops with their own typing; sets the output dtype. */
static vkml_status special_check(const graph_value *values, const graph_node *node, vkml_dtype *out,
                                 vkml_error *err)
{
    const eltwise_params *p = node->params;
    vkml_status st;
    *out = values[node->inputs[0]].dtype;
    switch (p->op) {
    case ELT_CLIP:
        return op_require_counts(node, 1, node->opset < 11 ? 1 : 3, 1, err)
                   ?: clip_bounds(values, node, err);
    case ELT_POW:
        return op_require_counts(node, 2, 2, 1, err) ?: op_require_input(values, node, 1, err);
    case ELT_WHERE:
        if ((st = op_require_counts(node, 3, 3, 1, err)) ||
            (st = require_same_dtype(values, node, 1, 2, err)))
            return st;
        if (values[node->inputs[0]].dtype != VKML_DTYPE_BOOL)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Where: condition is %s, not bool",
                             vkml_dtype_name(values[node->inputs[0]].dtype));
        *out = values[node->inputs[1]].dtype;
        return VKML_OK;
    case ELT_CAST: *out = p->to; return op_require_counts(node, 1, 1, 1, err);
    case ELT_CAST_LIKE:
        if ((st = op_require_counts(node, 2, 2, 1, err)) ||
            (st = op_require_input(values, node, 1, err)))
            return st;
        *out = values[node->inputs[1]].dtype;
        return VKML_OK;
    case ELT_DROPOUT:
        return op_require_counts(node, 1, node->opset < 12 ? 1 : 3, 1, err)
                   ?: dropout_check(values, node, err);
    default: return VKML_OK;
    }
}

/* Inputs that broadcast into the output (the others are Clip bounds, Dropout's ratio and
 * mode, CastLike's type donor). */
static int broadcast_inputs(const graph_node *node)
{
    switch (((const eltwise_params *)node->params)->op) {
    case ELT_CLIP:
    case ELT_CAST:
    case ELT_CAST_LIKE:
    case ELT_DROPOUT: return 1;
    default: return node->n_inputs;
    }
}

vkml_status eltwise_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    const eltwise_params *p = node->params;
    vkml_status st;
    vkml_dtype out = VKML_DTYPE_UNDEFINED;
    switch (p->kind) {
    case ELT_UNARY:
    case ELT_PREDICATE: st = op_require_counts(node, 1, 1, 1, err); break;
    case ELT_BINARY:
    case ELT_COMPARE: st = op_require_counts(node, 2, 2, 1, err); break;
    default: st = op_require_counts(node, 1, 1 << 20, 1, err); break;
    }
    if (st || (st = op_require_input(values, node, 0, err)))
        return st;
    /* Strings have no storage in vkml tensors (Equal, Cast and Where allow them). */
    for (int i = 0; i < node->n_inputs; i++)
        if (node->inputs[i] >= 0 && values[node->inputs[i]].dtype == VKML_DTYPE_STRING)
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                             "%s: input %d '%s' is a string tensor; strings are not supported",
                             node->op_type, i, values[node->inputs[i]].name);
    if (p->kind == ELT_SPECIAL)
        st = special_check(values, node, &out, err);
    else
        st = require_same_dtype(values, node, 0, node->n_inputs, err);
    if (st)
        return st;
    if (p->kind != ELT_SPECIAL)
        out = p->kind == ELT_PREDICATE || p->kind == ELT_COMPARE ? VKML_DTYPE_BOOL
                                                                 : values[node->inputs[0]].dtype;
    if (p->op == ELT_MOD && !p->fmod &&
        (out == VKML_DTYPE_FLOAT || out == VKML_DTYPE_FLOAT16 || out == VKML_DTYPE_DOUBLE ||
         out == VKML_DTYPE_BFLOAT16))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Mod of %s needs fmod=1",
                         vkml_dtype_name(out));
    int rank;
    int64_t dims[VKML_MAX_RANK];
    if ((st = broadcast_shape(values, node, 0, broadcast_inputs(node), &rank, dims, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]];
    if (p->op == ELT_PRELU &&
        (rank != x->rank || memcmp(dims, x->dims, sizeof(int64_t) * (size_t)rank)))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "PRelu: slope does not broadcast onto X");
    op_set_output(values, node, 0, out, rank, dims);
    if (p->op == ELT_DROPOUT)
        op_set_output(values, node, 1, VKML_DTYPE_BOOL, rank, dims);
    return VKML_OK;
}

/* Element stride of input i along output dim d (0: absent or broadcast). */
static int64_t input_stride(const graph_value *values, const graph_node *node, int i, int d)
{
    const graph_value *y = &values[node->outputs[0]];
    int64_t dims[VKML_MAX_RANK], strides[VKML_MAX_RANK];
    int rank;
    vkml_error ignored;
    if (i >= node->n_inputs || node->inputs[i] < 0 ||
        input_dims(values, node, i, &rank, dims, &ignored) != VKML_OK)
        return 0;
    op_broadcast_strides(rank, dims, y->rank, y->dims, strides);
    return strides[d];
}

void eltwise_layout_of(const graph_value *values, const graph_node *node, int first, int n,
                       int64_t (*strides)[VKML_MAX_RANK], eltwise_layout *layout)
{
    const graph_value *y = &values[node->outputs[0]];
    layout->rank = 0;
    layout->n_inputs = n;
    layout->strides = strides;
    layout->count = vkml_tensor_element_count(y->rank, y->dims);
    for (int d = 0; d < y->rank; d++) {
        if (y->dims[d] == 1)
            continue;
        int last = layout->rank - 1;
        bool merge = last >= 0;
        for (int k = 0; k < n && merge; k++)
            merge = strides[k][last] == input_stride(values, node, first + k, d) * y->dims[d];
        int at = merge ? last : layout->rank++;
        layout->dims[at] = merge ? layout->dims[at] * y->dims[d] : y->dims[d];
        for (int k = 0; k < n; k++)
            strides[k][at] = input_stride(values, node, first + k, d);
    }
}

void eltwise_layout_fold(const graph_value *values, const graph_node *node, int k,
                         int64_t (*strides)[VKML_MAX_RANK], eltwise_layout *layout)
{
    eltwise_layout_of(values, node, k, 1, strides + 1, layout);
    layout->n_inputs = 2;
    layout->strides = strides;
    int64_t step = 1;
    for (int d = layout->rank - 1; d >= 0; d--) {
        strides[0][d] = step;
        step *= layout->dims[d];
    }
}
