#!/bin/sh
# Rewrites tests/models/zoo_expected.tsv from a run of the model zoo on the CPU and on
# Vulkan device 0 (tests/models/README.md). Run it after ops land, read `git diff`, and
# commit the new ratchet with them.
# Usage: tests/models/update_ratchet.sh [BUILD_DIR] (default: build)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
vkml=$build/tools/vkml
zoo=$build/tests/models/zoo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flock "$zoo.lock" /usr/bin/python3 "$root/tests/models/zoo/make_zoo.py" "$zoo"
for dev in cpu 0; do
    "$vkml" conformance --tolerance model --timeout 600 --device "$dev" --json "$tmp/$dev.json" "$zoo" \
        > "$tmp/$dev.out" 2> "$tmp/$dev.err" || true
    [ -s "$tmp/$dev.json" ] || { echo "update_ratchet: no report on device $dev:" >&2; cat "$tmp/$dev.err" >&2; exit 1; }
    tail -n 1 "$tmp/$dev.out"
done
/usr/bin/python3 "$root/tests/models/zoo/ratchet.py" write "$root/tests/models/zoo_expected.tsv" \
    "$tmp/cpu.json" "$tmp/0.json"
