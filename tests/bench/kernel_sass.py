#!/usr/bin/env python3
"""Diagnostic (not a test): the machine code of vkml's kernels on NVIDIA's Vulkan driver.

    KERNEL_STATS_DUMP=DIR bench_kernel_stats FILTER DEVICE   # DIR/NAME.cache per variant
    python3 tests/bench/kernel_sass.py DIR OUT               # OUT/NAME.sass per variant

Each DIR/NAME.cache is the driver's pipeline cache data for one kernel variant. Seen with
driver 580.159 on an H200 (2026-12-01): a 32-byte Vulkan header, one entry (a 'CPKV'
record), then a zstd frame. Decompressed, the blob holds the code's size (a 32-bit word at
0x4c) and the code itself from 0x198: SM90 instructions of 16 bytes, which `nvdisasm -b
SM90` reads. The layout is the driver's and may change; the EXIT instruction is checked.

OUT/NAME.sass gets a line per instruction: its address, the scheduling bits that the
driver's compiler set (S: stall cycles; Y: yield; Wn: the scoreboard this instruction's
result sets; Rn: the one its operands' reads set; waitN..: the scoreboards it waits for),
and the instruction. A load's result is waited for where a later instruction waits on the
load's W scoreboard: the summary line counts the global loads (LDG) whose wait comes
before the next tensor-core instruction (HMMA), i.e. loads that products do not hide.
Needs `zstd` and `nvdisasm` (the CUDA toolkit's) on PATH. The GPU machine has no zstd:
stage Debian's with the runtime packages (`EXTRA_DEBS="zstd libzstd1"
../shared/device/stage.sh`; `.device/prelude.sh` puts it on PATH).
"""
import os
import re
import struct
import subprocess
import sys

ZSTD_MAGIC = bytes.fromhex("28b52ffd")
EXIT = bytes.fromhex("4d79000000000000")  # EXIT, predicate PT: the low 8 bytes
CODE_AT, SIZE_AT = 0x198, 0x4C


def code_of(cache):
    """The SM90 code in one pipeline cache blob, or None."""
    at = cache.find(ZSTD_MAGIC)
    if at < 0:
        return None
    try:
        raw = subprocess.run(["zstd", "-d", "-c"], input=cache[at:], capture_output=True).stdout
    except FileNotFoundError:
        sys.exit("kernel_sass.py: the driver's data is zstd-compressed and no zstd is on PATH")
    if len(raw) < CODE_AT:
        return None
    size = struct.unpack_from("<I", raw, SIZE_AT)[0]
    code = raw[CODE_AT:CODE_AT + size]
    exit_at = code.find(EXIT)
    return code if exit_at >= 0 and exit_at % 16 == 0 else None


def annotate(listing):
    """nvdisasm -hex output as one line per instruction with its scheduling bits."""
    lines = listing.splitlines()
    out = []
    for i, line in enumerate(lines[:-1]):
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*/\* 0x[0-9a-f]{16} \*/", line)
        hi = re.search(r"/\* 0x([0-9a-f]{16}) \*/", lines[i + 1])
        if not m or not hi:
            continue
        bits = int(hi.group(1), 16)
        stall, yld = (bits >> 41) & 0xF, (bits >> 45) & 1
        wr, rd, wait = (bits >> 46) & 7, (bits >> 49) & 7, (bits >> 52) & 0x3F
        sched = f"S{stall:02d}" + (" " if yld else "Y")
        sched += f" W{wr}" if wr != 7 else "   "
        sched += f" R{rd}" if rd != 7 else "   "
        if wait:
            sched += " wait" + "".join(str(b) for b in range(6) if wait >> b & 1)
        out.append((m.group(1), sched, wr if wr != 7 else None, wait, m.group(2)))
    return out


def unhidden_loads(rows):
    """(global loads followed by a product, those whose wait comes before the next one)."""
    loads = unhidden = 0
    for i, (_, _, wr, _, ins) in enumerate(rows):
        if "LDG" not in ins or wr is None:
            continue
        after = rows[i + 1:]
        first_mma = next((j for j, r in enumerate(after) if "HMMA" in r[4]), None)
        if first_mma is None:
            continue
        loads += 1
        first_wait = next((j for j, r in enumerate(after) if r[3] >> wr & 1), len(after))
        unhidden += first_wait < first_mma
    return loads, unhidden


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: kernel_sass.py DUMP_DIR OUT_DIR")
    src, dst = sys.argv[1], sys.argv[2]
    os.makedirs(dst, exist_ok=True)
    for name in sorted(f[:-6] for f in os.listdir(src) if f.endswith(".cache")):
        with open(os.path.join(src, name + ".cache"), "rb") as f:
            code = code_of(f.read())
        if code is None:
            print(f"{name}: no SM90 code found in the cache data")
            continue
        binary = os.path.join(dst, name + ".bin")
        with open(binary, "wb") as f:
            f.write(code)
        try:
            dis = subprocess.run(["nvdisasm", "-b", "SM90", "-hex", binary],
                                 capture_output=True, text=True)
        except FileNotFoundError:
            sys.exit("kernel_sass.py: no nvdisasm (the CUDA toolkit's) on PATH")
        os.remove(binary)
        rows = annotate(dis.stdout)
        with open(os.path.join(dst, name + ".sass"), "w") as f:
            for addr, sched, _, _, ins in rows:
                f.write(f"{addr} {sched:22s} {ins}\n")
        loads, unhidden = unhidden_loads(rows)
        mma = sum("HMMA" in r[4] for r in rows)
        print(f"{name}: {len(rows)} instructions, {mma} HMMA, {loads} global loads before "
              f"products, {unhidden} of them waited for before the next product")


if __name__ == "__main__":
    main()
