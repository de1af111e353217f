/* MaxPool (without Indices), AveragePool and the global pools through oneDNN: float32, 1 to
 * 3 spatial dims, in the layout the input is stored in. */
#include "cpu/onednn/onednn_geometry.h"
#include "cpu/onednn/onednn_node.h"
#include "ops/pool.h"

#include <string.h>

static bool is_global(const graph_node *node)
{
    return strncmp(node->op_type, "Global", 6) == 0;
}

/* A float32 pool reads its input in the layout it is stored in, and writes that. */
static bool pool_claim(const graph_value *values, const graph_node *node,
                       const device_value_plan *plans, const onednn_layout *stored,
                       onednn_claim *claim)
{
    (void)plans;
    const graph_value *x = &values[node->inputs[0]];
    if (x->dtype != VKML_DTYPE_FLOAT || x->rank < 3 || x->rank > 5)
        return false;
    if (!is_global(node)) {
        const pool_attrs *a = node->params;
        if (a->is_lp)
            return false;
        /* A window wider than its input (a hostile model's 20000 x 20000 over 100 x 100):
         * oneDNN visits all of it for every output, the C kernel only the part inside. */
        for (int d = 0; d < a->win.n_kernel && d < x->rank - 2; d++) {
            int64_t dil = d < a->win.n_dilations ? a->win.dilations[d] : 1;
            if (dil * (a->win.kernel[d] - 1) + 1 > x->dims[2 + d])
                return false;
        }
    }
    onednn_layout in = stored[node->inputs[0]];
    *claim = (onednn_claim){.layout_inputs = 1u, .layout_output = true, .in = in, .out = in};
    return true;
}

/* The window of a global pool: the whole input, no pads. */
static void global_window(const graph_value *x, window_params *w)
{
    memset(w, 0, sizeof(*w));
    w->spatial = x->rank - 2;
    for (int d = 0; d < w->spatial; d++) {
        w->in[d] = w->kernel[d] = x->dims[2 + d];
        w->out[d] = w->strides[d] = w->dilations[d] = 1;
    }
}

vkml_status onednn_pool_pd(const window_params *w, dnnl_alg_kind_t alg,
                           const dnnl_memory_desc_t *src, const dnnl_memory_desc_t *dst,
                           dnnl_primitive_desc_t *pd, vkml_error *err)
{
    dnnl_dims_t strides, dilates, pad_l, pad_r, kernel;
    bool extended;
    *pd = NULL;
    onednn_window(w, strides, dilates, pad_l, pad_r, &extended);
    /* ceil_mode's extra end padding counts in an average that includes padding in oneDNN,
     * not in ONNX */
    if (extended && alg == dnnl_pooling_avg_include_padding)
        return VKML_OK;
    for (int d = 0; d < w->spatial; d++)
        kernel[d] = w->kernel[d];
    dnnl_pooling_v2_desc_t desc;
    if (dnnl_pooling_v2_forward_desc_init(&desc, dnnl_forward_inference, alg, src, dst, strides,
                                          kernel, dilates, pad_l, pad_r) != dnnl_success)
        return VKML_OK;
    return onednn_pd(&desc, NULL, pd, err);
}

static vkml_status pool_build(const onednn_build *b, onednn_node *n, bool *taken, vkml_error *err)
{
    const graph_node *node = b->node;
    const graph_value *x = &b->values[node->inputs[0]];
    *taken = false;
    window_params w;
    dnnl_alg_kind_t alg;
    vkml_error ignored;
    if (is_global(node)) {
        global_window(x, &w);
        alg = strcmp(node->op_type, "GlobalMaxPool") == 0 ? dnnl_pooling_max
                                                          : dnnl_pooling_avg_exclude_padding;
    } else {
        pool_params p;
        if (pool_params_parse(b->values, node, &p, &ignored) || p.has_indices || p.is_lp)
            return VKML_OK;
        w = p.win;
        alg = p.is_max              ? dnnl_pooling_max
              : p.count_include_pad ? dnnl_pooling_avg_include_padding
                                    : dnnl_pooling_avg_exclude_padding;
    }
    if (w.spatial > 3)
        return VKML_OK;
    int rank = x->rank;
    int64_t od[VKML_MAX_RANK] = {x->dims[0], x->dims[1]};
    for (int d = 0; d < w.spatial; d++)
        od[2 + d] = w.out[d];
    dnnl_memory_desc_t x_want, y_want;
    onednn_md(&x_want, rank, x->dims, b->claim.in);
    onednn_md(&y_want, rank, od, b->claim.out);
    dnnl_primitive_desc_t pd;
    vkml_status st = onednn_pool_pd(&w, alg, &x_want, &y_want, &pd, err);
    if (st || !pd)
        return st;
    /* A 2-D window over a plain NCHW input: oneDNN 2.6 has only its simple_nchw or ref code
     * there, which the C kernel's plane-at-once path outruns (MaxPool 3x3/2 of [1, 64, 112,
     * 112] at one thread on an AVX2 EPYC: 13.1 ms against 1.6-2.4, 2026-11-30). */
    if (!is_global(node) && w.spatial == 2 && strncmp(onednn_impl_name(pd), "jit", 3) != 0) {
        dnnl_primitive_desc_destroy(pd);
        return VKML_OK;
    }
    *taken = true;
    return onednn_add_src_dst_step(n, b, pd, od, err);
}

const onednn_op onednn_pool_op = {.claim = pool_claim, .build = pool_build};
