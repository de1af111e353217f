#!/usr/bin/python3
"""Writes the control-flow models test_ops_control.c reads (If, Loop, Scan).

Usage: make_control_models.py OUTDIR STAMP. Built with onnx.helper (Debian's python3-onnx);
the expected values are computed in test_ops_control.c by hand.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]
F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def save(proto, name):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(proto.SerializeToString())


def model(nodes, inputs, outputs, inits=(), opset=17):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def value(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def const(name, array):
    return numpy_helper.from_array(np.array(array), name)


def node(op, inputs, outputs, **attrs):
    return helper.make_node(op, inputs, outputs, name=outputs[0] + "_node", **attrs)


def branch(name, nodes, outputs, inits=()):
    return helper.make_graph(nodes, name, [], outputs, initializer=list(inits))


# An exporter's shape test: rank(X) == 2 folds when the session is planned, so the If
# becomes its then branch (Relu of X, read from the outer scope) and plans on the GPU.
save(model([node("Shape", ["X"], ["shape"]),
            node("Size", ["shape"], ["rank"]),
            node("Equal", ["rank", "two"], ["is_2d"]),
            node("If", ["is_2d"], ["Y"],
                 then_branch=branch("then", [node("Relu", ["X"], ["relu"]),
                                             node("Add", ["relu", "one"], ["then_y"])],
                                    [value("then_y", F, [2, 3])]),
                 else_branch=branch("else", [node("Neg", ["X"], ["else_y"])],
                                    [value("else_y", F, [2, 3])]))],
           [value("X", F, [2, 3])], [value("Y", F, [2, 3])],
           [const("two", np.int64(2)), const("one", np.float32(1))]), "if_shape_test.onnx")

# A condition on NonZero's count: its planned extent is a bound (4), so the If stays an If
# although Size of it folds when the session is planned.
save(model([node("NonZero", ["X"], ["nz"]), node("Size", ["nz"], ["count"]),
            node("Equal", ["count", "four"], ["all_set"]),
            node("If", ["all_set"], ["Y"],
                 then_branch=branch("then", [node("Add", ["X", "one"], ["then_y"])],
                                    [value("then_y", F, [4])]),
                 else_branch=branch("else", [node("Neg", ["X"], ["else_y"])],
                                    [value("else_y", F, [4])]))],
           [value("X", F, [4])], [value("Y", F, [4])],
           [const("four", np.int64(4)), const("one", np.float32(1))]), "if_on_bound.onnx")

# A condition on NonZero's count whose then branch is an exporter's early return of an
# empty tensor (of another rank): the If stays for the tail, bounded by its else branch
# (NonZero's indices as floats, [4]), and each run gives the real extent.
save(model([node("NonZero", ["X"], ["nz"]), node("Size", ["nz"], ["count"]),
            node("Equal", ["count", "zero"], ["none_set"]),
            node("If", ["none_set"], ["Y"],
                 then_branch=branch("then", [node("Identity", ["empty"], ["then_y"])],
                                    [value("then_y", F, [0, 1])],
                                    [const("empty", np.zeros((0, 1), np.float32))]),
                 else_branch=branch("else", [node("Reshape", ["nz", "flat"], ["idx"]),
                                             node("Cast", ["idx"], ["else_y"], to=F)],
                                    [value("else_y", F, ["n"])]))],
           [value("X", F, [4])], [value("Y", F, ["n"])],
           [const("zero", np.int64(0)), const("flat", np.array([-1], np.int64))]),
     "if_empty_branch.onnx")

# A condition known only at run time; the branches read an outer initializer and give
# different shapes ([3] and [2]).
save(model([node("If", ["cond"], ["Y"],
                 then_branch=branch("then", [node("Add", ["X", "bias"], ["then_y"])],
                                    [value("then_y", F, [3])]),
                 else_branch=branch("else", [node("Slice", ["X", "s0", "s2"], ["else_y"])],
                                    [value("else_y", F, [2])],
                                    [const("s0", np.array([0], np.int64)),
                                     const("s2", np.array([2], np.int64))]))],
           [value("cond", B, []), value("X", F, [3])], [value("Y", F, [None])],
           [const("bias", np.array([10, 20, 30], np.float32))]), "if_runtime.onnx")

# Loop with a trip count and a condition: x <- x * w + i (w from the outer scope), the
# condition i < limit - 1 (so it stops after `limit` iterations), x stacked each time.
loop_body = helper.make_graph(
    [node("Cast", ["i"], ["i_f"], to=F),
     node("Mul", ["x_in", "w"], ["xw"]),
     node("Add", ["xw", "i_f"], ["x_out"]),
     node("Sub", ["limit", "one_i"], ["last"]),
     node("Less", ["i", "last"], ["cond_out"]),
     node("Identity", ["x_out"], ["x_scan"])],
    "body", [value("i", I64, []), value("cond_in", B, []), value("x_in", F, [2])],
    [value("cond_out", B, []), value("x_out", F, [2]), value("x_scan", F, [2])],
    initializer=[const("one_i", np.int64(1))])
save(model([node("Loop", ["M", "cond", "x0"], ["x_final", "xs"], body=loop_body)],
           [value("M", I64, []), value("cond", B, []), value("x0", F, [2]),
            value("limit", I64, [])],
           [value("x_final", F, [2]), value("xs", F, [None, 2])],
           [const("w", np.array([2, 3], np.float32))]), "loop_carried.onnx")

# The same body under a trip count and a limit that are initializers: the plan knows both,
# so the Loop unrolls into its 3 iterations' nodes (the condition stops it before M = 5).
save(model([node("Loop", ["M", "yes", "x0"], ["x_final", "xs"], body=loop_body)],
           [value("x0", F, [2])], [value("x_final", F, [2]), value("xs", F, [None, 2])],
           [const("w", np.array([2, 3], np.float32)), const("M", np.int64(5)),
            const("yes", np.bool_(True)), const("limit", np.int64(3))]),
     "loop_unroll_stop.onnx")
# A PyTorch-style `for i in range(4)`: a constant trip count, no condition, the body's
# condition its incoming one; unrolled into 4 iterations.
for_body = helper.make_graph(
    [node("Cast", ["i"], ["i_f"], to=F),
     node("Mul", ["x_in", "w"], ["xw"]),
     node("Add", ["xw", "i_f"], ["x_out"]),
     node("Identity", ["cond_in"], ["cond_out"]),
     node("Identity", ["x_out"], ["x_scan"])],
    "body", [value("i", I64, []), value("cond_in", B, []), value("x_in", F, [2])],
    [value("cond_out", B, []), value("x_out", F, [2]), value("x_scan", F, [2])])
save(model([node("Loop", ["M", "", "x0"], ["x_final", "xs"], body=for_body)],
           [value("x0", F, [2])], [value("x_final", F, [2]), value("xs", F, [4, 2])],
           [const("w", np.array([2, 3], np.float32)), const("M", np.int64(4))]),
     "loop_unroll_for.onnx")

# Loops nested, both of constant trip counts: the inner adds 0 + 1 + 2 to x, the outer
# then its own iteration number; both unroll (2 x 3 inner iterations).
inner_body = helper.make_graph(
    [node("Cast", ["j"], ["j_f"], to=F), node("Add", ["acc_in", "j_f"], ["acc_out"]),
     node("Identity", ["cond_in"], ["cond_out"])],
    "inner", [value("j", I64, []), value("cond_in", B, []), value("acc_in", F, [2])],
    [value("cond_out", B, []), value("acc_out", F, [2])])
outer_body = helper.make_graph(
    [node("Loop", ["three", "", "x_in"], ["x_inner"], body=inner_body),
     node("Cast", ["i"], ["i_f"], to=F), node("Add", ["x_inner", "i_f"], ["x_out"]),
     node("Identity", ["cond_in"], ["cond_out"]), node("Identity", ["x_out"], ["x_scan"])],
    "outer", [value("i", I64, []), value("cond_in", B, []), value("x_in", F, [2])],
    [value("cond_out", B, []), value("x_out", F, [2]), value("x_scan", F, [2])],
    initializer=[const("three", np.int64(3))])
save(model([node("Loop", ["M", "", "x0"], ["x_final", "xs"], body=outer_body)],
           [value("x0", F, [2])], [value("x_final", F, [2]), value("xs", F, [2, 2])],
           [const("M", np.int64(2))]), "loop_unroll_nested.onnx")

def save_grow(step_nodes, step, name):
    """A Loop appending the row x + `step` (made by step_nodes) to acc, from empty."""
    body = helper.make_graph(
        step_nodes +
        [node("Add", ["x", step], ["row"]),
         node("Unsqueeze", ["row", "zero_axis"], ["row2"]),
         node("Concat", ["acc_in", "row2"], ["acc_out"], axis=0),
         node("Identity", ["cond_in"], ["cond_out"])],
        "body", [value("i", I64, []), value("cond_in", B, []), value("acc_in", F, [None, 2])],
        [value("cond_out", B, []), value("acc_out", F, [None, 2])],
        initializer=[const("zero_axis", np.array([0], np.int64))])
    save(model([node("Loop", ["M", "", "acc0"], ["acc"], body=body)],
               [value("M", I64, []), value("x", F, [2])], [value("acc", F, [None, 2])],
               [numpy_helper.from_array(np.zeros((0, 2), np.float32), "acc0")]), name)


# A carried value grown by one row each iteration (torchvision's pasted masks): acc starts
# empty and gets x + i appended; its bound is one row per iteration the limit allows.
save_grow([node("Cast", ["i"], ["i_f"], to=F)], "i_f", "loop_grow.onnx")
# The same growth, but each row reads how much is carried (x + Size(acc)): the iterations
# depend on each other, so they run one after another.
save_grow([node("Size", ["acc_in"], ["size"]), node("Cast", ["size"], ["size_f"], to=F)],
          "size_f", "loop_grow_reads.onnx")
# A carried value that doubles each iteration: no constant step, refused.
double_body = helper.make_graph(
    [node("Concat", ["acc_in", "acc_in"], ["acc_out"], axis=0),
     node("Identity", ["cond_in"], ["cond_out"])],
    "body", [value("i", I64, []), value("cond_in", B, []), value("acc_in", F, [None, 2])],
    [value("cond_out", B, []), value("acc_out", F, [None, 2])])
save(model([node("Loop", ["M", "", "x"], ["acc"], body=double_body)],
           [value("M", I64, []), value("x", F, [1, 2])], [value("acc", F, [None, 2])]),
     "loop_double.onnx")

# A carried value grown each iteration by a row whose length the data decide (n, the
# largest of x, read from the outer scope): the probe cannot size the row, so the output
# is unbounded: each run gives its extent. acc <- acc ++ [i] * n.
unbounded_body = helper.make_graph(
    [node("ConstantOfShape", ["n"], ["zeros"]),
     node("Cast", ["i"], ["i_f"], to=F),
     node("Add", ["zeros", "i_f"], ["row"]),
     node("Concat", ["acc_in", "row"], ["acc_out"], axis=0),
     node("Identity", ["cond_in"], ["cond_out"])],
    "body", [value("i", I64, []), value("cond_in", B, []), value("acc_in", F, [None])],
    [value("cond_out", B, []), value("acc_out", F, [None])])
save(model([node("ReduceMax", ["x"], ["x_max"], keepdims=1),
            node("Cast", ["x_max"], ["n"], to=I64),
            node("Loop", ["M", "", "acc0"], ["acc"], body=unbounded_body)],
           [value("M", I64, []), value("x", F, [3])], [value("acc", F, [None])],
           [numpy_helper.from_array(np.zeros((0,), np.float32), "acc0")]), "loop_unbounded.onnx")

# A while loop (no trip count): sum <- sum + step until sum >= stop.
while_body = helper.make_graph(
    [node("Add", ["sum_in", "step"], ["sum_out"]),
     node("Less", ["sum_out", "stop"], ["cond_out"])],
    "body", [value("i", I64, []), value("cond_in", B, []), value("sum_in", F, [])],
    [value("cond_out", B, []), value("sum_out", F, [])])
save(model([node("Loop", ["", "cond", "sum0"], ["sum"], body=while_body)],
           [value("cond", B, []), value("sum0", F, []), value("step", F, []),
            value("stop", F, [])],
           [value("sum", F, [])]), "loop_while.onnx")

# A Loop without a bound (no trip count, condition always true): the session's limit.
forever_body = helper.make_graph(
    [node("Identity", ["cond_in"], ["cond_out"]), node("Add", ["x_in", "x_in"], ["x_out"])],
    "body", [value("i", I64, []), value("cond_in", B, []), value("x_in", F, [1])],
    [value("cond_out", B, []), value("x_out", F, [1])])
save(model([node("Loop", ["", "yes", "x0"], ["x"], body=forever_body)],
           [value("x0", F, [1])], [value("x", F, [1])], [const("yes", np.bool_(True))]),
     "loop_forever.onnx")
# A trip count of 10^12.
save(model([node("Loop", ["M", "", "x0"], ["x"], body=forever_body)],
           [value("x0", F, [1])], [value("x", F, [1])], [const("M", np.int64(10**12))]),
     "loop_huge_trip.onnx")

# A Loop inside an If branch: the branch reads X (the model's input) and its own constant
# k; the Loop body reads X (two scopes out) and k (one scope out): acc <- acc + X * k,
# 3 times, then the branch adds 1. The else branch gives -X.
inner_body = helper.make_graph(
    [node("Mul", ["X", "k"], ["xk"]), node("Add", ["acc_in", "xk"], ["acc_out"]),
     node("Identity", ["cond_in"], ["cond_out"])],
    "inner", [value("j", I64, []), value("cond_in", B, []), value("acc_in", F, [2])],
    [value("cond_out", B, []), value("acc_out", F, [2])])
then_loop = branch("then", [node("Loop", ["three", "", "zeros"], ["acc"], body=inner_body),
                            node("Add", ["acc", "one"], ["then_y"])],
                   [value("then_y", F, [2])],
                   [const("k", np.float32(0.5)), const("three", np.int64(3)),
                    const("zeros", np.zeros(2, np.float32))])
save(model([node("If", ["cond"], ["Y"], then_branch=then_loop,
                 else_branch=branch("else", [node("Neg", ["X"], ["else_y"])],
                                    [value("else_y", F, [2])]))],
           [value("cond", B, []), value("X", F, [2])], [value("Y", F, [2])],
           [const("one", np.float32(1))]), "loop_in_if.onnx")

# Scan over axis 1 of X [2,3], reversed, with a running sum and the outer scale s:
# state <- state + x_t * s, scanned out forward along axis 0.
scan_body = helper.make_graph(
    [node("Mul", ["x_t", "s"], ["xs"]), node("Add", ["st_in", "xs"], ["st_out"]),
     node("Identity", ["st_out"], ["y_t"])],
    "body", [value("st_in", F, [2]), value("x_t", F, [2])],
    [value("st_out", F, [2]), value("y_t", F, [2])])
save(model([node("Scan", ["st0", "X"], ["st", "Y"], body=scan_body, num_scan_inputs=1,
                 scan_input_axes=[1], scan_input_directions=[1])],
           [value("st0", F, [2]), value("X", F, [2, 3])],
           [value("st", F, [2]), value("Y", F, [3, 2])], [const("s", np.float32(2))],
           opset=16), "scan_reverse.onnx")

# Scan at opset 8: a batch of 2, each element its own running sum over dim 1 of X [2,3,1].
sum_body = helper.make_graph(
    [node("Add", ["s_in", "x_t"], ["s_out"]), node("Identity", ["s_out"], ["y_t"])],
    "body", [value("s_in", F, [1]), value("x_t", F, [1])],
    [value("s_out", F, [1]), value("y_t", F, [1])])
save(model([node("Scan", ["", "s0", "X"], ["s", "Y"], body=sum_body, num_scan_inputs=1)],
           [value("s0", F, [2, 1]), value("X", F, [2, 3, 1])],
           [value("s", F, [2, 1]), value("Y", F, [2, 3, 1])], opset=8), "scan8_batch.onnx")

# Bad input: a Loop whose body gives 2 outputs for a node of 2 outputs (it needs 3).
save(model([node("Loop", ["M", "", "x0"], ["x", "xs"], body=forever_body)],
           [value("x0", F, [1])], [value("x", F, [1]), value("xs", F, [None, 1])],
           [const("M", np.int64(2))]), "loop_outputs_mismatch.onnx")
# A body output declared int64 that the body makes float.
bad_type_body = helper.make_graph(
    [node("Identity", ["cond_in"], ["cond_out"]), node("Add", ["x_in", "x_in"], ["x_out"])],
    "body", [value("i", I64, []), value("cond_in", B, []), value("x_in", F, [1])],
    [value("cond_out", B, []), value("x_out", I64, [1])])
save(model([node("Loop", ["M", "", "x0"], ["x"], body=bad_type_body)],
           [value("x0", F, [1])], [value("x", F, [1])], [const("M", np.int64(2))]),
     "loop_output_type.onnx")
# The same under a trip count from the data (max(x0)), so that the body runs on the host.
save(model([node("ReduceMax", ["x0"], ["top"], keepdims=0), node("Cast", ["top"], ["M"], to=I64),
            node("Loop", ["M", "", "x0"], ["x"], body=bad_type_body)],
           [value("x0", F, [1])], [value("x", F, [1])]), "loop_output_type_runtime.onnx")
# Ifs nested 17 deep (vkml's limit is 16).
inner = branch("b", [node("Identity", ["X"], ["y"])], [value("y", F, [1])])
for depth in range(17):
    inner = branch("b%d" % depth, [node("If", ["cond"], ["y"], then_branch=inner,
                                        else_branch=inner)], [value("y", F, [1])])
save(model(list(inner.node), [value("cond", B, []), value("X", F, [1])],
           [value("y", F, [1])]), "if_too_deep.onnx")

with open(sys.argv[2], "w") as f:
    f.write("ok\n")
