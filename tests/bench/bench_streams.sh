#!/bin/sh
# N video streams through vkmlinfer sharing one model instance (tests/bench/bench_streams.c)
# against the library's own batched ceiling for the model (`vkml run --in-flight`).
#   tests/bench/bench_streams.sh [--build DIR] [--out FILE.md] [--small]
#       [--models "resnet50_b8 yolov8n_style_640"] [--streams "1 4 16 64"]
#       [--device D] [--precision P] [--batch B] [--size S] [--in-flight F] [--timeout US]
#       [--seconds S] [--warmup S] [--repeat R] [--width W --height H] [--file PATH]
#       [--no-instance] [--data-parallel] [--live FPS] [--extra 'prop=val ...']
# Per model (tests/bench/bench_models.py's factories, random weights, exported with the
# local PyTorch at a fixed batch B, and at SxS for an image model given --size, into
# DIR/bench-cache/streams-*, once): the ceiling,
# `vkml run MODEL --input (B frames) --in-flight F --repeat R` in images/s (runs/s x B),
# then bench_streams at each N; one markdown table per model, also written to FILE.md.
# --no-instance adds a row per N with every element its own model (the old behaviour).
# Models: the keys of bench_models.py, and tiny_cnn (3 strided convolutions at 32x32, for
# lavapipe). --small: the small sizes (tiny_cnn and ResNet-18 at 64x64), batch 2,
# 320x240 frames, N = 1 2, 2 s windows (lavapipe or the CPU device).
# Exit 1 when a run fails; 77 when no Python with torch, onnx and numpy is found
# (meson's skip; 1 with CI=true).
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${VKML_BUILD_ROOT:-$src/build}
out="" small=0 models="" streams="" device=default precision=fp32 batch="" in_flight=4
size=0 timeout=0 seconds="" warmup="" repeat="" width="" height="" file="" no_instance=0
data_parallel=0 extra="" live=0
usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || case $1 in --small|--no-instance|--data-parallel) ;; *) usage ;; esac
    case $1 in
        --build) build=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --small) small=1; shift ;;
        --models) models=$2; shift 2 ;;
        --streams) streams=$2; shift 2 ;;
        --device) device=$2; shift 2 ;;
        --precision) precision=$2; shift 2 ;;
        --batch) batch=$2; shift 2 ;;
        --size) size=$2; shift 2 ;;
        --in-flight) in_flight=$2; shift 2 ;;
        --timeout) timeout=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --warmup) warmup=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        --width) width=$2; shift 2 ;;
        --height) height=$2; shift 2 ;;
        --file) file=$2; shift 2 ;;
        --no-instance) no_instance=1; shift ;;
        --data-parallel) data_parallel=1; shift ;;
        --extra) extra=$2; shift 2 ;;
        --live) live=$2; shift 2 ;;
        *) usage ;;
    esac
done
if [ "$small" = 1 ]; then
    : "${models:=tiny_cnn resnet50_b8}" "${streams:=1 2}" "${batch:=2}" "${seconds:=2}"
    : "${warmup:=1}" "${repeat:=20}" "${width:=320}" "${height:=240}"
else
    : "${models:=resnet50_b8 yolov8n_style_640}" "${streams:=1 4 16 64}" "${batch:=8}"
    : "${seconds:=10}" "${warmup:=2}" "${repeat:=200}" "${width:=1920}" "${height:=1080}"
fi
vkml=$build/tools/vkml
bench=$build/tests/bench/bench_streams
for f in "$vkml" "$bench"; do
    [ -x "$f" ] || { echo "bench_streams.sh: $f is not built (ninja -C $build)" >&2; exit 1; }
done
py=$(sh "$src/tests/bench/find_python.sh") || exit $?
cache=$build/bench-cache
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-streams.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# export KEY: the case folder of KEY at batch $batch (model.onnx, input.pb), exported once;
# its first line is the folder, the second the model's label.
export_model() {
    "$py" - "$src/tests/bench" "$cache" "$1" "$small" "$batch" "$size" <<'EOF'
import hashlib, inspect, os, re, sys
here, cache, key = sys.argv[1], sys.argv[2], sys.argv[3]
small, batch, size = sys.argv[4] == "1", int(sys.argv[5]), int(sys.argv[6])
sys.path.insert(0, here)
import torch
import bench, bench_models
from onnx import numpy_helper
bench.torch = torch  # bench.py imports torch in main(); calibrate_batchnorm reads it
nn = torch.nn
# tiny_cnn: three strided 3x3 convolutions and a linear classifier at 32x32, a few ms a
# run on lavapipe (tests/bench/test_bench_streams.sh), where ResNet-18 takes a second
TINY = {"tiny_cnn": ("tiny CNN (3 x conv 3x3, linear)", lambda small: (nn.Sequential(
    nn.Conv2d(3, 8, 3, 2, 1), nn.BatchNorm2d(8), nn.ReLU(),
    nn.Conv2d(8, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
    nn.Linear(32, 10)), (1, 3, 32, 32)))}
label, factory = (bench_models.MODELS.get(key) or bench_models.MULTI_MODELS.get(key) or
                  TINY[key])
if small:
    label = bench_models.SMALL_LABELS.get(key, label)
folder = os.path.join(cache, "streams-%s%s-b%d%s" % ("small-" if small else "", key, batch,
                                                     "-s%d" % size if size else ""))
# the export's inputs; raise EXPORT when this script exports differently
EXPORT = 1
stamp = hashlib.sha256(open(os.path.join(here, "bench_models.py"), "rb").read() +
                       f"{EXPORT} {key} {small} {batch} {size} {torch.__version__}".encode()).hexdigest()[:16]
stamp_path = os.path.join(folder, "stamp")
torch.manual_seed(0)
module, shape = factory(small)
shape = (batch,) + tuple(shape[1:])
if size:  # an image model at SxS
    shape = shape[:2] + (size, size)
if not (os.path.exists(stamp_path) and open(stamp_path).read() == stamp):
    bench.calibrate_batchnorm(module, shape)
    module.eval()
    x = torch.rand(*shape)
    os.makedirs(folder, exist_ok=True)
    legacy = ({"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters
              else {})
    with torch.no_grad():
        torch.onnx.export(module, x, os.path.join(folder, "model.onnx"), opset_version=bench.OPSET,
                          input_names=["input"], output_names=["output"],
                          do_constant_folding=True, **legacy)
    with open(os.path.join(folder, "input.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x.numpy(), "input").SerializeToString())
    with open(stamp_path, "w") as f:
        f.write(stamp)
print(folder)
label = re.sub(r" (b[0-9]+|[0-9]+)(?=[ ,]|$)", "", label)  # its batch and size are shape's
print("%s, input [%s]" % (label, ",".join(map(str, shape))))
EOF
}

# field NAME LINE: the value of NAME=... in bench_streams's line.
field() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

describe="device $device, $precision, batch $batch, in flight $in_flight, batch-timeout $timeout us, ${seconds} s windows after ${warmup} s, "
if [ -n "$file" ]; then describe="${describe}source $(basename "$file") (decodebin)"
else describe="${describe}source videotestsrc NV12 ${width}x${height}"; fi
[ "$data_parallel" = 1 ] && describe="$describe, data-parallel"
[ -n "$extra" ] && describe="$describe, extra: $extra"
[ "$live" -gt 0 ] && describe="$describe, live sources at $live frames/s each"
results=$tmp/results.md
: > "$results"
failed=0
for key in $models; do
    info=$(export_model "$key" 2> "$tmp/export.log") ||
        { echo "bench_streams.sh: $key: export failed:" >&2; tail -n 5 "$tmp/export.log" >&2
          failed=1; continue; }
    folder=$(printf '%s\n' "$info" | sed -n 1p)
    label=$(printf '%s\n' "$info" | sed -n 2p)
    dp=""
    [ "$data_parallel" = 1 ] && dp=--data-parallel
    "$vkml" run "$folder/model.onnx" --input "$folder/input.pb" --device "$device" \
        --in-flight "$in_flight" --repeat "$repeat" --precision "$precision" --values 1 $dp \
        > "$tmp/ceiling.log" 2>&1
    runs=$(sed -n 's/^throughput: \([0-9.]*\) runs\/s.*/\1/p' "$tmp/ceiling.log")
    if [ -n "$runs" ]; then
        ceiling=$(awk -v r="$runs" -v b="$batch" 'BEGIN { printf "%.1f", r * b }')
    else
        echo "bench_streams.sh: $key: the ceiling run failed: $(tail -n 3 "$tmp/ceiling.log")" >&2
        ceiling="" failed=1
    fi
    {
        echo "### $label"
        echo
        echo "$describe; ceiling: \`vkml run --in-flight $in_flight --repeat $repeat\` at batch $batch"
        echo
        echo "| N | frames/s | p50 ms | p99 ms | GPU MiB | RSS MiB | frames/run | ceiling images/s | frames/s / ceiling |"
        echo "|---|---|---|---|---|---|---|---|---|"
    } >> "$results"
    modes=instance
    [ "$no_instance" = 1 ] && modes="instance no-instance"
    for n in $streams; do
        for mode in $modes; do
            set -- --model "$folder/model.onnx" --streams "$n" --batch "$batch" \
                --timeout "$timeout" --precision "$precision" --in-flight "$in_flight" \
                --seconds "$seconds" --warmup "$warmup" --width "$width" --height "$height"
            [ "$device" != default ] && set -- "$@" --device "$device"
            [ "$data_parallel" = 1 ] && set -- "$@" --data-parallel
            [ -n "$file" ] && set -- "$@" --file "$file"
            [ -n "$extra" ] && set -- "$@" --extra "$extra"
            [ "$live" -gt 0 ] && set -- "$@" --live "$live"
            name=$n
            [ "$mode" = no-instance ] && { set -- "$@" --no-instance; name="$n (no instance)"; }
            "$bench" "$@" > "$tmp/run.log" 2>&1
            rc=$?
            line=$(grep '^streams=' "$tmp/run.log" | tail -n 1)
            if [ "$rc" != 0 ] || [ -z "$line" ]; then
                why=$(grep '^bench_streams:' "$tmp/run.log" | head -n 1 | tr '|' ' ')
                [ -n "$why" ] || why=$(tail -n 2 "$tmp/run.log" | tr '\n|' '  ')
                echo "bench_streams.sh: $key N=$name failed (exit $rc): $why" >&2
                echo "| $name | failed (exit $rc): $why | | | | | | | |" >> "$results"
                failed=1
                continue
            fi
            fps=$(field fps "$line")
            ratio=$(awk -v f="$fps" -v c="${ceiling:-0}" 'BEGIN { if (c > 0) printf "%.2f", f / c; else printf "-" }')
            echo "| $name | $fps | $(field p50_ms "$line") | $(field p99_ms "$line") |" \
                "$(field gpu_mib "$line") | $(field rss_mib "$line") |" \
                "$(field frames_per_run "$line") | ${ceiling:--} | $ratio |" >> "$results"
        done
    done
    echo >> "$results"
done
cat "$results"
[ -n "$out" ] && cp "$results" "$out"
exit $failed
