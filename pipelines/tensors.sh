#!/bin/sh
# Tensors in, tensors out, as NNStreamer's tensor_filter does: vkmlinfer between
# other/tensors caps (format=static), no video.
#
#   filesrc blocksize=12 ! other/tensors,format=static,num_tensors=1,dimensions=3:1,
#       types=float32,framerate=0/1 ! vkmlinfer ! filesink
#
# The input file holds 5 tensors [1,3] float32 (a mean colour each: red, green, blue,
# white, black); each 12-byte block is one buffer, one tensor. The model takes the mean
# colour directly ('rgb' [1,3], the colour classifier's --vector-input variant made at
# build time), so vkmlinfer passes the buffer's memory to the model as it is (no
# pre-processing) and its source caps are other/tensors of the model's output
# ('probabilities' [1,8] float32, dimensions=8:1): each output buffer is that tensor,
# 32 bytes, written one after the other. In an NNStreamer pipeline tensor_converter
# would stand before vkmlinfer and tensor_decoder after it.
# Checks: 5 outputs, each naming its colour (argmax over the 8 classes).
# Environment: VKML_BUILD_DIR=DIR (no build step), VKML_DEVICE=D.
set -eu
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
model=$build/tests/gst/color-vector.onnx
labels=$build/pipelines/color-labels.txt

/usr/bin/python3 -c '
import struct, sys
colours = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1), (0, 0, 0)]
with open(sys.argv[1], "wb") as f:
    for c in colours:
        f.write(struct.pack("<3f", *c))' "$tmp/in.raw"

gst-launch-1.0 -q filesrc location="$tmp/in.raw" blocksize=12 \
    ! "other/tensors,format=static,num_tensors=1,dimensions=(string)3:1,types=float32,framerate=0/1" \
    ! vkmlinfer model="$model" device="$device" \
    ! "other/tensors,format=static,num_tensors=1,dimensions=(string)8:1,types=float32" \
    ! filesink location="$tmp/out.raw"

/usr/bin/python3 -c '
import struct, sys
labels = open(sys.argv[2]).read().split()
data = open(sys.argv[1], "rb").read()
want = ["red", "green", "blue", "white", "black"]
if len(data) != 32 * len(want):
    sys.exit(f"FAIL: {len(data)} output bytes, want {32 * len(want)}")
for i, w in enumerate(want):
    p = struct.unpack_from("<8f", data, 32 * i)
    got = labels[max(range(8), key=lambda k: p[k])]
    print(f"tensor {i}: {got} ({max(p):.2f})")
    if got != w:
        sys.exit(f"FAIL: tensor {i} is {got}, want {w}")
print("tensors: every output tensor names its colour")' "$tmp/out.raw" "$labels"
