#!/bin/sh
# vkml run/inspect/conformance --precision: mnist-8 at fp16-always on the CPU device and on
# Vulkan device 0 against fp32 (max |fp16 - fp32| <= 1e-2 x max |fp32|, from the raw
# outputs `--save` writes, read back with od), fp32-fast equal to fp32; fp16 (float16 where
# it ran no slower) names the precision it chose and gives exactly that precision's
# output; the plan naming its precision, and a bad precision refused by name.
. "$VKML_SOURCE_ROOT/tests/cli/common.sh"
need_corpus
require_vulkan
model=$CORPUS/models/mnist-8/model.onnx
input=$CORPUS/models/mnist-8/test_data_set_0/input_0.pb

# max_rel A.bin B.bin: max |a - b| / max |b| over two float32 files.
max_rel() {
    od -An -v -f -w4 "$1" | tr -d ' ' > "$TMP/a.txt"
    od -An -v -f -w4 "$2" | tr -d ' ' > "$TMP/b.txt"
    paste -d ' ' "$TMP/a.txt" "$TMP/b.txt" | awk '
        { d = $1 - $2; if (d < 0) d = -d; m = $2; if (m < 0) m = -m
          if (d > e) e = d; if (m > s) s = m; n++ }
        END { if (n != 10 || s == 0) print "bad"; else printf "%.3g\n", e / s }'
}

for dev in cpu 0; do
    for p in fp32 fp32-fast fp16-always fp16; do
        mkdir -p "$TMP/$dev-$p"
        "$VKML" run "$model" --input "$input" --device "$dev" --precision "$p" \
            --save "$TMP/$dev-$p" > "$TMP/out" 2> "$TMP/err" ||
            fail "run --device $dev --precision $p: $(tail -n 1 "$TMP/err")"
        [ "$(wc -c < "$TMP/$dev-$p/output_0.bin")" = 40 ] ||
            fail "--save on $dev at $p: output_0.bin is not 10 floats"
        cp "$TMP/out" "$TMP/$dev-$p/stdout"
    done
    cmp -s "$TMP/$dev-fp32/output_0.bin" "$TMP/$dev-fp32-fast/output_0.bin" ||
        fail "device $dev: fp32-fast differs from fp32 (they run the same kernels today)"
    rel=$(max_rel "$TMP/$dev-fp16-always/output_0.bin" "$TMP/$dev-fp32/output_0.bin")
    echo "mnist-8 on $dev: fp16-always vs fp32 max error $rel of max |fp32|"
    awk -v r="$rel" 'BEGIN { exit !(r != "bad" && r + 0 <= 1e-2 && r + 0 > 0) }' ||
        fail "device $dev: fp16 error $rel (want 0 < error <= 1e-2: fp16 really ran, within bound)"
    expect_grep "$TMP/$dev-fp16-always/stdout" '^precision: fp16-always$' \
        "run --precision fp16-always on $dev says it"
    chosen=$(sed -n 's/^precision: //p' "$TMP/$dev-fp16/stdout")
    case $chosen in
        fp16) same=fp16-always ;;
        fp32) same=fp32 ;;
        *) fail "run --precision fp16 on $dev: printed precision '$chosen'" ;;
    esac
    echo "mnist-8 on $dev: --precision fp16 chose $chosen"
    cmp -s "$TMP/$dev-fp16/output_0.bin" "$TMP/$dev-$same/output_0.bin" ||
        fail "device $dev: fp16 chose $chosen but its output differs from $same's"
done

"$VKML" inspect "$model" --plan --precision fp16 --device cpu > "$TMP/plan" 2>&1 ||
    fail "inspect --plan --precision fp16"
expect_grep "$TMP/plan" 'precision fp16' "inspect --plan names the precision"
"$VKML" inspect "$model" --plan --precision fp16-always --device cpu > "$TMP/plan" 2>&1 ||
    fail "inspect --plan --precision fp16-always"
expect_grep "$TMP/plan" 'precision fp16-always)' "inspect --plan: fp16-always runs at fp16-always"
expect_error "run --precision fp8" 1 "$VKML" run "$model" --precision fp8
expect_grep "$TMP/err" 'fp8: expected fp32, fp32-fast, fp16 or fp16-always' "the bad precision is named"
expect_error "inspect --precision without --plan" 2 "$VKML" inspect "$model" --precision fp16
finish
