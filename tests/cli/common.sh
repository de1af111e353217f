# Shared by the tests/cli scripts (POSIX sh). Each script gets the vkml binary as $1.
# CI rule (tests/testutil.h): with CI=true a missing corpus or Vulkan device fails the
# test; elsewhere it is a skip (exit 77).
set -u
VKML=${1:?usage: $0 PATH_TO_VKML}
failures=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/vkml-cli-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

in_ci() { [ "${CI:-}" = true ] || [ "${CI:-}" = 1 ]; }

missing() {
    if in_ci; then
        echo "FAIL: $1 is missing and CI=true: this is a failure, not a skip" >&2
        exit 1
    fi
    echo "SKIP: $1 is missing" >&2
    exit 77
}

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# Sets CORPUS to the corpus folder, or exits through missing(). Call it as a command,
# not in $(...): exit in a subshell would not end the test.
need_corpus() {
    if [ -z "${VKML_CORPUS:-}" ] || [ ! -d "$VKML_CORPUS" ]; then
        missing "the test corpus (\$VKML_CORPUS)"
    fi
    CORPUS=$VKML_CORPUS
}

# Exits through missing() when `vkml devices` lists no Vulkan device 0.
require_vulkan() {
    "$VKML" devices | grep -Eq '^[ *] 0 ' || missing "a Vulkan device (mesa-vulkan-drivers)"
}

# expect_grep FILE REGEX WHAT: FILE has a line matching the extended REGEX.
expect_grep() {
    grep -Eq -- "$2" "$1" || { fail "$3: no line matching /$2/ in:"; sed 's/^/    /' "$1" >&2; }
}

# expect_error WHAT EXPECTED_RC CMD...: fails unless CMD exits with EXPECTED_RC and its
# stderr (kept in $TMP/err) starts with "vkml: error:".
expect_error() {
    what=$1 want=$2
    shift 2
    "$@" > "$TMP/expect_out" 2> "$TMP/err"
    rc=$?
    [ "$rc" = "$want" ] || fail "$what: exit $rc, expected $want"
    head -n 1 "$TMP/err" | grep -q '^vkml: error: ' ||
        { fail "$what: stderr does not start with 'vkml: error:':"; cat "$TMP/err" >&2; }
}

finish() {
    if [ "$failures" -ne 0 ]; then
        echo "$0: $failures check(s) failed" >&2
        exit 1
    fi
    echo "$0: all checks passed"
    exit 0
}
