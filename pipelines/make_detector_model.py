#!/usr/bin/python3
"""Writes a small detector-shaped ONNX model for pipelines/detect.sh (no training).

The model takes the frame itself, "image" float [1,3,H,W] (NCHW, RGB, 0..1; by default
240x320, so its input pixels are the frame's pixels), cuts it into CELL x CELL cells,
and scores the mean colour of each cell against the colour classifier's prototypes
(make_color_model.py: logit_k = T * (2 x.p_k - |p_k|^2), Softmax over k). Its one
output "output0" [1,4+K,N] has the YOLOv8 layout: rows cx, cy, w, h (the cell, in
input pixels), then the K class scores, one column per cell (N = (H/CELL)*(W/CELL)).
So a solid red frame gives N "red" boxes, one per cell.

Run with Debian's /usr/bin/python3 (python3-onnx 1.12, numpy).
"""
import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from make_color_model import OPSET, PROTOTYPES, classifier_weights


def build_model(height, width, cell, temperature):
    k = len(PROTOTYPES)
    rows, cols = height // cell, width // cell
    n = rows * cols
    w, b = classifier_weights(temperature)  # [3,K], [K]
    conv_w = w.T.reshape(k, 3, 1, 1).astype(np.float32)
    ys, xs = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    boxes = np.stack([(xs.ravel() + 0.5) * cell, (ys.ravel() + 0.5) * cell,
                      np.full(n, cell), np.full(n, cell)]).astype(np.float32)
    nodes = [
        helper.make_node("AveragePool", ["image"], ["cells"], name="cell_mean",
                         kernel_shape=[cell, cell], strides=[cell, cell]),
        helper.make_node("Conv", ["cells", "W", "B"], ["logits"], name="score_colours"),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=1),
        helper.make_node("Reshape", ["probs", "scores_shape"], ["scores"], name="flatten_cells"),
        helper.make_node("Concat", ["boxes", "scores"], ["output0"], name="yolov8_layout", axis=1),
    ]
    consts = [
        numpy_helper.from_array(conv_w, "W"),
        numpy_helper.from_array(b.astype(np.float32), "B"),
        numpy_helper.from_array(np.array([1, k, n], dtype=np.int64), "scores_shape"),
        numpy_helper.from_array(boxes.reshape(1, 4, n), "boxes"),
    ]
    graph = helper.make_graph(
        nodes, "vkml_cell_colour_detector",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, height, width])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, [1, 4 + k, n])],
        initializer=consts)
    model = helper.make_model(graph, producer_name="vkml make_detector_model.py",
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--output", required=True, help="model file to write (.onnx)")
    ap.add_argument("--height", type=int, default=240)
    ap.add_argument("--width", type=int, default=320)
    ap.add_argument("--cell", type=int, default=40, help="cell size in pixels")
    ap.add_argument("--temperature", type=float, default=10.0)
    args = ap.parse_args()
    onnx.save(build_model(args.height, args.width, args.cell, args.temperature), args.output)


if __name__ == "__main__":
    main()
