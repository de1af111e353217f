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
        json=$(mktemp)
        "$vkml" conformance --device "$dev" --json "$json" "$corpus/$folder" > /dev/null 2>&1 || true
        { echo "# Tests of $folder that pass on the $kind device: tests/cli/update_ratchet.sh"
          /usr/bin/python3 -c 'import json, os, sys
for t in json.load(open(sys.argv[1]))["tests"]:
    if t["status"] == "PASS": print(os.path.basename(t["test"]))' "$json" | sort
        } > "$out"
        echo "update_ratchet: $(grep -vc '^#' "$out") tests in $out"
        if [ "$kind" = gpu ]; then
            out="$root/tests/cli/ratchet/$folder.gpu-resident.pass"
            { echo "# Tests of $folder that pass with every node on Vulkan device 0:" \
                   "tests/cli/update_ratchet.sh"
              /usr/bin/python3 -c 'import json, os, sys
for t in json.load(open(sys.argv[1]))["tests"]:
    if t["status"] == "PASS" and t["cpu_nodes"] == 0: print(os.path.basename(t["test"]))' \
                  "$json" | sort
            } > "$out"
            echo "update_ratchet: $(grep -vc '^#' "$out") tests in $out"
        fi
        rm -f "$json"
    done
done
