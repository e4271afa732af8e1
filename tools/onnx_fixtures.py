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

It also writes a BERT-base-sized encoder of 2 layers (bert_base2_squad, the module
bert_modules() defines, exported at opset 17 for its LayerNormalization nodes) and a one-layer
miniature of it (tiny_bert, the fuzz target's seed), a block with opset 20's Gelu node
(gelu_opset20), and five small models the importer must
refuse (bad_*.onnx: an operator without a layer, two outputs, a free height and width, a bias of
the wrong size, attention that transposes its first operand), made with onnx.helper.
"""
import argparse
import io
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_OUT = os.path.join(REPO, "tests", "data", "onnx")
NETWORKS = ["resnet8_fashion", "resnet50_cifar10", "vgg16_cifar10", "mobilenetv2_cifar10",
            "densenet121_cifar10", "inceptionv3_imagenet", "dcgan64_gd_celeba", "bert_base2_squad"]
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
    save_export(torch, onnx, model, x, name, out_dir, 13)


def bert_modules(torch):
    """A BERT encoder written as Hugging Face's BertModel computes it (embeddings summed, layer
    norm, dropout; per layer self-attention split into heads by view and permute, scores scaled
    by 1/sqrt(d), softmax, dropout, context, output projection, residual, layer norm; GELU
    feed-forward), with BertForQuestionAnswering's span head, for configs/networks/
    bert_base2_squad.yaml (tools/gen_zoo.py)."""
    import math
    nn = torch.nn

    class SelfAttention(nn.Module):
        def __init__(self, hidden, heads):
            super().__init__()
            self.heads, self.size = heads, hidden // heads
            self.query = nn.Linear(hidden, hidden)
            self.key = nn.Linear(hidden, hidden)
            self.value = nn.Linear(hidden, hidden)
            self.dropout = nn.Dropout(0.1)

        def split(self, x):
            return x.view(x.shape[0], x.shape[1], self.heads, self.size).permute(0, 2, 1, 3)

        def forward(self, x):
            q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
            scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.size)
            probs = self.dropout(torch.softmax(scores, dim=-1))
            c = torch.matmul(probs, v).permute(0, 2, 1, 3)
            return c.reshape(c.shape[0], c.shape[1], self.heads * self.size)

    class Layer(nn.Module):
        def __init__(self, hidden, heads, ffn):
            super().__init__()
            self.attention = SelfAttention(hidden, heads)
            self.attention_output = nn.Linear(hidden, hidden)
            self.attention_dropout = nn.Dropout(0.1)
            self.attention_norm = nn.LayerNorm(hidden, eps=1e-12)
            self.intermediate = nn.Linear(hidden, ffn)
            self.gelu = nn.GELU()
            self.output = nn.Linear(ffn, hidden)
            self.output_dropout = nn.Dropout(0.1)
            self.output_norm = nn.LayerNorm(hidden, eps=1e-12)

        def forward(self, x):
            a = self.attention_dropout(self.attention_output(self.attention(x)))
            a = self.attention_norm(a + x)
            f = self.output_dropout(self.output(self.gelu(self.intermediate(a))))
            return self.output_norm(f + a)

    class Bert(nn.Module):
        def __init__(self, layers, hidden, heads, ffn, vocab=30522, positions=512):
            super().__init__()
            self.word = nn.Embedding(vocab, hidden)
            self.position = nn.Embedding(positions, hidden)
            self.token_type = nn.Embedding(2, hidden)
            # As BertEmbeddings: position ids and one segment (zeros) as buffers.
            self.register_buffer("position_ids", torch.arange(positions).unsqueeze(0))
            self.register_buffer("token_type_ids", torch.zeros(1, positions, dtype=torch.long))
            self.norm = nn.LayerNorm(hidden, eps=1e-12)
            self.dropout = nn.Dropout(0.1)
            self.layers = nn.ModuleList([Layer(hidden, heads, ffn) for _ in range(layers)])
            self.qa_outputs = nn.Linear(hidden, 2)

        def forward(self, ids):
            n = ids.shape[1]
            segments = self.token_type_ids[:, :n].expand(ids.shape[0], n)
            x = self.word(ids) + self.position(self.position_ids[:, :n])
            x = self.dropout(self.norm(x + self.token_type(segments)))
            for layer in self.layers:
                x = layer(x)
            # Start and end logits of every position, one vector per question.
            return self.qa_outputs(x).flatten(1)

    return Bert, Layer


def export_bert(torch, onnx, out_dir):
    """BERT-base (hidden 768, 12 heads, FFN 3072) with 2 layers over SQuAD's 384 tokens, exported
    at opset 17 (LayerNormalization is a node of its own from 17 on)."""
    Bert, _ = bert_modules(torch)
    torch.manual_seed(0)
    model = Bert(layers=2, hidden=768, heads=12, ffn=3072)
    model.train()
    ids = torch.zeros((2, 384), dtype=torch.long)
    save_export(torch, onnx, model, ids, "bert_base2_squad", out_dir, 17, "input_ids")
    # A one-layer miniature (16 features, 2 heads, 8 tokens): the fuzz target's seed.
    torch.manual_seed(0)
    tiny = Bert(layers=1, hidden=16, heads=2, ffn=32, vocab=50, positions=16)
    tiny.train()
    save_export(torch, onnx, tiny, torch.zeros((2, 8), dtype=torch.long), "tiny_bert", out_dir, 17,
                "input_ids")


def save_export(torch, onnx, model, x, name, out_dir, opset, input_name="input"):
    buf = io.BytesIO()
    torch.onnx.export(model, x, buf, input_names=[input_name], output_names=["logits"],
                      dynamic_axes={input_name: {0: "batch"}, "logits": {0: "batch"}},
                      opset_version=opset, training=torch.onnx.TrainingMode.TRAINING,
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


def gelu_opset20(onnx, out_dir):
    """A feed-forward block on token embeddings with ONNX's own Gelu node (opset 20), which
    PyTorch 1.13 cannot export and ONNX 1.12 has no schema for: made with onnx.helper."""
    h = onnx.helper
    f = onnx.TensorProto.FLOAT
    ids = h.make_tensor_value_info("ids", onnx.TensorProto.INT64, ["batch", 8])
    inits = [h.make_tensor("table", f, [50, 16], [0.0] * 800),
             h.make_tensor("w1", f, [16, 32], [0.0] * 512), h.make_tensor("b1", f, [32], [0.0] * 32),
             h.make_tensor("w2", f, [32, 4], [0.0] * 128)]
    nodes = [h.make_node("Gather", ["table", "ids"], ["e"], name="embed"),
             h.make_node("MatMul", ["e", "w1"], ["m"], name="up"),
             h.make_node("Add", ["m", "b1"], ["u"], name="up_bias"),
             h.make_node("Gelu", ["u"], ["g"], name="gelu", approximate="tanh"),
             h.make_node("MatMul", ["g", "w2"], ["d"], name="down"),
             h.make_node("Flatten", ["d"], ["logits"], name="flat")]
    g = h.make_graph(nodes, "gelu_opset20", [ids],
                     [h.make_tensor_value_info("logits", f, ["batch", 32])], initializer=inits)
    m = h.make_model(g, producer_name="trainsim onnx_fixtures.py",
                     opset_imports=[h.make_opsetid("", 20)])
    path = os.path.join(out_dir, "gelu_opset20.onnx")
    with open(path, "wb") as out:
        out.write(m.SerializeToString())
    print("%s: %d bytes" % (path, os.path.getsize(path)))


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
    # Attention whose first operand is transposed: trainsim's batched_matmul transposes B only.
    ids = h.make_tensor_value_info("ids", onnx.TensorProto.INT64, ["batch", 8])
    table = h.make_tensor("table", f, [50, 16], [0.0] * 800)
    save("bad_attention", [h.make_node("Gather", ["table", "ids"], ["e"], name="embed"),
                           h.make_node("Transpose", ["e"], ["et"], name="flip", perm=[0, 2, 1]),
                           h.make_node("MatMul", ["et", "e"], ["g"], name="gram"),
                           h.make_node("Flatten", ["g"], ["z"], name="flat")], [ids],
         [h.make_tensor_value_info("z", f, ["batch", 256])], [table])
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
        if name == "bert_base2_squad":
            export_bert(torch, onnx, args.out)
        else:
            export(torch, onnx, name, args.out)
    gelu_opset20(onnx, args.out)
    bad_models(onnx, args.out)


if __name__ == "__main__":
    main()
