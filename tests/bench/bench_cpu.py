"""The CPU benchmark behind `tests/bench/bench.sh --cpu` (docs/performance.md, "The CPU
device"): vkml's CPU device against ONNX Runtime's CPU provider on the same exported models
(bench_models.CPU_MODELS, cached as bench.py caches them), with one thread and with every
core, in one run. Each pair alternates vkml and ONNX Runtime for --rounds rounds of
--repeat runs and reports the median of the rounds' medians, vkml's output checked against
PyTorch's, and each process's peak RSS. A row of fewer threads than cores pins both to the
same cores: the last ones, off the CPUs that take the GPUs' interrupts. Exit status 1 when
a check fails or a run errs.
"""
import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402  (export_case, run_measured, ort_command, scaled_error, irq_cpus)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vkml", required=True)
    ap.add_argument("--cache", required=True)
    ap.add_argument("--out", default=None, help="write the table here (markdown)")
    ap.add_argument("--small", action="store_true", help="small sizes")
    ap.add_argument("--only", default="", help="comma-separated model keys")
    ap.add_argument("--repeat", type=int, default=0, help="runs per round (default 20)")
    ap.add_argument("--rounds", type=int, default=2, help="alternating rounds (default 2)")
    ap.add_argument("--threads", default="", help="thread counts (default: 1 and every core)")
    ap.add_argument("--reference", action="store_true",
                    help="also time vkml's plain C kernels (VKML_CPU_KERNELS=reference)")
    return ap.parse_args()


def core_order(irq):
    """The cores this process may use, in the order rows of fewer threads take them: the
    last first, those in `irq` (CPUs taking a GPU's interrupts) at the end. Core 0 and the
    interrupt CPUs also run the kernel's housekeeping and device interrupts, which made
    single-thread ratios noisy."""
    allowed = sorted(os.sched_getaffinity(0), reverse=True)
    return [c for c in allowed if c not in irq] + [c for c in allowed if c in irq]


def pinned(cmd, threads, order):
    """cmd on the first `threads` cores of `order` (taskset), so that vkml and ONNX Runtime
    run on the same cores: a single thread neither migrates nor lands on a busier core than
    the other's."""
    if not shutil.which("taskset") or threads >= len(order):
        return cmd
    return ["taskset", "-c", ",".join(str(c) for c in sorted(order[:threads]))] + cmd


def run_vkml(args, folder, threads, repeat, order, reference=False):
    meta = json.load(open(os.path.join(folder, "case.json")))
    out_dir = tempfile.mkdtemp()
    env = dict(os.environ, VKML_CPU_THREADS=str(threads))
    if reference:
        env["VKML_CPU_KERNELS"] = "reference"
    cmd = [args.vkml, "run", meta["model"], "--input", os.path.join(folder, "input.pb"),
           "--repeat", str(repeat), "--device", "cpu", "--values", "1", "--save", out_dir]
    rc, out, err, rss = bench.run_measured(pinned(cmd, threads, order), env)
    res = {"rss": rss}
    m = re.search(r"latency: median ([0-9.]+) ms", out)
    if rc != 0 or not m:
        res["error"] = (err.strip().splitlines() or ["exit %d" % rc])[-1]
    else:
        res["median"] = float(m.group(1))
        got = bench.np.fromfile(os.path.join(out_dir, "output_0.bin"), dtype=bench.np.float32)
        ref = bench.np.fromfile(os.path.join(folder, "ref.bin"), dtype=bench.np.float32)
        rel = bench.scaled_error(got, ref) if got.size == ref.size else float("inf")
        res["check"] = "%s %.1e" % ("PASS" if rel <= bench.TOLERANCE["fp32"] else "FAIL", rel)
    shutil.rmtree(out_dir, ignore_errors=True)
    return res


def run_ort(cmd, folder, threads, repeat, order):
    meta = json.load(open(os.path.join(folder, "case.json")))
    dims = ",".join(str(d) for d in meta["input_shape"])
    rc, out, err, rss = bench.run_measured(
        pinned(cmd + [meta["model"], os.path.join(folder, "input.bin"), dims, str(repeat),
                      str(threads)], threads, order))
    if rc != 0:
        return {"error": (err.strip().splitlines() or ["exit %d" % rc])[-1], "rss": rss}
    return {"median": json.loads(out.strip().splitlines()[-1])["median_ms"], "rss": rss}


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def rounds_of(runs):
    """One result from several rounds: the median of the medians, the largest RSS, the
    first error or check."""
    bad = [r for r in runs if "error" in r]
    if bad:
        return bad[0]
    res = {"median": median([r["median"] for r in runs]), "rss": max(r["rss"] for r in runs)}
    if "check" in runs[0]:
        res["check"] = runs[0]["check"]
    return res


def main():
    args = parse_args()
    import numpy
    import torch
    bench.np, bench.torch = numpy, torch
    torch.set_num_threads(os.cpu_count() or 1)
    import bench_models
    keys = bench_models.CPU_MODELS
    if args.only:
        keys = [k for k in keys if k in args.only.split(",")]
    cores = len(os.sched_getaffinity(0))
    irq = set(bench.irq_cpus(args.vkml).values())
    order = core_order(irq)
    threads = [int(t) for t in args.threads.split(",")] if args.threads else sorted({1, cores})
    repeat = args.repeat or 20
    ort_cmd, ort_name = bench.ort_command()
    if not ort_cmd:
        print("bench_cpu: ONNX Runtime %s" % ort_name, file=sys.stderr)
        return 1
    labels = bench_models.SMALL_LABELS if args.small else {k: v[0] for k, v in
                                                           bench_models.MODELS.items()}
    header = ["model", "threads", "vkml CPU ms", "ORT CPU ms", "vkml / ORT"]
    if args.reference:
        header.append("vkml C kernels ms")
    header += ["check", "peak RSS MiB vkml / ORT"]
    rows, failed = [], False
    for key in keys:
        folder, _, _ = bench.export_case(key, args.small, args.cache)
        for t in threads:
            print("bench_cpu: %s, %d thread%s" % (labels[key], t, "" if t == 1 else "s"),
                  file=sys.stderr)
            vk, ort = [], []
            for _ in range(args.rounds):
                vk.append(run_vkml(args, folder, t, repeat, order))
                ort.append(run_ort(ort_cmd, folder, t, repeat, order))
            v, o = rounds_of(vk), rounds_of(ort)
            ok = "error" not in v and "error" not in o
            cells = [labels[key], str(t),
                     "%.2f" % v["median"] if "median" in v else "error: " + v["error"][:60],
                     "%.2f" % o["median"] if "median" in o else "error: " + o["error"][:60],
                     "%.2fx" % (v["median"] / o["median"]) if ok else "-"]
            if args.reference:
                r = run_vkml(args, folder, t, max(3, repeat // 5), order, reference=True)
                cells.append("%.2f" % r["median"] if "median" in r else "error")
            check = v.get("check", "FAIL (no output)")
            failed |= not ok or not check.startswith("PASS")
            cells += [check, "%.0f / %.0f" % (v["rss"], o["rss"])]
            rows.append(cells)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    devices = bench.subprocess.run([args.vkml, "devices"], capture_output=True, text=True).stdout
    cpu = [l.strip() for l in devices.splitlines() if l.strip().startswith(("cpu", "* cpu"))]
    notes = ["- date: %s; %d cores may run this; %s" % (time.strftime("%Y-%m-%d %H:%M"), cores,
                                                       "; ".join(cpu) or "vkml CPU device"),
             "- %d alternating rounds of %d runs (after a warm-up) per cell: the median of the "
             "rounds' medians; ONNX Runtime: %s, intra-op threads as the row says" %
             (args.rounds, repeat, ort_name)]
    pins = ["%d thread%s: core%s %s" % (t, "" if t == 1 else "s", "" if t == 1 else "s",
                                        ",".join(str(c) for c in sorted(order[:t])))
            for t in threads if t < len(order)]
    if pins and shutil.which("taskset"):
        notes.append("- rows of fewer threads than cores pin vkml and ONNX Runtime to the same "
                     "cores, the last ones%s: %s" % (
                         ", off the GPUs' interrupt CPUs (%s)" % ",".join(
                             str(c) for c in sorted(irq)) if irq else "", "; ".join(pins)))
    table = "\n".join(lines)
    print(table)
    print("\n".join(notes))
    if args.out:
        with open(args.out, "w") as f:
            f.write("# vkml CPU benchmark (tests/bench/bench.sh --cpu)\n\n" + "\n".join(notes) +
                    "\n\n" + table + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
