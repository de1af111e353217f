#!/usr/bin/python3
"""torchvision's detectors on vkml beside PyTorch eager on the same GPU, one run.

Usage: bench_detectors.py ZOO VKML [--device D] [--repeat N] [--only SUBSTR]...

ZOO holds the detector cases tests/models/zoo/make_zoo.py writes (model.onnx and
test_data_set_0/input_0.pb each). For each: `VKML run --repeat N` on the case's image
(median latency, host to host: the image in, boxes, labels and scores out), and the same
PyTorch module (rebuilt by make_zoo.py: same seed, BatchNorm statistics and heads) run
eagerly on CUDA under torch.no_grad: the image copied in from pinned host memory, the
outputs copied back, median of N after 3 warm-up runs. PyTorch eager is the anchor a
detector user deploys: torchvision's detectors neither capture in a CUDA graph nor
compile (their data-dependent shapes). Prints one table; a case vkml refuses shows its
reason.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "models", "zoo"))
import make_zoo  # noqa: E402

DETECTORS = [
    "ssdlite320_mobilenet_v3_large",
    "ssd300_vgg16",
    "retinanet_resnet50_fpn",
    "fcos_resnet50_fpn",
    "fasterrcnn_mobilenet_v3_large_320_fpn",
    "fasterrcnn_resnet50_fpn",
    "maskrcnn_resnet50_fpn",
    "keypointrcnn_resnet50_fpn",
]


def vkml_latency(vkml, folder, device, repeat):
    """Median ms of `vkml run`, or the reason it gave none."""
    cmd = [vkml, "run", os.path.join(folder, "model.onnx"), "--device", device,
           "--repeat", str(repeat), "--values", "1",
           "--input", os.path.join(folder, "test_data_set_0", "input_0.pb")]
    r = subprocess.run(cmd, capture_output=True, text=True)
    m = re.search(r"latency: median ([0-9.]+) ms", r.stdout)
    if r.returncode == 0 and m:
        return float(m.group(1)), ""
    lines = (r.stderr or r.stdout).strip().splitlines()
    return None, lines[-1] if lines else "exit %d" % r.returncode


def torch_latency(name, repeat):
    torch = make_zoo.torch
    model, inputs, _, _ = make_zoo.MODELS[name][0](1)
    torch.set_num_threads(os.cpu_count() or 1)
    model = model.cuda().eval()
    host = inputs[0].pin_memory()
    times = []
    with torch.no_grad():
        for k in range(repeat + 3):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            out = model(host.cuda(non_blocking=True))
            back = [o.to("cpu") for o in out]
            torch.cuda.synchronize()
            if k >= 3:
                times.append((time.perf_counter() - t0) * 1e3)
    del back
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("zoo")
    ap.add_argument("vkml")
    ap.add_argument("--device", default="0")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--only", action="append", default=[])
    args = ap.parse_args()
    make_zoo.import_torch()
    rows = []
    for name in DETECTORS:
        if args.only and not any(s in name for s in args.only):
            continue
        folder = os.path.join(args.zoo, make_zoo.case_name(name, 1, 13, False))
        if not os.path.exists(os.path.join(folder, "model.onnx")):
            rows.append((name, None, None, "not exported"))
            continue
        ms, why = vkml_latency(args.vkml, folder, args.device, args.repeat)
        ref = torch_latency(name, args.repeat)
        rows.append((name, ms, ref, why))
        print("bench_detectors: %s vkml %s ms, torch %.3f ms %s" %
              (name, "%.3f" % ms if ms else "-", ref, why), flush=True)
    print("| detector | vkml device %s, ms | PyTorch eager CUDA, ms | vkml / PyTorch |" %
          args.device)
    print("|---|---|---|---|")
    for name, ms, ref, why in rows:
        if ms is None:
            print("| %s | %s | %s | |" % (name, why, "%.2f" % ref if ref else "-"))
        else:
            print("| %s | %.2f | %.2f | %.2fx |" % (name, ms, ref, ms / ref))
    return 0


if __name__ == "__main__":
    sys.exit(main())
