"""ONNX Runtime (CPU) timing for tests/bench/bench.py, in its own process so that its peak
RSS is its own: MODEL INPUT.bin DIMS REPEAT [THREADS] -> one JSON line {"median_ms", "p99_ms"}.
DIMS: comma-separated input shape; the input is float32, raw little-endian. THREADS: the
session's intra-op threads (0 or absent: ONNX Runtime's default, one per core)."""
import json
import sys
import time

import numpy as np
import onnxruntime as ort


def main():
    model, data, dims, repeat = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    x = np.fromfile(data, dtype=np.float32).reshape([int(d) for d in dims.split(",")])
    threads = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    s = ort.InferenceSession(model, sess_options=opts, providers=["CPUExecutionProvider"])
    feed = {s.get_inputs()[0].name: x}
    s.run(None, feed)  # warm-up
    ms = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        s.run(None, feed)
        ms.append((time.perf_counter() - t0) * 1e3)
    ms.sort()
    print(json.dumps({"median_ms": ms[len(ms) // 2],
                      "p99_ms": ms[min(len(ms) - 1, int(0.99 * len(ms)))]}))


if __name__ == "__main__":
    main()
