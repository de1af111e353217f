#!/bin/sh
# A whole corpus folder on one device: no FAIL and no ERROR, everything passes or is
# honestly unsupported. Prints the totals and the time taken; the JSON report agrees.
# Ratchet: every test listed in tests/cli/ratchet/<folder>.<device>.pass (device "cpu" or
# "gpu") must still pass; tests/cli/update_ratchet.sh rewrites the lists from a run.
# $2: the device (cpu or 0); $3: the folder below the corpus (default onnx-node);
# $4: the least number of tests it must hold (default 1000).
. "$(dirname "$0")/common.sh"
need_corpus
dev=${2:?usage: $0 VKML DEVICE [FOLDER [MIN_TESTS]]}
dir="$CORPUS/${3:-onnx-node}"
min=${4:-1000}
[ "$dev" = cpu ] || require_vulkan

start=$(date +%s)
"$VKML" conformance --device "$dev" --json "$TMP/report.json" "$dir" > "$TMP/out" 2> "$TMP/err"
rc=$?
end=$(date +%s)
grep -E '^(FAIL|ERROR) ' "$TMP/out" >&2
totals=$(tail -n 1 "$TMP/out")
echo "$totals ($((end - start)) s on device $dev)"
echo "$totals" | grep -Eq '^conformance: [0-9]+ pass, 0 fail, [0-9]+ unsupported, 0 error, [0-9]+ total$' ||
    fail "FAIL or ERROR tests on device $dev (listed above); stderr tail: $(tail -n 5 "$TMP/err")"
total=$(echo "$totals" | sed -n 's/.* \([0-9]*\) total$/\1/p')
[ "${total:-0}" -ge "$min" ] || fail "only ${total:-0} tests found in $dir, expected $min or more"
[ "$rc" = 0 ] || fail "exit status $rc"
# The JSON report parses and has the same totals as the text.
/usr/bin/python3 - "$TMP/report.json" "$totals" <<'PY' || fail "the JSON report disagrees"
import json, sys
r = json.load(open(sys.argv[1]))
t = r["totals"]
line = "conformance: %d pass, %d fail, %d unsupported, %d error, %d total" % (
    t["pass"], t["fail"], t["unsupported"], t["error"], t["total"])
statuses = [x["status"] for x in r["tests"]]
assert line == sys.argv[2], (line, sys.argv[2])
assert len(statuses) == t["total"] and statuses.count("PASS") == t["pass"], t
PY
kind=cpu
[ "$dev" = cpu ] || kind=gpu
# On a GPU, a second list: tests that pass with every node on the GPU (no CPU fallback).
for list in $kind $([ "$kind" = gpu ] && echo gpu-resident); do
ratchet="${VKML_SOURCE_ROOT:?}/tests/cli/ratchet/${3:-onnx-node}.$list.pass"
[ -f "$ratchet" ] || fail "no ratchet file $ratchet"
/usr/bin/python3 - "$TMP/report.json" "$ratchet" "$list" <<'PY' || fail "tests of the $list ratchet no longer pass (listed above)"
import json, os, sys
r = json.load(open(sys.argv[1]))
resident = sys.argv[3] == "gpu-resident"
status = {os.path.basename(x["test"]): x["status"] if not resident or x["cpu_nodes"] == 0
          else "PASS with %d nodes on the CPU" % x["cpu_nodes"] for x in r["tests"]}
want = [l.strip() for l in open(sys.argv[2]) if l.strip() and not l.startswith("#")]
lost = [t for t in want if status.get(t) != "PASS"]
gained = [t for t, s in status.items() if s == "PASS" and t not in set(want)]
for t in lost:
    print("RATCHET: %s was passing, now %s" % (t, status.get(t, "missing")), file=sys.stderr)
print("ratchet %s: %d listed, %d lost, %d newly passing (tests/cli/update_ratchet.sh adds them)"
      % (sys.argv[3], len(want), len(lost), len(gained)))
sys.exit(1 if lost else 0)
PY
done
finish
