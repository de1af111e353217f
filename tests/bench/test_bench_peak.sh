#!/bin/sh
# bench_peak and bench_gemm's shares cannot rot (on Vulkan device 0, --small sizes):
# bench_peak prints each ceiling as a positive number (its kernels' results are checked
# inside: a wrong one exits 1), the cooperative-matrix one as a number or "none" with the
# reason; bench_gemm prints its ceilings and a line per kernel whose "of peak" is its
# GFLOP/s over the FMA ceiling it printed and whose "of bw" is a positive share;
# bench_kernel_stats builds the variants it is asked for and says whether the driver has
# statistics, and with KERNEL_STATS_DUMP writes each one's pipeline cache data (at least
# Vulkan's 16-byte header), which tests/bench/kernel_sass.py reads.
# Usage: test_bench_peak.sh VKML BENCH_PEAK BENCH_GEMM BENCH_KERNEL_STATS
. "$VKML_SOURCE_ROOT/tests/cli/common.sh"
PEAK=${2:?} GEMM=${3:?} STATS=${4:?}
require_vulkan

# ceiling FILE NAME: the value column of ceiling NAME in FILE's table (bench_ceilings_print:
# the name in 34 columns, a space, the value in 12).
ceiling() {
    awk -v name="$2" '{ n = substr($0, 1, 34); sub(/ +$/, "", n)
                        if (n == name) { print substr($0, 36, 12); exit } }' "$1"
}
positive() { awk -v v="$1" 'BEGIN { exit !(v ~ /^ *[0-9]+\.[0-9]+$/ && v + 0 > 0) }'; }

"$PEAK" --small 0 > "$TMP/peak" 2>&1 || fail "bench_peak exited $?: $(tail -n 3 "$TMP/peak")"
cat "$TMP/peak"
for name in 'fp32 FMA' 'memory copy (read + write)' 'memory read'; do
    v=$(ceiling "$TMP/peak" "$name")
    positive "$v" || fail "bench_peak: ceiling '$name' is not a positive number: '$v'"
done
coop=$(ceiling "$TMP/peak" 'fp16 cooperative matrix (fp32 acc)')
positive "$coop" || [ "$(echo $coop)" = none ] ||
    fail "bench_peak: the cooperative-matrix ceiling is neither a positive number nor none: '$coop'"
expect_grep "$TMP/peak" '^best of 3 dispatches after a warm-up, timed by ' "bench_peak's method line"

"$GEMM" --small 0 > "$TMP/gemm" 2>&1 || fail "bench_gemm exited $?: $(tail -n 3 "$TMP/gemm")"
cat "$TMP/gemm"
fma=$(ceiling "$TMP/gemm" 'fp32 FMA')
positive "$fma" || fail "bench_gemm: its FMA ceiling is not a positive number: '$fma'"
# Kernel lines (print_line: shape 30, kernel 30, GFLOP/s 10, of peak 12, of bw 9 columns):
# each measured fp32 one's share within the rounding of the printed GFLOP/s.
awk -v fma="$fma" '
    substr($0, 74, 12) ~ /% fma$/ {
        g = substr($0, 63, 10) + 0; peak = substr($0, 74, 12) + 0; bw = substr($0, 87, 9) + 0
        want = 100 * g / fma; slack = 100 * 0.05 / fma + 0.006
        if (peak < want - slack || peak > want + slack || !(bw > 0)) {
            print "bad line: " $0 " (want " want "% of peak)"; bad++ }
        n++ }
    END { if (n < 4 || bad) { print n " measured fp32 kernel lines, " bad + 0 " wrong"; exit 1 } }
' "$TMP/gemm" > "$TMP/check" || fail "bench_gemm's shares: $(cat "$TMP/check")"

"$STATS" gemm_64x64_f32 > "$TMP/stats" 2>&1 || fail "bench_kernel_stats exited $?: $(tail -n 3 "$TMP/stats")"
cat "$TMP/stats"
expect_grep "$TMP/stats" '^pipeline statistics: (yes|no)$' "bench_kernel_stats' first line"
expect_grep "$TMP/stats" '^gemm_64x64_f32: built$' "bench_kernel_stats building gemm_64x64_f32"
[ "$(grep -c ': built$' "$TMP/stats")" -eq 2 ] ||
    fail "bench_kernel_stats: gemm_64x64_f32 and conv_gemm_64x64_f32 built, nothing else"
mkdir -p "$TMP/dump"
KERNEL_STATS_DUMP="$TMP/dump" "$STATS" gemm_64x64_f32 > "$TMP/stats" 2>&1 ||
    fail "bench_kernel_stats with KERNEL_STATS_DUMP exited $?: $(tail -n 3 "$TMP/stats")"
for k in gemm_64x64_f32 conv_gemm_64x64_f32; do
    [ "$(wc -c < "$TMP/dump/$k.cache" 2>/dev/null || echo 0)" -ge 16 ] ||
        fail "bench_kernel_stats: no pipeline cache data in $TMP/dump/$k.cache"
done
[ "$(ls "$TMP/dump" | wc -l)" -eq 2 ] || fail "bench_kernel_stats dumped more than the two: $(ls "$TMP/dump")"
# kernel_sass.py reads a dump: where the driver's data holds no SM90 code (lavapipe's is the
# header alone), it says so per kernel and writes nothing
python3 "$VKML_SOURCE_ROOT/tests/bench/kernel_sass.py" "$TMP/dump" "$TMP/sass" > "$TMP/sass.txt" 2>&1 ||
    fail "kernel_sass.py exited $?: $(tail -n 3 "$TMP/sass.txt")"
if [ "$(grep -c ': no SM90 code found in the cache data$' "$TMP/sass.txt")" -ne 2 ]; then
    grep -q ' instructions, [0-9]* HMMA' "$TMP/sass.txt" ||
        fail "kernel_sass.py: neither code nor its absence reported: $(cat "$TMP/sass.txt")"
fi
finish
