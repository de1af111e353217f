"""The benchmark harness behind tests/bench/bench.sh (docs/performance.md says how to run
it and what each column means).

Per model: exports it with the local PyTorch (random weights; cached in --cache), runs
`vkml run --repeat` at fp32, fp16 and fp32-fast, PyTorch (when CUDA is there: eager, CUDA
graphs and torch.compile at fp32, tf32 and fp16, host to host through pinned buffers, and
the GPU time of the fastest of them per precision beside vkml's; else CPU eager fp32) and
ONNX Runtime CPU (Python onnxruntime, else onnxruntime-node through NODE_PATH), checks
vkml's outputs against PyTorch's float32 output, and prints one markdown table (also
written to --out).
Exit status 1 when a check fails.
"""
import argparse
import copy
import hashlib
import inspect
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOLERANCE = {"fp32": 1e-3, "fp32-fast": 1e-2, "fp16": 1e-2}  # max |vkml-ref| <= this x max |ref|
# fp16 and fp32-fast also pass within this many times PyTorch's own error at float16 / TF32
OWN_ERROR_FACTOR = 1.5
PRECISIONS = ("fp32", "fp16", "fp32-fast")  # vkml run --precision, in the table's order
TORCH_PRECISIONS = ("fp32", "tf32", "fp16")
VKML_PRECISION = {"fp32": "fp32", "tf32": "fp32-fast", "fp16": "fp16"}  # matching torch's
CUDA_MODES = ("eager", "graph", "compile")
# Runs `vkml run --profile` averages its GPU time over (the tool's own cap).
PROFILE_RUNS = 100
# Warm-up before every timed set, vkml's and PyTorch's alike (full sizes): an idle H200 sits
# at 345 MHz and takes a few runs to reach 1,980; with one warm-up run the first timed runs
# took up to 4x as long (docs/performance.md, "Kernels against the device's ceilings").
WARMUP_MS = 300
torch = np = None


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vkml", required=True, help="the vkml tool")
    ap.add_argument("--cache", required=True, help="folder for the exported models")
    ap.add_argument("--corpus", default=None, help="the corpus (for mnist-8)")
    ap.add_argument("--out", default=None, help="write the results here (markdown)")
    ap.add_argument("--device", default="default", help="vkml's --device")
    ap.add_argument("--small", action="store_true", help="small sizes (lavapipe/CPU)")
    ap.add_argument("--only", default="", help="comma-separated model keys")
    ap.add_argument("--repeat", type=int, default=0, help="timed runs (default 200, small 20)")
    ap.add_argument("--floor", default=None, help="bench_floor, when built")
    ap.add_argument("--anchors", default=",".join(CUDA_MODES),
                    help="PyTorch CUDA modes, comma-separated (default: %(default)s)")
    ap.add_argument("--no-compile", action="store_true",
                    help="leave out the torch.compile mode (its first calls take minutes)")
    ap.add_argument("--torch-precisions", default=",".join(TORCH_PRECISIONS),
                    help="PyTorch precisions, comma-separated (default: %(default)s)")
    return ap.parse_args()


def quantiles(ms):
    s = sorted(ms)
    return s[len(s) // 2], s[min(len(s) - 1, int(0.99 * len(s)))]


def run_measured(cmd, env=None):
    """Runs cmd (in env, when given); returns (exit status, stdout, stderr, peak RSS in MiB), the RSS measured
    by bench_rss.py (see there why not here)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile(mode="r") as rss:
        rc = subprocess.call([sys.executable, "-I", "-S", os.path.join(HERE, "bench_rss.py"),
                              rss.name] + cmd, stdout=out, stderr=err, env=env)
        out.seek(0)
        err.seek(0)
        kib = rss.read().strip()
        return (rc, out.read().decode(errors="replace"), err.read().decode(errors="replace"),
                int(kib) / 1024.0 if kib else float("nan"))


# --- export ---------------------------------------------------------------------------

# ONNX opset of the exports: 17, as the anchors were measured (14 is the least that
# PyTorch 2.11's TorchScript exporter can write scaled_dot_product_attention at).
OPSET = 17

def cache_key(key, small):
    src = b"".join(open(os.path.join(HERE, f), "rb").read() for f in ("bench.py", "bench_models.py"))
    return hashlib.sha256(src + f"{key} {small} {torch.__version__}".encode()).hexdigest()[:16]


def save_case(folder, onnx_path, x, ref):
    from onnx import numpy_helper
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "input.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "input").SerializeToString())
    x.astype(np.float32).tofile(os.path.join(folder, "input.bin"))
    ref.astype(np.float32).tofile(os.path.join(folder, "ref.bin"))
    # absolute: the cache is read later from other working directories (meson's tests)
    meta = {"model": os.path.abspath(onnx_path), "input_shape": list(x.shape),
            "ref_shape": list(ref.shape)}
    with open(os.path.join(folder, "case.json"), "w") as f:
        json.dump(meta, f)


def calibrate_batchnorm(module, shape):
    """Sets each BatchNorm's running statistics to those of random inputs (train-mode
    passes, cumulative average), as training would: with the initial ones (mean 0, var 1)
    activations of a random network shrink layer after layer (MobileNetV2's logits end
    near 1e-10, below float16's range), which no trained model does."""
    bns = [m for m in module.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    for m in bns:
        m.reset_running_stats()
        m.momentum = None
    module.train()
    with torch.no_grad():
        for _ in range(2):
            module(torch.randn(max(4, shape[0]), *shape[1:]))
    module.eval()


def export_case(key, small, cache):
    """The case folder of a model (exported once per key): model.onnx, input.pb/.bin,
    ref.bin (PyTorch float32 on the CPU), case.json; and the module and input."""
    import bench_models
    folder = os.path.join(cache, ("small-" if small else "") + key)
    stamp = os.path.join(folder, "stamp")
    torch.manual_seed(0)
    entry = bench_models.MODELS.get(key) or bench_models.MULTI_MODELS[key]
    module, shape = entry[1](small)
    calibrate_batchnorm(module, shape)
    module.eval()
    x = torch.randn(*shape)
    if os.path.exists(stamp) and open(stamp).read() == cache_key(key, small):
        return folder, module, x
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    path = os.path.join(folder, "model.onnx")
    with torch.no_grad():
        ref = module(x)
    # The TorchScript exporter: newer PyTorch defaults to the dynamo one (onnxscript).
    legacy = ({"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters
              else {})
    torch.onnx.export(module, x, path, opset_version=OPSET, input_names=["input"],
                      output_names=["output"], do_constant_folding=True, **legacy)
    save_case(folder, path, x.numpy(), ref.numpy())
    with open(stamp, "w") as f:
        f.write(cache_key(key, small))
    return folder, module, x


def mnist_case(corpus, cache):
    from onnx import numpy_helper, TensorProto
    src = os.path.join(corpus, "models", "mnist-8")
    folder = os.path.join(cache, "mnist-8")
    def load(p):
        t = TensorProto()
        t.ParseFromString(open(p, "rb").read())
        return numpy_helper.to_array(t)
    x = load(os.path.join(src, "test_data_set_0", "input_0.pb"))
    ref = load(os.path.join(src, "test_data_set_0", "output_0.pb"))
    save_case(folder, os.path.join(src, "model.onnx"), x, ref)
    return folder


# --- runners --------------------------------------------------------------------------

def warmup_args(args):
    """`vkml run`'s warm-up: WARMUP_MS at full sizes, one run with --small."""
    return [] if args.small else ["--warmup-ms", str(WARMUP_MS)]


def run_vkml(args, folder, precision, repeat, env=None, bound=None):
    """`vkml run --save` of a case: median and p99 host to host, the output's error at
    scale and its check against `bound` (default: the precision's fixed TOLERANCE)."""
    meta = json.load(open(os.path.join(folder, "case.json")))
    out_dir = tempfile.mkdtemp()
    cmd = [args.vkml, "run", meta["model"], "--input", os.path.join(folder, "input.pb"),
           "--repeat", str(repeat), "--precision", precision, "--device", args.device,
           "--values", "1", "--save", out_dir] + warmup_args(args)
    rc, out, err, rss = run_measured(cmd, env)
    res = {"rss": rss}
    m = re.search(r"latency: median ([0-9.]+) ms, p99 ([0-9.]+) ms", out)
    if rc != 0 or not m:
        res["error"] = (err.strip().splitlines() or ["exit %d" % rc])[-1]
    else:
        res["median"], res["p99"] = float(m.group(1)), float(m.group(2))
        ran = re.search(r"^precision: (\S+)", out, re.M)  # fp16 runs at float32 where faster
        if ran and ran.group(1) != precision:
            res["ran"] = ran.group(1)
        got = np.fromfile(os.path.join(out_dir, "output_0.bin"), dtype=np.float32)
        ref = np.fromfile(os.path.join(folder, "ref.bin"), dtype=np.float32)
        if got.size != ref.size:
            res["check"] = "FAIL (%d values, want %d)" % (got.size, ref.size)
        else:
            rel = scaled_error(got, ref)
            res["rel"] = rel
            ok = np.isfinite(rel) and rel <= (TOLERANCE[precision] if bound is None else bound)
            res["check"] = "%s %.1e" % ("PASS" if ok else "FAIL", rel)
    shutil.rmtree(out_dir, ignore_errors=True)
    return res


def vkml_gpu_us(args, folder, precision, repeat, env=None):
    """vkml's device time per run in us (`vkml run --profile`: the sum of the nodes' GPU
    timestamps, mean over at most PROFILE_RUNS runs), or None. A run of its own: the
    timestamps would add to the latencies of the timed one."""
    meta = json.load(open(os.path.join(folder, "case.json")))
    cmd = [args.vkml, "run", meta["model"], "--input", os.path.join(folder, "input.pb"),
           "--repeat", str(min(repeat, PROFILE_RUNS)), "--precision", precision,
           "--device", args.device, "--values", "1", "--profile", "--profile-nodes", "1"
           ] + warmup_args(args)
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    m = re.search(r"^profile: ([0-9.]+) us of device time per run", r.stdout, re.M)
    return float(m.group(1)) if r.returncode == 0 and m else None


def scaled_error(got, ref):
    """max |got - ref| / max |ref| (arrays of one size): an error at the output's scale, so
    that a near-zero logit is not a failure."""
    scale = float(np.max(np.abs(ref))) or 1.0
    return float(np.max(np.abs(got.astype(np.float64) - ref))) / scale


def torch_modes(args):
    """The PyTorch modes to time: --anchors less compile with --no-compile when CUDA is
    there, else CPU eager."""
    if torch is None:
        return []
    if not torch.cuda.is_available():
        return ["cpu"]
    modes = [m for m in args.anchors.split(",") if m]
    bad = [m for m in modes if m not in CUDA_MODES]
    if bad:
        sys.exit("bench: --anchors: unknown mode %s (known: %s)" % (",".join(bad),
                                                                   ",".join(CUDA_MODES)))
    return [m for m in modes if not (args.no_compile and m == "compile")]


def torch_columns(modes):
    if modes == ["cpu"]:
        return [("cpu", "fp32")]
    return [(mode, prec) for prec in TORCH_PRECISIONS for mode in modes]


def set_precision(prec):
    """TF32 for matmuls and convolutions only in the tf32 columns; cuDNN's autotuner on in
    every CUDA mode, as a deployment would have it."""
    torch.backends.cuda.matmul.allow_tf32 = prec == "tf32"
    torch.backends.cudnn.allow_tf32 = prec == "tf32"
    torch.backends.cudnn.benchmark = True


def compiled(m):
    """torch.compile at max-autotune (Triton kernels tuned per shape, CUDA graphs), its
    compile caches dropped first: each model and precision compiles afresh instead of
    meeting the recompile limit of the modules of the same class compiled before."""
    if hasattr(torch, "_dynamo"):
        torch._dynamo.reset()
    return torch.compile(m, mode="max-autotune")


def time_torch(module, x, mode, prec, repeat):
    """One PyTorch cell, host to host as `vkml run` is: a pinned host input copied to the
    device, the forward pass, the output copied into a pinned host buffer, then a
    synchronize. 4-D inputs run channels_last on CUDA. Returns {"median", "p99"} in ms
    and, on CUDA, "gpu_us" (CUDA events around the forward pass or graph replay only,
    median) and, for compile, "compile_s" (the first call)."""
    if mode == "cpu":
        m = copy.deepcopy(module).eval()
        with torch.inference_mode():
            return timed(lambda: m(x), repeat)
    set_precision(prec)
    m = copy.deepcopy(module).cuda().eval()
    x_host = x.clone()
    if prec == "fp16":
        m, x_host = m.half(), x_host.half()
    if x.dim() == 4:
        m = m.to(memory_format=torch.channels_last)
        x_host = x_host.contiguous(memory_format=torch.channels_last)
    x_host = x_host.pin_memory()  # keeps the strides: the copy is one memcpy
    res = {}
    with torch.inference_mode():
        fwd = (lambda xd: m(xd).float())
        if mode == "compile":
            cm = compiled(m)
            fwd = (lambda xd: cm(xd).float())
            t0 = time.perf_counter()
            fwd(x_host.to("cuda", non_blocking=True))
            torch.cuda.synchronize()
            res["compile_s"] = time.perf_counter() - t0
        x_dev = x_host.to("cuda")
        out_host = torch.empty_like(fwd(x_dev), device="cpu", pin_memory=True)
        if mode == "graph":
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                for _ in range(3):
                    fwd(x_dev)
            torch.cuda.current_stream().wait_stream(s)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                y_dev = fwd(x_dev)

            def forward():
                g.replay()
                return y_dev

            def step():
                x_dev.copy_(x_host, non_blocking=True)
                out_host.copy_(forward(), non_blocking=True)
                torch.cuda.current_stream().synchronize()
        else:
            def forward():
                return fwd(x_dev)

            def step():
                out_host.copy_(fwd(x_host.to("cuda", non_blocking=True)), non_blocking=True)
                torch.cuda.current_stream().synchronize()
        res.update(timed(step, repeat))
        res["gpu_us"] = gpu_us(forward, repeat)
    return res


def timed(step, repeat):
    """Median and p99 in ms of `repeat` calls of step after WARMUP_MS of warm-up calls (at
    least three)."""
    t0 = time.perf_counter()
    for i in range(1000000):
        if i >= 3 and time.perf_counter() - t0 >= WARMUP_MS / 1e3:
            break
        step()
    ms = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        step()
        ms.append((time.perf_counter() - t0) * 1e3)
    median, p99 = quantiles(ms)
    return {"median": median, "p99": p99}


def gpu_us(forward, repeat):
    """Median GPU time in us of forward() (inputs already on the device; no copies), by
    CUDA events on the current stream."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    us = []
    for _ in range(repeat):
        start.record()
        forward()
        end.record()
        end.synchronize()
        us.append(start.elapsed_time(end) * 1e3)
    return quantiles(us)[0]


def own_error(precision, module, x):
    """PyTorch's own error on the model at the reduced precision matching vkml's
    `precision`, as (label, error): fp16 -> float16, fp32-fast -> TF32; None at fp32 or
    where it cannot be measured."""
    if precision == "fp16":
        return ("fp16", torch_fp16_error(module, x))
    if precision == "fp32-fast":
        tf32 = torch_tf32_error(module, x)
        return ("tf32", tf32) if tf32 is not None else None
    return None


def reduced_bound(precision, own):
    """The error bound of a reduced precision: against what it costs PyTorch on the same
    network (own: own_error's), as random weights amplify float16's rounding past the
    fixed bound."""
    return max(TOLERANCE[precision], OWN_ERROR_FACTOR * own[1]) if own else TOLERANCE[precision]


def torch_fp16_error(module, x):
    """PyTorch's own float16 error on the model, as max |fp16 - fp32| / max |fp32|: the
    scale of error float16 storage brings to this network (random weights amplify it), to
    read vkml's fp16 check against. CUDA: model.half() on the GPU. CPU: weights, input and
    every leaf module's output rounded to float16, computed in float32."""
    m = copy.deepcopy(module).eval()
    with torch.inference_mode():
        ref = m(x)
        if torch.cuda.is_available():
            got = m.half().cuda()(x.half().cuda()).float().cpu()
        else:
            for t in list(m.parameters()) + list(m.buffers()):
                if t.dtype == torch.float32:
                    t.copy_(t.half().float())
            for leaf in m.modules():
                if not list(leaf.children()):
                    leaf.register_forward_hook(lambda _m, _i, o: o.half().float())
            got = m(x.half().float())
    return scaled_error(got.numpy(), ref.numpy())


def torch_tf32_error(module, x):
    """PyTorch's own TF32 error on the model (CUDA only, else None), as torch_fp16_error
    measures float16's: the scale to read vkml's fp32-fast check against (TF32 keeps 10
    bits of mantissa, as float16 does)."""
    if not torch.cuda.is_available():
        return None
    m = copy.deepcopy(module).eval()
    saved = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    try:
        torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
        with torch.inference_mode():
            ref = m(x)
            torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = True
            got = m.cuda()(x.cuda()).float().cpu()
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved
    return scaled_error(got.numpy(), ref.numpy())


def ort_command():
    """How to run ONNX Runtime here: python onnxruntime, else onnxruntime-node."""
    probe = subprocess.run([sys.executable, "-c", "import onnxruntime, numpy"],
                           capture_output=True)
    if probe.returncode == 0:
        return [sys.executable, os.path.join(HERE, "bench_ort.py")], "onnxruntime (Python)"
    node = shutil.which("node")
    if node and subprocess.run([node, "-e", "require('onnxruntime-node')"],
                               capture_output=True).returncode == 0:
        return [node, os.path.join(HERE, "bench_ort_node.js")], "onnxruntime-node"
    return None, "not found (no Python onnxruntime; no onnxruntime-node on NODE_PATH)"


def run_ort(cmd, folder, repeat):
    meta = json.load(open(os.path.join(folder, "case.json")))
    dims = ",".join(str(d) for d in meta["input_shape"])
    rc, out, err, rss = run_measured(cmd + [meta["model"], os.path.join(folder, "input.bin"),
                                            dims, str(repeat)])
    if rc != 0:
        return {"error": (err.strip().splitlines() or ["exit %d" % rc])[-1], "rss": rss}
    r = json.loads(out.strip().splitlines()[-1])
    return {"median": r["median_ms"], "p99": r["p99_ms"], "rss": rss}


# --- the table ------------------------------------------------------------------------

def fmt_ms(r):
    if not r:
        return "-"
    if "error" in r:
        return "error"
    ran = " (ran at %s)" % r["ran"] if "ran" in r else ""
    return "%.3f / %.3f%s" % (r["median"], r["p99"], ran)


def ratio_cell(vk, t):
    """A median in ms (t: (median, p99) or None) with vkml's median over it."""
    if not t:
        return "-"
    if not vk or "median" not in vk:
        return "%.3f" % t[0]
    return "%.3f (%.2fx)" % (t[0], vk["median"] / t[0])


def irq_cpus(vkml):
    """{device: CPU} for each device whose interrupts `vkml devices` names (irq cpu), the
    default one also under "default"."""
    out = subprocess.run([vkml, "devices"], capture_output=True, text=True).stdout
    cpus = {}
    for line in out.splitlines():
        f = line.lstrip("* ").split()
        if f and f[-1].isdigit():
            cpus[f[0]] = int(f[-1])
            if line.startswith("*"):
                cpus["default"] = int(f[-1])
    return cpus


def avoid_irq_cpu(args):
    """The CPU that takes the GPU's interrupts (`vkml devices`, irq cpu), left by this
    process before anything starts threads: a thread polling for a GPU there sees its work
    end late (on the H200 machine by 30 us), and vkml moves its own polling threads off it
    (keep_thread_affinity in vkml.h), so PyTorch, ONNX Runtime and bench_floor run off it
    too. Returns the CPU or None."""
    cpu, allowed = irq_cpus(args.vkml).get(args.device), os.sched_getaffinity(0)
    if cpu is not None and cpu in allowed and len(allowed) > 1:
        os.sched_setaffinity(0, allowed - {cpu})
        return cpu
    return None


def main():
    global torch, np, TORCH_PRECISIONS
    args = parse_args()
    want = [p for p in args.torch_precisions.split(",") if p]
    if not want or any(p not in TORCH_PRECISIONS for p in want):
        sys.exit("bench: --torch-precisions: %s (known: %s)" % (args.torch_precisions,
                                                               ",".join(TORCH_PRECISIONS)))
    TORCH_PRECISIONS = tuple(want)
    irq_cpu = avoid_irq_cpu(args)
    # torch.compile's kernels and autotuning results, kept with the exports so that a
    # second run compiles in seconds
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR",
                          os.path.join(os.path.abspath(args.cache), "inductor"))
    sys.path.insert(0, HERE)
    import numpy
    np = numpy
    try:
        import torch as _torch
        torch = _torch
        torch.set_num_threads(min(8, os.cpu_count() or 1))
    except ImportError:
        torch = None
    repeat = args.repeat or (20 if args.small else 200)
    os.makedirs(args.cache, exist_ok=True)
    import bench_models
    keys = ["mnist-8"] + list(bench_models.MODELS)
    if args.only:
        want = args.only.split(",")
        keys = [k for k in keys if k in want]
    ort_cmd, ort_name = ort_command()
    modes = torch_modes(args)
    tcols = torch_columns(modes)
    cuda = modes != ["cpu"] and bool(modes)
    header = ["model", "vkml fp32 ms (med / p99)", "vkml fp16 ms (med / p99)",
              "vkml fp32-fast ms (med / p99)"]
    header += ["torch %s %s ms (vkml/torch)" % (p, m) for m, p in tcols]
    if cuda:
        header += ["vkml %s / torch %s GPU us" % (VKML_PRECISION[p], p) for p in TORCH_PRECISIONS]
    header += ["ORT CPU ms (vkml fp32/ORT)", "check fp32", "check fp16", "check fp32-fast",
               "peak RSS MiB vkml / ORT"]
    rows, failed = [], False
    compile_notes, torch_errors = [], {}
    for key in keys:
        if key == "mnist-8":
            if not args.corpus:
                continue
            folder, module, x = mnist_case(args.corpus, args.cache), None, None
            label = "mnist-8 (corpus)"
        else:
            if torch is None:
                continue
            label = (bench_models.SMALL_LABELS if args.small else
                     {k: v[0] for k, v in bench_models.MODELS.items()})[key]
            try:
                folder, module, x = export_case(key, args.small, args.cache)
            except Exception as e:  # an export this PyTorch cannot do: a row that says so
                print("bench: %s: export failed: %s" % (label, e), file=sys.stderr)
                rows.append([label, "export failed: %s" % str(e).splitlines()[0][:80]] +
                            ["-"] * (len(header) - 2))
                failed = True
                continue
        print("bench: %s" % label, file=sys.stderr)
        vk = {p: run_vkml(args, folder, p, repeat) for p in PRECISIONS}
        cells = [label] + [fmt_ms(vk[p]) for p in PRECISIONS]
        timings = {}
        for mode, prec in tcols:
            t = torch_cell(module, x, mode, prec, repeat) if module is not None else None
            if t and "error" in t:
                torch_errors.setdefault("%s: %s" % (mode, t["error"]), []).append(
                    "%s %s" % (label, prec))
                t = None
            timings[mode, prec] = t
            # each anchor against vkml at the matching precision (tf32: fp32-fast)
            cells.append(ratio_cell(vk[VKML_PRECISION[prec]],
                                    (t["median"], t["p99"]) if t else None))
        if cuda:
            cells += gpu_cells(args, folder, repeat, timings, modes)
        first_calls = ["%s %.0f s" % (p, timings["compile", p]["compile_s"])
                       for p in TORCH_PRECISIONS if timings.get(("compile", p))]
        if first_calls:
            compile_notes.append("- torch.compile first call (compile and autotune), %s: %s" %
                                 (label, ", ".join(first_calls)))
        ort = run_ort(ort_cmd, folder, repeat) if ort_cmd else None
        if ort and "error" in ort:
            cells.append("error: " + ort["error"][:60])
        else:
            cells.append(ratio_cell(vk["fp32"], (ort["median"], ort["p99"]) if ort else None))
        for p in PRECISIONS:
            check = vk[p].get("check") or "FAIL (%s)" % vk[p].get("error", "no output")
            own = own_error(p, module, x) if module is not None and "rel" in vk[p] else None
            if own:
                bound = reduced_bound(p, own)
                rel = vk[p]["rel"]
                check = "%s %.1e (torch %s %.1e; bound %.1e)" % (
                    "PASS" if np.isfinite(rel) and rel <= bound else "FAIL", rel, own[0], own[1],
                    bound)
            failed |= not check.startswith("PASS")
            cells.append(check)
        cells.append("%.0f / %s" % (vk["fp32"]["rss"], "%.0f" % ort["rss"] if ort else "-"))
        rows.append(cells)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    table = "\n".join(lines)
    notes = describe(args, repeat, ort_name, modes) + compile_notes
    notes += ["- torch %s: \"-\" in %d cell%s (first %s): %s" % (
        why.split(":")[0], len(cells), "" if len(cells) == 1 else "s", cells[0],
        why.split(": ", 1)[1]) for why, cells in torch_errors.items()]
    if irq_cpu is not None:
        notes.append("- the GPU's interrupts go to CPU %d: the harness (PyTorch, ONNX Runtime, "
                     "bench_floor) ran off it, as vkml's polling threads do" % irq_cpu)
    print(table)
    print("\n".join(notes))
    if args.out:
        with open(args.out, "w") as f:
            f.write("# vkml benchmark (tests/bench/bench.sh)\n\n" + "\n".join(notes) + "\n\n" +
                    table + "\n")
    return 1 if failed else 0


def torch_cell(module, x, mode, prec, repeat):
    """time_torch, an exception turned into {"error": why}: a mode this machine cannot run
    (torch.compile without Triton, a graph capture an op refuses) empties its cell, not
    the table."""
    try:
        return time_torch(module, x, mode, prec, repeat)
    except Exception as e:  # dynamo's messages run over lines: the first 120 characters
        return {"error": "%s: %s" % (type(e).__name__, " ".join(str(e).split())[:120])}


def gpu_cells(args, folder, repeat, timings, modes):
    """Per torch precision: vkml's GPU time at the matching precision and that of the
    fastest PyTorch mode host to host, in us, with the mode."""
    cells = []
    for prec in TORCH_PRECISIONS:
        vk = vkml_gpu_us(args, folder, VKML_PRECISION[prec], repeat)
        done = [(timings[m, prec]["median"], m) for m in modes if timings.get((m, prec))]
        best = min(done)[1] if done else None
        cells.append("%s / %s" % ("%.1f" % vk if vk is not None else "-",
                                  "%.1f (%s)" % (timings[best, prec]["gpu_us"], best)
                                  if best else "-"))
    return cells


def describe(args, repeat, ort_name, modes):
    devices = subprocess.run([args.vkml, "devices"], capture_output=True, text=True).stdout
    notes = ["- date: %s; host: %s, %d CPUs" % (time.strftime("%Y-%m-%d %H:%M"),
                                                platform.node(), os.cpu_count() or 0),
             "- vkml --device %s; %d timed runs after %s; sizes: %s" % (
                 args.device, repeat, "one warm-up run" if args.small else
                 "%d ms of warm-up runs (PyTorch's too)" % WARMUP_MS,
                 "small (--small)" if args.small else "full"),
             "- vkml devices: " + "; ".join(l.strip() for l in devices.splitlines() if l.strip())]
    if torch is not None:
        gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no CUDA: CPU eager"
        notes.append("- PyTorch %s (%s)" % (torch.__version__, gpu))
        if modes and modes != ["cpu"]:
            notes.append(
                "- PyTorch anchors: %s; each host to host (pinned input copied in, forward, "
                "output copied to a pinned buffer, synchronize); cudnn.benchmark on; 4-D "
                "inputs channels_last (model and input); fp16: model.half(); tf32: TF32 "
                "matmuls and convolutions%s" % (
                    ", ".join({"eager": "eager", "graph": "CUDA graph",
                               "compile": "torch.compile max-autotune"}[m] for m in modes),
                    "; torch.compile cache: " + os.environ["TORCHINDUCTOR_CACHE_DIR"]
                    if "compile" in modes else ""))
            notes.append(
                "- GPU us: vkml's from `vkml run --profile` (the sum of its nodes' GPU "
                "timestamps, mean of %d runs; gaps between nodes not counted); torch's by "
                "CUDA events around the forward pass or graph replay of the fastest mode host "
                "to host at that precision (named; no copies), median" %
                min(repeat, PROFILE_RUNS))
    notes.append("- ONNX Runtime: %s" % ort_name)
    if args.floor and os.access(args.floor, os.X_OK):
        r = subprocess.run([args.floor], capture_output=True, text=True)
        lines = [" ".join(l.split()) for l in r.stdout.splitlines()
                 if "per-dispatch floor" in l or "per dependent" in l or "empty submit" in l
                 or "one vkml Add" in l or "one-node model" in l]
        notes.append("- raw floor (%s): %s" % (os.path.basename(args.floor), " / ".join(lines)))
    else:
        notes.append("- raw floor: tests/bench/bench_floor is not built here: skipped")
    return notes


if __name__ == "__main__":
    sys.exit(main())
