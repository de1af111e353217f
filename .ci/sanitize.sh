#!/bin/sh
# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer (leak checking on),
# then the concurrency tests under ThreadSanitizer. Builds into build-asan/ and build-tsan/.
# Exit status is non-zero when a test fails or a sanitizer reports anything.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/.ci/deps.sh"
cd "$root"
supp="$root/tests/sanitizers"

# Mesa's lavapipe leaks 128 bytes per Vulkan instance (tests/sanitizers/lsan.supp says
# how we know). The loader unloads the driver before LeakSanitizer reports, leaving frames
# with no module name to suppress by, so the driver is preloaded to stay mapped. Only it is
# preloaded: uninstrumented helpers the tests run (sort, python3) stay uninstrumented.
lavapipe=$(ls /usr/lib/*/libvulkan_lvp.so 2>/dev/null | head -n 1 || true)

# The model zoo (suite zoo: real architectures, a minute of export and minutes of lavapipe)
# runs in the plain suite; under the sanitizers the ops and model tests cover its code.
# Debug builds with ASan run the op tests 5-10x slower than the plain suite: timeouts x3.
[ -f build-asan/build.ninja ] ||
  meson setup build-asan -Dbuildtype=debug -Db_sanitize=address,undefined -Donednn=enabled \
    -Dspirv_cache="${VKML_SPIRV_CACHE:-}"
meson compile -C build-asan
LD_PRELOAD="$lavapipe" \
ASAN_OPTIONS="detect_leaks=1:verify_asan_link_order=0:abort_on_error=0" \
LSAN_OPTIONS="suppressions=$supp/lsan.supp" \
UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
  meson test -C build-asan --no-rebuild --print-errorlogs --num-processes 2 \
    --timeout-multiplier 3 --no-suite host-tools --no-suite zoo

# ThreadSanitizer: the scheduler, sessions on several threads and devices, whole models;
# without oneDNN, whose OpenMP runtime (libgomp) is not instrumented: TSan cannot see its
# barriers and would report the library's own team as racing (ASan above covers it).
# TSan slows lavapipe's threads 5-10x too: test_dag, 15 s plain, takes 70-100 s here on two
# cores with a cold shader cache, beside another test: timeouts x3.
[ -f build-tsan/build.ninja ] ||
  meson setup build-tsan -Dbuildtype=debug -Db_sanitize=thread -Dgst=disabled -Donednn=disabled \
    -Dspirv_cache="${VKML_SPIRV_CACHE:-}"
meson compile -C build-tsan
TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1" \
  meson test -C build-tsan --no-rebuild --print-errorlogs --num-processes 2 \
    --timeout-multiplier 3 \
    sched session async batcher dag streams vulkan_threads mnist ops_conv ops_pool ops_matmul \
    ops_control
