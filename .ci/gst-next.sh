#!/bin/sh
# Builds and tests vkml against Debian 13 "trixie"'s GStreamer (1.26), where the
# GStreamer >= 1.24 (GstAnalyticsRelationMeta: ClsMtd, ODMtd) and >= 1.26 (GstTensorMeta)
# paths compile in; Debian 12's 1.22 (the CI's .ci/run) compiles them out.
#
# Not part of .ci/run: the first run downloads a trixie system (debootstrap, minbase) and
# the build's packages (about 0.5 GB, 3 GB on disk; some 15 minutes on 2 cores with the
# build); later runs reuse the chroot and the build.
#
#   .ci/gst-next.sh [CHROOT_DIR]      (default /var/tmp/vkml-trixie; root; Debian host
#                                      with debootstrap)
#   VKML_GST_NEXT_SUITES="gst unit"   the meson test suites to run (default: gst unit)
#   VKML_MIRROR=http://...            the Debian mirror (default deb.debian.org)
#   VKML_JOBS=N                       build and test processes (default: nproc)
#
# The source tree is bind-mounted read-only at /src, the test corpus ($VKML_CORPUS, or
# ../shared/corpus beside the source) at /shared/corpus; the build is in CHROOT_DIR/build.
# Vulkan is trixie's lavapipe (mesa-vulkan-drivers: its ICD is a file, no /dev/dri
# needed). The 'slow' suite (valgrind) is left out. Mounts are undone on exit.
set -eu

root=${1:-/var/tmp/vkml-trixie}
suites=${VKML_GST_NEXT_SUITES:-gst unit}
mirror=${VKML_MIRROR:-http://deb.debian.org/debian}
jobs=${VKML_JOBS:-$(nproc)}
src=$(cd "$(dirname "$0")/.." && pwd)

# .ci/deps.sh's list under trixie's names, less what these suites do not use (torch,
# clang, valgrind); plus gst-plugins-bad's dev package, which has gstreamer-analytics-1.0.
packages="meson ninja-build pkg-config gcc libc6-dev glslc protobuf-c-compiler
libprotobuf-c-dev libvulkan-dev mesa-vulkan-drivers libgstreamer1.0-dev
libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev gstreamer1.0-tools
gstreamer1.0-plugins-base gstreamer1.0-plugins-good check libpango1.0-dev
gobject-introspection libgirepository1.0-dev python3-gi gir1.2-gstreamer-1.0 python3
python3-onnx python3-numpy libjson-glib-dev"

if [ "$(id -u)" -ne 0 ]; then
  echo "gst-next: needs root (debootstrap, mount, chroot)" >&2
  exit 1
fi
command -v debootstrap >/dev/null ||
  { echo "gst-next: needs debootstrap (apt-get install debootstrap)" >&2; exit 1; }

if [ ! -x "$root/usr/bin/apt-get" ]; then
  echo "gst-next: creating a trixie chroot in $root (minutes)"
  debootstrap --variant=minbase trixie "$root" "$mirror"
fi

mounted=""
# shellcheck disable=SC2317 # called by the trap
cleanup() {
  for m in $mounted; do
    umount "$m" || umount -l "$m" || true
  done
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# Mounts $1 (mount args before it) and remembers it, newest first, for cleanup.
mount_at() {
  target=$1
  shift
  mount "$@" "$target"
  mounted="$target $mounted"
}

mount_at "$root/proc" -t proc proc
mount_at "$root/dev" --bind /dev
mkdir -p "$root/src"
mount_at "$root/src" --bind "$src"
mount -o remount,bind,ro "$root/src"
# The test corpus, where the build looks for it (../shared/corpus beside the source).
corpus=${VKML_CORPUS:-$src/../shared/corpus}
if [ -d "$corpus" ]; then
  mkdir -p "$root/shared/corpus"
  mount_at "$root/shared/corpus" --bind "$corpus"
  mount -o remount,bind,ro "$root/shared/corpus"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"

in_root() {
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive CI=true "$@"
}

missing=""
for p in $packages; do
  # shellcheck disable=SC2016 # dpkg-query's own field syntax
  in_root dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "gst-next: installing in the chroot:$missing"
  in_root apt-get update -q
  # shellcheck disable=SC2086
  in_root apt-get install -y -q --no-install-recommends $missing
fi

gst_version=$(in_root pkg-config --modversion gstreamer-1.0)
analytics_version=$(in_root pkg-config --modversion gstreamer-analytics-1.0)
echo "gst-next: GStreamer $gst_version, gstreamer-analytics-1.0 $analytics_version"

if [ -f "$root/build/build.ninja" ]; then
  in_root meson setup --reconfigure /build /src
else
  in_root meson setup /build /src --buildtype=debugoptimized
fi
in_root ninja -C /build -j"$jobs"

# The guarded paths must be compiled in, or this run tests nothing new.
for flag in HAVE_GST_ANALYTICS HAVE_GST_TENSOR_META; do
  grep -q -- "-D$flag" "$root/build/build.ninja" ||
    { echo "gst-next: $flag is not set: the >= 1.24/1.26 paths are not built" >&2; exit 1; }
done

suite_args=""
for suite in $suites; do
  suite_args="$suite_args --suite $suite"
done
status=0
# shellcheck disable=SC2086
in_root meson test -C /build $suite_args --no-suite slow --num-processes "$jobs" \
  --print-errorlogs || status=1

echo "gst-next: summary ($(date -u +%Y-%m-%d), Debian trixie, GStreamer $gst_version)"
echo "  built with HAVE_GST_ANALYTICS (>= 1.24) and HAVE_GST_TENSOR_META (>= 1.26)"
sed -n '/^Ok:/,/^Timeout:/p' "$root/build/meson-logs/testlog.txt" || true
echo "  suites: $suites; log: $root/build/meson-logs/testlog.txt"
[ "$status" -eq 0 ] && echo "gst-next: all passed" || echo "gst-next: FAILURES" >&2
exit "$status"
