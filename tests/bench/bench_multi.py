"""Several GPUs against one (docs/performance.md, "Two H200s"): exports the models with the
local PyTorch (bench.py's cache), runs tests/bench/bench_multi on each (one GPU, data
parallel, the model split over every GPU) and prints one markdown table of runs/s,
speed-ups, the split's partition and its copies. Exit status 1 when a mode's outputs
differ from one GPU's by more than 1e-4 of their scale, or bench_multi fails.

    tests/bench/bench_multi.py --build DIR [--small] [--only KEYS] [--runs N]
                               [--in-flight K] [--copy-mib M] [--gpus G] [--out FILE.md]

With one GPU (or lavapipe here), VKML_VK_LOGICAL_DEVICES=2 opens it twice: the numbers
then show the mechanism, not a speed-up.
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KEYS = ("mlp_4x4096_b256", "mlp_8x4096_b256", "resnet50_b1", "resnet50_b8")
MAX_DIFF = 1e-4


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True, help="the build folder")
    ap.add_argument("--small", action="store_true", help="small sizes (lavapipe/CPU)")
    ap.add_argument("--only", default="", help="comma-separated model keys")
    ap.add_argument("--runs", type=int, default=0, help="runs per mode (default 400, small 40)")
    ap.add_argument("--in-flight", type=int, default=4, help="runs in flight per session")
    ap.add_argument("--copy-mib", type=int, default=64, help="bench_multi's copy benchmark size")
    ap.add_argument("--gpus", type=int, default=0, help="GPUs to use (default: every one)")
    ap.add_argument("--out", default=None, help="write the table here too (markdown)")
    return ap.parse_args()


def run_one(args, model, runs):
    """bench_multi's output: modes {name: (gpus, runs/s, speed-up, diff)}, the plan's
    lines, the copy lines."""
    cmd = [os.path.join(args.build, "tests", "bench", "bench_multi"), model, "--runs",
           str(runs), "--in-flight", str(args.in_flight), "--copy-mib", str(args.copy_mib)]
    if args.gpus:
        cmd += ["--gpus", str(args.gpus)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    sys.stderr.write(p.stdout + p.stderr)
    if p.returncode != 0:
        return None
    modes, plan, copies = {}, [], []
    for line in p.stdout.splitlines():
        f = line.split()
        if f and f[0] in ("one", "data", "split") and len(f) == 5:
            diff = 0.0 if f[4] == "-" else float(f[4])
            modes[f[0]] = (int(f[1]), float(f[2]), float(f[3]), diff)
        elif re.match(r"\s+(device|copy) ", line):
            plan.append(line.strip())
        elif line.startswith("copy "):
            copies.append(line)
    return modes, plan, copies


PART = re.compile(r"^device\s+(\d+):\s+(\d+) nodes.*weights ([\d.]+) MiB.*")


def summarize_plan(plan):
    """bench_multi's plan lines as one cell: each device's nodes and weights, the copies."""
    parts = [PART.sub(r"GPU \1: \2 nodes, \3 MiB", l) for l in plan if l.startswith("device")]
    kib = sum(float(m.group(1)) for l in plan for m in [re.search(r"([\d.]+) KiB per run", l)] if m)
    how = sorted({m.group(1) for l in plan for m in [re.search(r"\((.*)\)$", l)] if m})
    copies = ", copies %.0f KiB a run (%s)" % (kib, ", ".join(how)) if how else ""
    return "; ".join(parts) + copies


def main():
    args = parse_args()
    sys.path.insert(0, HERE)
    import bench
    import bench_models
    import numpy
    import torch
    bench.torch, bench.np = torch, numpy
    cache = os.path.join(args.build, "bench-cache")
    os.makedirs(cache, exist_ok=True)
    runs = args.runs or (40 if args.small else 400)
    keys = args.only.split(",") if args.only else KEYS
    header = ["model", "one GPU runs/s", "data parallel runs/s", "speed-up", "split runs/s",
              "speed-up", "split: partition, copies", "max rel diff data / split"]
    rows, failed, copies = [], False, []
    for key in keys:
        folder, _, _ = bench.export_case(key, args.small, cache)
        label = (bench_models.SMALL_LABELS[key] if args.small else
                 (bench_models.MODELS.get(key) or bench_models.MULTI_MODELS[key])[0])
        print("bench_multi: %s" % label, file=sys.stderr)
        got = run_one(args, os.path.join(folder, "model.onnx"), runs)
        if not got or not all(m in got[0] for m in ("one", "data", "split")):
            rows.append([label, "bench_multi failed"] + ["-"] * (len(header) - 2))
            failed = True
            continue
        modes, plan, copy_lines = got
        copies = copies or copy_lines
        one, data, split = modes["one"], modes["data"], modes["split"]
        failed |= data[3] > MAX_DIFF or split[3] > MAX_DIFF
        split_cell = "%.1f" % split[1] if split[0] > 1 else "%.1f (not split)" % split[1]
        rows.append([label, "%.1f" % one[1], "%.1f" % data[1], "%.2fx" % data[2], split_cell,
                     "%.2fx" % split[2], summarize_plan(plan), "%.1g / %.1g" % (data[3], split[3])])
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    text = "\n".join(lines + [""] + ["- " + c for c in copies])
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write("# vkml on several GPUs (tests/bench/bench_multi.py)\n\n" + text + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
