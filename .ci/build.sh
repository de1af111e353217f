#!/bin/sh
# Installs missing packages, then configures (once) and builds vkml into build/.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/.ci/deps.sh"
cd "$root"
# oneDNN and MQTT are required here (deps.sh installs them): a build without them would
# test the C kernels alone, or vkmlpublish without MQTT, and pass.
[ -f build/build.ninja ] || meson setup build --buildtype=debugoptimized -Donednn=enabled \
    -Dmqtt=enabled
meson compile -C build
