#!/bin/sh
# decodebin ! vkmlinfer with no videoconvert for the formats decoders give beyond
# NV12/I420: a VP9 file (vp9enc, gst-plugins-good) of each format is decoded, the
# decoder's raw format reaches vkmlinfer as it is (checked in the negotiated caps), and
# the colour model calls every frame by its colour.
# Usage: test_decoded_formats.sh BUILD_DIR
set -eu
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GST_PLUGIN_PATH="$build/gst" GST_REGISTRY="$tmp/registry.bin"
model=$build/pipelines/color.onnx
labels=$build/pipelines/color-labels.txt
failures=0

# check FORMAT COLOUR
check() {
    gst-launch-1.0 -q videotestsrc pattern="$2" num-buffers=3 \
        ! video/x-raw,format="$1",width=64,height=48 ! vp9enc ! webmmux \
        ! filesink location="$tmp/in.webm"
    log=$(gst-launch-1.0 -v filesrc location="$tmp/in.webm" ! decodebin \
        ! vkmlinfer name=infer model="$model" device=0 \
        ! vkmlclassify labels="$labels" print=true ! fakesink 2>&1) || {
        echo "$log"; echo "FAIL: $1: the pipeline failed"; failures=$((failures + 1)); return; }
    if ! printf '%s\n' "$log" | grep -q "infer.GstPad:sink: caps = video/x-raw, format=(string)$1,"; then
        echo "$log" | grep "infer.GstPad:sink" || true
        echo "FAIL: $1 did not reach vkmlinfer as $1"
        failures=$((failures + 1))
    fi
    right=$(printf '%s\n' "$log" | grep -c "^frame [0-9]*: $2 " || true)
    echo "$1: $right of 3 frames $2"
    [ "$right" -eq 3 ] || { echo "$log" | grep "^frame" || true; failures=$((failures + 1)); }
}

check Y444 red
check I420_10LE green
check Y444_10LE blue
[ "$failures" -eq 0 ] || { echo "decoded formats: $failures check(s) failed"; exit 1; }
