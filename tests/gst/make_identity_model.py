#!/usr/bin/python3
"""Writes a model whose output "out" is its image input "image" unchanged (Identity), so the
GStreamer tests read what vkmlinfer's pre-processing made of a frame.

  make_identity_model.py OUT --shape 1,3,8,6 [--dtype float|float16|uint8] [--maxpool]

--shape dims may be names (symbolic: "batch,3,h,w"). --maxpool adds a MaxPool 2x2 stride 2
after the Identity (a model whose output size follows its symbolic input size).
Run with Debian's /usr/bin/python3 (python3-onnx 1.12)."""
import argparse

from onnx import TensorProto, helper

DTYPES = {"float": TensorProto.FLOAT, "float16": TensorProto.FLOAT16,
          "uint8": TensorProto.UINT8}

parser = argparse.ArgumentParser()
parser.add_argument("output")
parser.add_argument("--shape", required=True)
parser.add_argument("--dtype", default="float", choices=sorted(DTYPES))
parser.add_argument("--maxpool", action="store_true")
args = parser.parse_args()

dims = [int(d) if d.isdigit() else d for d in args.shape.split(",")]
dtype = DTYPES[args.dtype]
nodes = [helper.make_node("Identity", ["image"], ["copy" if args.maxpool else "out"],
                          name="copy")]
if args.maxpool:
    nodes.append(helper.make_node("MaxPool", ["copy"], ["out"], name="pool",
                                  kernel_shape=[2, 2], strides=[2, 2]))
graph = helper.make_graph(nodes, "vkml_identity",
                          [helper.make_tensor_value_info("image", dtype, dims)],
                          [helper.make_tensor_value_info("out", dtype, None)])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 7
with open(args.output, "wb") as f:
    f.write(model.SerializeToString())
