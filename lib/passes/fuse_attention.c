/* Plan-time fusion of MatMul -> [Mul] -> [mask] -> Softmax -> MatMul into FusedAttention
 * (fuse_attention.h). */
#include "passes/fuse_attention.h"
#include "ops/fused_attention.h"
#include "ops/matmul.h"
#include "ops/movement.h"
#include "ops/norm.h"
#include "ops/op.h"
#include "passes/fuse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct att_state {
    const graph *g;
    const graph_value *values;
    int *readers; /* per value: reading nodes */
    int *reader;  /* per value: its last reader */
} att_state;

static bool is_op(const graph_node *n, op_id id)
{
    return n->op && n->op->id == id;
}

/* Value v is read by one node alone and is no graph output. */
static bool private_value(const att_state *s, int v)
{
    return v >= 0 && s->readers[v] == 1 && !s->values[v].is_output;
}

/* Node n is Mul(x, c), Mul(c, x) or Div(x, c) with c a known float of one element (not 0)
 * and x read by n alone: the scores scaled after their product (timm's `(q @ k^T) * scale`,
 * Hugging Face's `/ sqrt(d)`). x's value, with the factor in *c, or -1. */
static int scaled_scores(const att_state *s, const graph_node *n, float *c)
{
    bool div = is_op(n, OP_ID_Div);
    if ((!div && !is_op(n, OP_ID_Mul)) || n->n_inputs != 2 || n->n_outputs != 1)
        return -1;
    for (int k = 1; k >= (div ? 1 : 0); k--) { /* k: the constant's input */
        int x = n->inputs[1 - k];
        if (n->inputs[k] >= 0 && private_value(s, x) &&
            fuse_scalar_value(&s->values[n->inputs[k]], c) && *c != 0.0f) {
            *c = div ? 1.0f / *c : *c;
            return x;
        }
    }
    return -1;
}

/* Whether mask value m broadcasts to the scores x (numpy's rules, m's dims aligned to x's
 * last): then its element strides over x's dims, 0 along a dim it broadcasts. */
static bool mask_strides(const graph_value *m, const graph_value *x, int64_t *strides)
{
    if (m->rank > x->rank)
        return false;
    int64_t stride = 1;
    for (int d = x->rank - 1; d >= 0; d--) {
        int md = d - (x->rank - m->rank);
        int64_t size = md >= 0 ? m->dims[md] : 1;
        if (size != 1 && size != x->dims[d])
            return false;
        strides[d] = size == 1 ? 0 : stride;
        stride *= size;
    }
    return true;
}

/* Node n masks the scores before the Softmax: Add(x, M) or Add(M, x) with M of x's dtype
 * (an additive mask), or Where(M, x, fill) with M bool and fill a known scalar; x read by n
 * alone, M broadcast to x's dims and x's dims n's output's. x's value, with the mask's kind,
 * value, strides over x's dims and fill in fp, or -1. */
static int masked_scores(const att_state *s, const graph_node *n, fused_attention_params *fp,
                         int *mask, int64_t *strides)
{
    const graph_value *v = s->values;
    bool add = is_op(n, OP_ID_Add) && n->n_inputs == 2,
         select = is_op(n, OP_ID_Where) && n->n_inputs == 3;
    if ((!add && !select) || n->n_outputs != 1 || n->outputs[0] < 0)
        return -1;
    const graph_value *out = &v[n->outputs[0]];
    for (int k = add ? 0 : 1; k < 2; k++) { /* k: the scores' input */
        int x = n->inputs[k], m = add ? n->inputs[1 - k] : n->inputs[0];
        if (x < 0 || m < 0 || x == m || !private_value(s, x) || v[x].rank != out->rank ||
            memcmp(v[x].dims, out->dims, sizeof(int64_t) * (size_t)out->rank) != 0 ||
            !mask_strides(&v[m], &v[x], strides))
            continue;
        if (add && v[m].dtype == v[x].dtype) {
            fp->mask = FUSED_MASK_ADD;
        } else if (select && v[m].dtype == VKML_DTYPE_BOOL && n->inputs[2] >= 0 &&
                   fuse_scalar_value(&v[n->inputs[2]], &fp->fill)) {
            fp->mask = FUSED_MASK_SELECT;
        } else {
            continue;
        }
        *mask = m;
        return x;
    }
    return -1;
}

/* A product's epilogue holds at most a scale (scale_ok) and operand views. */
static bool plain_epilogue(const graph_epilogue *e, bool scale_ok)
{
    return !e || (e->act == ELT_IDENTITY && e->bias < 0 && e->residual < 0 && !e->pool &&
                  !e->norm && (scale_ok || !e->scaled));
}

static bool float_value(const graph_value *v, vkml_dtype dt)
{
    return v->dtype == dt && v->rank >= 2 && !v->data;
}

/* Whether the two products' batches are one: the same dims, and P dense over them. */
static bool same_batches(const matmul_params *qk, const matmul_params *pv)
{
    if (qk->batch_rank != pv->batch_rank || pv->m != qk->m || pv->k != qk->n)
        return false;
    for (int d = 0; d < qk->batch_rank; d++)
        if (qk->batch_dims[d] != pv->batch_dims[d])
            return false;
    return true;
}

/* The FusedAttention params of the group (p1, softmax sm, p2), false when it does not fit. */
static bool group_params(const att_state *s, const graph_node *p1, const graph_node *sm,
                         const graph_node *p2, fused_attention_params *fp)
{
    const graph_value *v = s->values;
    if (!is_op(p1, OP_ID_MatMul) || !is_op(p2, OP_ID_MatMul) || p1->n_inputs != 2 ||
        p2->n_inputs != 2 || p2->inputs[0] != sm->outputs[0] || p2->inputs[1] == sm->outputs[0] ||
        !plain_epilogue(p1->epilogue, true) || !plain_epilogue(p2->epilogue, false) ||
        (p2->epilogue && p2->epilogue->view_rank[0] > 0))
        return false;
    const norm_params *np = sm->params;
    const graph_value *x = &v[sm->inputs[0]];
    int64_t axis = np ? (np->axis < 0 ? np->axis + x->rank : np->axis) : -1;
    if (!np || np->op != NORM_SOFTMAX || axis != x->rank - 1)
        return false;
    vkml_dtype dt = v[p2->outputs[0]].dtype;
    if ((dt != VKML_DTYPE_FLOAT && dt != VKML_DTYPE_FLOAT16) ||
        !float_value(&v[p1->inputs[0]], dt) || !float_value(&v[p1->inputs[1]], dt) ||
        !float_value(&v[p2->inputs[1]], dt) || x->dtype != dt)
        return false;
    matmul_params qk, pv;
    vkml_error err;
    if (matmul_params_parse(v, p1, &qk, &err) != VKML_OK ||
        matmul_params_parse(v, p2, &pv, &err) != VKML_OK || !same_batches(&qk, &pv))
        return false;
    const graph_value *y = &v[p2->outputs[0]];
    *fp = (fused_attention_params){
        .m = qk.m,
        .n = qk.n,
        .k = qk.k,
        .e = pv.n,
        .batch_rank = qk.batch_rank,
        .batch_count = qk.batch_count,
        .a_sm = qk.a_sm,
        .a_sk = qk.a_sk,
        .b_sk = qk.b_sk,
        .b_sn = qk.b_sn,
        .v_sn = pv.b_sk,
        .v_se = pv.b_sn,
        .scale = p1->epilogue && p1->epilogue->scaled ? p1->epilogue->scale : 1.0f,
        .dtype = dt,
        .rank = y->rank,
    };
    memcpy(fp->batch_dims, qk.batch_dims, sizeof(fp->batch_dims));
    memcpy(fp->a_batch, qk.a_batch_strides, sizeof(fp->a_batch));
    memcpy(fp->b_batch, qk.b_batch_strides, sizeof(fp->b_batch));
    memcpy(fp->v_batch, pv.b_batch_strides, sizeof(fp->v_batch));
    memcpy(fp->dims, y->dims, sizeof(fp->dims));
    if (y->rank != qk.batch_rank + 2)
        return false;
    fp->y_sm = fp->e; /* Y dense */
    for (int d = qk.batch_rank - 1; d >= 0; d--)
        fp->y_batch[d] =
            d == qk.batch_rank - 1 ? qk.m * pv.n : fp->y_batch[d + 1] * qk.batch_dims[d + 1];
    return true;
}

/* The Transpose after the group's Y that the fused node can write through instead (Y read
 * by it alone, no graph output; its last dim kept last, so rows stay runs of e): its index,
 * or -1. PyTorch's attention merges the heads so: [b, h, m, e] -> [m, b, h, e]. */
static int merge_transpose(const att_state *s, int y, const int *role)
{
    int t = private_value(s, y) ? s->reader[y] : -1;
    if (t < 0 || role[t] != -1)
        return -1;
    const graph_node *n = &s->g->nodes[t];
    const transpose_params *tp = n->params;
    int rank = s->values[y].rank;
    if (!is_op(n, OP_ID_Transpose) || !tp || n->n_outputs != 1 || n->outputs[0] < 0 ||
        s->values[n->outputs[0]].rank != rank ||
        (tp->n_perm ? tp->perm[rank - 1] != rank - 1 : rank > 1))
        return -1;
    return t;
}

/* Y's strides (fp's y_batch and y_sm) as transpose t lays it out: Y's dim perm[j] is the
 * output's dim j; fp's output becomes t's (dims and all). */
static void write_through(const att_state *s, const graph_node *t, fused_attention_params *fp)
{
    const transpose_params *tp = t->params;
    const graph_value *out = &s->values[t->outputs[0]];
    int64_t stride = 1, y_stride[VKML_MAX_RANK];
    for (int j = out->rank - 1; j >= 0; j--) {
        y_stride[tp->perm[j]] = stride;
        stride *= out->dims[j];
    }
    for (int d = 0; d < fp->batch_rank; d++)
        fp->y_batch[d] = y_stride[d];
    fp->y_sm = y_stride[fp->batch_rank];
    fp->rank = out->rank;
    memcpy(fp->dims, out->dims, sizeof(fp->dims));
}

/* Counts the model nodes a product stands for ("Transpose+Mul" absorbed: 2 more). */
static int absorbed_count(const graph_node *n)
{
    const char *a = n->epilogue ? n->epilogue->absorbed : NULL;
    int count = a && a[0] ? 1 : 0;
    for (; a && *a; a++)
        count += *a == '+';
    return count;
}

static const char *product_label(const graph_node *n, char *buf, size_t size)
{
    const char *a = n->epilogue ? n->epilogue->absorbed : NULL;
    snprintf(buf, size, a && a[0] ? "MatMul(%s)" : "MatMul", a);
    return buf;
}

/* The fused node of group (p1, sm, p2), in f's arena; false when out of memory. */
static bool make_node(graph *f, const graph_node *p1, const graph_node *scale,
                      const graph_node *masking, int mask, const graph_node *sm,
                      const graph_node *p2, const graph_node *merge,
                      const fused_attention_params *proto, graph_node *out)
{
    int n_inputs = masking ? 4 : 3;
    fused_attention_params *fp = vkml_arena_calloc(f->arena, 1, sizeof(*fp));
    int *inputs = vkml_arena_calloc(f->arena, (size_t)n_inputs, sizeof(int));
    int *outputs = vkml_arena_calloc(f->arena, 1, sizeof(int));
    char l1[200], l2[200], summary[460];
    snprintf(summary, sizeof(summary), "%s%s%s%s%s -> Softmax -> %s%s",
             product_label(p1, l1, sizeof(l1)), scale ? " -> " : "", scale ? scale->op_type : "",
             masking ? " -> " : "", masking ? masking->op_type : "",
             product_label(p2, l2, sizeof(l2)), merge ? " -> Transpose" : "");
    const char *sum = vkml_arena_strdup(f->arena, summary);
    if (!fp || !inputs || !outputs || !sum)
        return false;
    *fp = *proto;
    fp->n_nodes = 3 + absorbed_count(p1) + absorbed_count(p2) + (scale != NULL) +
                  (masking != NULL) + (merge != NULL);
    fp->summary = sum;
    inputs[0] = p1->inputs[0];
    inputs[1] = p1->inputs[1];
    inputs[2] = p2->inputs[1];
    if (masking)
        inputs[3] = mask;
    outputs[0] = merge ? merge->outputs[0] : p2->outputs[0];
    *out = (graph_node){.name = p2->name && p2->name[0] ? p2->name : sm->name,
                        .op_type = "FusedAttention",
                        .domain = "vkml.internal",
                        .opset = 1,
                        .inputs = inputs,
                        .n_inputs = n_inputs,
                        .outputs = outputs,
                        .n_outputs = 1,
                        .op = op_table_entry(OP_ID_FusedAttention),
                        .params = fp};
    return true;
}

/* Finds the groups: role[i] is -1 for a node kept as it is, -2 for one the fused node
 * replaces, or the index of the first product for the second (where the fused node goes). */
static int find_groups(const att_state *s, const fuse_attention_taker *taker, graph *f, int *role,
                       graph_node *made)
{
    const graph *g = s->g;
    int found = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node *sm = &g->nodes[i];
        if (!is_op(sm, OP_ID_Softmax) || sm->n_inputs < 1 || sm->n_outputs != 1 ||
            !private_value(s, sm->inputs[0]) || !private_value(s, sm->outputs[0]))
            continue;
        int q1 = s->values[sm->inputs[0]].producer, q2 = s->reader[sm->outputs[0]], mul = -1;
        /* [product] -> [Mul by a constant] -> [mask] -> Softmax */
        fused_attention_params masked = {.mask = FUSED_MASK_NONE};
        int64_t mask_at[VKML_MAX_RANK];
        int masking = -1, mask = -1;
        int unmasked = q1 >= 0 && role[q1] == -1
                           ? masked_scores(s, &g->nodes[q1], &masked, &mask, mask_at)
                           : -1;
        if (unmasked >= 0) {
            masking = q1;
            q1 = s->values[unmasked].producer;
        }
        float post = 1.0f;
        int scaled = q1 >= 0 && role[q1] == -1 ? scaled_scores(s, &g->nodes[q1], &post) : -1;
        if (scaled >= 0) {
            mul = q1;
            q1 = s->values[scaled].producer;
        }
        if (q1 < 0 || q2 < 0 || role[q1] != -1 || role[q2] != -1)
            continue;
        fused_attention_params fp;
        const graph_node *p1 = &g->nodes[q1], *p2 = &g->nodes[q2];
        if (!group_params(s, p1, sm, p2, &fp))
            continue;
        fp.scale *= post;
        if (masking >= 0) {
            if (s->values[unmasked].rank != fp.batch_rank + 2)
                continue;
            fp.mask = masked.mask;
            fp.fill = masked.fill;
            memcpy(fp.mask_batch, mask_at, sizeof(int64_t) * (size_t)fp.batch_rank);
            fp.mask_sm = mask_at[fp.batch_rank];
            fp.mask_sn = mask_at[fp.batch_rank + 1];
        }
        int t = merge_transpose(s, p2->outputs[0], role);
        if (t >= 0)
            write_through(s, &g->nodes[t], &fp);
        if (!make_node(f, p1, mul >= 0 ? &g->nodes[mul] : NULL,
                       masking >= 0 ? &g->nodes[masking] : NULL, mask, sm, p2,
                       t >= 0 ? &g->nodes[t] : NULL, &fp, &made[q2]))
            return -1;
        if (taker && !taker->takes(taker->ctx, s->values, &made[q2]))
            continue;
        role[q1] = role[i] = -2;
        role[q2] = q1;
        if (mul >= 0)
            role[mul] = -2;
        if (masking >= 0)
            role[masking] = -2;
        if (t >= 0)
            role[t] = -2;
        found++;
    }
    return found;
}

static vkml_status build_graph(const att_state *s, const int *role, const graph_node *made,
                               graph *f, vkml_error *err)
{
    vkml_status st = graph_derive(f, s->g, s->values, 0, err);
    for (int i = 0; st == VKML_OK && i < s->g->n_nodes; i++)
        if (role[i] != -2)
            graph_derive_add(f, role[i] >= 0 ? &made[i] : &s->g->nodes[i]);
    return st;
}

vkml_status fuse_attention(const graph *g, const graph_value *values,
                           const fuse_attention_taker *taker, graph **out, vkml_error *err)
{
    *out = NULL;
    size_t nv = (size_t)g->n_values + 1, nn = (size_t)g->n_nodes + 1;
    att_state s = {.g = g, .values = values};
    s.readers = calloc(nv, sizeof(int));
    s.reader = malloc(nv * sizeof(int));
    int *role = malloc(nn * sizeof(int));
    graph_node *made = calloc(nn, sizeof(graph_node));
    graph *f = graph_create();
    vkml_status st = VKML_OK;
    if (!s.readers || !s.reader || !role || !made || !f) {
        st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory fusing attention");
        goto done;
    }
    for (size_t v = 0; v < nv; v++)
        s.reader[v] = -1;
    for (int i = 0; i < g->n_nodes; i++) {
        role[i] = -1;
        const graph_node *n = &g->nodes[i];
        for (int k = 0; k < n->n_inputs; k++)
            if (n->inputs[k] >= 0) {
                s.readers[n->inputs[k]]++;
                s.reader[n->inputs[k]] = i;
            }
    }
    int found = find_groups(&s, taker, f, role, made);
    if (found < 0)
        st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory fusing attention");
    else if (found > 0 && (st = build_graph(&s, role, made, f, err)) == VKML_OK) {
        *out = f;
        f = NULL;
    }
done:
    graph_destroy(&f);
    free(s.readers);
    free(s.reader);
    free(role);
    free(made);
    return st;
}
