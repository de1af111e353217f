#!/usr/bin/python3
"""Writes the small string models and .pb tensors test_ops_string.c reads.

Usage: make_string_models.py OUTDIR STAMP. Built with onnx.helper (Debian's python3-onnx).
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]
S = TensorProto.STRING


def save(proto, name):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(proto.SerializeToString())


def model(nodes, inputs, outputs, inits=(), opset=20):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def value(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def normalizer(shape_in, shape_out, in_type=S, **attrs):
    node = helper.make_node("StringNormalizer", ["x"], ["y"], **attrs)
    return model([node], [value("x", in_type, shape_in)], [value("y", S, shape_out)])


save(normalizer([5], [None], case_change_action="LOWER", is_case_sensitive=0,
                stopwords=["THE", "À"], locale="en_US.UTF-8"), "strnorm_lower.onnx")
save(normalizer([1, 3], [1, None], case_change_action="UPPER", is_case_sensitive=1,
                stopwords=["monday"]), "strnorm_upper_2d.onnx")
save(normalizer([1, 2], [1, None], stopwords=["a"]), "strnorm_all_stop.onnx")
save(normalizer([3], [None], case_change_action="TITLE"), "strnorm_bad_action.onnx")
save(normalizer([3], [None], locale="tr_TR"), "strnorm_bad_locale.onnx")
save(normalizer([3], [None], in_type=TensorProto.FLOAT), "strnorm_float.onnx")

# A normalizer feeding a concat (the tail runs both), and a concat with a constant.
save(model([helper.make_node("StringNormalizer", ["x"], ["t"], case_change_action="LOWER",
                             stopwords=["b"]),
            helper.make_node("StringConcat", ["t", "t"], ["y"])],
           [value("x", S, [3])], [value("y", S, [None])]), "strnorm_concat.onnx")
suffix = helper.make_tensor("suffix", S, [1], [b"!"])
save(model([helper.make_node("StringConcat", ["x", "suffix"], ["y"])],
           [value("x", S, [2])], [value("y", S, [2])], inits=[suffix]), "concat_const.onnx")

# Tensor files: a good one, and ones the reader must refuse.
save(numpy_helper.from_array(np.array([["héllo", ""], ["a b", "的"]], dtype=object), "words"),
     "words.pb")
t = helper.make_tensor("short", S, [2], [b"a", b"b"])
t.dims[0] = 3
save(t, "count_mismatch.pb")
save(helper.make_tensor("nul", S, [1], [b"a\x00b"]), "nul.pb")

with open(sys.argv[2], "w") as f:
    f.write("ok\n")
