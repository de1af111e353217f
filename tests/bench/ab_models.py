"""vkml against itself: the same models under several builds or environments, the variants
taking turns in one process, so that a change is measured beside what it changes on the
same machine at the same clocks (not a test; docs/performance.md, "A against B").

Per model (bench_models.py's keys, exported once by bench.py's export_case into --cache)
and round, each variant in turn runs `vkml run --profile` (GPU time per run, from the
device's timestamps, where it has them) and `vkml run --save` (the median host to host,
and the output's error at the scale of PyTorch's float32 output). Each variant keeps its
own VKML_CACHE_DIR under --cache (the choice by measurement's file), so that one variant's
choices are not read by another.

    ab_models.py --cache DIR [--precision fp16] [--device 0] [--rounds 2] [--repeat 50]
                 [--small] MODEL... -- NAME=VKML[,VAR=VALUE...] ...

VKML is a vkml tool (a build's tools/vkml); VAR=VALUE pairs are set for that variant only,
e.g. `new=build/tools/vkml old=../main-build/tools/vkml tuned=build/tools/vkml,VKML_GEMM_TUNE=0`.
Prints a line per model, variant and round; exit 1 when an output is past the precision's
bound as bench.py sets it (fp16 and fp32-fast: its fixed bound or 1.5x PyTorch's own error
at that precision on the same network, whichever is larger), or a run fails."""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402 (its exports, its vkml runs and their checks)


def parse_args(argv):
    if "--" not in argv:
        sys.exit("ab_models: MODEL... -- NAME=VKML[,VAR=VALUE...] ..., please")
    cut = argv.index("--")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", required=True, help="folder for the exports and tuner caches")
    ap.add_argument("--precision", default="fp16", choices=sorted(bench.TOLERANCE))
    ap.add_argument("--device", default="0", help="vkml's --device")
    ap.add_argument("--rounds", type=int, default=2, help="turns of every variant")
    ap.add_argument("--repeat", type=int, default=50, help="timed runs a measurement")
    ap.add_argument("--small", action="store_true", help="bench_models.py's small sizes")
    ap.add_argument("models", nargs="+", help="bench_models.py keys")
    args = ap.parse_args(argv[:cut])
    args.variants = []
    for spec in argv[cut + 1:]:
        name, _, rest = spec.partition("=")
        parts = rest.split(",")
        if not name or not parts[0] or any("=" not in p for p in parts[1:]):
            sys.exit("ab_models: variant '%s': NAME=VKML[,VAR=VALUE...]" % spec)
        env = dict(p.split("=", 1) for p in parts[1:])
        args.variants.append((name, os.path.abspath(parts[0]), env))
    if not args.variants:
        sys.exit("ab_models: no variant after --")
    return args


def main():
    args = parse_args(sys.argv[1:])
    import numpy
    import torch
    bench.np, bench.torch = numpy, torch
    os.makedirs(args.cache, exist_ok=True)
    cases = {m: bench.export_case(m, args.small, args.cache) for m in args.models}
    folders = {m: c[0] for m, c in cases.items()}
    # fp16 and fp32-fast judged as bench.py judges them: within the fixed bound or 1.5x
    # PyTorch's own error at that precision on the same network
    bounds = {m: bench.reduced_bound(args.precision, bench.own_error(args.precision, c[1], c[2]))
              for m, c in cases.items()}
    failed = False
    print("%-5s %-28s %-12s %12s %12s %10s" % ("round", "model", "variant", "GPU us",
                                              "median ms", "error"))
    for r in range(args.rounds):
        for model in args.models:
            for name, vkml, extra in args.variants:
                env = dict(os.environ, VKML_CACHE_DIR=os.path.join(args.cache, "vkml-" + name))
                env.update(extra)
                tool = argparse.Namespace(vkml=vkml, device=args.device, small=args.small)
                gpu = bench.vkml_gpu_us(tool, folders[model], args.precision, args.repeat, env)
                res = bench.run_vkml(tool, folders[model], args.precision, args.repeat, env,
                                     bounds[model])
                why = res.get("error") or (None if res["check"].startswith("PASS")
                                           else "%s (bound %.1e)" % (res["check"], bounds[model]))
                failed = failed or why is not None
                print("%-5d %-28s %-12s %12s %12s %10s%s" % (
                    r, model, name, "-" if gpu is None else "%.1f" % gpu,
                    "%.3f" % res["median"] if "median" in res else "-",
                    "%.1e" % res["rel"] if "rel" in res else "-",
                    "  FAIL " + why if why else ""), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
