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


DEBIAN_PYTHON = "/usr/bin/python3"


def reexec_for_torch():
    """As tools/plot does for matplotlib: a pyenv or venv python without PyTorch runs this
    file again under Debian's python3, where python3-torch installs it."""
    try:
        import torch  # noqa: F401
        return
    except ImportError:
        pass
    if (os.environ.get("TRAINSIM_TORCH_REEXEC") != "1" and os.access(DEBIAN_PYTHON, os.X_OK)
            and os.path.realpath(sys.executable) != os.path.realpath(DEBIAN_PYTHON)):
        os.environ["TRAINSIM_TORCH_REEXEC"] = "1"
        os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON, os.path.abspath(__file__)] + sys.argv[1:])


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


# ------------------------------------------------------------------------------------------
# Single layers


def layer_cases():
    """(name, type, batch, in_shape, spec, ties) for every case: spec holds the YAML keys,
    ties asks for inputs with repeated values."""
    cases = []

    def add(kind, batch, in_shape, ties=False, **spec):
        label = " ".join(f"{k} {v}" for k, v in spec.items()) + (" ties" if ties else "")
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
    return cases


def make_module(torch, kind, in_shape, spec):
    """The PyTorch module of one trainsim layer, and its output shape."""
    nn = torch.nn
    c, h, w = in_shape
    if kind == "dense":
        return nn.Linear(c * h * w, spec["units"], bias=spec.get("bias", True))
    if kind == "conv2d":
        return nn.Conv2d(c, spec["filters"], spec["kernel"], stride=spec.get("stride", 1),
                         padding=spec.get("padding", 0), groups=spec.get("groups", 1),
                         bias=spec.get("bias", True))
    if kind in ("maxpool2d", "avgpool2d"):
        k = spec["kernel"]
        stride = spec.get("stride", k)
        if kind == "maxpool2d":
            return nn.MaxPool2d(k, stride=stride, padding=0, ceil_mode=False)
        return nn.AvgPool2d(k, stride=stride, padding=0, ceil_mode=False)
    if kind == "relu":
        return nn.ReLU()
    if kind == "leaky_relu":
        # trainsim's default slope (sim/config/specs.h), not PyTorch's.
        return nn.LeakyReLU(spec.get("slope", 0.01))
    if kind == "tanh":
        return nn.Tanh()
    if kind == "sigmoid":
        return nn.Sigmoid()
    if kind == "gelu":
        return nn.GELU(approximate="tanh")
    if kind == "softmax":
        return nn.Softmax(dim=1)
    raise ValueError(kind)


def run_layer(torch, case, seed):
    """One case: inputs and parameters from `seed`, PyTorch's outputs and gradients."""
    name, kind, batch, in_shape, spec, ties = case
    gen = torch.Generator().manual_seed(seed)
    x = torch.rand([batch] + in_shape, generator=gen) * 2 - 1
    if ties:
        x = torch.round(x * 2) / 2
    if kind in ("relu", "leaky_relu") + SMOOTH:
        x = x * 4  # the activations' curved parts and tails
        x.view(-1)[::11] = 0  # the derivative's convention at 0
    if kind == "softmax":
        x = x * 3
    x.requires_grad_(True)
    if kind == "flatten":
        y = torch.flatten(x, 1)
        module = None
    elif kind == "reshape":
        y = x.reshape([batch] + spec["shape"])
        module = None
    else:
        module = make_module(torch, kind, in_shape, spec)
        # Parameters of size about 1 / sqrt(fan-in) so the outputs stay near 1, and biases
        # not zero.
        with torch.no_grad():
            for p in module.parameters():
                fan_in = p[0].numel() if p.dim() > 1 else 4
                p.copy_((torch.rand(p.shape, generator=gen) * 2 - 1) / math.sqrt(fan_in))
        xin = torch.flatten(x, 1) if kind == "dense" else x
        y = module(xin)
    g = torch.rand(y.shape, generator=gen) * 2 - 1
    (y * g).sum().backward()
    out_shape = list(y.shape[1:]) + [1] * (4 - y.dim())
    rec = {"name": name, "type": kind, "batch": batch, "in": in_shape, "out": out_shape,
           "spec": spec, "x": encode(x), "g": encode(g), "y": encode(y), "dx": encode(x.grad)}
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
    """A sequential PyTorch model of a trainsim network file, without its softmax (the loss,
    cross-entropy, applies it), and the trainsim layer names of its parameters in order."""
    nn = torch.nn
    c, h, w = net["input"]
    modules, names = [], []
    layers = net["layers"]
    assert layers[-1]["type"] == "softmax", "the last layer is the softmax of the loss"
    for index, layer in enumerate(layers[:-1]):
        kind = layer["type"]
        if kind == "flatten":
            modules.append(nn.Flatten())
            c, h, w = c * h * w, 1, 1
            continue
        if kind == "reshape":
            modules.append(nn.Unflatten(1, layer["shape"]))
            c, h, w = layer["shape"]
            continue
        if kind == "dense" and (h, w) != (1, 1):
            modules.append(nn.Flatten())  # trainsim's dense reads C x H x W as a vector
            c, h, w = c * h * w, 1, 1
        if kind in ("dense", "conv2d"):
            names.append(layer.get("name", f"{kind}{index}"))
        m = make_module(torch, kind, [c, h, w], layer)
        modules.append(m)
        if kind == "dense":
            c, h, w = layer["units"], 1, 1
        elif kind in ("conv2d", "maxpool2d", "avgpool2d"):
            k = layer["kernel"]
            stride = layer.get("stride", 1 if kind == "conv2d" else k)
            pad = layer.get("padding", 0)
            c = layer["filters"] if kind == "conv2d" else c
            h, w = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
    return nn.Sequential(*modules), names


def trainsim_params(model):
    """The model's parameters in trainsim's order and layouts: name -> tensor."""
    out = []
    for m in model:
        if getattr(m, "weight", None) is None:
            continue
        w = m.weight.detach()
        out.append(w.t() if w.dim() == 2 else w)  # dense: trainsim stores in x out
        if m.bias is not None:
            out.append(m.bias.detach())
    return out


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


def train(torch, network_file, experiment_file, images, labels, seed):
    net = load_yaml(os.path.join(REPO, "configs", "networks", network_file))
    exp = load_yaml(os.path.join(REPO, "configs", "experiments", experiment_file))
    opt = exp["training"]["optimizer"]
    batch = exp["training"]["batch_size"]
    assert opt.get("kind", "sgd") == "sgd" and not opt.get("weight_decay", 0)
    reduction = opt.get("reduction", "sum")  # trainsim's default (sim/config/specs.h)
    clip = opt.get("clip", 0)
    torch.manual_seed(seed)  # PyTorch's default initialisation, trainsim's pytorch_default
    model, names = build_network(torch, net)
    init = [encode(p) for p in trainsim_params(model)]
    sgd = torch.optim.SGD(model.parameters(), lr=opt["lr"], momentum=opt.get("momentum", 0))
    x_all = images.to(torch.float32).reshape(POOL, *net["input"]) / 255
    losses = []
    for step in range(STEPS):
        first = (step * batch) % (POOL - POOL % batch)
        x, y = x_all[first:first + batch], labels[first:first + batch]
        sgd.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y, reduction=reduction)
        loss.backward()
        if clip:
            torch.nn.utils.clip_grad_value_(model.parameters(), clip)
        sgd.step()
        losses.append(float(loss) / (batch if reduction == "sum" else 1))
    final = [encode(p) for p in trainsim_params(model)]
    return {"network": network_file, "experiment": experiment_file, "batch": batch,
            "optimizer": {"lr": opt["lr"], "momentum": opt.get("momentum", 0),
                          "reduction": reduction, "clip": clip},
            "layers": names, "initial": init, "final": final, "mean_losses": losses}


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
                          train(torch, "seed_mlp.yaml", "quickstart.yaml", images, labels, 12)])
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
