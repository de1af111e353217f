#!/bin/sh
# Live detection from a camera (V4L2), drawn on screen:
#
#   v4l2src device=/dev/video0 ! decodebin ! vkmlinfer ! vkmldetect ! vkmloverlay
#       ! videoconvert ! autovideosink
#
# decodebin takes what the camera gives (raw YUYV, MJPEG ...) and hands vkmlinfer raw
# frames; a live source makes vkmlinfer's QoS matter: frames the sink reports late pass
# without inference (frames-skipped-qos) instead of piling up.
#
#   camera.sh [--dry-run] [DEVICE] [MODEL] [LABELS]
#
# DEVICE defaults to /dev/video0, MODEL and LABELS to the project's detector
# (build/pipelines/detector.onnx). With no such device it prints the pipeline it would
# run and exits 1. --dry-run (what CI runs, as gst_camera_pipeline) checks that the
# description parses (gst_parse_launch, every element and property known) with v4l2src
# replaced by videotestsrc, and exits 0 when it does; nothing is run.
# Environment: VKML_BUILD_DIR=DIR (no build step), VKML_DEVICE=D (vkmlinfer's device).
set -eu
dry_run=0
if [ "${1:-}" = "--dry-run" ]; then dry_run=1; shift; fi
. "$(dirname "$0")/lib.sh"
camera=${1:-/dev/video0}
model=${2:-$build/pipelines/detector.onnx}
labels=${3:-$build/pipelines/color-labels.txt}
source="v4l2src device=$camera"
rest="decodebin ! vkmlinfer model=\"$model\" device=$device \
! vkmldetect labels=\"$labels\" score-threshold=0.5 ! vkmloverlay ! videoconvert \
! autovideosink"

if [ "$dry_run" -eq 1 ]; then
    # the real source's element and properties too (creating it opens nothing)
    parse_check "$source ! $rest"
    parse_check "videotestsrc num-buffers=1 ! $rest"
    exit
fi
echo "gst-launch-1.0 -e $source ! $rest"
if [ ! -e "$camera" ]; then
    echo "camera: no $camera here; the pipeline above is what would run"
    exit 1
fi
# shellcheck disable=SC2086
eval gst-launch-1.0 -e "$source" ! $rest
