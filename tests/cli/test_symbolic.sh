#!/bin/sh
# Symbolic dimensions: a Relu model with input x [N,3] (made here with Debian's
# python3-onnx). `vkml inspect` prints N by name; `vkml run` takes N from the input file;
# `vkml conformance` runs two data sets with N = 2 and N = 4 (one session each) and
# catches a wrong expected value in a third folder.
. "$(dirname "$0")/common.sh"

/usr/bin/python3 -c 'import onnx, numpy' 2> /dev/null || missing "python3-onnx and python3-numpy"
/usr/bin/python3 - "$TMP/relu" <<'PY' || fail "could not make the model"
import os, sys
import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

root = sys.argv[1]
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])
graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "relu", [x], [y])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8

def write(folder, name, array):
    with open(os.path.join(folder, name), "wb") as f:
        f.write(numpy_helper.from_array(array, name.split("_")[0][0]).SerializeToString())

for test, wrong in (("good", False), ("bad", True)):
    os.makedirs(os.path.join(root, test))
    save(model, os.path.join(root, test, "model.onnx"))
    for n, rows in enumerate((2, 4)):
        folder = os.path.join(root, test, "test_data_set_%d" % n)
        os.makedirs(folder)
        a = np.arange(-rows * 3 / 2, rows * 3 / 2, dtype=np.float32).reshape(rows, 3)
        want = np.maximum(a, 0)
        if wrong and n == 1:
            want[3, 2] += 0.01
        write(folder, "input_0.pb", a)
        write(folder, "output_0.pb", want)
PY

"$VKML" inspect "$TMP/relu/good/model.onnx" > "$TMP/out" 2>&1 || fail "inspect exited $?"
expect_grep "$TMP/out" '^  x +float +\[N,3\]$' "symbolic input shape"
"$VKML" run "$TMP/relu/good/model.onnx" --device cpu --values 12 \
    --input "$TMP/relu/good/test_data_set_1/input_0.pb" > "$TMP/out" 2>&1 || fail "run exited $?"
expect_grep "$TMP/out" '^y: float \[4,3\]$' "N taken from the input"
expect_grep "$TMP/out" '^  values: 0 0 0 0 0 0 0 1 2 3 4 5 \(12 of 12\)$' "Relu values"

"$VKML" conformance --device cpu "$TMP/relu" > "$TMP/out" 2> "$TMP/err"
rc=$?
cat "$TMP/out"
[ "$rc" = 1 ] || fail "exit $rc with one FAIL, expected 1"
expect_grep "$TMP/out" '^PASS good$' "two data sets with N = 2 and N = 4"
expect_grep "$TMP/out" "^FAIL bad test_data_set_1: output 'y' \\[11\\]: got 5, expected 5.01" "the wrong value"
finish
