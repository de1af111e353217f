#!/usr/bin/python3
"""Writes a model whose output "out" is its image input "image" unchanged (Identity), so the
GStreamer tests read what vkmlinfer's pre-processing made of a frame.

  make_identity_model.py OUT --shape 1,3,8,6 [--dtype float|float16|uint8] [--maxpool]
                          [--total] [--ballast MIB]

--shape dims may be names (symbolic: "batch,3,h,w"). --maxpool adds a MaxPool 2x2 stride 2
after the Identity (a model whose output size follows its symbolic input size). --total adds
an output "total", the sum of the whole input (a scalar: not per frame of a batch).
--ballast adds MIB MiB of float weights (all 1) and an output "ballast", their sum: a model
slow to load and plan (tests/gst/test_inflight.c swaps to it while frames flow).
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
parser.add_argument("--total", action="store_true")
parser.add_argument("--ballast", type=int, default=0)
args = parser.parse_args()

dims = [int(d) if d.isdigit() else d for d in args.shape.split(",")]
dtype = DTYPES[args.dtype]
nodes = [helper.make_node("Identity", ["image"], ["copy" if args.maxpool else "out"],
                          name="copy")]
if args.maxpool:
    nodes.append(helper.make_node("MaxPool", ["copy"], ["out"], name="pool",
                                  kernel_shape=[2, 2], strides=[2, 2]))
outputs = [helper.make_tensor_value_info("out", dtype, None)]
if args.total:
    nodes.append(helper.make_node("ReduceSum", ["image"], ["total"], name="total",
                                  keepdims=0))
    outputs.append(helper.make_tensor_value_info("total", dtype, None))
initializers = []
if args.ballast:
    count = args.ballast * (1 << 20) // 4
    initializers.append(helper.make_tensor("weights", TensorProto.FLOAT, [count],
                                           b"\x00\x00\x80\x3f" * count, raw=True))
    nodes.append(helper.make_node("ReduceSum", ["weights"], ["ballast"], name="ballast",
                                  keepdims=0))
    outputs.append(helper.make_tensor_value_info("ballast", TensorProto.FLOAT, None))
graph = helper.make_graph(nodes, "vkml_identity",
                          [helper.make_tensor_value_info("image", dtype, dims)], outputs,
                          initializer=initializers)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 7
with open(args.output, "wb") as f:
    f.write(model.SerializeToString())
