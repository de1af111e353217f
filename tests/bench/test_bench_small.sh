#!/bin/sh
# The benchmark harness cannot rot: bench.sh --small on a tiny subset (mnist-8 from the
# corpus, the small 4 x Linear model exported with the local PyTorch) on Vulkan device 0,
# and the results file it writes has a PASS for each of the three precisions of both rows.
. "$VKML_SOURCE_ROOT/tests/cli/common.sh"
need_corpus
require_vulkan
out=$TMP/bench.md
sh "$VKML_SOURCE_ROOT/tests/bench/bench.sh" --build "$VKML_BUILD_ROOT" --small \
    --only mnist-8,mlp_4x4096_b256 --repeat 10 --device 0 --out "$out" > "$TMP/log" 2>&1
rc=$?
[ "$rc" = 77 ] && missing "a Python with torch, onnx and numpy"
[ "$rc" = 0 ] || fail "bench.sh exited $rc: $(tail -n 5 "$TMP/log")"
cat "$TMP/log"
[ -s "$out" ] || { fail "bench.sh wrote no results file"; finish; }
for row in 'mnist-8' '4 x Linear 256'; do
    line=$(grep -F "| $row" "$out")
    n=$(printf '%s\n' "$line" | grep -o 'PASS' | wc -l)
    [ "$n" = 3 ] || fail "row '$row': $n PASS (want fp32, fp16 and fp32-fast): $line"
    # (fp16 may say it ran at fp32: where float16 was slower, the session chose float32)
    printf '%s\n' "$line" |
        grep -Eq '\| [0-9.]+ / [0-9.]+ \| [0-9.]+ / [0-9.]+( \(ran at fp32\))? \| [0-9.]+ / [0-9.]+ \|' ||
        fail "row '$row' has no vkml fp32, fp16 and fp32-fast latencies: $line"
done
finish
