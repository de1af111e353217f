#!/bin/sh
# The model zoo on one device (tests/models/README.md): writes the zoo into the build
# tree when it is missing or out of date (make_zoo.py; a lock keeps the two device tests
# from writing it at once), runs `vkml conformance --tolerance model` over it and checks
# the result against the ratchet tests/models/zoo_expected.tsv (ratchet.py).
# $1: vkml; $2: the device (cpu or 0); $3: the zoo folder.
# With CI=true a missing python3-torch (or Vulkan device) is a failure; elsewhere a skip.
. "$VKML_SOURCE_ROOT/tests/cli/common.sh"
dev=${2:?usage: $0 VKML DEVICE ZOO_DIR}
zoo=${3:?usage: $0 VKML DEVICE ZOO_DIR}
here=$VKML_SOURCE_ROOT/tests/models
py=/usr/bin/python3

$py -c 'import torch, torchvision, onnx' 2> /dev/null ||
    missing "python3-torch, python3-torchvision or python3-onnx (Debian 12 packages)"
[ "$dev" = cpu ] || require_vulkan

start=$(date +%s)
flock "$zoo.lock" $py "$here/zoo/make_zoo.py" "$zoo" || { fail "make_zoo.py failed"; finish; }
made=$(date +%s)
"$VKML" conformance --tolerance model --timeout 600 --device "$dev" --json "$TMP/report.json" "$zoo" \
    > "$TMP/out" 2> "$TMP/err"
rc=$?
end=$(date +%s)
[ -s "$TMP/report.json" ] || { fail "vkml conformance wrote no report (exit $rc): $(tail -n 5 "$TMP/err")"; finish; }
$py "$here/zoo/ratchet.py" check "$here/zoo_expected.tsv" "$TMP/report.json" || fail "the zoo on device $dev (above)"
echo "zoo: export/check $((made - start)) s, conformance on device $dev $((end - made)) s"
if [ "$dev" = cpu ]; then
    sh "$here/zoo/missing_ops.sh" "$VKML" "$zoo"
fi
finish
