#!/usr/bin/env python3
"""Builds kiln's own model corpus: public architectures of the families kiln serves (image
classification, OCR detection / recognition, keyword spotting, wake word, VAD), exported to ONNX
with seeded random weights, each in the ONNX backend-test layout:

    OUT/<name>/model.onnx
    OUT/<name>/test_data_set_0/input_<i>.pb, output_<i>.pb   (outputs computed by PyTorch)

Seeded random weights are enough for speed and numerics: the graphs (op types, shapes, attribute
combinations) are what kiln's kernels and passes see. The .onnx files stay out of git (tens of MB);
this script regenerates them bit for bit on the same PyTorch version.

Needs Debian's python3-torch, python3-torchvision and python3-onnx (use /usr/bin/python3).

    /usr/bin/python3 benchmarks/corpus/gen_corpus.py [OUT_DIR] [--only NAME ...]

Then, side by side with ONNX Runtime (see scripts/bench-vs-ort.sh):

    KILN_MODELS=OUT_DIR scripts/bench-vs-ort.sh --models "resnet18 shufflenet_v2 ..." --threads 1
"""

import argparse
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from onnx import numpy_helper

OPSET = 17


# ---------------------------------------------------------------------------------------------
# Hand-written members of the families torchvision does not ship.


class HSwishSE(nn.Module):
    """Squeeze-excite with HardSigmoid gate, as in PP-LCNet / MobileNetV3."""

    def __init__(self, c, r=4):
        super().__init__()
        self.fc1 = nn.Conv2d(c, c // r, 1)
        self.fc2 = nn.Conv2d(c // r, c, 1)

    def forward(self, x):
        s = F.adaptive_avg_pool2d(x, 1)
        s = F.hardsigmoid(self.fc2(F.relu(self.fc1(s))))
        return x * s


class LcBlock(nn.Module):
    """PP-LCNet block: depthwise k x k (3 or 5) + HardSwish, optional SE, pointwise + HardSwish."""

    def __init__(self, cin, cout, k, stride, se):
        super().__init__()
        self.dw = nn.Conv2d(cin, cin, k, stride, k // 2, groups=cin, bias=False)
        self.bn1 = nn.BatchNorm2d(cin)
        self.se = HSwishSE(cin) if se else nn.Identity()
        self.pw = nn.Conv2d(cin, cout, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)

    def forward(self, x):
        x = F.hardswish(self.bn1(self.dw(x)))
        x = self.se(x)
        return F.hardswish(self.bn2(self.pw(x)))


class PPLCNetLike(nn.Module):
    """A PP-LCNet x0.5-like classifier (used by PaddleOCR's text-direction classifier)."""

    def __init__(self, classes=4):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8), nn.Hardswish())
        cfg = [  # cin, cout, k, stride, se
            (8, 16, 3, 1, False), (16, 32, 3, 2, False), (32, 32, 3, 1, False),
            (32, 64, 3, 2, False), (64, 64, 3, 1, False), (64, 128, 3, 2, False),
            (128, 128, 5, 1, False), (128, 128, 5, 1, False), (128, 128, 5, 1, False),
            (128, 256, 5, 2, True), (256, 256, 5, 1, True),
        ]
        self.blocks = nn.Sequential(*[LcBlock(*c) for c in cfg])
        self.head = nn.Conv2d(256, 640, 1)
        self.fc = nn.Linear(640, classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        x = F.hardswish(self.head(F.adaptive_avg_pool2d(x, 1)))
        return F.softmax(self.fc(torch.flatten(x, 1)), dim=1)


class DbNetLike(nn.Module):
    """A DBNet-like text detector (PP-OCR det family): MobileNetV3 backbone, FPN with nearest
    Resize, a head of Conv + two ConvTranspose x2 and Sigmoid."""

    def __init__(self):
        super().__init__()
        feats = torchvision.models.mobilenet_v3_small(weights=None).features
        self.stages = nn.ModuleList([feats[:2], feats[2:4], feats[4:9], feats[9:12]])
        chans = [16, 24, 48, 96]
        self.lat = nn.ModuleList([nn.Conv2d(c, 64, 1) for c in chans])
        self.smooth = nn.ModuleList([nn.Conv2d(64, 16, 3, 1, 1) for _ in chans])
        self.head = nn.Sequential(
            nn.Conv2d(64, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
            nn.ConvTranspose2d(16, 16, 2, 2), nn.BatchNorm2d(16), nn.ReLU(),
            nn.ConvTranspose2d(16, 1, 2, 2),
        )

    def forward(self, x):
        fs = []
        for s in self.stages:
            x = s(x)
            fs.append(x)
        lat = [l(f) for l, f in zip(self.lat, fs)]
        for i in range(len(lat) - 1, 0, -1):
            lat[i - 1] = lat[i - 1] + F.interpolate(lat[i], size=lat[i - 1].shape[2:], mode="nearest")
        outs = [s(l) for s, l in zip(self.smooth, lat)]
        size = outs[0].shape[2:]
        outs = [outs[0]] + [F.interpolate(o, size=size, mode="nearest") for o in outs[1:]]
        return torch.sigmoid(self.head(torch.cat(outs, 1)))


class CrnnRec(nn.Module):
    """A CRNN text recognizer (PP-OCR rec / EasyOCR family): conv backbone that halves height
    only in later stages, then a 2-layer bidirectional LSTM over width and a CTC classifier."""

    def __init__(self, classes=97):
        super().__init__()

        def cbr(cin, cout, stride):
            return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())

        self.cnn = nn.Sequential(
            cbr(3, 32, 1), nn.MaxPool2d(2, 2), cbr(32, 64, 1), nn.MaxPool2d(2, 2),
            cbr(64, 128, 1), cbr(128, 128, 1), nn.MaxPool2d((2, 1), (2, 1)),
            cbr(128, 192, 1), cbr(192, 192, 1), nn.MaxPool2d((2, 1), (2, 1)),
            cbr(192, 256, 1), nn.AdaptiveAvgPool2d((1, None)),
        )
        self.rnn = nn.LSTM(256, 96, num_layers=2, bidirectional=True, batch_first=True)
        self.fc = nn.Linear(192, classes)

    def forward(self, x):
        x = self.cnn(x).squeeze(2).permute(0, 2, 1)  # N, W, C
        x, _ = self.rnn(x)
        return F.softmax(self.fc(x), dim=2)


class ConvGruKws(nn.Module):
    """A keyword spotter on 40 log-mel bands: strided 1-D convs, 2-layer GRU, classifier."""

    def __init__(self, classes=12):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(40, 64, 5, 2, 2), nn.BatchNorm1d(64), nn.ReLU(),
            nn.Conv1d(64, 96, 3, 1, 1), nn.BatchNorm1d(96), nn.ReLU(),
        )
        self.gru = nn.GRU(96, 128, num_layers=2, batch_first=True)
        self.fc = nn.Linear(128, classes)

    def forward(self, x):  # x: N, 40, T
        x = self.conv(x).permute(0, 2, 1)
        x, _ = self.gru(x)
        return self.fc(x[:, -1])


class WakeWordEmbed(nn.Module):
    """An openWakeWord-like embedding net: 2-D convs over (time, mel) with LeakyReLU written as
    Max(x, 0.2 x) (binary Max, as that model's export has), max pooling, a dense head."""

    def __init__(self):
        super().__init__()
        chans = [1, 24, 48, 64, 96, 96]
        self.convs = nn.ModuleList([nn.Conv2d(chans[i], chans[i + 1], 3, 1, 1) for i in range(5)])
        self.fc = nn.Linear(96 * 4 * 2, 96)

    def forward(self, x):  # N, 1, 64 frames, 32 mel bands
        for i, c in enumerate(self.convs):
            x = c(x)
            x = torch.maximum(x, 0.2 * x)
            if i in (0, 1, 3):
                x = F.max_pool2d(x, 2)
        x = F.adaptive_max_pool2d(x, (4, 2))
        return self.fc(torch.flatten(x, 1))


class SileroLikeVad(nn.Module):
    """A Silero-like VAD on one 512-sample window: STFT as a strided Conv1d, a conv encoder with
    strides, an LSTM cell over the frames, sigmoid speech probability."""

    def __init__(self):
        super().__init__()
        self.stft = nn.Conv1d(1, 258, 256, 128, bias=False)
        self.enc = nn.Sequential(
            nn.Conv1d(129, 128, 3, 1, 1), nn.ReLU(),
            nn.Conv1d(128, 64, 3, 2, 1), nn.ReLU(),
            nn.Conv1d(64, 64, 3, 2, 1), nn.ReLU(),
            nn.Conv1d(64, 128, 3, 1, 1), nn.ReLU(),
        )
        self.lstm = nn.LSTM(128, 128, batch_first=True)
        self.out = nn.Conv1d(128, 1, 1)

    def forward(self, x):  # N, 512 samples (with 64 context samples of padding)
        x = F.pad(x.unsqueeze(1), (0, 64), mode="reflect")
        s = self.stft(x)
        re, im = s[:, :129], s[:, 129:]
        mag = torch.sqrt(re * re + im * im)
        h = self.enc(mag).permute(0, 2, 1)
        h, _ = self.lstm(h)
        return torch.sigmoid(self.out(F.relu(h.permute(0, 2, 1)))).mean(dim=2)


class ConformerBlock(nn.Module):
    """One Conformer block (speech recognition / keyword spotting encoders): half-step feed-forward
    with SiLU, multi-head self-attention (einsum scores and sums), a convolution module (pointwise conv, GLU, depthwise 1-D
    conv of kernel 15, BatchNorm, SiLU, pointwise), another half-step feed-forward, LayerNorms."""

    def __init__(self, d=144, heads=4, k=15):
        super().__init__()
        self.ff1 = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.SiLU(), nn.Linear(4 * d, d))
        self.ln_att = nn.LayerNorm(d)
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.att_out = nn.Linear(d, d)
        self.ln_conv = nn.LayerNorm(d)
        self.pw1 = nn.Conv1d(d, 2 * d, 1)
        self.dw = nn.Conv1d(d, d, k, padding=k // 2, groups=d)
        self.bn = nn.BatchNorm1d(d)
        self.pw2 = nn.Conv1d(d, d, 1)
        self.ff2 = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.SiLU(), nn.Linear(4 * d, d))
        self.ln_out = nn.LayerNorm(d)

    def attention(self, h):  # written out with einsum, as ESPnet-style code does
        n, t, d = h.shape
        q, k, v = self.qkv(h).reshape(n, t, 3, self.heads, d // self.heads).unbind(2)
        s = torch.einsum("bqhd,bkhd->bhqk", q, k) / (d // self.heads) ** 0.5
        o = torch.einsum("bhqk,bkhd->bqhd", s.softmax(dim=-1), v)
        return self.att_out(o.reshape(n, t, d))

    def forward(self, x):  # N, T, d
        x = x + 0.5 * self.ff1(x)
        x = x + self.attention(self.ln_att(x))
        c = self.ln_conv(x).transpose(1, 2)
        c = F.glu(self.pw1(c), dim=1)
        c = self.pw2(F.silu(self.bn(self.dw(c))))
        x = x + c.transpose(1, 2)
        x = x + 0.5 * self.ff2(x)
        return self.ln_out(x)


class ConformerKws(nn.Module):
    """A small Conformer encoder over 80 log-mel bands (4x subsampling by two strided 2-D convs,
    as in ESPnet / WeNet), two blocks, mean over time, a keyword classifier."""

    def __init__(self, d=144):
        super().__init__()
        self.sub = nn.Sequential(nn.Conv2d(1, d, 3, 2), nn.ReLU(), nn.Conv2d(d, d, 3, 2), nn.ReLU())
        self.proj = nn.Linear(d * 19, d)
        self.blocks = nn.Sequential(ConformerBlock(d), ConformerBlock(d))
        self.cls = nn.Linear(d, 12)

    def forward(self, x):  # N, T frames, 80 bands
        h = self.sub(x.unsqueeze(1))  # N, d, T', 19
        n, c, t, f = h.shape
        h = self.proj(h.permute(0, 2, 1, 3).reshape(n, t, c * f))
        return self.cls(self.blocks(h).mean(dim=1))


def conv_bn_act(cin, cout, k, s, act):
    return nn.Sequential(nn.Conv2d(cin, cout, k, s, k // 2, bias=False), nn.BatchNorm2d(cout), act())


class CspBlock(nn.Module):
    """A CSPDarknet stage: a stride-2 conv, the channels split in two halves, residual units on
    one half, the halves concatenated and mixed by a 1x1 conv."""

    def __init__(self, cin, cout, units, act):
        super().__init__()
        self.down = conv_bn_act(cin, cout, 3, 2, act)
        half = cout // 2
        self.units = nn.ModuleList([nn.Sequential(conv_bn_act(half, half, 1, 1, act),
                                                  conv_bn_act(half, half, 3, 1, act))
                                    for _ in range(units)])
        self.mix = conv_bn_act(cout, cout, 1, 1, act)

    def forward(self, x):
        x = self.down(x)
        a, b = torch.chunk(x, 2, dim=1)
        for u in self.units:
            b = b + u(b)
        return self.mix(torch.cat([a, b], 1))


class CspMishDet(nn.Module):
    """A YOLOv4-like detector (CSPDarknet backbone with Mish, exported before opset 18 as
    x * tanh(softplus(x))), an FPN neck with LeakyReLU, nearest upsampling and concatenations,
    and two 1x1 detection heads (3 anchors x 85)."""

    def __init__(self):
        super().__init__()
        self.stem = conv_bn_act(3, 16, 3, 1, nn.Mish)
        self.stages = nn.ModuleList([CspBlock(16, 32, 1, nn.Mish), CspBlock(32, 64, 1, nn.Mish),
                                     CspBlock(64, 128, 2, nn.Mish), CspBlock(128, 256, 2, nn.Mish)])
        leaky = lambda: nn.LeakyReLU(0.1)
        self.lat = conv_bn_act(256, 128, 1, 1, leaky)
        self.up = conv_bn_act(128, 64, 1, 1, leaky)
        self.fuse = conv_bn_act(192, 128, 3, 1, leaky)
        self.head_small = nn.Conv2d(128, 255, 1)
        self.head_big = nn.Conv2d(128, 255, 1)

    def forward(self, x):
        x = self.stem(x)
        feats = []
        for s in self.stages:
            x = s(x)
            feats.append(x)
        p5 = self.lat(feats[3])
        p4 = self.fuse(torch.cat([F.interpolate(self.up(p5), scale_factor=2.0, mode="nearest"),
                                  feats[2]], 1))
        return self.head_big(p5), self.head_small(p4)


def resnext_like():
    """A small ResNeXt (torchvision's ResNet with grouped Bottleneck blocks, 32 groups of 4..32
    channels as in resnext50_32x4d) with one or two blocks per stage instead of 3-4-6-3."""
    from torchvision.models.resnet import Bottleneck, ResNet

    return ResNet(Bottleneck, [1, 1, 2, 1], groups=32, width_per_group=4)


# ---------------------------------------------------------------------------------------------


def tv(name, **kw):
    return lambda: getattr(torchvision.models, name)(weights=None, **kw)


# name -> (constructor, input shapes)
CORPUS = {
    "resnet18": (tv("resnet18"), [(1, 3, 224, 224)]),
    "mobilenet_v3_small": (tv("mobilenet_v3_small"), [(1, 3, 224, 224)]),
    "shufflenet_v2": (tv("shufflenet_v2_x1_0"), [(1, 3, 224, 224)]),
    "efficientnet_b0": (tv("efficientnet_b0"), [(1, 3, 224, 224)]),
    "regnet_x_400mf": (tv("regnet_x_400mf"), [(1, 3, 224, 224)]),
    "resnext_like": (resnext_like, [(1, 3, 224, 224)]),
    "pplcnet_like": (PPLCNetLike, [(1, 3, 48, 192)]),
    "dbnet_like": (DbNetLike, [(1, 3, 320, 320)]),
    "crnn_rec": (CrnnRec, [(1, 3, 48, 320)]),
    "conv_gru_kws": (ConvGruKws, [(1, 40, 101)]),
    "wakeword_embed": (WakeWordEmbed, [(1, 1, 64, 32)]),
    "silero_like_vad": (SileroLikeVad, [(1, 512)]),
    "csp_mish_det": (CspMishDet, [(1, 3, 256, 256)]),
    "conformer_kws": (ConformerKws, [(1, 101, 80)]),
    # Held-out cousins first measured 2026-11-29 (other torchvision families).
    "mnasnet0_5": (tv("mnasnet0_5"), [(1, 3, 224, 224)]),
    "mobilenet_v3_large": (tv("mobilenet_v3_large"), [(1, 3, 224, 224)]),
    "regnet_y_400mf": (tv("regnet_y_400mf"), [(1, 3, 224, 224)]),
    "googlenet": (tv("googlenet", aux_logits=False, init_weights=True), [(1, 3, 224, 224)]),
    "densenet121": (tv("densenet121"), [(1, 3, 224, 224)]),
    "convnext_tiny": (tv("convnext_tiny"), [(1, 3, 224, 224)]),
}


def randomize_batch_norms(model, gen):
    """Default BatchNorm statistics (mean 0, var 1) make BN an identity; random ones exercise
    the folding passes the way trained weights do."""
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            m.running_mean.copy_(torch.randn(m.num_features, generator=gen) * 0.1)
            m.running_var.copy_(torch.rand(m.num_features, generator=gen) * 0.5 + 0.75)
            m.weight.data.copy_(torch.rand(m.num_features, generator=gen) * 0.5 + 0.75)
            m.bias.data.copy_(torch.randn(m.num_features, generator=gen) * 0.1)


def write_tensor(path, array, name):
    t = numpy_helper.from_array(np.ascontiguousarray(array), name)
    with open(path, "wb") as f:
        f.write(t.SerializeToString())


def build(name, out_dir):
    ctor, shapes = CORPUS[name]
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    model = ctor().eval()
    with torch.no_grad():
        randomize_batch_norms(model, gen)
    inputs = tuple(torch.randn(*s, generator=gen) for s in shapes)
    folder = os.path.join(out_dir, name)
    os.makedirs(os.path.join(folder, "test_data_set_0"), exist_ok=True)
    in_names = ["input"] if len(inputs) == 1 else ["input_%d" % i for i in range(len(inputs))]
    path = os.path.join(folder, "model.onnx")
    with torch.no_grad():
        outputs = model(*inputs)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        out_names = ["output"] if len(outputs) == 1 else ["output_%d" % i for i in range(len(outputs))]
        torch.onnx.export(model, inputs, path, opset_version=OPSET, input_names=in_names,
                          output_names=out_names, do_constant_folding=True)
    onnx.checker.check_model(onnx.load(path))
    for i, (n, x) in enumerate(zip(in_names, inputs)):
        write_tensor(os.path.join(folder, "test_data_set_0", "input_%d.pb" % i), x.numpy(), n)
    for i, y in enumerate(outputs):
        write_tensor(os.path.join(folder, "test_data_set_0", "output_%d.pb" % i), y.numpy(), out_names[i])
    with open(os.path.join(folder, "SOURCE.txt"), "w") as f:
        f.write("%s: generated by benchmarks/corpus/gen_corpus.py (torch %s, opset %d, seeded random "
                "weights); outputs from PyTorch.\n" % (name, torch.__version__, OPSET))
    print("%-20s %8.1f KB  inputs %s" % (name, os.path.getsize(path) / 1024, shapes))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", nargs="?", default=os.environ.get("KILN_CORPUS", "build/corpus"))
    ap.add_argument("--only", nargs="*", default=None, help="names to build (default: all)")
    ap.add_argument("--list", action="store_true", help="print the corpus names and exit")
    args = ap.parse_args()
    if args.list:
        print(" ".join(CORPUS))
        return 0
    torch.set_num_threads(1)
    names = args.only or list(CORPUS)
    for n in names:
        if n not in CORPUS:
            print("unknown corpus model: %s (known: %s)" % (n, " ".join(CORPUS)), file=sys.stderr)
            return 1
        build(n, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
