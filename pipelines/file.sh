#!/bin/sh
# A video file through detection and back into a file: the script first makes its own
# input (videotestsrc -> vp8enc -> webmmux, a WebM file), then runs
#
#   filesrc ! decodebin ! vkmlinfer ! vkmldetect ! vkmloverlay ! videoconvert
#       ! vp8enc ! webmmux ! filesink
#
# decodebin hands vkmlinfer the decoder's I420 frames as they are (no videoconvert in
# front: the pre-processing converts them on the model's device); vkmloverlay draws the boxes on the I420 frames; the result is encoded again.
# Checks: every frame got boxes of the file's colour, and the output file decodes into
# as many frames as went in. pipelines/README.md explains it.
#
# Environment: VKML_BUILD_DIR=DIR (no build step), VKML_FILE_FRAMES=N (default 6),
# VKML_FILE_OUT=FILE keeps the output WebM, VKML_DEVICE=D.
set -eu
. "$(dirname "$0")/lib.sh"
frames=${VKML_FILE_FRAMES:-6}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${VKML_FILE_OUT:-$tmp/out.webm}

# 1. the input file: red frames, VP8 in WebM (gst-plugins-good)
gst-launch-1.0 -q videotestsrc pattern=red num-buffers="$frames" \
    ! video/x-raw,width=320,height=240,framerate=30/1 \
    ! vp8enc deadline=1 ! webmmux ! filesink location="$tmp/in.webm"

# 2. detection on the decoded file, boxes drawn, encoded again
log=$(gst-launch-1.0 -q filesrc location="$tmp/in.webm" ! decodebin \
    ! vkmlinfer model="$build/pipelines/detector.onnx" device="$device" \
    ! vkmldetect labels="$build/pipelines/color-labels.txt" score-threshold=0.5 \
        print=true \
    ! vkmloverlay ! videoconvert ! vp8enc deadline=1 ! webmmux \
    ! filesink location="$out")
printf '%s\n' "$log" | head -n 2
failures=0
for i in $(seq 0 $((frames - 1))); do
    if ! printf '%s\n' "$log" | grep -q "^frame $i: red "; then
        echo "FAIL: frame $i got no red box"
        failures=$((failures + 1))
    fi
done

# 3. the output decodes, frame by frame
gst-launch-1.0 -q filesrc location="$out" ! decodebin ! videoconvert ! pngenc \
    ! multifilesink location="$tmp/decoded-%02d.png"
decoded=$(find "$tmp" -name 'decoded-*.png' | wc -l)
if [ "$decoded" -ne "$frames" ]; then
    echo "FAIL: the output decodes into $decoded frames, not $frames"
    failures=$((failures + 1))
fi
[ "$failures" -eq 0 ] || { echo "file: $failures check(s) failed"; exit 1; }
echo "file: $frames frames detected, drawn, encoded; the output decodes ($out)"
