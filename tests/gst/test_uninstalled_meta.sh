#!/bin/sh
# The meta library as an application uses it from the build folder, not installed:
# installed_meta_reader.c compiled with only what
# `PKG_CONFIG_PATH=BUILD/meson-uninstalled pkg-config --cflags --libs
# gstreamer-vkml-meta-1.0` gives (it includes <gst/vkml/gstvkmltensormeta.h>), then run.
# Usage: test_uninstalled_meta.sh BUILD_DIR READER_SOURCE
set -eu
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

export PKG_CONFIG_PATH="$build/meson-uninstalled"
flags=$(pkg-config --cflags --libs gstreamer-vkml-meta-1.0)
echo "pkg-config: $flags"
# shellcheck disable=SC2086 # the flags are words
${CC:-cc} -std=c11 -Wall -Werror "$src" -o "$tmp/reader" $flags
LD_LIBRARY_PATH="$build/gst:$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tmp/reader"
