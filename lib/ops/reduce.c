/* Reductions: attribute parsers and shape functions of Reduce*, ArgMax/ArgMin, CumSum,
 * TopK, and the reduction view they and the normalisations share. */
#include "ops/reduce.h"
#include "ops/op_decls.h"

#include <string.h>

void reduce_view_init(int rank, const int64_t *dims, uint32_t axes, reduce_view *v)
{
    memset(v, 0, sizeof(*v));
    v->lines = 1;
    v->count = 1;
    int64_t stride = 1;
    int last_class = -1; /* class (0 kept, 1 reduced) of the group grown last */
    for (int d = rank - 1; d >= 0; d--) {
        int cls = (axes >> d) & 1;
        int64_t n = dims[d];
        if (cls)
            v->count *= n;
        else
            v->lines *= n;
        if (n == 1)
            continue;
        int64_t *gd = cls ? v->red_dims : v->keep_dims;
        int64_t *gs = cls ? v->red_strides : v->keep_strides;
        int *ng = cls ? &v->n_red : &v->n_keep;
        if (cls == last_class) {
            gd[0] *= n; /* adjacent in memory to the group's outermost dim: one group */
        } else {
            /* Groups are found innermost first: shift to keep them outermost first. */
            memmove(gd + 1, gd, (size_t)*ng * sizeof(*gd));
            memmove(gs + 1, gs, (size_t)*ng * sizeof(*gs));
            gd[0] = n;
            gs[0] = stride;
            (*ng)++;
        }
        last_class = cls;
        stride *= n;
    }
}

vkml_status reduce_axis(const graph_node *node, const char *what, int64_t axis, int rank, int *out,
                        vkml_error *err)
{
    if (axis < -rank || axis >= (rank ? rank : 1))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: %s %lld is out of range for rank %d",
                         node->op_type, what, (long long)axis, rank);
    *out = (int)(axis < 0 ? axis + rank : axis);
    return VKML_OK;
}

static const struct {
    const char *name;
    reduce_op op;
} reduce_names[] = {
    {"ReduceSum", REDUCE_SUM},
    {"ReduceMean", REDUCE_MEAN},
    {"ReduceMax", REDUCE_MAX},
    {"ReduceMin", REDUCE_MIN},
    {"ReduceProd", REDUCE_PROD},
    {"ReduceL1", REDUCE_L1},
    {"ReduceL2", REDUCE_L2},
    {"ReduceLogSum", REDUCE_LOG_SUM},
    {"ReduceLogSumExp", REDUCE_LOG_SUM_EXP},
    {"ReduceSumSquare", REDUCE_SUM_SQUARE},
    {"ArgMax", REDUCE_ARGMAX},
    {"ArgMin", REDUCE_ARGMIN},
};

vkml_status reduce_parse(const graph_node *node, void *params, vkml_error *err)
{
    reduce_params *p = params;
    static const op_attr_spec specs[] = {{"axes", GRAPH_ATTR_INTS},
                                         {"axis", GRAPH_ATTR_INT},
                                         {"keepdims", GRAPH_ATTR_INT},
                                         {"noop_with_empty_axes", GRAPH_ATTR_INT},
                                         {"select_last_index", GRAPH_ATTR_INT}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    if (st)
        return st;
    size_t i = 0;
    while (i < VKML_ARRAY_SIZE(reduce_names) && strcmp(reduce_names[i].name, node->op_type))
        i++;
    if (i == VKML_ARRAY_SIZE(reduce_names))
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s is not a reduction", node->op_type);
    p->op = reduce_names[i].op;
    p->keepdims = graph_attr_int(node, "keepdims", 1) != 0;
    p->noop_with_empty_axes = graph_attr_int(node, "noop_with_empty_axes", 0) != 0;
    p->select_last_index = graph_attr_int(node, "select_last_index", 0) != 0;
    if (p->op == REDUCE_ARGMAX || p->op == REDUCE_ARGMIN) {
        p->n_axes = 1;
        p->axes[0] = graph_attr_int(node, "axis", 0);
        return VKML_OK;
    }
    p->axes_from_input = node->opset >= (p->op == REDUCE_SUM ? 13 : 18);
    size_t n = 0;
    const int64_t *axes = graph_attr_ints(node, "axes", &n);
    if (axes && p->axes_from_input)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: attribute 'axes' was moved to an input at this opset (%d)",
                         node->op_type, node->opset);
    if (n > VKML_MAX_RANK)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: %zu axes, more than rank %d allows",
                         node->op_type, n, VKML_MAX_RANK);
    p->n_axes = (int)n;
    for (size_t k = 0; k < n; k++)
        p->axes[k] = axes[k];
    return VKML_OK;
}

/* Bit mask of the axes a reduction node reduces. */
static vkml_status reduce_axes_mask(const graph_value *values, const graph_node *node,
                                    const reduce_params *p, int rank, uint32_t *mask,
                                    vkml_error *err)
{
    int64_t axes[VKML_MAX_RANK];
    size_t n = (size_t)p->n_axes;
    memcpy(axes, p->axes, sizeof(axes));
    if (p->axes_from_input && node->n_inputs > 1 && node->inputs[1] >= 0) {
        vkml_status st = op_const_ints(values, node, 1, axes, VKML_MAX_RANK, &n, err);
        if (st)
            return st;
    }
    *mask = 0;
    if (n == 0) {
        *mask = p->noop_with_empty_axes ? 0 : (uint32_t)((1u << rank) - 1);
        return VKML_OK;
    }
    for (size_t k = 0; k < n; k++) {
        int a = 0;
        vkml_status st = reduce_axis(node, "axis", axes[k], rank, &a, err);
        if (st)
            return st;
        if (*mask & (1u << a))
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: axis %d is listed twice",
                             node->op_type, a);
        *mask |= 1u << a;
    }
    *mask &= (uint32_t)((1u << rank) - 1); /* rank 0: axis 0 names the scalar itself */
    return VKML_OK;
}

vkml_status reduce_resolve(const graph_value *values, const graph_node *node, reduce_geom *g,
                           vkml_error *err)
{
    const reduce_params *p = node->params;
    bool arg = p->op == REDUCE_ARGMAX || p->op == REDUCE_ARGMIN;
    vkml_status st;
    if ((st = op_require_counts(node, 1, arg ? 1 : 2, 1, err)) ||
        (st = op_require_input(values, node, 0, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]];
    uint32_t mask;
    if ((st = reduce_axes_mask(values, node, p, x->rank, &mask, err)))
        return st;
    reduce_view_init(x->rank, x->dims, mask, &g->view);
    if (arg && g->view.count == 0 && g->view.lines > 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: axis %lld of '%s' has size 0",
                         node->op_type, (long long)p->axes[0], x->name);
    g->out_rank = 0;
    for (int d = 0; d < x->rank; d++) {
        if (!(mask & (1u << d)))
            g->out_dims[g->out_rank++] = x->dims[d];
        else if (p->keepdims)
            g->out_dims[g->out_rank++] = 1;
    }
    g->out_dtype = arg ? VKML_DTYPE_INT64 : x->dtype;
    return VKML_OK;
}

vkml_status reduce_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    reduce_geom g;
    vkml_status st = reduce_resolve(values, node, &g, err);
    if (st)
        return st;
    op_set_output(values, node, 0, g.out_dtype, g.out_rank, g.out_dims);
    return VKML_OK;
}

/* [outer, len, inner] around one axis of x. */
static void axis_view(const graph_value *x, int axis, int64_t *outer, int64_t *len, int64_t *inner)
{
    *outer = *inner = 1;
    for (int d = 0; d < axis; d++)
        *outer *= x->dims[d];
    for (int d = axis + 1; d < x->rank; d++)
        *inner *= x->dims[d];
    *len = x->rank ? x->dims[axis] : 1;
}

/* Input i as one constant integer (CumSum axis, TopK K). */
static vkml_status const_scalar(const graph_value *values, const graph_node *node, int i,
                                int64_t *out, vkml_error *err)
{
    int64_t v[1];
    size_t n;
    vkml_status st = op_const_ints(values, node, i, v, 1, &n, err);
    if (st)
        return st;
    if (n != 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s input %d must hold one value",
                         node->op_type, i);
    *out = v[0];
    return VKML_OK;
}

vkml_status cumsum_parse(const graph_node *node, void *params, vkml_error *err)
{
    cumsum_params *p = params;
    static const op_attr_spec specs[] = {{"exclusive", GRAPH_ATTR_INT},
                                         {"reverse", GRAPH_ATTR_INT}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    p->exclusive = graph_attr_int(node, "exclusive", 0) != 0;
    p->reverse = graph_attr_int(node, "reverse", 0) != 0;
    p->product = strcmp(node->op_type, "CumProd") == 0;
    return st;
}

/* CumSum's input 0 and 1 checks, without the axis value. */
static vkml_status cumsum_check(const graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    if ((st = op_require_counts(node, 2, 2, 1, err)) ||
        (st = op_require_input(values, node, 0, err)) ||
        (st = op_require_input(values, node, 1, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]], *axis = &values[node->inputs[1]];
    if (x->rank < 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: input '%s' must have rank >= 1",
                         node->op_type, x->name);
    if ((axis->dtype != VKML_DTYPE_INT64 && axis->dtype != VKML_DTYPE_INT32) ||
        vkml_tensor_element_count(axis->rank, axis->dims) != 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: axis '%s' must be one int32 or int64 value", node->op_type,
                         axis->name);
    return VKML_OK;
}

vkml_status cumsum_resolve(const graph_value *values, const graph_node *node, const void *axis_data,
                           scan_geom *g, vkml_error *err)
{
    vkml_status st;
    int64_t axis;
    int a = 0;
    if ((st = cumsum_check(values, node, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]], *av = &values[node->inputs[1]];
    if (av->data || !axis_data) {
        if ((st = const_scalar(values, node, 1, &axis, err)))
            return st;
    } else {
        axis = av->dtype == VKML_DTYPE_INT64 ? *(const int64_t *)axis_data
                                             : *(const int32_t *)axis_data;
    }
    if ((st = reduce_axis(node, "axis", axis, x->rank, &a, err)))
        return st;
    axis_view(x, a, &g->outer, &g->len, &g->inner);
    return VKML_OK;
}

vkml_status cumsum_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    scan_geom g; /* the axis is checked now when constant, else when the kernel runs */
    vkml_status st = cumsum_check(values, node, err);
    if (!st && values[node->inputs[1]].data)
        st = cumsum_resolve(values, node, NULL, &g, err);
    if (st)
        return st;
    const graph_value *x = &values[node->inputs[0]];
    op_set_output(values, node, 0, x->dtype, x->rank, x->dims);
    return VKML_OK;
}

vkml_status topk_parse(const graph_node *node, void *params, vkml_error *err)
{
    topk_params *p = params;
    static const op_attr_spec specs[] = {
        {"axis", GRAPH_ATTR_INT}, {"largest", GRAPH_ATTR_INT}, {"sorted", GRAPH_ATTR_INT}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    p->axis = graph_attr_int(node, "axis", -1);
    p->largest = graph_attr_int(node, "largest", 1) != 0;
    p->sorted = graph_attr_int(node, "sorted", 1) != 0;
    return st;
}

vkml_status topk_resolve(const graph_value *values, const graph_node *node, topk_geom *g,
                         vkml_error *err)
{
    const topk_params *p = node->params;
    vkml_status st;
    int a = 0;
    if ((st = op_require_counts(node, 2, 2, 2, err)) ||
        (st = op_require_input(values, node, 0, err)) ||
        (st = const_scalar(values, node, 1, &g->k, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]];
    if (x->rank < 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "TopK: input '%s' must have rank >= 1",
                         x->name);
    if ((st = reduce_axis(node, "axis", p->axis, x->rank, &a, err)))
        return st;
    axis_view(x, a, &g->outer, &g->len, &g->inner);
    if (g->k < 0 || g->k > g->len)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "TopK: K %lld is out of range for axis %d of size %lld", (long long)g->k,
                         a, (long long)g->len);
    return VKML_OK;
}

vkml_status topk_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    topk_geom g;
    vkml_status st = topk_resolve(values, node, &g, err);
    if (st)
        return st;
    const graph_value *x = &values[node->inputs[0]];
    int64_t dims[VKML_MAX_RANK];
    int a = 0;
    reduce_axis(node, "axis", ((const topk_params *)node->params)->axis, x->rank, &a, err);
    memcpy(dims, x->dims, sizeof(dims));
    dims[a] = g.k;
    op_set_output(values, node, 0, x->dtype, x->rank, dims);
    op_set_output(values, node, 1, VKML_DTYPE_INT64, x->rank, dims);
    return VKML_OK;
}
