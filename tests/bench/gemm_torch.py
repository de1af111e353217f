#!/usr/bin/env python3
"""The anchor for bench_gemm's products (not a test): PyTorch's torch.matmul (cuBLAS) on
the same shapes (torch.nn.functional.linear for the B^T ones), TFLOP/s from CUDA events
around a CUDA graph of CHAIN dependent products (as bench_gemm chains them: X [m, k] x
W [k, k], each output the next input), float16 and
float32 (TF32 off: IEEE float32, as vkml's fp32). Prints one line per shape and dtype.
    python3 gemm_torch.py [--chain 10] [--runs 20]"""
import argparse

import torch

# (name, batch, m, k, B^T: W [n, k] read along K, as torch.nn.functional.linear takes it)
SHAPES = [("matmul 4096x4096x4096", 1, 4096, 4096, False),
          ("matmul 1024x1024x1024", 1, 1024, 1024, False),
          ("linear 256x4096x4096", 1, 256, 4096, False),
          ("linear 256x4096x4096 B^T", 1, 256, 4096, True),
          ("matmul 4096x4096x4096 B^T", 1, 4096, 4096, True),
          ("matmul batch 8 x 512x512x512", 8, 512, 512, False),
          ("matmul 64x768x768 (BERT-ish)", 1, 64, 768, False)]


def tflops(batch, m, k, bt, dtype, chain, runs):
    torch.backends.cuda.matmul.allow_tf32 = False
    x = torch.randn(batch, m, k, device="cuda", dtype=dtype) * 0.1
    w = torch.randn(k, k, device="cuda", dtype=dtype) * (1.0 / k) ** 0.5
    def body():
        y = x
        for _ in range(chain):
            y = torch.nn.functional.linear(y, w) if bt else torch.matmul(y, w)
        return y
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            body()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        body()
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3 / chain)
    times.sort()
    return 2.0 * batch * m * k * k / times[len(times) // 2] / 1e12


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chain", type=int, default=10)
    ap.add_argument("--runs", type=int, default=20)
    a = ap.parse_args()
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}: torch.matmul in a CUDA graph")
    for name, batch, m, k, bt in SHAPES:
        for dtype, label in ((torch.float16, "fp16"), (torch.float32, "fp32")):
            rate = tflops(batch, m, k, bt, dtype, a.chain, a.runs)
            print(f"{name:30s} torch {label:5s} {rate:8.1f} TFLOP/s")


if __name__ == "__main__":
    main()
