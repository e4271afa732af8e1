#!/usr/bin/env python3
"""Generate the shape-only network zoo: configs/networks/{model}_{dataset}.yaml.

13 architectures (VGG13/16/19, ResNet50/101/152, DenseNet121/161/169/201, MobileNetV2,
Inception-V3, Inception-V4) x 2 datasets (CIFAR-10, ImageNet), and the rest of Hype-training's
models on their data sets only: AlexNet on ImageNet (its 11x11/4 stem and three 3x3/2 pools
leave nothing of a 32x32 image), DCGAN's discriminator and its generator chained into it on
CelebA, BERT-Large on SQuAD = 30 YAML files, one layer per line in flow style. The generator does its own shape inference: every layer's output
shape is computed and checked (positive sizes, matching channels for add, matching H x W
for concat, divisibility for grouped convolutions), and the trainable parameters are
counted so they can be compared with the reference implementations.

Usage (Python 3 standard library only):
  python3 tools/gen_zoo.py            write every file
  python3 tools/gen_zoo.py --check    exit 1 if a file is missing or differs from the generator
  python3 tools/gen_zoo.py --params   table: layers, computed params, reference params
"""

import argparse
import json
import os
import re
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
OUT_DIR = os.path.join(REPO, "configs", "networks")

NAME_RE = re.compile(r"^[A-Za-z0-9_.]+$")
COMMENT_COLUMN = 100  # trailing shape comments are aligned here (or one space after longer lines)

DATASETS = {
    "cifar10": {"input": (3, 32, 32), "classes": 10},
    # Fashion-MNIST (and MNIST): 1x28x28 grey images, 10 classes; trainsim trains on both.
    "fashion": {"input": (1, 28, 28), "classes": 10},
    "imagenet": {"input": (3, 224, 224), "classes": 1000},
    # CelebA faces at 64x64, judged real or fake: one sigmoid value, two classes.
    "celeba": {"input": (3, 64, 64), "classes": 2},
    # SQuAD v1.1 at 384 tokens (ids as 1 x 384 x 1); the answer's start and end position.
    "squad": {"input": (1, 384, 1), "classes": 2 * 384},
}
SEQUENCE = 384


# --------------------------------------------------------------------------------------------
# Builder: records layers, infers shapes, counts parameters
# --------------------------------------------------------------------------------------------

class ShapeError(Exception):
    pass


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _fmt_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_fmt_value(x) for x in v) + "]"
    return str(v)


# The defaults of the keys only one convolution type has.
CONV_DEFAULTS = {"groups": 1, "output_padding": 0}


def _conv_keys(filters, kernel, stride, padding, bias, **optional):
    """A convolution's keys, those at their defaults left out."""
    keys = {"filters": filters, "kernel": kernel}
    if stride != 1:
        keys["stride"] = stride
    if padding != 0:
        keys["padding"] = padding
    for key, value in optional.items():
        if value != CONV_DEFAULTS[key]:
            keys[key] = value
    if not bias:
        keys["bias"] = False
    return keys


def _volume(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _fmt_shape(shape):
    return "x".join(str(d) for d in shape)


class Builder:
    """A sequential-with-branches network under construction.

    Each method appends one layer and returns its name. `frm` names the input layer
    (default: the previous layer); it is written out only when it differs from the previous
    line. Shapes are (C, H, W) tensors or (N,) vectors after flatten."""

    def __init__(self, name, input_shape, classes):
        self.name = name
        self.input_shape = tuple(input_shape)
        self.classes = classes
        self.layers = []        # (keys dict in output order, output shape)
        self.shapes = {"input": self.input_shape}
        self.params = 0
        self.last = "input"

    # -- plumbing ---------------------------------------------------------------------------

    def _input(self, frm):
        src = self.last if frm is None else frm
        if src not in self.shapes:
            raise ShapeError("%s: unknown layer %r" % (self.name, src))
        return src, self.shapes[src]

    def _add(self, ltype, name, frm, keys, out_shape, params=0):
        if not NAME_RE.match(name) or name == "input":
            raise ShapeError("%s: bad layer name %r" % (self.name, name))
        if name in self.shapes:
            raise ShapeError("%s: duplicate layer name %r" % (self.name, name))
        if any(d < 1 for d in out_shape):
            raise ShapeError("%s: layer %s has invalid output shape %s" % (self.name, name, out_shape))
        entry = {"type": ltype, "name": name}
        if isinstance(frm, list) or (frm is not None and frm != self.last):
            entry["from"] = frm
        entry.update(keys)
        self.layers.append((entry, tuple(out_shape)))
        self.shapes[name] = tuple(out_shape)
        self.params += params
        self.last = name
        return name

    def _spatial(self, name, shape):
        if len(shape) != 3:
            raise ShapeError("%s: layer %s needs a CxHxW input, got %s" % (self.name, name, shape))
        return shape

    # -- layer types ------------------------------------------------------------------------

    def conv(self, name, filters, kernel, stride=1, padding=0, groups=1, bias=True, frm=None):
        src, shape = self._input(frm)
        c, h, w = self._spatial(name, shape)
        kh, kw = _pair(kernel)
        ph, pw = _pair(padding)
        if c % groups or filters % groups:
            raise ShapeError("%s: %s: channels %d / filters %d not divisible by groups %d"
                             % (self.name, name, c, filters, groups))
        oh = (h + 2 * ph - kh) // stride + 1
        ow = (w + 2 * pw - kw) // stride + 1
        keys = _conv_keys(filters, kernel, stride, padding, bias, groups=groups)
        params = filters * (c // groups) * kh * kw + (filters if bias else 0)
        return self._add("conv2d", name, frm, keys, (filters, oh, ow), params)

    def _pool(self, ltype, name, kernel, stride, padding, frm):
        src, shape = self._input(frm)
        c, h, w = self._spatial(name, shape)
        stride = kernel if stride is None else stride
        if 2 * padding > kernel:
            raise ShapeError("%s: %s: padding larger than half the kernel" % (self.name, name))
        keys = {"kernel": kernel}
        if stride != kernel:
            keys["stride"] = stride
        if padding:
            keys["padding"] = padding
        out = (c, (h + 2 * padding - kernel) // stride + 1, (w + 2 * padding - kernel) // stride + 1)
        return self._add(ltype, name, frm, keys, out)

    def maxpool(self, name, kernel, stride=None, padding=0, frm=None):
        return self._pool("maxpool2d", name, kernel, stride, padding, frm)

    def avgpool(self, name, kernel, stride=None, padding=0, frm=None):
        return self._pool("avgpool2d", name, kernel, stride, padding, frm)

    def global_avgpool(self, name, frm=None):
        src, shape = self._input(frm)
        c, _, _ = self._spatial(name, shape)
        return self._add("global_avgpool", name, frm, {}, (c, 1, 1))

    def bn(self, name, frm=None):
        src, shape = self._input(frm)
        c, _, _ = self._spatial(name, shape)
        return self._add("batchnorm", name, frm, {}, shape, 2 * c)

    def relu(self, name, frm=None):
        src, shape = self._input(frm)
        return self._add("relu", name, frm, {}, shape)

    def flatten(self, name, frm=None):
        src, shape = self._input(frm)
        n = 1
        for d in shape:
            n *= d
        return self._add("flatten", name, frm, {}, (n,))

    def dense(self, name, units, bias=True, frm=None):
        src, shape = self._input(frm)
        if len(shape) != 1:
            raise ShapeError("%s: dense %s needs a flat input, got %s" % (self.name, name, shape))
        keys = {"units": units}
        if not bias:
            keys["bias"] = False
        return self._add("dense", name, frm, keys, (units,), shape[0] * units + (units if bias else 0))

    def softmax(self, name, frm=None):
        src, shape = self._input(frm)
        return self._add("softmax", name, frm, {}, shape)

    def resize(self, name, size, frm=None):
        src, shape = self._input(frm)
        c, _, _ = self._spatial(name, shape)
        return self._add("resize", name, frm, {"size": list(size)}, (c, size[0], size[1]))

    def add(self, name, inputs):
        shapes = [self._input(x)[1] for x in inputs]
        if len(inputs) < 2 or any(s != shapes[0] for s in shapes):
            raise ShapeError("%s: add %s: input shapes differ: %s" % (self.name, name, shapes))
        return self._add("add", name, list(inputs), {}, shapes[0])

    def concat(self, name, inputs):
        shapes = [self._spatial(name, self._input(x)[1]) for x in inputs]
        if len(inputs) < 2 or any(s[1:] != shapes[0][1:] for s in shapes):
            raise ShapeError("%s: concat %s: spatial sizes differ: %s" % (self.name, name, shapes))
        return self._add("concat", name, list(inputs), {},
                         (sum(s[0] for s in shapes),) + shapes[0][1:])

    # -- the Hype-training workloads' layer types (DCGAN, BERT) -----------------------------

    def conv_transpose(self, name, filters, kernel, stride=1, padding=0, output_padding=0,
                       bias=True, frm=None):
        src, shape = self._input(frm)
        c, h, w = self._spatial(name, shape)
        if output_padding >= stride:
            raise ShapeError("%s: %s: output_padding must be smaller than the stride"
                             % (self.name, name))
        oh = (h - 1) * stride - 2 * padding + kernel + output_padding
        ow = (w - 1) * stride - 2 * padding + kernel + output_padding
        keys = _conv_keys(filters, kernel, stride, padding, bias, output_padding=output_padding)
        params = c * filters * kernel * kernel + (filters if bias else 0)
        return self._add("conv2d_transpose", name, frm, keys, (filters, oh, ow), params)

    def elementwise(self, ltype, name, keys=None, frm=None):
        """tanh, sigmoid, gelu, leaky_relu, dropout, softmax: the output shape is the input's."""
        src, shape = self._input(frm)
        return self._add(ltype, name, frm, dict(keys or {}), shape)

    def reshape(self, name, shape, frm=None):
        src, in_shape = self._input(frm)
        if _volume(shape) != _volume(in_shape):
            raise ShapeError("%s: reshape %s: %s and %s differ in size"
                             % (self.name, name, in_shape, shape))
        return self._add("reshape", name, frm, {"shape": list(shape)}, tuple(shape))

    def linear(self, name, units, bias=True, frm=None):
        """A dense layer at every position: C x H x W -> units x H x W."""
        src, shape = self._input(frm)
        c, h, w = self._spatial(name, shape)
        keys = {"units": units}
        if not bias:
            keys["bias"] = False
        return self._add("linear", name, frm, keys, (units, h, w), c * units + (units if bias else 0))

    def batched_matmul(self, name, inputs, heads, transpose_b=False):
        """Per head: A (positions x C/heads) times B or B^T; out heads*N x M x 1."""
        (ac, ah, aw), (bc, bh, bw) = [self._spatial(name, self._input(x)[1]) for x in inputs]
        if ac % heads or bc % heads:
            raise ShapeError("%s: %s: heads %d do not divide %d and %d" % (self.name, name, heads,
                                                                          ac, bc))
        m, a_cols = ah * aw, ac // heads
        k, n = (bc // heads, bh * bw) if transpose_b else (bh * bw, bc // heads)
        if a_cols != k:
            raise ShapeError("%s: %s: inner dimensions %d and %d differ" % (self.name, name,
                                                                           a_cols, k))
        keys = {"heads": heads}
        if transpose_b:
            keys["transpose_b"] = True
        return self._add("batched_matmul", name, list(inputs), keys, (heads * n, m, 1))

    def layernorm(self, name, frm=None):
        src, shape = self._input(frm)
        c, _, _ = self._spatial(name, shape)
        return self._add("layernorm", name, frm, {}, shape, 2 * c)

    def embedding(self, name, vocab, units, frm=None):
        src, shape = self._input(frm)
        c, h, w = self._spatial(name, shape)
        if c != 1:
            raise ShapeError("%s: embedding %s reads one id per position" % (self.name, name))
        return self._add("embedding", name, frm, {"vocab": vocab, "units": units}, (units, h, w),
                         vocab * units)

    # -- composite helpers ------------------------------------------------------------------

    def conv_bn_relu(self, prefix, filters, kernel, stride=1, padding=0, groups=1, frm=None,
                     conv="conv", bn="bn", relu="relu"):
        """Conv (no bias) + BatchNorm + ReLU, named prefix.conv / prefix.bn / prefix.relu."""
        self.conv(prefix + "." + conv, filters, kernel, stride, padding, groups, bias=False, frm=frm)
        self.bn(prefix + "." + bn)
        return self.relu(prefix + "." + relu)

    def channels(self, layer=None):
        return self.shapes[self.last if layer is None else layer][0]

    def classifier_head(self, fc_name="fc", pool_name="avgpool"):
        """Global average pool, flatten, dense to the class count, softmax."""
        self.global_avgpool(pool_name)
        self.flatten("flatten")
        self.dense(fc_name, self.classes)
        return self.softmax("softmax")

    # -- output -----------------------------------------------------------------------------

    def to_yaml(self, header, description):
        lines = ["# " + l if l else "#" for l in header]
        lines += ["name: " + self.name,
                  "description: " + json.dumps(description),
                  "input: " + _fmt_value(self.input_shape),
                  "classes: %d" % self.classes,
                  "layers:"]
        for entry, shape in self.layers:
            body = "  - {" + ", ".join("%s: %s" % (k, _fmt_value(v)) for k, v in entry.items()) + "}"
            lines.append(body.ljust(COMMENT_COLUMN - 1) + " # " + _fmt_shape(shape))
        return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# VGG (torchvision vgg13/16/19 without BN; CIFAR: kuangliu stack without BN, one dense layer)
# --------------------------------------------------------------------------------------------

VGG_CFG = {
    "vgg13": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "vgg16": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M",
              512, 512, 512, "M"],
    "vgg19": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M",
              512, 512, 512, 512, "M"],
}


def build_vgg(b, depth_name, cifar):
    i = 0  # torchvision's index inside nn.Sequential `features`
    for v in VGG_CFG[depth_name]:
        if v == "M":
            b.maxpool("features.%d" % i, 2)
            i += 1
        else:
            b.conv("features.%d" % i, v, 3, padding=1)
            b.relu("features.%d" % (i + 1))
            i += 2
    b.flatten("flatten")
    if cifar:
        b.dense("classifier", b.classes)
        b.softmax("softmax")
    else:
        # AdaptiveAvgPool2d((7, 7)) is an identity at 224x224 input: omitted. Dropouts omitted.
        fc_4096_head(b, (0, 3, 6))


# VGG-11 (configuration A) at half width with batch norm after every conv, for 28x28 inputs:
# its fifth pool would meet a 1x1 map, so there are four (28, 14, 7, 3, 1).
VGG11_FASHION = [32, "M", 64, "M", 128, 128, "M", 256, 256, "M", 256, 256]


def build_vgg11_fashion(b, _name, _cifar):
    i = 0  # as torchvision's vgg11_bn: conv, BN, ReLU per entry
    for v in VGG11_FASHION:
        if v == "M":
            b.maxpool("features.%d" % i, 2)
            i += 1
        else:
            b.conv("features.%d" % i, v, 3, padding=1, bias=False)
            b.bn("features.%d" % (i + 1))
            b.relu("features.%d" % (i + 2))
            i += 3
    b.flatten("flatten")
    b.dense("classifier", b.classes)
    b.softmax("softmax")


def fc_4096_head(b, dense_indices):
    """Dense 4096, ReLU, dense 4096, ReLU, dense to the classes, softmax: torchvision's VGG and
    AlexNet classifiers without their dropouts. The dense layers are classifier.<i> for i in
    dense_indices (torchvision's indices in its Sequential) and each ReLU classifier.<i + 1>."""
    for i in dense_indices[:2]:
        b.dense("classifier.%d" % i, 4096)
        b.relu("classifier.%d" % (i + 1))
    b.dense("classifier.%d" % dense_indices[2], b.classes)
    b.softmax("softmax")


# --------------------------------------------------------------------------------------------
# AlexNet (torchvision alexnet: Krizhevsky et al. 2012 as in Krizhevsky's "one weird trick")
# --------------------------------------------------------------------------------------------

def build_alexnet(b, _name, cifar):
    if cifar:
        raise ShapeError("alexnet: no CIFAR-10 variant")
    b.conv("features.0", 64, 11, stride=4, padding=2)
    b.relu("features.1")
    b.maxpool("features.2", 3, stride=2)
    b.conv("features.3", 192, 5, padding=2)
    b.relu("features.4")
    b.maxpool("features.5", 3, stride=2)
    b.conv("features.6", 384, 3, padding=1)
    b.relu("features.7")
    b.conv("features.8", 256, 3, padding=1)
    b.relu("features.9")
    b.conv("features.10", 256, 3, padding=1)
    b.relu("features.11")
    b.maxpool("features.12", 3, stride=2)
    # AdaptiveAvgPool2d((6, 6)) is an identity at 224x224 input: omitted. Dropouts omitted.
    b.flatten("flatten")
    fc_4096_head(b, (1, 4, 6))


# --------------------------------------------------------------------------------------------
# ResNet (torchvision bottleneck v1.5; CIFAR: kuangliu 3x3 stem, no maxpool)
# --------------------------------------------------------------------------------------------

RESNET_BLOCKS = {"resnet50": [3, 4, 6, 3], "resnet101": [3, 4, 23, 3], "resnet152": [3, 8, 36, 3]}


def bottleneck(b, prefix, planes, stride):
    """torchvision Bottleneck (expansion 4, stride on the 3x3 conv)."""
    x = b.last
    out_ch = planes * 4
    b.conv(prefix + ".conv1", planes, 1, bias=False)
    b.bn(prefix + ".bn1")
    b.relu(prefix + ".relu1")
    b.conv(prefix + ".conv2", planes, 3, stride=stride, padding=1, bias=False)
    b.bn(prefix + ".bn2")
    b.relu(prefix + ".relu2")
    b.conv(prefix + ".conv3", out_ch, 1, bias=False)
    main = b.bn(prefix + ".bn3")
    shortcut = x
    if stride != 1 or b.channels(x) != out_ch:
        b.conv(prefix + ".downsample.0", out_ch, 1, stride=stride, bias=False, frm=x)
        shortcut = b.bn(prefix + ".downsample.1")
    b.add(prefix + ".add", [main, shortcut])
    return b.relu(prefix + ".relu")


def build_resnet(b, depth_name, cifar):
    if cifar:
        b.conv("conv1", 64, 3, padding=1, bias=False)
        b.bn("bn1")
        b.relu("relu1")
    else:
        b.conv("conv1", 64, 7, stride=2, padding=3, bias=False)
        b.bn("bn1")
        b.relu("relu1")
        b.maxpool("maxpool", 3, stride=2, padding=1)
    for stage, (planes, blocks) in enumerate(zip([64, 128, 256, 512], RESNET_BLOCKS[depth_name])):
        for i in range(blocks):
            stride = 2 if (stage > 0 and i == 0) else 1
            bottleneck(b, "layer%d.%d" % (stage + 1, i), planes, stride)
    b.classifier_head("fc")


CIFAR_RESNET_BLOCKS = {"resnet8": 1, "resnet20": 3}  # n of the 6n + 2 layers


def basic_block(b, prefix, planes, stride):
    """He et al.'s basic block: two 3x3 convs with BN, the shortcut a 1x1 conv + BN where the
    shape changes (option B)."""
    x = b.last
    b.conv(prefix + ".conv1", planes, 3, stride=stride, padding=1, bias=False)
    b.bn(prefix + ".bn1")
    b.relu(prefix + ".relu1")
    b.conv(prefix + ".conv2", planes, 3, padding=1, bias=False)
    main = b.bn(prefix + ".bn2")
    shortcut = x
    if stride != 1 or b.channels(x) != planes:
        b.conv(prefix + ".shortcut.0", planes, 1, stride=stride, bias=False, frm=x)
        shortcut = b.bn(prefix + ".shortcut.1")
    b.add(prefix + ".add", [main, shortcut])
    return b.relu(prefix + ".relu")


def build_cifar_resnet(b, depth_name, _cifar):
    """He et al. 2016, section 4.2: 3x3 stem conv to 16, three stages of n basic blocks with
    16, 32, 64 filters (strides 1, 2, 2), global average pool, dense to the classes."""
    b.conv("conv1", 16, 3, padding=1, bias=False)
    b.bn("bn1")
    b.relu("relu1")
    for stage, planes in enumerate([16, 32, 64]):
        for i in range(CIFAR_RESNET_BLOCKS[depth_name]):
            stride = 2 if (stage > 0 and i == 0) else 1
            basic_block(b, "layer%d.%d" % (stage + 1, i), planes, stride)
    b.classifier_head("linear")


# --------------------------------------------------------------------------------------------
# DenseNet (torchvision; CIFAR: kuangliu, 3x3 stem with 2*growth channels, no pool)
# --------------------------------------------------------------------------------------------

DENSENET_CFG = {  # growth rate, blocks, ImageNet stem channels
    # DenseNet-BC with k = 12 and three blocks of 6 layers (depth 40), for small inputs.
    "densenet40": (12, [6, 6, 6], 24),
    "densenet121": (32, [6, 12, 24, 16], 64),
    "densenet161": (48, [6, 12, 36, 24], 96),
    "densenet169": (32, [6, 12, 32, 32], 64),
    "densenet201": (32, [6, 12, 48, 32], 64),
}


def dense_layer(b, prefix, growth, new_first):
    """BN-ReLU-conv1x1(4*growth)-BN-ReLU-conv3x3(growth), concatenated with its input.

    torchvision concatenates [previous features..., new]; kuangliu cat([new, x])."""
    x = b.last
    b.bn(prefix + ".norm1")
    b.relu(prefix + ".relu1")
    b.conv(prefix + ".conv1", 4 * growth, 1, bias=False)
    b.bn(prefix + ".norm2")
    b.relu(prefix + ".relu2")
    new = b.conv(prefix + ".conv2", growth, 3, padding=1, bias=False)
    return b.concat(prefix + ".concat", [new, x] if new_first else [x, new])


def transition(b, prefix):
    """BN-ReLU-conv1x1 halving the channels (floor)-avgpool 2."""
    out_ch = b.channels() // 2
    b.bn(prefix + ".norm")
    b.relu(prefix + ".relu")
    b.conv(prefix + ".conv", out_ch, 1, bias=False)
    return b.avgpool(prefix + ".pool", 2)


def build_densenet(b, depth_name, cifar):
    growth, blocks, stem = DENSENET_CFG[depth_name]
    if cifar:
        b.conv("features.conv0", 2 * growth, 3, padding=1, bias=False)
    else:
        b.conv("features.conv0", stem, 7, stride=2, padding=3, bias=False)
        b.bn("features.norm0")
        b.relu("features.relu0")
        b.maxpool("features.pool0", 3, stride=2, padding=1)
    for bi, n in enumerate(blocks):
        for li in range(n):
            dense_layer(b, "features.denseblock%d.denselayer%d" % (bi + 1, li + 1), growth,
                        new_first=cifar)
        if bi != len(blocks) - 1:
            transition(b, "features.transition%d" % (bi + 1))
    b.bn("features.norm5")
    b.relu("relu")
    b.classifier_head("classifier")


# --------------------------------------------------------------------------------------------
# MobileNetV2 (torchvision; CIFAR: kuangliu)
# --------------------------------------------------------------------------------------------

MOBILENETV2_IMAGENET = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                        (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]
MOBILENETV2_CIFAR = [(1, 16, 1, 1), (6, 24, 2, 1), (6, 32, 3, 2), (6, 64, 4, 2),
                     (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]


def inverted_residual(b, prefix, expansion, out_ch, stride, cifar):
    """Expand 1x1 - depthwise 3x3 - project 1x1 (linear). ReLU6 is written as relu.

    torchvision skips the expansion conv when expansion == 1 and adds the input only when
    stride == 1 and in == out. kuangliu always has the expansion conv and, when stride == 1
    and in != out, adds a conv1x1 + BN shortcut."""
    x = b.last
    in_ch = b.channels()
    hidden = in_ch * expansion
    idx = 0
    if expansion != 1 or cifar:
        b.conv_bn_relu("%s.conv.%d" % (prefix, idx), hidden, 1, conv="0", bn="1", relu="2")
        idx += 1
    b.conv_bn_relu("%s.conv.%d" % (prefix, idx), hidden, 3, stride=stride, padding=1,
                   groups=hidden, conv="0", bn="1", relu="2")
    b.conv("%s.conv.%d" % (prefix, idx + 1), out_ch, 1, bias=False)
    main = b.bn("%s.conv.%d" % (prefix, idx + 2))
    if stride == 1 and in_ch == out_ch:
        return b.add(prefix + ".add", [main, x])
    if stride == 1 and cifar:
        b.conv(prefix + ".shortcut.0", out_ch, 1, bias=False, frm=x)
        shortcut = b.bn(prefix + ".shortcut.1")
        return b.add(prefix + ".add", [main, shortcut])
    return main


def make_divisible(v, divisor=8):
    """torchvision's _make_divisible: the nearest multiple of 8, not below 90% of v."""
    new_v = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


MOBILENETV2_WIDTH = {"mobilenetv2": 1.0, "mobilenetv2_w05": 0.5}


def build_mobilenetv2(b, name, cifar):
    """torchvision's width multiplier (channels rounded by make_divisible; the last conv keeps
    1280 below width 1)."""
    width = MOBILENETV2_WIDTH[name]
    b.conv_bn_relu("features.0", make_divisible(32 * width), 3, stride=1 if cifar else 2,
                   padding=1, conv="0", bn="1", relu="2")
    i = 1
    for t, c, n, s in (MOBILENETV2_CIFAR if cifar else MOBILENETV2_IMAGENET):
        for j in range(n):
            inverted_residual(b, "features.%d" % i, t, make_divisible(c * width),
                              s if j == 0 else 1, cifar)
            i += 1
    b.conv_bn_relu("features.%d" % i, make_divisible(1280 * max(1.0, width)), 1, conv="0",
                   bn="1", relu="2")
    b.classifier_head("classifier.1")  # classifier.0 is the omitted dropout


# --------------------------------------------------------------------------------------------
# Inception-V3 (torchvision, no AuxLogits)
# --------------------------------------------------------------------------------------------

def basic(b, prefix, filters, kernel, stride=1, padding=0, frm=None):
    """BasicConv2d: conv (no bias) + BN + ReLU."""
    return b.conv_bn_relu(prefix, filters, kernel, stride, padding, frm=frm)


def pool_branch(b, prefix, filters, x):
    """avg_pool2d(3, stride 1, padding 1) then a 1x1 BasicConv2d."""
    b.avgpool(prefix + ".avgpool", 3, stride=1, padding=1, frm=x)
    return basic(b, prefix, filters, 1)


def inception_v3_a(b, p, pool_features):
    x = b.last
    b1 = basic(b, p + ".branch1x1", 64, 1, frm=x)
    basic(b, p + ".branch5x5_1", 48, 1, frm=x)
    b2 = basic(b, p + ".branch5x5_2", 64, 5, padding=2)
    basic(b, p + ".branch3x3dbl_1", 64, 1, frm=x)
    basic(b, p + ".branch3x3dbl_2", 96, 3, padding=1)
    b3 = basic(b, p + ".branch3x3dbl_3", 96, 3, padding=1)
    b4 = pool_branch(b, p + ".branch_pool", pool_features, x)
    return b.concat(p + ".concat", [b1, b2, b3, b4])


def inception_v3_b(b, p):
    x = b.last
    b1 = basic(b, p + ".branch3x3", 384, 3, stride=2, frm=x)
    basic(b, p + ".branch3x3dbl_1", 64, 1, frm=x)
    basic(b, p + ".branch3x3dbl_2", 96, 3, padding=1)
    b2 = basic(b, p + ".branch3x3dbl_3", 96, 3, stride=2)
    b3 = b.maxpool(p + ".branch_pool", 3, stride=2, frm=x)
    return b.concat(p + ".concat", [b1, b2, b3])


def inception_v3_c(b, p, c7):
    x = b.last
    b1 = basic(b, p + ".branch1x1", 192, 1, frm=x)
    basic(b, p + ".branch7x7_1", c7, 1, frm=x)
    basic(b, p + ".branch7x7_2", c7, [1, 7], padding=[0, 3])
    b2 = basic(b, p + ".branch7x7_3", 192, [7, 1], padding=[3, 0])
    basic(b, p + ".branch7x7dbl_1", c7, 1, frm=x)
    basic(b, p + ".branch7x7dbl_2", c7, [7, 1], padding=[3, 0])
    basic(b, p + ".branch7x7dbl_3", c7, [1, 7], padding=[0, 3])
    basic(b, p + ".branch7x7dbl_4", c7, [7, 1], padding=[3, 0])
    b3 = basic(b, p + ".branch7x7dbl_5", 192, [1, 7], padding=[0, 3])
    b4 = pool_branch(b, p + ".branch_pool", 192, x)
    return b.concat(p + ".concat", [b1, b2, b3, b4])


def inception_v3_d(b, p):
    x = b.last
    basic(b, p + ".branch3x3_1", 192, 1, frm=x)
    b1 = basic(b, p + ".branch3x3_2", 320, 3, stride=2)
    basic(b, p + ".branch7x7x3_1", 192, 1, frm=x)
    basic(b, p + ".branch7x7x3_2", 192, [1, 7], padding=[0, 3])
    basic(b, p + ".branch7x7x3_3", 192, [7, 1], padding=[3, 0])
    b2 = basic(b, p + ".branch7x7x3_4", 192, 3, stride=2)
    b3 = b.maxpool(p + ".branch_pool", 3, stride=2, frm=x)
    return b.concat(p + ".concat", [b1, b2, b3])


def inception_v3_e(b, p):
    x = b.last
    b1 = basic(b, p + ".branch1x1", 320, 1, frm=x)
    t = basic(b, p + ".branch3x3_1", 384, 1, frm=x)
    a = basic(b, p + ".branch3x3_2a", 384, [1, 3], padding=[0, 1], frm=t)
    c = basic(b, p + ".branch3x3_2b", 384, [3, 1], padding=[1, 0], frm=t)
    b2 = b.concat(p + ".branch3x3.concat", [a, c])
    basic(b, p + ".branch3x3dbl_1", 448, 1, frm=x)
    t = basic(b, p + ".branch3x3dbl_2", 384, 3, padding=1)
    a = basic(b, p + ".branch3x3dbl_3a", 384, [1, 3], padding=[0, 1], frm=t)
    c = basic(b, p + ".branch3x3dbl_3b", 384, [3, 1], padding=[1, 0], frm=t)
    b3 = b.concat(p + ".branch3x3dbl.concat", [a, c])
    b4 = pool_branch(b, p + ".branch_pool", 192, x)
    return b.concat(p + ".concat", [b1, b2, b3, b4])


def build_inceptionv3(b, _name, cifar):
    if cifar:
        b.resize("upsample", [75, 75])
    basic(b, "Conv2d_1a_3x3", 32, 3, stride=2)
    basic(b, "Conv2d_2a_3x3", 32, 3)
    basic(b, "Conv2d_2b_3x3", 64, 3, padding=1)
    b.maxpool("maxpool1", 3, stride=2)
    basic(b, "Conv2d_3b_1x1", 80, 1)
    basic(b, "Conv2d_4a_3x3", 192, 3)
    b.maxpool("maxpool2", 3, stride=2)
    inception_v3_a(b, "Mixed_5b", 32)
    inception_v3_a(b, "Mixed_5c", 64)
    inception_v3_a(b, "Mixed_5d", 64)
    inception_v3_b(b, "Mixed_6a")
    inception_v3_c(b, "Mixed_6b", 128)
    inception_v3_c(b, "Mixed_6c", 160)
    inception_v3_c(b, "Mixed_6d", 160)
    inception_v3_c(b, "Mixed_6e", 192)
    inception_v3_d(b, "Mixed_7a")
    inception_v3_e(b, "Mixed_7b")
    inception_v3_e(b, "Mixed_7c")
    b.classifier_head("fc")


# --------------------------------------------------------------------------------------------
# Inception-V4 (Szegedy et al. 2016, as Cadene's pretrainedmodels inceptionv4)
# --------------------------------------------------------------------------------------------

def seq(b, prefix, convs, frm):
    """An nn.Sequential of BasicConv2d: convs = [(filters, kernel, stride, padding), ...]."""
    for i, (f, k, s, p) in enumerate(convs):
        basic(b, "%s.%d" % (prefix, i), f, k, s, p, frm=frm if i == 0 else None)
    return b.last


def mixed_3a(b, p):
    x = b.last
    m = b.maxpool(p + ".maxpool", 3, stride=2, frm=x)
    c = basic(b, p + ".conv", 96, 3, stride=2, frm=x)
    return b.concat(p + ".concat", [m, c])


def mixed_4a(b, p):
    x = b.last
    b0 = seq(b, p + ".branch0", [(64, 1, 1, 0), (96, 3, 1, 0)], x)
    b1 = seq(b, p + ".branch1", [(64, 1, 1, 0), (64, [1, 7], 1, [0, 3]),
                                 (64, [7, 1], 1, [3, 0]), (96, 3, 1, 0)], x)
    return b.concat(p + ".concat", [b0, b1])


def mixed_5a(b, p):
    x = b.last
    c = basic(b, p + ".conv", 192, 3, stride=2, frm=x)
    m = b.maxpool(p + ".maxpool", 3, stride=2, frm=x)
    return b.concat(p + ".concat", [c, m])


def inception_v4_a(b, p):
    x = b.last
    b0 = basic(b, p + ".branch0", 96, 1, frm=x)
    b1 = seq(b, p + ".branch1", [(64, 1, 1, 0), (96, 3, 1, 1)], x)
    b2 = seq(b, p + ".branch2", [(64, 1, 1, 0), (96, 3, 1, 1), (96, 3, 1, 1)], x)
    b.avgpool(p + ".branch3.0", 3, stride=1, padding=1, frm=x)  # count_include_pad=False
    b3 = basic(b, p + ".branch3.1", 96, 1)
    return b.concat(p + ".concat", [b0, b1, b2, b3])


def reduction_v4_a(b, p):
    x = b.last
    b0 = basic(b, p + ".branch0", 384, 3, stride=2, frm=x)
    b1 = seq(b, p + ".branch1", [(192, 1, 1, 0), (224, 3, 1, 1), (256, 3, 2, 0)], x)
    b2 = b.maxpool(p + ".branch2", 3, stride=2, frm=x)
    return b.concat(p + ".concat", [b0, b1, b2])


def inception_v4_b(b, p):
    x = b.last
    b0 = basic(b, p + ".branch0", 384, 1, frm=x)
    b1 = seq(b, p + ".branch1", [(192, 1, 1, 0), (224, [1, 7], 1, [0, 3]),
                                 (256, [7, 1], 1, [3, 0])], x)
    b2 = seq(b, p + ".branch2", [(192, 1, 1, 0), (192, [7, 1], 1, [3, 0]),
                                 (224, [1, 7], 1, [0, 3]), (224, [7, 1], 1, [3, 0]),
                                 (256, [1, 7], 1, [0, 3])], x)
    b.avgpool(p + ".branch3.0", 3, stride=1, padding=1, frm=x)
    b3 = basic(b, p + ".branch3.1", 128, 1)
    return b.concat(p + ".concat", [b0, b1, b2, b3])


def reduction_v4_b(b, p):
    x = b.last
    b0 = seq(b, p + ".branch0", [(192, 1, 1, 0), (192, 3, 2, 0)], x)
    b1 = seq(b, p + ".branch1", [(256, 1, 1, 0), (256, [1, 7], 1, [0, 3]),
                                 (320, [7, 1], 1, [3, 0]), (320, 3, 2, 0)], x)
    b2 = b.maxpool(p + ".branch2", 3, stride=2, frm=x)
    return b.concat(p + ".concat", [b0, b1, b2])


def inception_v4_c(b, p):
    x = b.last
    b0 = basic(b, p + ".branch0", 256, 1, frm=x)
    t = basic(b, p + ".branch1_0", 384, 1, frm=x)
    a = basic(b, p + ".branch1_1a", 256, [1, 3], padding=[0, 1], frm=t)
    c = basic(b, p + ".branch1_1b", 256, [3, 1], padding=[1, 0], frm=t)
    b1 = b.concat(p + ".branch1.concat", [a, c])
    basic(b, p + ".branch2_0", 384, 1, frm=x)
    basic(b, p + ".branch2_1", 448, [3, 1], padding=[1, 0])
    t = basic(b, p + ".branch2_2", 512, [1, 3], padding=[0, 1])
    a = basic(b, p + ".branch2_3a", 256, [1, 3], padding=[0, 1], frm=t)
    c = basic(b, p + ".branch2_3b", 256, [3, 1], padding=[1, 0], frm=t)
    b2 = b.concat(p + ".branch2.concat", [a, c])
    b.avgpool(p + ".branch3.0", 3, stride=1, padding=1, frm=x)
    b3 = basic(b, p + ".branch3.1", 256, 1)
    return b.concat(p + ".concat", [b0, b1, b2, b3])


def build_inceptionv4(b, _name, cifar):
    if cifar:
        b.resize("upsample", [75, 75])
    basic(b, "features.0", 32, 3, stride=2)
    basic(b, "features.1", 32, 3)
    basic(b, "features.2", 64, 3, padding=1)
    mixed_3a(b, "features.3")
    mixed_4a(b, "features.4")
    mixed_5a(b, "features.5")
    for i in range(6, 10):
        inception_v4_a(b, "features.%d" % i)
    reduction_v4_a(b, "features.10")
    for i in range(11, 18):
        inception_v4_b(b, "features.%d" % i)
    reduction_v4_b(b, "features.18")
    for i in range(19, 22):
        inception_v4_c(b, "features.%d" % i)
    b.classifier_head("last_linear")


# --------------------------------------------------------------------------------------------
# DCGAN (Radford et al. 2016, Fig. 1: z -> 1024x4x4 -> ... -> 3x64x64) on CelebA
# --------------------------------------------------------------------------------------------

LATENT = 100


def dcgan_generator(b, base=1024):
    """Project and reshape z to base x 4 x 4 (Fig. 1: 1024; TensorFlow's CelebA example: 512),
    four 5x5 stride-2 transposed convolutions (TF 'SAME': padding 2, output_padding 1) halving
    the channels to 3x64x64; BN + ReLU between, tanh at the end."""
    b.flatten("G.z")
    b.dense("G.project", base * 4 * 4, bias=False)
    b.reshape("G.reshape", (base, 4, 4))
    b.bn("G.bn0")
    b.relu("G.relu0")
    for i, filters in enumerate((base // 2, base // 4, base // 8), start=1):
        b.conv_transpose("G.deconv%d" % i, filters, 5, stride=2, padding=2, output_padding=1,
                         bias=False)
        b.bn("G.bn%d" % i)
        b.relu("G.relu%d" % i)
    b.conv_transpose("G.deconv4", 3, 5, stride=2, padding=2, output_padding=1)
    return b.elementwise("tanh", "G.tanh")


def dcgan_discriminator(b, base=1024):
    """The generator mirrored: four 5x5 stride-2 convolutions 3 -> base/8 -> ... -> base x 4 x 4,
    LeakyReLU(0.2) (no BN on the first), flattened into one sigmoid output."""
    for i, filters in enumerate((base // 8, base // 4, base // 2, base)):
        b.conv("D.conv%d" % i, filters, 5, stride=2, padding=2, bias=(i == 0))
        if i:
            b.bn("D.bn%d" % i)
        b.elementwise("leaky_relu", "D.lrelu%d" % i, {"slope": 0.2})
    b.flatten("D.flatten")
    b.dense("D.logit", 1)
    return b.elementwise("sigmoid", "D.sigmoid")


def build_dcgan_d(b, _name, _cifar):
    dcgan_discriminator(b)


def build_dcgan64_gd(b, _name, _cifar):
    """PyTorch's DCGAN example (ngf = ndf = 64), the one the H100 iterations of
    tests/data/gpu_h100 ran: 4x4 transposed convolutions 100 -> 512x4x4 (stride 1) -> 256 -> 128
    -> 64 -> 3x64x64 (stride 2, padding 1), BN + ReLU between, tanh; then 4x4 stride-2
    convolutions 3 -> 64 -> 128 -> 256 -> 512x4x4, BN on all but the first, LeakyReLU(0.2), a 4x4
    convolution to one logit (binary cross-entropy with logits). No biases."""
    b.conv_transpose("G.0", 512, 4, stride=1, padding=0, bias=False)
    for i, filters in enumerate((512, 256, 128, 64)):
        b.bn("G.bn%d" % i)
        b.relu("G.relu%d" % i)
        b.conv_transpose("G.%d" % (i + 1), filters // 2 if filters > 64 else 3, 4, stride=2,
                         padding=1, bias=False)
    b.elementwise("tanh", "G.tanh")
    for i, filters in enumerate((64, 128, 256, 512)):
        b.conv("D.%d" % i, filters, 4, stride=2, padding=1, bias=False)
        if i:
            b.bn("D.bn%d" % i)
        b.elementwise("leaky_relu", "D.lrelu%d" % i, {"slope": 0.2})
    b.conv("D.4", 1, 4, stride=1, padding=0, bias=False)
    b.flatten("D.flatten")
    return b.elementwise("sigmoid", "D.sigmoid")


def build_dcgan_gd(b, _name, _cifar):
    dcgan_generator(b)
    dcgan_discriminator(b)


# --------------------------------------------------------------------------------------------
# BERT-Large (Devlin et al. 2019: 24 layers, hidden 1024, 16 heads, FFN 4096) on SQuAD v1.1
# --------------------------------------------------------------------------------------------

def bert_layer(b, p, hidden, heads, ffn):
    x = b.last
    q = b.linear(p + ".attention.query", hidden, frm=x)
    k = b.linear(p + ".attention.key", hidden, frm=x)
    v = b.linear(p + ".attention.value", hidden, frm=x)
    b.batched_matmul(p + ".attention.scores", [q, k], heads, transpose_b=True)
    b.elementwise("softmax", p + ".attention.probs")
    probs = b.elementwise("dropout", p + ".attention.dropout", {"rate": 0.1})
    b.batched_matmul(p + ".attention.context", [probs, v], heads)
    b.linear(p + ".attention.output", hidden)
    b.elementwise("dropout", p + ".attention.output.dropout", {"rate": 0.1})
    b.add(p + ".attention.residual", [b.last, x])
    a = b.layernorm(p + ".attention.norm")
    b.linear(p + ".intermediate", ffn)
    b.elementwise("gelu", p + ".intermediate.gelu")
    b.linear(p + ".output", hidden)
    b.elementwise("dropout", p + ".output.dropout", {"rate": 0.1})
    b.add(p + ".output.residual", [b.last, a])
    return b.layernorm(p + ".output.norm")


def build_bert(b, hidden, heads, ffn, layers, pairwise_sum=False):
    """Embeddings (token, position, segment) summed, layer norm, dropout; the encoder layers;
    the span head. pairwise_sum adds the embeddings two at a time, as PyTorch's w + p + t."""
    w = b.embedding("embeddings.word", 30522, hidden, frm="input")
    p = b.embedding("embeddings.position", 512, hidden, frm="input")
    if pairwise_sum:
        s = b.add("embeddings.sum", [w, p])
        t = b.embedding("embeddings.token_type", 2, hidden, frm="input")
        b.add("embeddings.sum2", [s, t])
    else:
        t = b.embedding("embeddings.token_type", 2, hidden, frm="input")
        b.add("embeddings.sum", [w, p, t])
    b.layernorm("embeddings.norm")
    b.elementwise("dropout", "embeddings.dropout", {"rate": 0.1})
    for i in range(layers):
        bert_layer(b, "encoder.layer.%d" % i, hidden, heads, ffn)
    b.linear("qa_outputs", 2)
    b.elementwise("softmax", "span")


def build_bert_large(b, _name, _cifar):
    build_bert(b, 1024, 16, 4096, 24)


def build_bert_base2(b, _name, _cifar):
    """BERT-base's dimensions (hidden 768, 12 heads, FFN 3072) with 2 layers: the encoder of
    tools/onnx_fixtures.py, whose ONNX export the import tests compare with this file."""
    build_bert(b, 768, 12, 3072, 2, pairwise_sum=True)


# --------------------------------------------------------------------------------------------
# The zoo: builders, headers, reference parameter counts
# --------------------------------------------------------------------------------------------

# model -> builder(b, model, cifar); the builder appends the layers to Builder b
MODELS = {
    "vgg13": build_vgg, "vgg16": build_vgg, "vgg19": build_vgg,
    "resnet50": build_resnet, "resnet101": build_resnet, "resnet152": build_resnet,
    "densenet121": build_densenet, "densenet161": build_densenet,
    "densenet169": build_densenet, "densenet201": build_densenet,
    "mobilenetv2": build_mobilenetv2, "inceptionv3": build_inceptionv3,
    "inceptionv4": build_inceptionv4, "alexnet": build_alexnet,
    "dcgan_d": build_dcgan_d, "dcgan_gd": build_dcgan_gd, "dcgan64_gd": build_dcgan64_gd,
    "bert_large": build_bert_large, "bert_base2": build_bert_base2,
    "resnet8": build_cifar_resnet, "resnet20": build_cifar_resnet,
    "vgg11": build_vgg11_fashion, "mobilenetv2_w05": build_mobilenetv2,
    "densenet40": build_densenet,
}

# The datasets each model is generated for (cifar10 and imagenet unless listed).
MODEL_DATASETS = {"alexnet": ("imagenet",), "dcgan_d": ("celeba",), "dcgan_gd": ("celeba",),
                  "dcgan64_gd": ("celeba",),
                  "bert_large": ("squad",), "bert_base2": ("squad",), "resnet8": ("fashion",), "resnet20": ("fashion",),
                  "vgg11": ("fashion",), "mobilenetv2_w05": ("fashion",),
                  "densenet40": ("fashion",)}

# Models whose input is not the dataset's sample: the generator's step starts from z.
MODEL_INPUTS = {"dcgan_gd": (LATENT, 1, 1), "dcgan64_gd": (LATENT, 1, 1)}

TITLES = {
    "vgg13": "VGG-13 (Simonyan & Zisserman 2015, configuration B)",
    "vgg16": "VGG-16 (Simonyan & Zisserman 2015, configuration D)",
    "vgg19": "VGG-19 (Simonyan & Zisserman 2015, configuration E)",
    "resnet50": "ResNet-50 (He et al. 2016; bottleneck blocks [3, 4, 6, 3])",
    "resnet101": "ResNet-101 (He et al. 2016; bottleneck blocks [3, 4, 23, 3])",
    "resnet152": "ResNet-152 (He et al. 2016; bottleneck blocks [3, 8, 36, 3])",
    "densenet121": "DenseNet-121 (Huang et al. 2017; growth 32, blocks [6, 12, 24, 16])",
    "densenet161": "DenseNet-161 (Huang et al. 2017; growth 48, blocks [6, 12, 36, 24])",
    "densenet169": "DenseNet-169 (Huang et al. 2017; growth 32, blocks [6, 12, 32, 32])",
    "densenet201": "DenseNet-201 (Huang et al. 2017; growth 32, blocks [6, 12, 48, 32])",
    "mobilenetv2": "MobileNetV2 (Sandler et al. 2018, width 1.0)",
    "inceptionv3": "Inception-V3 (Szegedy et al. 2016, 'Rethinking the Inception Architecture')",
    "inceptionv4": "Inception-V4 (Szegedy et al. 2016, 'Inception-v4, Inception-ResNet ...')",
    "alexnet": "AlexNet (Krizhevsky et al. 2012)",
    "dcgan_d": "DCGAN discriminator (Radford et al. 2016)",
    "dcgan_gd": "DCGAN generator chained into its discriminator (Radford et al. 2016)",
    "dcgan64_gd": "PyTorch's DCGAN example, generator chained into discriminator (64 base filters)",
    "bert_large": "BERT-Large (Devlin et al. 2019; 24 layers, hidden 1024, 16 heads)",
    "bert_base2": "BERT-base's dimensions (hidden 768, 12 heads, FFN 3072) with 2 layers",
    "resnet8": "ResNet-8 (He et al. 2016, the CIFAR form: 6n + 2 layers, n = 1)",
    "resnet20": "ResNet-20 (He et al. 2016, the CIFAR form: 6n + 2 layers, n = 3)",
    "vgg11": "VGG-11 (Simonyan & Zisserman 2015, configuration A) at half width, with batch norm",
    "mobilenetv2_w05": "MobileNetV2 (Sandler et al. 2018) at width 0.5",
    "densenet40": "DenseNet-BC-40 (Huang et al. 2017; growth 12, blocks [6, 6, 6])",
}

# The Hype-training workloads beyond the CNNs: the whole header note (they keep dropout).
WORKLOAD_NOTES = {
    "dcgan_d": "The discriminator of DCGAN's Fig. 1 generator, mirrored: 5x5 stride-2 "
               "convolutions 3-128-256-512-1024 (64x64 -> 4x4), batch norm on all but the first, "
               "LeakyReLU 0.2, flattened into one sigmoid output trained with binary cross-"
               "entropy (real or fake: 2 classes). One iteration is the discriminator's step; "
               "run it at twice the GAN's batch (the real and the generated images). "
               "docs/hype.md: DCGAN.",
    "dcgan_gd": "The generator of DCGAN's Fig. 1: z (100) projected by a dense layer and reshaped "
                "to 1024x4x4, 5x5 stride-2 transposed convolutions 1024-512-256-128-3 (TF 'SAME': "
                "padding 2, output_padding 1) to 3x64x64, batch norm and ReLU between, tanh "
                "last; then the discriminator of dcgan_d_celeba on its output. One iteration is "
                "the generator's step: the generator's forward pass, the discriminator's on the "
                "fakes, the gradient back through both, and both updates (a real step discards "
                "the discriminator's: its update is over-counted). docs/hype.md: DCGAN.",
    "dcgan64_gd": "PyTorch's examples/dcgan (ngf = ndf = 64, nz = 100), the DCGAN the H100 "
                  "iterations of tests/data/gpu_h100 ran: 4x4 transposed convolutions 100 -> "
                  "512x4x4 -> 256 -> 128 -> 64 -> 3x64x64 (stride 2, padding 1 after the first), "
                  "batch norm and ReLU between, tanh; then 4x4 stride-2 convolutions 3-64-128-"
                  "256-512 (batch norm on all but the first, LeakyReLU 0.2) and a 4x4 convolution "
                  "to one logit, trained with binary cross-entropy; no biases. One iteration "
                  "trains both networks on one loss, as that measurement did (docs/gpu.md).",
    "bert_base2": "The layers of bert_large_squad at BERT-base's size, two of them: the "
                  "encoder tools/onnx_fixtures.py writes in PyTorch (as Hugging Face's BertModel "
                  "computes it) and exports to tests/data/onnx, which `trainsim import` must "
                  "read as this file. The embeddings are summed two at a time, as PyTorch adds "
                  "them; the span head and its softmax as bert_large_squad's. Sequences of 384 "
                  "tokens are C x 384 x 1.",
    "bert_large": "Follows Google's BERT (and Hugging Face's BertForQuestionAnswering without the "
                  "unused pooler): token, position and segment embeddings summed, layer norm, "
                  "dropout 0.1; 24 layers of self-attention (Q, K, V projections, scores Q K^T per "
                  "head, softmax, dropout, context P V, output projection, dropout, residual add, "
                  "layer norm) and feed-forward (1024-4096 GELU 4096-1024, dropout, residual add, "
                  "layer norm); the span head projects each position to 2 logits, one softmax "
                  "over the 2 x 384 (docs/hype.md: BERT-Large). Sequences of 384 tokens are "
                  "C x 384 x 1.",
}

FAMILY_NOTES = {
    "vgg": {
        "fashion": "Configuration A (vgg{n}) at half width (32-64-128-128-256-256-256-256 filters), "
                   "each conv followed by BN and ReLU as in torchvision vgg11_bn, four maxpools "
                   "(28x28 to 1x1; a fifth would meet a 1x1 map), one dense 256-10. Trainable: the "
                   "numerics run every layer.",
        "imagenet": "Follows torchvision vgg{n} (no batch norm): the conv stack, then the classifier "
                    "25088-4096-4096-1000 with ReLUs. AdaptiveAvgPool2d(7) is an identity at 224x224 "
                    "and is omitted.",
        "cifar10": "The same conv stack as torchvision vgg{n} / kuangliu pytorch-cifar VGG, kept without "
                   "batch norm to stay comparable with the ImageNet file (kuangliu has BN after every "
                   "conv): the five maxpools leave 512x1x1, then a single dense 512-10.",
    },
    "resnet": {
        "imagenet": "Follows torchvision resnet{n}: 7x7/2 stem conv, BN, ReLU, 3x3/2 maxpool, bottleneck "
                    "v1.5 (stride on the 3x3 conv), conv1x1+BN downsample where the shape changes, "
                    "global average pool, dense 2048-1000.",
        "fashion": "Follows He et al. 2016, section 4.2 (the CIFAR-10 ResNets): 3x3 stem conv to 16 "
                   "filters, BN, ReLU, three stages of basic blocks (two 3x3 convs with BN) with "
                   "16, 32 and 64 filters and strides 1, 2, 2 (28x28, 14x14, 7x7 here), the "
                   "shortcut a conv1x1+BN where the shape changes (the paper's option B), global "
                   "average pool, dense 64-10. Trainable: the numerics run every layer.",
        "cifar10": "Follows kuangliu pytorch-cifar ResNet{n}: 3x3 stride-1 stem conv with 64 filters, BN, "
                   "ReLU, no maxpool, bottleneck stages 64/128/256/512 with strides 1, 2, 2, 2, "
                   "conv1x1+BN shortcut where the shape changes, global average pool (avg_pool2d 4 "
                   "in kuangliu), dense 2048-10. Layer names follow torchvision.",
    },
    "densenet": {
        "fashion": "DenseNet-BC as kuangliu pytorch-cifar builds it for CIFAR, at depth {n}: 3x3 stem "
                   "conv to 2k = 24 filters (no BN, no pool), three dense blocks of 6 layers "
                   "(BN-ReLU-conv1x1(4k)-BN-ReLU-conv3x3(k), concat order [new, input]) with "
                   "transitions (BN-ReLU-conv1x1 halving the channels, avgpool 2: 28x28, 14x14, "
                   "7x7), final BN, ReLU, global average pool, dense to 10. Trainable: the "
                   "numerics run every layer.",
        "imagenet": "Follows torchvision densenet{n}: 7x7/2 stem conv, BN, ReLU, 3x3/2 maxpool; dense "
                    "layers BN-ReLU-conv1x1(4k)-BN-ReLU-conv3x3(k) concatenated with their input; "
                    "transitions BN-ReLU-conv1x1 (half the channels)-avgpool 2; final BN, ReLU, global "
                    "average pool, dense. The running concatenation is written as one concat per "
                    "dense layer.",
        "cifar10": "Follows kuangliu pytorch-cifar DenseNet{n}: 3x3 stem conv with 2k filters (no BN, no "
                   "pool), the same dense layers (concat order [new, input] as kuangliu) and "
                   "transitions (reduction 0.5), final BN, ReLU, global average pool (avg_pool2d 4 in "
                   "kuangliu), dense to 10. Layer names follow torchvision.",
    },
    "mobilenetv2": {
        "fashion": "The CIFAR form of kuangliu pytorch-cifar MobileNetV2 (3x3 stride-1 stem, blocks "
                   "(1,16,1,1) (6,24,2,1) (6,32,3,2) (6,64,4,2) (6,96,3,1) (6,160,3,2) (6,320,1,1), "
                   "the 1x1 expansion conv in every block, conv1x1+BN shortcuts for stride-1 blocks "
                   "with in != out) at torchvision's width multiplier 0.5 (channels rounded to "
                   "multiples of 8, so 24 becomes 16; the last 1x1 conv keeps 1280), then BN, ReLU, "
                   "global average pool, dense 1280-10; 28x28, 14x14, 7x7 and 4x4 maps. ReLU6 is "
                   "written as relu. Trainable: the numerics run every layer.",
        "imagenet": "Follows torchvision mobilenet_v2: 3x3/2 stem conv to 32, inverted residual blocks "
                    "(t, c, n, s) = (1,16,1,1) (6,24,2,2) (6,32,3,2) (6,64,4,2) (6,96,3,1) (6,160,3,2) "
                    "(6,320,1,1), residual add only where stride 1 and in == out, 1x1 conv to 1280, "
                    "global average pool, dense 1280-1000. ReLU6 is written as relu.",
        "cifar10": "Follows kuangliu pytorch-cifar MobileNetV2: 3x3 stride-1 stem conv to 32, blocks "
                   "(1,16,1,1) (6,24,2,1) (6,32,3,2) (6,64,4,2) (6,96,3,1) (6,160,3,2) (6,320,1,1); as "
                   "in kuangliu every block has the 1x1 expansion conv (also for t = 1) and a stride-1 "
                   "block with in != out gets a conv1x1+BN shortcut; then 1x1 conv to 1280, BN, ReLU, "
                   "global average pool (avg_pool2d 4 in kuangliu), dense 1280-10. Names follow "
                   "torchvision.",
    },
    "inceptionv3": {
        "imagenet": "Follows torchvision inception_v3 (BasicConv2d = conv without bias + BN + ReLU) at "
                    "224x224 input, without the AuxLogits classifier (transform_input is irrelevant "
                    "here): Mixed_5b..Mixed_7c, global average pool, dense 2048-1000.",
        "cifar10": "There is no CIFAR variant: the 32x32 images are resized (bilinear) to 75x75, the "
                   "smallest input the stem accepts, then the torchvision inception_v3 architecture "
                   "follows unchanged (no AuxLogits) except the final dense has 10 units. "
                   "Mixed_7a leaves 1x1 at this input size.",
    },
    "alexnet": {
        "imagenet": "Follows torchvision alexnet (the single-tower variant of Krizhevsky's 'One "
                    "weird trick', 64-192-384-256-256 filters, no local response normalization): "
                    "11x11/4 stem, three 3x3/2 max pools, the classifier 9216-4096-4096-1000 with "
                    "ReLUs. AdaptiveAvgPool2d(6) is an identity at 224x224 and is omitted. Hype-"
                    "training (He et al., ICS 2021) trains AlexNet; there is no CIFAR-10 variant.",
    },
    "inceptionv4": {
        "imagenet": "Follows Cadene's pretrainedmodels inceptionv4 (BasicConv2d = conv without bias + "
                    "BN(affine) + ReLU) at 224x224 input: stem, Mixed_3a/4a/5a, 4x Inception-A, "
                    "Reduction-A, 7x Inception-B, Reduction-B, 3x Inception-C, global average pool, "
                    "dense 1536-1000.",
        "cifar10": "There is no CIFAR variant: the 32x32 images are resized (bilinear) to 75x75 so the "
                   "stem stays valid, then Cadene's pretrainedmodels inceptionv4 architecture follows "
                   "unchanged except the final dense has 10 units. Reduction-B leaves 1x1 at this "
                   "input size.",
    },
}

# Reference trainable-parameter counts (source, count).
# ImageNet: torchvision's published counts, except
#   inception_v3: torchvision 27,161,264 minus AuxLogits (conv 768-128 1x1 + BN: 98,560;
#                 conv 128-768 5x5 + BN: 2,459,136; fc 768-1000: 769,000) = 23,834,568;
#   inception_v4: Cadene pretrainedmodels / timm inception_v4, 42,679,816.
# CIFAR-10: kuangliu pytorch-cifar counts (= torchvision's with the CIFAR stem and a 10-class
#   head); VGG without BN = kuangliu VGG minus its BN parameters; Inception: the ImageNet
#   reference with a 10-class head.
REFERENCES = {
    "vgg13_imagenet": ("torchvision", 133047848),
    "vgg16_imagenet": ("torchvision", 138357544),
    "vgg19_imagenet": ("torchvision", 143667240),
    "resnet50_imagenet": ("torchvision", 25557032),
    "resnet101_imagenet": ("torchvision", 44549160),
    "resnet152_imagenet": ("torchvision", 60192808),
    "densenet121_imagenet": ("torchvision", 7978856),
    "densenet161_imagenet": ("torchvision", 28681000),
    "densenet169_imagenet": ("torchvision", 14149480),
    "densenet201_imagenet": ("torchvision", 20013928),
    "mobilenetv2_imagenet": ("torchvision", 3504872),
    "inceptionv3_imagenet": ("torchvision - AuxLogits", 23834568),
    "inceptionv4_imagenet": ("Cadene pretrainedmodels", 42679816),
    "alexnet_imagenet": ("torchvision", 61100840),
    # DCGAN's paper publishes no count: these are its Fig. 1 layers counted by hand (the
    # generator 1,638,400 + 13,107,200 + 3,276,800 + 819,200 + 9,603 weights and 3,840 batch
    # norm; the discriminator 9,728 + 819,200 + 3,276,800 + 13,107,200 + 16,385 and 3,584).
    "dcgan_d_celeba": ("DCGAN Fig. 1 mirrored", 17232897),
    "dcgan_gd_celeba": ("DCGAN Fig. 1 G + D", 36087940),
    # PyTorch's examples/dcgan: generator 3,576,704 and discriminator 2,765,568 parameters
    # (models.csv of tests/data/gpu_h100 counts 6,342,272 for the two).
    "dcgan64_gd_celeba": ("PyTorch examples/dcgan G + D", 6342272),
    # Hugging Face bert-large-uncased 335,141,888 - pooler 1,049,600 + span head 2,050.
    "bert_large_squad": ("HF bert-large - pooler + head", 334094338),
    # Hugging Face bert-base-uncased 109,482,240 - 10 of its 12 layers (7,087,872 each) -
    # pooler 590,592 + span head 1,538; PyTorch counts the same for the fixture's model.
    "bert_base2_squad": ("HF bert-base, 2 layers - pooler + head", 38014466),
    "vgg13_cifar10": ("kuangliu - BN", 9410122),
    "vgg16_cifar10": ("kuangliu - BN", 14719818),
    "vgg19_cifar10": ("kuangliu - BN", 20029514),
    "resnet50_cifar10": ("kuangliu", 23520842),
    "resnet101_cifar10": ("kuangliu", 42512970),
    "resnet152_cifar10": ("kuangliu", 58156618),
    "densenet121_cifar10": ("kuangliu", 6956298),
    "densenet161_cifar10": ("kuangliu", 26482378),
    "densenet169_cifar10": ("kuangliu", 12493322),
    "densenet201_cifar10": ("kuangliu", 18104330),
    "mobilenetv2_cifar10": ("kuangliu", 2296922),
    "inceptionv3_cifar10": ("torchvision - AuxLogits, 10 cls", 21806058),
    "inceptionv4_cifar10": ("Cadene, 10 classes", 41158186),
    # He et al. give ResNet-20 0.27M parameters (option A, 3 input channels). Counted by hand
    # for 1 input channel and option B: stem 144 + BN 32; stage 1: 3 x (2 x 2,304 + 2 x 32);
    # stage 2: 4,608 + 9,216 + 512 (shortcut) + 3 x 64 (BN) then 2 x (2 x 9,216 + 2 x 64);
    # stage 3: 18,432 + 36,864 + 2,048 + 3 x 128 then 2 x (2 x 36,864 + 2 x 128); dense 650.
    # tools/torch_fixtures.py builds the same networks in PyTorch, which counts the same.
    "resnet8_fashion": ("He et al. 4.2, option B, counted", 77754),
    "resnet20_fashion": ("He et al. 4.2, option B, counted", 272186),
    # PyTorch's count of the model tools/torch_fixtures.py builds from each file (its modules
    # size their own weights from in / out channels and groups).
    "vgg11_fashion": ("PyTorch, from the file", 2309610),
    "mobilenetv2_w05_fashion": ("PyTorch, from the file", 715546),
    "densenet40_fashion": ("PyTorch, from the file", 175690),
}


def family(model):
    for f in ("vgg", "resnet", "densenet", "mobilenetv2"):
        if model.startswith(f):
            return f
    return model


def header(model, dataset, b):
    if model in WORKLOAD_NOTES:
        text = ("%s on %s, shape only. %s The trailing comments give each layer's output shape. "
                "%d layers, %s trainable parameters."
                % (TITLES[model], DATASET_TITLES[dataset], WORKLOAD_NOTES[model], len(b.layers),
                   format(b.params, ",")))
        return textwrap.wrap(text, 96) + ["Generated by tools/gen_zoo.py - do not edit."]
    fam = family(model)
    depth = model[len(fam):] if fam in ("vgg", "resnet", "densenet") else ""
    note = FAMILY_NOTES[fam][dataset].format(n=depth)
    data = DATASET_TITLES[dataset]
    only = "" if dataset == "fashion" else ", shape only"
    text = ("%s on %s%s. %s Dropout and auxiliary classifiers are omitted; the "
            "trailing comments give each layer's output shape. %d layers, %s trainable parameters."
            % (TITLES[model], data, only, note, len(b.layers), format(b.params, ",")))
    return textwrap.wrap(text, 96) + ["Generated by tools/gen_zoo.py - do not edit."]


DATASET_TITLES = {
    "cifar10": "CIFAR-10 (3x32x32, 10 classes)",
    "imagenet": "ImageNet (3x224x224, 1000 classes)",
    "celeba": "CelebA (3x64x64 faces)",
    "squad": "SQuAD v1.1 (384 tokens)",
    "fashion": "Fashion-MNIST or MNIST (1x28x28, 10 classes)",
}
DATASET_NAMES = {"cifar10": "CIFAR-10", "imagenet": "ImageNet", "celeba": "CelebA",
                 "squad": "SQuAD", "fashion": "Fashion-MNIST / MNIST"}


def description(model, dataset):
    """One line for `trainsim list networks`."""
    return "%s for %s" % (TITLES[model], DATASET_NAMES[dataset])


def build(model, dataset):
    spec = DATASETS[dataset]
    b = Builder("%s_%s" % (model, dataset), MODEL_INPUTS.get(model, spec["input"]),
                spec["classes"])
    # The small-input (CIFAR) forms serve Fashion-MNIST too: 28x28 is no larger than 32x32.
    MODELS[model](b, model, dataset in ("cifar10", "fashion"))
    last = b.layers[-1][0]["type"]
    # A softmax has a value per class; a sigmoid one value, the second of two classes.
    outputs = {"softmax": spec["classes"], "sigmoid": 1 if spec["classes"] == 2 else None}
    if _volume(b.shapes[b.last]) != outputs.get(last):
        raise ShapeError("%s: must end in a softmax over %d classes (or a sigmoid for 2)"
                         % (b.name, spec["classes"]))
    return b


def generate():
    """Yield (file name, builder, YAML text) for the whole zoo."""
    for model in MODELS:
        for dataset in MODEL_DATASETS.get(model, ("cifar10", "imagenet")):
            b = build(model, dataset)
            yield b.name + ".yaml", b, b.to_yaml(header(model, dataset, b),
                                                 description(model, dataset))


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------

def cmd_write():
    os.makedirs(OUT_DIR, exist_ok=True)
    for fname, _, text in generate():
        path = os.path.join(OUT_DIR, fname)
        with open(path, "w") as f:
            f.write(text)
        print("wrote", os.path.relpath(path, os.getcwd()))
    return 0


def cmd_check():
    bad = []
    for fname, _, text in generate():
        path = os.path.join(OUT_DIR, fname)
        if not os.path.exists(path):
            bad.append((fname, "missing"))
            continue
        with open(path) as f:
            if f.read() != text:
                bad.append((fname, "differs from the generator"))
    for fname, why in bad:
        print("%s: %s" % (os.path.join(OUT_DIR, fname), why))
    if bad:
        print("gen_zoo --check: %d file(s) out of date; run python3 tools/gen_zoo.py" % len(bad))
        return 1
    print("gen_zoo --check: all zoo files up to date")
    return 0


def cmd_params():
    fmt = "%-26s %6s %13s %13s  %-32s %s"
    print(fmt % ("file", "layers", "params", "reference", "source", ""))
    mismatches = 0
    for fname, b, _ in generate():
        source, ref = REFERENCES[b.name]
        mark = "" if ref == b.params else "<-- differs by %+d" % (b.params - ref)
        mismatches += bool(mark)
        print(fmt % (fname, len(b.layers), format(b.params, ","), format(ref, ","), source, mark))
    print("%d mismatch(es)" % mismatches)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--check", action="store_true",
                   help="exit 1 if any zoo file is missing or differs from the generator")
    g.add_argument("--params", action="store_true",
                   help="print layers and parameter counts against the reference counts")
    args = ap.parse_args(argv)
    if args.check:
        return cmd_check()
    if args.params:
        return cmd_params()
    return cmd_write()


if __name__ == "__main__":
    sys.exit(main())
