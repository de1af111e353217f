#!/bin/sh
# Detection on an RTSP stream (a network camera or a media server), drawn on screen:
#
#   rtspsrc location=rtsp://... latency=200 ! decodebin ! vkmlinfer ! vkmldetect
#       ! vkmloverlay ! videoconvert ! autovideosink
#
# rtspsrc receives RTP (H.264, H.265, MJPEG ... as the server offers), decodebin
# depayloads and decodes it with whatever decoder is installed (gst-libav or
# gst-plugins-bad for H.264/H.265), and vkmlinfer takes the decoder's NV12/I420 frames
# with no videoconvert in front. latency=200 is rtspsrc's jitter buffer (ms); vkmlinfer
# answers the LATENCY query with its own run time, so the sink's clock allows for both.
#
#   rtsp.sh [--dry-run] URL [MODEL] [LABELS]
#
# MODEL and LABELS default to the project's detector. Without a URL it prints the
# pipeline and exits 1. --dry-run (what CI runs, as gst_rtsp_pipeline) checks that the
# description parses (gst_parse_launch) with rtspsrc replaced by videotestsrc, runs
# nothing and exits 0 when it parses.
# Environment: VKML_BUILD_DIR=DIR (no build step), VKML_DEVICE=D (vkmlinfer's device).
set -eu
dry_run=0
if [ "${1:-}" = "--dry-run" ]; then dry_run=1; shift; fi
. "$(dirname "$0")/lib.sh"
url=${1:-}
model=${2:-$build/pipelines/detector.onnx}
labels=${3:-$build/pipelines/color-labels.txt}
rest="decodebin ! vkmlinfer model=\"$model\" device=$device \
! vkmldetect labels=\"$labels\" score-threshold=0.5 ! vkmloverlay ! videoconvert \
! autovideosink"

if [ "$dry_run" -eq 1 ]; then
    # the real source's element and properties too (creating it opens nothing)
    parse_check "rtspsrc location=rtsp://127.0.0.1:8554/test latency=200 ! $rest"
    parse_check "videotestsrc num-buffers=1 ! $rest"
    exit
fi
echo "gst-launch-1.0 -e rtspsrc location=${url:-rtsp://HOST:PORT/PATH} latency=200 ! $rest"
if [ -z "$url" ]; then
    echo "rtsp: no URL given; the pipeline above is what would run"
    exit 1
fi
# shellcheck disable=SC2086
eval gst-launch-1.0 -e rtspsrc location="\"$url\"" latency=200 ! $rest
