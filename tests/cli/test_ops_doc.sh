#!/bin/sh
# docs/ops.md is what tools/gen-ops-doc.sh writes: `vkml ops --markdown` plus the node-test
# columns from the conformance ratchets.
. "$(dirname "$0")/common.sh"
doc="${VKML_SOURCE_ROOT:?}/docs/ops.md"
need_corpus

"$VKML" ops --markdown > "$TMP/table.md" || fail "vkml ops --markdown exited $?"
expect_grep "$TMP/table.md" '^\| Conv \| ai\.onnx \| [0-9]+-[0-9]+ \| [a-z0-9,]*float[a-z0-9,]*( \(oneDNN: [^|]*\))? \| ([a-z0-9,]*float[a-z0-9,]*|no) \|$' "Conv row"
VKML_CORPUS=$CORPUS "$VKML_SOURCE_ROOT/tools/gen-ops-doc.sh" "$VKML" "$TMP/ops.md" > /dev/null ||
    fail "tools/gen-ops-doc.sh failed"
expect_grep "$TMP/ops.md" '^\| Relu \| ai\.onnx \| .* \| [0-9]+ / [0-9]+ / [0-9]+ \|$' "Relu node tests"
expect_grep "$TMP/ops.md" '^\| core \| [0-9]+ \| [0-9]+ \| [0-9]+ \|$' "core tier totals"
if ! diff -u "$doc" "$TMP/ops.md" >&2; then
    fail "docs/ops.md is out of date: run tools/gen-ops-doc.sh BUILD/tools/vkml"
fi
finish
