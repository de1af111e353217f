/* Plan-time: a FusedAttention's three projections as one product (fuse_qkv.h). */
#include "passes/fuse_qkv.h"
#include "ops/fused_attention.h"
#include "ops/op.h"
#include "passes/fuse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reshapes between a projection and the attention it feeds, at most. */
#define QKV_MAX_RESHAPES 4

/* One operand's path: the projection (a MatMul) and the Reshapes after it. */
typedef struct qkv_path {
    int product;
    int reshapes[QKV_MAX_RESHAPES];
    int n_reshapes;
} qkv_path;

static bool is_op(const graph_node *n, op_id id)
{
    return n->op && n->op->id == id;
}

/* Whether `out` is `in` with only its last dim split (the same leading dims, the last's
 * elements in the trailing ones). */
static bool last_dim_split(const graph_value *in, const graph_value *out)
{
    if (in->rank < 1 || out->rank < in->rank)
        return false;
    int64_t tail = 1;
    for (int d = 0; d < out->rank; d++) {
        if (d < in->rank - 1 && out->dims[d] != in->dims[d])
            return false;
        if (d >= in->rank - 1)
            tail *= out->dims[d];
    }
    return tail == in->dims[in->rank - 1];
}

/* The MatMul making value v (read by one node alone), through Reshapes that split its last
 * dim and are read by one node alone; false when v comes otherwise. */
static bool path_of(const graph *g, const int *readers, int v, qkv_path *path)
{
    path->n_reshapes = 0;
    for (;;) {
        int p = v >= 0 && readers[v] == 1 && !g->values[v].is_output ? g->values[v].producer : -1;
        if (p < 0)
            return false;
        const graph_node *n = &g->nodes[p];
        if (is_op(n, OP_ID_MatMul)) {
            path->product = p;
            return true;
        }
        if (!is_op(n, OP_ID_Reshape) || n->n_inputs < 1 || path->n_reshapes == QKV_MAX_RESHAPES ||
            !last_dim_split(&g->values[n->inputs[0]], &g->values[v]))
            return false;
        path->reshapes[path->n_reshapes++] = p;
        v = n->inputs[0];
    }
}

/* Whether product n is x @ W (+ bias) with W a constant [K, N] of dtype dt, its output
 * [..., N], nothing else absorbed: *cols = N, *bias its bias value or -1. */
static bool projection(const graph *g, const graph_node *n, int x, vkml_dtype dt, int64_t *cols,
                       int *bias)
{
    const graph_epilogue *e = n->epilogue;
    if (n->n_inputs < 2 || n->n_outputs != 1 || n->inputs[0] != x || n->inputs[1] < 0 ||
        (e && (e->act != ELT_IDENTITY || e->residual >= 0 || e->scaled || e->pool ||
               e->view_rank[0] || e->view_rank[1])))
        return false;
    const graph_value *w = &g->values[n->inputs[1]], *y = &g->values[n->outputs[0]];
    if (w->kind != GRAPH_VALUE_CONSTANT || !w->data || w->dtype != dt || w->rank != 2 ||
        y->dtype != dt || y->rank < 1 || y->dims[y->rank - 1] != w->dims[1] ||
        w->data_size < (size_t)(w->dims[0] * w->dims[1]) * vkml_dtype_size(dt))
        return false;
    *cols = w->dims[1];
    *bias = e && e->bias >= 0 ? n->inputs[e->bias] : -1;
    if (*bias < 0)
        return true;
    const graph_value *b = &g->values[*bias];
    return b->kind == GRAPH_VALUE_CONSTANT && b->data && b->dtype == dt &&
           vkml_tensor_element_count(b->rank, b->dims) == (size_t)*cols &&
           b->data_size >= (size_t)*cols * vkml_dtype_size(dt);
}

/* A stride into a dense [..., cols] value, as the same step into rows of `row` elements:
 * a whole number of rows scales, a step within a row stays; false otherwise. */
static bool restride(int64_t *stride, int64_t cols, int64_t row)
{
    if (*stride % cols == 0)
        *stride = *stride / cols * row;
    else if (*stride > cols)
        return false;
    return true;
}

/* The operand strides of fp (operand k: A, B, V) for rows of `row` elements. */
static bool restride_operand(fused_attention_params *fp, int k, int64_t cols, int64_t row)
{
    int64_t *batch = k == 0 ? fp->a_batch : k == 1 ? fp->b_batch : fp->v_batch;
    int64_t *s1 = k == 0 ? &fp->a_sm : k == 1 ? &fp->b_sk : &fp->v_sn;
    int64_t *s2 = k == 0 ? &fp->a_sk : k == 1 ? &fp->b_sn : &fp->v_se;
    bool ok = restride(s1, cols, row) && restride(s2, cols, row);
    for (int d = 0; d < fp->batch_rank; d++)
        ok &= restride(&batch[d], cols, row);
    return ok;
}

/* The three constants side by side along their last dim, as a new constant of g: weights
 * [K, N_q + N_k + N_v] (rows of K), or biases [N_q + N_k + N_v] (rows 1); -1 when out of
 * memory. */
static int side_by_side(graph *g, const char *name, const int src[3], const int64_t cols[3],
                        int64_t rows, vkml_dtype dt)
{
    size_t es = vkml_dtype_size(dt);
    int64_t all = cols[0] + cols[1] + cols[2];
    char *data = vkml_arena_alloc(g->arena, (size_t)(rows * all) * es + 1);
    int v = data ? graph_add_value(g, name) : -1;
    if (v < 0)
        return -1;
    for (int64_t r = 0, at = 0; r < rows; r++)
        for (int k = 0; k < 3; k++) {
            memcpy(data + at, (const char *)g->values[src[k]].data + (size_t)(r * cols[k]) * es,
                   (size_t)cols[k] * es);
            at += (int64_t)((size_t)cols[k] * es);
        }
    graph_value *val = &g->values[v];
    val->kind = GRAPH_VALUE_CONSTANT;
    val->dtype = dt;
    val->rank = rows > 1 ? 2 : 1;
    val->dims[0] = rows > 1 ? rows : all;
    val->dims[1] = all;
    val->data = data;
    val->data_size = (size_t)(rows * all) * es;
    return v;
}

/* Merges node f's projections when they fit: returns 1 when merged, 0 when not, -1 when
 * out of memory. */
static int merge_one(graph *g, int f, const int *readers)
{
    graph_node *node = &g->nodes[f];
    fused_attention_params *fp = (fused_attention_params *)node->params;
    qkv_path path[3];
    int64_t cols[3];
    int bias[3], weights[3];
    int x = -1;
    vkml_dtype dt = fp->dtype;
    for (int k = 0; k < 3; k++) {
        if (!path_of(g, readers, node->inputs[k], &path[k]))
            return 0;
        const graph_node *p = &g->nodes[path[k].product];
        x = k == 0 ? p->inputs[0] : x;
        if ((k > 0 && path[k].product == path[k - 1].product) ||
            !projection(g, p, x, dt, &cols[k], &bias[k]) || (bias[k] < 0) != (bias[0] < 0) ||
            g->values[p->inputs[1]].dims[0] != g->values[g->nodes[path[0].product].inputs[1]].dims[0])
            return 0;
        weights[k] = p->inputs[1];
    }
    if (path[0].product == path[2].product)
        return 0;
    int64_t row = cols[0] + cols[1] + cols[2];
    fused_attention_params np = *fp;
    for (int k = 0; k < 3; k++)
        if (!restride_operand(&np, k, cols[k], row))
            return 0;
    np.a_offset = 0;
    np.b_offset = cols[0];
    np.v_offset = cols[0] + cols[1];

    const graph_node *q = &g->nodes[path[0].product];
    char name[3][512];
    static const char *const suffix[3] = {"/qkv", "/qkv_weights", "/qkv_bias"};
    for (int k = 0; k < 3; k++)
        snprintf(name[k], sizeof(name[k]), "%s%s", g->values[q->outputs[0]].name, suffix[k]);
    int w = side_by_side(g, name[1], weights, cols, g->values[weights[0]].dims[0], dt);
    int b = bias[0] >= 0 ? side_by_side(g, name[2], bias, cols, 1, dt) : -2;
    int y = w >= 0 && b != -1 ? graph_add_value(g, name[0]) : -1;
    int *inputs = vkml_arena_calloc(g->arena, 3, sizeof(int));
    int *outputs = vkml_arena_calloc(g->arena, 1, sizeof(int));
    graph_epilogue *e = q->epilogue ? vkml_arena_memdup(g->arena, q->epilogue, sizeof(*e)) : NULL;
    if (y < 0 || !inputs || !outputs || (q->epilogue && !e))
        return -1;
    graph_value *yv = &g->values[y];
    *yv = g->values[q->outputs[0]];
    yv->name = g->values[y].name;
    yv->dims[yv->rank - 1] = row;
    yv->kind = GRAPH_VALUE_INTERMEDIATE;
    yv->is_output = false;
    yv->data = NULL;
    yv->data_size = 0;
    inputs[0] = x;
    inputs[1] = w;
    inputs[2] = b >= 0 ? b : -1;
    graph_node merged = *q;
    merged.inputs = inputs;
    merged.n_inputs = b >= 0 ? 3 : 2;
    merged.epilogue = e;
    outputs[0] = y;
    merged.outputs = outputs;
    g->nodes[path[0].product] = merged;
    for (int k = 0; k < 3; k++) {
        for (int r = 0; r < path[k].n_reshapes; r++)
            g->nodes[path[k].reshapes[r]].op_type = "";
        if (k > 0)
            g->nodes[path[k].product].op_type = "";
    }
    *fp = np;
    node->inputs[0] = node->inputs[1] = node->inputs[2] = y;
    return 1;
}

vkml_status fuse_qkv(graph *g, int *merged, vkml_error *err)
{
    int *readers = fuse_count_readers(g);
    if (!readers)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory merging projections");
    int count = 0, n_nodes = g->n_nodes;
    for (int i = 0; i < n_nodes; i++) {
        if (!is_op(&g->nodes[i], OP_ID_FusedAttention) || g->nodes[i].n_inputs < 3)
            continue;
        int m = merge_one(g, i, readers);
        if (m < 0) {
            free(readers);
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory merging projections");
        }
        count += m;
    }
    free(readers);
    if (merged)
        *merged = count;
    if (count == 0)
        return VKML_OK;
    /* drop the emptied nodes, keeping the order (the merged product is where the query's
     * was, before the attention), and name each value's producer again */
    fuse_compact(g);
    for (int v = 0; v < g->n_values; v++)
        g->values[v].producer = -1;
    for (int i = 0; i < g->n_nodes; i++)
        for (int o = 0; o < g->nodes[i].n_outputs; o++)
            if (g->nodes[i].outputs[o] >= 0)
                g->values[g->nodes[i].outputs[o]].producer = i;
    return VKML_OK;
}
