#!/bin/sh
# A long-running pipeline leaks nothing: VKML_VALGRIND_FRAMES (default 1000) frames through
# videotestsrc ! vkmlinfer (default device, 4 in flight, every other frame inferred) !
# fakesink in gst-launch-1.0 under valgrind; any definitely lost block fails the test.
# (Valgrind's other reports are not counted: glibc's loader shows false "invalid reads"
# on the build folder's RPATH here.)
# With VKML_VALGRIND_STREAMS=N: N branches of frames/N frames each, every vkmlinfer on one
# model instance (model-instance-id, batch-size 4: frames batched across streams).
# The CPU device runs its C kernels here (VKML_CPU_KERNELS=reference): with oneDNN's,
# valgrind counts 20 blocks (48,704 bytes, the same at 200 and 1,000 frames) as lost, made
# once by oneDNN's engine and the OpenMP runtime's threads (libgomp), in frames it cannot
# name; LeakSanitizer checks the oneDNN path instead (.ci/sanitize.sh: the gst suite with
# leak checks on).
# $1: the build folder. Missing valgrind: skip, or a failure when CI=true.
set -eu
export VKML_CPU_KERNELS=reference
build=$(cd "$1" && pwd)
frames=${VKML_VALGRIND_FRAMES:-1000}
streams=${VKML_VALGRIND_STREAMS:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! command -v valgrind > /dev/null; then
    [ "${CI:-}" = true ] && { echo "FAIL: valgrind is missing and CI=true"; exit 1; }
    echo "SKIP: valgrind is missing"
    exit 77
fi
export GST_PLUGIN_PATH="$build/gst" GST_REGISTRY="$tmp/registry.bin"
# The registry is built outside valgrind (its scanner is another process).
gst-inspect-1.0 vkmlinfer > /dev/null
pipeline="videotestsrc num-buffers=$frames ! video/x-raw,format=RGB,width=64,height=64
    ! vkmlinfer model=$build/pipelines/color.onnx max-in-flight=4 inference-interval=2
    ! fakesink"
if [ "$streams" -gt 0 ]; then
    pipeline=""
    for k in $(seq 1 "$streams"); do
        pipeline="$pipeline videotestsrc num-buffers=$((frames / streams))
            ! video/x-raw,format=NV12,width=64,height=48
            ! vkmlinfer model=$build/pipelines/color-batch.onnx model-instance-id=v
              batch-size=4 ! fakesink"
    done
fi
# GLib's own suppressions (libglib2.0-dev): allocations of its type system and main
# context that live for the process, which valgrind may count as lost at exit; and the
# quark table's first block, which GLib leaves unfreed once the process has interned over
# 2048 quarks (glib_quarks.supp says why)
# VKML_VALGRIND_BUNDLE=1: the detector with its model bundle (build/pipelines/detector.json),
# read by vkmlinfer and, through the bundle query, by vkmldetect and vkmlclassify
if [ "${VKML_VALGRIND_BUNDLE:-}" = 1 ]; then
    pipeline="videotestsrc num-buffers=$frames ! video/x-raw,format=RGB,width=320,height=240
        ! vkmlinfer model=$build/pipelines/detector.onnx max-in-flight=2
        ! vkmldetect ! vkmlclassify softmax=true ! fakesink"
fi
supp="--suppressions=$(dirname "$0")/glib_quarks.supp"
glib_supp=/usr/share/glib-2.0/valgrind/glib.supp
[ -f "$glib_supp" ] && supp="$supp --suppressions=$glib_supp"
status=0
# shellcheck disable=SC2086
valgrind --leak-check=full --show-leak-kinds=definite --num-callers=30 $supp \
    --log-file="$tmp/valgrind.log" gst-launch-1.0 -q $pipeline || status=$?
if [ "$status" != 0 ]; then
    cat "$tmp/valgrind.log"
    echo "FAIL: gst-launch-1.0 under valgrind exited $status"
    exit 1
fi
grep -E "definitely lost:|in use at exit" "$tmp/valgrind.log"
if ! grep -Eq "definitely lost: 0 bytes in 0 blocks" "$tmp/valgrind.log"; then
    cat "$tmp/valgrind.log"
    echo "FAIL: definitely lost blocks (above)"
    exit 1
fi
echo "OK: $frames frames (streams: $streams), no definite leak"
