/* Resize through oneDNN's nearest resampling, for what it computes exactly as ONNX does:
 * float32, 1 to 3 spatial dims, each upsampled by a whole factor F with output index x
 * reading input x / F (the detectors' 2x nearest Upsample), N and C kept; in the layout the
 * input is stored in. Everything else (linear, cubic, fractions, crops) runs the C kernel. */
#include "cpu/onednn/onednn_node.h"
#include "ops/resize.h"

/* Like a pool: reads the input in the layout it is stored in, and writes that. */
static bool resize_claim(const graph_value *values, const graph_node *node,
                         const device_value_plan *plans, const onednn_layout *stored,
                         onednn_claim *claim)
{
    (void)plans;
    const graph_value *x = &values[node->inputs[0]];
    const resize_params *p = node->params;
    if (x->dtype != VKML_DTYPE_FLOAT || x->rank < 3 || x->rank > 5 || p->mode != RESIZE_NEAREST ||
        p->antialias)
        return false;
    onednn_layout in = stored[node->inputs[0]];
    *claim = (onednn_claim){.layout_inputs = 1u, .layout_output = true, .in = in, .out = in};
    return true;
}

/* Whether every output index x of axis d reads input x / F (F = out / in, whole), and the
 * batch and channel axes are kept: what oneDNN's nearest resampling reads for a whole
 * factor ((x + 0.5) / F - 0.5 rounded). */
static bool whole_factor_upsample(const resize_params *p, const resize_geometry *g)
{
    int64_t idx[8];
    double w[8];
    for (int d = 0; d < g->rank; d++) {
        if (g->in[d] <= 0 || g->out[d] % g->in[d] != 0 || (d < 2 && g->out[d] != g->in[d]))
            return false;
        int64_t f = g->out[d] / g->in[d];
        for (int64_t x = 0; x < g->out[d]; x++)
            if (resize_axis_taps(p, g, d, x, idx, w) != 1 || idx[0] != x / f || w[0] != 1.0)
                return false;
    }
    return true;
}

static vkml_status resize_build(const onednn_build *b, onednn_node *n, bool *taken, vkml_error *err)
{
    const graph_node *node = b->node;
    const graph_value *x = &b->values[node->inputs[0]];
    resize_inputs ri;
    resize_geometry g;
    vkml_error ignored = {0};
    *taken = false;
    if (resize_read_inputs(b->values, node, NULL, &ri, &ignored) ||
        resize_resolve(node->params, x->rank, x->dims, &ri, &g, &ignored) ||
        !whole_factor_upsample(node->params, &g))
        return VKML_OK;
    dnnl_memory_desc_t x_want, y_want;
    onednn_md(&x_want, x->rank, x->dims, b->claim.in);
    onednn_md(&y_want, x->rank, g.out, b->claim.out);
    dnnl_resampling_desc_t desc;
    if (dnnl_resampling_forward_desc_init(&desc, dnnl_forward_inference, dnnl_resampling_nearest,
                                          NULL, &x_want, &y_want) != dnnl_success)
        return VKML_OK;
    dnnl_primitive_desc_t pd;
    vkml_status st = onednn_pd(&desc, NULL, &pd, err);
    if (st || !pd)
        return st;
    *taken = true;
    return onednn_add_src_dst_step(n, b, pd, g.out, err);
}

const onednn_op onednn_resize_op = {.claim = resize_claim, .build = resize_build};
