#!/bin/sh
# The whole ONNX node test folder on one device ($2: cpu or 0): no FAIL and no ERROR,
# everything passes or is honestly unsupported. Prints the totals and the time taken.
. "$(dirname "$0")/common.sh"
need_corpus
dev=${2:?usage: $0 VKML DEVICE}
node="$CORPUS/onnx-node"
[ "$dev" = cpu ] || require_vulkan

start=$(date +%s)
"$VKML" conformance --device "$dev" --json "$TMP/report.json" "$node" > "$TMP/out" 2> "$TMP/err"
rc=$?
end=$(date +%s)
grep -E '^(FAIL|ERROR) ' "$TMP/out" >&2
totals=$(tail -n 1 "$TMP/out")
echo "$totals ($((end - start)) s on device $dev)"
echo "$totals" | grep -Eq '^conformance: [0-9]+ pass, 0 fail, [0-9]+ unsupported, 0 error, [0-9]+ total$' ||
    fail "FAIL or ERROR tests on device $dev (listed above); stderr tail: $(tail -n 5 "$TMP/err")"
total=$(echo "$totals" | sed -n 's/.* \([0-9]*\) total$/\1/p')
[ "${total:-0}" -ge 1000 ] || fail "only ${total:-0} tests found in $node"
[ "$rc" = 0 ] || fail "exit status $rc"
finish
