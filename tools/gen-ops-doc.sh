#!/bin/sh
# Writes docs/ops.md from the op table (`vkml ops --markdown`) and the node-test columns
# (tools/ops_doc_tests.py: the conformance ratchets against the corpus's TIERS.tsv).
# usage: tools/gen-ops-doc.sh [VKML_BINARY [OUTPUT]]
#   defaults: build/tools/vkml and docs/ops.md (relative to the source root)
#   VKML_CORPUS: the corpus (default ../shared/corpus beside the tree)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
vkml=${1:-$root/build/tools/vkml}
out=${2:-$root/docs/ops.md}
corpus=${VKML_CORPUS:-$root/../shared/corpus}
if [ ! -x "$vkml" ]; then
    echo "gen-ops-doc: $vkml is not built (meson compile -C build)" >&2
    exit 1
fi
tmp="$out.tmp.$$"
"$vkml" ops --markdown > "$tmp.table"
/usr/bin/python3 "$root/tools/ops_doc_tests.py" "$tmp.table" "$corpus/onnx-node/TIERS.tsv" \
    "$root/tests/cli/ratchet/onnx-node.cpu.pass" "$root/tests/cli/ratchet/onnx-node.gpu-resident.pass" \
    > "$tmp"
rm -f "$tmp.table"
mv "$tmp" "$out"
echo "gen-ops-doc: wrote $out"
