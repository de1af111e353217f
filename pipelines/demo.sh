#!/bin/sh
# The demo: a colour classifier, made by pipelines/make_color_model.py at build time,
# runs on videotestsrc frames through vkmlinfer (plugin `vkml`, libvkml on the first
# GPU, else lavapipe, else the CPU) and vkmlclassify, which prints its answer for every
# frame. pipelines/README.md explains the pipeline and the model.
#
# Builds first (.ci/build.sh installs missing packages and builds into build/).
# Exit status: non-zero when the build or a pipeline fails, or when the model says
# something else than the colour it was shown.
#
# Environment: VKML_BUILD_DIR=DIR uses an existing build folder and skips the build;
# VKML_DEMO_FRAMES=N frames per pattern (default 5); VKML_DEVICE=D the vkmlinfer
# device property (-2 default, -1 CPU, 0.. GPU index).
set -eu
. "$(dirname "$0")/lib.sh"
model=$build/pipelines/color.onnx
labels=$build/pipelines/color-labels.txt
frames=${VKML_DEMO_FRAMES:-5}
device=${VKML_DEVICE:--2}

if [ -x "$build/tools/vkml" ]; then
    echo "Devices (* = the default vkmlinfer uses):"
    "$build/tools/vkml" devices || true
    echo
fi

failures=0

# run_one EXPECTED VIDEOTESTSRC-PROPERTY...: one pipeline; every frame must be EXPECTED.
run_one() {
    expected=$1
    shift
    echo "== videotestsrc $* -> expect \"$expected\""
    if ! out=$(gst-launch-1.0 -q \
        videotestsrc "$@" num-buffers="$frames" \
        ! video/x-raw,format=RGB,width=320,height=240 \
        ! vkmlinfer model="$model" device="$device" \
        ! vkmlclassify labels="$labels" print=true \
        ! fakesink); then
        echo "$out"
        echo "FAIL: the pipeline failed"
        failures=$((failures + 1))
        return
    fi
    echo "$out"
    right=$(printf '%s\n' "$out" | grep -c ": $expected (" || true)
    if [ "$right" -ne "$frames" ]; then
        echo "FAIL: $right of $frames frames were called \"$expected\""
        failures=$((failures + 1))
    fi
}

run_one red pattern=red
run_one green pattern=green
run_one blue pattern=blue
run_one white pattern=white
run_one black pattern=black
# solid-color takes ARGB
run_one yellow pattern=solid-color foreground-color=0xffffff00
run_one cyan pattern=solid-color foreground-color=0xff00ffff
run_one magenta pattern=solid-color foreground-color=0xffff00ff

if [ "$failures" -ne 0 ]; then
    echo "demo: $failures pattern(s) failed"
    exit 1
fi
echo "demo: every frame got the expected colour"
