"""The benchmark's models (tests/bench/bench.py): PyTorch modules with random weights
(torch.manual_seed per model; nothing is downloaded), each at its full size (the GPU
machine) and at a small size (--small: lavapipe or the CPU device, a few minutes).

Each entry: key -> (label, factory(small) -> (module, input shape)). mnist-8 is not here:
it comes as ONNX from the corpus, with its reference output.
"""
import math

import torch
import torch.nn as nn
import torchvision


class ConvBnSiLU(nn.Module):
    def __init__(self, c1, c2, k=1, s=1):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(c2)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Bottleneck(nn.Module):
    def __init__(self, c, shortcut):
        super().__init__()
        self.a = ConvBnSiLU(c, c, 3)
        self.b = ConvBnSiLU(c, c, 3)
        self.shortcut = shortcut

    def forward(self, x):
        y = self.b(self.a(x))
        return x + y if self.shortcut else y


class C2f(nn.Module):
    """Split in two, n bottlenecks on one half, concatenate every stage, 1x1 conv."""

    def __init__(self, c1, c2, n, shortcut=True):
        super().__init__()
        self.c = c2 // 2
        self.cv1 = ConvBnSiLU(c1, 2 * self.c)
        self.cv2 = ConvBnSiLU((2 + n) * self.c, c2)
        self.m = nn.ModuleList(Bottleneck(self.c, shortcut) for _ in range(n))

    def forward(self, x):
        y = list(self.cv1(x).chunk(2, 1))
        for m in self.m:
            y.append(m(y[-1]))
        return self.cv2(torch.cat(y, 1))


class SPPF(nn.Module):
    def __init__(self, c1, c2):
        super().__init__()
        self.cv1 = ConvBnSiLU(c1, c1 // 2)
        self.cv2 = ConvBnSiLU(c1 // 2 * 4, c2)
        self.pool = nn.MaxPool2d(5, 1, 2)

    def forward(self, x):
        x = self.cv1(x)
        a = self.pool(x)
        b = self.pool(a)
        return self.cv2(torch.cat([x, a, b, self.pool(b)], 1))


class YoloV8nStyle(nn.Module):
    """YOLOv8n-style detector (the shape class, not the trained model): a C2f/SiLU
    backbone to stride 32, SPPF, an FPN/PAN neck (nearest upsampling, concatenation) and
    a head per stride (8, 16, 32) of 4 x 16 box bins + 80 classes, flattened and
    concatenated into one [N, 144, anchors] output."""

    def __init__(self, w=(16, 32, 64, 128, 256), nc=80):
        super().__init__()
        self.stem = nn.Sequential(ConvBnSiLU(3, w[0], 3, 2), ConvBnSiLU(w[0], w[1], 3, 2),
                                  C2f(w[1], w[1], 1))
        self.p3 = nn.Sequential(ConvBnSiLU(w[1], w[2], 3, 2), C2f(w[2], w[2], 2))
        self.p4 = nn.Sequential(ConvBnSiLU(w[2], w[3], 3, 2), C2f(w[3], w[3], 2))
        self.p5 = nn.Sequential(ConvBnSiLU(w[3], w[4], 3, 2), C2f(w[4], w[4], 1), SPPF(w[4], w[4]))
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.n4 = C2f(w[4] + w[3], w[3], 1, False)
        self.n3 = C2f(w[3] + w[2], w[2], 1, False)
        self.d3 = ConvBnSiLU(w[2], w[2], 3, 2)
        self.m4 = C2f(w[2] + w[3], w[3], 1, False)
        self.d4 = ConvBnSiLU(w[3], w[3], 3, 2)
        self.m5 = C2f(w[3] + w[4], w[4], 1, False)
        no = 4 * 16 + nc
        self.heads = nn.ModuleList(
            nn.Sequential(ConvBnSiLU(c, 64, 3), ConvBnSiLU(64, 64, 3), nn.Conv2d(64, no, 1))
            for c in (w[2], w[3], w[4]))

    def forward(self, x):
        p3 = self.p3(self.stem(x))
        p4 = self.p4(p3)
        p5 = self.p5(p4)
        n4 = self.n4(torch.cat([self.up(p5), p4], 1))
        n3 = self.n3(torch.cat([self.up(n4), p3], 1))
        m4 = self.m4(torch.cat([self.d3(n3), n4], 1))
        m5 = self.m5(torch.cat([self.d4(m4), p5], 1))
        outs = [h(f).flatten(2) for h, f in zip(self.heads, (n3, m4, m5))]
        return torch.cat(outs, 2)


class Mlp(nn.Module):
    """n x Linear(d, d) with ReLU between: a MatMul-heavy model of n equal layers."""

    def __init__(self, d, n=4):
        super().__init__()
        layers = []
        for i in range(n):
            layers.append(nn.Linear(d, d))
            if i < n - 1:
                layers.append(nn.ReLU())
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def bert_style(layers, d, heads):
    """BERT-base-style encoder: torch.nn.TransformerEncoder over [1, seq, d] embeddings
    (post-norm, GELU, feed-forward 4d); no token embedding or pooler."""
    layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, activation="gelu",
                                       batch_first=True)
    return nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)


class HfLayer(nn.Module):
    """A Hugging Face BERT layer as modeling_bert writes it: separate query, key and value
    Linears, the scores divided by sqrt(d) plus the additive mask, the Python form of erf
    Gelu, post-norm LayerNorms of eps 1e-12."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.query, self.key, self.value = (nn.Linear(d, d) for _ in range(3))
        self.attn_out, self.inter, self.out = nn.Linear(d, d), nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.attn_norm, self.out_norm = nn.LayerNorm(d, eps=1e-12), nn.LayerNorm(d, eps=1e-12)

    def split(self, x):
        b, s, d = x.shape
        return x.view(b, s, self.heads, d // self.heads).permute(0, 2, 1, 3)

    def forward(self, x, mask):
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(q.shape[-1]) + mask
        ctx = torch.matmul(scores.softmax(-1), v).permute(0, 2, 1, 3).contiguous()
        x = self.attn_norm(self.attn_out(ctx.view(x.shape)) + x)
        h = self.inter(x)
        h = h * 0.5 * (1.0 + torch.erf(h / math.sqrt(2.0)))
        return self.out_norm(self.out(h) + x)


class HfBert(nn.Module):
    """Hugging Face-style BERT encoder over [1, seq, d] embeddings, the last quarter of the
    sequence padding: its additive mask, (1 - mask) * float32's lowest, a constant."""

    def __init__(self, layers, d, heads, seq):
        super().__init__()
        self.layers = nn.ModuleList(HfLayer(d, heads) for _ in range(layers))
        keep = torch.ones(1, 1, 1, seq)
        keep[..., seq - seq // 4:] = 0
        self.register_buffer("mask", (1.0 - keep) * torch.finfo(torch.float32).min)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x, self.mask)
        return x


def _vision(arch, batch, size):
    return getattr(torchvision.models, arch)(), (batch, 3, size, size)


MODELS = {
    "resnet18_b1": ("ResNet-18 b1 224", lambda small: _vision(
        "resnet18", 1, 64 if small else 224)),
    "resnet50_b1": ("ResNet-50 b1 224", lambda small: _vision(
        "resnet18" if small else "resnet50", 1, 64 if small else 224)),
    "resnet50_b8": ("ResNet-50 b8 224", lambda small: _vision(
        "resnet18" if small else "resnet50", 2 if small else 8, 64 if small else 224)),
    "mobilenetv2_b1": ("MobileNetV2 b1 224", lambda small: _vision(
        "mobilenet_v2", 1, 64 if small else 224)),
    "mobilenetv3_b1": ("MobileNetV3-Large b1 224", lambda small: _vision(
        "mobilenet_v3_large", 1, 64 if small else 224)),
    "efficientnet_b0_b1": ("EfficientNet-B0 b1 224", lambda small: _vision(
        "efficientnet_b0", 1, 64 if small else 224)),
    "yolov8n_style_640": ("YOLOv8n-style 640", lambda small: (
        YoloV8nStyle((8, 16, 32, 64, 64) if small else (16, 32, 64, 128, 256)),
        (1, 3, 128, 128) if small else (1, 3, 640, 640))),
    "mlp_4x4096_b256": ("4 x Linear 4096 b256", lambda small: (
        Mlp(256 if small else 4096), (16, 256) if small else (256, 4096))),
    "bert_base_style_s128": ("BERT-base-style s128", lambda small: (
        bert_style(2, 64, 4) if small else bert_style(12, 768, 12),
        (1, 16, 64) if small else (1, 128, 768))),
    "hf_bert_base_s128": ("Hugging Face-style BERT-base s128", lambda small: (
        HfBert(2, 64, 4, 16) if small else HfBert(12, 768, 12, 128),
        (1, 16, 64) if small else (1, 128, 768))),
}

# Labels of the small sizes (what --small really runs).
SMALL_LABELS = {
    "resnet18_b1": "ResNet-18 b1 64 (small)",
    "mobilenetv3_b1": "MobileNetV3-Large b1 64 (small)",
    "resnet50_b1": "ResNet-18 b1 64 (small)",
    "resnet50_b8": "ResNet-18 b2 64 (small)",
    "mobilenetv2_b1": "MobileNetV2 b1 64 (small)",
    "efficientnet_b0_b1": "EfficientNet-B0 b1 64 (small)",
    "yolov8n_style_640": "YOLOv8n-style 128, narrow (small)",
    "mlp_4x4096_b256": "4 x Linear 256 b16 (small)",
    "bert_base_style_s128": "encoder 2 x d64 s16 (small)",
    "hf_bert_base_s128": "Hugging Face-style encoder 2 x d64 s16 (small)",
}

# The CPU benchmark's models (tests/bench/bench_cpu.py: vkml's CPU device against ONNX
# Runtime's CPU provider).
CPU_MODELS = ["resnet18_b1", "resnet50_b1", "mobilenetv2_b1", "mobilenetv3_b1",
              "efficientnet_b0_b1", "yolov8n_style_640", "bert_base_style_s128"]

# The multi-GPU benchmark's models (tests/bench/bench_multi.py), beside those of MODELS it
# also runs: stacks of equal layers, whose halves cost the same.
MULTI_MODELS = {
    "mlp_8x4096_b256": ("8 x Linear 4096 b256", lambda small: (
        Mlp(256 if small else 4096, 8), (16, 256) if small else (256, 4096))),
}
SMALL_LABELS["mlp_8x4096_b256"] = "8 x Linear 256 b16 (small)"
