#!/bin/sh
# `vkml conformance` on a few node tests whose outcome is known (ops vkml has -> PASS;
# an op, a dtype or a sequence it lacks -> UNSUPPORTED), then on hand-made folders that
# must give FAIL (wrong expected output) and ERROR (no data set; garbage model), the
# totals line, the exit status and the JSON report. $2: the device (cpu or 0).
. "$(dirname "$0")/common.sh"
need_corpus
dev=${2:?usage: $0 VKML DEVICE}
node="$CORPUS/onnx-node"
[ "$dev" = cpu ] || require_vulkan

pass="test_add test_conv_with_strides_padding test_matmul_2d test_maxpool_2d_default
      test_relu test_softmax_axis_1"
unsupported="test_abs test_acos test_add_uint8 test_sequence_insert_at_front"
dirs=
for t in $pass $unsupported; do dirs="$dirs $node/$t"; done

# shellcheck disable=SC2086 # the list is meant to split
"$VKML" conformance --device "$dev" --json "$TMP/report.json" $dirs > "$TMP/out" 2> "$TMP/err"
rc=$?
cat "$TMP/out"
[ "$rc" = 0 ] || fail "exit $rc with no FAIL or ERROR expected: $(cat "$TMP/err")"
for t in $pass; do expect_grep "$TMP/out" "^PASS $t\$" "$t passes"; done
for t in $unsupported; do expect_grep "$TMP/out" "^UNSUPPORTED $t .+" "$t is unsupported"; done
expect_grep "$TMP/out" 'UNSUPPORTED test_abs .*Abs' "the reason names the op"
expect_grep "$TMP/out" 'UNSUPPORTED test_add_uint8 .*uint8' "the reason names the dtype"
tail -n 1 "$TMP/out" | grep -qx 'conformance: 6 pass, 0 fail, 4 unsupported, 0 error, 10 total' ||
    fail "totals line: $(tail -n 1 "$TMP/out")"
# Sorted by name.
grep -E '^[A-Z]+ test_' "$TMP/out" | awk '{ print $2 }' > "$TMP/names"
sort -c "$TMP/names" 2> /dev/null || fail "tests are not sorted by name"
expect_grep "$TMP/report.json" '"totals": \{"pass": 6, "fail": 0, "unsupported": 4, "error": 0, "total": 10\}' "JSON totals"
expect_grep "$TMP/report.json" '\{"test": "test_relu", "status": "PASS", "reason": "", "device": "'"$dev"'", "ms": [0-9.]+\}' "JSON entry"

# Hand-made folders: links into the corpus, never copies.
add="$node/test_add"
mkdir -p "$TMP/made/wrong/test_data_set_0" "$TMP/made/nodata" "$TMP/made/garbage/test_data_set_0"
ln -s "$add/model.onnx" "$TMP/made/wrong/model.onnx"
ln -s "$add/test_data_set_0/input_0.pb" "$TMP/made/wrong/test_data_set_0/input_0.pb"
ln -s "$add/test_data_set_0/input_1.pb" "$TMP/made/wrong/test_data_set_0/input_1.pb"
ln -s "$add/test_data_set_0/input_0.pb" "$TMP/made/wrong/test_data_set_0/output_0.pb"
ln -s "$add/model.onnx" "$TMP/made/nodata/model.onnx"
printf 'garbage' > "$TMP/made/garbage/model.onnx"
"$VKML" conformance --device "$dev" "$TMP/made" "$add" > "$TMP/out" 2> "$TMP/err"
rc=$?
cat "$TMP/out"
[ "$rc" = 1 ] || fail "exit $rc with a FAIL and ERRORs, expected 1"
expect_grep "$TMP/out" "^FAIL wrong test_data_set_0: output '[^']+' \[[0-9]+\]: got [-0-9.e]+, expected [-0-9.e]+" "FAIL with first mismatch"
expect_grep "$TMP/out" '^ERROR nodata .*test_data_set_0' "ERROR for a test without data"
expect_grep "$TMP/out" '^ERROR garbage .+' "ERROR for a garbage model"
expect_grep "$TMP/out" '^PASS test_add$' "a test folder given directly"
tail -n 1 "$TMP/out" | grep -qx 'conformance: 1 pass, 1 fail, 0 unsupported, 2 error, 4 total' ||
    fail "totals line: $(tail -n 1 "$TMP/out")"
# --filter and a single test in this process.
"$VKML" conformance --device "$dev" --filter relu --no-isolate "$node" > "$TMP/out" ||
    fail "--filter relu exited $?"
expect_grep "$TMP/out" '^PASS test_relu$' "--filter relu"
grep -q 'test_add' "$TMP/out" && fail "--filter relu ran test_add"
# Isolation: a test that crashes its worker or hangs becomes ERROR, the others still run
# (the test hooks in tools/conf_isolate.c make the worker crash or hang on purpose).
VKML_CLI_TEST_CRASH=test_relu VKML_CLI_TEST_HANG=test_add "$VKML" conformance \
    --device "$dev" --timeout 2 "$node/test_add" "$node/test_relu" "$node/test_matmul_2d" \
    "$node/test_abs" > "$TMP/out" 2> "$TMP/err"
rc=$?
cat "$TMP/out"
[ "$rc" = 1 ] || fail "exit $rc after a crash and a hang, expected 1"
expect_grep "$TMP/out" '^ERROR test_relu crashed \(signal 11' "a crash is ERROR"
expect_grep "$TMP/out" '^ERROR test_add timed out after 2 s$' "a hang is ERROR"
expect_grep "$TMP/out" '^PASS test_matmul_2d$' "the tests after a crash still run"
tail -n 1 "$TMP/out" | grep -qx 'conformance: 1 pass, 0 fail, 1 unsupported, 2 error, 4 total' ||
    fail "totals line: $(tail -n 1 "$TMP/out")"
finish
