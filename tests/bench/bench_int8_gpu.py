"""Integer products on a GPU (docs/performance.md, "Int8 products on one H200"): per shape
a chain of CHAIN QLinearMatMul nodes (uint8 activations of zero point 128 by constant int8
weights of zero point 0, uint8 out), alternately m x k by k x n and m x n by n x k so each
reads the one before (a chain keeps the GPU busy and its clocks up, as one small product
between host round trips would not), built here with python3-onnx and run by `vkml run
--device D --profile` after a warm-up of --warmup-ms: the chain's GPU time (timestamps,
mean over the runs) over CHAIN, as TOPS (2 m k n operations a product). --vkml-before adds
a second build's (or setting's) column. The anchor, where PyTorch with CUDA is importable:
torch._int_mm (int8 by int8 to int32 on cuBLASLt, without the requantization), a CUDA
graph of CHAIN products timed by CUDA events after the same warm-up.

--convs: chains of CHAIN QLinearConv nodes instead (c -> c channels, k x k, pads k / 2, groups,
uint8 activations of zero point 128 by int8 weights of per-channel scales, int32 bias), and
of the same Conv nodes in float16 on vkml (--precision fp16) beside them. PyTorch has no int8
convolution on CUDA, so the anchor is its float16 conv (cuDNN, channels_last,
cudnn.benchmark, a CUDA graph of CHAIN convs): what a user would run instead.

--chain: bench_int8.py's QLinearConv chain (ResNet-18's body, 15 convs, per-channel weight
scales) on the GPU, its GPU time, and its output against the CPU device's C kernels
(VKML_CPU_KERNELS=reference): the integer kernels must agree bit for bit.

usage: python3 tests/bench/bench_int8_gpu.py --vkml build/tools/vkml [--device 0]
       [--vkml-before OLD/tools/vkml] [--repeat 50] [--warmup-ms 300] [--convs | --chain]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# (m, k, n): BERT-base's products at 128 tokens (dynamic quantization runs them as
# MatMulInteger), then square ones.
SHAPES = [(128, 768, 768), (128, 768, 3072), (128, 3072, 768), (1024, 1024, 1024),
          (4096, 4096, 4096)]


# (batch, channels, height = width, kernel, group): ResNet-50's 3x3 convs at batch 1 and 8,
# a 1x1, and MobileNetV2's depthwise 3x3 convs.
CONVS = [(1, 64, 56, 3, 1), (8, 64, 56, 3, 1), (8, 128, 28, 3, 1), (8, 256, 14, 3, 1),
         (8, 512, 7, 3, 1), (8, 256, 56, 1, 1), (1, 96, 112, 3, 96), (8, 144, 56, 3, 144)]

CHAIN = 10


def build_model(path, m, k, n):
    rng = np.random.default_rng(0)
    inits, nodes = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(array, name))
        return name

    x_scale = const("x_scale", np.array(0.05, np.float32))
    x_zero = const("x_zero", np.array(128, np.uint8))
    w_zero = const("w_zero", np.array(0, np.int8))
    w_scale = const("w_scale", np.array(0.01, np.float32))
    x = "A"
    for i in range(CHAIN):
        rows, cols = (k, n) if i % 2 == 0 else (n, k)
        w = const(f"w{i}", rng.integers(-128, 128, (rows, cols)).astype(np.int8))
        y = f"y{i}"
        nodes.append(helper.make_node("QLinearMatMul",
                                      [x, x_scale, x_zero, w, w_scale, w_zero, x_scale, x_zero],
                                      [y]))
        x = y
    out_cols = n if CHAIN % 2 else k
    graph = helper.make_graph(
        nodes, "int8_chain", [helper.make_tensor_value_info("A", TensorProto.UINT8, [m, k])],
        [helper.make_tensor_value_info(x, TensorProto.UINT8, [m, out_cols])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def build_conv_model(path, batch, c, hw, k, group, quantized):
    rng = np.random.default_rng(0)
    inits, nodes = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(array, name))
        return name

    pads = [k // 2] * 4
    if quantized:
        x_scale = const("x_scale", np.array(0.05, np.float32))
        x_zero = const("x_zero", np.array(128, np.uint8))
        w_zero = const("w_zero", np.zeros(c, np.int8))
    x = "X"
    for i in range(CHAIN):
        y = f"y{i}"
        if quantized:
            w = const(f"w{i}", rng.integers(-127, 128, (c, c // group, k, k)).astype(np.int8))
            ws = const(f"ws{i}", rng.uniform(0.0005, 0.002, c).astype(np.float32))
            b = const(f"b{i}", rng.integers(-5000, 5000, c).astype(np.int32))
            nodes.append(helper.make_node("QLinearConv",
                                          [x, x_scale, x_zero, w, ws, w_zero, x_scale, x_zero, b],
                                          [y], pads=pads, group=group))
        else:
            w = const(f"w{i}", (rng.standard_normal((c, c // group, k, k)) * 0.02).astype(
                np.float32))
            b = const(f"b{i}", (rng.standard_normal(c) * 0.1).astype(np.float32))
            nodes.append(helper.make_node("Conv", [x, w, b], [y], pads=pads, group=group))
        x = y
    t = TensorProto.UINT8 if quantized else TensorProto.FLOAT
    graph = helper.make_graph(
        nodes, "conv_chain", [helper.make_tensor_value_info("X", t, [batch, c, hw, hw])],
        [helper.make_tensor_value_info(x, t, [batch, c, hw, hw])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def vkml_us(vkml, model, device, repeat, warmup_ms, extra=()):
    warm = ["--warmup-ms", str(warmup_ms)] if warmup_ms > 0 else []
    out = subprocess.run([vkml, "run", model, "--device", device, "--repeat", str(repeat),
                          "--profile"] + warm + list(extra),
                         capture_output=True, text=True, timeout=600)
    found = re.search(r"profile: ([0-9.]+) us of device time per run", out.stdout)
    if out.returncode or not found:
        sys.exit(f"bench_int8_gpu: {vkml} failed on {model}:\n{out.stdout}\n{out.stderr}")
    return float(found.group(1)) / CHAIN


def graph_us(graph, warmup_ms):
    """A CUDA graph of CHAIN operations: its median time over 20 replays, timed by CUDA events
    after replays for warmup_ms, per operation."""
    import time
    import torch
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0 = time.time()
    while (time.time() - t0) * 1e3 < warmup_ms:
        graph.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(20):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / CHAIN)
    return sorted(times)[len(times) // 2]


def torch_us(m, k, n, warmup_ms):
    try:
        import torch
        if not torch.cuda.is_available():
            return None
        a = torch.randint(-128, 128, (m, k), dtype=torch.int8, device="cuda")
        b = torch.randint(-128, 128, (n, k), dtype=torch.int8, device="cuda").t()
        torch._int_mm(a, b)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(CHAIN):
                torch._int_mm(a, b)
        return graph_us(graph, warmup_ms)
    except Exception as e:  # no CUDA build, or a shape cuBLASLt refuses
        print(f"torch._int_mm {m}x{k}x{n}: {e}", file=sys.stderr)
        return None


def torch_conv_us(batch, c, hw, k, group, warmup_ms):
    try:
        import torch
        if not torch.cuda.is_available():
            return None
        torch.backends.cudnn.benchmark = True
        convs = [torch.nn.Conv2d(c, c, k, padding=k // 2, groups=group).cuda().half().to(
            memory_format=torch.channels_last) for _ in range(CHAIN)]
        x = torch.randn(batch, c, hw, hw, device="cuda", dtype=torch.half).to(
            memory_format=torch.channels_last)

        def chain():
            y = x
            for conv in convs:
                y = conv(y)
            return y
        with torch.no_grad():
            for _ in range(3):
                chain()
            torch.cuda.synchronize()
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                chain()
        return graph_us(graph, warmup_ms)
    except Exception as e:
        print(f"torch conv {batch}x{c}x{hw}x{hw} k{k}: {e}", file=sys.stderr)
        return None


def main_convs(args):
    print("| conv (batch, c -> c, hw, k, group) | vkml int8 us | TOPS | before us | vkml fp16 us | "
          "torch fp16 us | int8 / torch fp16 |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for batch, c, hw, k, group in CONVS:
            q = os.path.join(tmp, f"qconv_{batch}_{c}_{hw}_{k}_{group}.onnx")
            f = os.path.join(tmp, f"conv_{batch}_{c}_{hw}_{k}_{group}.onnx")
            build_conv_model(q, batch, c, hw, k, group, True)
            build_conv_model(f, batch, c, hw, k, group, False)
            ops = 2.0 * batch * c * (c // group) * hw * hw * k * k
            us = vkml_us(args.vkml, q, args.device, args.repeat, args.warmup_ms)
            before = (vkml_us(args.vkml_before, q, args.device, args.repeat, args.warmup_ms)
                      if args.vkml_before else None)
            half = vkml_us(args.vkml, f, args.device, args.repeat, args.warmup_ms,
                           ["--precision", "fp16"])
            anchor = torch_conv_us(batch, c, hw, k, group, args.warmup_ms)
            cols = [f"{batch}, {c}, {hw}, {k}, {group}", f"{us:.1f}", f"{ops / us / 1e6:.1f}",
                    f"{before:.1f}" if before else "-", f"{half:.1f}",
                    f"{anchor:.1f}" if anchor else "-", f"{us / anchor:.2f}x" if anchor else "-"]
            print("| " + " | ".join(cols) + " |", flush=True)


def main_chain(args):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import bench_int8
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "chain.onnx")
        rng = np.random.default_rng(7)
        bench_int8.build_model(model, rng)
        x = rng.uniform(-2.5, 2.5, size=bench_int8.SHAPE).astype(np.float32)
        with open(os.path.join(tmp, "input.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x, "input").SerializeToString())
        outs = []
        for device, env in ((args.device, {}), ("cpu", {"VKML_CPU_KERNELS": "reference"})):
            folder = os.path.join(tmp, "out_" + device)
            os.makedirs(folder)
            out = subprocess.run([args.vkml, "run", model, "--device", device, "--input",
                                  os.path.join(tmp, "input.pb"), "--save", folder],
                                 capture_output=True, text=True, timeout=600,
                                 env=dict(os.environ, **env))
            if out.returncode:
                sys.exit(f"bench_int8_gpu: the chain failed on {device}:\n{out.stderr}")
            outs.append(np.fromfile(os.path.join(folder, "output_0.bin"), dtype=np.float32))
        us = vkml_us(args.vkml, model, args.device, args.repeat, args.warmup_ms) * CHAIN
        differ = int(np.sum(outs[0] != outs[1])) if outs[0].size == outs[1].size else -1
        print(f"QLinearConv chain (ResNet-18 body, {len(bench_int8.LAYERS)} convs) on device "
              f"{args.device}: {us:.1f} us of GPU time; {differ} of {outs[1].size} outputs "
              f"differ from the C kernels ({100.0 * np.mean(outs[1] != 0):.0f}% non-zero)")
        return 0 if differ == 0 else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vkml", required=True)
    ap.add_argument("--vkml-before")
    ap.add_argument("--device", default="0")
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--warmup-ms", type=int, default=300)
    ap.add_argument("--only", help="shapes as MxKxN, comma-separated")
    ap.add_argument("--convs", action="store_true", help="QLinearConv chains (CONVS)")
    ap.add_argument("--chain", action="store_true", help="bench_int8.py's chain, checked")
    args = ap.parse_args()
    if args.chain:
        return main_chain(args)
    if args.convs:
        return main_convs(args)
    shapes = SHAPES
    if args.only:
        shapes = [tuple(int(x) for x in s.split("x")) for s in args.only.split(",")]
    print("| m x k x n | vkml us | vkml TOPS | before us | torch._int_mm us | TOPS | vkml / torch |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for m, k, n in shapes:
            model = os.path.join(tmp, f"mmi_{m}_{k}_{n}.onnx")
            build_model(model, m, k, n)
            ops = 2.0 * m * k * n
            us = vkml_us(args.vkml, model, args.device, args.repeat, args.warmup_ms)
            before = (vkml_us(args.vkml_before, model, args.device, args.repeat, args.warmup_ms)
                      if args.vkml_before else None)
            anchor = torch_us(m, k, n, args.warmup_ms)
            cols = [f"{m} x {k} x {n}", f"{us:.1f}", f"{ops / us / 1e6:.1f}",
                    f"{before:.1f}" if before else "-", f"{anchor:.1f}" if anchor else "-",
                    f"{ops / anchor / 1e6:.1f}" if anchor else "-",
                    f"{us / anchor:.2f}x" if anchor else "-"]
            print("| " + " | ".join(cols) + " |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
