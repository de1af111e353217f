#!/bin/sh
# Tracking: a detector finds objects on every other frame, vkmltrack gives them track
# ids (and predicted boxes on the frames between), a second model classifies each
# tracked object only every third frame, vkmloverlay draws "#ID red: red 1.00" on each
# box, and the frames are encoded into a WebM file:
#
#   videotestsrc ! vkmlinfer (detector, inference-interval=2) ! vkmldetect ! vkmltrack
#       ! vkmlinfer roi=objects reclassify-interval=3 (colour classifier) ! vkmlclassify
#       ! vkmloverlay ! videoconvert ! vp8enc ! webmmux ! filesink
#
# The detector (pipelines/make_detector_model.py) gives one box per 40x40 cell of a
# 320x240 frame: 48 objects that stay put, so every object keeps one id all along.
# Checks: each frame has 48 tracks with the ids 1..48, each at the same place on every
# frame; the frames the detector skipped (odd ones) carry predicted boxes; every object
# of every frame is classified "red"; the WebM decodes into as many frames as went in.
# pipelines/README.md explains it.
#
# Environment: VKML_BUILD_DIR=DIR (no build step), VKML_TRACK_FRAMES=N (default 6),
# VKML_TRACK_OUT=FILE keeps the WebM, VKML_DEVICE=D the device of both vkmlinfer.
set -eu
. "$(dirname "$0")/lib.sh"
frames=${VKML_TRACK_FRAMES:-6}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${VKML_TRACK_OUT:-$tmp/track.webm}
labels=$build/pipelines/color-labels.txt
cells=48
failures=0

# vkmltrack print=true: "frame N: track ID LABEL at X,Y WxH[ (predicted)]";
# vkmlclassify print=true: "frame N object ROI-ID (LABEL): LABEL (SCORE)".
log=$(gst-launch-1.0 -q videotestsrc pattern=red num-buffers="$frames" \
    ! video/x-raw,format=RGB,width=320,height=240,framerate=30/1 \
    ! vkmlinfer model="$build/pipelines/detector.onnx" device="$device" \
        model-id=detector inference-interval=2 \
    ! vkmldetect model-id=detector labels="$labels" score-threshold=0.5 \
    ! vkmltrack model-id=detector print=true \
    ! vkmlinfer model="$build/pipelines/color.onnx" device="$device" \
        model-id=colour roi=objects reclassify-interval=3 \
    ! vkmlclassify model-id=colour labels="$labels" print=true \
    ! vkmloverlay ! videoconvert ! vp8enc deadline=1 ! webmmux \
    ! filesink location="$out" 2>&1) || {
    echo "$log"
    echo "FAIL: the pipeline failed"
    exit 1
}
printf '%s\n' "$log" | grep "^frame 1: track" | head -n 2

tracks=$(printf '%s\n' "$log" | grep "^frame [0-9]*: track " || true)
for f in $(seq 0 $((frames - 1))); do
    this=$(printf '%s\n' "$tracks" | grep "^frame $f: " || true)
    ids=$(printf '%s\n' "$this" | awk 'NF { print $4 }' | sort -n | uniq | tr '\n' ' ')
    if [ "$ids" != "$(seq 1 $cells | tr '\n' ' ')" ]; then
        echo "FAIL: frame $f has the track ids: $ids"
        failures=$((failures + 1))
    fi
    predicted=$(printf '%s\n' "$this" | grep -c "(predicted)$" || true)
    want=0
    [ $((f % 2)) -eq 1 ] && want=$cells
    if [ "$predicted" -ne "$want" ]; then
        echo "FAIL: frame $f has $predicted predicted boxes, want $want"
        failures=$((failures + 1))
    fi
done
# each id at one place on every frame: as many distinct "id at x,y" as ids
places=$(printf '%s\n' "$tracks" | awk 'NF { print $4, $7 }' | sort -u | wc -l)
if [ "$places" -ne "$cells" ]; then
    echo "FAIL: $places (track, place) pairs, want $cells"
    failures=$((failures + 1))
fi
red=$(printf '%s\n' "$log" | grep -c "^frame [0-9]* object [0-9]* (red): red " || true)
if [ "$red" -ne $((cells * frames)) ]; then
    echo "FAIL: $red objects classified red, want $((cells * frames))"
    failures=$((failures + 1))
fi

gst-launch-1.0 -q filesrc location="$out" ! decodebin ! videoconvert ! pngenc \
    ! multifilesink location="$tmp/decoded-%02d.png"
decoded=$(find "$tmp" -name 'decoded-*.png' | wc -l)
if [ "$decoded" -ne "$frames" ]; then
    echo "FAIL: $out decodes into $decoded frames, want $frames"
    failures=$((failures + 1))
fi

if [ "$failures" -ne 0 ]; then
    echo "track: $failures check(s) failed"
    exit 1
fi
echo "track: $cells objects tracked over $frames frames with stable ids; video in $out"
