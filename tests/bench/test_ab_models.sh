#!/bin/sh
# The A/B harness cannot rot: ab_models.py --small on the small 4 x Linear stack over Vulkan
# device 0, two variants of this build (the second with the choice by measurement off and
# views off), one round: a line each with a GPU time, a median and an error within the
# fp32 bound; the same at fp16 within its bound; and a variant written wrongly is refused
# by name.
. "$VKML_SOURCE_ROOT/tests/cli/common.sh"
require_vulkan
py=$(sh "$VKML_SOURCE_ROOT/tests/bench/find_python.sh")
rc=$?
[ "$rc" = 77 ] && missing "a Python with torch, onnx and numpy"
[ "$rc" = 0 ] || { fail "no Python with torch, onnx and numpy"; finish; }
ab="$VKML_SOURCE_ROOT/tests/bench/ab_models.py"
vkml="$VKML_BUILD_ROOT/tools/vkml"
"$py" "$ab" --cache "$VKML_BUILD_ROOT/bench-cache" --small --precision fp32 --rounds 1 \
    --repeat 3 mlp_4x4096_b256 -- a="$vkml" b="$vkml,VKML_GEMM_TUNE=0,VKML_NO_VIEWS=1" \
    > "$TMP/log" 2>&1
rc=$?
cat "$TMP/log"
[ "$rc" = 0 ] || fail "ab_models.py exited $rc"
for v in a b; do
    grep -Eq "^0 +mlp_4x4096_b256 +$v +[0-9.]+ +[0-9.]+ +[0-9.]+e[-+][0-9]+\$" "$TMP/log" ||
        fail "no line of variant $v with a GPU time, a median and an error"
done
# fp16: judged within the larger of the fixed bound and 1.5x PyTorch's own float16 error
"$py" "$ab" --cache "$VKML_BUILD_ROOT/bench-cache" --small --precision fp16 --rounds 1 \
    --repeat 3 mlp_4x4096_b256 -- a="$vkml" > "$TMP/fp16" 2>&1
rc=$?
cat "$TMP/fp16"
[ "$rc" = 0 ] || fail "ab_models.py --precision fp16 exited $rc"
grep -Eq "^0 +mlp_4x4096_b256 +a +[0-9.]+ +[0-9.]+ +[0-9.]+e[-+][0-9]+\$" "$TMP/fp16" ||
    fail "no fp16 line with a GPU time, a median and an error within its bound"
"$py" "$ab" --cache "$VKML_BUILD_ROOT/bench-cache" --small mlp_4x4096_b256 -- \
    "b=$vkml,VKML_GEMM_TUNE" > "$TMP/bad" 2>&1 && fail "a variant without VAR=VALUE ran"
grep -q "variant 'b=.*VKML_GEMM_TUNE': NAME=VKML" "$TMP/bad" ||
    fail "the wrong variant is not named: $(cat "$TMP/bad")"
finish
