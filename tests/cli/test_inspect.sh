#!/bin/sh
# `vkml inspect` on mnist-8: opset, input/output with shapes, the op types with counts,
# and a support column per device; `vkml ops` lists the op table.
. "$(dirname "$0")/common.sh"
need_corpus
model="$CORPUS/models/mnist-8/model.onnx"

"$VKML" inspect "$model" > "$TMP/out" 2> "$TMP/err" || fail "inspect exited $?: $(cat "$TMP/err")"
cat "$TMP/out"
expect_grep "$TMP/out" '^opset: 8$' "opset"
expect_grep "$TMP/out" '^inputs \(1\):$' "one input"
expect_grep "$TMP/out" '^  Input3 +float +\[1,1,28,28\]$' "input Input3"
expect_grep "$TMP/out" '^outputs \(1\):$' "one output"
expect_grep "$TMP/out" '^  Plus214_Output_0 +float +\[1,10\]$' "output Plus214_Output_0"
# 12 nodes in the file; the last Add (the bias after MatMul) fuses into the MatMul at load,
# each Conv takes the Add of its per-channel constant as its bias, the Relu and the MaxPool
# after it.
expect_grep "$TMP/out" '^ops \(3 types, 5 nodes\):$' "3 op types, 5 nodes"
# name, count, then cpu (and gpu 0) support: every mnist-8 node runs everywhere.
for row in 'Conv +2' 'MatMul +1' 'Reshape +2'; do
    expect_grep "$TMP/out" "^  $row +yes( +yes)*\$" "op row $row"
done
expect_grep "$TMP/out" '^fused epilogues \(3 nodes; VKML_NO_FUSE=1 loads unfused\):$' "fused list"
expect_grep "$TMP/out" '^  MatMul\+Add +1$' "MatMul+Add fused"
expect_grep "$TMP/out" '^  Conv\+Add\+Relu\+MaxPool +2$' "Conv+Add+Relu+MaxPool fused"
VKML_NO_FUSE=1 "$VKML" inspect "$model" > "$TMP/out2" 2> "$TMP/err" || fail "inspect exited $?"
expect_grep "$TMP/out2" '^ops \(6 types, 12 nodes\):$' "VKML_NO_FUSE=1: 12 nodes"
grep -q '^fused epilogues' "$TMP/out2" && fail "VKML_NO_FUSE=1 still fused"
grep -q '^not supported:' "$TMP/out" && fail "mnist-8 nodes reported as not supported"

"$VKML" ops > "$TMP/ops" || fail "vkml ops exited $?"
expect_grep "$TMP/ops" '^Conv +ai\.onnx +[0-9]+-[0-9]+ +float[a-z0-9,]*( \(oneDNN: [^)]*\))? +(float|-)' "Conv in vkml ops"
expect_grep "$TMP/ops" '^[0-9]+ ops$' "op count line"
"$VKML" inspect --ops > "$TMP/ops2" || fail "vkml inspect --ops exited $?"
cmp -s "$TMP/ops" "$TMP/ops2" || fail "inspect --ops differs from ops"
# A model with an op vkml lacks is still inspected: the op is listed as unsupported with
# the reason, and the exit status is 0 (run refuses the same model).
# (STFT, which vkml does not implement.)
unsupported="$CORPUS/onnx-node/test_stft/model.onnx"
"$VKML" inspect "$unsupported" > "$TMP/stft" 2> "$TMP/err" || fail "inspect of test_stft exited $?"
expect_grep "$TMP/stft" '^  STFT +1 +no( +no)*$' "STFT row says no"
expect_grep "$TMP/stft" "^  node 0 STFT '' on cpu: operator STFT is not implemented by vkml$" "reason"
expect_error "run of a model with an unsupported op" 1 "$VKML" run "$unsupported"

# Constant nodes are values (folded before placement): 'value' on every device, and no
# "not supported" line for them.
"$VKML" inspect "$CORPUS/onnx-node/test_constant/model.onnx" > "$TMP/const" 2> "$TMP/err" ||
    fail "inspect of test_constant exited $?"
expect_grep "$TMP/const" '^  Constant +1 +value( +value)*$' "Constant row says value"
if grep -q "not supported" "$TMP/const"; then
    fail "a Constant node listed as not supported: $(cat "$TMP/const")"
fi

expect_error "inspect without a model" 2 "$VKML" inspect
expect_error "inspect of a missing file" 1 "$VKML" inspect "$TMP/none.onnx"

# --plan --data-parallel over lavapipe opened twice: the copies named, the first one's
# part shown; without --plan it is a usage error.
require_vulkan
VKML_VK_LOGICAL_DEVICES=2 "$VKML" inspect "$model" --plan --device 0,1 --data-parallel \
    > "$TMP/dp" 2> "$TMP/err" || fail "inspect --plan --data-parallel exited $?: $(cat "$TMP/err")"
expect_grep "$TMP/dp" '^plan \(devices 0,1; data parallel: a copy on each of devices 0, 1, the first shown\):$' \
    "the data-parallel copies"
expect_grep "$TMP/dp" '^  0 .* 4  Convolution28 \.\. Times212 ' "the first copy's part"
expect_error "--data-parallel without --plan" 2 "$VKML" inspect "$model" --data-parallel
finish
