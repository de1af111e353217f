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

usage: python3 tests/bench/bench_int8_gpu.py --vkml build/tools/vkml [--device 0]
       [--vkml-before OLD/tools/vkml] [--repeat 50] [--warmup-ms 300]
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


def vkml_us(vkml, model, device, repeat, warmup_ms):
    warm = ["--warmup-ms", str(warmup_ms)] if warmup_ms > 0 else []
    out = subprocess.run([vkml, "run", model, "--device", device, "--repeat", str(repeat),
                          "--profile"] + warm,
                         capture_output=True, text=True, timeout=600)
    found = re.search(r"profile: ([0-9.]+) us of device time per run", out.stdout)
    if out.returncode or not found:
        sys.exit(f"bench_int8_gpu: {vkml} failed on {model}:\n{out.stdout}\n{out.stderr}")
    return float(found.group(1)) / CHAIN


def torch_us(m, k, n, warmup_ms):
    try:
        import torch
        if not torch.cuda.is_available():
            return None
        a = torch.randint(-128, 128, (m, k), dtype=torch.int8, device="cuda")
        b = torch.randint(-128, 128, (n, k), dtype=torch.int8, device="cuda").t()
        torch._int_mm(a, b)
        chain = CHAIN
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(chain):
                torch._int_mm(a, b)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        import time
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
            times.append(start.elapsed_time(end) * 1e3 / chain)
        return sorted(times)[len(times) // 2]
    except Exception as e:  # no CUDA build, or a shape cuBLASLt refuses
        print(f"torch._int_mm {m}x{k}x{n}: {e}", file=sys.stderr)
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vkml", required=True)
    ap.add_argument("--vkml-before")
    ap.add_argument("--device", default="0")
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--warmup-ms", type=int, default=300)
    ap.add_argument("--only", help="shapes as MxKxN, comma-separated")
    args = ap.parse_args()
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
    main()
