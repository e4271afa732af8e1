#!/usr/bin/env python3
"""ONNX exports of zoo networks by PyTorch, for the import tests (tests/unit/test_onnx_import.cpp).

For each network file named below, builds the PyTorch model of it (torch_fixtures.py's
build_network: one torch module per layer, run in the file's graph order), exports it with
torch.onnx.export in training mode (so batch normalization stays a node of its own instead of
being folded into the convolution, as inference exports do), the batch dimension left free,
and writes tests/data/onnx/<network>.onnx. The float initializers' values are dropped (their
shapes stay): the importer counts weights by shape only, and a ResNet-50 keeps 30 kB instead
of 90 MB. Small int64 initializers (reshape targets) keep their values.

The tests then import each file and compare it with the network file it came from, so what is
checked is trainsim's reading of PyTorch's own ONNX graph. Needs PyTorch and ONNX (Debian:
`apt-get install python3-torch python3-onnx python3-yaml`, for /usr/bin/python3, which this
tool runs itself under when the python it was started with lacks them):

  tools/onnx_fixtures.py [--out tests/data/onnx] [NETWORK ...]

It also writes four small models the importer must refuse (bad_*.onnx: an operator without a
layer, two outputs, a free height and width, a bias of the wrong size), made with onnx.helper.
"""
import argparse
import io
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_OUT = os.path.join(REPO, "tests", "data", "onnx")
NETWORKS = ["resnet8_fashion", "resnet50_cifar10", "vgg16_cifar10", "mobilenetv2_cifar10",
            "densenet121_cifar10", "inceptionv3_imagenet", "dcgan64_gd_celeba"]
KEEP_VALUES = 16  # initializers of at most this many elements keep their values


def reexec_for_torch_and_onnx():
    sys.path.insert(0, HERE)
    from torch_fixtures import reexec_under_debian_python
    reexec_under_debian_python(__file__, ["torch", "onnx"], "TRAINSIM_ONNX_REEXEC")
    try:
        import onnx  # noqa: F401
        import torch  # noqa: F401
    except ImportError:
        sys.exit("onnx_fixtures.py: needs PyTorch and ONNX (apt-get install python3-torch "
                 "python3-onnx)")


def export(torch, onnx, name, out_dir):
    from torch_fixtures import build_network, load_yaml
    net = load_yaml(os.path.join(REPO, "configs", "networks", name + ".yaml"))
    torch.manual_seed(0)
    model, _ = build_network(torch, net)
    model.train()
    x = torch.zeros((2,) + tuple(net["input"]))
    buf = io.BytesIO()
    torch.onnx.export(model, x, buf, input_names=["input"], output_names=["logits"],
                      dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}},
                      opset_version=13, training=torch.onnx.TrainingMode.TRAINING,
                      do_constant_folding=False)
    m = onnx.load_from_string(buf.getvalue())
    for t in m.graph.initializer:
        n = 1
        for d in t.dims:
            n *= d
        if n > KEEP_VALUES and t.data_type == onnx.TensorProto.FLOAT:
            t.ClearField("raw_data")
            t.ClearField("float_data")
    path = os.path.join(out_dir, name + ".onnx")
    with open(path, "wb") as f:
        f.write(m.SerializeToString())
    ops = sorted({n.op_type for n in m.graph.node})
    print("%s: %d nodes (%s), %d bytes" % (path, len(m.graph.node), ", ".join(ops),
                                            os.path.getsize(path)))


def bad_models(onnx, out_dir):
    """Small hand-made models the importer must refuse with one line each."""
    h = onnx.helper
    f = onnx.TensorProto.FLOAT

    def save(name, nodes, inputs, outputs, inits=()):
        g = h.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
        m = h.make_model(g, producer_name="trainsim onnx_fixtures.py",
                         opset_imports=[h.make_opsetid("", 13)])
        path = os.path.join(out_dir, name + ".onnx")
        onnx.save(m, path)
        print("%s: %d bytes" % (path, os.path.getsize(path)))

    x = h.make_tensor_value_info("x", f, ["batch", 4])
    w = h.make_tensor("w", f, [3, 4], [0.0] * 12)
    gemm = h.make_node("Gemm", ["x", "w"], ["y"], name="fc", transB=1)
    # An operator the importer has no layer for.
    save("bad_operator", [gemm, h.make_node("Erf", ["y"], ["z"], name="erf")], [x],
         [h.make_tensor_value_info("z", f, ["batch", 3])], [w])
    # A convolution whose bias has one value too many: its weights are not the layer's.
    img1 = h.make_tensor_value_info("x", f, ["batch", 1, 8, 8])
    cw = h.make_tensor("cw", f, [4, 1, 3, 3], [0.0] * 36)
    cb = h.make_tensor("cb", f, [5], [0.0] * 5)
    save("bad_bias", [h.make_node("Conv", ["x", "cw", "cb"], ["c"], name="conv"),
                      h.make_node("GlobalAveragePool", ["c"], ["p"], name="gap"),
                      h.make_node("Flatten", ["p"], ["z"], name="flat")], [img1],
         [h.make_tensor_value_info("z", f, ["batch", 4])], [cw, cb])
    # Two outputs where a network has one.
    save("bad_two_outputs", [gemm, h.make_node("Relu", ["y"], ["z"], name="relu")], [x],
         [h.make_tensor_value_info("y", f, ["batch", 3]),
          h.make_tensor_value_info("z", f, ["batch", 3])], [w])
    # A height and width left free: no size to train at.
    img = h.make_tensor_value_info("img", f, ["batch", 1, "height", "width"])
    save("bad_dynamic_shape", [h.make_node("Relu", ["img"], ["r"], name="relu"),
                               h.make_node("GlobalAveragePool", ["r"], ["p"], name="gap"),
                               h.make_node("Flatten", ["p"], ["z"], name="flat")], [img],
         [h.make_tensor_value_info("z", f, ["batch", 1])])


def main():
    reexec_for_torch_and_onnx()
    import onnx
    import torch
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default=DEFAULT_OUT)
    p.add_argument("networks", nargs="*", default=NETWORKS)
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    print("torch %s, onnx %s" % (torch.__version__, onnx.__version__))
    for name in args.networks:
        export(torch, onnx, name, args.out)
    bad_models(onnx, args.out)


if __name__ == "__main__":
    main()
