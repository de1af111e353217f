#!/bin/sh
# torchvision's detectors end to end: the model zoo's Faster R-CNN (MobileNetV3-FPN),
# Mask R-CNN and Keypoint R-CNN, exported by tests/models/zoo/make_zoo.py with random
# weights into the build tree (written first when missing), run on test video through
#   videotestsrc ! vkmlinfer ! vkmldetect ! vkmloverlay ! pngenc
# vkmlinfer feeds their [3,H,W] image input (scale 1/255: the model normalises it
# itself), vkmldetect reads their outputs as the exporter leaves them (format=torchvision,
# picked by auto: boxes [N,4] in input pixels, int64 labels [N], scores [N], Mask R-CNN's
# masks [N,1,H,W], Keypoint R-CNN's keypoints [N,17,3]) and maps them onto the frame;
# vkmloverlay draws the boxes, fills the masks and dots the keypoints.
# pipelines/README.md explains it.
#
# Exit status: 77 (skip) without python3-torch unless CI=true; non-zero when a pipeline fails, when a frame has no boxes or more than the
# model's 20, a label outside the model's classes 1..4, a box outside the frame, when
# vkmldetect does not say it decodes torchvision's layout, or when a PNG is missing.
#
# Environment: VKML_BUILD_DIR=DIR (else builds first); VKML_TV_FRAMES=N frames per
# model (default 2); VKML_TV_OUT=DIR keeps the PNGs; VKML_DEVICE=D vkmlinfer's device;
# VKML_TV_MODELS="fasterrcnn_mobilenet_v3_large_320_fpn ..." the zoo models to run
# (default Faster R-CNN, Mask R-CNN and Keypoint R-CNN, whose every box must carry its
# mask or its keypoints).
set -eu
. "$(dirname "$0")/lib.sh"
frames=${VKML_TV_FRAMES:-2}
models=${VKML_TV_MODELS:-fasterrcnn_mobilenet_v3_large_320_fpn maskrcnn_resnet50_fpn keypointrcnn_resnet50_fpn}
zoo=$build/tests/models/zoo
if [ -n "${VKML_TV_OUT:-}" ]; then
    out=$VKML_TV_OUT
    mkdir -p "$out"
else
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
fi
if ! /usr/bin/python3 -c 'import torch, torchvision, onnx' 2> /dev/null; then
    echo "torchvision_detect.sh: needs Debian's python3-torch, python3-torchvision and python3-onnx"
    [ "${CI:-}" = true ] && exit 1
    exit 77
fi
failures=0
width=256
height=192

for name in $models; do
    case=${name}_b1_op13
    mkdir -p "$zoo"
    flock "$zoo.lock" /usr/bin/python3 "$root/tests/models/zoo/make_zoo.py" "$zoo" \
        --only "$case" > /dev/null
    # Mask R-CNN through a shared model instance: its masks (sized by each run) come
    # through the instance's batcher, handed over as the run allocated them
    instance=
    [ "$name" = maskrcnn_resnet50_fpn ] && instance="model-instance-id=tv-$name"
    echo "== $name: videotestsrc ! vkmlinfer $instance ! vkmldetect ! vkmloverlay ! pngenc"
    if ! log=$(gst-launch-1.0 \
        videotestsrc num-buffers="$frames" \
        ! video/x-raw,format=RGB,width=$width,height=$height \
        ! vkmlinfer model="$zoo/$case/model.onnx" device="$device" $instance \
        ! vkmldetect print=true score-threshold=0 \
        ! vkmloverlay \
        ! videoconvert ! pngenc ! multifilesink location="$out/$name-%02d.png" 2>&1); then
        echo "$log" | tail -n 20
        echo "FAIL: the $name pipeline failed"
        failures=$((failures + 1))
        continue
    fi
    printf '%s\n' "$log" | grep "^frame " | head -n 3
    if ! printf '%s\n' "$log" | grep -q "Decoding the tensors.* as torchvision"; then
        echo "FAIL: vkmldetect did not decode $name's outputs as torchvision's"
        failures=$((failures + 1))
    fi
    # "frame F: LABEL SCORE at X,Y WxH": per frame 1..20 boxes, labels 1..4, inside it
    bad=$(printf '%s\n' "$log" | grep "^frame " | awk -v frames="$frames" \
        -v w=$width -v h=$height '
        { split($6, xy, ","); split($7, wh, "x"); n[$2]++
          if ($3 !~ /^[1-4]$/ || xy[1] + wh[1] > w || xy[2] + wh[2] > h)
              print "box out of range: " $0 }
        END { for (f = 0; f < frames; f++) if (n[f ":"] < 1 || n[f ":"] > 20)
              print "frame " f ": " n[f ":"] + 0 " boxes" }')
    if [ -n "$bad" ]; then
        echo "$bad"
        echo "FAIL: $name's boxes"
        failures=$((failures + 1))
    fi
    extra=
    case $name in
    maskrcnn*) extra=mask ;;
    keypointrcnn*) extra=keypoints ;;
    esac
    if [ -n "$extra" ] && printf '%s\n' "$log" | grep "^frame " | grep -qv " $extra$"; then
        echo "FAIL: a box of $name has no $extra"
        failures=$((failures + 1))
    fi
    check_pngs "$out" "$name" "$frames"
done
[ "$failures" -eq 0 ] || { echo "torchvision_detect.sh: $failures failures"; exit 1; }
echo "torchvision_detect.sh: ok"
