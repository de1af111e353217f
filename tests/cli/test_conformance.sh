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

# conformance WANT_RC TOTALS ARGS...: runs `vkml conformance --device $dev ARGS` into
# $TMP/out and checks its exit status and its last line (P pass, F fail, U unsupported,
# E error).
conformance() {
    want_rc=$1 totals=$2
    shift 2
    "$VKML" conformance --device "$dev" "$@" > "$TMP/out" 2> "$TMP/err"
    rc=$?
    cat "$TMP/out"
    [ "$rc" = "$want_rc" ] || fail "exit $rc, expected $want_rc: $(tail -n 3 "$TMP/err")"
    # shellcheck disable=SC2086 # four numbers, split on purpose
    set -- $totals
    line="conformance: $1 pass, $2 fail, $3 unsupported, $4 error, $(($1 + $2 + $3 + $4)) total"
    tail -n 1 "$TMP/out" | grep -qx "$line" || fail "totals line: $(tail -n 1 "$TMP/out")"
}

# Tests of ops that are in the op table pass. The others are UNSUPPORTED, with a reason
# that names the op or the dtype: which ones depends on `vkml ops` (the table grows).
"$VKML" ops > "$TMP/ops" || fail "vkml ops exited $?"
# has_op OP DTYPE: the table lists OP with DTYPE (or "all").
has_op() {
    awk -v op="$1" -v dt="$2" '$1 == op { n = split($4, t, ","); for (i = 1; i <= n; i++)
        if (t[i] == dt || t[i] == "all") found = 1 } END { exit !found }' "$TMP/ops"
}
pass="test_add test_conv_with_strides_padding test_matmul_2d test_maxpool_2d_default
      test_relu test_softmax_axis_1"
unsupported=
# test:op:dtype:word the reason names
for entry in test_abs:Abs:float:Abs test_acos:Acos:float:Acos test_add_uint8:Add:uint8:uint8 \
             test_sequence_insert_at_front:SequenceInsert:float:SequenceInsert; do
    IFS=: read -r t op dt word <<EOF_ENTRY
$entry
EOF_ENTRY
    if has_op "$op" "$dt"; then pass="$pass $t"; else unsupported="$unsupported $t:$word"; fi
done
dirs=
for t in $pass; do dirs="$dirs $node/$t"; done
for e in $unsupported; do dirs="$dirs $node/${e%%:*}"; done
n_pass=$(echo "$pass" | wc -w)
n_unsupported=$(echo "$unsupported" | wc -w)

# shellcheck disable=SC2086 # the list is meant to split
conformance 0 "$n_pass 0 $n_unsupported 0" --json "$TMP/report.json" $dirs
# A GPU pass may name the nodes that fell back to the CPU: "(1 node on the CPU)".
for t in $pass; do expect_grep "$TMP/out" "^PASS $t( \\([0-9]+ nodes? on the CPU\\))?\$" "$t passes"; done
for e in $unsupported; do
    expect_grep "$TMP/out" "^UNSUPPORTED ${e%%:*} .*${e#*:}" "${e%%:*} is unsupported, naming ${e#*:}"
done
# Sorted by name.
grep -E '^[A-Z]+ test_' "$TMP/out" | awk '{ print $2 }' > "$TMP/names"
sort -c "$TMP/names" 2> /dev/null || fail "tests are not sorted by name"
expect_grep "$TMP/report.json" '"totals": \{"pass": '"$n_pass"', "fail": 0, "unsupported": '"$n_unsupported"', "error": 0, "total": [0-9]+\}' "JSON totals"
expect_grep "$TMP/report.json" '\{"test": "test_relu", "status": "PASS", "reason": "", "device": "'"$dev"'", "cpu_nodes": [-0-9]+, "ms": [0-9.]+\}' "JSON entry"

# Hand-made folders: links into the corpus, never copies.
add="$node/test_add"
mkdir -p "$TMP/made/wrong/test_data_set_0" "$TMP/made/nodata" "$TMP/made/garbage/test_data_set_0"
ln -s "$add/model.onnx" "$TMP/made/wrong/model.onnx"
ln -s "$add/test_data_set_0/input_0.pb" "$TMP/made/wrong/test_data_set_0/input_0.pb"
ln -s "$add/test_data_set_0/input_1.pb" "$TMP/made/wrong/test_data_set_0/input_1.pb"
ln -s "$add/test_data_set_0/input_0.pb" "$TMP/made/wrong/test_data_set_0/output_0.pb"
ln -s "$add/model.onnx" "$TMP/made/nodata/model.onnx"
printf 'garbage' > "$TMP/made/garbage/model.onnx"
conformance 1 "1 1 0 2" "$TMP/made" "$add"
expect_grep "$TMP/out" "^FAIL wrong test_data_set_0: output '[^']+' \[[0-9]+\]: got [-0-9.e]+, expected [-0-9.e]+" "FAIL with first mismatch"
expect_grep "$TMP/out" '^ERROR nodata .*test_data_set_0' "ERROR for a test without data"
expect_grep "$TMP/out" '^ERROR garbage .+' "ERROR for a garbage model"
expect_grep "$TMP/out" '^PASS test_add$' "a test folder given directly"
# --filter and a single test in this process.
conformance 0 "2 0 0 0" --filter test_conv_with_strides_padding --filter test_matmul_2d \
    --no-isolate "$node"
expect_grep "$TMP/out" "^PASS test_conv_with_strides_padding$" "--filter test_conv_with_strides_padding"
expect_grep "$TMP/out" '^PASS test_matmul_2d$' "--filter test_matmul_2d"
grep -q 'test_add' "$TMP/out" && fail "--filter ran test_add"
# Isolation: a test that crashes its worker or hangs becomes ERROR, the others still run
# (the test hooks in tools/conf_isolate.c make the worker crash or hang on purpose).
export VKML_CLI_TEST_CRASH=test_relu VKML_CLI_TEST_HANG=test_add
conformance 1 "1 0 1 2" --timeout 2 "$node/test_add" "$node/test_relu" \
    "$node/test_matmul_2d" "$node/test_sequence_insert_at_front"
expect_grep "$TMP/out" '^ERROR test_relu crashed \(signal 11' "a crash is ERROR"
expect_grep "$TMP/out" '^ERROR test_add timed out after 2 s$' "a hang is ERROR"
expect_grep "$TMP/out" '^PASS test_matmul_2d$' "the tests after a crash still run"
finish
