#!/bin/sh
# A detector of the zoo run twice in one session on the CPU device (the dynamic tail after
# oneDNN's planned nodes): the second run must not crash and must give the first run's
# outputs. It crashed when oneDNN primitives used its per-thread library scratchpad: one
# made on the main thread and run on the session's worker wrote past the scratchpad the
# tail's host kernels had sized there in the first run. The zoo is made by test_zoo.sh;
# without the case this skips.
# $1: vkml; $2: the zoo folder.
. "$VKML_SOURCE_ROOT/tests/cli/common.sh"
zoo=${2:?usage: $0 VKML ZOO_DIR}
case_dir=$zoo/ssdlite320_mobilenet_v3_large_b1_op13
[ -f "$case_dir/model.onnx" ] || { echo "SKIP: no $case_dir (the zoo-cpu test makes it)"; exit 77; }

run() {
    "$VKML" run "$case_dir/model.onnx" --device cpu --values 20 \
        --input "$case_dir/test_data_set_0/input_0.pb" "$@" 2>&1 | grep -E 'values:|argmax:'
}
once=$(run) || fail "one run failed"
twice=$(run --repeat 2) || fail "runs after the first failed (crash?)"
[ -n "$once" ] || fail "no outputs printed"
[ "$once" = "$twice" ] || fail "the last run's outputs differ from the first's:
$once
---
$twice"
finish
