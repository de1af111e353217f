#!/bin/sh
# docs/ops.md is the output of `vkml ops --markdown` (tools/gen-ops-doc.sh writes it).
. "$(dirname "$0")/common.sh"
doc="${VKML_SOURCE_ROOT:?}/docs/ops.md"

"$VKML" ops --markdown > "$TMP/ops.md" || fail "vkml ops --markdown exited $?"
expect_grep "$TMP/ops.md" '^\| Conv \| ai\.onnx \| [0-9]+-[0-9]+ \| float[a-z0-9,]* \| (float[a-z0-9,]*|no) \|$' "Conv row"
if ! diff -u "$doc" "$TMP/ops.md" >&2; then
    fail "docs/ops.md is out of date: run tools/gen-ops-doc.sh BUILD/tools/vkml (or ninja ops-doc)"
fi
finish
