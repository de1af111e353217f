#!/bin/sh
# Detection: a small detector made by pipelines/make_detector_model.py at build time
# (per-cell colour boxes, 40x40 cells over a 320x240 frame, YOLOv8 output layout) runs
# on videotestsrc frames through vkmlinfer; vkmldetect decodes its boxes, vkmloverlay
# draws them with their labels, pngenc writes each frame to $VKML_DETECT_OUT/NAME-NN.png.
# The model's bundle, build/pipelines/detector.json (copied from pipelines/), gives the
# pre-processing, the labels and the decoder's settings (yolov8, score-threshold 0.5),
# so neither element needs a property for them. pipelines/README.md explains it.
#
# Builds first (.ci/build.sh) unless VKML_BUILD_DIR=DIR names a build folder.
# Exit status: non-zero when a pipeline fails, when a frame does not get the expected
# boxes (48 of the frame's colour, none with a class filter that excludes it), or when
# no PNG was written.
#
# Environment: VKML_BUILD_DIR=DIR; VKML_DETECT_FRAMES=N frames per run (default 3);
# VKML_DETECT_OUT=DIR where the PNGs go (default: a temporary folder, removed);
# VKML_DEVICE=D the vkmlinfer device property.
set -eu
. "$(dirname "$0")/lib.sh"
model=$build/pipelines/detector.onnx
frames=${VKML_DETECT_FRAMES:-3}
if [ -n "${VKML_DETECT_OUT:-}" ]; then
    out=$VKML_DETECT_OUT
    mkdir -p "$out"
else
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
fi
cells=48
failures=0

# run_one NAME EXPECTED-LABEL EXPECTED-BOXES-PER-FRAME "VKMLDETECT-PROPS" SRC-PROPS...
run_one() {
    name=$1 label=$2 want=$3 props=$4
    shift 4
    echo "== videotestsrc $* ! vkmldetect $props -> $want \"$label\" boxes a frame"
    # shellcheck disable=SC2086
    if ! log=$(gst-launch-1.0 -q \
        videotestsrc "$@" num-buffers="$frames" \
        ! video/x-raw,format=RGB,width=320,height=240 \
        ! vkmlinfer model="$model" device="$device" \
        ! vkmldetect print=true $props \
        ! vkmloverlay \
        ! videoconvert ! pngenc ! multifilesink location="$out/$name-%02d.png"); then
        echo "$log"
        echo "FAIL: the pipeline failed"
        failures=$((failures + 1))
        return
    fi
    printf '%s\n' "$log" | head -n 3
    right=$(printf '%s\n' "$log" | grep -c ": $label " || true)
    all=$(printf '%s\n' "$log" | grep -c "^frame " || true)
    if [ "$right" -ne $((want * frames)) ] || [ "$all" -ne "$right" ]; then
        echo "FAIL: $right \"$label\" boxes of $all, want $((want * frames))"
        failures=$((failures + 1))
    fi
    check_pngs "$out" "$name" "$frames"
}

run_one red red "$cells" "" pattern=red
run_one green green "$cells" "" pattern=green
# class filter: only class 2 (blue) is reported, so a red frame gets no box
run_one filtered red 0 "classes=2" pattern=red

if [ "$failures" -ne 0 ]; then
    echo "detect: $failures check(s) failed"
    exit 1
fi
echo "detect: every frame got the expected boxes; PNGs in $out"
