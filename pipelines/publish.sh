#!/bin/sh
# Results out of the process: a detector, vkmltrack and a classifier per object, then
# vkmlpublish writes one JSON object per frame to a file and publishes it to an MQTT
# broker:
#
#   videotestsrc ! vkmlinfer (detector) ! vkmldetect ! vkmltrack
#       ! vkmlinfer roi=objects (colour classifier) ! vkmlclassify
#       ! vkmlpublish location=results.jsonl mqtt-host=127.0.0.1 mqtt-port=PORT ! fakesink
#
# The script starts its own mosquitto broker on 127.0.0.1 at a free port and reads the
# topic with mosquitto_sub (Debian: mosquitto, mosquitto-clients), or uses the broker at
# VKML_MQTT_HOST:VKML_MQTT_PORT when both are set.
# Checks: one JSON line per frame in the file, each with the 48 red objects of the frame
# (track ids 1..48, each classified "red", both model ids); the subscriber got the same
# lines. Without mosquitto the MQTT part is skipped, except with CI=true, where that
# fails. pipelines/README.md explains it.
#
# Environment: VKML_BUILD_DIR=DIR (no build step), VKML_PUBLISH_FRAMES=N (default 3),
# VKML_PUBLISH_OUT=FILE keeps the JSON lines, VKML_DEVICE=D.
set -eu
. "$(dirname "$0")/lib.sh"
frames=${VKML_PUBLISH_FRAMES:-3}
tmp=$(mktemp -d)
broker=""
sub=""
cleanup() {
    if [ -n "$sub" ]; then kill "$sub" 2>/dev/null || true; fi
    if [ -n "$broker" ]; then kill "$broker" 2>/dev/null || true; wait "$broker" || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT
out=${VKML_PUBLISH_OUT:-$tmp/results.jsonl}
labels=$build/pipelines/color-labels.txt
topic=vkml/pipelines/publish
py=/usr/bin/python3

mosquitto=$(command -v mosquitto || { [ -x /usr/sbin/mosquitto ] && echo /usr/sbin/mosquitto; } || true)
host=${VKML_MQTT_HOST:-}
port=${VKML_MQTT_PORT:-}
mqtt=""
if [ -n "$host" ] && [ -n "$port" ]; then
    mqtt=yes
elif [ -n "$mosquitto" ] && command -v mosquitto_sub >/dev/null; then
    # a free port: bound by the kernel's choice, then let go for the broker
    port=$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    host=127.0.0.1
    printf 'listener %s 127.0.0.1\nallow_anonymous true\n' "$port" > "$tmp/broker.conf"
    "$mosquitto" -c "$tmp/broker.conf" > "$tmp/broker.log" 2>&1 &
    broker=$!
    mqtt=yes
elif [ "${CI:-}" = true ]; then
    echo "FAIL: CI=true and no mosquitto broker or mosquitto_sub (Debian: mosquitto," \
        "mosquitto-clients)"
    exit 1
else
    echo "publish: no mosquitto (Debian: mosquitto, mosquitto-clients): JSON to the file only"
fi

if [ -n "$mqtt" ]; then
    # -d prints the SUBACK (line-buffered by stdbuf): the pipeline starts once the
    # subscription stands
    for _ in $(seq 1 100); do
        stdbuf -oL mosquitto_sub -d -h "$host" -p "$port" -t "$topic" -C "$frames" -W 60 \
            > "$tmp/sub.log" 2>&1 &
        sub=$!
        for _ in $(seq 1 20); do
            grep -q SUBACK "$tmp/sub.log" && break
            kill -0 "$sub" 2>/dev/null || break
            sleep 0.1
        done
        grep -q SUBACK "$tmp/sub.log" && break
        kill "$sub" 2>/dev/null || true
        sub=""
        sleep 0.1
    done
    [ -n "$sub" ] || { cat "$tmp/sub.log"; echo "FAIL: cannot subscribe at $host:$port"; exit 1; }
    mqtt_props="mqtt-host=$host mqtt-port=$port mqtt-topic=$topic"
else
    mqtt_props=""
fi

# shellcheck disable=SC2086
gst-launch-1.0 -q videotestsrc pattern=red num-buffers="$frames" \
    ! video/x-raw,format=RGB,width=320,height=240,framerate=30/1 \
    ! vkmlinfer model="$build/pipelines/detector.onnx" device="$device" model-id=detector \
    ! vkmldetect model-id=detector labels="$labels" score-threshold=0.5 \
    ! vkmltrack \
    ! vkmlinfer model="$build/pipelines/color.onnx" device="$device" model-id=colour \
        roi=objects \
    ! vkmlclassify model-id=colour labels="$labels" post-messages=false \
    ! vkmlpublish location="$out" source-id=camera-1 $mqtt_props \
    ! fakesink
head -c 300 "$out"
echo " ..."

failures=0
if ! "$py" - "$out" "$frames" <<'PY'
import json
import sys

lines = open(sys.argv[1]).read().splitlines()
frames = int(sys.argv[2])
assert len(lines) == frames, f"{len(lines)} lines, want {frames}"
for i, line in enumerate(lines):
    f = json.loads(line)
    assert f["frame"] == i and f["source"] == "camera-1", line[:200]
    assert f["timestamp"] == i * 10**9 // 30, f["timestamp"]
    assert f["models"] == ["detector", "colour"], f["models"]
    objs = f["objects"]
    assert len(objs) == 48, f"frame {i}: {len(objs)} objects"
    assert sorted(o["track-id"] for o in objs) == list(range(1, 49)), "track ids"
    for o in objs:
        assert o["label"] == "red" and o["score"] > 0.5, o
        assert o["box"]["w"] == 40 and o["box"]["h"] == 40, o
        assert [c["label"] for c in o["classifications"]] == ["red"], o
print(f"file: {frames} frames of 48 tracked, classified objects")
PY
then
    echo "FAIL: the JSON file"
    failures=$((failures + 1))
fi

if [ -n "$mqtt" ]; then
    wait "$sub" || true
    sub=""
    grep '^{' "$tmp/sub.log" > "$tmp/mqtt.jsonl" || true
    if cmp -s "$tmp/mqtt.jsonl" "$out"; then
        echo "mqtt: $frames messages on $topic, the same as the file's lines"
    else
        echo "FAIL: the MQTT messages differ from the file's lines:"
        head -c 600 "$tmp/sub.log"
        failures=$((failures + 1))
    fi
fi

if [ "$failures" -ne 0 ]; then
    echo "publish: $failures check(s) failed"
    exit 1
fi
echo "publish: every frame's results in $out${mqtt:+ and on MQTT}"
