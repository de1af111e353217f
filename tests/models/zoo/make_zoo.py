#!/usr/bin/python3
"""Writes the model zoo: real model architectures exported from PyTorch, with reference
outputs from the same PyTorch model, in the ONNX backend-test layout that
`vkml conformance` reads (tests/models/README.md).

Usage: make_zoo.py OUTDIR [--only SUBSTR]... [--list]

Each case is OUTDIR/<case>/model.onnx and OUTDIR/<case>/test_data_set_0/{input,output}_K.pb.
Weights are random (torch.manual_seed per case; nothing is downloaded), BatchNorm running
statistics and affine parameters are random too (otherwise an eval-mode BatchNorm is the
identity and a wrong fold would go unseen). A case is written into its folder and its
stamp (the hash of this script) last: a folder whose stamp matches is complete and is
skipped, so a second run costs nothing and an edit to this script redoes every case.
Needs Debian's python3-torch 1.13, python3-torchvision 0.14 and python3-onnx 1.12; they
are imported only when a case has to be written.
"""
import argparse
import copy
import inspect
import hashlib
import io
import math
import os
import shutil
import sys
import time
import warnings

STAMP = ".zoo-stamp"
SCRIPT_HASH = hashlib.sha256(open(os.path.abspath(__file__), "rb").read()).hexdigest()

# torch, torchvision, nn, F, onnx, numpy_helper, np: imported by import_torch().
torch = torchvision = nn = F = onnx = numpy_helper = np = None


def import_torch():
    global torch, torchvision, nn, F, onnx, numpy_helper, np
    import numpy as np
    import onnx
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import torchvision
    from onnx import numpy_helper

    # One thread: the time goes to tracing and serializing, not to the small forward
    # passes, and the zoo tests of both devices may export side by side with other tests.
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore")


# ---------------------------------------------------------------------------------------
# Models written the way popular repositories write them. Classes are defined inside
# factories so that this file loads without torch.


def yolo_model(batch):
    """YOLOv5n/YOLOv8n-style: Conv+BN+SiLU, C2f and C3 blocks (Split/Concat), SPPF
    (MaxPool), nearest Upsample, a PAN neck and YOLOv5's Detect head (Sigmoid, grid and
    anchor decode in the graph, Reshape/Transpose). 64x64 input, 8 classes."""

    class Conv(nn.Module):  # ultralytics.nn.modules.Conv
        def __init__(self, c1, c2, k=1, s=1):
            super().__init__()
            self.conv = nn.Conv2d(c1, c2, k, s, k // 2, bias=False)
            self.bn = nn.BatchNorm2d(c2)
            self.act = nn.SiLU()

        def forward(self, x):
            return self.act(self.bn(self.conv(x)))

    class Bottleneck(nn.Module):
        def __init__(self, c, shortcut=True):
            super().__init__()
            self.cv1, self.cv2, self.add = Conv(c, c, 3), Conv(c, c, 3), shortcut

        def forward(self, x):
            y = self.cv2(self.cv1(x))
            return x + y if self.add else y

    class C2f(nn.Module):
        def __init__(self, c1, c2, n=1, shortcut=True):
            super().__init__()
            self.c = c2 // 2
            self.cv1 = Conv(c1, 2 * self.c)
            self.cv2 = Conv((2 + n) * self.c, c2)
            self.m = nn.ModuleList(Bottleneck(self.c, shortcut) for _ in range(n))

        def forward(self, x):
            y = list(self.cv1(x).chunk(2, 1))
            y.extend(m(y[-1]) for m in self.m)
            return self.cv2(torch.cat(y, 1))

    class C3(nn.Module):
        def __init__(self, c1, c2, n=1):
            super().__init__()
            c_ = c2 // 2
            self.cv1, self.cv2, self.cv3 = Conv(c1, c_), Conv(c1, c_), Conv(2 * c_, c2)
            self.m = nn.Sequential(*(Bottleneck(c_) for _ in range(n)))

        def forward(self, x):
            return self.cv3(torch.cat((self.m(self.cv1(x)), self.cv2(x)), 1))

    class SPPF(nn.Module):
        def __init__(self, c1, c2, k=5):
            super().__init__()
            c_ = c1 // 2
            self.cv1, self.cv2 = Conv(c1, c_), Conv(c_ * 4, c2)
            self.m = nn.MaxPool2d(kernel_size=k, stride=1, padding=k // 2)

        def forward(self, x):
            x = self.cv1(x)
            y1 = self.m(x)
            y2 = self.m(y1)
            return self.cv2(torch.cat((x, y1, y2, self.m(y2)), 1))

    class Detect(nn.Module):  # YOLOv5 models/yolo.py Detect, export path
        def __init__(self, nc, anchors, ch, strides, size):
            super().__init__()
            self.no, self.na = nc + 5, len(anchors[0]) // 2
            self.m = nn.ModuleList(nn.Conv2d(c, self.no * self.na, 1) for c in ch)
            self.stride = strides
            for i, s in enumerate(strides):
                ny = nx = size // s
                yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")
                grid = torch.stack((xv, yv), 2).expand(1, self.na, ny, nx, 2).float()
                a = torch.tensor(anchors[i], dtype=torch.float32).view(1, self.na, 1, 1, 2)
                self.register_buffer("grid%d" % i, grid)
                self.register_buffer("anchor_grid%d" % i, a.expand(1, self.na, ny, nx, 2).clone())

        def forward(self, xs):
            z = []
            for i, x in enumerate(xs):
                x = self.m[i](x)
                bs, _, ny, nx = x.shape
                x = x.view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
                y = x.sigmoid()
                grid, anchor_grid = getattr(self, "grid%d" % i), getattr(self, "anchor_grid%d" % i)
                xy = (y[..., 0:2] * 2 - 0.5 + grid) * self.stride[i]
                wh = (y[..., 2:4] * 2) ** 2 * anchor_grid
                y = torch.cat((xy, wh, y[..., 4:]), -1)
                z.append(y.view(bs, -1, self.no))
            return torch.cat(z, 1)

    class Yolo(nn.Module):
        def __init__(self, size=64, nc=8):
            super().__init__()
            self.b0, self.b1, self.b2 = Conv(3, 16, 3, 2), Conv(16, 32, 3, 2), C2f(32, 32)
            self.b3, self.b4 = Conv(32, 64, 3, 2), C2f(64, 64)
            self.b5, self.b6 = Conv(64, 128, 3, 2), C3(128, 128)
            self.b7, self.b8, self.b9 = Conv(128, 128, 3, 2), C2f(128, 128), SPPF(128, 128)
            self.up = nn.Upsample(None, 2, "nearest")
            self.n4, self.n3 = C2f(256, 128, shortcut=False), C2f(192, 64, shortcut=False)
            self.d3, self.o4 = Conv(64, 64, 3, 2), C2f(192, 128, shortcut=False)
            self.d4, self.o5 = Conv(128, 128, 3, 2), C2f(256, 128, shortcut=False)
            anchors = ([10, 13, 16, 30, 33, 23], [30, 61, 62, 45, 59, 119],
                       [116, 90, 156, 198, 373, 326])
            self.detect = Detect(nc, anchors, (64, 128, 128), (8, 16, 32), size)

        def forward(self, x):
            p3 = self.b4(self.b3(self.b2(self.b1(self.b0(x)))))
            p4 = self.b6(self.b5(p3))
            p5 = self.b9(self.b8(self.b7(p4)))
            n4 = self.n4(torch.cat((self.up(p5), p4), 1))
            o3 = self.n3(torch.cat((self.up(n4), p3), 1))
            o4 = self.o4(torch.cat((self.d3(o3), n4), 1))
            o5 = self.o5(torch.cat((self.d4(o4), p5), 1))
            return self.detect([o3, o4, o5])

    return Yolo(), [image(batch, 64)], ["images"], ["output0"]


def ssd_model(batch):
    """SSD-style: a small backbone, box and class heads on two feature maps, box decode
    against priors in the graph, softmax scores, then TopK and torchvision's batched_nms
    (ONNX NonMaxSuppression, opset 11+). Outputs: all boxes and scores, then the kept
    detections (boxes, scores, int64 labels). Batch 1 (the NMS part takes image 0)."""

    def conv(c1, c2):
        return nn.Sequential(nn.Conv2d(c1, c2, 3, 2, 1), nn.ReLU(inplace=True))

    class SSD(nn.Module):
        def __init__(self, size=64, nc=6, n_anchors=4):
            super().__init__()
            self.nc = nc
            self.stem = nn.Sequential(conv(3, 16), conv(16, 32), conv(32, 64))
            self.extra = conv(64, 64)
            self.loc = nn.ModuleList(nn.Conv2d(64, n_anchors * 4, 3, 1, 1) for _ in range(2))
            self.conf = nn.ModuleList(nn.Conv2d(64, n_anchors * nc, 3, 1, 1) for _ in range(2))
            priors = []
            for fm, scale in ((size // 8, 0.2), (size // 16, 0.45)):
                for i in range(fm):
                    for j in range(fm):
                        for ar in (1.0, 2.0, 0.5, 1.5):
                            priors.append([(j + 0.5) / fm, (i + 0.5) / fm,
                                           scale * math.sqrt(ar), scale / math.sqrt(ar)])
            self.register_buffer("priors", torch.tensor(priors, dtype=torch.float32))

        def forward(self, x):
            f1 = self.stem(x)
            f2 = self.extra(f1)
            b = x.shape[0]
            loc = torch.cat([h(f).permute(0, 2, 3, 1).reshape(b, -1, 4)
                             for h, f in zip(self.loc, (f1, f2))], 1)
            conf = torch.cat([h(f).permute(0, 2, 3, 1).reshape(b, -1, self.nc)
                              for h, f in zip(self.conf, (f1, f2))], 1)
            p = self.priors
            centre = p[:, :2] + loc[..., :2] * 0.1 * p[:, 2:]
            wh = p[:, 2:] * torch.exp(loc[..., 2:] * 0.2)
            boxes = torch.cat((centre - wh / 2, centre + wh / 2), -1)
            scores = F.softmax(conf, -1)
            best, labels = scores[0, :, 1:].max(-1)
            top, idx = best.topk(100)
            kept_boxes, kept_labels = boxes[0][idx], labels[idx] + 1
            keep = torchvision.ops.batched_nms(kept_boxes, top, kept_labels, 0.45)
            return boxes, scores, kept_boxes[keep], top[keep], kept_labels[keep]

    return (SSD(), [image(batch, 64)], ["image"],
            ["boxes", "scores", "det_boxes", "det_scores", "det_labels"])


def face_model(batch):
    """RetinaFace (mobilenet0.25)-style face detector: depthwise-separable backbone with
    LeakyReLU, a 3-level FPN (nearest interpolate to the lateral's size, Add), SSH context
    modules (Concat, ReLU), class/box/landmark heads (Transpose, Reshape), softmax.
    Exported with its BatchNormalization nodes kept."""

    def conv_bn(i, o, s=1, leaky=0.0, k=3):
        act = nn.LeakyReLU(negative_slope=leaky, inplace=True)
        return nn.Sequential(nn.Conv2d(i, o, k, s, k // 2, bias=False), nn.BatchNorm2d(o), act)

    def conv_bn_no_relu(i, o):
        return nn.Sequential(nn.Conv2d(i, o, 3, 1, 1, bias=False), nn.BatchNorm2d(o))

    def conv_dw(i, o, s):
        return nn.Sequential(
            nn.Conv2d(i, i, 3, s, 1, groups=i, bias=False), nn.BatchNorm2d(i),
            nn.LeakyReLU(negative_slope=0.1, inplace=True),
            nn.Conv2d(i, o, 1, 1, 0, bias=False), nn.BatchNorm2d(o),
            nn.LeakyReLU(negative_slope=0.1, inplace=True))

    class SSH(nn.Module):
        def __init__(self, i, o):
            super().__init__()
            self.conv3 = conv_bn_no_relu(i, o // 2)
            self.conv5_1 = conv_bn(i, o // 4, leaky=0.1)
            self.conv5_2 = conv_bn_no_relu(o // 4, o // 4)
            self.conv7_2 = conv_bn(o // 4, o // 4, leaky=0.1)
            self.conv7_3 = conv_bn_no_relu(o // 4, o // 4)

        def forward(self, x):
            c5 = self.conv5_1(x)
            c7 = self.conv7_2(c5)
            out = torch.cat([self.conv3(x), self.conv5_2(c5), self.conv7_3(c7)], 1)
            return F.relu(out)

    class RetinaFace(nn.Module):
        def __init__(self, a=2, c=32):
            super().__init__()
            self.stage1 = nn.Sequential(conv_bn(3, 8, 2, 0.1), conv_dw(8, 16, 1),
                                        conv_dw(16, 32, 2), conv_dw(32, 32, 1),
                                        conv_dw(32, 64, 2), conv_dw(64, 64, 1))
            self.stage2 = nn.Sequential(conv_dw(64, 128, 2), conv_dw(128, 128, 1))
            self.stage3 = nn.Sequential(conv_dw(128, 256, 2), conv_dw(256, 256, 1))
            leaky = 0.1 if c <= 64 else 0.0
            self.out1, self.out2, self.out3 = (conv_bn(i, c, 1, leaky, k=1) for i in (64, 128, 256))
            self.merge1, self.merge2 = conv_bn(c, c, leaky=leaky), conv_bn(c, c, leaky=leaky)
            self.ssh = nn.ModuleList(SSH(c, c) for _ in range(3))
            self.cls = nn.ModuleList(nn.Conv2d(c, a * 2, 1) for _ in range(3))
            self.box = nn.ModuleList(nn.Conv2d(c, a * 4, 1) for _ in range(3))
            self.ldm = nn.ModuleList(nn.Conv2d(c, a * 10, 1) for _ in range(3))

        def forward(self, x):
            x1 = self.stage1(x)
            x2 = self.stage2(x1)
            x3 = self.stage3(x2)
            o1, o2, o3 = self.out1(x1), self.out2(x2), self.out3(x3)
            o2 = self.merge2(o2 + F.interpolate(o3, size=[o2.size(2), o2.size(3)], mode="nearest"))
            o1 = self.merge1(o1 + F.interpolate(o2, size=[o1.size(2), o1.size(3)], mode="nearest"))
            feats = [s(f) for s, f in zip(self.ssh, (o1, o2, o3))]

            def head(convs, n):
                return torch.cat([h(f).permute(0, 2, 3, 1).contiguous().view(f.shape[0], -1, n)
                                  for h, f in zip(convs, feats)], 1)

            return head(self.box, 4), F.softmax(head(self.cls, 2), -1), head(self.ldm, 10)

    return RetinaFace(), [image(batch, 64)], ["input"], ["loc", "conf", "landms"]


def unet_model(batch):
    """A small UNet (milesial/Pytorch-UNet): DoubleConv (Conv+BN+ReLU), MaxPool down,
    ConvTranspose up on two levels and bilinear Upsample (align_corners) on one, Pad,
    Concat skip connections. Exported with its BatchNormalization nodes kept."""

    class DoubleConv(nn.Sequential):
        def __init__(self, i, o, mid=None):
            mid = mid or o
            super().__init__(nn.Conv2d(i, mid, 3, padding=1, bias=False), nn.BatchNorm2d(mid),
                             nn.ReLU(inplace=True), nn.Conv2d(mid, o, 3, padding=1, bias=False),
                             nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    class Up(nn.Module):
        def __init__(self, i, o, bilinear):
            super().__init__()
            if bilinear:
                self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
                self.conv = DoubleConv(i, o, i // 2)
            else:
                self.up = nn.ConvTranspose2d(i, i // 2, kernel_size=2, stride=2)
                self.conv = DoubleConv(i, o)

        def forward(self, x1, x2):
            x1 = self.up(x1)
            dy, dx = x2.size()[2] - x1.size()[2], x2.size()[3] - x1.size()[3]
            x1 = F.pad(x1, [dx // 2, dx - dx // 2, dy // 2, dy - dy // 2])
            return self.conv(torch.cat([x2, x1], dim=1))

    class UNet(nn.Module):
        def __init__(self, n_classes=3):
            super().__init__()
            self.inc = DoubleConv(3, 8)
            self.down = nn.ModuleList(nn.Sequential(nn.MaxPool2d(2), DoubleConv(i, o))
                                      for i, o in ((8, 16), (16, 32), (32, 64)))
            self.up1, self.up2 = Up(64, 32, False), Up(32, 16, False)
            self.up3 = Up(16 + 8, 8, True)  # 16 channels up, 8 from the skip
            self.outc = nn.Conv2d(8, n_classes, kernel_size=1)

        def forward(self, x):
            x1 = self.inc(x)
            x2 = self.down[0](x1)
            x3 = self.down[1](x2)
            x4 = self.down[2](x3)
            return self.outc(self.up3(self.up2(self.up1(x4, x3), x2), x1))

    return UNet(), [image(batch, 64)], ["input"], ["logits"]


def vit_model(batch):
    """ViT-Tiny-style (timm vision_transformer): patch Conv, class token (Expand, Concat),
    position embedding, pre-norm blocks with LayerNorm, multi-head attention written as
    qkv Linear + Reshape/Transpose + MatMul + Softmax, GELU MLP. 32x32 input, patch 8,
    dim 64, 4 heads, 2 blocks."""

    class Attention(nn.Module):
        def __init__(self, dim, heads):
            super().__init__()
            self.heads, self.scale = heads, (dim // heads) ** -0.5
            self.qkv, self.proj = nn.Linear(dim, dim * 3), nn.Linear(dim, dim)

        def forward(self, x):
            B, N, C = x.shape
            qkv = self.qkv(x).reshape(B, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
            q, k, v = qkv.unbind(0)
            attn = (q @ k.transpose(-2, -1)) * self.scale
            attn = attn.softmax(dim=-1)
            return self.proj((attn @ v).transpose(1, 2).reshape(B, N, C))

    class Block(nn.Module):
        def __init__(self, dim, heads, hidden):
            super().__init__()
            self.norm1, self.attn = nn.LayerNorm(dim, eps=1e-6), Attention(dim, heads)
            self.norm2 = nn.LayerNorm(dim, eps=1e-6)
            self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))

        def forward(self, x):
            x = x + self.attn(self.norm1(x))
            return x + self.mlp(self.norm2(x))

    class ViT(nn.Module):
        def __init__(self, size=32, patch=8, dim=64, depth=2, heads=4, classes=10):
            super().__init__()
            self.patch_embed = nn.Conv2d(3, dim, patch, patch)
            self.cls_token = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
            self.pos_embed = nn.Parameter(torch.randn(1, (size // patch) ** 2 + 1, dim) * 0.02)
            self.blocks = nn.Sequential(*(Block(dim, heads, dim * 2) for _ in range(depth)))
            self.norm, self.head = nn.LayerNorm(dim, eps=1e-6), nn.Linear(dim, classes)

        def forward(self, x):
            x = self.patch_embed(x).flatten(2).transpose(1, 2)
            x = torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1)
            x = self.norm(self.blocks(x + self.pos_embed))
            return self.head(x[:, 0])

    return ViT(), [image(batch, 32)], ["pixel_values"], ["logits"]


def bert_model(batch):
    """BERT-style encoder (HuggingFace modeling_bert): word, position and token-type
    embeddings (Gather), LayerNorm, self-attention as batched MatMul with the padding
    mask applied through Expand and Where, GELU written with erf, 2 layers, hidden 64,
    4 heads, sequence 16; pooler (Tanh). Inputs: int64 input_ids and attention_mask."""
    seq, vocab, hidden, heads, layers = 16, 100, 64, 4, 2

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.query, self.key, self.value = (nn.Linear(hidden, hidden) for _ in range(3))
            self.attn_out = nn.Linear(hidden, hidden)
            self.attn_norm = nn.LayerNorm(hidden, eps=1e-12)
            self.inter, self.out = nn.Linear(hidden, hidden * 2), nn.Linear(hidden * 2, hidden)
            self.out_norm = nn.LayerNorm(hidden, eps=1e-12)

        def split(self, x):
            b, s, _ = x.shape
            return x.view(b, s, heads, hidden // heads).permute(0, 2, 1, 3)

        def forward(self, x, mask):
            q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
            scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(hidden // heads)
            scores = torch.where(mask, scores, torch.tensor(torch.finfo(scores.dtype).min))
            ctx = torch.matmul(scores.softmax(-1), v).permute(0, 2, 1, 3).contiguous()
            ctx = ctx.view(x.shape[0], x.shape[1], hidden)
            x = self.attn_norm(self.attn_out(ctx) + x)
            h = self.inter(x)
            h = h * 0.5 * (1.0 + torch.erf(h / math.sqrt(2.0)))
            return self.out_norm(self.out(h) + x)

    class Bert(nn.Module):
        def __init__(self):
            super().__init__()
            self.word = nn.Embedding(vocab, hidden, padding_idx=0)
            self.position, self.token_type = nn.Embedding(32, hidden), nn.Embedding(2, hidden)
            self.register_buffer("position_ids", torch.arange(32).expand((1, -1)))
            self.norm = nn.LayerNorm(hidden, eps=1e-12)
            self.layers = nn.ModuleList(Layer() for _ in range(layers))
            self.pooler = nn.Linear(hidden, hidden)

        def forward(self, input_ids, attention_mask):
            b, s = input_ids.shape
            types = torch.zeros_like(input_ids)
            positions = self.position(self.position_ids[:, :s])
            x = self.norm(self.word(input_ids) + self.token_type(types) + positions)
            mask = attention_mask[:, None, None, :].to(torch.bool).expand(b, heads, s, s)
            for layer in self.layers:
                x = layer(x, mask)
            return x, torch.tanh(self.pooler(x[:, 0]))

    gen = torch.Generator().manual_seed(1)
    ids = torch.randint(1, vocab, (batch, seq), generator=gen)
    lengths = torch.randint(seq // 2, seq + 1, (batch,), generator=gen)
    mask = (torch.arange(seq)[None, :] < lengths[:, None]).long()
    ids = ids * mask  # padding id 0 after each sequence
    return (Bert(), [ids, mask], ["input_ids", "attention_mask"],
            ["last_hidden_state", "pooler_output"])


# ---------------------------------------------------------------------------------------
# torchvision models.


def torchvision_model(arch, size, **kw):
    def make(batch):
        model = getattr(torchvision.models, arch)(weights=None, **kw)
        return model, [image(batch, size)], ["input"], ["logits"]

    make.__doc__ = "torchvision.models.%s, %dx%d input" % (arch, size, size)
    return make


def segmentation_model(arch, size, **kw):
    def make(batch):
        make_model = getattr(torchvision.models.segmentation, arch)
        model = make_model(weights=None, weights_backbone=None, **kw)

        class Out(nn.Module):  # the models return {"out": ...}
            def __init__(self, m):
                super().__init__()
                self.m = m

            def forward(self, x):
                return self.m(x)["out"]

        return Out(model), [image(batch, size)], ["input"], ["out"]

    make.__doc__ = "torchvision.models.segmentation.%s, %dx%d input" % (arch, size, size)
    return make


# torchvision's detectors: each takes a list of [3,H,W] images in 0..1 and returns a list
# of dicts; a wrapper takes one image and returns the dict's tensors in a fixed order, so
# the export is the detector's own graph (the exporter flattens lists and dicts alike).

# The layers whose outputs decide which boxes are kept: classification logits (scores,
# rankings, thresholds) and box regressions (positions, hence NMS overlaps).
DETECTOR_HEADS = {
    "rcnn": (("rpn.head.cls_logits", 2.0, 0.0), ("rpn.head.bbox_pred", 0.2, 0.0),
             ("roi_heads.box_predictor.cls_score", 2.0, 0.0),
             ("roi_heads.box_predictor.bbox_pred", 0.2, 0.0)),
    "retinanet": (("head.classification_head.cls_logits", 2.0, -5.0),
                  ("head.regression_head.bbox_reg", 0.2, 0.0)),
    "fcos": (("head.classification_head.cls_logits", 2.0, -2.0),
             ("head.regression_head.bbox_ctrness", 1.0, 1.0),
             ("head.regression_head.bbox_reg", 0.2, 0.0)),
    "ssd": (("head.classification_head.module_list", 1.0, 0.0),
            ("head.regression_head.module_list", 0.2, 0.0)),
}
DETECTOR_EXTRA_HEADS = {
    "masks": (("roi_heads.mask_predictor.mask_fcn_logits", 2.0, 0.0),),
    "keypoints": (("roi_heads.keypoint_predictor.kps_score_lowres", 4.0, 0.0),),
}


def last_layers(model, path):
    """The last Conv2d/ConvTranspose2d/Linear layer at `path` (a layer, or each of a
    ModuleList of per-level heads)."""
    m = model.get_submodule(path)
    parts = m if isinstance(m, nn.ModuleList) else [m]
    kinds = (nn.Conv2d, nn.ConvTranspose2d, nn.Linear)
    return [[x for x in p.modules() if isinstance(x, kinds)][-1] for p in parts]


def batchnorm_from_data(model, image):
    """BatchNorm statistics measured on `image` (one forward with the BatchNorm layers in
    training mode) and random affine parameters. randomize_batchnorm's random statistics
    do not normalise: through a detector's depth each layer's output collapses to its
    per-channel constant, every anchor of a level scores the same to float32's last bit,
    and which boxes are kept is decided by rounding."""
    bns = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    gen = torch.Generator().manual_seed(2)
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None  # a cumulative average: this one batch
        bn.train()
    with torch.no_grad():
        model([image, image.flip(-1)])  # two images: some layers reach 1x1
        for bn in bns:
            bn.eval()
            if bn.affine:
                bn.weight.copy_(torch.rand(bn.num_features, generator=gen) + 0.5)
                bn.bias.copy_(torch.randn(bn.num_features, generator=gen) * 0.1)


def calibrate(model, image, path, std, mean):
    """Scales the layers at `path` so that their outputs on `image` have this spread and
    mean. torchvision initialises the heads with tiny weights (std 0.01) and RetinaNet's
    logits with a prior of 0.01: with random weights every score would then be nearly
    equal, or under the threshold, and which boxes survive would be decided by rounding."""
    for layer in last_layers(model, path):
        outs = []
        hook = layer.register_forward_hook(lambda m, i, o: outs.append(o.detach().flatten()))
        with torch.no_grad():
            model([image])
        hook.remove()
        o = torch.cat(outs)
        k = std / max(float(o.std()), 1e-12)
        with torch.no_grad():
            layer.weight.mul_(k)
            layer.bias.mul_(k).add_(mean - float(o.mean()) * k)


def same_detections(a, b):
    """Whether two runs keep the same boxes: same labels in the same order, boxes and
    everything else within 1e-3 of their scale."""
    if a[0].shape != b[0].shape:
        return False
    for x, y in zip(a, b):
        if x.dtype == torch.int64:
            if not torch.equal(x, y):
                return False
        elif x.numel() and float((x.double() - y.double()).abs().max()) > \
                1e-3 * max(1.0, float(y.double().abs().max())):
            return False
    return True


def detection_model(arch, size, outputs, heads, extra=(), **kw):
    """torchvision.models.detection.<arch> with random weights, a `size` x `size` image
    (min_size = max_size = size where the model takes them). Its heads are calibrated
    (calibrate()), and the seed is the first from 0 whose float64 run keeps the same
    boxes as its float32 run, so no kept box is decided by the last bit."""

    def make(batch):
        class Detector(nn.Module):
            def __init__(self, m):
                super().__init__()
                self.m = m

            def forward(self, image):
                r = self.m([image])[0]
                return tuple(r[k] for k in outputs)

        assert batch == 1, "torchvision's detectors take one image here"
        gen = torch.Generator().manual_seed(1)
        img = torch.rand(3, size, size, generator=gen).half().float()
        for seed in range(8):
            torch.manual_seed(seed)
            m = getattr(torchvision.models.detection, arch)(
                weights=None, weights_backbone=None, **kw).eval()
            batchnorm_from_data(m, img)
            for path, std, mean in DETECTOR_HEADS[heads] + sum(
                    (DETECTOR_EXTRA_HEADS[e] for e in extra), ()):
                calibrate(m, img, path, std, mean)
            model = Detector(m)
            with torch.no_grad():
                single = model(img)
                double = copy.deepcopy(model).double()(img.double())
            if single[0].shape[0] > 0 and same_detections(single, double):
                return model, [img], ["image"], list(outputs)
            print("zoo: %s seed %d: %d boxes, float64 %s; next seed" %
                  (arch, seed, single[0].shape[0],
                   "agrees" if same_detections(single, double) else "differs"))
        raise RuntimeError("%s: no seed of 0..7 keeps the same boxes in float64" % arch)

    make.__doc__ = "torchvision.models.detection.%s, %dx%d input" % (arch, size, size)
    make.own_batchnorm = True
    return make


BOXES = ("boxes", "labels", "scores")
SSD_KW = {"num_classes": 5, "score_thresh": 0.5, "detections_per_img": 20}
RCNN_KW = {"min_size": 128, "max_size": 128, "rpn_pre_nms_top_n_test": 200,
           "rpn_post_nms_top_n_test": 100, "box_detections_per_img": 20, "num_classes": 5}
ONE_STAGE_KW = {"min_size": 128, "max_size": 128, "detections_per_img": 20, "num_classes": 5}

# ---------------------------------------------------------------------------------------
# The cases.

NO_AUX = {"aux_logits": False, "init_weights": True}

# name: (factory, BatchNormalization kept in the export)
MODELS = {
    "resnet18": (torchvision_model("resnet18", 64), False),
    "resnet50": (torchvision_model("resnet50", 64), False),
    "mobilenet_v2": (torchvision_model("mobilenet_v2", 64), False),
    "mobilenet_v3_small": (torchvision_model("mobilenet_v3_small", 64), False),
    "squeezenet1_0": (torchvision_model("squeezenet1_0", 64), False),
    "squeezenet1_1": (torchvision_model("squeezenet1_1", 64), False),
    "shufflenet_v2_x0_5": (torchvision_model("shufflenet_v2_x0_5", 64), False),
    "densenet121": (torchvision_model("densenet121", 64), False),
    "googlenet": (torchvision_model("googlenet", 64, **NO_AUX), False),
    # 75x75 is the least input inception_v3's strides allow.
    "inception_v3": (torchvision_model("inception_v3", 75, **NO_AUX), False),
    "efficientnet_b0": (torchvision_model("efficientnet_b0", 64), False),
    "regnet_y_400mf": (torchvision_model("regnet_y_400mf", 64), False),
    # AdaptiveAvgPool2d(6) exports only when 6 divides the feature size: 224 gives 6x6.
    "alexnet": (torchvision_model("alexnet", 224), False),
    "convnext_tiny": (torchvision_model("convnext_tiny", 64), False),
    "lraspp_mobilenet_v3_large": (segmentation_model("lraspp_mobilenet_v3_large", 64), False),
    "deeplabv3_mobilenet_v3_large": (segmentation_model("deeplabv3_mobilenet_v3_large", 64), False),
    "fcn_resnet50": (segmentation_model("fcn_resnet50", 64), False),
    "vit_tiny": (vit_model, False),
    "yolo": (yolo_model, False),
    "ssd": (ssd_model, False),
    "retinaface": (face_model, True),
    "unet": (unet_model, True),
    "bert": (bert_model, False),
    # torchvision's detectors: random weights, small images, 5 classes (tests/models/README.md)
    "ssdlite320_mobilenet_v3_large": (detection_model(
        "ssdlite320_mobilenet_v3_large", 320, BOXES, "ssd", **SSD_KW), False),
    "ssd300_vgg16": (detection_model("ssd300_vgg16", 300, BOXES, "ssd", **SSD_KW), False),
    "retinanet_resnet50_fpn": (detection_model(
        "retinanet_resnet50_fpn", 128, BOXES, "retinanet", **ONE_STAGE_KW), False),
    "fcos_resnet50_fpn": (detection_model(
        "fcos_resnet50_fpn", 128, BOXES, "fcos", **ONE_STAGE_KW), False),
    "fasterrcnn_mobilenet_v3_large_320_fpn": (detection_model(
        "fasterrcnn_mobilenet_v3_large_320_fpn", 128, BOXES, "rcnn", **RCNN_KW), False),
    "fasterrcnn_resnet50_fpn": (detection_model(
        "fasterrcnn_resnet50_fpn", 128, BOXES, "rcnn", **RCNN_KW), False),
    "maskrcnn_resnet50_fpn": (detection_model(
        "maskrcnn_resnet50_fpn", 128, BOXES + ("masks",), "rcnn", ("masks",),
        **RCNN_KW), False),
    "keypointrcnn_resnet50_fpn": (detection_model(
        "keypointrcnn_resnet50_fpn", 128, BOXES + ("keypoints", "keypoints_scores"), "rcnn",
        ("keypoints",), **dict(RCNN_KW, num_classes=2)), False),
}

# (model, batch, opset, fp16): every model at batch 1, opset 13; more for some.
CASES = [(m, 1, 13, False) for m in MODELS]
CASES += [(m, 4, 13, False) for m in ("resnet18", "mobilenet_v2", "yolo")]
CASES += [(m, 1, op, False)
          for m in ("resnet18", "mobilenet_v2", "yolo", "bert") for op in (11, 17)]
CASES += [(m, 1, 13, True) for m in ("resnet18", "mobilenet_v2", "yolo")]


def case_name(model, batch, opset, fp16):
    return "%s_b%d_op%d%s" % (model, batch, opset, "_fp16" if fp16 else "")


# ---------------------------------------------------------------------------------------
# Building a case.


def image(batch, size):
    """A random image batch, rounded to float16-representable values so that an fp16
    variant's input is exactly the input its fp32 reference saw."""
    gen = torch.Generator().manual_seed(1)
    return torch.randn(batch, 3, size, size, generator=gen).half().float()


def randomize_batchnorm(model):
    gen = torch.Generator().manual_seed(2)
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            n = m.num_features
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(n, generator=gen) + 0.5)
                if m.affine:
                    m.weight.copy_(torch.rand(n, generator=gen) + 0.5)
                    m.bias.copy_(torch.randn(n, generator=gen) * 0.1)


def export(model, inputs, input_names, output_names, opset, keep_batchnorm):
    f = io.BytesIO()
    mode = torch.onnx.TrainingMode.PRESERVE if keep_batchnorm else torch.onnx.TrainingMode.EVAL
    # Newer torch (the GPU machine's 2.x) exports through dynamo by default: ask for the
    # TorchScript exporter that Debian's 1.13 has, so both make the same kind of graph.
    extra = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
    torch.onnx.export(model, tuple(inputs), f, opset_version=opset, input_names=input_names,
                      output_names=output_names, do_constant_folding=True, training=mode,
                      **extra)
    return onnx.load_from_string(f.getvalue())


# Inputs that stay float32 in a float16 model (ONNX types them tensor(float) always).
FLOAT32_INPUTS = {"Resize": (1, 2), "Upsample": (1,)}


def to_float16(model):
    """The same graph with float16 weights, constants and graph inputs/outputs: float
    initializers and Constant values become float16, Cast-to-float becomes Cast-to-float16,
    and value types follow. Nothing is inserted; Resize scales stay float32."""
    g = model.graph
    keep = {n.input[i] for n in g.node
            for i in FLOAT32_INPUTS.get(n.op_type, ()) if i < len(n.input)}
    FLOAT, HALF = onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16

    def half(t):
        return numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float16), t.name)

    for i, t in enumerate(g.initializer):
        if t.data_type == FLOAT and t.name not in keep:
            g.initializer[i].CopyFrom(half(t))
    for n in g.node:
        if n.output and n.output[0] in keep:
            continue
        for a in n.attribute:
            constant = n.op_type in ("Constant", "ConstantOfShape") and a.name == "value"
            if constant and a.t.data_type == FLOAT:
                a.t.CopyFrom(half(a.t))
            elif n.op_type == "Constant" and a.name == "value_float":
                raise ValueError("Constant value_float: not converted")
            elif n.op_type == "Cast" and a.name == "to" and a.i == FLOAT:
                a.i = HALF
    for v in list(g.input) + list(g.output) + list(g.value_info):
        if v.type.tensor_type.elem_type == FLOAT and v.name not in keep:
            v.type.tensor_type.elem_type = HALF
    onnx.checker.check_model(model)
    onnx.shape_inference.infer_shapes(model, strict_mode=True)
    return model


def write_tensors(folder, prefix, arrays):
    os.makedirs(folder, exist_ok=True)
    for k, a in enumerate(arrays):
        with open(os.path.join(folder, "%s_%d.pb" % (prefix, k)), "wb") as f:
            f.write(numpy_helper.from_array(np.ascontiguousarray(a)).SerializeToString())


def build_case(out, name, model_name, batch, opset, fp16):
    factory, keep_bn = MODELS[model_name]
    torch.manual_seed(0)
    t0 = time.monotonic()
    model, inputs, input_names, output_names = factory(batch)
    model.eval()
    if not getattr(factory, "own_batchnorm", False):
        randomize_batchnorm(model)
    with torch.no_grad():
        t1 = time.monotonic()
        outputs = model(*inputs)
        t_ref = time.monotonic() - t1
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    proto = export(model, inputs, input_names, output_names, opset, keep_bn)
    ins = [t.numpy() for t in inputs]
    outs = [t.numpy() for t in outputs]
    if fp16:
        proto = to_float16(proto)
        ins = [a.astype(np.float16) if a.dtype == np.float32 else a for a in ins]
        outs = [a.astype(np.float16) if a.dtype == np.float32 else a for a in outs]
    folder = os.path.join(out, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    onnx.save(proto, os.path.join(folder, "model.onnx"))
    write_tensors(os.path.join(folder, "test_data_set_0"), "input", ins)
    write_tensors(os.path.join(folder, "test_data_set_0"), "output", outs)
    with open(os.path.join(folder, STAMP), "w") as f:
        f.write(SCRIPT_HASH + "\n")
    size_mb = os.path.getsize(os.path.join(folder, "model.onnx")) / 1e6
    print("zoo: %-36s %6.1f s (torch forward %.2f s), %.1f MB" %
          (name, time.monotonic() - t0, t_ref, size_mb), flush=True)


def complete(folder):
    try:
        with open(os.path.join(folder, STAMP)) as f:
            return f.read().strip() == SCRIPT_HASH
    except OSError:
        return False


def remove_stale(out, names):
    """Case folders of an earlier version of this script that it no longer writes."""
    for entry in sorted(os.listdir(out)):
        path = os.path.join(out, entry)
        if entry not in names and os.path.exists(os.path.join(path, STAMP)):
            print("zoo: removing %s (no longer a case)" % entry)
            shutil.rmtree(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="the zoo folder (in the build tree)")
    ap.add_argument("--only", action="append", default=[], help="cases whose name contains this")
    ap.add_argument("--list", action="store_true", help="print the case names and exit")
    args = ap.parse_args()
    cases = [(case_name(*c), c) for c in CASES]
    if args.list:
        print("\n".join(n for n, _ in cases))
        return 0
    os.makedirs(args.out, exist_ok=True)
    remove_stale(args.out, {n for n, _ in cases})
    chosen = [(n, c) for n, c in cases if not args.only or any(s in n for s in args.only)]
    todo = [(n, c) for n, c in chosen if not complete(os.path.join(args.out, n))]
    print("zoo: %d cases in %s, %d to write" % (len(chosen), args.out, len(todo)), flush=True)
    if not todo:
        return 0
    import_torch()
    t0 = time.monotonic()
    for name, c in todo:
        build_case(args.out, name, *c)
    print("zoo: wrote %d cases in %.1f s" % (len(todo), time.monotonic() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
