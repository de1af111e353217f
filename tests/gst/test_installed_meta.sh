#!/bin/sh
# Installs the build into a temporary DESTDIR, then compiles and runs
# installed_meta_reader.c against it with nothing but
# `pkg-config --cflags --libs gstreamer-vkml-meta-1.0`: the installed header,
# library and .pc file are enough for an application to read GstVkmlTensorMeta.
# Usage: test_installed_meta.sh MESON BUILD_DIR READER_SOURCE
set -eu
meson=$1
build=$2
src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$meson" install -C "$build" --no-rebuild --quiet --destdir "$tmp/root"
pc=$(find "$tmp/root" -name gstreamer-vkml-meta-1.0.pc)
[ -n "$pc" ] || { echo "gstreamer-vkml-meta-1.0.pc was not installed"; exit 1; }
# The .pc files name the real prefix; relocate vkml's into the DESTDIR (GStreamer's
# own stay where the system has them).
prefix=$(sed -n 's/^prefix=//p' "$pc")
mkdir "$tmp/pc"
for f in "$(dirname "$pc")"/*.pc; do
    sed "s|^prefix=.*|prefix=$tmp/root$prefix|" "$f" >"$tmp/pc/$(basename "$f")"
done
export PKG_CONFIG_PATH="$tmp/pc"
flags=$(pkg-config --cflags --libs gstreamer-vkml-meta-1.0)
echo "pkg-config: $flags"
# shellcheck disable=SC2086
${CC:-cc} -std=c11 -Wall -Werror "$src" -o "$tmp/reader" $flags
libdir=$(pkg-config --variable=libdir gstreamer-vkml-meta-1.0)
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tmp/reader"
