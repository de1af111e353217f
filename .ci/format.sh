#!/bin/sh
# The house style, applied or checked. lib/, tools/ and tests/: .clang-format. gst/ and
# the GStreamer tests (tests/gst/): GStreamer's own style (GNU indent with gst-indent's options, run twice: indent is not
# idempotent in one pass).
# usage: .ci/format.sh          rewrites every file that differs
#        .ci/format.sh --check  lists them and fails instead (CI)
set -eu
cd "$(dirname "$0")/.."
check=false
[ "${1:-}" = "--check" ] && check=true

gst_indent() {
    for pass in 1 2; do
        indent --braces-on-if-line --case-brace-indentation0 --case-indentation2 \
            --braces-after-struct-decl-line --line-length80 --no-tabs --cuddle-else \
            --dont-line-up-parentheses --continuation-indentation4 --honour-newlines \
            --tab-size8 --indent-level2 --leave-preprocessor-space "$1" -o "$2.$pass" \
            2>/dev/null || true
        set -- "$2.$pass" "$2"
    done
    mv "$1" "$2"
    rm -f "$2.1"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
differ=0
for f in $(git ls-files 'lib/*.[ch]' 'tools/*.[ch]' 'tests/*.[ch]' 'gst/*.[ch]'); do
    case $f in
    gst/* | tests/gst/*) gst_indent "$f" "$tmp/out" ;;
    *) clang-format "$f" > "$tmp/out" ;;
    esac
    if ! cmp -s "$f" "$tmp/out"; then
        differ=$((differ + 1))
        if $check; then
            echo "format: $f differs from the house style" >&2
            diff -u "$f" "$tmp/out" | head -20 >&2
        else
            cp "$tmp/out" "$f"
        fi
    fi
done
if $check && [ $differ -gt 0 ]; then
    echo "format: $differ file(s) differ; run .ci/format.sh" >&2
    exit 1
fi
$check && echo "format: every file follows the house style"
exit 0
