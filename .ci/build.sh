#!/bin/sh
# Installs missing packages, then configures (once) and builds vkml into build/.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/.ci/deps.sh"
cd "$root"
[ -f build/build.ninja ] || meson setup build --buildtype=debugoptimized
meson compile -C build
