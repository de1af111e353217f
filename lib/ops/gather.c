/* Shapes and index descriptors of Gather, GatherElements, GatherND, ScatterElements,
 * Scatter and ScatterND (gather.h says what a descriptor is). */
#include "ops/gather.h"
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

static int64_t product(const int64_t *dims, int from, int to)
{
    int64_t p = 1;
    for (int d = from; d < to; d++)
        p *= dims[d];
    return p;
}

static bool is_scatter(const graph_node *node)
{
    return strncmp(node->op_type, "Scatter", 7) == 0;
}

static const char *reduction_names[] = {"none", "add", "mul", "max", "min"};

vkml_status gather_parse(const graph_node *node, void *params, vkml_error *err)
{
    gather_params *p = params;
    bool nd = strcmp(node->op_type, "GatherND") == 0;
    const char *axis_name = nd ? "batch_dims" : "axis";
    const op_attr_spec specs[] = {{axis_name, GRAPH_ATTR_INT}, {"reduction", GRAPH_ATTR_STRING}};
    vkml_status st = op_check_attr_types(node, specs, 2, err);
    if (st)
        return st;
    p->axis = graph_attr_int(node, axis_name, 0);
    const char *r = graph_attr_string(node, "reduction", "none");
    int max = node->opset >= 18 ? IX_MIN : node->opset >= 16 ? IX_MUL : IX_NONE;
    int i = 0;
    while (i <= max && strcmp(r, reduction_names[i]) != 0)
        i++;
    if (i > max)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: reduction '%s' is not supported at opset %d", node->op_type, r,
                         node->opset);
    p->reduction = (ix_reduction)i;
    return VKML_OK;
}

/* Data (0) has a dtype with a size; indices (1) are int32 or int64. */
static vkml_status check_inputs(const graph_value *values, const graph_node *node, int n,
                                vkml_error *err)
{
    vkml_status st;
    if ((st = op_require_counts(node, n, n, 1, err)))
        return st;
    for (int i = 0; i < n; i++)
        if ((st = op_require_input(values, node, i, err)))
            return st;
    const graph_value *data = &values[node->inputs[0]], *idx = &values[node->inputs[1]];
    if (vkml_dtype_size(data->dtype) == 0)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s: dtype %s is not supported",
                         node->op_type, vkml_dtype_name(data->dtype));
    if (idx->dtype != VKML_DTYPE_INT64 && idx->dtype != VKML_DTYPE_INT32)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: indices '%s' must be int32 or int64, not %s", node->op_type,
                         idx->name, vkml_dtype_name(idx->dtype));
    if (n == 3 && values[node->inputs[2]].dtype != data->dtype)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: updates and data differ in dtype",
                         node->op_type);
    return VKML_OK;
}

/* GatherElements, ScatterElements, Scatter: indices (and updates) of data's rank, no
 * larger than data off the axis. */
static vkml_status elements_check(const graph_value *values, const graph_node *node, int *axis,
                                  vkml_error *err)
{
    char sd[160], si[160];
    vkml_status st = check_inputs(values, node, is_scatter(node) ? 3 : 2, err);
    if (st)
        return st;
    const graph_value *data = &values[node->inputs[0]], *idx = &values[node->inputs[1]];
    int64_t a = ((const gather_params *)node->params)->axis;
    if (a < -data->rank || a >= data->rank || data->rank < 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: axis %lld is out of range for rank %d",
                         node->op_type, (long long)a, data->rank);
    *axis = (int)(a < 0 ? a + data->rank : a);
    bool ok = idx->rank == data->rank;
    for (int d = 0; ok && d < idx->rank; d++)
        ok = d == *axis || idx->dims[d] <= data->dims[d];
    if (ok && is_scatter(node)) {
        const graph_value *u = &values[node->inputs[2]];
        ok = u->rank == idx->rank &&
             memcmp(u->dims, idx->dims, sizeof(int64_t) * (size_t)u->rank) == 0;
    }
    if (!ok)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: indices %s do not fit data %s (or updates differ from indices)",
                         node->op_type, graph_shape_string(idx->rank, idx->dims, si, sizeof(si)),
                         graph_shape_string(data->rank, data->dims, sd, sizeof(sd)));
    return VKML_OK;
}

/* GatherND, ScatterND: index tuples of m components after b batch dims. */
static vkml_status nd_check(const graph_value *values, const graph_node *node, int *b, int *m,
                            vkml_error *err)
{
    vkml_status st = check_inputs(values, node, is_scatter(node) ? 3 : 2, err);
    if (st)
        return st;
    const graph_value *data = &values[node->inputs[0]], *idx = &values[node->inputs[1]];
    int64_t batch = is_scatter(node) ? 0 : ((const gather_params *)node->params)->axis;
    int q = idx->rank, r = data->rank;
    int64_t last = q > 0 ? idx->dims[q - 1] : -1;
    bool ok = q >= 1 && r >= 1 && batch >= 0 && batch < q && batch < r && last >= 1 &&
              last <= r - batch && q - 1 + r - batch - last <= VKML_MAX_RANK;
    for (int d = 0; ok && d < batch; d++)
        ok = idx->dims[d] == data->dims[d];
    if (!ok)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: indices of rank %d (last dim %lld) and batch_dims %lld do not fit "
                         "data of rank %d",
                         node->op_type, q, (long long)last, (long long)batch, r);
    *b = (int)batch;
    *m = (int)last;
    return VKML_OK;
}

vkml_status gather_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st = check_inputs(values, node, 2, err);
    if (st)
        return st;
    const graph_value *data = &values[node->inputs[0]], *idx = &values[node->inputs[1]];
    int64_t a = ((const gather_params *)node->params)->axis;
    if (data->rank < 1 || a < -data->rank || a >= data->rank ||
        data->rank - 1 + idx->rank > VKML_MAX_RANK)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Gather: axis %lld on data of rank %d, indices of rank %d", (long long)a,
                         data->rank, idx->rank);
    int axis = (int)(a < 0 ? a + data->rank : a), rank = 0;
    int64_t dims[VKML_MAX_RANK];
    for (int d = 0; d < axis; d++)
        dims[rank++] = data->dims[d];
    for (int d = 0; d < idx->rank; d++)
        dims[rank++] = idx->dims[d];
    for (int d = axis + 1; d < data->rank; d++)
        dims[rank++] = data->dims[d];
    op_set_output(values, node, 0, data->dtype, rank, dims);
    return VKML_OK;
}

vkml_status gather_elements_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    int axis;
    vkml_status st = elements_check(values, node, &axis, err);
    if (st)
        return st;
    const graph_value *data = &values[node->inputs[0]], *idx = &values[node->inputs[1]];
    const graph_value *shape = is_scatter(node) ? data : idx;
    op_set_output(values, node, 0, data->dtype, shape->rank, shape->dims);
    return VKML_OK;
}

vkml_status gather_nd_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    int b, m;
    vkml_status st = nd_check(values, node, &b, &m, err);
    if (st)
        return st;
    const graph_value *data = &values[node->inputs[0]], *idx = &values[node->inputs[1]];
    if (is_scatter(node)) {
        const graph_value *u = &values[node->inputs[2]];
        bool ok = u->rank == idx->rank - 1 + data->rank - m;
        for (int d = 0; ok && d < u->rank; d++)
            ok = u->dims[d] ==
                 (d < idx->rank - 1 ? idx->dims[d] : data->dims[d - (idx->rank - 1) + m]);
        if (!ok)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "ScatterND: updates '%s' must have shape indices[:-1] + data[%d:]",
                             u->name, m);
        op_set_output(values, node, 0, data->dtype, data->rank, data->dims);
        return VKML_OK;
    }
    int64_t dims[VKML_MAX_RANK];
    int rank = 0;
    for (int d = 0; d < idx->rank - 1; d++)
        dims[rank++] = idx->dims[d];
    for (int d = b + m; d < data->rank; d++)
        dims[rank++] = data->dims[d];
    op_set_output(values, node, 0, data->dtype, rank, dims);
    return VKML_OK;
}

/* Descriptors */

static void describe_elements(const graph_value *data, const graph_value *idx, int axis, ix_desc *d)
{
    int64_t strides[VKML_MAX_RANK];
    dense_strides(data->rank, data->dims, strides);
    d->rank = idx->rank;
    memcpy(d->dims, idx->dims, sizeof(d->dims));
    memcpy(d->direct, strides, sizeof(d->direct));
    d->direct[axis] = 0;
    dense_strides(idx->rank, idx->dims, d->row);
    d->k = 1;
    d->idx_strides[0] = strides[axis];
    d->idx_bounds[0] = data->dims[axis];
}

/* Domain [outer, rows, inner]: row = outer * outer_rows + j. */
static void describe_rows(const graph_value *data, int first, int m, int64_t outer,
                          int64_t outer_rows, int64_t rows, ix_desc *d)
{
    int64_t strides[VKML_MAX_RANK];
    dense_strides(data->rank, data->dims, strides);
    int64_t inner = product(data->dims, first + m, data->rank);
    d->rank = 3;
    memcpy(d->dims, (int64_t[]){outer, rows, inner}, 3 * sizeof(int64_t));
    memcpy(d->direct, (int64_t[]){product(data->dims, first, data->rank), 0, 1},
           3 * sizeof(int64_t));
    memcpy(d->row, (int64_t[]){outer_rows, 1, 0}, 3 * sizeof(int64_t));
    d->k = m;
    for (int t = 0; t < m; t++) {
        d->idx_strides[t] = strides[first + t];
        d->idx_bounds[t] = data->dims[first + t];
    }
}

vkml_status ix_describe(const graph_value *values, const graph_node *node, ix_desc *d,
                        vkml_error *err)
{
    memset(d, 0, sizeof(*d));
    const graph_value *data = &values[node->inputs[0]], *idx = &values[node->inputs[1]];
    const gather_params *p = node->params;
    d->scatter = is_scatter(node);
    d->reduction = p->reduction;
    int axis, b, m;
    vkml_status st;
    switch (node->op->id) {
    case OP_ID_Gather:
        axis = (int)(p->axis < 0 ? p->axis + data->rank : p->axis);
        describe_rows(data, axis, 1, product(data->dims, 0, axis), 0,
                      (int64_t)vkml_tensor_element_count(idx->rank, idx->dims), d);
        return VKML_OK;
    case OP_ID_GatherND:
    case OP_ID_ScatterND:
        if ((st = nd_check(values, node, &b, &m, err)))
            return st;
        int64_t rows = product(idx->dims, b, idx->rank - 1);
        describe_rows(data, b, m, product(data->dims, 0, b), rows, rows, d);
        return VKML_OK;
    default:
        if ((st = elements_check(values, node, &axis, err)))
            return st;
        describe_elements(data, idx, axis, d);
        return VKML_OK;
    }
}

bool gather_block(const graph_value *values, const graph_node *node, int64_t *offset)
{
    if (!node->op || node->op->id != OP_ID_Gather || !node->params || node->n_inputs != 2 ||
        node->inputs[0] < 0 || node->inputs[1] < 0)
        return false;
    const graph_value *data = &values[node->inputs[0]], *idx = &values[node->inputs[1]];
    int64_t axis = ((const gather_params *)node->params)->axis;
    axis = axis < 0 ? axis + data->rank : axis;
    if (idx->kind != GRAPH_VALUE_CONSTANT || !idx->data || axis < 0 || axis >= data->rank ||
        vkml_tensor_element_count(idx->rank, idx->dims) != 1)
        return false;
    int64_t i;
    if (idx->dtype == VKML_DTYPE_INT64)
        i = *(const int64_t *)idx->data;
    else if (idx->dtype == VKML_DTYPE_INT32)
        i = *(const int32_t *)idx->data;
    else
        return false;
    int64_t n = data->dims[axis], inner = 1;
    i = i < 0 ? i + n : i;
    if (i < 0 || i >= n)
        return false;
    for (int d = 0; d < axis; d++)
        if (data->dims[d] != 1)
            return false;
    for (int d = (int)axis + 1; d < data->rank; d++)
        inner *= data->dims[d];
    *offset = i * inner;
    return true;
}
