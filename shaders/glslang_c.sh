#!/bin/sh
# Compiles one kernel with the glslang_next compiler (meson option; .ci/glslang-next.sh
# fetches one) to SPIR-V 1.6 for Vulkan 1.3, written as glslc -mfmt=c writes it (a braced
# list of words), with a depfile naming OUT.
#   glslang_c.sh GLSLANG OUT DEPFILE [glslang arguments: defines, includes, the source]
set -eu
glslang=$1
out=$2
dep=$3
shift 3
"$glslang" -V --target-env vulkan1.3 -x --depfile "$dep.tmp" -o "$out.tmp" "$@" >/dev/null
{
  echo '{'
  grep -v '^[[:space:]]*//' "$out.tmp"
  echo '}'
} >"$out"
sed "s|^[^:]*:|$out:|" "$dep.tmp" >"$dep"
rm -f "$out.tmp" "$dep.tmp"
