#include "ops/conv.h"
#include "ops/epilogue.h"
#include "ops/op_decls.h"
#include "ops/pool.h"

static const vkml_dtype conv_dtypes[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16, VKML_DTYPE_DOUBLE};

static vkml_status check_inputs(const graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    if ((st = op_require_counts(node, 2, 3, 1, err)))
        return st;
    for (int i = 0; i < node->n_inputs; i++) {
        if (i == 2 && node->inputs[i] < 0)
            continue;
        if ((st = op_require_input(values, node, i, err)) ||
            (st =
                 op_require_dtype(values, node, i, conv_dtypes, VKML_ARRAY_SIZE(conv_dtypes), err)))
            return st;
    }
    return VKML_OK;
}

OP_PARSE_DECL(conv_parse)
{
    conv_attrs *a = params;
    static const op_attr_spec specs[] = {{"group", GRAPH_ATTR_INT}};
    vkml_status st;
    if ((st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err)) ||
        (st = window_attrs_parse(node, &a->win, err)))
        return st;
    a->group = graph_attr_int(node, "group", 1);
    if (a->group < 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "group %lld must be >= 1",
                         (long long)a->group);
    return VKML_OK;
}

/* kernel_shape when given must match W's spatial dims. */
static vkml_status read_kernel(const window_attrs *a, const graph_value *w, int spatial,
                               int64_t *kernel, vkml_error *err)
{
    for (int d = 0; d < spatial; d++) {
        kernel[d] = w->dims[2 + d];
        if (a->n_kernel && (a->n_kernel != spatial || a->kernel[d] != kernel[d]))
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "attribute 'kernel_shape' does not match the weight '%s'", w->name);
    }
    return VKML_OK;
}

vkml_status conv_params_parse(const graph_value *values, const graph_node *node, conv_params *p,
                              vkml_error *err)
{
    vkml_status st = check_inputs(values, node, err);
    if (st)
        return st;
    bool has_bias = node->n_inputs > 2 && node->inputs[2] >= 0;
    if ((st = conv_shape_parse(node, &values[node->inputs[0]], &values[node->inputs[1]],
                               has_bias ? &values[node->inputs[2]] : NULL, p, err)))
        return st;
    const graph_epilogue *e = node->epilogue;
    if (!e || !e->pool)
        return VKML_OK;
    /* the fused MaxPool (passes/fuse_epilogue.c): 2-D, over the conv's output */
    const pool_attrs *pa = e->pool;
    if (p->win.spatial != 2 || pa->win.n_kernel != 2)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Conv with a fused MaxPool: both must be 2-D (VKML_NO_FUSE=1 loads "
                         "the model unfused)");
    p->pooled = true;
    return window_params_parse(&pa->win, e->pool_opset, 2, p->win.out, pa->win.kernel,
                               pa->ceil_mode, e->pool_opset >= 10, &p->pool, err);
}

vkml_status conv_shape_parse(const graph_node *node, const graph_value *x, const graph_value *w,
                             const graph_value *bias, conv_params *p, vkml_error *err)
{
    vkml_status st;
    if ((st = window_check_input(x, node->op_type, err)))
        return st;
    if (w->rank != x->rank)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "weight '%s' has rank %d, the input "
                         "'%s' rank %d",
                         w->name, w->rank, x->name, x->rank);
    p->batch = x->dims[0];
    p->in_channels = x->dims[1];
    p->out_channels = w->dims[0];
    p->pooled = false;
    const conv_attrs *a = node->params;
    p->group = a->group;
    if (p->group < 1 || p->in_channels % p->group || p->out_channels % p->group)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "group %lld does not divide input channels %lld and output "
                         "channels %lld",
                         (long long)p->group, (long long)p->in_channels,
                         (long long)p->out_channels);
    if (w->dims[1] * p->group != p->in_channels)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "input '%s' has %lld channels, the weight '%s' expects %lld "
                         "(%lld per group x %lld groups)",
                         x->name, (long long)p->in_channels, w->name,
                         (long long)(w->dims[1] * p->group), (long long)w->dims[1],
                         (long long)p->group);
    p->has_bias = bias != NULL;
    if (p->has_bias) {
        const graph_value *b = bias;
        if (b->rank != 1 || b->dims[0] != p->out_channels)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "bias '%s' must have shape [%lld]",
                             b->name, (long long)p->out_channels);
    }
    int spatial = x->rank - 2;
    int64_t kernel[OP_MAX_SPATIAL];
    if ((st = read_kernel(&a->win, w, spatial, kernel, err)))
        return st;
    return window_params_parse(&a->win, node->opset, spatial, x->dims + 2, kernel, false, true,
                               &p->win, err);
}

void conv_set_output(graph_value *values, const graph_node *node, const conv_params *p,
                     vkml_dtype dtype)
{
    int64_t dims[VKML_MAX_RANK];
    int rank = window_output_dims(p->pooled ? &p->pool : &p->win, p->batch, p->out_channels, dims);
    op_set_output(values, node, 0, dtype, rank, dims);
}

vkml_status conv_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    conv_params p;
    vkml_status st = conv_params_parse(values, node, &p, err);
    if (st)
        return st;
    conv_set_output(values, node, &p, values[node->inputs[0]].dtype);
    return op_epilogue_check(values, node, err);
}
