#!/bin/sh
# The library's layers only call down (docs/architecture.md): each folder of lib/ includes
# only the folders its row allows, and the graph, passes, onnx, device and plan layers call
# no function of a device implementation (cpu_*, vk_*). Reads the tree; no build needed.
set -u
lib="${VKML_SOURCE_ROOT:?}/lib"
failed=0

# folder: the folders it may include (itself and vkml/, the public header, always)
allowed() {
    case $1 in
    core) echo "" ;;
    sched) echo "core" ;;
    graph) echo "core" ;;
    ops) echo "core graph" ;;
    passes) echo "core graph ops" ;;
    device) echo "core graph ops" ;;
    onnx) echo "core graph ops passes device" ;;
    cpu) echo "core sched graph ops device" ;;
    vulkan) echo "core sched graph ops device" ;;
    plan) echo "core sched graph ops passes device onnx" ;;
    *) echo "?" ;;
    esac
}

for dir in "$lib"/*/; do
    layer=$(basename "$dir")
    [ "$layer" = include ] && continue
    ok=$(allowed "$layer")
    if [ "$ok" = "?" ]; then
        echo "lib/$layer: a folder with no row in tests/unit/check_layers.sh" >&2
        failed=1
        continue
    fi
    for used in $(grep -ho '^#include "[a-z_]*/' "$dir"*.[ch] 2>/dev/null |
                  sed 's/#include "//; s#/##' | sort -u); do
        case " $layer vkml $ok " in
        *" $used "*) ;;
        *)
            echo "lib/$layer includes lib/$used/:" >&2
            grep -n "^#include \"$used/" "$dir"*.[ch] >&2
            failed=1
            ;;
        esac
    done
done

for layer in graph passes onnx device plan; do
    calls=$(grep -nE '(^|[^a-z_.>])(cpu|vk)_[a-z0-9_]+ *\(' "$lib/$layer"/*.[ch] |
            grep -vE ':[0-9]+: *(/\*|\*)')
    if [ -n "$calls" ]; then
        echo "lib/$layer calls a device implementation's function:" >&2
        echo "$calls" >&2
        failed=1
    fi
done

[ $failed = 0 ] && echo "layers: every include and call goes down"
exit $failed
