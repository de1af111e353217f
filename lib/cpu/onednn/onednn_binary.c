/* Add, Sub, Mul and Div through oneDNN's binary primitive: float32, numpy broadcasting of
 * the second input (the first when the op commutes), ranks up to 5 in the layout the first
 * input is stored in. */
#include "cpu/onednn/onednn_node.h"
#include "ops/elementwise.h"

#include <string.h>

/* The node's operands in order (swapped for a commuting op whose first input broadcasts)
 * and oneDNN's algorithm; false when the library does not take it. */
static bool binary_form(const graph_value *values, const graph_node *node, int *src0, int *src1,
                        dnnl_alg_kind_t *alg)
{
    const eltwise_params *p = node->params;
    if (!p || p->kind != ELT_BINARY || p->legacy_broadcast || node->n_inputs != 2 ||
        node->inputs[0] < 0 || node->inputs[1] < 0)
        return false;
    switch (p->op) {
    case ELT_ADD: *alg = dnnl_binary_add; break;
    case ELT_SUB: *alg = dnnl_binary_sub; break;
    case ELT_MUL: *alg = dnnl_binary_mul; break;
    case ELT_DIV: *alg = dnnl_binary_div; break;
    default: return false;
    }
    const graph_value *y = &values[node->outputs[0]];
    if (y->dtype != VKML_DTYPE_FLOAT || y->rank < 1 || y->rank > 5)
        return false;
    *src0 = node->inputs[0], *src1 = node->inputs[1];
    const graph_value *a = &values[*src0];
    bool full = a->rank == y->rank;
    for (int d = 0; full && d < y->rank; d++)
        full = a->dims[d] == y->dims[d];
    if (!full) {
        if (*alg == dnnl_binary_sub || *alg == dnnl_binary_div)
            return false;
        *src0 = node->inputs[1], *src1 = node->inputs[0];
        a = &values[*src0];
        full = a->rank == y->rank;
        for (int d = 0; full && d < y->rank; d++)
            full = a->dims[d] == y->dims[d];
    }
    return full && a->dtype == VKML_DTYPE_FLOAT && values[*src1].dtype == VKML_DTYPE_FLOAT;
}

/* The second operand's dims lined up with the output's (numpy: trailing dims match). */
static void broadcast_dims(const graph_value *y, const graph_value *v1, int64_t *d1)
{
    for (int d = 0; d < y->rank; d++)
        d1[d] = d < y->rank - v1->rank ? 1 : v1->dims[d - (y->rank - v1->rank)];
}

/* Whether oneDNN has more than its reference code for this node in that layout: for a
 * broadcast along the innermost dim (LayerNorm's x - mean over channels, as opset 13
 * exports it) oneDNN 2.6 has only ref:any, ~10x slower than vkml's own kernel. */
static bool binary_has_kernel(const graph_value *values, const graph_node *node, int src1,
                              dnnl_alg_kind_t alg, onednn_layout layout)
{
    const graph_value *y = &values[node->outputs[0]];
    int64_t d1[VKML_MAX_RANK];
    broadcast_dims(y, &values[src1], d1);
    dnnl_memory_desc_t a, b, c;
    onednn_md(&a, y->rank, y->dims, layout);
    onednn_md(&b, y->rank, d1, layout);
    onednn_md(&c, y->rank, y->dims, layout);
    dnnl_binary_desc_t bd;
    dnnl_primitive_desc_t pd = NULL;
    vkml_error ignored;
    if (dnnl_binary_desc_init(&bd, alg, &a, &b, &c) != dnnl_success ||
        onednn_pd(&bd, NULL, &pd, &ignored) || !pd)
        return false;
    bool fast = !onednn_pd_is_ref(pd);
    dnnl_primitive_desc_destroy(pd);
    return fast;
}

static bool binary_claim(const graph_value *values, const graph_node *node,
                         const device_value_plan *plans, const onednn_layout *stored,
                         onednn_claim *claim)
{
    (void)plans;
    int src0, src1;
    dnnl_alg_kind_t alg;
    if (!binary_form(values, node, &src0, &src1, &alg))
        return false;
    onednn_layout in = stored[src0];
    if (!binary_has_kernel(values, node, src1, alg, in))
        return false;
    *claim = (onednn_claim){.layout_inputs = 3u, .layout_output = true, .in = in, .out = in};
    return true;
}

static vkml_status binary_build(const onednn_build *b, onednn_node *n, bool *taken, vkml_error *err)
{
    const graph_node *node = b->node;
    int src0, src1;
    dnnl_alg_kind_t alg;
    *taken = false;
    if (!binary_form(b->values, node, &src0, &src1, &alg))
        return VKML_OK;
    const graph_value *y = &b->values[node->outputs[0]], *v1 = &b->values[src1];
    int rank = y->rank;
    int64_t d1[VKML_MAX_RANK];
    broadcast_dims(y, v1, d1);
    onednn_layout layout = b->claim.in;
    dnnl_memory_desc_t a_have, a_want, b_have, b_want, y_have, y_want;
    onednn_md(&a_have, rank, y->dims, b->stored[src0]);
    onednn_md(&a_want, rank, y->dims, layout);
    onednn_md(&b_have, rank, d1, b->stored[src1]);
    onednn_md(&b_want, rank, d1, layout);
    onednn_md(&y_have, rank, y->dims, b->stored[node->outputs[0]]);
    onednn_md(&y_want, rank, y->dims, layout);
    dnnl_binary_desc_t bd;
    dnnl_primitive_desc_t pd = NULL;
    vkml_status st = VKML_OK;
    if (dnnl_binary_desc_init(&bd, alg, &a_want, &b_want, &y_want) == dnnl_success)
        st = onednn_pd(&bd, NULL, &pd, err);
    if (st || !pd)
        return st;
    onednn_note_impl(n, pd);
    dnnl_memory_t am, bm, ym;
    onednn_pending pending;
    st = onednn_bind_input(n, &a_have, b->ptrs[src0], &a_want, &am, err);
    if (!st)
        st = onednn_bind_input(n, &b_have, b->ptrs[src1], &b_want, &bm, err);
    if (!st)
        st = onednn_bind_output(n, &y_have, b->ptrs[node->outputs[0]], &y_want, &ym, &pending, err);
    if (st) {
        dnnl_primitive_desc_destroy(pd);
        return st;
    }
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC_0, am}, {DNNL_ARG_SRC_1, bm}, {DNNL_ARG_DST, ym}};
    if ((st = onednn_add_pd_step(n, pd, 3, args, err)))
        return st;
    *taken = true;
    return onednn_bind_output_finish(n, &pending, err);
}

const onednn_op onednn_binary_op = {.claim = binary_claim, .build = binary_build};
