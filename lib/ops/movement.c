/* Shapes and steps of the strided movement ops: Transpose, Concat, Split, Slice, Expand,
 * DepthToSpace, SpaceToDepth, and the aliases Squeeze and Unsqueeze (movement.h says what
 * a step is). Pad and Tile are in pad.c, generators (Shape, Range, ...) in generate.c. */
#include "ops/movement.h"
#include "ops/op_decls.h"

#include <string.h>

/* Helpers shared by the family (declared in movement.h). */

vkml_status mv_axis(const graph_node *node, const char *what, int64_t axis, int rank, int *out,
                    vkml_error *err)
{
    if (axis < -rank || axis >= rank)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: %s %lld is out of range for rank %d",
                         node->op_type, what, (long long)axis, rank);
    *out = (int)(axis < 0 ? axis + rank : axis);
    return VKML_OK;
}

vkml_status mv_ints(const graph_value *values, const graph_node *node, int opset_moved,
                    const int64_t *attr, size_t attr_count, bool attr_present, int input,
                    int64_t *out, size_t max, size_t *count, bool *present, vkml_error *err)
{
    *count = 0;
    *present = false;
    if (node->opset < opset_moved) {
        if (!attr_present)
            return VKML_OK;
        if (attr_count > max)
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                             "%s: %zu values, more than the %zu supported", node->op_type,
                             attr_count, max);
        if (attr_count)
            memcpy(out, attr, attr_count * sizeof(int64_t));
        *count = attr_count;
        *present = true;
        return VKML_OK;
    }
    if (input >= node->n_inputs || node->inputs[input] < 0)
        return VKML_OK;
    *present = true;
    return op_const_ints(values, node, input, out, max, count, err);
}

static void dense_strides(int rank, const int64_t *dims, int64_t *strides)
{
    int64_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        strides[d] = s;
        s *= dims[d];
    }
}

static ints_attr parse_ints_attr(const graph_node *node, const char *name)
{
    ints_attr a = {.present = graph_node_attr(node, name) != NULL};
    a.v = graph_attr_ints(node, name, &a.n);
    return a;
}

static vkml_status check_ints_attr(const graph_node *node, const char *name, vkml_error *err)
{
    const op_attr_spec spec = {name, GRAPH_ATTR_INTS};
    return op_check_attr_types(node, &spec, 1, err);
}

/* Transpose */

vkml_status transpose_parse(const graph_node *node, void *params, vkml_error *err)
{
    transpose_params *p = params;
    size_t n;
    vkml_status st = check_ints_attr(node, "perm", err);
    if (st)
        return st;
    const int64_t *perm = graph_attr_ints(node, "perm", &n);
    if (n > VKML_MAX_RANK)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "Transpose: perm of %zu dims, over %d", n,
                         VKML_MAX_RANK);
    p->n_perm = (int)n;
    if (n)
        memcpy(p->perm, perm, n * sizeof(int64_t));
    return VKML_OK;
}

/* The permutation for the input's rank (default: reversed), checked. */
static vkml_status transpose_perm(const graph_node *node, int rank, int *perm, vkml_error *err)
{
    const transpose_params *p = node->params;
    if (p->n_perm && p->n_perm != rank)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Transpose: perm has %d entries for rank %d", p->n_perm, rank);
    unsigned seen = 0;
    for (int d = 0; d < rank; d++) {
        int64_t v = p->n_perm ? p->perm[d] : rank - 1 - d;
        if (v < 0 || v >= rank || (seen & (1u << v)))
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "Transpose: perm is not a permutation of 0..%d", rank - 1);
        seen |= 1u << v;
        perm[d] = (int)v;
    }
    return VKML_OK;
}

vkml_status transpose_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    int perm[VKML_MAX_RANK];
    vkml_status st;
    if ((st = op_require_counts(node, 1, 1, 1, err)) ||
        (st = op_require_data(values, node, 0, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]];
    if ((st = transpose_perm(node, x->rank, perm, err)))
        return st;
    int64_t dims[VKML_MAX_RANK];
    for (int d = 0; d < x->rank; d++)
        dims[d] = x->dims[perm[d]];
    op_set_output(values, node, 0, x->dtype, x->rank, dims);
    return VKML_OK;
}

static vkml_status transpose_describe(const graph_value *values, const graph_node *node, mv_step *s,
                                      vkml_error *err)
{
    const graph_value *x = &values[node->inputs[0]];
    int perm[VKML_MAX_RANK];
    int64_t strides[VKML_MAX_RANK];
    vkml_status st = transpose_perm(node, x->rank, perm, err);
    dense_strides(x->rank, x->dims, strides);
    s->rank = x->rank;
    for (int d = 0; d < x->rank; d++) {
        s->dims[d] = x->dims[perm[d]];
        s->src_strides[d] = strides[perm[d]];
    }
    dense_strides(s->rank, s->dims, s->dst_strides);
    return st;
}

/* Concat */

vkml_status concat_parse(const graph_node *node, void *params, vkml_error *err)
{
    axis_params *p = params;
    static const op_attr_spec specs[] = {{"axis", GRAPH_ATTR_INT}};
    vkml_status st = op_check_attr_types(node, specs, 1, err);
    if (st)
        return st;
    if (!graph_node_attr(node, "axis"))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Concat: attribute 'axis' is required");
    p->axis = graph_attr_int(node, "axis", 0);
    return VKML_OK;
}

vkml_status concat_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    char sa[160], sb[160];
    if ((st = op_require_counts(node, 1, 1 << 20, 1, err)))
        return st;
    for (int i = 0; i < node->n_inputs; i++)
        if ((st = op_require_data(values, node, i, err)))
            return st;
    const graph_value *x = &values[node->inputs[0]];
    int axis = 0;
    if ((st =
             mv_axis(node, "axis", ((const axis_params *)node->params)->axis, x->rank, &axis, err)))
        return st;
    int64_t dims[VKML_MAX_RANK];
    memcpy(dims, x->dims, sizeof(dims));
    for (int i = 1; i < node->n_inputs; i++) {
        const graph_value *v = &values[node->inputs[i]];
        bool same = v->rank == x->rank && v->dtype == x->dtype;
        for (int d = 0; same && d < x->rank; d++)
            same = d == axis || v->dims[d] == x->dims[d];
        if (!same)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "Concat: input %d '%s' %s %s does not match input 0 %s %s on axis %d",
                             i, v->name, vkml_dtype_name(v->dtype),
                             graph_shape_string(v->rank, v->dims, sa, sizeof(sa)),
                             vkml_dtype_name(x->dtype),
                             graph_shape_string(x->rank, x->dims, sb, sizeof(sb)), axis);
        if (v->dims[axis] > INT64_MAX / 2 - dims[axis])
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Concat: the output is too large");
        dims[axis] += v->dims[axis];
    }
    op_set_output(values, node, 0, x->dtype, x->rank, dims);
    return VKML_OK;
}

/* Piece k of `whole` along its axis (axis_attr): Concat's input, Split's output, `pieces`
 * the values in order. Sets the step's rank and dims (the piece's), both dense strides
 * (the piece's and the whole's, into the step's fields given) and the piece's offset in
 * the whole. */
static vkml_status axis_piece(const graph_value *values, const graph_node *node, int64_t axis_attr,
                              const graph_value *whole, const int *pieces, int k,
                              int64_t *piece_strides, int64_t *whole_strides, int64_t *offset,
                              mv_step *s, vkml_error *err)
{
    const graph_value *piece = &values[pieces[k]];
    int axis = 0;
    vkml_status st = mv_axis(node, "axis", axis_attr, whole->rank, &axis, err);
    s->rank = piece->rank;
    memcpy(s->dims, piece->dims, sizeof(s->dims));
    dense_strides(piece->rank, piece->dims, piece_strides);
    dense_strides(whole->rank, whole->dims, whole_strides);
    for (int i = 0; i < k && !st; i++)
        *offset += values[pieces[i]].dims[axis] * whole_strides[axis];
    return st;
}

/* Input k goes to its place along the axis of the output. */
static vkml_status concat_describe(const graph_value *values, const graph_node *node, int k,
                                   mv_step *s, vkml_error *err)
{
    s->src = k;
    return axis_piece(values, node, ((const axis_params *)node->params)->axis,
                      &values[node->outputs[0]], node->inputs, k, s->src_strides, s->dst_strides,
                      &s->dst_offset, s, err);
}

/* Split */

vkml_status split_parse(const graph_node *node, void *params, vkml_error *err)
{
    split_params *p = params;
    static const op_attr_spec specs[] = {
        {"axis", GRAPH_ATTR_INT}, {"split", GRAPH_ATTR_INTS}, {"num_outputs", GRAPH_ATTR_INT}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    if (st)
        return st;
    p->axis = graph_attr_int(node, "axis", 0);
    p->split = parse_ints_attr(node, "split");
    p->num_outputs = graph_attr_int(node, "num_outputs", 0);
    /* Before opset 18 the attribute is not Split's, yet PyTorch 2.11's exporter leaves it on
     * the Split-13 nodes of its opset-17 models (converted down from 18): honoured when
     * positive (it says what the outputs say), else ignored. */
    if (node->opset < 18 && p->num_outputs < 0)
        p->num_outputs = 0;
    else if (graph_node_attr(node, "num_outputs") && p->num_outputs <= 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Split: num_outputs must be positive");
    return VKML_OK;
}

/* The size along the axis of each output (sizes[node->n_outputs]). */
static vkml_status split_sizes(const graph_value *values, const graph_node *node, int64_t dim,
                               int64_t *sizes, vkml_error *err)
{
    const split_params *p = node->params;
    int n = node->n_outputs;
    size_t count;
    bool given;
    vkml_status st = mv_ints(values, node, 13, p->split.v, p->split.n, p->split.present, 1, sizes,
                             (size_t)n, &count, &given, err);
    if (st)
        return st;
    if (given) {
        int64_t total = 0;
        for (size_t i = 0; i < count && total >= 0; i++)
            total = sizes[i] < 0 || sizes[i] > dim ? -1 : total + sizes[i];
        if ((int)count != n || total != dim)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "Split: the %zu sizes given do not split %lld into %d outputs", count,
                             (long long)dim, n);
        return VKML_OK;
    }
    if (p->num_outputs && p->num_outputs != n)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Split: num_outputs %lld but %d outputs",
                         (long long)p->num_outputs, n);
    if (!p->num_outputs && dim % n)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Split: dimension %lld does not split evenly into %d outputs",
                         (long long)dim, n);
    int64_t chunk = (dim + n - 1) / n, left = dim;
    for (int i = 0; i < n; i++) {
        sizes[i] = chunk < left ? chunk : left;
        left -= sizes[i];
    }
    return VKML_OK;
}

vkml_status split_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    if ((st = op_require_counts(node, 1, 2, node->n_outputs, err)) ||
        (st = op_require_data(values, node, 0, err)))
        return st;
    if (node->n_outputs < 1 || node->n_outputs > 4096)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Split: %d outputs", node->n_outputs);
    const graph_value *x = &values[node->inputs[0]];
    int axis = 0;
    int64_t sizes[node->n_outputs];
    if ((st = mv_axis(node, "axis", ((const split_params *)node->params)->axis, x->rank, &axis,
                      err)) ||
        (st = split_sizes(values, node, x->dims[axis], sizes, err)))
        return st;
    int64_t dims[VKML_MAX_RANK];
    memcpy(dims, x->dims, sizeof(dims));
    for (int i = 0; i < node->n_outputs; i++) {
        dims[axis] = sizes[i];
        op_set_output(values, node, i, x->dtype, x->rank, dims);
    }
    return VKML_OK;
}

/* Output k is the input from the sum of the sizes before it along the axis. */
static vkml_status split_describe(const graph_value *values, const graph_node *node, int k,
                                  mv_step *s, vkml_error *err)
{
    s->dst = k;
    return axis_piece(values, node, ((const split_params *)node->params)->axis,
                      &values[node->inputs[0]], node->outputs, k, s->dst_strides, s->src_strides,
                      &s->src_offset, s, err);
}

/* Squeeze, Unsqueeze (aliases: the kernels copy bytes or nothing) */

vkml_status squeeze_parse(const graph_node *node, void *params, vkml_error *err)
{
    squeeze_params *p = params;
    vkml_status st = check_ints_attr(node, "axes", err);
    p->axes = parse_ints_attr(node, "axes");
    return st;
}

/* The axes (normalised against rank) as a bit mask; fails on repeats. */
static vkml_status axes_mask(const graph_value *values, const graph_node *node, int rank,
                             unsigned *mask, bool *present, vkml_error *err)
{
    const squeeze_params *p = node->params;
    int64_t axes[VKML_MAX_RANK];
    size_t n;
    vkml_status st = mv_ints(values, node, 13, p->axes.v, p->axes.n, p->axes.present, 1, axes,
                             VKML_MAX_RANK, &n, present, err);
    *mask = 0;
    for (size_t i = 0; i < n && !st; i++) {
        int a = 0;
        if ((st = mv_axis(node, "axes value", axes[i], rank, &a, err)))
            break;
        if (*mask & (1u << a))
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: axis %d is repeated",
                             node->op_type, a);
        *mask |= 1u << a;
    }
    return st;
}

vkml_status squeeze_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    if ((st = op_require_counts(node, 1, 2, 1, err)) ||
        (st = op_require_data(values, node, 0, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]];
    unsigned mask;
    bool present;
    if ((st = axes_mask(values, node, x->rank, &mask, &present, err)))
        return st;
    int64_t dims[VKML_MAX_RANK];
    int rank = 0;
    for (int d = 0; d < x->rank; d++) {
        bool drop = present ? (mask >> d) & 1 : x->dims[d] == 1;
        if (drop && x->dims[d] != 1)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "Squeeze: dimension %d of '%s' is %lld, not 1", d, x->name,
                             (long long)x->dims[d]);
        if (!drop)
            dims[rank++] = x->dims[d];
    }
    shape_set_alias_output(values, node, rank, dims);
    return VKML_OK;
}

vkml_status unsqueeze_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    if ((st = op_require_counts(node, 1, 2, 1, err)) ||
        (st = op_require_data(values, node, 0, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]];
    const squeeze_params *p = node->params;
    size_t n_axes =
        node->opset < 13 ? p->axes.n
        : node->n_inputs > 1 && node->inputs[1] >= 0
            ? vkml_tensor_element_count(values[node->inputs[1]].rank, values[node->inputs[1]].dims)
            : 0;
    if (n_axes == 0 || x->rank + n_axes > VKML_MAX_RANK)
        return vkml_fail(err, n_axes ? VKML_ERROR_UNSUPPORTED : VKML_ERROR_INVALID_MODEL,
                         "Unsqueeze: %zu axes on rank %d (1 to %d dims in all)", n_axes, x->rank,
                         VKML_MAX_RANK);
    int rank = x->rank + (int)n_axes;
    unsigned mask;
    bool present;
    if ((st = axes_mask(values, node, rank, &mask, &present, err)))
        return st;
    int64_t dims[VKML_MAX_RANK];
    for (int d = 0, src = 0; d < rank; d++)
        dims[d] = (mask >> d) & 1 ? 1 : x->dims[src++];
    shape_set_alias_output(values, node, rank, dims);
    return VKML_OK;
}

/* The steps of each op (movement.h) */

vkml_status slice_describe(const graph_value *values, const graph_node *node, mv_step *s,
                           vkml_error *err);
vkml_status expand_describe(const graph_value *values, const graph_node *node, mv_step *s,
                            vkml_error *err);
vkml_status space_describe(const graph_value *values, const graph_node *node, mv_step *s,
                           vkml_error *err);
vkml_status pad_describe(const graph_value *values, const graph_node *node, const void *const *in,
                         mv_step *s, vkml_error *err);
vkml_status tile_describe(const graph_value *values, const graph_node *node, mv_step *s,
                          vkml_error *err);
vkml_status constant_of_shape_describe(const graph_value *values, const graph_node *node,
                                       mv_step *s, vkml_error *err);
vkml_status trilu_describe(const graph_value *values, const graph_node *node, const void *const *in,
                           mv_step *s, vkml_error *err);
vkml_status eye_like_describe(const graph_value *values, const graph_node *node, mv_step *s,
                              vkml_error *err);

const void *mv_input_data(const graph_value *values, const graph_node *node, const void *const *in,
                          int i)
{
    if (i >= node->n_inputs || node->inputs[i] < 0)
        return NULL;
    return in ? in[i] : values[node->inputs[i]].data;
}

int mv_step_count(const graph_node *node)
{
    switch (node->op ? node->op->id : OP_ID_COUNT) {
    case OP_ID_Concat: return node->n_inputs;
    case OP_ID_Split: return node->n_outputs;
    case OP_ID_Transpose:
    case OP_ID_Slice:
    case OP_ID_Expand:
    case OP_ID_DepthToSpace:
    case OP_ID_SpaceToDepth:
    case OP_ID_Pad:
    case OP_ID_Tile:
    case OP_ID_ConstantOfShape:
    case OP_ID_Trilu:
    case OP_ID_EyeLike: return 1;
    default: return 0;
    }
}

bool mv_step_contiguous(const mv_step *s)
{
    return s->kind == MV_STRIDED && s->rank == 1 && s->dims[0] > 0 && s->src_strides[0] == 1 &&
           s->dst_strides[0] == 1;
}

void mv_simplify_strided(mv_step *s)
{
    int rank = 0;
    for (int d = 0; d < s->rank; d++) {
        if (s->dims[d] == 0) {
            s->rank = 1;
            s->dims[0] = 0;
            return;
        }
        if (s->dims[d] == 1)
            continue;
        int prev = rank - 1;
        if (prev >= 0 && s->src_strides[prev] == s->src_strides[d] * s->dims[d] &&
            s->dst_strides[prev] == s->dst_strides[d] * s->dims[d]) {
            s->dims[prev] *= s->dims[d];
            s->src_strides[prev] = s->src_strides[d];
            s->dst_strides[prev] = s->dst_strides[d];
            continue;
        }
        s->dims[rank] = s->dims[d];
        s->src_strides[rank] = s->src_strides[d];
        s->dst_strides[rank] = s->dst_strides[d];
        rank++;
    }
    s->rank = rank;
}

/* Step k as the op describes it: dims and strides per dim of its values, not merged. */
static vkml_status describe_unmerged(const graph_value *values, const graph_node *node,
                                     const void *const *in, int k, mv_step *s, vkml_error *err)
{
    memset(s, 0, sizeof(*s));
    vkml_status st;
    switch (node->op->id) {
    case OP_ID_Transpose: st = transpose_describe(values, node, s, err); break;
    case OP_ID_Concat: st = concat_describe(values, node, k, s, err); break;
    case OP_ID_Split: st = split_describe(values, node, k, s, err); break;
    case OP_ID_Slice: st = slice_describe(values, node, s, err); break;
    case OP_ID_Expand: st = expand_describe(values, node, s, err); break;
    case OP_ID_DepthToSpace:
    case OP_ID_SpaceToDepth: st = space_describe(values, node, s, err); break;
    case OP_ID_Pad: st = pad_describe(values, node, in, s, err); break;
    case OP_ID_Tile: st = tile_describe(values, node, s, err); break;
    case OP_ID_ConstantOfShape: st = constant_of_shape_describe(values, node, s, err); break;
    case OP_ID_Trilu: st = trilu_describe(values, node, in, s, err); break;
    case OP_ID_EyeLike: st = eye_like_describe(values, node, s, err); break;
    default:
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s is not a movement op", node->op_type);
    }
    return st;
}

vkml_status mv_describe(const graph_value *values, const graph_node *node, const void *const *in,
                        int k, mv_step *s, vkml_error *err)
{
    vkml_status st = describe_unmerged(values, node, in, k, s, err);
    if (!st && s->kind == MV_STRIDED)
        mv_simplify_strided(s);
    return st;
}

bool mv_channel_range(const graph_value *values, const graph_node *node, int k, mv_channels *c)
{
    mv_step s;
    vkml_error err = {0};
    if (!node->op || (node->op->id != OP_ID_Concat && node->op->id != OP_ID_Split &&
                      node->op->id != OP_ID_Slice))
        return false;
    if (describe_unmerged(values, node, NULL, k, &s, &err) != VKML_OK || s.kind != MV_STRIDED ||
        s.src >= node->n_inputs || s.dst >= node->n_outputs || node->inputs[s.src] < 0 ||
        node->outputs[s.dst] < 0)
        return false;
    const graph_value *x = &values[node->inputs[s.src]], *y = &values[node->outputs[s.dst]];
    int64_t xs[VKML_MAX_RANK], ys[VKML_MAX_RANK];
    if (x->rank < 3 || x->rank > 5 || y->rank != x->rank || s.rank != x->rank)
        return false;
    dense_strides(x->rank, x->dims, xs);
    dense_strides(y->rank, y->dims, ys);
    for (int d = 0; d < s.rank; d++)
        if (s.dims[d] <= 0 || s.src_strides[d] != xs[d] || s.dst_strides[d] != ys[d] ||
            (d != 1 && (s.dims[d] != x->dims[d] || s.dims[d] != y->dims[d])))
            return false;
    if (s.src_offset % xs[1] || s.dst_offset % ys[1] ||
        s.src_offset / xs[1] + s.dims[1] > x->dims[1] ||
        s.dst_offset / ys[1] + s.dims[1] > y->dims[1])
        return false;
    *c = (mv_channels){.src = s.src,
                       .dst = s.dst,
                       .src_first = s.src_offset / xs[1],
                       .dst_first = s.dst_offset / ys[1],
                       .count = s.dims[1]};
    return true;
}
