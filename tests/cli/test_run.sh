#!/bin/sh
# `vkml run` on mnist-8 with each test set's input, on the CPU and on Vulkan device 0:
# the 10 printed values match output_0.pb (read by `vkml show`) and the argmax is the
# digit the reference gives (2, 0, 9). Also --repeat prints latencies, --profile-nodes
# lists as many nodes as asked, and a missing input is zero-filled with a note.
. "$(dirname "$0")/common.sh"
need_corpus
dir="$CORPUS/models/mnist-8"

# values_close GOT WANT: the "values:" lines agree within 1e-4 relative (+1e-3 absolute;
# the values are printed with 7 significant digits).
values_close() {
    awk 'FNR == NR && /^  values:/ { for (i = 2; i <= 11; i++) g[i] = $i; next }
         /^  values:/ { for (i = 2; i <= 11; i++) { d = g[i] - $i; if (d < 0) d = -d;
                        w = $i < 0 ? -$i : $i; if (g[i] == "" || d > 1e-3 + 1e-4 * w) bad++ }
                        seen = 1 }
         END { exit (seen && !bad) ? 0 : 1 }' "$1" "$2"
}

check_device() {
    dev=$1
    set -- 2 0 9
    for n in 0 1 2; do
        want=$1
        shift
        set_dir="$dir/test_data_set_$n"
        if ! "$VKML" run "$dir/model.onnx" --device "$dev" --input "Input3=$set_dir/input_0.pb" \
            > "$TMP/run" 2> "$TMP/err"; then
            fail "run on $dev set $n exited $?: $(cat "$TMP/err")"
            continue
        fi
        cat "$TMP/run"
        "$VKML" show "$set_dir/output_0.pb" > "$TMP/show" || fail "show output_0.pb failed"
        expect_grep "$TMP/run" '^Plus214_Output_0: float \[1,10\]$' "output line ($dev, set $n)"
        expect_grep "$TMP/run" "^  argmax: $want " "argmax $want ($dev, set $n)"
        expect_grep "$TMP/show" "^  argmax: $want " "reference argmax $want (set $n)"
        values_close "$TMP/run" "$TMP/show" || fail "values differ ($dev, set $n)"
    done
}

check_device cpu

# Positional input, --repeat: median and p99 latency lines.
"$VKML" run "$dir/model.onnx" --device cpu --input "$dir/test_data_set_0/input_0.pb" \
    --repeat 5 > "$TMP/rep" 2> "$TMP/err" || fail "run --repeat exited $?: $(cat "$TMP/err")"
expect_grep "$TMP/rep" '^latency: median [0-9.]+ ms, p99 [0-9.]+ ms over 5 runs$' "latency line"
expect_grep "$TMP/rep" '^  argmax: 2 ' "argmax with a positional input"

# --profile-nodes on an expanded attention (21 nodes): every node with 0 (as many lines as
# the profile's node count, past the default 15), the default 15 with --profile, one with
# 1; a negative count is a usage error.
attn="$CORPUS/onnx-node/test_attention_3d_expanded/model.onnx"
listed() {
    "$VKML" run "$attn" --device cpu "$@" > "$TMP/prof" 2> "$TMP/err" ||
        fail "run $* exited $?: $(cat "$TMP/err")"
    sed -n '/^  slowest nodes:$/,/^[^ ]/p' "$TMP/prof" | grep -c ' cpu '
}
all=$(listed --profile-nodes 0)
nodes=$(sed -n 's/^profile: .* over \([0-9]*\) nodes .*/\1/p' "$TMP/prof")
[ -n "$nodes" ] && [ "$nodes" -gt 15 ] && [ "$all" = "$nodes" ] ||
    fail "--profile-nodes 0 listed $all of '$nodes' nodes"
n=$(listed --profile)
[ "$n" = 15 ] || fail "--profile listed $n nodes, expected 15"
n=$(listed --profile-nodes 1)
[ "$n" = 1 ] || fail "--profile-nodes 1 listed $n nodes"
expect_error "--profile-nodes -1" 2 "$VKML" run "$attn" --profile-nodes -1

# No input: zeros, said on stderr.
"$VKML" run "$dir/model.onnx" --device cpu > "$TMP/zero" 2> "$TMP/err" ||
    fail "run without input exited $?: $(cat "$TMP/err")"
expect_grep "$TMP/err" "^vkml: note: input 'Input3' not given: filled with zeros" "zero-fill note"

require_vulkan
check_device 0

# --wait-spin: no polling (0) and a long poll give the reference answer; out of range is a
# usage error.
for us in 0 500; do
    "$VKML" run "$dir/model.onnx" --device 0 --wait-spin "$us" \
        --input "$dir/test_data_set_0/input_0.pb" > "$TMP/spin" 2> "$TMP/err" ||
        fail "run --wait-spin $us exited $?: $(cat "$TMP/err")"
    expect_grep "$TMP/spin" '^  argmax: 2 ' "argmax with --wait-spin $us"
done
expect_error "--wait-spin -1" 2 "$VKML" run "$dir/model.onnx" --wait-spin -1
expect_error "--wait-spin 2000000" 2 "$VKML" run "$dir/model.onnx" --wait-spin 2000000

# --data-parallel over lavapipe opened twice: a copy on each device, --in-flight 3 streamed
# as 4, the reference answer.
VKML_VK_LOGICAL_DEVICES=2 "$VKML" run "$dir/model.onnx" --device 0,1 --data-parallel \
    --repeat 8 --in-flight 3 --input "$dir/test_data_set_0/input_0.pb" > "$TMP/dp" 2> "$TMP/err" ||
    fail "run --data-parallel exited $?: $(cat "$TMP/err")"
expect_grep "$TMP/dp" '^data parallel: a copy of the model on each of devices 0, 1 ' \
    "the data-parallel copies"
expect_grep "$TMP/dp" '^throughput: .* with 4 in flight' "in flight rounded to the GPUs"
expect_grep "$TMP/dp" '^  argmax: 2 ' "argmax with --data-parallel"
finish
