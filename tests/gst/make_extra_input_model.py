#!/usr/bin/python3
"""Writes a model of two inputs, an image "image" [1,3,8,6] float and "scale_factor" [1]
float, whose output "out" is image * scale_factor, and TensorProto files for its second
input: scale_factor=2 ([1], fits), a [2] tensor (wrong shape) and an int64 [1] (wrong type).
vkmlinfer's 'input-tensors' takes them (tests/gst/test_batch.c).

  make_extra_input_model.py MODEL GOOD_PB WRONG_SHAPE_PB WRONG_TYPE_PB

Run with Debian's /usr/bin/python3 (python3-onnx 1.12)."""
import sys

from onnx import TensorProto, helper

model_path, good, wrong_shape, wrong_type = sys.argv[1:5]
graph = helper.make_graph(
    [helper.make_node("Mul", ["image", "scale_factor"], ["out"], name="scale")],
    "vkml_extra_input",
    [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 8, 6]),
     helper.make_tensor_value_info("scale_factor", TensorProto.FLOAT, [1])],
    [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 7
with open(model_path, "wb") as f:
    f.write(model.SerializeToString())
for path, tensor in [
        (good, helper.make_tensor("scale_factor", TensorProto.FLOAT, [1], [2.0])),
        (wrong_shape, helper.make_tensor("scale_factor", TensorProto.FLOAT, [2], [2.0, 3.0])),
        (wrong_type, helper.make_tensor("scale_factor", TensorProto.INT64, [1], [2]))]:
    with open(path, "wb") as f:
        f.write(tensor.SerializeToString())
