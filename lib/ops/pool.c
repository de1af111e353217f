#include "ops/pool.h"
#include "ops/op_decls.h"

#include <string.h>

/* MaxPool takes 8-bit integers too (opset 12); the others floats. */
static const vkml_dtype pool_dtypes[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16, VKML_DTYPE_DOUBLE,
                                         VKML_DTYPE_INT8, VKML_DTYPE_UINT8};

/* One float input of rank >= 3 (N, C, spatial...). */
static vkml_status check_input(const graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    if ((st = op_require_counts(node, 1, 1, 1, err)) ||
        (st = op_require_input(values, node, 0, err)) ||
        (st = op_require_dtype(values, node, 0, pool_dtypes,
                               strcmp(node->op_type, "MaxPool") == 0 ? 5 : 3, err)))
        return st;
    return window_check_input(&values[node->inputs[0]], node->op_type, err);
}

OP_PARSE_DECL(pool_parse)
{
    pool_attrs *a = params;
    static const op_attr_spec specs[] = {{"ceil_mode", GRAPH_ATTR_INT},
                                         {"count_include_pad", GRAPH_ATTR_INT},
                                         {"storage_order", GRAPH_ATTR_INT},
                                         {"p", GRAPH_ATTR_INT}};
    vkml_status st;
    if ((st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err)) ||
        (st = window_attrs_parse(node, &a->win, err)))
        return st;
    if (!a->win.n_kernel)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "attribute 'kernel_shape' is required");
    a->is_max = strcmp(node->op_type, "MaxPool") == 0;
    a->is_lp = strcmp(node->op_type, "LpPool") == 0;
    a->ceil_mode = graph_attr_int(node, "ceil_mode", 0) != 0;
    a->count_include_pad = graph_attr_int(node, "count_include_pad", 0) != 0;
    int64_t lp = graph_attr_int(node, "p", 2);
    if (a->is_lp && (lp < 1 || lp > 64))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "LpPool: p %lld is not in [1, 64]",
                         (long long)lp);
    a->lp_p = (float)lp;
    int64_t order = graph_attr_int(node, "storage_order", 0);
    if (order != 0 && order != 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "attribute 'storage_order' must be 0 or 1, not %lld", (long long)order);
    a->storage_order = (int)order;
    if (!a->is_max && node->n_outputs > 1 && node->outputs[1] >= 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s has one output", node->op_type);
    return VKML_OK;
}

vkml_status pool_params_parse(const graph_value *values, const graph_node *node, pool_params *p,
                              vkml_error *err)
{
    vkml_status st = check_input(values, node, err);
    if (st)
        return st;
    const pool_attrs *a = node->params;
    const graph_value *x = &values[node->inputs[0]];
    int spatial = x->rank - 2;
    if (a->win.n_kernel != spatial)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "attribute 'kernel_shape' has %d values for %d spatial dims",
                         a->win.n_kernel, spatial);
    memset(p, 0, sizeof(*p));
    p->is_max = a->is_max;
    p->is_lp = a->is_lp;
    p->batch = x->dims[0];
    p->channels = x->dims[1];
    p->ceil_mode = a->ceil_mode;
    p->count_include_pad = a->count_include_pad;
    p->lp_p = a->lp_p;
    p->storage_order = a->storage_order;
    p->has_indices = p->is_max && node->n_outputs > 1 && node->outputs[1] >= 0;
    /* dilations: MaxPool since opset 10, LpPool 18, AveragePool 19. */
    bool dilations = node->opset >= (p->is_max ? 10 : p->is_lp ? 18 : 19);
    return window_params_parse(&a->win, node->opset, spatial, x->dims + 2, a->win.kernel,
                               p->ceil_mode, dilations, &p->win, err);
}

vkml_status pool_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    pool_params p;
    vkml_status st = pool_params_parse(values, node, &p, err);
    if (st)
        return st;
    int64_t dims[VKML_MAX_RANK];
    int rank = window_output_dims(&p.win, p.batch, p.channels, dims);
    op_set_output(values, node, 0, values[node->inputs[0]].dtype, rank, dims);
    if (p.has_indices)
        op_set_output(values, node, 1, VKML_DTYPE_INT64, rank, dims);
    return VKML_OK;
}

vkml_status global_pool_params_parse(const graph_value *values, const graph_node *node,
                                     global_pool_params *p, vkml_error *err)
{
    vkml_status st = check_input(values, node, err);
    if (st)
        return st;
    const graph_value *x = &values[node->inputs[0]];
    p->is_max = strcmp(node->op_type, "GlobalMaxPool") == 0;
    p->batch = x->dims[0];
    p->channels = x->dims[1];
    p->spatial_size = (int64_t)vkml_tensor_element_count(x->rank - 2, x->dims + 2);
    if (p->spatial_size < 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "input '%s' has an empty spatial grid",
                         x->name);
    return VKML_OK;
}

vkml_status global_pool_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    global_pool_params p;
    vkml_status st = global_pool_params_parse(values, node, &p, err);
    if (st)
        return st;
    const graph_value *x = &values[node->inputs[0]];
    int64_t dims[VKML_MAX_RANK];
    for (int d = 0; d < x->rank; d++)
        dims[d] = d < 2 ? x->dims[d] : 1;
    op_set_output(values, node, 0, x->dtype, x->rank, dims);
    return VKML_OK;
}
