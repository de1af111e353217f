#!/bin/sh
# Builds vkml (installing missing packages first) and runs every test. Exit status is
# non-zero when any test fails. Extra arguments go to `meson test` (e.g. --suite ops).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/.ci/build.sh"
cd "$root"
meson test -C build --print-errorlogs --num-processes 2 "$@"
