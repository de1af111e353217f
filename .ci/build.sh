#!/bin/sh
# Installs missing packages, then configures (once) and builds vkml into build/.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/.ci/deps.sh"
cd "$root"
# oneDNN and MQTT are required here (deps.sh installs them): a build without them would
# test the C kernels alone, or vkmlpublish without MQTT, and pass.
# The workgroup-scope cooperative-matrix kernels need Debian 13's glslang (fetched, not
# installed); without it (no network) the build keeps the other kernels.
glslang_next=$("$root/.ci/glslang-next.sh") || glslang_next=""
[ -f build/build.ninja ] || meson setup build --buildtype=debugoptimized -Donednn=enabled \
    -Dmqtt=enabled -Dglslang_next="$glslang_next" -Dspirv_cache="${VKML_SPIRV_CACHE:-}"
meson compile -C build
