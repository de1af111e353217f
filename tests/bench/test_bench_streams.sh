#!/bin/sh
# The N-stream benchmark cannot rot: bench_streams.sh --small on the tiny CNN (exported
# with the local PyTorch) on Vulkan device 0, N = 1 and 2 streams sharing one model
# instance; each row of the results file has a positive frames/s and ceiling, and at least
# one frame per model run. About 20 s here ($2 is bench_streams, so meson builds it).
. "$VKML_SOURCE_ROOT/tests/cli/common.sh"
[ -x "${2:-}" ] || { fail "bench_streams is not built (${2:-no path given})"; finish; }
require_vulkan
sh "$VKML_SOURCE_ROOT/tests/bench/find_python.sh" > /dev/null 2>&1
rc=$?
[ "$rc" = 0 ] || missing "a Python with torch, onnx and numpy"
out=$TMP/streams.md
sh "$VKML_SOURCE_ROOT/tests/bench/bench_streams.sh" --build "$VKML_BUILD_ROOT" --small \
    --models tiny_cnn --streams "1 2" --device 0 --out "$out" > "$TMP/log" 2>&1
rc=$?
cat "$TMP/log"
[ "$rc" = 0 ] || fail "bench_streams.sh exited $rc: $(tail -n 5 "$TMP/log")"
[ -s "$out" ] || { fail "bench_streams.sh wrote no results file"; finish; }
for n in 1 2; do
    line=$(grep -E "^\| $n \|" "$out")
    [ -n "$line" ] || { fail "no row for N = $n in $out"; continue; }
    # | N | frames/s | p50 | p99 | GPU MiB | RSS MiB | frames/run | ceiling | ratio |
    printf '%s\n' "$line" | awk -F'|' '{ exit !($3 + 0 > 0 && $8 + 0 >= 1 && $9 + 0 > 0) }' ||
        fail "N = $n: want frames/s > 0, frames per run >= 1 and a ceiling > 0: $line"
done
finish
