#!/bin/sh
# Installs the Debian 12 packages vkml needs to build, test and run the demo, when missing.
# Runs apt-get directly as root, through sudo otherwise. Safe to run again: it only installs
# what is not there yet.
set -eu

packages="meson ninja-build pkg-config gcc libc6-dev glslc protobuf-c-compiler libprotobuf-c-dev
libvulkan-dev mesa-vulkan-drivers libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good check
libshaderc-dev libpango1.0-dev gobject-introspection libgirepository1.0-dev python3-gi gir1.2-gstreamer-1.0
python3 python3-onnx python3-numpy python3-torch python3-torchvision clang libclang-rt-14-dev
valgrind clang-format indent libdnnl-dev libjson-glib-dev"

missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "vkml: installing missing packages:$missing"
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
# shellcheck disable=SC2086
$sudo apt-get install -y -q --no-install-recommends $missing
