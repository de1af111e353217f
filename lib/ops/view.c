/* Ops whose output is one strided view of their input (a single MV_STRIDED step, see
 * movement.h): Slice, Expand, DepthToSpace, SpaceToDepth. */
#include "ops/movement.h"
#include "ops/op_decls.h"

#include <string.h>

static void dense_strides(int rank, const int64_t *dims, int64_t *strides)
{
    int64_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        strides[d] = s;
        s *= dims[d];
    }
}

/* Slice */

vkml_status slice_parse(const graph_node *node, void *params, vkml_error *err)
{
    slice_params *p = params;
    static const op_attr_spec specs[] = {
        {"starts", GRAPH_ATTR_INTS}, {"ends", GRAPH_ATTR_INTS}, {"axes", GRAPH_ATTR_INTS}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    const char *names[] = {"starts", "ends", "axes"};
    ints_attr *fields[] = {&p->starts, &p->ends, &p->axes};
    for (int i = 0; i < 3; i++) {
        fields[i]->present = graph_node_attr(node, names[i]) != NULL;
        fields[i]->v = graph_attr_ints(node, names[i], &fields[i]->n);
    }
    if (!st && node->opset < 10 && (!p->starts.present || !p->ends.present))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Slice: 'starts' and 'ends' are required");
    return st;
}

/* Clamps a start or end (negative counts from the end) as ONNX does for the step's sign. */
static int64_t slice_clamp(int64_t v, int64_t n, bool forward, bool is_end)
{
    if (v < 0)
        v += n;
    int64_t lo = forward ? 0 : (is_end ? -1 : 0), hi = forward ? n : n - 1;
    return v < lo ? lo : v > hi ? hi : v;
}

/* Per input dim: the first element, the step and the count taken. */
static vkml_status slice_resolve(const graph_value *values, const graph_node *node, int64_t *first,
                                 int64_t *step, int64_t *count, vkml_error *err)
{
    const slice_params *p = node->params;
    const graph_value *x = &values[node->inputs[0]];
    int64_t starts[VKML_MAX_RANK], ends[VKML_MAX_RANK], axes[VKML_MAX_RANK], steps[VKML_MAX_RANK];
    size_t n, n_ends, n_axes, n_steps;
    bool has, has_axes, has_steps;
    vkml_status st;
    if ((st = mv_ints(values, node, 10, p->starts.v, p->starts.n, true, 1, starts, VKML_MAX_RANK,
                      &n, &has, err)) ||
        (st = mv_ints(values, node, 10, p->ends.v, p->ends.n, true, 2, ends, VKML_MAX_RANK, &n_ends,
                      &has, err)) ||
        (st = mv_ints(values, node, 10, p->axes.v, p->axes.n, p->axes.present, 3, axes,
                      VKML_MAX_RANK, &n_axes, &has_axes, err)) ||
        (st = mv_ints(values, node, 10, NULL, 0, false, 4, steps, VKML_MAX_RANK, &n_steps,
                      &has_steps, err)))
        return st;
    if (n_ends != n || (has_axes && n_axes != n) || (has_steps && n_steps != n))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Slice: starts, ends, axes and steps differ in length");
    for (int d = 0; d < x->rank; d++) {
        first[d] = 0;
        step[d] = 1;
        count[d] = x->dims[d];
    }
    unsigned seen = 0;
    for (size_t i = 0; i < n; i++) {
        int a = 0;
        if ((st = mv_axis(node, "axes value", has_axes ? axes[i] : (int64_t)i, x->rank, &a, err)))
            return st;
        int64_t s = has_steps ? steps[i] : 1, dim = x->dims[a];
        if (s == 0 || (seen & (1u << a)))
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Slice: %s on axis %d",
                             s == 0 ? "a step of 0" : "a repeated axis", a);
        seen |= 1u << a;
        /* A step past the dim takes one element at most: clamp it so offsets stay small. */
        int64_t limit = dim > 1 ? dim : 1;
        s = s > limit ? limit : s < -limit ? -limit : s;
        int64_t b = slice_clamp(starts[i], dim, s > 0, false);
        int64_t e = slice_clamp(ends[i], dim, s > 0, true);
        int64_t span = s > 0 ? e - b : b - e, mag = s > 0 ? s : -s;
        first[a] = b;
        step[a] = s;
        count[a] = span > 0 ? (span + mag - 1) / mag : 0;
    }
    return VKML_OK;
}

vkml_status slice_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    int64_t first[VKML_MAX_RANK], step[VKML_MAX_RANK], count[VKML_MAX_RANK];
    if ((st =
             op_require_counts(node, node->opset < 10 ? 1 : 3, node->opset < 10 ? 1 : 5, 1, err)) ||
        (st = op_require_data(values, node, 0, err)) ||
        (st = slice_resolve(values, node, first, step, count, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]];
    op_set_output(values, node, 0, x->dtype, x->rank, count);
    return VKML_OK;
}

vkml_status slice_describe(const graph_value *values, const graph_node *node, mv_step *s,
                           vkml_error *err)
{
    const graph_value *x = &values[node->inputs[0]];
    int64_t first[VKML_MAX_RANK], step[VKML_MAX_RANK], strides[VKML_MAX_RANK];
    vkml_status st = slice_resolve(values, node, first, step, s->dims, err);
    if (st)
        return st;
    dense_strides(x->rank, x->dims, strides);
    s->rank = x->rank;
    for (int d = 0; d < x->rank; d++) {
        s->src_offset += first[d] * strides[d];
        s->src_strides[d] = step[d] * strides[d];
    }
    dense_strides(s->rank, s->dims, s->dst_strides);
    return VKML_OK;
}

/* Expand */

vkml_status expand_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    int64_t shape[VKML_MAX_RANK], dims[VKML_MAX_RANK];
    size_t n;
    int rank;
    if ((st = op_require_counts(node, 2, 2, 1, err)) ||
        (st = op_require_data(values, node, 0, err)) ||
        (st = op_const_ints(values, node, 1, shape, VKML_MAX_RANK, &n, err)))
        return st;
    for (size_t i = 0; i < n; i++)
        if (shape[i] < 0)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Expand: shape value %lld is negative",
                             (long long)shape[i]);
    const graph_value *x = &values[node->inputs[0]];
    if ((st = op_broadcast(node, x->rank, x->dims, (int)n, shape, &rank, dims, err)))
        return st;
    op_set_output(values, node, 0, x->dtype, rank, dims);
    return VKML_OK;
}

vkml_status expand_describe(const graph_value *values, const graph_node *node, mv_step *s,
                            vkml_error *err)
{
    (void)err;
    const graph_value *x = &values[node->inputs[0]], *y = &values[node->outputs[0]];
    s->rank = y->rank;
    memcpy(s->dims, y->dims, sizeof(s->dims));
    op_broadcast_strides(x->rank, x->dims, y->rank, y->dims, s->src_strides);
    dense_strides(y->rank, y->dims, s->dst_strides);
    return VKML_OK;
}

/* DepthToSpace, SpaceToDepth */

vkml_status space_parse(const graph_node *node, void *params, vkml_error *err)
{
    space_params *p = params;
    static const op_attr_spec specs[] = {{"blocksize", GRAPH_ATTR_INT},
                                         {"mode", GRAPH_ATTR_STRING}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    if (st)
        return st;
    p->blocksize = graph_attr_int(node, "blocksize", 0);
    if (p->blocksize <= 0 || p->blocksize > (1 << 20))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: blocksize %lld is out of range",
                         node->op_type, (long long)p->blocksize);
    const char *mode = graph_attr_string(node, "mode", "DCR");
    if (strcmp(mode, "DCR") != 0 && strcmp(mode, "CRD") != 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: mode '%s' is not DCR or CRD",
                         node->op_type, mode);
    p->crd = strcmp(mode, "CRD") == 0;
    return VKML_OK;
}

static bool is_depth_to_space(const graph_node *node)
{
    return strcmp(node->op_type, "DepthToSpace") == 0;
}

vkml_status space_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    char sx[160];
    if ((st = op_require_counts(node, 1, 1, 1, err)) ||
        (st = op_require_data(values, node, 0, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]];
    int64_t b = ((const space_params *)node->params)->blocksize;
    bool d2s = is_depth_to_space(node);
    bool ok = x->rank == 4 &&
              (d2s ? x->dims[1] % (b * b) == 0 : x->dims[2] % b == 0 && x->dims[3] % b == 0);
    if (!ok)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: input %s does not divide by blocksize %lld", node->op_type,
                         graph_shape_string(x->rank, x->dims, sx, sizeof(sx)), (long long)b);
    int64_t dims[4] = {x->dims[0], x->dims[1], x->dims[2], x->dims[3]};
    if (d2s && (x->dims[2] > INT64_MAX / b || x->dims[3] > INT64_MAX / b))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: the output is too large",
                         node->op_type);
    dims[1] = d2s ? dims[1] / (b * b) : dims[1] * b * b;
    dims[2] = d2s ? dims[2] * b : dims[2] / b;
    dims[3] = d2s ? dims[3] * b : dims[3] / b;
    op_set_output(values, node, 0, x->dtype, 4, dims);
    return VKML_OK;
}

/* Both are a rank-6 transpose: the input viewed at 6 dims, read in the output's order. */
vkml_status space_describe(const graph_value *values, const graph_node *node, mv_step *s,
                           vkml_error *err)
{
    (void)err;
    const space_params *p = node->params;
    const graph_value *x = &values[node->inputs[0]];
    int64_t b = p->blocksize, n = x->dims[0], c = x->dims[1], h = x->dims[2], w = x->dims[3];
    int64_t view[6], strides[6];
    int perm[6];
    if (!is_depth_to_space(node)) { /* [n,c,h/b,b,w/b,b] -> [n,b,b,c,h/b,w/b] */
        memcpy(view, (int64_t[]){n, c, h / b, b, w / b, b}, sizeof(view));
        memcpy(perm, (int[]){0, 3, 5, 1, 2, 4}, sizeof(perm));
    } else if (p->crd) { /* [n,c/bb,b,b,h,w] -> [n,c/bb,h,b,w,b] */
        memcpy(view, (int64_t[]){n, c / (b * b), b, b, h, w}, sizeof(view));
        memcpy(perm, (int[]){0, 1, 4, 2, 5, 3}, sizeof(perm));
    } else { /* DCR: [n,b,b,c/bb,h,w] -> [n,c/bb,h,b,w,b] */
        memcpy(view, (int64_t[]){n, b, b, c / (b * b), h, w}, sizeof(view));
        memcpy(perm, (int[]){0, 3, 4, 1, 5, 2}, sizeof(perm));
    }
    dense_strides(6, view, strides);
    s->rank = 6;
    for (int d = 0; d < 6; d++) {
        s->dims[d] = view[perm[d]];
        s->src_strides[d] = strides[perm[d]];
    }
    dense_strides(6, s->dims, s->dst_strides);
    return VKML_OK;
}
