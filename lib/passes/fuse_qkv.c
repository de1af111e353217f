/* Plan-time: a FusedAttention's projections as one product, or its operands read through
 * their layouts (fuse_qkv.h). */
#include "passes/fuse_qkv.h"
#include "ops/fused_attention.h"
#include "ops/gather.h"
#include "ops/movement.h"
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
        (e && (e->act != ELT_IDENTITY || e->residual >= 0 || e->scaled || e->pool || e->norm ||
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

/* Operand k of fp (A, B, V): its strides along its matrix's two dims and those dims'
 * extents, its strides per batch dim, its offset. */
typedef struct qkv_operand {
    int64_t *stride[2], extent[2], *batch, *offset;
} qkv_operand;

static qkv_operand operand_of(fused_attention_params *fp, int k)
{
    if (k == 0)
        return (qkv_operand){{&fp->a_sm, &fp->a_sk}, {fp->m, fp->k}, fp->a_batch, &fp->a_offset};
    if (k == 1)
        return (qkv_operand){{&fp->b_sk, &fp->b_sn}, {fp->k, fp->n}, fp->b_batch, &fp->b_offset};
    return (qkv_operand){{&fp->v_sn, &fp->v_se}, {fp->n, fp->e}, fp->v_batch, &fp->v_offset};
}

/* Rewrites one stride (along a dim of `extent` elements); false when it cannot. */
typedef bool (*stride_fn)(int64_t *stride, int64_t extent, const void *ctx);

/* fn on every stride of operand k of fp; false when it fails on one. */
static bool map_strides(fused_attention_params *fp, int k, stride_fn fn, const void *ctx)
{
    qkv_operand o = operand_of(fp, k);
    bool ok = fn(o.stride[0], o.extent[0], ctx) && fn(o.stride[1], o.extent[1], ctx);
    for (int d = 0; ok && d < fp->batch_rank; d++)
        ok = fn(&o.batch[d], fp->batch_dims[d], ctx);
    return ok;
}

/* A stride into a dense [..., cols] value as the same step into rows of `row` elements
 * (ctx: {cols, row}): a whole number of rows scales, a step within a row stays. */
static bool restride(int64_t *stride, int64_t extent, const void *ctx)
{
    const int64_t *rows = ctx;
    (void)extent;
    if (*stride % rows[0] == 0)
        *stride = *stride / rows[0] * rows[1];
    else if (*stride > rows[0])
        return false;
    return true;
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

/* Nodes between an operand and the product output it is a layout of, at most. */
#define QKV_MAX_CHAIN 12

/* A strided view of a value: element (i_0, ..., i_r-1) at offset + sum i_d * strides[d]. */
typedef struct qkv_layout {
    int rank;
    int64_t dims[VKML_MAX_RANK], strides[VKML_MAX_RANK], offset;
} qkv_layout;

/* l reshaped to `out`'s dims, when its memory allows it (the dims merged lie contiguous);
 * size-1 dims get stride 0. */
static bool reshape_layout(qkv_layout *l, const graph_value *out)
{
    int64_t d[VKML_MAX_RANK], st[VKML_MAX_RANK];
    int n = 0, i = 0;
    for (int k = 0; k < l->rank; k++)
        if (l->dims[k] != 1)
            d[n] = l->dims[k], st[n++] = l->strides[k];
    qkv_layout r = {.rank = out->rank, .offset = l->offset};
    for (int j = 0; j < out->rank;) {
        if (out->dims[j] == 1) {
            r.dims[j] = 1, r.strides[j++] = 0;
            continue;
        }
        if (i >= n)
            return false;
        int i0 = i, j0 = j;
        int64_t pi = d[i++], po = out->dims[j++];
        while (pi != po) {
            if (pi < po && i < n)
                pi *= d[i++];
            else if (po < pi && j < out->rank)
                po *= out->dims[j++];
            else
                return false;
        }
        for (int k = i0; k + 1 < i; k++)
            if (st[k] != st[k + 1] * d[k + 1])
                return false;
        for (int64_t jj = j - 1, stride = st[i - 1]; jj >= j0; jj--) {
            r.dims[jj] = out->dims[jj];
            r.strides[jj] = out->dims[jj] == 1 ? 0 : stride;
            stride *= out->dims[jj];
        }
    }
    if (i != n)
        return false;
    *l = r;
    return true;
}

/* Whether node n is one node_layout follows. */
static bool layout_op(const graph_node *n)
{
    return is_op(n, OP_ID_Transpose) || is_op(n, OP_ID_Gather) || is_op(n, OP_ID_Split) ||
           is_op(n, OP_ID_Reshape) || is_op(n, OP_ID_Unsqueeze) || is_op(n, OP_ID_Squeeze) ||
           is_op(n, OP_ID_Flatten) || is_op(n, OP_ID_Identity);
}

/* l as node n (a reshape, Transpose, Gather of one constant index, or Split) lays out its
 * output `value`. */
static bool node_layout(const graph *g, const graph_node *n, int value, qkv_layout *l)
{
    const graph_value *out = &g->values[value];
    if (is_op(n, OP_ID_Split)) { /* output o starts past the ones before it along the axis */
        const split_params *sp = n->params;
        int64_t axis = sp ? (sp->axis < 0 ? sp->axis + l->rank : sp->axis) : -1, at = 0;
        if (axis < 0 || axis >= l->rank || out->rank != l->rank)
            return false;
        for (int o = 0; o < n->n_outputs && n->outputs[o] != value; o++)
            at += n->outputs[o] >= 0 ? g->values[n->outputs[o]].dims[axis] : 0;
        l->offset += at * l->strides[axis];
        l->dims[axis] = out->dims[axis];
        return true;
    }
    if (is_op(n, OP_ID_Transpose)) {
        const transpose_params *tp = n->params;
        if (!tp || out->rank != l->rank)
            return false;
        qkv_layout t = *l;
        for (int j = 0; j < l->rank; j++) {
            int from = tp->n_perm ? (int)tp->perm[j] : l->rank - 1 - j;
            t.dims[j] = l->dims[from], t.strides[j] = l->strides[from];
        }
        *l = t;
        return true;
    }
    if (is_op(n, OP_ID_Gather)) {
        const gather_params *gp = n->params;
        const graph_value *ix = n->n_inputs == 2 ? &g->values[n->inputs[1]] : NULL;
        int64_t axis = gp ? (gp->axis < 0 ? gp->axis + l->rank : gp->axis) : -1, at;
        if (!ix || !ix->data || ix->rank != 0 || axis < 0 || axis >= l->rank ||
            (ix->dtype != VKML_DTYPE_INT64 && ix->dtype != VKML_DTYPE_INT32))
            return false;
        at =
            ix->dtype == VKML_DTYPE_INT64 ? *(const int64_t *)ix->data : *(const int32_t *)ix->data;
        at = at < 0 ? at + l->dims[axis] : at;
        if (at < 0 || at >= l->dims[axis])
            return false;
        l->offset += at * l->strides[axis];
        for (int k = (int)axis; k + 1 < l->rank; k++)
            l->dims[k] = l->dims[k + 1], l->strides[k] = l->strides[k + 1];
        l->rank--;
        return true;
    }
    return layout_op(n) && reshape_layout(l, out); /* the reshapes */
}

/* The layout of value v (rank and dims known) in the value it comes from through layout
 * ops (node_layout's), *root; chain[] those nodes, last first. False when v comes through
 * nothing of the kind or a step's memory does not allow it. */
static bool layout_of(const graph *g, int v, int *root, int *chain, int *n_chain, qkv_layout *l)
{
    int made[QKV_MAX_CHAIN];
    *n_chain = 0;
    for (int u = v;;) {
        int p = g->values[u].producer;
        const graph_node *n = p >= 0 ? &g->nodes[p] : NULL;
        if (!n || n->n_inputs < 1 || n->inputs[0] < 0 || !layout_op(n) ||
            (n->n_outputs != 1 && !is_op(n, OP_ID_Split))) {
            *root = u;
            break;
        }
        if (*n_chain == QKV_MAX_CHAIN)
            return false;
        made[*n_chain] = u;
        chain[(*n_chain)++] = p;
        u = n->inputs[0];
    }
    const graph_value *r = &g->values[*root];
    if (*n_chain == 0 || r->rank < 0 || r->dtype != g->values[v].dtype)
        return false;
    *l = (qkv_layout){.rank = r->rank};
    int64_t stride = 1;
    for (int d = r->rank - 1; d >= 0; d--) {
        l->dims[d] = r->dims[d];
        l->strides[d] = stride;
        stride *= r->dims[d];
    }
    for (int k = *n_chain - 1; k >= 0; k--)
        if (!node_layout(g, &g->nodes[chain[k]], made[k], l))
            return false;
    const graph_value *vv = &g->values[v];
    if (l->rank != vv->rank)
        return false;
    for (int d = 0; d < l->rank; d++)
        if (l->dims[d] != vv->dims[d])
            return false;
    return true;
}

/* The value an operand is read in as dense, and its layout in the value it comes from. */
typedef struct qkv_relayout {
    const graph_value *v;
    qkv_layout l;
} qkv_relayout;

/* A stride into value v as dense (a step of one of its dims of more than one element, or
 * 0) along a dim of `extent` elements, as the same step in layout l (ctx: qkv_relayout);
 * false when it is no such step. */
static bool relayout_stride(int64_t *stride, int64_t extent, const void *ctx)
{
    const graph_value *v = ((const qkv_relayout *)ctx)->v;
    const qkv_layout *l = &((const qkv_relayout *)ctx)->l;
    if (*stride == 0 || extent == 1) {
        *stride = 0;
        return true;
    }
    for (int64_t d = v->rank - 1, dense = 1; d >= 0; d--) {
        if (v->dims[d] > 1 && dense == *stride) {
            *stride = l->strides[d];
            return true;
        }
        dense *= v->dims[d];
    }
    return false;
}

/* Node f's operands read through the layout ops between them and the values they come from
 * (PyTorch's attention: the in-projection's output reordered into q, k and v by a copying
 * Transpose, then Gathers and reshapes), so that those nodes go: 1 when it did, 0 when
 * not. */
static int read_through(graph *g, int f)
{
    graph_node *node = &g->nodes[f];
    fused_attention_params *fp = (fused_attention_params *)node->params, np = *fp;
    int roots[3], chain[QKV_MAX_CHAIN], n_chain, copies = 0;
    for (int k = 0; k < 3; k++) {
        qkv_relayout r = {.v = &g->values[node->inputs[k]]};
        int64_t *offset = operand_of(&np, k).offset;
        if (!layout_of(g, node->inputs[k], &roots[k], chain, &n_chain, &r.l) || *offset != 0 ||
            !map_strides(&np, k, relayout_stride, &r))
            return 0;
        for (int c = 0; c < n_chain; c++)
            copies += is_op(&g->nodes[chain[c]], OP_ID_Transpose);
        *offset = r.l.offset;
    }
    if (copies == 0) /* views all: nothing to gain */
        return 0;
    *fp = np;
    for (int k = 0; k < 3; k++)
        node->inputs[k] = roots[k];
    return 1;
}

/* Drops the layout nodes nothing reads any more (those read_through left), repeatedly. */
static void drop_unread(graph *g)
{
    for (bool dropped = true; dropped;) {
        dropped = false;
        int *readers = fuse_count_readers(g);
        if (!readers)
            return;
        for (int i = 0; i < g->n_nodes; i++) {
            graph_node *n = &g->nodes[i];
            bool read = false;
            for (int o = 0; o < n->n_outputs; o++)
                read |= n->outputs[o] >= 0 &&
                        (readers[n->outputs[o]] || g->values[n->outputs[o]].is_output);
            if (!n->op_type[0] || n->n_outputs < 1 || read || !layout_op(n))
                continue;
            n->op_type = "";
            n->n_outputs = 0; /* counted no more */
            n->n_inputs = 0;
            dropped = true;
        }
        free(readers);
    }
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
            g->values[p->inputs[1]].dims[0] !=
                g->values[g->nodes[path[0].product].inputs[1]].dims[0])
            return 0;
        weights[k] = p->inputs[1];
    }
    if (path[0].product == path[2].product)
        return 0;
    int64_t row = cols[0] + cols[1] + cols[2];
    fused_attention_params np = *fp;
    int64_t at = 0;
    for (int k = 0; k < 3; at += cols[k++]) {
        int64_t rows[2] = {cols[k], row};
        if (!map_strides(&np, k, restride, rows))
            return 0;
        *operand_of(&np, k).offset = at; /* A, B, V side by side in each row */
    }

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
    const char *y_name = yv->name;
    *yv = g->values[q->outputs[0]];
    yv->name = y_name;
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
        count += m ? m : read_through(g, i);
    }
    free(readers);
    if (count)
        drop_unread(g);
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
