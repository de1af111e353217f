#!/bin/sh
# `vkml devices` lists the CPU device and (a must in CI) a Vulkan device, one marked default.
. "$(dirname "$0")/common.sh"

"$VKML" devices > "$TMP/out" 2> "$TMP/err" || fail "vkml devices exited $?: $(cat "$TMP/err")"
cat "$TMP/out"
expect_grep "$TMP/out" '^[ *] cpu .* CPU .* [0-9]+ MiB +- +- +-$' "the CPU device (no API, no copy queues, no interrupts)"
[ "$(grep -c '^\*' "$TMP/out")" = 1 ] || fail "exactly one device must be marked default (*)"
expect_error "devices with an argument" 2 "$VKML" devices extra
grep -Eq '^[ *] 0 ' "$TMP/out" || missing "a Vulkan device (mesa-vulkan-drivers)"
expect_grep "$TMP/out" '^[ *] 0 .* [0-9]+ MiB +Vulkan [0-9]+\.[0-9]+\.[0-9]+ +(-|[12] (engine|compute)) +(-|[0-9]+)$' "Vulkan device 0 (its copy queues or -, its interrupts' CPU or -)"
# lavapipe has one queue: its copies go in the kernels' submit (VKML_NO_COPY_QUEUE=1 does
# the same on any device)
VKML_NO_COPY_QUEUE=1 "$VKML" devices > "$TMP/noq" 2>&1
expect_grep "$TMP/noq" '^[ *] 0 .* Vulkan [0-9.]+ +- +(-|[0-9]+)$' "no copy queues under VKML_NO_COPY_QUEUE=1"
# The default is the first discrete or integrated GPU, else the CPU device: a Vulkan
# device on the CPU (lavapipe) is never the default.
if grep -Eq '^[ *] +[0-9]+ .* (discrete|integrated) GPU ' "$TMP/out"; then
    first=$(grep -E '^[ *] +[0-9]+ .* (discrete|integrated) GPU ' "$TMP/out" | head -n 1 | sed -E 's/^[ *] +([0-9]+) .*/\1/')
    expect_grep "$TMP/out" "^\\* $first " "the first real GPU ($first) is the default"
    expect_grep "$TMP/out" "^default: $first \\(the first discrete or integrated GPU\\)$" "the reason line"
else
    expect_grep "$TMP/out" '^\* cpu ' "the CPU device is the default (no real GPU)"
    expect_grep "$TMP/out" '^default: cpu \(no discrete or integrated GPU' "the reason line"
fi
finish
