#!/bin/sh
# Writes docs/ops.md from the op table: `vkml ops --markdown`.
# usage: tools/gen-ops-doc.sh [VKML_BINARY [OUTPUT]]
#   defaults: build/tools/vkml and docs/ops.md (relative to the source root)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
vkml=${1:-$root/build/tools/vkml}
out=${2:-$root/docs/ops.md}
if [ ! -x "$vkml" ]; then
    echo "gen-ops-doc: $vkml is not built (meson compile -C build)" >&2
    exit 1
fi
tmp="$out.tmp.$$"
"$vkml" ops --markdown > "$tmp"
mv "$tmp" "$out"
echo "gen-ops-doc: wrote $out"
