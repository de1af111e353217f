/* Softmax, LogSoftmax and LayerNormalization through oneDNN: float32, over trailing dims of
 * a plain input (every line of the normalised elements contiguous), LayerNormalization
 * without its Mean and InvStdDev outputs, its scale and bias over the whole normalised
 * shape. */
#include "cpu/onednn/onednn_node.h"
#include "ops/norm.h"

/* The node as [lines, count] rows normalised along dim 1, when it has that form. */
static bool as_rows(const graph_value *values, const graph_node *node, norm_geom *g)
{
    vkml_error ignored;
    const graph_value *x = &values[node->inputs[0]];
    if (x->dtype != VKML_DTYPE_FLOAT || values[node->outputs[0]].dtype != VKML_DTYPE_FLOAT ||
        norm_resolve(values, node, g, &ignored))
        return false;
    if (g->op != NORM_SOFTMAX && g->op != NORM_LOG_SOFTMAX && g->op != NORM_LAYER)
        return false;
    if (g->view.n_red != 1 || g->view.red_strides[0] != 1 || g->view.count < 1 ||
        g->view.lines * g->view.count != (int64_t)vkml_tensor_element_count(x->rank, x->dims))
        return false;
    if (g->op != NORM_LAYER)
        return true;
    for (int o = 1; o < node->n_outputs; o++)
        if (node->outputs[o] >= 0)
            return false;
    for (int i = 1; i < node->n_inputs; i++)
        if (node->inputs[i] >= 0 && values[node->inputs[i]].dtype != VKML_DTYPE_FLOAT)
            return false;
    /* the scale and bias: one value per element of a line, the same for every line */
    return g->param_count == g->view.count && g->r_div == 1 && g->r_mod == g->view.count &&
           (g->line_mod == 1 || g->line_mul == 0);
}

static bool norm_claim(const graph_value *values, const graph_node *node,
                       const device_value_plan *plans, const onednn_layout *stored,
                       onednn_claim *claim)
{
    (void)plans;
    (void)stored;
    norm_geom g;
    *claim = (onednn_claim){0};
    return as_rows(values, node, &g);
}

/* The layer normalization of rows md (epsilon; a shift or not): pd NULL where oneDNN has
 * none. */
static vkml_status layer_norm_pd(const dnnl_memory_desc_t *md, float epsilon, bool shift,
                                 dnnl_primitive_desc_t *pd, vkml_error *err)
{
    dnnl_layer_normalization_desc_t d;
    unsigned flags = dnnl_use_scale | (shift ? dnnl_use_shift : 0u);
    *pd = NULL;
    if (dnnl_layer_normalization_forward_desc_init(&d, dnnl_forward_inference, md, NULL, epsilon,
                                                   flags) != dnnl_success)
        return VKML_OK;
    return onednn_pd(&d, NULL, pd, err);
}

/* Appends pd's step with args once every memory of args was made (pd destroyed either way). */
static vkml_status add_step(onednn_node *n, dnnl_primitive_desc_t pd, int n_args,
                            const dnnl_exec_arg_t *args, vkml_error *err)
{
    for (int i = 0; i < n_args; i++)
        if (!args[i].memory) {
            dnnl_primitive_desc_destroy(pd);
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory");
        }
    return onednn_add_pd_step(n, pd, n_args, args, err);
}

static vkml_status norm_build(const onednn_build *b, onednn_node *n, bool *taken, vkml_error *err)
{
    const graph_node *node = b->node;
    norm_geom g;
    *taken = false;
    if (!as_rows(b->values, node, &g))
        return VKML_OK;
    int64_t rows[2] = {g.view.lines, g.view.count};
    dnnl_memory_desc_t md, param_md;
    onednn_md(&md, 2, rows, ONEDNN_PLAIN);
    onednn_md(&param_md, 1, &g.view.count, ONEDNN_PLAIN);
    dnnl_primitive_desc_t pd = NULL;
    vkml_status st = VKML_OK;
    bool has_bias = g.op == NORM_LAYER && node->n_inputs > 2 && node->inputs[2] >= 0;
    if (g.op == NORM_LAYER) {
        st = layer_norm_pd(&md, g.epsilon, has_bias, &pd, err);
    } else {
        dnnl_softmax_v2_desc_t d;
        if (dnnl_softmax_v2_forward_desc_init(&d, dnnl_forward_inference,
                                              g.op == NORM_SOFTMAX ? dnnl_softmax_accurate
                                                                   : dnnl_softmax_log,
                                              &md, &md, 1) == dnnl_success)
            st = onednn_pd(&d, NULL, &pd, err);
    }
    if (st || !pd)
        return st;
    onednn_note_impl(n, pd);
    dnnl_exec_arg_t args[4] = {
        {DNNL_ARG_SRC, onednn_mem(n, &md, b->ptrs[node->inputs[0]])},
        {DNNL_ARG_DST, onednn_mem(n, &md, b->ptrs[node->outputs[0]])},
    };
    int n_args = 2;
    if (g.op == NORM_LAYER)
        args[n_args++] =
            (dnnl_exec_arg_t){DNNL_ARG_SCALE, onednn_mem(n, &param_md, b->ptrs[node->inputs[1]])};
    if (has_bias)
        args[n_args++] =
            (dnnl_exec_arg_t){DNNL_ARG_SHIFT, onednn_mem(n, &param_md, b->ptrs[node->inputs[2]])};
    if ((st = add_step(n, pd, n_args, args, err)))
        return st;
    *taken = true;
    return VKML_OK;
}

const onednn_op onednn_norm_op = {.claim = norm_claim, .build = norm_build};

vkml_status onednn_add_epilogue_norm(const onednn_build *b, onednn_node *n, bool *added,
                                     vkml_error *err)
{
    const graph_node *node = b->node;
    const graph_epilogue *e = node->epilogue;
    const graph_value *y = &b->values[node->outputs[0]];
    *added = false;
    if (!e || !e->norm || y->dtype != VKML_DTYPE_FLOAT || y->rank < 1 || y->dims[y->rank - 1] < 1 ||
        e->norm_scale < 0 || e->norm_scale >= node->n_inputs)
        return VKML_OK;
    int64_t count = y->dims[y->rank - 1];
    int64_t rows[2] = {(int64_t)vkml_tensor_element_count(y->rank, y->dims) / count, count};
    int shift =
        e->norm_bias >= 0 && e->norm_bias < node->n_inputs ? node->inputs[e->norm_bias] : -1;
    dnnl_memory_desc_t md, param_md;
    onednn_md(&md, 2, rows, ONEDNN_PLAIN);
    onednn_md(&param_md, 1, &count, ONEDNN_PLAIN);
    dnnl_primitive_desc_t pd = NULL;
    vkml_status st = layer_norm_pd(&md, e->norm_epsilon, shift >= 0, &pd, err);
    if (st || !pd)
        return st;
    dnnl_memory_t rows_mem = onednn_mem(n, &md, b->ptrs[node->outputs[0]]); /* in place */
    dnnl_exec_arg_t args[4] = {
        {DNNL_ARG_SRC, rows_mem},
        {DNNL_ARG_DST, rows_mem},
        {DNNL_ARG_SCALE, onednn_mem(n, &param_md, b->ptrs[node->inputs[e->norm_scale]])},
        {DNNL_ARG_SHIFT, shift >= 0 ? onednn_mem(n, &param_md, b->ptrs[shift]) : NULL},
    };
    if ((st = add_step(n, pd, shift >= 0 ? 4 : 3, args, err)))
        return st;
    *added = true;
    return VKML_OK;
}
