#!/bin/sh
# Builds the libFuzzer targets (clang, ASan + UBSan) into build-fuzz/ and runs each for a
# bounded time on a fresh copy of the seed corpus. Exits non-zero when any target finds a
# crash, a leak, a sanitizer report, a timeout or an out-of-memory.
#   FUZZ_SECONDS  seconds per target (default 60)
#   FUZZ_JOBS     parallel fuzzing processes per target (default 1)
#   FUZZ_TARGETS  targets to run (default "fuzz_model fuzz_model_gpu fuzz_tensor";
#                 fuzz_model_gpu runs the models on Vulkan device 0, lavapipe in CI)
#   FUZZ_KEEP     a folder: findings (and slow inputs) and the grown corpora are copied there
#   VKML_CORPUS   the shared ONNX corpus (default ../shared/corpus beside the tree)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/.ci/deps.sh" # clang and its libFuzzer runtime among the rest
cd "$root"
seconds=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-1}
targets=${FUZZ_TARGETS:-"fuzz_model fuzz_model_gpu fuzz_tensor"}
corpus=${VKML_CORPUS:-$root/../shared/corpus}
build=build-fuzz

if [ ! -f "$build/build.ninja" ]; then
    CC=clang meson setup "$build" -Dfuzz=true -Dgst=disabled -Db_lundef=false \
        -Db_sanitize=address,undefined \
        -Dc_args='-fsanitize=fuzzer-no-link -fno-sanitize-recover=undefined' \
        -Dspirv_cache="${VKML_SPIRV_CACHE:-}"
fi
meson compile -C "$build" tests/fuzz/fuzz_model tests/fuzz/fuzz_model_gpu tests/fuzz/fuzz_tensor \
    onnx-test-models control-test-models \
    tools/vkml

work=$(mktemp -d "${TMPDIR:-/tmp}/vkml-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Seeds: the loader tests' models, mnist-8 and the ONNX node tests of the ops vkml has
# (read in place and copied into the temp folder, never into the tree).
mkdir -p "$work/seed_model" "$work/seed_tensor"
add_seed() { # add_seed FILE DIR: named by content, as libFuzzer names its corpus
    cp "$1" "$2/$(sha1sum <"$1" | cut -c1-40)"
}
# The loader tests' models, and the control-flow models (If, Loop, Scan, nested subgraphs,
# outer-scope reads, and the broken ones test_ops_control.c expects refused).
find "$build/tests/onnx/models" "$build/tests/ops/control_models" -name '*.onnx' | while read -r f; do
    add_seed "$f" "$work/seed_model"
done
if [ -d "$corpus/onnx-node" ]; then
    for op in $("$build/tools/vkml" ops | awk 'NR > 1 && NF > 3 { print tolower($1) }'); do
        for dir in "$corpus/onnx-node/test_$op" "$corpus/onnx-node/test_${op}_"*; do
            [ -f "$dir/model.onnx" ] || continue
            add_seed "$dir/model.onnx" "$work/seed_model"
            for pb in "$dir"/test_data_set_0/*.pb; do
                [ -f "$pb" ] && add_seed "$pb" "$work/seed_tensor"
            done
        done
    done
else
    echo "fuzz.sh: no corpus at $corpus: seeds from the tests only" >&2
fi
if [ -f "$corpus/models/mnist-8/model.onnx" ]; then
    add_seed "$corpus/models/mnist-8/model.onnx" "$work/seed_model"
    for pb in "$corpus"/models/mnist-8/test_data_set_*/*.pb; do
        add_seed "$pb" "$work/seed_tensor"
    done
fi
# The reproducers in tests/fuzz/regressions are not seeds: test_onnx_regressions runs them
# in every suite, and the pooling one takes ~20 s under the fuzzer's comparison tracing
# (0.04 s in a normal build), a third of a 60 s run.

status=0
# No single-allocation limit below the machine's memory: the CPU device refuses sessions
# larger than that itself (an error, tested); smaller ones are legitimate models.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Mesa lavapipe's own leak (fuzz_model_gpu): the suppressions the sanitizer suite uses.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tests/sanitizers/lsan.supp}
for target in $targets; do
    kind=${target#fuzz_}
    kind=${kind%_gpu} # fuzz_model_gpu takes the model seeds
    mkdir -p "$work/$target/corpus" "$work/$target/findings"
    seeds=$(ls "$work/seed_$kind" | wc -l)
    log="$work/$target/log"
    parallel=""
    [ "$jobs" -gt 1 ] && parallel="-jobs=$jobs -workers=$jobs"
    set +e
    # From the target's folder: with -jobs, libFuzzer writes fuzz-N.log into the cwd.
    (cd "$work/$target" && "$root/$build/tests/fuzz/$target" corpus "$work/seed_$kind" \
        -dict="$root/tests/fuzz/onnx.dict" -max_len=65536 -rss_limit_mb=4096 \
        -malloc_limit_mb=131072 -timeout=30 -max_total_time="$seconds" $parallel \
        -print_final_stats=1 -artifact_prefix="$work/$target/findings/") >"$log" 2>&1
    rc=$?
    set -e
    cat "$work/$target"/fuzz-*.log >>"$log" 2>/dev/null || true
    runs=$(awk '/stat::number_of_executed_units/ { s += $2 } END { print s + 0 }' "$log")
    # Findings: crashes, leaks, sanitizer reports (crash-*), timeouts, out-of-memory.
    # slow-unit-* files are inputs over 10 s: heavy but legitimate models under ASan+UBSan
    # on a busy machine; listed, not failed (a real hang is a timeout at 30 s).
    findings=$(ls "$work/$target/findings" | grep -cv '^slow-unit-' || true)
    slow=$(ls "$work/$target/findings" | grep -c '^slow-unit-' || true)
    echo "$target: $seeds seeds, $runs executions in ${seconds}s x $jobs, $findings findings," \
        "$slow slow inputs (exit $rc)"
    if [ "$rc" -ne 0 ] || [ "$findings" -ne 0 ]; then
        status=1
        grep -E -A30 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error' "$log" \
            | head -80
        ls -l "$work/$target/findings"
    fi
    if [ -n "${FUZZ_KEEP:-}" ]; then
        mkdir -p "$FUZZ_KEEP/$target"
        cp -r "$work/$target/findings" "$work/$target/corpus" "$log" "$FUZZ_KEEP/$target/"
    fi
done
exit $status
