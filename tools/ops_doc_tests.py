#!/usr/bin/python3
"""Adds the ONNX node-test column to `vkml ops --markdown` output (tools/gen-ops-doc.sh).

usage: ops_doc_tests.py OPS_MD TIERS_TSV CPU_PASS GPU_PASS > docs/ops.md

Per op: node tests passing on the CPU device and, with every node on the GPU, on Vulkan
device 0 (the conformance ratchets tests/cli/ratchet/onnx-node.cpu.pass and
onnx-node.gpu-resident.pass) out of the node tests of that op (TIERS.tsv of the corpus).
Then the totals per tier, and the hand-written table of the model zoo's nodes that stay on
the CPU on Vulkan device 0 (ZOO_CPU_NODES below: update it with the zoo)."""
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

# The model zoo (tests/models/README.md) on Vulkan device 0 (lavapipe): the nodes that run
# on the CPU fallback and why (`VKML_LOG=info vkml conformance --tolerance model --device 0`
# prints "runs on the CPU: reason"; `vkml inspect MODEL`).
ZOO_CPU_NODES = """
## Model zoo: nodes on the CPU on Vulkan device 0

The model zoo (`tests/models/zoo`, 45 cases) passes on the CPU device and on Vulkan
device 0 (lavapipe); Mask R-CNN's masks and Keypoint R-CNN's keypoints come out of a Loop
the plan cannot bound, so those outputs are sized by each run (`vkml_tensor_info.unbounded`).
The 37 cases before torchvision's detectors run
with every node on the GPU but two; the detectors run their post-processing in the
dynamic tail on the host (below, "Detectors"). These nodes stay on the CPU:

| Case | Nodes on the CPU | Why |
|------|------------------|-----|
| alexnet_b1_op13 | 1: Gemm `/classifier/classifier.1/Gemm` | its weight `classifier.1.weight` is 150994944 bytes (151 MB), over the device's storage-buffer range (`maxStorageBufferRange`, 128 MiB on lavapipe); a device with a larger range runs it on the GPU |
| ssd_b1_op13 | 6: NonMaxSuppression `NonMaxSuppression_82`, then `Gather_84`, `Squeeze_86`, `/Gather_4`, `/Gather_5`, `/Gather_6` | NonMaxSuppression's output count depends on the data; the nodes that read it form the plan's dynamic tail, which runs on the CPU once the count is known |
| fasterrcnn_mobilenet_v3_large_320_fpn_b1_op13, fasterrcnn_resnet50_fpn_b1_op13 | 307, 383: from the RPN's first `NonZero` (its score filter) on: NMS, RoiAlign, the box head, the final NMS | the counts decide the next shapes; the box head's `Gemm`s (fc6: 12544 x 1024) run on the host with them |
| retinanet_resnet50_fpn_b1_op13, fcos_resnet50_fpn_b1_op13, ssdlite320_mobilenet_v3_large_b1_op13, ssd300_vgg16_b1_op13 | 483, 408, 102, 102: from the first score threshold (`Greater`, `NonZero`) on: TopK of the kept scores, box decoding, NMS | the same |
"""

# Where a detector's data-dependent ops run (tests/models/README.md, torchvision's
# detectors): the device where shapes are known at plan time, a host step where a count
# decides the next shapes.
DETECTOR_OPS = """
## Detectors: what runs on the device, what on the host

A node runs on a device when every shape it touches is known when the session is
planned. An op whose output extent is the data's (`NonZero`, `NonMaxSuppression`) is a
host step: the plan's dynamic tail (`lib/plan/tail.c`) runs it, and every node that
reads what it made, on the CPU device's kernels once the count is known, each run;
its chains of Conv, ConvTranspose, Gemm and MatMul of constant weights (and the
activations between them) whose rows are the count's (the R-CNN heads over their rois)
go to the session's GPU as sessions of their own, planned for the count rounded up to a
power of two (`lib/plan/tail_gpu.h`).
torchvision's detectors, as exported, go through such a step in their post-processing:

| Op | Where in the detectors | Runs |
|----|------------------------|------|
| TopK | the RPN's best `min(k, anchors)` per level; RetinaNet's, FCOS's and SSD's best `min(k, count)` after a score threshold | the RPN's on the device (k folds from the shapes at plan time); after a threshold in the tail (host), k computed again from the run's count |
| NonZero | score thresholds (`torch.where(scores > t)`), removal of small boxes | host step: the count decides the next shapes |
| NonMaxSuppression | RPN proposals, `batched_nms` of the final boxes | host step: the boxes kept decide the next shapes |
| Gather, GatherND | the kept boxes, scores and labels | after a host step, in the tail (host) |
| RoiAlign | R-CNN box, mask and keypoint heads over the proposals | a Vulkan kernel (`roialign.comp`, sample by sample) where its rois have a planned shape and its fixed grid stays under 2^30 samples in all; in the R-CNNs its rois come out of the RPN's NMS, so it runs in the tail on the host; the heads' convolutions and products after it on
the GPU. The CPU kernel sums each bin over the pixel rows and columns its samples touch (a bilinear sample is a product of two one-axis interpolations), so a grid denser than the pixels costs no more than they do |
| If | `batched_nms` on an empty box list | folded when its condition is known, else in the tail |
| Loop | Mask R-CNN's mask paste, Keypoint R-CNN's heatmap decoding | in the tail, on the host: its iterations only append, so they run at once on the worker pool |

So the backbone, the feature pyramid and the dense heads run on the GPU, and from the
first score threshold or NMS on, the post-processing runs on the host, except the
R-CNN heads' convolutions and products, which go to the GPU and back a chain at a time.
"""

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
out += ZOO_CPU_NODES.splitlines()
out += DETECTOR_OPS.splitlines()
print("\n".join(out))
