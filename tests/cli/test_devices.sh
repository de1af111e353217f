#!/bin/sh
# `vkml devices` lists the CPU device and (a must in CI) a Vulkan device, one marked default.
. "$(dirname "$0")/common.sh"

"$VKML" devices > "$TMP/out" 2> "$TMP/err" || fail "vkml devices exited $?: $(cat "$TMP/err")"
cat "$TMP/out"
expect_grep "$TMP/out" '^[ *] cpu .* CPU .* [0-9]+ MiB +-$' "the CPU device"
[ "$(grep -c '^\*' "$TMP/out")" = 1 ] || fail "exactly one device must be marked default (*)"
expect_error "devices with an argument" 2 "$VKML" devices extra
grep -Eq '^[ *] 0 ' "$TMP/out" || missing "a Vulkan device (mesa-vulkan-drivers)"
expect_grep "$TMP/out" '^[ *] 0 .* [0-9]+ MiB +Vulkan [0-9]+\.[0-9]+\.[0-9]+$' "Vulkan device 0"
# With a Vulkan device present the default is a GPU, not the CPU.
expect_grep "$TMP/out" '^\* 0 ' "device 0 is the default"
finish
