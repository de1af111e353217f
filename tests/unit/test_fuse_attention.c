/* Plan-time fusion of attention's core (passes/fuse_attention.c) into FusedAttention: graphs
 * as PyTorch exports them (1.13: sequence-first 3-D heads, the query divided by sqrt(d), K
 * and V transposed; 2.x: 4-D heads, query and key multiplied by scales, V broadcast over the
 * batch; timm's scores scaled after their product, Hugging Face's divided), plain 3-D products,
 * ragged sizes (m != n, e != k, rows not a multiple of the plain kernel's 4 nor of a fragment's
 * 16), BERT-base's and ViT-B/16's heads. With VKML_FUSE_ATTENTION=1 each fuses on every Vulkan
 * device into one FusedAttention node (the session's profile shows it, with its ops) and answers as
 * the CPU device's unfused plan within 1e-5 of the output's scale at fp32 and 2e-2 at fp16-always;
 * on a device with cooperative matrices the float16 cases whose operands fit its shared memory run
 * the cooperative-matrix kernel, the others the plain one. Without the switch only those
 * cooperative-matrix cases fuse (the plain kernel is slower than the nodes apart on the
 * H200), so nothing fuses on lavapipe. Groups that must not fuse stay unfused and answer
 * the same: the scores a graph output, a softmax over another axis, more keys than the
 * plain kernel takes. The CPU kernel (the reference of the GPU kernels, for a fused node
 * placed on the CPU) runs on the pass's own node and agrees too, also with its operands at
 * offsets into their buffers. A mask between the scores and the softmax fuses with them:
 * Hugging Face's additive one broadcast over heads and rows, and a Where filling the masked
 * scores. Where the operands are three projections of one input (Hugging Face's query, key
 * and value Linears), the fused node's plan runs them as one product (passes/fuse_qkv.c);
 * where they are one projection's output reordered by a copying Transpose and split
 * (PyTorch 2's MultiheadAttention at batch 1, timm's unbind), the node reads them in that
 * output and the copy goes. */
#include "cpu/cpu_kernels.h"
#include "ops/fused_attention.h"
#include "passes/fuse_attention.h"
#include "passes/infer.h"
#include "plan/context.h"
#include "test_graph.h"
#include "vulkan/vk_device.h"

#include <math.h>
#include <stdlib.h>

typedef enum layout {
    TORCH1, /* q, k, v [seq, b*h, d]: Transpose, q / sqrt(d), k^T by perm (1, 2, 0) */
    TORCH2, /* q, k, v [b, h, seq, d]: q * c1, Transpose(k) * c2; v maybe [1, h, n, e] */
    TIMM,   /* q, k, v [b, h, seq, d]: (q Transpose(k)) * c, the scores scaled after */
    HF,     /* as TIMM, the scores divided by sqrt(d) (Hugging Face's BERT) */
    PROJ,   /* as HF, q, k and v projections of one input x [b, seq, h*d]: MatMul, Add of a
               bias, Reshape to [b, seq, h, d], Transpose (Hugging Face's BERT again) */
    MHA,    /* PyTorch 2's MultiheadAttention, batch 1: x [seq, 1, h*d] by one in-projection
               [h*d, 3*h*d] + bias, Reshape [seq, 1, 3, h*d], Unsqueeze, Transpose (a copy)
               to [3, seq, 1, 1, h*d], Squeeze, Gather 0, 1, 2, Reshape [seq, h, d],
               Transposes; the scores scaled after */
    UNBIND, /* timm's (and PyTorch 1.13's) qkv: x [1, seq, h*d] by one projection, Reshape
               [1, seq, 3, h, d], Transpose (a copy) to [3, 1, h, seq, d], Split, Squeeze */
    PLAIN,  /* A [b, m, k], B [b, k, n], V [b, n, e], no scale */
} layout;

typedef enum masking {
    NO_MASK,
    ADD_MASK,   /* scores + M, M [b, 1, 1, n] of 0 and MASK_OFF (Hugging Face's) */
    WHERE_MASK, /* Where(M, scores, MASK_FILL), M bool [b, 1, m, n] */
} masking;
#define MASK_OFF -1e4f
#define MASK_FILL -3.0f /* finite and near the scores: a fill, not an addition, gives it */

typedef struct att_case {
    const char *name;
    layout layout;
    int64_t b, h, m, n, k, e;
    bool v_broadcast; /* TORCH2: V of batch 1 */
    int softmax_axis; /* -1: the last */
    bool scores_out;  /* the scores are a graph output too: no fusion */
    bool fuses;       /* expected on a GPU with VKML_FUSE_ATTENTION=1 */
    bool coop;        /* fits the cooperative-matrix kernel's shared memory (float16) */
    bool merge;       /* TORCH1/2: the heads merged back by a Transpose after the product */
    masking mask;     /* a mask between the scores (scaled) and the softmax */
} att_case;

static const att_case cases[] = {
    {"torch1 bert-like", TORCH1, 1, 4, 16, 16, 32, 32, false, -1, false, true, true, false,
     NO_MASK},
    {"torch1 heads merged", TORCH1, 2, 3, 13, 21, 8, 5, false, -1, false, true, true, true,
     NO_MASK},
    {"torch2 heads", TORCH2, 2, 3, 10, 10, 16, 16, false, -1, false, true, true, false, NO_MASK},
    {"torch2 whole fragments", TORCH2, 2, 3, 32, 48, 64, 32, false, -1, false, true, true, false,
     NO_MASK},
    {"torch2 bert-base heads merged", TORCH2, 1, 2, 128, 128, 64, 64, false, -1, false, true, true,
     true, NO_MASK},
    {"torch2 vit-b heads merged", TORCH2, 1, 2, 197, 197, 64, 64, false, -1, false, true, true,
     true, NO_MASK},
    {"torch2 v broadcast, merged", TORCH2, 2, 2, 7, 9, 24, 12, true, -1, false, true, true, true,
     NO_MASK},
    {"timm scaled after, merged", TIMM, 2, 3, 17, 17, 32, 32, false, -1, false, true, true, true,
     NO_MASK},
    {"timm scaled after", TIMM, 1, 2, 64, 40, 16, 24, false, -1, false, true, true, false, NO_MASK},
    {"torch2 v broadcast, fragments", TORCH2, 2, 2, 16, 256, 16, 48, true, -1, false, true, true,
     false, NO_MASK},
    {"plain 3-D", PLAIN, 5, 1, 6, 11, 3, 7, false, -1, false, true, true, false, NO_MASK},
    {"past shared memory", PLAIN, 2, 1, 40, 300, 72, 40, false, -1, false, true, false, false,
     NO_MASK},
    {"keys past the kernel", PLAIN, 1, 1, 3, 600, 4, 4, false, -1, false, false, false, false,
     NO_MASK},
    {"softmax over rows", PLAIN, 2, 1, 5, 5, 4, 4, false, 1, false, false, false, false, NO_MASK},
    {"scores an output", PLAIN, 2, 1, 5, 6, 4, 4, false, -1, true, false, false, false, NO_MASK},
    {"hf additive mask", HF, 2, 3, 10, 12, 16, 16, false, -1, false, true, true, false, ADD_MASK},
    {"hf additive mask, bert-base heads merged", HF, 1, 2, 128, 128, 64, 64, false, -1, false, true,
     true, true, ADD_MASK},
    {"where mask, merged", TORCH2, 2, 2, 17, 17, 32, 32, false, -1, false, true, true, true,
     WHERE_MASK},
    {"hf projections, masked, merged", PROJ, 2, 3, 12, 12, 16, 16, false, -1, false, true, true,
     true, ADD_MASK},
    {"hf projections, bert-base heads", PROJ, 1, 4, 128, 128, 64, 64, false, -1, false, true, true,
     false, NO_MASK},
    {"mha in-projection, reordered", MHA, 1, 4, 20, 20, 16, 16, false, -1, false, true, true, false,
     NO_MASK},
    {"mha in-projection, bert-base heads", MHA, 1, 4, 128, 128, 64, 64, false, -1, false, true,
     true, false, NO_MASK},
    {"qkv unbound by Split", UNBIND, 1, 3, 17, 17, 32, 32, false, -1, false, true, true, false,
     NO_MASK},
    {"where mask, fragments", HF, 1, 3, 33, 48, 64, 40, false, -1, false, true, true, false,
     WHERE_MASK},
};

typedef struct built {
    vkml_model *model;
    int n_in; /* q, k, v (or x) and the mask, if any */
    bool masked;
    void *in[4];
    vkml_dtype dtype[4];
    size_t count[4];
    int64_t dims[4][VKML_MAX_RANK];
    int rank[4];
} built;

/* Input i: random floats in -2 .. 2, or (bool) mostly true, or (mask) 0 or MASK_OFF. */
static int input_of(graph *g, built *b, int i, const char *name, vkml_dtype dt, bool mask, int rank,
                    const int64_t *dims, uint64_t *seed)
{
    b->rank[i] = rank;
    b->dtype[i] = dt;
    memcpy(b->dims[i], dims, sizeof(int64_t) * (size_t)rank);
    b->count[i] = vkml_tensor_element_count(rank, dims);
    b->in[i] = malloc(vkml_dtype_size(dt) * b->count[i]);
    for (size_t j = 0; j < b->count[i]; j++) {
        float r = test_randf(seed, -2, 2);
        if (dt == VKML_DTYPE_BOOL)
            ((uint8_t *)b->in[i])[j] = r > -1.0f;
        else
            ((float *)b->in[i])[j] = !mask ? r : r > -1.0f ? 0.0f : MASK_OFF;
    }
    return tg_value(g, name, dt, rank, dims);
}

static int input(graph *g, built *b, int i, const char *name, int rank, const int64_t *dims,
                 uint64_t *seed)
{
    return input_of(g, b, i, name, VKML_DTYPE_FLOAT, false, rank, dims, seed);
}

static int scalar(graph *g, const char *name, float value)
{
    int v = tg_value(g, name, VKML_DTYPE_FLOAT, 0, NULL);
    float *data = vkml_arena_calloc(g->arena, 1, sizeof(float));
    *data = value;
    g->values[v].kind = GRAPH_VALUE_CONSTANT;
    g->values[v].data = data;
    g->values[v].data_size = sizeof(float);
    return v;
}

static int transpose(graph *g, const char *name, int in, const int64_t *perm, int rank)
{
    int out = tg_value(g, name, VKML_DTYPE_FLOAT, 0, NULL);
    int n = tg_node(g, name, "Transpose", in, -1, out, 13);
    graph_attr *a = vkml_arena_calloc(g->arena, 1, sizeof(*a));
    int64_t *ints = vkml_arena_calloc(g->arena, (size_t)rank, sizeof(int64_t));
    memcpy(ints, perm, sizeof(int64_t) * (size_t)rank);
    *a = (graph_attr){.name = "perm", .type = GRAPH_ATTR_INTS, .ints = ints, .count = (size_t)rank};
    g->nodes[n].attrs = a;
    g->nodes[n].n_attrs = 1;
    return out;
}

static int binary(graph *g, const char *name, const char *op, int a, int b)
{
    int out = tg_value(g, name, VKML_DTYPE_FLOAT, 0, NULL);
    tg_node(g, name, op, a, b, out, 14);
    return out;
}

/* PROJ's projection `name` of x: x W + bias (random constants), to [b, seq, h, d], then
 * transposed by perm. */
static int project(graph *g, const att_case *c, const char *name, int x, const int64_t *perm,
                   uint64_t *seed)
{
    int64_t width = c->h * c->k;
    char nm[5][32];
    static const char *const stem[5] = {"w", "bias", "mm", "add", "shape"};
    for (int i = 0; i < 5; i++)
        snprintf(nm[i], sizeof(nm[i]), "%s_%s", name, stem[i]);
    int w = tg_random_constant(g, nm[0], 2, (int64_t[]){width, width}, -0.2f, 0.2f, seed);
    int bias = tg_random_constant(g, nm[1], 1, (int64_t[]){width}, -0.5f, 0.5f, seed);
    int y = binary(g, nm[3], "Add", binary(g, nm[2], "MatMul", x, w), bias);
    int64_t *shape = vkml_arena_calloc(g->arena, 4, sizeof(int64_t));
    memcpy(shape, (int64_t[]){c->b, c->m, c->h, c->k}, 4 * sizeof(int64_t));
    int sv = tg_value(g, nm[4], VKML_DTYPE_INT64, 1, (int64_t[]){4});
    g->values[sv].kind = GRAPH_VALUE_CONSTANT;
    g->values[sv].data = shape;
    g->values[sv].data_size = 4 * sizeof(int64_t);
    return transpose(g, name, binary(g, name, "Reshape", y, sv), perm, 4);
}

/* The case's inputs of q, k and v: 3, or 1 (x) for the layouts that project it. */
static int inputs_of(const att_case *c)
{
    return c->layout == PROJ || c->layout == MHA || c->layout == UNBIND ? 1 : 3;
}

/* A constant int64 tensor of n values (rank 0 when n is 0: one value). */
static int ints(graph *g, const char *name, const int64_t *values, int n)
{
    int64_t *data = vkml_arena_calloc(g->arena, n ? (size_t)n : 1, sizeof(int64_t));
    memcpy(data, values, sizeof(int64_t) * (size_t)(n ? n : 1));
    int v = tg_value(g, name, VKML_DTYPE_INT64, n ? 1 : 0, (int64_t[]){n});
    g->values[v].kind = GRAPH_VALUE_CONSTANT;
    g->values[v].data = data;
    g->values[v].data_size = sizeof(int64_t) * (size_t)(n ? n : 1);
    return v;
}

/* MHA's and UNBIND's one projection of x into q, k and v (out[0..2]), as laid out before
 * the attention reads them: [h, seq, d] (MHA) or [1, h, seq, d] (UNBIND), k transposed to
 * [.., d, seq]. */
static void packed_projection(graph *g, const att_case *c, int x, int out[3], uint64_t *seed)
{
    int64_t width = c->h * c->k, s = c->m;
    int w = tg_random_constant(g, "qkv_w", 2, (int64_t[]){width, 3 * width}, -0.2f, 0.2f, seed);
    int bias = tg_random_constant(g, "qkv_b", 1, (int64_t[]){3 * width}, -0.5f, 0.5f, seed);
    int y = binary(g, "qkv_add", "Add", binary(g, "qkv_mm", "MatMul", x, w), bias);
    if (c->layout == MHA) {
        int r = binary(g, "qkv_r", "Reshape", y, ints(g, "qkv_rs", (int64_t[]){s, 1, 3, width}, 4));
        int u = binary(g, "qkv_u", "Unsqueeze", r, ints(g, "qkv_ua", (int64_t[]){0}, 1));
        int t = transpose(g, "qkv_t", u, (int64_t[]){3, 1, 2, 0, 4}, 5);
        int sq = binary(g, "qkv_s", "Squeeze", t, ints(g, "qkv_sa", (int64_t[]){3}, 1));
        for (int k = 0; k < 3; k++) {
            char nm[4][16];
            static const char *const stem[4] = {"ix", "ga", "sh", "rs"};
            for (int i = 0; i < 4; i++)
                snprintf(nm[i], sizeof(nm[i]), "%s%d", stem[i], k);
            int gk = binary(g, nm[1], "Gather", sq, ints(g, nm[0], (int64_t[]){k}, 0));
            int rk = binary(g, nm[3], "Reshape", gk, ints(g, nm[2], (int64_t[]){s, c->h, c->k}, 3));
            out[k] = transpose(g,
                               k == 0   ? "qt"
                               : k == 1 ? "kt"
                                        : "vt",
                               rk, k == 1 ? (int64_t[]){1, 2, 0} : (int64_t[]){1, 0, 2}, 3);
        }
        return;
    }
    int r =
        binary(g, "qkv_r", "Reshape", y, ints(g, "qkv_rs", (int64_t[]){1, s, 3, c->h, c->k}, 5));
    int t = transpose(g, "qkv_t", r, (int64_t[]){2, 0, 3, 1, 4}, 5);
    int parts[3];
    for (int k = 0; k < 3; k++)
        parts[k] = tg_value(g, k == 0 ? "p0" : k == 1 ? "p1" : "p2", VKML_DTYPE_FLOAT, 0, NULL);
    tg_node_io(g, "qkv_split", "Split", (int[]){t, ints(g, "qkv_sp", (int64_t[]){1, 1, 1}, 3)}, 2,
               parts, 3, 13);
    for (int k = 0; k < 3; k++) {
        out[k] = binary(g,
                        k == 0   ? "q0"
                        : k == 1 ? "k0"
                                 : "v0",
                        "Squeeze", parts[k],
                        ints(g,
                             k == 0   ? "sa0"
                             : k == 1 ? "sa1"
                                      : "sa2",
                             (int64_t[]){0}, 1));
        if (k == 1)
            out[k] = transpose(g, "kt", out[k], (int64_t[]){0, 1, 3, 2}, 4);
    }
}

/* The case's graph: its inputs (random: q, k and v, or PROJ's x; a mask), the attention
 * group, output y (and the scores when scores_out). */
static built build(const att_case *c, uint64_t seed)
{
    int inputs = inputs_of(c);
    built b = {.n_in = inputs + (c->mask ? 1 : 0), .masked = c->mask != NO_MASK};
    graph *g = graph_create();
    int q, k, v, a, bt, vv, m = -1;
    int64_t bh = c->b * c->h;
    if (c->layout == TORCH1) {
        q = input(g, &b, 0, "q", 3, (int64_t[]){c->m, bh, c->k}, &seed);
        k = input(g, &b, 1, "k", 3, (int64_t[]){c->n, bh, c->k}, &seed);
        v = input(g, &b, 2, "v", 3, (int64_t[]){c->n, bh, c->e}, &seed);
        int qt = transpose(g, "qt", q, (int64_t[]){1, 0, 2}, 3);
        a = binary(g, "qs", "Div", qt, scalar(g, "sqrt_d", sqrtf((float)c->k)));
        bt = transpose(g, "kt", k, (int64_t[]){1, 2, 0}, 3);
        vv = transpose(g, "vt", v, (int64_t[]){1, 0, 2}, 3);
    } else if (c->layout == TORCH2) {
        q = input(g, &b, 0, "q", 4, (int64_t[]){c->b, c->h, c->m, c->k}, &seed);
        k = input(g, &b, 1, "k", 4, (int64_t[]){c->b, c->h, c->n, c->k}, &seed);
        v = input(g, &b, 2, "v", 4, (int64_t[]){c->v_broadcast ? 1 : c->b, c->h, c->n, c->e},
                  &seed);
        float root = sqrtf(1.0f / sqrtf((float)c->k));
        a = binary(g, "qs", "Mul", q, scalar(g, "cq", root));
        int kt = transpose(g, "kt", k, (int64_t[]){0, 1, 3, 2}, 4);
        bt = binary(g, "ks", "Mul", kt, scalar(g, "ck", root));
        vv = v;
    } else if (c->layout == PROJ) { /* self-attention: m = n, e = k */
        k = v = q = input(g, &b, 0, "x", 3, (int64_t[]){c->b, c->m, c->h * c->k}, &seed);
        a = project(g, c, "q", q, (int64_t[]){0, 2, 1, 3}, &seed);
        bt = project(g, c, "k", q, (int64_t[]){0, 2, 3, 1}, &seed);
        vv = project(g, c, "v", q, (int64_t[]){0, 2, 1, 3}, &seed);
    } else if (c->layout == MHA || c->layout == UNBIND) { /* batch 1 self-attention */
        int64_t dims[3] = {c->m, 1, c->h * c->k};
        if (c->layout == UNBIND)
            dims[0] = 1, dims[1] = c->m;
        k = v = q = input(g, &b, 0, "x", 3, dims, &seed);
        int parts[3];
        packed_projection(g, c, q, parts, &seed);
        a = parts[0], bt = parts[1], vv = parts[2];
    } else if (c->layout == TIMM || c->layout == HF) {
        a = q = input(g, &b, 0, "q", 4, (int64_t[]){c->b, c->h, c->m, c->k}, &seed);
        k = input(g, &b, 1, "k", 4, (int64_t[]){c->b, c->h, c->n, c->k}, &seed);
        vv = v = input(g, &b, 2, "v", 4, (int64_t[]){c->b, c->h, c->n, c->e}, &seed);
        bt = transpose(g, "kt", k, (int64_t[]){0, 1, 3, 2}, 4);
    } else {
        a = q = input(g, &b, 0, "a", 3, (int64_t[]){c->b, c->m, c->k}, &seed);
        bt = k = input(g, &b, 1, "b", 3, (int64_t[]){c->b, c->k, c->n}, &seed);
        vv = v = input(g, &b, 2, "v", 3, (int64_t[]){c->b, c->n, c->e}, &seed);
    }
    int s = tg_value(g, "scores", VKML_DTYPE_FLOAT, 0, NULL);
    tg_node(g, "qk", "MatMul", a, bt, s, 13);
    if (c->layout == TIMM || c->layout == MHA || c->layout == UNBIND)
        s = binary(g, "scaled", "Mul", s, scalar(g, "c", 1.0f / sqrtf((float)c->k)));
    else if (c->layout == HF || c->layout == PROJ)
        s = binary(g, "scaled", "Div", s, scalar(g, "c", sqrtf((float)c->k)));
    if (c->mask == ADD_MASK) {
        m = input_of(g, &b, inputs, "mask", VKML_DTYPE_FLOAT, true, 4,
                     (int64_t[]){c->b, 1, 1, c->n}, &seed);
        s = binary(g, "masked", "Add", s, m);
    } else if (c->mask == WHERE_MASK) {
        m = input_of(g, &b, inputs, "mask", VKML_DTYPE_BOOL, true, 4,
                     (int64_t[]){c->b, 1, c->m, c->n}, &seed);
        int masked = tg_value(g, "masked", VKML_DTYPE_FLOAT, 0, NULL);
        tg_node_io(g, "masked", "Where", (int[]){m, s, scalar(g, "fill", MASK_FILL)}, 3,
                   (int[]){masked}, 1, 16);
        s = masked;
    }
    int p = tg_value(g, "p", VKML_DTYPE_FLOAT, 0, NULL);
    int sm = tg_node(g, "softmax", "Softmax", s, -1, p, 13);
    if (c->softmax_axis >= 0) {
        graph_attr *at = vkml_arena_calloc(g->arena, 1, sizeof(*at));
        *at = (graph_attr){.name = "axis", .type = GRAPH_ATTR_INT, .i = c->softmax_axis};
        g->nodes[sm].attrs = at;
        g->nodes[sm].n_attrs = 1;
    }
    int y = tg_value(g, "y", VKML_DTYPE_FLOAT, 0, NULL);
    tg_node(g, "pv", "MatMul", p, vv, y, 13);
    if (c->merge && c->layout == TORCH1) /* [b*h, m, e] -> [m, b*h, e] */
        y = transpose(g, "merged", y, (int64_t[]){1, 0, 2}, 3);
    else if (c->merge && (c->layout == TIMM || c->layout == HF || c->layout == PROJ))
        /* [b, h, m, e] -> [b, m, h, e] */
        y = transpose(g, "merged", y, (int64_t[]){0, 2, 1, 3}, 4);
    else if (c->merge) /* [b, h, m, e] -> [m, b, h, e] */
        y = transpose(g, "merged", y, (int64_t[]){2, 0, 1, 3}, 4);
    int outputs[2] = {y, s};
    int in[4] = {q, k, v, m};
    if (inputs == 1)
        in[1] = m;
    b.model = tg_model(g, in, b.n_in, outputs, c->scores_out ? 2 : 1, 17);
    return b;
}

static void built_free(built *b)
{
    vkml_model_destroy(&b->model);
    for (int i = 0; i < b->n_in; i++)
        free(b->in[i]);
}

/* Runs the model on device at precision; returns output 0 (malloc'ed, *n values), the
 * number of FusedAttention nodes its plan ran (checking each names its ops), of those
 * that write through a Transpose after them, and of MatMul nodes. */
static float *run(const built *b, vkml_context *ctx, int device, vkml_precision precision,
                  size_t *n, int *fused, int *merged, int *products, int *transposes)
{
    vkml_error err = {0};
    vkml_session *s = NULL;
    vkml_session_params params = {.device = device, .precision = precision, .profile = true};
    CHECK_OK(vkml_session_create(ctx, b->model, &params, &s, &err), &err);
    if (!s)
        return NULL;
    vkml_tensor in[4];
    for (int i = 0; i < b->n_in; i++) {
        in[i] = (vkml_tensor){.dtype = b->dtype[i],
                              .rank = b->rank[i],
                              .data = b->in[i],
                              .size = vkml_dtype_size(b->dtype[i]) * b->count[i]};
        memcpy(in[i].dims, b->dims[i], sizeof(in[i].dims));
    }
    size_t n_out = vkml_session_output_count(s);
    vkml_tensor out[2] = {{0}, {0}};
    for (size_t o = 0; o < n_out; o++)
        CHECK_OK(vkml_session_alloc_output(s, o, &out[o], &err), &err);
    CHECK_OK(vkml_session_run(s, in, (size_t)b->n_in, out, n_out, &err), &err);
    *n = vkml_tensor_element_count(out[0].rank, out[0].dims);
    vkml_node_time times[64];
    size_t n_times = 0;
    CHECK_OK(vkml_session_profile(s, times, 64, &n_times, &err), &err);
    *fused = *merged = *products = *transposes = 0;
    for (size_t i = 0; i < n_times && i < 64; i++) {
        *products += strcmp(times[i].op, "MatMul") == 0;
        *transposes += strcmp(times[i].op, "Transpose") == 0;
        if (strcmp(times[i].op, "FusedAttention") == 0) {
            (*fused)++;
            *merged += strstr(times[i].detail, "-> Transpose") != NULL;
            CHECK(strstr(times[i].detail, "Softmax") != NULL &&
                      (!b->masked || strstr(times[i].detail, "-> Add -> Softmax") ||
                       strstr(times[i].detail, "-> Where -> Softmax")),
                  "FusedAttention detail '%s'", times[i].detail);
        }
    }
    free(out[1].data);
    vkml_session_destroy(&s);
    return out[0].data;
}

/* Largest |got - want| over the largest |want|. */
static double scaled_error(const float *got, const float *want, size_t n)
{
    double err = 0, scale = 1e-30;
    for (size_t i = 0; i < n; i++) {
        scale = fmax(scale, fabs(want[i]));
        err = fmax(err, isnan(got[i]) ? INFINITY : fabs((double)got[i] - want[i]));
    }
    return err / scale;
}

/* The pass's node, run by the CPU kernel directly. */
static void check_cpu_kernel(const att_case *c, const built *b, const float *want, size_t n)
{
    const graph *g = b->model->graph;
    vkml_error err = {0};
    graph_value *values = graph_values_clone(g);
    CHECK(values != NULL, "out of memory");
    CHECK_OK(graph_infer(g, values, 1, &err), &err);
    graph *f = NULL;
    CHECK_OK(fuse_attention(g, values, NULL, &f, &err), &err);
    CHECK(f != NULL, "%s: the pass fused nothing", c->name);
    for (int i = 0; f && i < f->n_nodes; i++) {
        const graph_node *node = &f->nodes[i];
        if (strcmp(node->op_type, "FusedAttention") != 0)
            continue;
        const void *in[4];
        bool found = node->n_inputs == b->n_in;
        CHECK(found, "%s: the fused node reads %d inputs, not %d", c->name, node->n_inputs,
              b->n_in);
        for (int k = 0; found && k < node->n_inputs; k++) {
            int which = -1;
            for (int j = 0; j < g->n_inputs; j++)
                which = g->inputs[j] == node->inputs[k] ? j : which;
            CHECK(which >= 0, "%s: fused input %d is no graph input", c->name, k);
            in[k] = which >= 0 ? b->in[which] : NULL;
            found &= which >= 0;
        }
        if (!found)
            continue;
        float *y = calloc(n, sizeof(float));
        void *out[1] = {y};
        op_cpu_args args = {.values = f->values, .node = node, .in = in, .out = out};
        CHECK_OK(cpu_attention_fused(&args, &err), &err);
        double e = scaled_error(y, want, n);
        CHECK(e <= 1e-5, "%s: the CPU kernel is %.3g of scale off", c->name, e);
        /* again with A, B and V 3, 5 and 7 elements into their buffers (the offsets) */
        fused_attention_params at = *(const fused_attention_params *)node->params;
        graph_node moved = *node;
        moved.params = &at;
        float *shifted[3] = {NULL, NULL, NULL};
        for (int k = 0; k < 3; k++) {
            int64_t off = 3 + 2 * k, which = 0;
            for (int j = 0; j < g->n_inputs; j++)
                which = g->inputs[j] == node->inputs[k] ? j : which;
            shifted[k] = calloc(b->count[which] + (size_t)off, sizeof(float));
            memcpy(shifted[k] + off, b->in[which], sizeof(float) * b->count[which]);
            in[k] = shifted[k];
            *(k == 0 ? &at.a_offset : k == 1 ? &at.b_offset : &at.v_offset) = off;
        }
        float *y2 = calloc(n, sizeof(float));
        void *out2[1] = {y2};
        op_cpu_args args2 = {.values = f->values, .node = &moved, .in = in, .out = out2};
        CHECK_OK(cpu_attention_fused(&args2, &err), &err);
        CHECK(memcmp(y, y2, n * sizeof(float)) == 0, "%s: the CPU kernel at offsets differs",
              c->name);
        for (int k = 0; k < 3; k++)
            free(shifted[k]);
        free(y2);
        free(y);
    }
    graph_destroy(&f);
    free(values);
}

/* Whether Vulkan device `device` of ctx has cooperative matrices. */
static bool has_coop(vkml_context *ctx, int index)
{
    device *dev = context_device(ctx, index);
    return dev && strcmp(dev->cls->name, "vulkan") == 0 &&
           ((const vk_device *)dev)->caps.cooperative_matrix;
}

/* Runs of the cooperative-matrix kernel (float16 cases that fit it, fused, on a device
 * with cooperative matrices). */
static int coop_runs;

static void test_case(vkml_context *ctx, const att_case *c, uint64_t seed)
{
    built b = build(c, seed);
    size_t n_ref = 0, n = 0;
    int fused = 0, merged = 0;
    int products = 0, transposes = 0;
    float *ref = run(&b, ctx, VKML_DEVICE_CPU, VKML_PRECISION_FP32, &n_ref, &fused, &merged,
                     &products, &transposes);
    CHECK(ref && fused == 0, "%s: the CPU device fused %d groups", c->name, fused);
    if (c->fuses && ref && inputs_of(c) == 3) /* else the operands are no graph inputs */
        check_cpu_kernel(c, &b, ref, n_ref);
    for (int forced = 0; forced < 2; forced++) {
        if (forced)
            setenv("VKML_FUSE_ATTENTION", "1", 1);
        else
            unsetenv("VKML_FUSE_ATTENTION");
        TEST_FOR_EACH_TARGET(t, ctx, false, VKML_PRECISION_FP32, VKML_PRECISION_FP16_ALWAYS) {
            float *y =
                run(&b, ctx, t.device, t.precision, &n, &fused, &merged, &products, &transposes);
            bool half = t.precision == VKML_PRECISION_FP16_ALWAYS;
            bool coop = half && c->coop && has_coop(ctx, t.device);
            bool want = forced ? c->fuses : coop;
            if (want && coop)
                coop_runs++;
            CHECK(fused == (want ? 1 : 0), "%s, device %d %s%s: %d FusedAttention nodes", c->name,
                  t.device, vkml_precision_name(t.precision),
                  forced ? ", VKML_FUSE_ATTENTION=1" : "", fused);
            CHECK(merged == (want && c->merge ? 1 : 0),
                  "%s, device %d %s: %d FusedAttention nodes write through the Transpose", c->name,
                  t.device, vkml_precision_name(t.precision), merged);
            /* PROJ: the three projections one product where fused, else 3 and 2 apart */
            CHECK(c->layout != PROJ || products == (want ? 1 : 5),
                  "%s, device %d %s: %d MatMul nodes", c->name, t.device,
                  vkml_precision_name(t.precision), products);
            /* MHA, UNBIND: the reordering Transpose goes where fused (the node reads q, k and
             * v in the projection's output), and stays apart */
            CHECK((c->layout != MHA && c->layout != UNBIND) ||
                      (want ? transposes == 0 : transposes >= 1),
                  "%s, device %d %s: %d Transpose nodes", c->name, t.device,
                  vkml_precision_name(t.precision), transposes);
            double e = y && ref && n == n_ref ? scaled_error(y, ref, n) : INFINITY;
            CHECK(e <= (half ? 2e-2 : 1e-5), "%s, device %d %s%s: %.3g of scale off", c->name,
                  t.device, vkml_precision_name(t.precision),
                  forced ? ", VKML_FUSE_ATTENTION=1" : "", e);
            free(y);
        }
    }
    unsetenv("VKML_FUSE_ATTENTION");
    free(ref);
    built_free(&b);
}

int main(void)
{
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    if (!ctx)
        return test_finish("test_fuse_attention");
    test_require_vulkan(ctx);
    for (size_t i = 0; i < VKML_ARRAY_SIZE(cases); i++)
        test_case(ctx, &cases[i], 1000 + i);
    printf("test_fuse_attention: %d runs of the cooperative-matrix kernel\n", coop_runs);
    vkml_context_destroy(&ctx);
    return test_finish("test_fuse_attention");
}
