#!/bin/sh
# The benchmark harness's one entry point (docs/performance.md, "The benchmark harness").
#   tests/bench/bench.sh [--build DIR] [--out FILE.md] [--small] [--only KEYS]
#                        [--device D] [--repeat N] [--anchors eager,graph,compile]
#                        [--no-compile] [--torch-precisions fp32,tf32,fp16]
#   tests/bench/bench.sh --cpu [--build DIR] [--out FILE.md] [--small] [--only KEYS]
#                        [--repeat N] [--rounds N] [--threads 1,16] [--reference]
# Exports the models with the local PyTorch into DIR/bench-cache (once), runs vkml at fp32
# and fp16, PyTorch and ONNX Runtime on each, checks vkml's outputs against PyTorch's and
# prints one table (written to FILE.md too). --cpu: vkml's CPU device against ONNX
# Runtime's CPU provider instead, with one thread and every core (bench_cpu.py).
# Exit 1 when a check fails; 77 when no Python with torch, onnx and numpy is found (meson's
# skip).
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${VKML_BUILD_ROOT:-$src/build}
args=""
script=bench.py
while [ $# -gt 0 ]; do
    case $1 in
        --build) build=$2; shift 2 ;;
        --cpu) script=bench_cpu.py; shift ;;
        *) args="$args $(printf '%s' "$1" | sed "s/'/'\\\\''/g; s/^/'/; s/\$/'/")"; shift ;;
    esac
done
py=$(sh "$src/tests/bench/find_python.sh") || exit $?
corpus=${VKML_CORPUS:-$src/../shared/corpus}
floor=$build/tests/bench/bench_floor
eval "set -- $args"
if [ "$script" = bench_cpu.py ]; then
    exec "$py" "$src/tests/bench/bench_cpu.py" --vkml "$build/tools/vkml" \
        --cache "$build/bench-cache" "$@"
fi
exec "$py" "$src/tests/bench/bench.py" --vkml "$build/tools/vkml" --cache "$build/bench-cache" \
    --corpus "$corpus" --floor "$floor" "$@"
