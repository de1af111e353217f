#!/bin/sh
# `vkml inspect` on mnist-8: opset, input/output with shapes, the 6 op types with counts,
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
expect_grep "$TMP/out" '^ops \(6 types, 12 nodes\):$' "6 op types, 12 nodes"
# name, count, then cpu (and gpu 0) support: every mnist-8 node runs everywhere.
for row in 'Add +3' 'Conv +2' 'MatMul +1' 'MaxPool +2' 'Relu +2' 'Reshape +2'; do
    expect_grep "$TMP/out" "^  $row +yes( +yes)*\$" "op row $row"
done
grep -q '^not supported:' "$TMP/out" && fail "mnist-8 nodes reported as not supported"

"$VKML" ops > "$TMP/ops" || fail "vkml ops exited $?"
expect_grep "$TMP/ops" '^Conv +ai\.onnx +[0-9]+-[0-9]+ +float[a-z0-9,]* +(float|-)' "Conv in vkml ops"
expect_grep "$TMP/ops" '^[0-9]+ ops$' "op count line"
"$VKML" inspect --ops > "$TMP/ops2" || fail "vkml inspect --ops exited $?"
cmp -s "$TMP/ops" "$TMP/ops2" || fail "inspect --ops differs from ops"
# A model with an op vkml lacks is still inspected: the op is listed as unsupported with
# the reason, and the exit status is 0 (run refuses the same model).
# (RegexFullMatch: vkml has no regular expressions of RE2's semantics.)
unsupported="$CORPUS/onnx-node/test_regex_full_match_basic/model.onnx"
"$VKML" inspect "$unsupported" > "$TMP/regex" 2> "$TMP/err" || fail "inspect of test_regex_full_match exited $?"
expect_grep "$TMP/regex" '^  RegexFullMatch +1 +no( +no)*$' "RegexFullMatch row says no"
expect_grep "$TMP/regex" "^  node 0 RegexFullMatch '' on cpu: vkml does not implement RegexFullMatch at opset" "reason"
expect_error "run of a model with an unsupported op" 1 "$VKML" run "$unsupported"

expect_error "inspect without a model" 2 "$VKML" inspect
expect_error "inspect of a missing file" 1 "$VKML" inspect "$TMP/none.onnx"
finish
