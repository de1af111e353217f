#!/bin/sh
# The ops vkml does not implement, per zoo case, then how many models need each (a
# model's variants of batch, opset and precision count once), from `vkml inspect`. A case
# whose ops all exist but that the CPU still refuses shows the first reason instead (a
# dtype, an attribute); what only a GPU refuses runs on the CPU and is not listed.
# Informational: prints, never fails.
# $1: vkml; $2: the zoo folder.
VKML=${1:?usage: $0 VKML ZOO_DIR}
zoo=${2:?usage: $0 VKML ZOO_DIR}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for m in "$zoo"/*/model.onnx; do
    case=$(basename "$(dirname "$m")")
    model=$(echo "$case" | sed 's/_b[0-9]*_op[0-9]*\(_fp16\)*$//')
    "$VKML" inspect "$m" > "$tmp.inspect" 2>&1
    ops=$(sed -n 's/.*vkml does not implement \([A-Za-z0-9_]*\) at opset.*/\1/p' "$tmp.inspect" |
        sort -u | tr '\n' ' ')
    if [ -n "$ops" ]; then
        echo "$case: $ops"
        for op in $ops; do echo "$op $model"; done >> "$tmp"
    else # refused on the CPU too (a dtype, an attribute): the first reason
        why=$(sed -n 's/^  node [0-9]* [^:]* on cpu: //p' "$tmp.inspect" | head -n 1)
        [ -z "$why" ] || echo "$case: (no missing op) $why"
    fi
done
rm -f "$tmp.inspect"
echo "missing ops (models needing each, of $(ls "$zoo"/*/model.onnx | sed 's,/model.onnx$,,; s,.*/,,; s/_b[0-9]*_op[0-9]*\(_fp16\)*$//' | sort -u | wc -l)):"
sort -u "$tmp" | awk '{ n[$1]++; m[$1] = m[$1] " " $2 } END { for (o in n) printf "  %-20s %2d %s\n", o, n[o], m[o] }' |
    sort -k2,2rn -k1,1
