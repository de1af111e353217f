#!/bin/sh
# Secondary inference: a detector finds objects, a second model classifies each object.
# The detector (pipelines/make_detector_model.py: per-cell colour boxes, 40x40 cells over
# a 320x240 frame) runs on videotestsrc frames; vkmldetect turns its output into one
# GstVideoRegionOfInterestMeta per box; a second vkmlinfer with roi=objects runs the
# colour classifier (pipelines/make_color_model.py, input 64x64) once per box, the box
# cropped and resized to 64x64 by the pre-processing kernel; vkmlclassify puts each
# answer on its box's ROI meta, vkmloverlay draws "red: red 1.00" on each box, pngenc
# writes each frame to $VKML_SECONDARY_OUT/NAME-NN.png. pipelines/README.md explains it.
#
# Builds first (.ci/build.sh) unless VKML_BUILD_DIR=DIR names a build folder.
# Exit status: non-zero when a pipeline fails, when the objects of a frame do not get
# the expected classification (48 objects of the frame's colour, or none when
# object-class excludes them), or when no PNG was written.
#
# Environment: VKML_BUILD_DIR=DIR; VKML_SECONDARY_FRAMES=N frames per run (default 2);
# VKML_SECONDARY_OUT=DIR where the PNGs go (default: a temporary folder, removed);
# VKML_DEVICE=D the device property of both vkmlinfer.
set -eu
. "$(dirname "$0")/lib.sh"
detector=$build/pipelines/detector.onnx
classifier=$build/pipelines/color.onnx
labels=$build/pipelines/color-labels.txt
frames=${VKML_SECONDARY_FRAMES:-2}
if [ -n "${VKML_SECONDARY_OUT:-}" ]; then
    out=$VKML_SECONDARY_OUT
    mkdir -p "$out"
else
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
fi
cells=48
failures=0

# run_one NAME EXPECTED-LABEL EXPECTED-OBJECTS-PER-FRAME "OBJECT-CLASS" SRC-PROPS...
run_one() {
    name=$1 label=$2 want=$3 classes=$4
    shift 4
    filter=""
    if [ -n "$classes" ]; then
        filter="object-class=$classes"
    fi
    echo "== videotestsrc $* ! ... vkmlinfer roi=objects object-class=\"$classes\"" \
        "-> $want objects \"$label\" a frame"
    # The two vkmlinfer name their metas (model-id), so each decoder reads its own.
    # vkmlclassify print=true writes "frame N object ID (BOX-LABEL): LABEL (SCORE)".
    # shellcheck disable=SC2086
    if ! log=$(gst-launch-1.0 -q \
        videotestsrc "$@" num-buffers="$frames" \
        ! video/x-raw,format=RGB,width=320,height=240 \
        ! vkmlinfer model="$detector" device="$device" model-id=detector \
        ! vkmldetect model-id=detector labels="$labels" score-threshold=0.5 \
        ! vkmlinfer model="$classifier" device="$device" model-id=colour \
            roi=objects $filter min-object-size=16x16 \
        ! vkmlclassify model-id=colour labels="$labels" print=true \
        ! vkmloverlay \
        ! videoconvert ! pngenc ! multifilesink location="$out/$name-%02d.png" 2>&1); then
        echo "$log"
        echo "FAIL: the pipeline failed"
        failures=$((failures + 1))
        return
    fi
    printf '%s\n' "$log" | head -n 3
    right=$(printf '%s\n' "$log" | grep -c "^frame [0-9]* object [0-9]* ($label): $label " \
        || true)
    all=$(printf '%s\n' "$log" | grep -c "^frame " || true)
    if [ "$right" -ne $((want * frames)) ] || [ "$all" -ne "$right" ]; then
        echo "FAIL: $right objects classified \"$label\" of $all, want $((want * frames))"
        failures=$((failures + 1))
    fi
    check_pngs "$out" "$name" "$frames"
}

run_one red red "$cells" "" pattern=red
run_one blue blue "$cells" "blue" pattern=blue
# object-class filter: only "green" objects are classified, so red frames pass with
# their boxes and no classification
run_one filtered red 0 "green" pattern=red

if [ "$failures" -ne 0 ]; then
    echo "secondary: $failures check(s) failed"
    exit 1
fi
echo "secondary: every object got the expected classification; PNGs in $out"
