#!/bin/sh
# Installs missing packages, then configures (once) and builds vkml into build/.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/.ci/deps.sh"
cd "$root"
# oneDNN is required here (deps.sh installs it): a build without it would test the C
# kernels alone and pass.
[ -f build/build.ninja ] || meson setup build --buildtype=debugoptimized -Donednn=enabled
meson compile -C build
