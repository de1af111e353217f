/* Load-time epilogue fusion (passes/fuse_epilogue.c): a graph with each pattern (Conv + Add +
 * Relu, Conv + x*Sigmoid(x) + Add, Conv + Clip, Gemm + HardSwish, MatMul + LeakyRelu + Add,
 * MatMul + Add(bias) + Gelu (the op, and Erf chains in the TorchScript exporter's order and
 * in Hugging Face's), Conv + x*HardSigmoid(x), a bias-less Conv + Add of a constant
 * per channel or of one value (+ Relu): the Add becomes the Conv's bias) loads with those
 * nodes absorbed, `fused` naming them, and computes what the unfused graph (VKML_NO_FUSE=1)
 * computes, on the CPU and on every Vulkan device (the bias folds bit for bit on the GPUs; within
 * a rounding on the CPU, where oneDNN's AVX2 convolution starts its sums at the bias), and again
 * with each GPU's tiled kernels chosen (the lanes forms of the direct conv); a Gemm + views
 * that keep its memory + Add (the Add its residual); a Conv + Relu + MaxPool (2x2) and a bias-less
 * Conv + Add + Relu + MaxPool (3x3 stride 2, padded, ceil_mode: overlapping windows, a last one in
 * the padding) fuse into the Conv; what must not fuse (a broadcast Add, an output read twice, a
 * graph output, a constant Add after a Conv with a bias, a MaxPool with Indices, an Add after a
 * Transpose that reorders, a LayerNormalization over more than the last dim) stays; a
 * MatMul + Add(bias) + Add(residual) + LayerNormalization over the last dim fuses into the
 * MatMul, and a LayerNormalization after the Gemm + views + Add into the Gemm, but not one
 * whose input is read elsewhere too (a pre-norm encoder's residual stream). */
#include "plan/context.h"
#include "test_graph.h"
#include "vulkan/vk_device.h"

#include <math.h>
#include <stdlib.h>

#define C 8
#define HW 6

static uint64_t seed;

static int node(graph *g, const char *name, const char *op, int opset, int n_in, const int *in,
                int out, int n_attrs)
{
    int n = graph_add_node(g, name, op, "", n_in, 1, n_attrs);
    if (n_in) /* a Constant node has none (and `in` NULL) */
        memcpy(g->nodes[n].inputs, in, sizeof(int) * (size_t)n_in);
    g->nodes[n].outputs[0] = out;
    g->nodes[n].opset = opset;
    return n;
}

/* y = Transpose(x, perm of `rank` dims) (perm static: the graph keeps the pointer). */
static void transpose(graph *g, const char *name, int x, const int64_t *perm, int rank, int y)
{
    int n = node(g, name, "Transpose", 13, 1, (int[]){x}, y, 1);
    g->nodes[n].attrs[0] =
        (graph_attr){.name = "perm", .type = GRAPH_ATTR_INTS, .ints = perm, .count = (size_t)rank};
}

static int conv(graph *g, const char *name, int x, int k, bool bias, int out)
{
    char wn[32];
    snprintf(wn, sizeof(wn), "%s_w", name);
    int in[3] = {x, tg_random_constant(g, wn, 4, (int64_t[]){C, C, k, k}, -0.3f, 0.3f, &seed), -1};
    if (bias) {
        snprintf(wn, sizeof(wn), "%s_b", name);
        in[2] = tg_random_constant(g, wn, 1, (int64_t[]){C}, -0.3f, 0.3f, &seed);
    }
    int n = node(g, name, "Conv", 13, bias ? 3 : 2, in, out, 1);
    int64_t p = k / 2;
    g->nodes[n].attrs[0] = (graph_attr){
        .name = "pads",
        .type = GRAPH_ATTR_INTS,
        .count = 4,
        .ints = vkml_arena_memdup(g->arena, (int64_t[]){p, p, p, p}, 4 * sizeof(int64_t))};
    return n;
}

static int val(graph *g, const char *name)
{
    return graph_add_value(g, name);
}

/* MaxPool k x k, stride, pads p on every side, ceil_mode; indices >= 0: its second output. */
static void pool(graph *g, const char *name, int x, int y, int indices, int64_t k, int64_t stride,
                 int64_t p, int64_t ceil)
{
    int n = graph_add_node(g, name, "MaxPool", "", 1, indices >= 0 ? 2 : 1, 4);
    g->nodes[n].inputs[0] = x;
    g->nodes[n].outputs[0] = y;
    if (indices >= 0)
        g->nodes[n].outputs[1] = indices;
    g->nodes[n].opset = 12;
    graph_attr *a = g->nodes[n].attrs;
    a[0] =
        (graph_attr){.name = "kernel_shape",
                     .type = GRAPH_ATTR_INTS,
                     .count = 2,
                     .ints = vkml_arena_memdup(g->arena, (int64_t[]){k, k}, 2 * sizeof(int64_t))};
    a[1] = (graph_attr){
        .name = "strides",
        .type = GRAPH_ATTR_INTS,
        .count = 2,
        .ints = vkml_arena_memdup(g->arena, (int64_t[]){stride, stride}, 2 * sizeof(int64_t))};
    a[2] = (graph_attr){
        .name = "pads",
        .type = GRAPH_ATTR_INTS,
        .count = 4,
        .ints = vkml_arena_memdup(g->arena, (int64_t[]){p, p, p, p}, 4 * sizeof(int64_t))};
    a[3] = (graph_attr){.name = "ceil_mode", .type = GRAPH_ATTR_INT, .i = ceil};
}

/* The graph: inputs X [1,C,HW,HW], Z [5,12], Z3 [2,5,12], R [2,5,9], S [1,C,1,1];
 * outputs Y1 .. Y6. */
static vkml_model *make_model(bool fuse)
{
    int y19 = -1, y20 = -1;
    seed = 5;
    graph *g = graph_create();
    int x = tg_value(g, "X", VKML_DTYPE_FLOAT, 4, (int64_t[]){1, C, HW, HW});
    int z = tg_value(g, "Z", VKML_DTYPE_FLOAT, 2, (int64_t[]){5, 12});
    int z3 = tg_value(g, "Z3", VKML_DTYPE_FLOAT, 3, (int64_t[]){2, 5, 12});
    int r = tg_value(g, "R", VKML_DTYPE_FLOAT, 3, (int64_t[]){2, 5, 9});
    int sc = tg_value(g, "S", VKML_DTYPE_FLOAT, 4, (int64_t[]){1, C, 1, 1});
    /* 1: Conv + Add(X) + Relu */
    int t1 = val(g, "t1"), a1 = val(g, "a1"), y1 = val(g, "Y1");
    conv(g, "c1", x, 3, true, t1);
    node(g, "add1", "Add", 13, 2, (int[]){t1, x}, a1, 0);
    node(g, "relu1", "Relu", 13, 1, (int[]){a1}, y1, 0);
    /* 2: Conv + x * Sigmoid(x) + Add(Y1) */
    int t2 = val(g, "t2"), s2 = val(g, "s2"), m2 = val(g, "m2"), y2 = val(g, "Y2");
    conv(g, "c2", y1, 1, false, t2);
    node(g, "sig2", "Sigmoid", 13, 1, (int[]){t2}, s2, 0);
    node(g, "mul2", "Mul", 13, 2, (int[]){s2, t2}, m2, 0);
    node(g, "add2", "Add", 13, 2, (int[]){y1, m2}, y2, 0);
    /* 3: Conv + Clip(0, 6) with constant bounds */
    int t3 = val(g, "t3"), y3 = val(g, "Y3");
    conv(g, "c3", y2, 3, true, t3);
    int lo = tg_random_constant(g, "lo", 0, NULL, 0, 0, &seed);
    int hi = tg_random_constant(g, "hi", 0, NULL, 0.5f, 0.5f, &seed);
    node(g, "clip3", "Clip", 13, 3, (int[]){t3, lo, hi}, y3, 0);
    /* 4: Gemm(transB) + HardSwish */
    int t4 = val(g, "t4"), y4 = val(g, "Y4");
    int wg = tg_random_constant(g, "wg", 2, (int64_t[]){7, 12}, -1, 1, &seed);
    int bg = tg_random_constant(g, "bg", 1, (int64_t[]){7}, -1, 1, &seed);
    int gn = node(g, "gemm4", "Gemm", 13, 3, (int[]){z, wg, bg}, t4, 1);
    g->nodes[gn].attrs[0] = (graph_attr){.name = "transB", .type = GRAPH_ATTR_INT, .i = 1};
    node(g, "hswish4", "HardSwish", 14, 1, (int[]){t4}, y4, 0);
    /* 5: MatMul + LeakyRelu + Add(R); 6: MatMul + Gelu */
    int t5 = val(g, "t5"), l5 = val(g, "l5"), y5 = val(g, "Y5");
    int wm = tg_random_constant(g, "wm", 2, (int64_t[]){12, 9}, -1, 1, &seed);
    node(g, "mm5", "MatMul", 13, 2, (int[]){z3, wm}, t5, 0);
    int lr = node(g, "leaky5", "LeakyRelu", 13, 1, (int[]){t5}, l5, 1);
    g->nodes[lr].attrs[0] = (graph_attr){.name = "alpha", .type = GRAPH_ATTR_FLOAT, .f = 0.2f};
    node(g, "add5", "Add", 13, 2, (int[]){l5, r}, y5, 0);
    int t6 = val(g, "t6"), b6 = val(g, "b6"), y6 = val(g, "Y6");
    int bias6 = tg_random_constant(g, "bias6", 1, (int64_t[]){9}, -1, 1, &seed);
    node(g, "mm6", "MatMul", 13, 2, (int[]){z3, wm}, t6, 0);
    node(g, "add6", "Add", 13, 2, (int[]){bias6, t6}, b6, 0);
    node(g, "gelu6", "Gelu", 20, 1, (int[]){b6}, y6, 0);
    /* 9: Conv + x * HardSigmoid(x) (HardSwish as opset 13 exports write it) */
    int t9 = val(g, "t9"), h9 = val(g, "h9"), y9 = val(g, "Y9");
    conv(g, "c9", x, 3, true, t9);
    int hs = node(g, "hsig9", "HardSigmoid", 13, 1, (int[]){t9}, h9, 2);
    g->nodes[hs].attrs[0] = (graph_attr){.name = "alpha", .type = GRAPH_ATTR_FLOAT, .f = 1.0f / 6};
    g->nodes[hs].attrs[1] = (graph_attr){.name = "beta", .type = GRAPH_ATTR_FLOAT, .f = 0.5f};
    node(g, "mul9", "Mul", 13, 2, (int[]){t9, h9}, y9, 0);
    /* Not fused: a constant Add after a MatMul by a vector (its last dim is not B's). */
    int t10 = val(g, "t10"), y10 = val(g, "Y10");
    int v10 = tg_random_constant(g, "v10", 1, (int64_t[]){12}, -1, 1, &seed);
    int b10 = tg_random_constant(g, "b10", 1, (int64_t[]){5}, -1, 1, &seed);
    node(g, "mm10", "MatMul", 13, 2, (int[]){z3, v10}, t10, 0);
    node(g, "add10", "Add", 13, 2, (int[]){t10, b10}, y10, 0);
    /* Not fused: an Add that broadcasts S; a Conv output that is also a graph output. */
    int t7 = val(g, "t7"), y7 = val(g, "Y7"), t8 = val(g, "T8"), y8 = val(g, "Y8");
    conv(g, "c7", x, 1, true, t7);
    node(g, "add7", "Add", 13, 2, (int[]){t7, sc}, y7, 0);
    conv(g, "c8", x, 1, true, t8);
    node(g, "relu8", "Relu", 13, 1, (int[]){t8}, y8, 0);
    /* 11: bias-less Conv + Add of a [C,1,1] constant + Relu (mnist-8's pattern); 12: + Add
     * of one value, the constant first; 13: a Conv with a bias + a [1,C,1,1] constant Add:
     * not folded (the bias would be rounded twice) */
    int t11 = val(g, "t11"), a11 = val(g, "a11"), y11 = val(g, "Y11");
    conv(g, "c11", x, 3, false, t11);
    int k11 = tg_random_constant(g, "k11", 3, (int64_t[]){C, 1, 1}, -1, 1, &seed);
    node(g, "add11", "Add", 13, 2, (int[]){t11, k11}, a11, 0);
    node(g, "relu11", "Relu", 13, 1, (int[]){a11}, y11, 0);
    int t12 = val(g, "t12"), y12 = val(g, "Y12");
    conv(g, "c12", x, 1, false, t12);
    int k12 = tg_random_constant(g, "k12", 0, NULL, -1, 1, &seed);
    node(g, "add12", "Add", 13, 2, (int[]){k12, t12}, y12, 0);
    int t13 = val(g, "t13"), y13 = val(g, "Y13");
    conv(g, "c13", x, 1, true, t13);
    int k13 = tg_random_constant(g, "k13", 4, (int64_t[]){1, C, 1, 1}, -1, 1, &seed);
    node(g, "add13", "Add", 13, 2, (int[]){t13, k13}, y13, 0);
    /* 14: Conv + Clip whose bounds are Constant nodes' outputs (the TorchScript exporter's
     * MobileNetV2): the bounds are known once inferred */
    int t14 = val(g, "t14"), lo14 = val(g, "lo14"), hi14 = val(g, "hi14"), y14 = val(g, "Y14");
    conv(g, "c14", x, 3, true, t14);
    int cl = node(g, "lo14", "Constant", 13, 0, NULL, lo14, 1);
    g->nodes[cl].attrs[0] = (graph_attr){.name = "value_float", .type = GRAPH_ATTR_FLOAT, .f = 0};
    int ch = node(g, "hi14", "Constant", 13, 0, NULL, hi14, 1);
    g->nodes[ch].attrs[0] =
        (graph_attr){.name = "value_float", .type = GRAPH_ATTR_FLOAT, .f = 0.5f};
    node(g, "clip14", "Clip", 13, 3, (int[]){t14, lo14, hi14}, y14, 0);
    /* 15: Conv + Relu + MaxPool 2x2; 16: bias-less Conv + Add [C,1,1] + Relu + MaxPool 3x3
     * stride 2, pads 1, ceil_mode; 17: Conv + MaxPool with Indices: not fused */
    int t15 = val(g, "t15"), r15 = val(g, "r15"), y15 = val(g, "Y15");
    conv(g, "c15", x, 5, true, t15);
    node(g, "relu15", "Relu", 13, 1, (int[]){t15}, r15, 0);
    pool(g, "pool15", r15, y15, -1, 2, 2, 0, 0);
    int t16 = val(g, "t16"), a16 = val(g, "a16"), r16 = val(g, "r16"), y16 = val(g, "Y16");
    conv(g, "c16", y1, 3, false, t16);
    int k16 = tg_random_constant(g, "k16", 3, (int64_t[]){C, 1, 1}, -1, 1, &seed);
    node(g, "add16", "Add", 13, 2, (int[]){t16, k16}, a16, 0);
    node(g, "relu16", "Relu", 13, 1, (int[]){a16}, r16, 0);
    pool(g, "pool16", r16, y16, -1, 3, 2, 1, 1);
    int t17 = val(g, "t17"), y17 = val(g, "Y17"), i17 = val(g, "I17");
    conv(g, "c17", x, 3, true, t17);
    pool(g, "pool17", t17, y17, i17, 2, 2, 0, 0);
    /* 18: MatMul + Add of a bias reached through an Identity node (how PyTorch shares the
     * initializers of identical layers) + Relu */
    int t18 = val(g, "t18"), id18 = val(g, "id18"), a18 = val(g, "a18"), y18 = val(g, "Y18");
    node(g, "mm18", "MatMul", 13, 2, (int[]){z3, wm}, t18, 0);
    node(g, "ident18", "Identity", 13, 1, (int[]){bias6}, id18, 0);
    node(g, "add18", "Add", 13, 2, (int[]){t18, id18}, a18, 0);
    node(g, "relu18", "Relu", 13, 1, (int[]){a18}, y18, 0);
    /* 19: MatMul + bias + Gelu as the TorchScript exporter writes it below opset 20,
     * x * (Erf(x / sqrt(2)) + 1) * 0.5, its constants on either side; 20: the same with
     * x / 1.5: not Gelu, not fused past the bias */
    for (int v = 0; v < 2; v++) {
        char nm[8][12];
        static const char *stem[8] = {"t", "b", "d", "e", "s", "m", "Y", "mm"};
        for (int k = 0; k < 8; k++)
            snprintf(nm[k], sizeof(nm[k]), "%s%d", stem[k], 19 + v);
        int t = val(g, nm[0]), b = val(g, nm[1]), dv = val(g, nm[2]), ev = val(g, nm[3]),
            sv = val(g, nm[4]), mv = val(g, nm[5]), yv = val(g, nm[6]);
        int r2 = tg_random_constant(g, v ? "root20" : "root19", 0, NULL, v ? 1.5f : sqrtf(2.0f),
                                    v ? 1.5f : sqrtf(2.0f), &seed);
        int one = tg_random_constant(g, v ? "one20" : "one19", 0, NULL, 1, 1, &seed);
        int half = tg_random_constant(g, v ? "half20" : "half19", 0, NULL, 0.5f, 0.5f, &seed);
        node(g, nm[7], "MatMul", 13, 2, (int[]){z3, wm}, t, 0);
        node(g, v ? "badd20" : "badd19", "Add", 13, 2, (int[]){t, bias6}, b, 0);
        node(g, v ? "div20" : "div19", "Div", 13, 2, (int[]){b, r2}, dv, 0);
        node(g, v ? "erf20" : "erf19", "Erf", 13, 1, (int[]){dv}, ev, 0);
        node(g, v ? "add20" : "add19", "Add", 13, 2, (int[]){one, ev}, sv, 0);
        node(g, v ? "mul20" : "mul19", "Mul", 13, 2, (int[]){sv, b}, mv, 0);
        node(g, v ? "half20" : "half19", "Mul", 13, 2, (int[]){mv, half}, yv, 0);
        if (v)
            y20 = yv;
        else
            y19 = yv;
    }
    /* 21: MatMul of two Muls by constant scalars (attention's query and key scales) + Relu:
     * both scales taken; 22: a Mul by a tensor is not a scale, its other input's is (the
     * MatMul's only absorption) */
    int q21 = val(g, "q21"), k21 = val(g, "k21"), t21 = val(g, "t21"), y21 = val(g, "Y21");
    int s21a = tg_random_constant(g, "s21a", 0, NULL, 0.25f, 2, &seed);
    int s21b = tg_random_constant(g, "s21b", 1, (int64_t[]){1}, 0.25f, 2, &seed);
    node(g, "qs21", "Mul", 13, 2, (int[]){z3, s21a}, q21, 0);
    node(g, "ks21", "Mul", 13, 2, (int[]){s21b, wm}, k21, 0);
    node(g, "mm21", "MatMul", 13, 2, (int[]){q21, k21}, t21, 0);
    node(g, "relu21", "Relu", 13, 1, (int[]){t21}, y21, 0);
    int q22 = val(g, "q22"), k22 = val(g, "k22"), y22 = val(g, "Y22");
    int s22 = tg_random_constant(g, "s22", 0, NULL, 0.25f, 2, &seed);
    node(g, "qs22", "Mul", 13, 2, (int[]){z3, z3}, q22, 0);
    node(g, "ks22", "Mul", 13, 2, (int[]){wm, s22}, k22, 0);
    node(g, "mm22", "MatMul", 13, 2, (int[]){q22, k22}, y22, 0);
    /* 23: MatMul of Unsqueeze(Transpose(Z3)) [1,5,2,12] and Transpose(Z3) [5,12,2] + Relu:
     * both read through views; 24: one Transpose, nothing else absorbed; 25: a Transpose
     * that is also a graph output stays */
    static const int64_t perm102[] = {1, 0, 2}, perm120[] = {1, 2, 0}, perm021[] = {0, 2, 1},
                         axes0[] = {0};
    int ta23 = val(g, "ta23"), ua23 = val(g, "ua23"), tb23 = val(g, "tb23"), t23 = val(g, "t23"),
        y23 = val(g, "Y23");
    int ax = tg_value(g, "axes23", VKML_DTYPE_INT64, 1, (int64_t[]){1});
    g->values[ax].kind = GRAPH_VALUE_CONSTANT;
    g->values[ax].data = axes0;
    g->values[ax].data_size = sizeof(axes0);
    transpose(g, "tra23", z3, perm102, 3, ta23);
    node(g, "unsq23", "Unsqueeze", 13, 2, (int[]){ta23, ax}, ua23, 0);
    transpose(g, "trb23", z3, perm120, 3, tb23);
    node(g, "mm23", "MatMul", 13, 2, (int[]){ua23, tb23}, t23, 0);
    node(g, "relu23", "Relu", 13, 1, (int[]){t23}, y23, 0);
    int ta24 = val(g, "ta24"), y24 = val(g, "Y24"), ta25 = val(g, "TA25"), y25 = val(g, "Y25");
    transpose(g, "tra24", z3, perm021, 3, ta24);
    node(g, "mm24", "MatMul", 13, 2, (int[]){ta24, r}, y24, 0);
    transpose(g, "tra25", z3, perm021, 3, ta25);
    node(g, "mm25", "MatMul", 13, 2, (int[]){ta25, r}, y25, 0);
    /* 26: a Transpose that moves only a dim of size 1 (a view already) is not absorbed */
    static const int64_t perm1023[] = {1, 0, 2, 3};
    int t26 = val(g, "t26"), y26 = val(g, "Y26");
    transpose(g, "tr26", x, perm1023, 4, t26);
    node(g, "mm26", "MatMul", 13, 2, (int[]){t26, x}, y26, 0);
    /* 27: the Transpose of a constant folds at session creation: not absorbed */
    static const int64_t perm10[] = {1, 0};
    int tw27 = val(g, "tw27"), y27 = val(g, "Y27");
    transpose(g, "tr27", wm, perm10, 2, tw27);
    node(g, "mm27", "MatMul", 13, 2, (int[]){r, tw27}, y27, 0);
    /* 28: a Transpose whose output a Shape also reads (PyTorch 2's attention scale): the
     * Shape folds to a constant at load, the Transpose is absorbed */
    int ta28 = val(g, "ta28"), sh28 = val(g, "sh28"), y28s = val(g, "Y28S"), y28 = val(g, "Y28");
    transpose(g, "tra28", z3, perm021, 3, ta28);
    node(g, "shape28", "Shape", 13, 1, (int[]){ta28}, sh28, 0);
    int cast28 = node(g, "cast28", "Cast", 13, 1, (int[]){sh28}, y28s, 1);
    g->nodes[cast28].attrs[0] = (graph_attr){.name = "to", .type = GRAPH_ATTR_INT, .i = 1};
    node(g, "mm28", "MatMul", 13, 2, (int[]){ta28, r}, y28, 0);
    /* 29: Gemm [5,7], then views that keep its memory (Unsqueeze to [5,1,7], a Transpose
     * moving only the dim of size 1 to [1,5,7]), then Add(R29 [1,5,7]): the Add becomes the
     * Gemm's residual, read in its order (PyTorch's attention output projection); 30: a
     * Transpose that reorders dims of more than one element before the Add: not absorbed */
    static const int64_t axes1[] = {1};
    int ax29 = tg_value(g, "axes29", VKML_DTYPE_INT64, 1, (int64_t[]){1});
    g->values[ax29].kind = GRAPH_VALUE_CONSTANT;
    g->values[ax29].data = axes1;
    g->values[ax29].data_size = sizeof(axes1);
    int t29 = val(g, "t29"), u29 = val(g, "u29"), v29 = val(g, "v29"), y29 = val(g, "Y29");
    int r29 = tg_random_constant(g, "r29", 3, (int64_t[]){1, 5, 7}, -1, 1, &seed);
    int g29 = node(g, "gemm29", "Gemm", 13, 3, (int[]){z, wg, bg}, t29, 1);
    g->nodes[g29].attrs[0] = (graph_attr){.name = "transB", .type = GRAPH_ATTR_INT, .i = 1};
    node(g, "unsq29", "Unsqueeze", 13, 2, (int[]){t29, ax29}, u29, 0);
    transpose(g, "tr29", u29, perm102, 3, v29);
    node(g, "add29", "Add", 13, 2, (int[]){v29, r29}, y29, 0);
    int t30 = val(g, "t30"), v30 = val(g, "v30"), y30 = val(g, "Y30");
    int r30 = tg_random_constant(g, "r30", 3, (int64_t[]){5, 2, 9}, -1, 1, &seed);
    node(g, "mm30", "MatMul", 13, 2, (int[]){z3, wm}, t30, 0);
    transpose(g, "tr30", t30, perm102, 3, v30);
    node(g, "add30", "Add", 13, 2, (int[]){v30, r30}, y30, 0);
    /* 31: MatMul + bias + Gelu as Hugging Face's Python writes it,
     * x * 0.5 * (1 + Erf(x / sqrt(2))) */
    int t31 = val(g, "t31"), b31 = val(g, "b31"), d31 = val(g, "d31"), e31 = val(g, "e31"),
        s31 = val(g, "s31"), h31 = val(g, "h31"), y31 = val(g, "Y31");
    int r31 = tg_random_constant(g, "root31", 0, NULL, sqrtf(2.0f), sqrtf(2.0f), &seed);
    int one31 = tg_random_constant(g, "one31", 0, NULL, 1, 1, &seed);
    int half31 = tg_random_constant(g, "half31", 0, NULL, 0.5f, 0.5f, &seed);
    node(g, "mm31", "MatMul", 13, 2, (int[]){z3, wm}, t31, 0);
    node(g, "badd31", "Add", 13, 2, (int[]){t31, bias6}, b31, 0);
    node(g, "half31", "Mul", 13, 2, (int[]){b31, half31}, h31, 0);
    node(g, "div31", "Div", 13, 2, (int[]){b31, r31}, d31, 0);
    node(g, "erf31", "Erf", 13, 1, (int[]){d31}, e31, 0);
    node(g, "add31", "Add", 13, 2, (int[]){one31, e31}, s31, 0);
    node(g, "mul31", "Mul", 13, 2, (int[]){h31, s31}, y31, 0);
    /* 32: MatMul + bias + residual + LayerNormalization over the last dim (an encoder's) */
    int t32 = val(g, "t32"), b32 = val(g, "b32"), a32 = val(g, "a32"), y32 = val(g, "Y32");
    int sc32 = tg_random_constant(g, "scale32", 1, (int64_t[]){9}, 0.5f, 2, &seed);
    int sh32 = tg_random_constant(g, "shift32", 1, (int64_t[]){9}, -1, 1, &seed);
    node(g, "mm32", "MatMul", 13, 2, (int[]){z3, wm}, t32, 0);
    node(g, "badd32", "Add", 13, 2, (int[]){t32, bias6}, b32, 0);
    node(g, "radd32", "Add", 13, 2, (int[]){b32, r}, a32, 0);
    int ln32 = node(g, "ln32", "LayerNormalization", 17, 3, (int[]){a32, sc32, sh32}, y32, 2);
    g->nodes[ln32].attrs[0] = (graph_attr){.name = "axis", .type = GRAPH_ATTR_INT, .i = -1};
    g->nodes[ln32].attrs[1] = (graph_attr){.name = "epsilon", .type = GRAPH_ATTR_FLOAT, .f = 1e-3f};
    /* 33: MatMul + LayerNormalization over its last two dims: not fused */
    int t33 = val(g, "t33"), y33 = val(g, "Y33");
    int sc33 = tg_random_constant(g, "scale33", 2, (int64_t[]){5, 9}, 0.5f, 2, &seed);
    node(g, "mm33", "MatMul", 13, 2, (int[]){z3, wm}, t33, 0);
    int ln33 = node(g, "ln33", "LayerNormalization", 17, 2, (int[]){t33, sc33}, y33, 1);
    g->nodes[ln33].attrs[0] = (graph_attr){.name = "axis", .type = GRAPH_ATTR_INT, .i = 1};
    /* 34: 29's Gemm, views and residual Add, then a LayerNormalization over the last dim
     * (PyTorch's encoder after its attention): the views write the normalised rows */
    int t34 = val(g, "t34"), u34 = val(g, "u34"), v34 = val(g, "v34"), a34 = val(g, "a34"),
        y34 = val(g, "Y34");
    int r34 = tg_random_constant(g, "r34", 3, (int64_t[]){1, 5, 7}, -1, 1, &seed);
    int sc34 = tg_random_constant(g, "scale34", 1, (int64_t[]){7}, 0.5f, 2, &seed);
    int sh34 = tg_random_constant(g, "shift34", 1, (int64_t[]){7}, -1, 1, &seed);
    int g34 = node(g, "gemm34", "Gemm", 13, 3, (int[]){z, wg, bg}, t34, 1);
    g->nodes[g34].attrs[0] = (graph_attr){.name = "transB", .type = GRAPH_ATTR_INT, .i = 1};
    node(g, "unsq34", "Unsqueeze", 13, 2, (int[]){t34, ax29}, u34, 0);
    transpose(g, "tr34", u34, perm102, 3, v34);
    node(g, "add34", "Add", 13, 2, (int[]){v34, r34}, a34, 0);
    node(g, "ln34", "LayerNormalization", 17, 3, (int[]){a34, sc34, sh34}, y34, 0);
    /* 35: MatMul + residual Add read by a LayerNormalization and by a second Add (a pre-norm
     * encoder's residual stream): the Add fuses, the LayerNormalization stays */
    int t35 = val(g, "t35"), a35 = val(g, "a35"), y35 = val(g, "Y35"), y35b = val(g, "Y35B");
    node(g, "mm35", "MatMul", 13, 2, (int[]){z3, wm}, t35, 0);
    node(g, "radd35", "Add", 13, 2, (int[]){t35, r}, a35, 0);
    node(g, "ln35", "LayerNormalization", 17, 2, (int[]){a35, sc32}, y35, 0);
    node(g, "next35", "Add", 13, 2, (int[]){a35, r}, y35b, 0);
    if (fuse)
        unsetenv("VKML_NO_FUSE");
    else
        setenv("VKML_NO_FUSE", "1", 1);
    vkml_model *m =
        tg_model(g, (int[]){x, z, z3, r, sc}, 5,
                 (int[]){y1,  y2,  y3,   y4,  y5,  y6,  y7,  y8,  t8,  y9,  y10, y11, y12,  y13,
                         y14, y15, y16,  y17, i17, y18, y19, y20, y21, y22, y23, y24, ta25, y25,
                         y26, y27, y28s, y28, y29, y30, y31, y32, y33, y34, y35, y35b},
                 40, 20);
    unsetenv("VKML_NO_FUSE");
    return m;
}

/* The node's `fused` string, by node name ("" when absent or unfused). */
static const char *fused_of(const vkml_model *m, const char *name)
{
    for (size_t i = 0; i < vkml_model_node_count(m); i++) {
        vkml_node_info info;
        vkml_error err = {0};
        if (vkml_model_node(m, i, &info, &err) == VKML_OK && strcmp(info.name, name) == 0)
            return info.fused;
    }
    return "(no such node)";
}

#define N_IN 5
#define N_OUT 40
#define INDICES_OUT 18 /* I17: int64 */
/* The outputs of the folded biases (Y11, Y12): fused equals unfused bit for bit on a Vulkan
 * device (its kernels add the bias after the sum, as the Add did); on the CPU device within
 * 1e-6 of the output's scale (oneDNN adds it first on some ISAs: AVX2's jit convolution). */
#define FOLD_FIRST 11
#define FOLD_LAST 12

static void run(vkml_context *ctx, vkml_model *m, int device, const vkml_tensor *in,
                vkml_tensor *out)
{
    vkml_error err = {0};
    vkml_session *s = NULL;
    vkml_session_params params = {.device = device};
    CHECK_OK(vkml_session_create(ctx, m, &params, &s, &err), &err);
    if (!s)
        return;
    for (size_t o = 0; o < N_OUT; o++)
        CHECK_OK(vkml_session_alloc_output(s, o, &out[o], &err), &err);
    CHECK_OK(vkml_session_run(s, in, N_IN, out, N_OUT, &err), &err);
    vkml_session_destroy(&s);
}

int main(void)
{
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    test_require_vulkan(ctx);
    vkml_model *plain = make_model(false), *fused = make_model(true);
    if (!plain || !fused)
        return test_finish("test_fuse_epilogue");
    size_t np = vkml_model_node_count(plain), nf = vkml_model_node_count(fused);
    printf("nodes: %zu unfused, %zu fused\n", np, nf);
    /* Absorbed: Add Relu, Sigmoid Mul Add, Clip, HardSwish, LeakyRelu Add, Add Gelu,
     * HardSigmoid Mul, Add Relu, Add, Clip (the Constant nodes of its bounds stay), Relu
     * MaxPool, Add Relu MaxPool, Add Relu (the Identity stays), Add Div Erf Add Mul Mul,
     * Add, Mul Mul Relu, Mul, Transpose Unsqueeze Transpose Relu, Transpose, Transpose and
     * the Shape folded, the Add after the views, Add Mul Div Erf Add Mul, Add Add
     * LayerNormalization, the Add after the views and LayerNormalization, an Add. */
    CHECK(np - nf == 55, "%zu nodes absorbed, expected 55", np - nf);
    static const char *expect[][2] = {
        {"c1", "Add+Relu"},
        {"c2", "Sigmoid+Mul+Add"},
        {"c3", "Clip"},
        {"gemm4", "HardSwish"},
        {"mm5", "LeakyRelu+Add"},
        {"mm6", "Add+Gelu"},
        {"c7", ""},
        {"c8", ""},
        {"c9", "HardSigmoid+Mul"},
        {"mm10", ""},
        {"c11", "Add+Relu"},
        {"c12", "Add"},
        {"c13", ""},
        {"c14", "Clip"},
        {"c15", "Relu+MaxPool"},
        {"c16", "Add+Relu+MaxPool"},
        {"c17", ""},
        {"mm18", "Add+Relu"},
        {"mm19", "Add+Div+Erf+Add+Mul+Mul"},
        {"mm20", "Add"},
        {"mm21", "Mul+Mul+Relu"},
        {"mm22", "Mul"},
        {"mm23", "Transpose+Unsqueeze+Transpose+Relu"},
        {"mm24", "Transpose"},
        {"mm25", ""},
        {"mm26", ""},
        {"mm27", ""},
        {"mm28", "Transpose"},
        {"gemm29", "Add"},
        {"mm30", ""},
        {"mm31", "Add+Div+Erf+Add+Mul+Mul"},
        {"mm32", "Add+Add+LayerNormalization"},
        {"mm33", ""},
        {"gemm34", "Add+LayerNormalization"},
        {"mm35", "Add"},
        {"ln35", ""},
    };
    for (size_t i = 0; i < VKML_ARRAY_SIZE(expect); i++) {
        const char *got = fused_of(fused, expect[i][0]);
        CHECK(strcmp(got, expect[i][1]) == 0, "%s fused '%s', expected '%s'", expect[i][0], got,
              expect[i][1]);
        CHECK(strcmp(fused_of(plain, expect[i][0]), "") == 0, "VKML_NO_FUSE=1 fused %s",
              expect[i][0]);
    }
    /* Inputs: random, in [-2, 2). */
    static const int64_t dims[N_IN][4] = {
        {1, C, HW, HW}, {5, 12}, {2, 5, 12}, {2, 5, 9}, {1, C, 1, 1}};
    static const int ranks[N_IN] = {4, 2, 3, 3, 4};
    vkml_tensor in[N_IN] = {0};
    uint64_t s = 9;
    for (int i = 0; i < N_IN; i++) {
        size_t n = vkml_tensor_element_count(ranks[i], dims[i]);
        float *d = malloc(n * sizeof(float));
        for (size_t k = 0; k < n; k++)
            d[k] = test_randf(&s, -2, 2);
        in[i] = (vkml_tensor){
            .dtype = VKML_DTYPE_FLOAT, .rank = ranks[i], .data = d, .size = n * sizeof(float)};
        memcpy(in[i].dims, dims[i], sizeof(int64_t) * (size_t)ranks[i]);
    }
    vkml_tensor ref[N_OUT] = {0};
    run(ctx, plain, VKML_DEVICE_CPU, in, ref);
    /* The CPU once; each Vulkan device with its own kernels, then with the tiled ones. */
    TEST_FOR_EACH_DEVICE(t, ctx)
        for (int tiled = 0; tiled <= (t.device >= 0); tiled++) {
            int d = t.device;
            vk_device *vd = d >= 0 ? (vk_device *)context_device(ctx, d) : NULL;
            bool was_tiled = vd && vd->caps.prefer_tiled;
            if (vd) /* the second pass with the tiled kernels and the direct conv's lanes forms */
                vd->caps.prefer_tiled = was_tiled || tiled;
            float *unfused_fold[FOLD_LAST + 1] = {0};
            for (int f = 0; f < 2; f++) {
                vkml_tensor got[N_OUT] = {0};
                run(ctx, f ? fused : plain, d, in, got);
                double worst = 0;
                for (int o = 0; o < N_OUT; o++) {
                    if (o == INDICES_OUT) {
                        CHECK(got[o].data && ref[o].data && got[o].size == ref[o].size &&
                                  memcmp(got[o].data, ref[o].data, got[o].size) == 0,
                              "device %d: MaxPool's indices differ", d);
                        free(got[o].data);
                        continue;
                    }
                    size_t n = got[o].size / sizeof(float);
                    const float *a = got[o].data, *b = ref[o].data;
                    double scale = 1;
                    for (size_t k = 0; a && b && k < n; k++)
                        scale = fmax(scale, fabs(b[k]));
                    for (size_t k = 0; a && b && k < n; k++) {
                        double e = isfinite(a[k]) ? fabs(a[k] - b[k]) / scale : INFINITY;
                        worst = fmax(worst, e);
                    }
                    CHECK(a && b && got[o].size == ref[o].size, "device %d output %d missing", d,
                          o);
                    if (o >= FOLD_FIRST && o <= FOLD_LAST && !f)
                        unfused_fold[o] = got[o].data; /* compared with the fused run's below */
                    else if (o >= FOLD_FIRST && o <= FOLD_LAST) {
                        double diff = 0;
                        for (size_t k = 0; d < 0 && a && unfused_fold[o] && k < n; k++)
                            diff = fmax(diff, fabs(a[k] - unfused_fold[o][k]) / scale);
                        CHECK(a && unfused_fold[o] &&
                                  (d < 0 ? diff <= 1e-6
                                         : memcmp(a, unfused_fold[o], got[o].size) == 0),
                              "device %d output %d: the folded bias differs from the Add (%g)", d,
                              o, diff);
                        free(unfused_fold[o]);
                        free(got[o].data);
                    } else
                        free(got[o].data);
                }
                printf("device %d%s %s vs unfused CPU: max normalised error %.2e\n", d,
                       tiled ? " (tiled kernels)" : "", f ? "fused" : "unfused", worst);
                CHECK(worst < 1e-5, "device %d %s: error %g", d, f ? "fused" : "unfused", worst);
            }
            if (vd)
                vd->caps.prefer_tiled = was_tiled;
        }
    for (int o = 0; o < N_OUT; o++)
        free(ref[o].data);
    for (int i = 0; i < N_IN; i++)
        free(in[i].data);
    vkml_model_destroy(&fused);
    vkml_model_destroy(&plain);
    vkml_context_destroy(&ctx);
    return test_finish("test_fuse_epilogue");
}
