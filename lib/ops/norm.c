/* Normalisations: attribute parsers and shape functions (see norm.h). */
#include "ops/norm.h"
#include "ops/op_decls.h"

#include <math.h>
#include <string.h>

static const struct {
    const char *name;
    norm_op op;
} norm_names[] = {
    {"Softmax", NORM_SOFTMAX},
    {"LogSoftmax", NORM_LOG_SOFTMAX},
    {"Hardmax", NORM_HARDMAX},
    {"LayerNormalization", NORM_LAYER},
    {"InstanceNormalization", NORM_INSTANCE},
    {"GroupNormalization", NORM_GROUP},
    {"MeanVarianceNormalization", NORM_MVN},
    {"LpNormalization", NORM_LP},
    {"RMSNormalization", NORM_RMS},
};

vkml_status norm_parse(const graph_node *node, void *params, vkml_error *err)
{
    norm_params *p = params;
    static const op_attr_spec specs[] = {
        {"axis", GRAPH_ATTR_INT},  {"epsilon", GRAPH_ATTR_FLOAT},
        {"p", GRAPH_ATTR_INT},     {"num_groups", GRAPH_ATTR_INT},
        {"axes", GRAPH_ATTR_INTS}, {"stash_type", GRAPH_ATTR_INT},
    };
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    if (st)
        return st;
    size_t i = 0;
    while (i < VKML_ARRAY_SIZE(norm_names) && strcmp(norm_names[i].name, node->op_type))
        i++;
    if (i == VKML_ARRAY_SIZE(norm_names))
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s is not a normalisation", node->op_type);
    p->op = norm_names[i].op;
    bool softmax_like = p->op <= NORM_HARDMAX;
    p->axis = graph_attr_int(node, "axis", softmax_like && node->opset < 13 ? 1 : -1);
    p->epsilon = graph_attr_float(node, "epsilon", 1e-5f);
    p->p = graph_attr_int(node, "p", 2);
    if (p->op == NORM_LP && p->p != 1 && p->p != 2)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "LpNormalization: p is %lld, not 1 or 2",
                         (long long)p->p);
    p->num_groups = graph_attr_int(node, "num_groups", 0);
    if (p->op == NORM_GROUP && p->num_groups <= 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "GroupNormalization: num_groups is %lld, must be positive",
                         (long long)p->num_groups);
    size_t n = 3;
    const int64_t *axes = graph_attr_ints(node, "axes", &n);
    static const int64_t mvn_default[] = {0, 2, 3};
    if (!axes) {
        axes = mvn_default;
        n = 3;
    }
    if (n > VKML_MAX_RANK)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: %zu axes, more than rank %d allows",
                         node->op_type, n, VKML_MAX_RANK);
    p->n_axes = (int)n;
    memcpy(p->axes, axes, n * sizeof(*axes));
    return VKML_OK;
}

/* Mask of the dims from `axis` to the last. */
static uint32_t trailing_mask(int axis, int rank)
{
    return (uint32_t)((1u << rank) - (1u << axis));
}

/* Whether v's dims, leading 1s dropped, are the trailing dims of input 0 (a scale that
 * broadcasts over the normalised dims as a repeating suffix). */
static bool trailing_shape(const graph_value *values, const graph_node *node, const graph_value *v)
{
    const graph_value *x = &values[node->inputs[0]];
    int lead = 0;
    while (lead < v->rank && v->dims[lead] == 1)
        lead++;
    int k = v->rank - lead;
    if (k > x->rank)
        return false;
    for (int d = 0; d < k; d++)
        if (v->dims[lead + d] != x->dims[x->rank - k + d])
            return false;
    return true;
}

/* Inputs 1 and 2 (scale, bias; bias optional when `bias_optional`) hold `count`
 * elements each (LayerNormalization also takes one, broadcast). */
static vkml_status check_params(const graph_value *values, const graph_node *node, int64_t count,
                                bool bias_optional, norm_geom *g, vkml_error *err)
{
    g->param_count = count;
    for (int i = 1; i <= 2; i++) {
        if (i == 2 && bias_optional && (node->n_inputs < 3 || node->inputs[2] < 0))
            continue;
        vkml_status st = op_require_input(values, node, i, err);
        if (st)
            return st;
        const graph_value *v = &values[node->inputs[i]];
        int64_t n = (int64_t)vkml_tensor_element_count(v->rank, v->dims);
        bool layer_like = g->op == NORM_LAYER || g->op == NORM_RMS;
        if (layer_like && n != count && trailing_shape(values, node, v)) {
            if (i == 2 && g->r_mod != (n ? n : 1))
                return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                                 "%s: scale and bias broadcast differently", node->op_type);
            g->r_mod = n ? n : 1;
        } else if (n != count)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "%s: input %d '%s' has %lld elements, needs %lld", node->op_type, i,
                             v->name, (long long)n, (long long)count);
        if (v->dtype != values[node->inputs[0]].dtype)
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s: input %d '%s' is %s, input 0 is %s",
                             node->op_type, i, v->name, vkml_dtype_name(v->dtype),
                             vkml_dtype_name(values[node->inputs[0]].dtype));
    }
    return VKML_OK;
}

static vkml_status mvn_mask(const graph_node *node, const norm_params *p, int rank, uint32_t *mask,
                            vkml_error *err)
{
    *mask = 0;
    for (int k = 0; k < p->n_axes; k++) {
        int a;
        vkml_status st = reduce_axis(node, "axis", p->axes[k], rank, &a, err);
        if (st)
            return st;
        *mask |= 1u << a;
    }
    return VKML_OK;
}

/* GroupNormalization: [N, C, S...] as [N * G, C / G * S], one line per (n, group). */
static vkml_status group_view(const graph_value *values, const graph_node *node,
                              const norm_params *p, norm_geom *g, vkml_error *err)
{
    const graph_value *x = &values[node->inputs[0]];
    if (x->rank < 2)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: input '%s' needs rank >= 2",
                         node->op_type, x->name);
    int64_t n = x->dims[0], c = x->dims[1], s = 1, groups = p->num_groups;
    for (int d = 2; d < x->rank; d++)
        s *= x->dims[d];
    if (c % groups)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "GroupNormalization: %lld channels do not split into %lld groups",
                         (long long)c, (long long)groups);
    int64_t dims[2] = {n * groups, c / groups * s};
    reduce_view_init(2, dims, 2u, &g->view);
    g->line_mod = groups;
    if (node->opset >= 21) { /* scale and bias per channel */
        g->line_mul = c / groups;
        g->r_div = s ? s : 1;
        g->r_mod = c / groups;
        return check_params(values, node, c, false, g, err);
    }
    g->line_mul = 1;
    return check_params(values, node, groups, false, g, err);
}

static vkml_status norm_view(const graph_value *values, const graph_node *node,
                             const norm_params *p, norm_geom *g, vkml_error *err)
{
    const graph_value *x = &values[node->inputs[0]];
    int rank = x->rank, a = 0;
    uint32_t mask;
    vkml_status st;
    if (p->op == NORM_GROUP)
        return group_view(values, node, p, g, err);
    if (p->op == NORM_MVN) {
        if ((st = mvn_mask(node, p, rank, &mask, err)))
            return st;
        reduce_view_init(rank, x->dims, mask, &g->view);
        return VKML_OK;
    }
    if (p->op == NORM_INSTANCE) {
        if (rank < 2)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: input '%s' needs rank >= 2",
                             node->op_type, x->name);
        reduce_view_init(rank, x->dims, trailing_mask(2, rank), &g->view);
        g->line_mod = x->dims[1] ? x->dims[1] : 1;
        g->line_mul = 1;
        return check_params(values, node, x->dims[1], false, g, err);
    }
    if (rank < 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: input '%s' needs rank >= 1",
                         node->op_type, x->name);
    if ((st = reduce_axis(node, "axis", p->axis, rank, &a, err)))
        return st;
    bool coerce_2d = p->op <= NORM_HARDMAX && node->opset < 13;
    bool layer_like = p->op == NORM_LAYER || p->op == NORM_RMS;
    mask = (coerce_2d || layer_like) ? trailing_mask(a, rank) : 1u << a;
    reduce_view_init(rank, x->dims, mask, &g->view);
    if (!layer_like)
        return VKML_OK;
    g->stat_rank = rank;
    for (int d = 0; d < rank; d++)
        g->stat_dims[d] = d < a ? x->dims[d] : 1;
    g->r_mod = g->view.count ? g->view.count : 1;
    return check_params(values, node, g->view.count, true, g, err);
}

vkml_status norm_resolve(const graph_value *values, const graph_node *node, norm_geom *g,
                         vkml_error *err)
{
    const norm_params *p = node->params;
    static const int max_inputs[] = {
        [NORM_SOFTMAX] = 1, [NORM_LOG_SOFTMAX] = 1, [NORM_HARDMAX] = 1,
        [NORM_LAYER] = 3,   [NORM_INSTANCE] = 3,    [NORM_GROUP] = 3,
        [NORM_MVN] = 1,     [NORM_LP] = 1,          [NORM_RMS] = 2,
    };
    int max_in = max_inputs[p->op];
    vkml_status st;
    if ((st = op_require_counts(node, p->op == NORM_LAYER ? 2 : max_in, max_in, 1, err)) ||
        (st = op_require_input(values, node, 0, err)))
        return st;
    memset(g, 0, sizeof(*g));
    g->op = p->op;
    g->epsilon = p->epsilon;
    g->p = p->p;
    g->line_div = g->line_mod = g->r_div = g->r_mod = 1;
    g->stat_dtype = VKML_DTYPE_FLOAT;
    return norm_view(values, node, p, g, err);
}

vkml_status norm_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    norm_geom g;
    vkml_status st = norm_resolve(values, node, &g, err);
    if (st)
        return st;
    const graph_value *x = &values[node->inputs[0]];
    op_set_output(values, node, 0, x->dtype, x->rank, x->dims);
    for (int i = 1; i < node->n_outputs && i < 3; i++)
        if (g.op == NORM_LAYER && node->outputs[i] >= 0)
            op_set_output(values, node, i, g.stat_dtype, g.stat_rank, g.stat_dims);
    return VKML_OK;
}

vkml_status batchnorm_parse(const graph_node *node, void *params, vkml_error *err)
{
    channel_params *p = params;
    static const op_attr_spec specs[] = {{"epsilon", GRAPH_ATTR_FLOAT},
                                         {"momentum", GRAPH_ATTR_FLOAT},
                                         {"training_mode", GRAPH_ATTR_INT},
                                         {"is_test", GRAPH_ATTR_INT},
                                         {"spatial", GRAPH_ATTR_INT}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    if (st)
        return st;
    p->epsilon = graph_attr_float(node, "epsilon", 1e-5f);
    p->momentum = graph_attr_float(node, "momentum", 0.9f);
    int64_t training = graph_attr_int(node, "training_mode", 0);
    if (training != 0 && training != 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "BatchNormalization: training_mode %lld is not 0 or 1",
                         (long long)training);
    p->training = training == 1 && node->opset >= 14;
    if (p->training && !isfinite(p->momentum))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "BatchNormalization: momentum %g",
                         (double)p->momentum);
    /* Opset 6: is_test=0 means training when the statistics outputs are asked for. */
    bool stats_out = false;
    for (int o = 1; o < node->n_outputs; o++)
        stats_out |= node->outputs[o] >= 0;
    if (node->opset < 7 && graph_attr_int(node, "is_test", 0) == 0 && stats_out)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "BatchNormalization: is_test=0 with statistics outputs (training) is "
                         "not supported (inference only)");
    if (node->opset < 9 && graph_attr_int(node, "spatial", 1) == 0)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "BatchNormalization: spatial=0 (per-activation statistics) is not "
                         "supported");
    return VKML_OK;
}

/* x as [outer, channels, inner] around axis 1. */
static void channel_view(const graph_value *x, channel_geom *g)
{
    g->outer = x->dims[0];
    g->channels = x->rank > 1 ? x->dims[1] : 1;
    g->inner = 1;
    for (int d = 2; d < x->rank; d++)
        g->inner *= x->dims[d];
}

vkml_status batchnorm_resolve(const graph_value *values, const graph_node *node, channel_geom *g,
                              vkml_error *err)
{
    vkml_status st;
    const channel_params *p = node->params;
    /* Inference: Y only. Training (opset 14+): Y, running mean, running variance. The
     * opset 9-13 training outputs (saved mean/variance) are refused. */
    if ((st = op_require_counts(node, 5, 5, 1, err)))
        return st;
    for (int i = p->training ? 3 : 1; i < node->n_outputs; i++)
        if (node->outputs[i] >= 0)
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                             "BatchNormalization: output %d is a training-mode output (running "
                             "statistics) outside training_mode (opset 14+)",
                             i);
    for (int i = 0; i < 5; i++)
        if ((st = op_require_input(values, node, i, err)))
            return st;
    const graph_value *x = &values[node->inputs[0]];
    if (x->rank < 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "BatchNormalization: '%s' is a scalar",
                         x->name);
    channel_view(x, g);
    for (int i = 1; i < 5; i++) {
        const graph_value *v = &values[node->inputs[i]];
        if ((int64_t)vkml_tensor_element_count(v->rank, v->dims) != g->channels)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "BatchNormalization: input %d '%s' needs %lld elements (channels)", i,
                             v->name, (long long)g->channels);
        if (v->dtype != x->dtype)
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                             "BatchNormalization: input %d '%s' is %s, X is %s", i, v->name,
                             vkml_dtype_name(v->dtype), vkml_dtype_name(x->dtype));
    }
    return VKML_OK;
}

vkml_status lrn_parse(const graph_node *node, void *params, vkml_error *err)
{
    channel_params *p = params;
    static const op_attr_spec specs[] = {{"alpha", GRAPH_ATTR_FLOAT},
                                         {"beta", GRAPH_ATTR_FLOAT},
                                         {"bias", GRAPH_ATTR_FLOAT},
                                         {"size", GRAPH_ATTR_INT}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    if (st)
        return st;
    p->alpha = graph_attr_float(node, "alpha", 1e-4f);
    p->beta = graph_attr_float(node, "beta", 0.75f);
    p->bias = graph_attr_float(node, "bias", 1.0f);
    p->size = graph_attr_int(node, "size", 0);
    if (p->size <= 0 || p->size > (1 << 20))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "LRN: size %lld is out of range",
                         (long long)p->size);
    return VKML_OK;
}

vkml_status lrn_resolve(const graph_value *values, const graph_node *node, channel_geom *g,
                        vkml_error *err)
{
    vkml_status st;
    if ((st = op_require_counts(node, 1, 1, 1, err)) ||
        (st = op_require_input(values, node, 0, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]];
    if (x->rank < 2)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "LRN: input '%s' needs rank >= 2", x->name);
    channel_view(x, g);
    return VKML_OK;
}

vkml_status channel_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    channel_geom g;
    bool is_bn = strcmp(node->op_type, "BatchNormalization") == 0;
    vkml_status st =
        is_bn ? batchnorm_resolve(values, node, &g, err) : lrn_resolve(values, node, &g, err);
    if (st)
        return st;
    const graph_value *x = &values[node->inputs[0]];
    op_set_output(values, node, 0, x->dtype, x->rank, x->dims);
    int64_t channels[1] = {g.channels};
    for (int i = 1; is_bn && i < 3 && i < node->n_outputs; i++)
        if (node->outputs[i] >= 0)
            op_set_output(values, node, i, x->dtype, 1, channels);
    return VKML_OK;
}
