#!/bin/sh
# The soak test: 100,000 runs of an mnist-8 session on the default device and a
# 100,000-frame pipeline (videotestsrc ! 64x64 RGB ! vkmlinfer colour model ! fakesink);
# fails when RSS at the end is more than 1% above RSS after the warm-up (1,000 runs or
# frames) or when a Vulkan object is left after teardown. Not part of `meson test` (the
# suite 'soak' runs the same checks on 2,000).
#
#   tests/soak/run.sh [session|pipeline|both]
#
# Builds with .ci/build.sh into build/ unless VKML_BUILD_DIR=DIR names a built folder.
# SOAK_RUNS=N and SOAK_WARMUP=N change the counts; VKML_CORPUS the corpus folder.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ -n "${VKML_BUILD_DIR:-}" ]; then
  build=$(cd "$VKML_BUILD_DIR" && pwd)
  meson compile -C "$build"
else
  "$root/.ci/build.sh"
  build="$root/build"
fi
export VKML_CORPUS="${VKML_CORPUS:-$root/../shared/corpus}"
export VKML_BUILD_ROOT="$build"
export SOAK_RUNS="${SOAK_RUNS:-100000}"
exec "$build/tests/soak/soak" "${1:-both}"
