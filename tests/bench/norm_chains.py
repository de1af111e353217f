#!/usr/bin/env python3
"""Writes the small models behind docs/performance.md's LayerNormalization figures, each over
a [1, 128, 768] float input (BERT-base's lines at 128 tokens), with ten nodes or groups in a
chain so that `vkml run --profile` gives a node's time in steady state:
  ln_chain.onnx   ten LayerNormalizations (axis -1, one scale and bias);
  mm_res.onnx     ten MatMul 768 x 768 + bias + residual Adds (an encoder's output projection);
  mm_res_ln.onnx  the same, each followed by a LayerNormalization;
  input.pb        the input, a TensorProto.
Usage: norm_chains.py OUT_DIR. Needs the onnx and numpy modules; weights are random (seed 0).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

LINKS = 10
rng = np.random.default_rng(0)


def tensor(name, *shape, scale=1.0):
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


def link_name(i):
    return "y" if i == LINKS - 1 else f"t{i + 1}"


def save(out, name, nodes, inits):
    io = [helper.make_tensor_value_info(v, TensorProto.FLOAT, [1, 128, 768]) for v in "xy"]
    graph = helper.make_graph(nodes, name, io[:1], io[1:], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))


def layer_norm(src, dst):
    return helper.make_node("LayerNormalization", [src, "g", "b"], [dst], axis=-1, epsilon=1e-5)


def products(with_norm):
    nodes, inits = [], [tensor("g", 768), tensor("b", 768)] if with_norm else []
    for i in range(LINKS):
        src = "x" if i == 0 else f"t{i}"
        inits += [tensor(f"w{i}", 768, 768, scale=0.036), tensor(f"bias{i}", 768)]
        last = link_name(i) if not with_norm else f"r{i}"
        nodes += [helper.make_node("MatMul", [src, f"w{i}"], [f"m{i}"]),
                  helper.make_node("Add", [f"m{i}", f"bias{i}"], [f"a{i}"]),
                  helper.make_node("Add", [f"a{i}", src], [last])]
        if with_norm:
            nodes.append(layer_norm(last, link_name(i)))
    return nodes, inits


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    chain = [layer_norm("x" if i == 0 else f"t{i}", link_name(i)) for i in range(LINKS)]
    save(out, "ln_chain", chain, [tensor("g", 768), tensor("b", 768)])
    save(out, "mm_res", *products(False))
    save(out, "mm_res_ln", *products(True))
    x = rng.standard_normal((1, 128, 768)).astype(np.float32)
    with open(os.path.join(out, "input.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())


if __name__ == "__main__":
    main()
