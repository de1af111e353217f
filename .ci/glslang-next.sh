#!/bin/sh
# Fetches the glslang of the next Debian release (13, trixie: glslang 15, which compiles
# GL_NV_cooperative_matrix2 and GL_KHR_cooperative_matrix; Debian 12's 12.0 does not) with
# its own C and C++ runtime, without installing anything: apt-get reads trixie's index into
# a private lists folder and downloads the .debs, which are unpacked into a private root;
# a wrapper runs that root's glslang through that root's dynamic loader. Prints the
# wrapper's path (for meson's glslang_next option); exits non-zero when it cannot (no
# network, another architecture), and the build then keeps the plain kernels.
#   .ci/glslang-next.sh [DIR]     DIR default: ${XDG_CACHE_HOME:-~/.cache}/vkml/glslang-next
set -eu
dir="${1:-${XDG_CACHE_HOME:-$HOME/.cache}/vkml/glslang-next}"
wrapper="$dir/glslang"
if [ -x "$wrapper" ] && "$wrapper" --version >/dev/null 2>&1; then
  echo "$wrapper"
  exit 0
fi
if [ "$(uname -m)" != x86_64 ]; then
  echo "glslang-next: only fetched for x86_64" >&2
  exit 1
fi
rm -rf "$dir"
mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/debs" "$dir/root"
echo "deb http://deb.debian.org/debian trixie main" >"$dir/sources.list"
set -- -o "Dir::Etc::SourceList=$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null \
  -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache" -o APT::Sandbox::User=root
apt-get "$@" -q update >&2
(cd "$dir/debs" && apt-get "$@" -q download glslang-tools libc6 libstdc++6 libgcc-s1 >&2)
for deb in "$dir"/debs/*.deb; do
  dpkg-deb -x "$deb" "$dir/root"
done
lib="$dir/root/usr/lib/x86_64-linux-gnu"
cat >"$wrapper" <<WRAP
#!/bin/sh
exec "$lib/ld-linux-x86-64.so.2" --library-path "$lib" "$dir/root/usr/bin/glslang" "\$@"
WRAP
chmod +x "$wrapper"
"$wrapper" --version >/dev/null
echo "$wrapper"
