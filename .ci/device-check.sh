#!/bin/sh
# On the GPU machine (../shared/device/README.md): every C test of a build folder made
# here, the conformance suites on the CPU and every Vulkan device, mnist-8 latency next to
# ONNX Runtime's, and the demo model in a gst-launch-1.0 pipeline on the GPU.
#   . .device/prelude.sh; .ci/device-check.sh BUILD CORPUS OUT
# Writes OUT/summary.txt (printed last) and OUT/logs.tar.gz; exit 1 when a test fails.
set -u
build=$(cd "$1" && pwd) corpus=$(cd "$2" && pwd) out=$3
mkdir -p "$out/logs"
export CI=true VKML_CORPUS="$corpus" VKML_SOURCE_ROOT="$PWD" VKML_BUILD_ROOT="$build"
export GST_PLUGIN_PATH="$build/gst"
vkml="$build/tools/vkml"
summary="$out/summary.txt"
failures=0
: > "$summary"
say() { echo "$*" | tee -a "$summary"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

"$vkml" devices > "$out/logs/devices.txt" 2>&1
cat "$out/logs/devices.txt" >> "$summary"
n_gpus=$("$vkml" devices | grep -cE '^[* ] +[0-9]+ ')

say "== C tests"
# The loader tests (test_onnx_*) touch no device and want meson's arguments and the
# whole corpus: they run in CI, not here.
for t in $(find "$build/tests" -maxdepth 2 -type f -executable -name 'test_*' ! -name 'test_onnx_*' | sort); do
    name=$(basename "$t")
    start=$(now)
    if (cd "$(dirname "$t")" && "$t") > "$out/logs/$name.log" 2>&1; then rc=PASS; else
        rc=FAIL; failures=$((failures + 1)); fi
    say "$rc $name ($(since "$start") s)"
done

say "== conformance (pass, fail, unsupported, error, total)"
for dev in cpu $(seq 0 $((n_gpus - 1))); do
    for suite in onnx-node onnx-extra; do
        [ -d "$corpus/$suite" ] || continue
        "$vkml" conformance --device "$dev" "$corpus/$suite" > "$out/logs/conf-$dev-$suite.txt" 2>&1 ||
            failures=$((failures + 1))
        say "$dev $suite: $(tail -n 1 "$out/logs/conf-$dev-$suite.txt")"
    done
done

say "== model zoo (tests/models/zoo/make_zoo.py with this machine's PyTorch; --tolerance model)"
zoo="$out/zoo-work"
if python3 tests/models/zoo/make_zoo.py "$zoo" > "$out/logs/zoo-export.txt" 2>&1; then
    for dev in cpu $(seq 0 $((n_gpus - 1))); do
        "$vkml" conformance --tolerance model --device "$dev" --json "$out/logs/zoo-$dev.json" \
            "$zoo" > "$out/logs/zoo-$dev.txt" 2>&1 || failures=$((failures + 1))
        say "zoo $dev: $(tail -n 1 "$out/logs/zoo-$dev.txt")"
        grep -vE '^(PASS|conformance)' "$out/logs/zoo-$dev.txt" | head -n 20 | tee -a "$summary"
    done
    # Placement over every GPU (one GPU machine: none to split over): the zoo within a
    # 160 MiB budget per GPU (the models over it split), and ResNet-50 within 48 MiB.
    if [ "$n_gpus" -ge 2 ]; then
        for split in "160M ." "48M resnet50_b1"; do
            set -- $split
            "$vkml" conformance --tolerance model --device all --budget "$1" --filter "$2" \
                "$zoo" > "$out/logs/zoo-split-$1.txt" 2>&1 || failures=$((failures + 1))
            say "zoo over every GPU, budget $1 (filter $2): $(tail -n 1 "$out/logs/zoo-split-$1.txt")"
            grep -vE '^(PASS|conformance)' "$out/logs/zoo-split-$1.txt" | head -n 20 | tee -a "$summary"
        done
        model=$(find "$zoo" -path '*resnet50_b1_op13*' -name model.onnx | head -n 1)
        "$vkml" inspect "$model" --plan --device all --budget 48M 2>&1 | sed -n '/^plan/,$p' |
            tee -a "$summary"
        for how in "0" "all --budget 48M"; do
            log="$out/logs/resnet50-$(echo "$how" | tr ' ' '_').txt"
            "$vkml" run "$model" --device $how --repeat 200 > "$log" 2>&1 ||
                failures=$((failures + 1))
            say "resnet50 b1 --device $how: $(grep -i 'median' "$log" | head -n 1)"
        done
    fi
else
    failures=$((failures + 1))
    say "zoo export FAILED: $(tail -n 3 "$out/logs/zoo-export.txt")"
fi
rm -rf "$zoo"

say "== mnist-8 latency (1000 runs after warm-up; vkml run --repeat)"
mnist="$corpus/models/mnist-8"
for dev in cpu $(seq 0 $((n_gpus - 1))); do
    "$vkml" run "$mnist/model.onnx" --device "$dev" --input "$mnist/test_data_set_0/input_0.pb" \
        --repeat 1000 > "$out/logs/latency-$dev.txt" 2>&1 || failures=$((failures + 1))
    say "vkml $dev: $(grep -i 'median' "$out/logs/latency-$dev.txt" | head -n 1)"
done
python3 - "$mnist" <<'PY' 2>&1 | tee -a "$summary"
import sys, time, statistics
try:
    import numpy as np, onnx, onnx.numpy_helper as nh, onnxruntime as ort
except Exception as e:
    print("onnxruntime: not available:", e); sys.exit(0)
d = sys.argv[1]
x = nh.to_array(onnx.load_tensor(d + "/test_data_set_0/input_0.pb"))
s = ort.InferenceSession(d + "/model.onnx", providers=["CPUExecutionProvider"])
name = s.get_inputs()[0].name
s.run(None, {name: x})
t = []
for _ in range(1000):
    a = time.perf_counter(); s.run(None, {name: x}); t.append((time.perf_counter() - a) * 1e3)
t.sort()
print("onnxruntime %s CPU: median %.4f ms, p99 %.4f ms" % (ort.__version__, statistics.median(t), t[989]))
PY

say "== demo model in gst-launch-1.0 on each Vulkan device (1000 frames 320x240 RGB)"
for dev in $(seq 0 $((n_gpus - 1))); do
    start=$(now)
    if gst-launch-1.0 -q videotestsrc pattern=red num-buffers=1000 \
        ! video/x-raw,format=RGB,width=320,height=240 \
        ! vkmlinfer model="$build/pipelines/color.onnx" device="$dev" \
        ! vkmlclassify labels="$build/pipelines/color-labels.txt" print=true \
        ! fakesink > "$out/logs/gst-$dev.txt" 2>&1; then
        secs=$(since "$start")
        right=$(grep -c ': red (' "$out/logs/gst-$dev.txt")
        say "device $dev: $right/1000 frames 'red', $(awk -v s="$secs" 'BEGIN { printf "%.0f", 1000 / s }') frames/s (whole pipeline)"
        [ "$right" -eq 1000 ] || failures=$((failures + 1))
    else
        failures=$((failures + 1))
        say "device $dev: pipeline FAILED: $(tail -n 2 "$out/logs/gst-$dev.txt")"
    fi
done

tar -czf "$out/logs.tar.gz" -C "$out" logs && rm -rf "$out/logs"
say "== failures: $failures"
[ "$failures" -eq 0 ]
