#!/bin/sh
# Rewrites the conformance ratchets (tests/cli/ratchet/<folder>.<cpu|gpu>.pass: the tests
# that must keep passing) from a run of the built vkml on the CPU device and on Vulkan
# device 0. Run after ops land; review the diff (a test may only leave a list on purpose).
# usage: tests/cli/update_ratchet.sh [VKML_BINARY]   (default build/tools/vkml)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
vkml=${1:-$root/build/tools/vkml}
corpus=${VKML_CORPUS:-$root/../shared/corpus}
for folder in onnx-node onnx-extra; do
    for dev in cpu 0; do
        kind=cpu
        [ "$dev" = cpu ] || kind=gpu
        out="$root/tests/cli/ratchet/$folder.$kind.pass"
        { echo "# Tests of $folder that pass on the $kind device: tests/cli/update_ratchet.sh"
          "$vkml" conformance --device "$dev" "$corpus/$folder" 2>/dev/null |
              awk '$1 == "PASS" { n = split($2, p, "/"); print p[n] }' | sort
        } > "$out"
        echo "update_ratchet: $(grep -vc '^#' "$out") tests in $out"
    done
done
