#!/usr/bin/python3
"""Writes the demo's colour classifier (an ONNX model) and its labels file.

No training and no download: the weights are written down by hand. The model takes an
image "image" float [1,3,64,64] (NCHW, RGB, values 0..1), averages it to one colour x
(GlobalAveragePool, Flatten) and scores each prototype colour p_k with

    logit_k = T * (2 x.p_k - |p_k|^2) = T * (|x|^2 - |x - p_k|^2)

which is largest for the prototype nearest to x (|x|^2 is the same for every k). So the
MatMul weight column k is 2 T p_k and the bias is -T |p_k|^2; Softmax turns the logits
into "probabilities" [1,K]. T (the temperature) makes the answer confident.

With --layout nhwc the input is [1,64,64,3] and the mean is a Reshape to [H*W,3] and a
MatMul with a row of 1/(H*W): the same classifier for channels-last inputs. With
--vector-input the model skips the pooling and takes the mean colour "rgb" float [1,3]
itself: a model that cannot take video. The GStreamer tests use both.

Run with Debian's /usr/bin/python3 (python3-onnx 1.12, numpy).
"""
import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# Prototype colours (RGB, 0..1) in label order.
PROTOTYPES = [
    ("red", (1, 0, 0)),
    ("green", (0, 1, 0)),
    ("blue", (0, 0, 1)),
    ("yellow", (1, 1, 0)),
    ("cyan", (0, 1, 1)),
    ("magenta", (1, 0, 1)),
    ("white", (1, 1, 1)),
    ("black", (0, 0, 0)),
]
OPSET = 13


def classifier_weights(temperature):
    """W [3,K] and b [K] of logit_k = T * (2 x.p_k - |p_k|^2)."""
    p = np.array([rgb for _, rgb in PROTOTYPES], dtype=np.float32)  # [K,3]
    w = (2.0 * temperature * p).T.astype(np.float32)  # [3,K]
    b = (-temperature * (p * p).sum(axis=1)).astype(np.float32)  # [K]
    return w, b


def mean_colour_nchw(size, batch=1):
    """image [B,3,S,S] -> mean [B,3]."""
    inp = helper.make_tensor_value_info("image", TensorProto.FLOAT, [batch, 3, size, size])
    nodes = [
        helper.make_node("GlobalAveragePool", ["image"], ["pooled"], name="mean_colour"),
        helper.make_node("Flatten", ["pooled"], ["mean"], name="flatten", axis=1),
    ]
    return inp, nodes, []


def mean_colour_nhwc(size):
    """image [1,S,S,3] -> pixels [S*S,3] -> (row of 1/(S*S)) x pixels = mean [1,3]."""
    n = size * size
    inp = helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, size, size, 3])
    nodes = [
        helper.make_node("Reshape", ["image", "pixels_shape"], ["pixels"], name="to_pixels"),
        helper.make_node("MatMul", ["average_row", "pixels"], ["mean"], name="mean_colour"),
    ]
    consts = [
        numpy_helper.from_array(np.array([n, 3], dtype=np.int64), "pixels_shape"),
        numpy_helper.from_array(np.full((1, n), 1.0 / n, dtype=np.float32), "average_row"),
    ]
    return inp, nodes, consts


def build_model(size, temperature, layout, vector_input, batch=1):
    k = len(PROTOTYPES)
    w, b = classifier_weights(temperature)
    if vector_input:
        inp, nodes, consts = helper.make_tensor_value_info("rgb", TensorProto.FLOAT, [1, 3]), [], []
        mean = "rgb"
    else:
        if layout == "nhwc":
            inp, nodes, consts = mean_colour_nhwc(size)
        else:
            inp, nodes, consts = mean_colour_nchw(size, batch)
        mean = "mean"
    nodes += [
        helper.make_node("MatMul", [mean, "W"], ["scaled_dot"], name="dot_prototypes"),
        helper.make_node("Add", ["scaled_dot", "b"], ["logits"], name="add_bias"),
        helper.make_node("Softmax", ["logits"], ["probabilities"], name="softmax", axis=-1),
    ]
    out = helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [batch, k])
    graph = helper.make_graph(
        nodes, "vkml_colour_classifier", [inp], [out],
        initializer=consts + [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "b")])
    model = helper.make_model(graph, producer_name="vkml make_color_model.py",
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 7  # readable by every ONNX runtime of opset 13's time
    onnx.checker.check_model(model)
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--output", required=True, help="model file to write (.onnx)")
    ap.add_argument("--labels", help="labels file to write (one per line)")
    ap.add_argument("--size", type=int, default=64, help="input height and width")
    ap.add_argument("--temperature", type=float, default=10.0, help="T in the logits")
    ap.add_argument("--layout", choices=["nchw", "nhwc"], default="nchw",
                    help="input layout of the image")
    ap.add_argument("--vector-input", action="store_true",
                    help="take the mean colour [1,3] instead of an image")
    ap.add_argument("--batch", default="1",
                    help="batch dimension (nchw): a number, or a name for a symbolic one")
    args = ap.parse_args()
    batch = int(args.batch) if args.batch.isdigit() else args.batch

    onnx.save(build_model(args.size, args.temperature, args.layout, args.vector_input, batch),
              args.output)
    if args.labels:
        with open(args.labels, "w") as f:
            f.write("".join(name + "\n" for name, _ in PROTOTYPES))


if __name__ == "__main__":
    main()
