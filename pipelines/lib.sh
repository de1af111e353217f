# Shared by the pipeline scripts (sourced, not run): finds the build folder and points
# GStreamer at its plugin. VKML_BUILD_DIR=DIR names a build folder; without it the
# script builds first (.ci/build.sh).
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${VKML_BUILD_DIR:-}" ]; then
    build=$(cd "$VKML_BUILD_DIR" && pwd)
else
    "$root/.ci/build.sh"
    build=$root/build
fi
export GST_PLUGIN_PATH="$build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
device=${VKML_DEVICE:-default}

# check_pngs DIR NAME FRAMES: every frame was written as a PNG (DIR/NAME-00.png, ...);
# each one missing adds one to $failures.
check_pngs() {
    for i in $(seq 0 $(($3 - 1))); do
        f=$(printf '%s/%s-%02d.png' "$1" "$2" "$i")
        if ! head -c 4 "$f" 2>/dev/null | grep -q PNG; then
            echo "FAIL: $f is not a PNG"
            failures=$((failures + 1))
        fi
    done
}

# parse_check DESCRIPTION: gst_parse_launch of a pipeline description (every element
# found, every property valid) without running it. Exit status non-zero when it fails.
parse_check() {
    /usr/bin/python3 - "$1" <<'PY'
import sys
import gi
gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst
Gst.init(None)
try:
    Gst.parse_launch(sys.argv[1])
except GLib.Error as e:
    print("does not parse:", e.message)
    sys.exit(1)
print("parses:", sys.argv[1])
PY
}
