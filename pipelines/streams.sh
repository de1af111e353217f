#!/bin/sh
# Many streams, one model: N sources in one gst-launch-1.0 pipeline, each through its own
# vkmlinfer -> vkmlclassify -> vkmloverlay, every vkmlinfer on one model instance
# (model-instance-id=colors): the model is loaded once, and the frames of all streams are
# batched together, up to batch-size per run (docs/element.md, "Many streams").
#
#   pipelines/streams.sh                 N test streams, stream k a solid colour
#   pipelines/streams.sh URI [URI ...]   one stream per URI (file:///..., rtsp://...)
#                                        through uridecodebin; labels printed, not checked
#
# The model is build/pipelines/color-batch.onnx (the demo's colour classifier with a
# symbolic batch). With test streams the script checks that every frame of stream k was
# classified as stream k's colour (vkmlclassify post-messages, read from gst-launch -m),
# so a frame whose outputs went to another stream fails it.
#
# Builds first (.ci/build.sh) unless VKML_BUILD_DIR=DIR names a build folder.
# Environment: VKML_STREAMS=N test streams (default 4, at most 6: one colour each);
# VKML_STREAMS_FRAMES=F frames per stream (default 20); VKML_STREAMS_BATCH=B batch-size
# (default 4); VKML_DEVICE=D the vkmlinfer device property.
set -eu
. "$(dirname "$0")/lib.sh"
model=$build/pipelines/color-batch.onnx
labels=$build/pipelines/color-labels.txt
streams=${VKML_STREAMS:-4}
frames=${VKML_STREAMS_FRAMES:-20}
batch=${VKML_STREAMS_BATCH:-4}
colours="red green blue white black yellow"

# branch K SOURCE...: one stream's elements after its source
branch() {
    k=$1
    shift
    printf '%s ! vkmlinfer model="%s" device=%s model-instance-id=colors batch-size=%s ' \
        "$*" "$model" "$device" "$batch"
    printf '! vkmlclassify name=cls%s labels="%s" post-messages=true ! vkmloverlay ' \
        "$k" "$labels"
    printf '! fakesink sync=false '
}

pipeline=""
if [ $# -gt 0 ]; then
    k=0
    for uri in "$@"; do
        pipeline="$pipeline $(branch $k uridecodebin uri=\"$uri\" ! videoconvert)"
        k=$((k + 1))
    done
    echo "== $# streams from URIs, one model instance, batch-size $batch"
    # shellcheck disable=SC2086
    eval gst-launch-1.0 -m $pipeline | grep -o 'from element "cls[0-9]*".*label=(string)[a-z]*'
    exit 0
fi

[ "$streams" -le 6 ] || { echo "VKML_STREAMS: at most 6 test streams"; exit 2; }
k=0
for colour in $colours; do
    [ $k -lt "$streams" ] || break
    src="videotestsrc pattern=$colour num-buffers=$frames ! video/x-raw,format=NV12,width=320,height=240"
    pipeline="$pipeline $(branch $k $src)"
    k=$((k + 1))
done
echo "== $streams test streams x $frames frames, one model instance, batch-size $batch"
# shellcheck disable=SC2086
if ! log=$(eval gst-launch-1.0 -m $pipeline 2>&1); then
    printf '%s\n' "$log" | tail -n 20
    echo "FAIL: the pipeline failed"
    exit 1
fi
failures=0
k=0
for colour in $colours; do
    [ $k -lt "$streams" ] || break
    got=$(printf '%s\n' "$log" | grep "from element \"cls$k\"" | grep -c "label=(string)$colour" || true)
    all=$(printf '%s\n' "$log" | grep -c "from element \"cls$k\".*vkml-classification" || true)
    echo "stream $k ($colour): $got of $all frames classified $colour"
    if [ "$got" -ne "$frames" ] || [ "$all" -ne "$frames" ]; then
        echo "FAIL: stream $k: want $frames frames, all $colour"
        failures=$((failures + 1))
    fi
    k=$((k + 1))
done
[ "$failures" -eq 0 ] || { echo "streams: $failures stream(s) wrong"; exit 1; }
echo "streams: every frame of every stream classified as its own colour"
