"""The int8 CPU benchmark (docs/performance.md, "Int8"): one QLinearConv chain of ResNet-18's
body shapes (four 3x3 convolutions at 64 channels 56x56, then three stages each opened by a
stride-2 3x3 convolution: 128 at 28x28, 256 at 14x14, 512 at 7x7; uint8 activations of zero
point 128 in, ReLU-like uint8 of zero point 0 out, int8 weights of per-channel scales, int32
biases), between a QuantizeLinear and a DequantizeLinear so that it takes and gives float32.
Built here with Debian's python3-onnx; run on vkml's CPU device (oneDNN, and its plain C
kernels with --reference: what the chain ran on before oneDNN took the integer convolutions)
and on ONNX Runtime's CPU provider (Python onnxruntime, else onnxruntime-node on NODE_PATH),
pinned to the same cores (bench_cpu.core_order: the last ones, off the GPUs' interrupt
CPUs), alternating for --rounds rounds of --repeat runs; prints the
median of the rounds' medians. vkml's oneDNN output is checked against its C kernels (at
most one quantization step apart).

usage: /usr/bin/python3 tests/bench/bench_int8.py --vkml build/tools/vkml [--threads 1,2]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench import irq_cpus, ort_command, run_measured  # noqa: E402
from bench_cpu import core_order, median, pinned  # noqa: E402

# (out channels, stride) of each convolution, 3x3 pad 1; the input is [1, 64, 56, 56].
LAYERS = [(64, 1)] * 4 + [(128, 2)] + [(128, 1)] * 3 + [(256, 2)] + [(256, 1)] * 3 + \
    [(512, 2)] + [(512, 1)] * 3
SHAPE = [1, 64, 56, 56]


def build_model(path, rng):
    inits, nodes = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(array, name))
        return name

    x_scale, x_zero = const("x_scale", np.float32(0.02)), const("x_zero", np.uint8(128))
    nodes.append(helper.make_node("QuantizeLinear", ["input", x_scale, x_zero], ["q0"]))
    prev, c, scale, zero = "q0", SHAPE[1], x_scale, x_zero
    for i, (m, stride) in enumerate(LAYERS):
        w = rng.integers(-127, 128, size=(m, c, 3, 3), dtype=np.int8)
        w_scale = rng.uniform(0.002, 0.01, size=m).astype(np.float32)
        bias = rng.integers(-2000, 2000, size=m, dtype=np.int32)
        # y's scale: the products' spread (the input's, in steps: 72 for the first layer's
        # uniform input, about 30 after, times the weights' 74 and sqrt(9c)) onto about 30
        # steps, so that a step's change of one input moves an output by less than a step
        # (a chain whose gain is above 1 would amplify the 1-step rounding differences that
        # oneDNN's float32 requantization may leave, onednn_quant.c)
        spread = 72.0 if i == 0 else 30.0
        y_scale = np.float32(float(scale_value(inits, scale)) * 0.006 * 74 * spread *
                             np.sqrt(9 * c) / 30)
        names = [const("w%d" % i, w), const("ws%d" % i, w_scale), const("wz%d" % i,
                 np.zeros(m, dtype=np.int8)), const("ys%d" % i, y_scale),
                 const("yz%d" % i, np.uint8(0)), const("b%d" % i, bias)]
        out = "q%d" % (i + 1)
        nodes.append(helper.make_node(
            "QLinearConv", [prev, scale, zero, names[0], names[1], names[2], names[3], names[4],
                            names[5]], [out], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
            strides=[stride, stride]))
        prev, c, scale, zero = out, m, names[3], names[4]
    nodes.append(helper.make_node("DequantizeLinear", [prev, scale, zero], ["output"]))
    side = SHAPE[2] // 8
    graph = helper.make_graph(
        nodes, "qlinearconv_resnet18_body",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, SHAPE)],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, c, side, side])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return float(scale_value(inits, scale))


def scale_value(inits, name):
    return next(numpy_helper.to_array(t) for t in inits if t.name == name)


def run_vkml(vkml, model, folder, threads, repeat, reference, order):
    out_dir = tempfile.mkdtemp()
    env = dict(os.environ, VKML_CPU_THREADS=str(threads))
    if reference:
        env["VKML_CPU_KERNELS"] = "reference"
    cmd = [vkml, "run", model, "--input", os.path.join(folder, "input.pb"), "--repeat",
           str(repeat), "--device", "cpu", "--values", "1", "--save", out_dir]
    rc, out, err, _ = run_measured(pinned(cmd, threads, order), env)
    m = re.search(r"latency: median ([0-9.]+) ms", out)
    if rc != 0 or not m:
        sys.exit("vkml failed: %s" % (err.strip().splitlines() or ["exit %d" % rc])[-1])
    y = np.fromfile(os.path.join(out_dir, "output_0.bin"), dtype=np.float32)
    shutil.rmtree(out_dir, ignore_errors=True)
    return float(m.group(1)), y


def run_ort(cmd, model, folder, threads, repeat, order):
    dims = ",".join(str(d) for d in SHAPE)
    rc, out, err, _ = run_measured(pinned(cmd + [model, os.path.join(folder, "input.bin"), dims,
                                                 str(repeat), str(threads)], threads, order))
    if rc != 0:
        sys.exit("ONNX Runtime failed: %s" % (err.strip().splitlines() or ["exit %d" % rc])[-1])
    import json
    return json.loads(out.strip().splitlines()[-1])["median_ms"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vkml", required=True)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reference-repeat", type=int, default=3,
                    help="runs per round of the C kernels (slow)")
    args = ap.parse_args()
    folder = tempfile.mkdtemp(prefix="vkml-int8-")
    model = os.path.join(folder, "qlinearconv_chain.onnx")
    rng = np.random.default_rng(7)
    out_scale = build_model(model, rng)
    x = rng.uniform(-2.5, 2.5, size=SHAPE).astype(np.float32)
    with open(os.path.join(folder, "input.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "input").SerializeToString())
    x.tofile(os.path.join(folder, "input.bin"))
    ort, ort_name = ort_command()
    order = core_order(set(irq_cpus(args.vkml).values()))
    print("QLinearConv chain (ResNet-18 body, %d convs), vkml CPU vs %s, ms (median of %d "
          "rounds)" % (len(LAYERS), ort_name, args.rounds))
    print("| threads | vkml oneDNN | vkml C kernels | ONNX Runtime | oneDNN / ORT | C / ORT |")
    print("|---|---|---|---|---|---|")
    for threads in [int(t) for t in args.threads.split(",")]:
        lib, ref, rt, check = [], [], [], ""
        for _ in range(args.rounds):
            ms, y = run_vkml(args.vkml, model, folder, threads, args.repeat, False, order)
            lib.append(ms)
            ms, y_ref = run_vkml(args.vkml, model, folder, threads, args.reference_repeat, True,
                                 order)
            ref.append(ms)
            steps = np.abs(y - y_ref).max() / out_scale if y.size == y_ref.size else np.inf
            check = "max %.0f step%s from the C kernels, %.2f%% of outputs differ, %.0f%% " \
                "non-zero" % (steps, "" if steps == 1 else "s", 100.0 * np.mean(y != y_ref),
                              100.0 * np.mean(y_ref != 0))
            if ort:
                rt.append(run_ort(ort, model, folder, threads, args.repeat, order))
        lib_ms, ref_ms = median(lib), median(ref)
        ort_ms = median(rt) if rt else float("nan")
        print("| %d | %.2f | %.1f | %.2f | %.2f | %.1f |" % (
            threads, lib_ms, ref_ms, ort_ms, lib_ms / ort_ms, ref_ms / ort_ms))
        print("  (%d threads: %s)" % (threads, check), file=sys.stderr)
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
