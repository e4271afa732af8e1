#!/usr/bin/env python3
"""Reference numerics from PyTorch for trainsim's trainable layers and two short trainings.

Writes the fixtures tests/unit/test_torch_reference.cpp compares trainsim against:

  layers.json    every layer type trainsim can train (sim/nn/layer_registry.cpp), several
                 shapes each: the input x, the parameters, a fixed random G, and PyTorch's
                 forward output y and the gradients of loss = sum(y * G) with respect to x,
                 the weight and the bias (the gradient entering the layer is G). Softmax also
                 gets cross-entropy cases, as trainsim trains it: summed over the batch, the
                 loss and its gradient with respect to the logits.
  training.json  a pool of synthetic 28x28 images (bytes, a value is byte / 255) with labels,
                 and for LeNet-5 (configs/networks/lenet5.yaml, SGD of
                 configs/experiments/lenet5_mnist.yaml) and the seed MLP (seed_mlp.yaml, SGD
                 of quickstart.yaml): the initial parameters, the mean cross-entropy before
                 each of the SGD steps and the parameters after the last.

Everything is fp32 on one CPU thread, from fixed seeds. Arrays are stored little-endian fp32
(images: bytes), base64-encoded, in trainsim's layouts: NCHW activations, dense weights
in x out (PyTorch's transposed), conv filters F x C/G x K x K (PyTorch's own).

The tests read the files without PyTorch. Regenerating them needs PyTorch (Debian:
`apt-get install python3-torch`, for /usr/bin/python3, which this tool runs itself under when
the python it was started with has no torch) and PyYAML:

  tools/torch_fixtures.py [--out tests/data/torch]
"""
import argparse
import base64
import json
import math
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(REPO, "tests", "data", "torch")
# The smooth activations trainsim computes (sim/nn/activation.cpp).
SMOOTH = ("tanh", "sigmoid", "gelu")
# Synthetic training images: this many, drawn around ten prototypes.
POOL = 320
STEPS = 20
# The float64 run's steps: enough to compare every gradient through the graph exactly (the
# test's float64 numerics run the slow reference loops, about 2 s a step for ResNet-8).
STEPS64 = 4


DEBIAN_PYTHON = "/usr/bin/python3"


def reexec_under_debian_python(script, modules, flag):
    """As tools/plot does for matplotlib: a pyenv or venv python without `modules` runs
    `script` again under Debian's python3, where python3-torch (python3-onnx) installs them;
    the environment variable `flag` stops a second re-exec."""
    try:
        for m in modules:
            __import__(m)
        return
    except ImportError:
        pass
    if (os.environ.get(flag) != "1" and os.access(DEBIAN_PYTHON, os.X_OK)
            and os.path.realpath(sys.executable) != os.path.realpath(DEBIAN_PYTHON)):
        os.environ[flag] = "1"
        os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON, os.path.abspath(script)] + sys.argv[1:])


def reexec_for_torch():
    reexec_under_debian_python(__file__, ["torch"], "TRAINSIM_TORCH_REEXEC")


def need(module, hint):
    """Imports `module` or exits with how to install it."""
    try:
        return __import__(module)
    except ImportError:
        sys.exit(f"torch_fixtures.py: needs the Python module '{module}': {hint}")


def encode(t, dtype="f32"):
    """A tensor as base64 of its little-endian values (fp32, or bytes for 'u8')."""
    import numpy as np

    a = t.detach().cpu().numpy() if hasattr(t, "detach") else np.asarray(t)
    a = np.ascontiguousarray(a.astype("<f4" if dtype == "f32" else "u1"))
    return base64.b64encode(a.tobytes()).decode("ascii")


def encode_f64(t):
    """A tensor as base64 of its little-endian float64 values."""
    import numpy as np

    a = np.ascontiguousarray(t.detach().cpu().numpy().astype("<f8"))
    return base64.b64encode(a.tobytes()).decode("ascii")


# ------------------------------------------------------------------------------------------
# Single layers


def layer_cases():
    """(name, type, batch, in_shape, spec, ties) for every case: spec holds the YAML keys,
    ties asks for inputs with repeated values."""
    cases = []

    def add(kind, batch, in_shape, ties=False, **spec):
        label = " ".join(f"{k} {v}" for k, v in spec.items()
                         if k != "inputs") + (" ties" if ties else "")
        if "inputs" in spec:
            label += " inputs " + " + ".join("x".join(map(str, i)) for i in spec["inputs"])
        name = f"{kind} {'x'.join(map(str, in_shape))} batch {batch}"
        name += f" {label}" if label else ""
        cases.append((name, kind, batch, list(in_shape), spec, ties))

    # dense: a vector input, a C x H x W input (dense reads it as a vector), no bias, and one
    # large enough that trainsim cuts its GEMMs into ranges (sim/nn/dense.cpp).
    add("dense", 3, [7, 1, 1], units=5)
    add("dense", 4, [3, 5, 5], units=13)
    add("dense", 2, [17, 1, 1], units=9, bias=False)
    add("dense", 5, [100, 1, 1], units=33)
    add("dense", 64, [96, 1, 1], units=48)
    # conv2d: the direct kernels (stride 1, kernel 2..7), the patch-matrix GEMM (stride > 1,
    # kernel 1 or 8), odd sizes, groups and depthwise, and a layer large enough to run as
    # several blocks of samples (sim/nn/conv2d.cpp).
    add("conv2d", 2, [1, 7, 7], filters=2, kernel=5, padding=2)
    add("conv2d", 2, [3, 9, 11], filters=5, kernel=3, stride=2, padding=1)
    add("conv2d", 3, [2, 5, 9], filters=3, kernel=3, stride=3, padding=2)
    add("conv2d", 2, [3, 10, 10], filters=7, kernel=1)
    add("conv2d", 2, [5, 13, 13], filters=9, kernel=5, stride=2, padding=2, bias=False)
    add("conv2d", 2, [2, 11, 11], filters=3, kernel=8, padding=1)
    add("conv2d", 2, [3, 6, 7], filters=4, kernel=2)
    add("conv2d", 2, [4, 8, 8], filters=6, kernel=3, padding=1, groups=2)
    add("conv2d", 2, [6, 7, 7], filters=6, kernel=3, padding=1, groups=6)
    add("conv2d", 2, [6, 12, 11], filters=12, kernel=3, stride=2, padding=1, groups=3)
    add("conv2d", 3, [8, 9, 9], filters=16, kernel=3, padding=1)
    add("conv2d", 2, [3, 11, 9], filters=6, kernel=7, padding=3)
    # pools: no padding, floor of the window count, stride defaulting to the kernel.
    # maxpool 2 / 2 has its own vector code (rows under and over 32 windows, odd sizes).
    add("maxpool2d", 2, [3, 8, 8], kernel=2)
    add("maxpool2d", 2, [2, 9, 7], kernel=2)
    add("maxpool2d", 2, [2, 6, 70], kernel=2)
    add("maxpool2d", 2, [2, 5, 67], kernel=2)
    add("maxpool2d", 2, [3, 9, 9], kernel=3, stride=2)
    add("maxpool2d", 2, [2, 7, 10], kernel=3, stride=3)
    add("maxpool2d", 2, [1, 5, 5], kernel=2, stride=1)
    # Inputs of five values, so windows have several maxima: the gradient goes to the first
    # in row-major order, in both.
    add("maxpool2d", 2, [3, 8, 9], kernel=2, ties=True)
    add("maxpool2d", 2, [2, 9, 9], kernel=3, stride=2, ties=True)
    add("avgpool2d", 2, [3, 8, 8], kernel=2)
    add("avgpool2d", 2, [2, 9, 7], kernel=3, stride=2)
    add("avgpool2d", 2, [3, 11, 6], kernel=2, stride=1)
    add("avgpool2d", 2, [2, 7, 9], kernel=2)
    add("flatten", 2, [3, 4, 5])
    add("reshape", 2, [4, 3, 6], shape=[2, 6, 6])
    add("reshape", 3, [12, 1, 1], shape=[3, 2, 2])
    for kind in ("relu", "leaky_relu") + SMOOTH:
        add(kind, 2, [3, 5, 7])
        add(kind, 3, [37, 1, 1])
    add("leaky_relu", 2, [3, 5, 7], slope=0.2)
    add("softmax", 4, [10, 1, 1])
    add("softmax", 3, [7, 1, 1])
    # batchnorm in training (batch statistics; the running ones after the step are checked
    # too) and in evaluation (running statistics), on planes and on 1 x 1 maps.
    add("batchnorm", 4, [3, 5, 6])
    add("batchnorm", 8, [5, 1, 1])
    add("batchnorm", 2, [16, 7, 7])
    add("batchnorm", 3, [4, 5, 5], mode="eval")
    add("global_avgpool", 2, [3, 5, 7])
    add("global_avgpool", 3, [8, 1, 1])
    # Several inputs: `inputs` lists their shapes (the first is `in`).
    add("add", 2, [3, 4, 5], inputs=[[3, 4, 5], [3, 4, 5]])
    add("add", 2, [2, 3, 3], inputs=[[2, 3, 3], [2, 3, 3], [2, 3, 3]])
    add("concat", 2, [3, 4, 5], inputs=[[3, 4, 5], [2, 4, 5]])
    add("concat", 3, [1, 6, 6], inputs=[[1, 6, 6], [4, 6, 6], [2, 6, 6]])
    # dropout as evaluation runs it, and in training at rate 0: values and gradients pass
    # unchanged (a random mask is not PyTorch's to compare; tests/unit/test_graph_layers.cpp
    # checks the masks).
    add("dropout", 2, [3, 4, 4], rate=0.5, mode="eval")
    add("dropout", 2, [3, 4, 4], rate=0.0)
    return cases


def pair(v):
    """A network file's kernel or padding, `k` or `[kh, kw]`, as (height, width)."""
    return (v, v) if isinstance(v, int) else tuple(v)


def make_module(torch, kind, in_shape, spec):
    """The PyTorch module of one trainsim layer, and its output shape."""
    nn = torch.nn
    c, h, w = in_shape
    if kind == "dense":
        return nn.Linear(c * h * w, spec["units"], bias=spec.get("bias", True))
    if kind == "conv2d":
        return nn.Conv2d(c, spec["filters"], pair(spec["kernel"]), stride=spec.get("stride", 1),
                         padding=pair(spec.get("padding", 0)), groups=spec.get("groups", 1),
                         bias=spec.get("bias", True))
    if kind == "conv2d_transpose":
        return nn.ConvTranspose2d(c, spec["filters"], spec["kernel"], stride=spec.get("stride", 1),
                                  padding=spec.get("padding", 0),
                                  output_padding=spec.get("output_padding", 0),
                                  bias=spec.get("bias", True))
    if kind in ("maxpool2d", "avgpool2d"):
        k = pair(spec["kernel"])
        stride = spec.get("stride", k[0])
        pad = pair(spec.get("padding", 0))
        if kind == "maxpool2d":
            return nn.MaxPool2d(k, stride=stride, padding=pad, ceil_mode=False)
        return nn.AvgPool2d(k, stride=stride, padding=pad, ceil_mode=False)
    if kind == "relu":
        return nn.ReLU()
    if kind == "leaky_relu":
        # trainsim's default slope (sim/spec/specs.h), not PyTorch's.
        return nn.LeakyReLU(spec.get("slope", 0.01))
    if kind == "tanh":
        return nn.Tanh()
    if kind == "sigmoid":
        return nn.Sigmoid()
    if kind == "gelu":
        return nn.GELU(approximate="tanh")
    if kind == "softmax":
        return nn.Softmax(dim=1)
    if kind == "batchnorm":
        return nn.BatchNorm2d(c)  # eps 1e-5, momentum 0.1: trainsim's (sim/nn/batchnorm.h)
    if kind == "global_avgpool":
        return nn.AdaptiveAvgPool2d(1)
    if kind == "dropout":
        return nn.Dropout(spec.get("rate", 0.1))
    raise ValueError(kind)


def run_layer(torch, case, seed):
    """One case: inputs and parameters from `seed`, PyTorch's outputs and gradients."""
    name, kind, batch, in_shape, spec, ties = case
    gen = torch.Generator().manual_seed(seed)
    shapes = spec.get("inputs", [in_shape])
    xs = [torch.rand([batch] + list(shp), generator=gen) * 2 - 1 for shp in shapes]
    x = xs[0]
    if ties:
        x = torch.round(x * 2) / 2
    if kind in ("relu", "leaky_relu") + SMOOTH:
        x = x * 4  # the activations' curved parts and tails
        x.view(-1)[::11] = 0  # the derivative's convention at 0
    if kind == "softmax":
        x = x * 3
    if kind == "batchnorm":
        x = x * 3 + 0.5  # a mean and a variance away from 0 and 1
    xs[0] = x
    for t in xs:
        t.requires_grad_(True)
    rec_extra = {}
    module = None
    if kind == "flatten":
        y = torch.flatten(x, 1)
    elif kind == "reshape":
        y = x.reshape([batch] + spec["shape"])
    elif kind == "add":
        y = xs[0]
        for t in xs[1:]:
            y = y + t
    elif kind == "concat":
        y = torch.cat(xs, dim=1)
    else:
        module = make_module(torch, kind, in_shape, spec)
        # Parameters of size about 1 / sqrt(fan-in) so the outputs stay near 1, and biases
        # not zero.
        with torch.no_grad():
            for p in module.parameters():
                fan_in = p[0].numel() if p.dim() > 1 else 4
                p.copy_((torch.rand(p.shape, generator=gen) * 2 - 1) / math.sqrt(fan_in))
        if kind == "batchnorm" and spec.get("mode") == "eval":
            with torch.no_grad():
                module.running_mean.copy_(torch.rand(in_shape[0], generator=gen) - 0.5)
                module.running_var.copy_(torch.rand(in_shape[0], generator=gen) + 0.5)
            rec_extra["running_mean_before"] = encode(module.running_mean)
            rec_extra["running_var_before"] = encode(module.running_var)
        if spec.get("mode") == "eval":
            module.eval()
        xin = torch.flatten(x, 1) if kind == "dense" else x
        y = module(xin)
        if kind == "batchnorm":
            rec_extra["running_mean"] = encode(module.running_mean)
            rec_extra["running_var"] = encode(module.running_var)
    g = torch.rand(y.shape, generator=gen) * 2 - 1
    (y * g).sum().backward()
    out_shape = list(y.shape[1:]) + [1] * (4 - y.dim())
    rec = {"name": name, "type": kind, "batch": batch, "in": in_shape, "out": out_shape,
           "spec": {k: v for k, v in spec.items() if k not in ("inputs", "mode")},
           "x": encode(x), "g": encode(g), "y": encode(y), "dx": encode(x.grad)}
    if "mode" in spec:
        rec["mode"] = spec["mode"]
    if len(xs) > 1:
        rec["inputs"] = shapes
        rec["xs"] = [encode(t) for t in xs]
        rec["dxs"] = [encode(t.grad) for t in xs]
    rec.update(rec_extra)
    if module is not None:
        for pname, p in module.named_parameters():
            value, grad = p.detach(), p.grad
            if kind == "dense" and pname == "weight":  # trainsim: in x out
                value, grad = value.t(), grad.t()
            rec[pname] = encode(value)
            rec["d" + pname] = encode(grad)
    return rec


def cross_entropy_cases(torch):
    """Softmax as trainsim trains it: cross-entropy summed over the batch, fused."""
    out = []
    for i, (batch, classes, scale) in enumerate(((6, 10, 3.0), (5, 7, 8.0), (32, 10, 1.0))):
        gen = torch.Generator().manual_seed(900 + i)
        logits = ((torch.rand(batch, classes, generator=gen) * 2 - 1) * scale).requires_grad_()
        labels = torch.randint(0, classes, (batch,), generator=gen)
        loss = torch.nn.functional.cross_entropy(logits, labels, reduction="sum")
        loss.backward()
        out.append({"name": f"cross-entropy {classes} classes batch {batch} logits to {scale:g}",
                    "batch": batch, "classes": classes, "logits": encode(logits),
                    "labels": labels.tolist(), "loss": float(loss), "dlogits": encode(logits.grad)})
    return out


# ------------------------------------------------------------------------------------------
# Training


def load_yaml(path):
    yaml = need("yaml", "apt-get install python3-yaml")
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


def build_network(torch, net):
    """A PyTorch model of a trainsim network file, a chain or a graph (`from`), without its
    softmax (the loss, cross-entropy, applies it), and the trainsim names of its layers with
    parameters, in order."""
    nn = torch.nn
    layers = net["layers"]
    # The softmax is the loss's; a sigmoid that ends a binary classifier stays in the model.
    assert layers[-1]["type"] in ("softmax", "sigmoid"), "a network ends in softmax or sigmoid"
    body = layers[:-1] if layers[-1]["type"] == "softmax" else layers
    shapes = {"input": tuple(net["input"])}
    names, modules, inputs, param_names = [], [], [], []
    previous = "input"
    for index, layer in enumerate(body):
        kind = layer["type"]
        name = layer.get("name", f"{kind}{index}")
        frm = layer.get("from", [previous])
        frm = [frm] if isinstance(frm, str) else frm
        c, h, w = shapes[frm[0]]
        if kind == "flatten":
            m, out = nn.Flatten(), (c * h * w, 1, 1)
        elif kind == "reshape":
            m, out = nn.Unflatten(1, layer["shape"]), tuple(layer["shape"])
        elif kind == "add":
            m, out = None, (c, h, w)
        elif kind == "concat":
            m, out = None, (sum(shapes[f][0] for f in frm), h, w)
        else:
            m = make_module(torch, kind, [c, h, w], layer)
            if kind == "dense":
                # trainsim's dense reads C x H x W as a vector
                m, out = nn.Sequential(nn.Flatten(), m), (layer["units"], 1, 1)
            elif kind in ("conv2d", "maxpool2d", "avgpool2d"):
                (kh, kw), (ph, pw) = pair(layer["kernel"]), pair(layer.get("padding", 0))
                stride = layer.get("stride", 1 if kind == "conv2d" else kh)
                out = (layer["filters"] if kind == "conv2d" else c,
                       (h + 2 * ph - kh) // stride + 1, (w + 2 * pw - kw) // stride + 1)
            elif kind == "conv2d_transpose":
                k, s, p = layer["kernel"], layer.get("stride", 1), layer.get("padding", 0)
                op = layer.get("output_padding", 0)
                out = (layer["filters"], (h - 1) * s - 2 * p + k + op, (w - 1) * s - 2 * p + k + op)
            elif kind == "global_avgpool":
                out = (c, 1, 1)
            else:
                out = (c, h, w)
            if any(True for _ in m.parameters()):
                param_names.append(name)
        names.append(name)
        modules.append(m if m is not None else nn.Identity())
        inputs.append(frm)
        shapes[name] = out
        previous = name

    class Graph(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList(modules)

        def forward(self, x):
            values = {"input": x}
            for name, m, frm, layer in zip(names, self.layers, inputs, layers):
                xs = [values[f] for f in frm]
                if layer["type"] == "add":
                    y = xs[0]
                    for t in xs[1:]:
                        y = y + t
                elif layer["type"] == "concat":
                    y = torch.cat(xs, dim=1)
                else:
                    y = m(xs[0])
                values[name] = y
            return values[names[-1]]

    return Graph(), param_names


def trainsim_params(model):
    """The model's parameters in trainsim's order and layouts: each layer's weight, then its
    bias (dense weights transposed: trainsim stores in x out)."""
    out = []
    for m in model.modules():
        if isinstance(m, (torch_nn().Linear, torch_nn().Conv2d, torch_nn().BatchNorm2d)):
            w = m.weight.detach()
            out.append(w.t() if isinstance(m, torch_nn().Linear) else w)
            if m.bias is not None:
                out.append(m.bias.detach())
    return out


def torch_nn():
    import torch
    return torch.nn


def image_pool(torch):
    """POOL synthetic 28x28 images as bytes, each a noisy copy of one of ten sparse
    prototypes (a fifth of the pixels lit, as in a digit), labelled with its prototype."""
    gen = torch.Generator().manual_seed(7)
    protos = (torch.rand(10, 28 * 28, generator=gen) < 0.2).to(torch.uint8) * 255
    labels = torch.randint(0, 10, (POOL,), generator=gen)
    images = protos[labels].clone()
    noise = torch.rand(POOL, 28 * 28, generator=gen) < 0.1
    values = torch.randint(0, 256, (POOL, 28 * 28), generator=gen).to(torch.uint8)
    images[noise] = values[noise]
    return images, labels


def train(torch, network_file, experiment_file, images, labels, seed, in_double=False):
    net = load_yaml(os.path.join(REPO, "configs", "networks", network_file))
    exp = load_yaml(os.path.join(REPO, "configs", "experiments", experiment_file))
    opt = exp["training"]["optimizer"]
    batch = exp["training"]["batch_size"]
    assert opt.get("kind", "sgd") == "sgd" and not opt.get("weight_decay", 0)
    reduction = opt.get("reduction", "sum")  # trainsim's default (sim/spec/specs.h)
    clip = opt.get("clip", 0)
    torch.manual_seed(seed)  # PyTorch's default initialisation, trainsim's pytorch_default
    model, names = build_network(torch, net)
    init = [encode(p) for p in trainsim_params(model)]
    import copy
    model64 = copy.deepcopy(model).double() if in_double else None
    x_all = images.to(torch.float32).reshape(POOL, *net["input"]) / 255

    def steps(m, x_pool, snapshot_after=None):
        """STEPS SGD steps; with snapshot_after, also the parameters after that many."""
        sgd = torch.optim.SGD(m.parameters(), lr=opt["lr"], momentum=opt.get("momentum", 0))
        losses, snapshot = [], None
        for step in range(STEPS):
            first = (step * batch) % (POOL - POOL % batch)
            x, y = x_pool[first:first + batch], labels[first:first + batch]
            sgd.zero_grad()
            loss = torch.nn.functional.cross_entropy(m(x), y, reduction=reduction)
            loss.backward()
            if clip:
                torch.nn.utils.clip_grad_value_(m.parameters(), clip)
            sgd.step()
            losses.append(float(loss) / (batch if reduction == "sum" else 1))
            if step + 1 == snapshot_after:
                snapshot = [encode_f64(p) for p in trainsim_params(m)]
        return losses, snapshot

    losses, _ = steps(model, x_all)
    final = [encode(p) for p in trainsim_params(model)]
    extra = {}
    if in_double:
        # The same steps in float64, from the same fp32 initial values: what the fp32 runs
        # approximate. Batch normalization's backward pass cancels most of its terms, so the
        # two fp32 runs differ by about what either differs from this one. `early64`: the
        # parameters after the first STEPS64 steps, which the test's float64 numerics (the
        # slow reference loops) repeat.
        extra["mean_losses64"], extra["early64"] = steps(model64, x_all.double(), STEPS64)
        extra["final64"] = [encode_f64(p) for p in trainsim_params(model64)]
        extra["steps64"] = STEPS64
    return {"network": network_file, "experiment": experiment_file, "batch": batch,
            "optimizer": {"lr": opt["lr"], "momentum": opt.get("momentum", 0),
                          "reduction": reduction, "clip": clip},
            "layers": names, "initial": init, "final": final, "mean_losses": losses, **extra}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--out", default=DEFAULT_OUT, help="folder for the fixtures "
                    "(default tests/data/torch)")
    args = ap.parse_args()
    reexec_for_torch()
    torch = need("torch", "apt-get install python3-torch (Debian's PyTorch, for "
                 "/usr/bin/python3), or pip install torch")
    need("numpy", "apt-get install python3-numpy")
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    meta = {"tool": "tools/torch_fixtures.py", "torch": torch.__version__}

    cases = [run_layer(torch, c, 100 + i) for i, c in enumerate(layer_cases())]
    layers = dict(meta, cases=cases, cross_entropy=cross_entropy_cases(torch))

    images, labels = image_pool(torch)
    training = dict(meta, images=encode(images, "u8"), labels=labels.tolist(), image_count=POOL,
                    runs=[train(torch, "lenet5.yaml", "lenet5_mnist.yaml", images, labels, 11),
                          train(torch, "seed_mlp.yaml", "quickstart.yaml", images, labels, 12),
                          train(torch, "resnet8_fashion.yaml", "resnet8_fashion.yaml", images,
                                labels, 13, in_double=True)])
    os.makedirs(args.out, exist_ok=True)
    for name, doc in (("layers.json", layers), ("training.json", training)):
        path = os.path.join(args.out, name)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        print(f"{os.path.relpath(path)}: {os.path.getsize(path)} bytes")
    for run in training["runs"]:
        print(f"{run['network']}: mean loss {run['mean_losses'][0]:.4f} -> "
              f"{run['mean_losses'][-1]:.4f} over {STEPS} steps")


if __name__ == "__main__":
    main()
