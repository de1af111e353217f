#!/usr/bin/python3
"""Writes a valid ONNX model that vkml cannot run: an image input [1,3,8,8] into an op
of a domain vkml does not implement (node "mystery_node", op com.example.NoSuchOp).
The GStreamer tests expect vkmlinfer to refuse it with an error naming the node."""
import sys

from onnx import TensorProto, helper

node = helper.make_node("NoSuchOp", ["image"], ["out"], name="mystery_node",
                        domain="com.example")
graph = helper.make_graph(
    [node], "vkml_unsupported",
    [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 8, 8])],
    [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 3, 8, 8])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13),
                                                helper.make_opsetid("com.example", 1)])
model.ir_version = 7
with open(sys.argv[1], "wb") as f:
    f.write(model.SerializeToString())
