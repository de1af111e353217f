#!/bin/sh
# Bad arguments and missing files: non-zero exit (2 for usage, 1 for failures) and a first
# stderr line "vkml: error: ..."; --help prints usage on stdout and exits 0.
. "$(dirname "$0")/common.sh"

expect_error "no command" 2 "$VKML"
expect_error "unknown command" 2 "$VKML" frobnicate
expect_error "unknown option" 2 "$VKML" run --bogus model.onnx
expect_error "option without value" 2 "$VKML" run model.onnx --device
expect_error "run without model" 2 "$VKML" run
expect_error "bad --repeat" 2 "$VKML" run model.onnx --repeat 0
expect_error "conformance without DIR" 2 "$VKML" conformance
expect_error "missing model" 1 "$VKML" run "$TMP/missing.onnx" --device cpu
[ "$(wc -l < "$TMP/err")" = 1 ] || fail "a missing model gives more than one stderr line"
grep -q 'missing.onnx' "$TMP/err" || fail "the error does not name the file"
printf 'not a model at all' > "$TMP/garbage.onnx"
expect_error "garbage model" 1 "$VKML" run "$TMP/garbage.onnx" --device cpu
expect_error "missing tensor file" 1 "$VKML" show "$TMP/missing.pb"
expect_error "missing conformance dir" 1 "$VKML" conformance "$TMP/nothing-here"
mkdir "$TMP/empty"
expect_error "conformance dir without tests" 1 "$VKML" conformance "$TMP/empty"

for cmd in devices inspect ops run show conformance; do
    "$VKML" "$cmd" --help > "$TMP/out" 2>&1 || fail "$cmd --help exited $?"
    grep -q "^usage: vkml $cmd" "$TMP/out" || fail "$cmd --help prints no usage"
done
"$VKML" --help > "$TMP/out" || fail "--help exited $?"
grep -q '^  conformance ' "$TMP/out" || fail "--help does not list the commands"

# With the corpus: errors on a real model and test folder.
need_corpus
expect_error "unknown device" 1 "$VKML" conformance --device 99 "$CORPUS/onnx-node/test_add"
model="$CORPUS/models/mnist-8/model.onnx"
expect_error "unknown device" 1 "$VKML" run "$model" --device 99
expect_error "no such input name" 1 "$VKML" run "$model" --device cpu --input nope=x.pb
expect_error "too many inputs" 1 "$VKML" run "$model" --device cpu \
    --input "$CORPUS/models/mnist-8/test_data_set_0/input_0.pb" \
    --input "$CORPUS/models/mnist-8/test_data_set_1/input_0.pb"
expect_error "wrong input shape" 1 "$VKML" run "$model" --device cpu \
    --input "$CORPUS/models/mnist-8/test_data_set_0/output_0.pb"
finish
