#!/usr/bin/python3
"""Adds the ONNX node-test column to `vkml ops --markdown` output (tools/gen-ops-doc.sh).

usage: ops_doc_tests.py OPS_MD TIERS_TSV CPU_PASS GPU_PASS > docs/ops.md

Per op: node tests passing on the CPU device and, with every node on the GPU, on Vulkan
device 0 (the conformance ratchets tests/cli/ratchet/onnx-node.cpu.pass and
onnx-node.gpu-resident.pass) out of the node tests of that op (TIERS.tsv of the corpus).
Then the totals per tier."""
import sys

md, tiers_path, cpu_path, gpu_path = sys.argv[1:5]


def names(path):
    return {l.strip() for l in open(path) if l.strip() and not l.startswith("#")}


cpu, gpu = names(cpu_path), names(gpu_path)
by_op, tier_of = {}, {}
for i, line in enumerate(open(tiers_path)):
    f = line.rstrip("\n").split("\t")
    if i == 0 or len(f) < 3:
        continue
    by_op.setdefault(f[1], []).append(f[0])
    tier_of[f[0]] = f[2]

out = []
for line in open(md).read().splitlines():
    if line.startswith("| Op |"):
        line += " Node tests: CPU / Vulkan (every node on the GPU) / all |"
    elif line.startswith("|----"):
        line += "------------|"
    elif line.startswith("| ") and line.count("|") >= 6:
        op = line.split("|")[1].strip()
        tests = by_op.get(op, [])
        line += " %d / %d / %d |" % (sum(t in cpu for t in tests), sum(t in gpu for t in tests),
                                     len(tests))
    out.append(line)
out.append("")
out.append("## Node tests by tier")
out.append("")
out.append("Tiers from the corpus (`onnx-node/TIERS.tsv`); a test counts as passing when the")
out.append("conformance ratchet lists it (`tests/cli/ratchet/`); on Vulkan, only with every node")
out.append("on the GPU (a GPU session also passes the tests whose nodes fall back to the CPU).")
out.append("")
out.append("| Tier | Tests | CPU | Vulkan device 0, every node on the GPU |")
out.append("|------|-------|-----|-----------------|")
for tier in ("core", "extended", "other"):
    tests = [t for t, k in tier_of.items() if k == tier]
    out.append("| %s | %d | %d | %d |" % (tier, len(tests), sum(t in cpu for t in tests),
                                          sum(t in gpu for t in tests)))
out.append("| all | %d | %d | %d |" % (len(tier_of), len(cpu & set(tier_of)), len(gpu & set(tier_of))))
print("\n".join(out))
