#!/bin/sh
# The multi-GPU benchmark cannot rot, and a split and data parallel give one GPU's outputs:
# bench_multi.py --small on the small 8 x Linear stack over Vulkan device 0 opened as two
# logical devices (VKML_VK_LOGICAL_DEVICES=2, so a split moves its middle value through
# shared host memory and the copies in and out of record_shared_copies); its row shows
# both modes, the split over two devices with a copy, and a difference of 0 from one GPU.
. "$VKML_SOURCE_ROOT/tests/cli/common.sh"
require_vulkan
out=$TMP/multi.md
py=$(sh "$VKML_SOURCE_ROOT/tests/bench/find_python.sh")
rc=$?
[ "$rc" = 77 ] && missing "a Python with torch, onnx and numpy"
[ "$rc" = 0 ] || { fail "no Python with torch, onnx and numpy"; finish; }
VKML_VK_LOGICAL_DEVICES=2 "$py" "$VKML_SOURCE_ROOT/tests/bench/bench_multi.py" \
    --build "$VKML_BUILD_ROOT" --small --only mlp_8x4096_b256 --runs 16 --copy-mib 1 \
    --out "$out" > "$TMP/log" 2>&1
rc=$?
[ "$rc" = 0 ] || fail "bench_multi.py exited $rc: $(tail -n 5 "$TMP/log")"
cat "$TMP/log"
line=$(grep -F '| 8 x Linear 256 b16' "$out")
[ -n "$line" ] || fail "no row for the small 8 x Linear stack in $out"
printf '%s\n' "$line" | grep -q 'GPU 0: 4 nodes.*GPU 1: 4 nodes.*copies 16 KiB a run (shared host memory)' ||
    fail "the split is not 4 + 4 nodes with a 16 KiB shared copy: $line"
printf '%s\n' "$line" | grep -Eq '\| 0 / 0 \|$' ||
    fail "data parallel or the split differ from one GPU's outputs: $line"
finish
