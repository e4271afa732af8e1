#!/usr/bin/env python3
"""CTest: trainsim.from_torch (python/trainsim/torch_import.py) gives the network file of the
ONNX path. Models written here, torchvision-free: ResNet-8 (tools/torch_fixtures.py builds it
from configs/networks/resnet8_fashion.yaml) against `trainsim import` of its committed export
(tests/data/onnx/resnet8_fashion.onnx), and a small transformer encoder (embeddings, one
attention and feed-forward block, a span head) against PyTorch's own export of the same
module read by the same importer. Layers are compared up to their names (fx names the
exported nodes after its graph, the plain export after the modules). Bad models: a
data-dependent branch, an operator without a layer, a file that exists.
  tools/test_from_torch.py BUILD_DIR     (needs Debian's python3-torch, python3-onnx, python3-yaml)
"""
import io
import math
import os
import subprocess
import sys
import tempfile
import unittest

BUILD = os.path.abspath(sys.argv.pop(1))
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(BUILD, "python"))
sys.path.insert(0, HERE)
import torch  # noqa: E402
import yaml  # noqa: E402

import trainsim  # noqa: E402
from torch_fixtures import build_network, load_yaml  # noqa: E402

nn = torch.nn


def layer_graph(text):
    """input, classes and each layer's fields, its inputs given by position (names dropped)."""
    net = yaml.safe_load(text)
    index = {"input": -1}
    layers = []
    for i, layer in enumerate(net["layers"]):
        fields = {k: v for k, v in layer.items() if k not in ("name", "from")}
        frm = layer.get("from", [])
        frm = [frm] if isinstance(frm, str) else frm
        fields["from"] = [index[f] for f in frm] if frm else [i - 1]
        layers.append(fields)
        index[layer["name"]] = i
    return net["input"], net["classes"], layers


class Encoder(nn.Module):
    """BERT's layer (tools/onnx_fixtures.py's), written for torch.fx: position ids counted
    from the input and one segment from zeros_like, not slices of buffers by a traced length."""

    def __init__(self, vocab=50, hidden=16, heads=2, ffn=32):
        super().__init__()
        self.heads, self.size = heads, hidden // heads
        self.word = nn.Embedding(vocab, hidden)
        self.position = nn.Embedding(16, hidden)
        self.segment = nn.Embedding(2, hidden)
        self.norm = nn.LayerNorm(hidden)
        self.query, self.key, self.value = (nn.Linear(hidden, hidden) for _ in range(3))
        self.attention_dropout = nn.Dropout(0.1)
        self.projection = nn.Linear(hidden, hidden)
        self.attention_norm = nn.LayerNorm(hidden)
        self.intermediate = nn.Linear(hidden, ffn)
        self.gelu = nn.GELU()
        self.output = nn.Linear(ffn, hidden)
        self.output_norm = nn.LayerNorm(hidden)
        self.span = nn.Linear(hidden, 2)

    def split(self, x):
        return x.view(x.shape[0], x.shape[1], self.heads, self.size).permute(0, 2, 1, 3)

    def forward(self, ids):
        positions = ids.new_ones(ids.shape).cumsum(1) - 1
        x = self.word(ids) + self.position(positions) + self.segment(torch.zeros_like(ids))
        x = self.norm(x)
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        p = torch.softmax(torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.size), dim=-1)
        c = torch.matmul(self.attention_dropout(p), v).permute(0, 2, 1, 3)
        c = c.reshape(c.shape[0], c.shape[1], self.heads * self.size)
        a = self.attention_norm(self.projection(c) + x)
        f = self.output_norm(self.output(self.gelu(self.intermediate(a))) + a)
        return self.span(f).flatten(1)


class FromTorch(unittest.TestCase):
    def test_resnet8_equals_trainsim_import_of_its_export(self):
        torch.manual_seed(0)
        model, _ = build_network(torch, load_yaml(os.path.join(REPO, "configs", "networks",
                                                               "resnet8_fashion.yaml")))
        got = trainsim.from_torch(model, torch.zeros(2, 1, 28, 28), name="resnet8_fashion")
        self.assertTrue(model.training)
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "r8.yaml")
            subprocess.run([os.path.join(BUILD, "trainsim"), "import", "-q", "-o", out,
                            os.path.join(REPO, "tests", "data", "onnx", "resnet8_fashion.onnx")],
                           check=True)
            with open(out) as f:
                want = f.read()
        self.assertEqual(layer_graph(got), layer_graph(want))
        self.assertIn("77,754 trainable parameters", got)
        self.assertEqual(yaml.safe_load(got)["name"], "resnet8_fashion")

    def test_transformer_block_equals_the_onnx_path(self):
        torch.manual_seed(0)
        model = Encoder()
        ids = torch.zeros(2, 8, dtype=torch.long)
        got = trainsim.from_torch(model, ids, name="encoder")
        buf = io.BytesIO()
        torch.onnx.export(model, ids, buf, input_names=["ids"], output_names=["logits"],
                          dynamic_axes={"ids": {0: "batch"}, "logits": {0: "batch"}},
                          opset_version=17, training=torch.onnx.TrainingMode.TRAINING,
                          do_constant_folding=False)
        want = trainsim.import_onnx_bytes(buf.getvalue(), "encoder")
        self.assertEqual(layer_graph(got), layer_graph(want))
        inputs, classes, layers = layer_graph(got)
        self.assertEqual((inputs, classes), ([1, 8, 1], 16))
        types = [layer["type"] for layer in layers]
        for t in ("embedding", "layernorm", "linear", "batched_matmul", "softmax", "gelu"):
            self.assertIn(t, types)
        scores = [layer for layer in layers if layer["type"] == "batched_matmul"]
        self.assertEqual([(s["heads"], s["transpose_b"]) for s in scores], [(2, True), (2, False)])
        parameters = sum(p.numel() for p in model.parameters())
        self.assertIn("%s trainable parameters" % format(parameters, ","), got)
        # It runs, shape only, as any network file does.
        with tempfile.TemporaryDirectory() as tmp:
            net = os.path.join(tmp, "encoder.yaml")
            trainsim.from_torch(model, ids, name="encoder", path=net)
            exp = os.path.join(tmp, "exp.yaml")
            with open(exp, "w") as f:
                f.write("name: e\nnumerics: none\nnetwork: %s\ndataset: {name: squad, "
                        "train_limit: 8, test_limit: 8}\ntraining: {epochs: 1, batch_size: 8}\n"
                        "accelerator: adagp_ws180\n" % net)
            # SQuAD's samples are 384 tokens: the encoder's 8 do not fit it, and says so.
            with self.assertRaises(ValueError) as e:
                trainsim.run(exp, out=os.path.join(tmp, "run"))
            self.assertIn("384", str(e.exception))

    def test_refusals(self):
        class Branchy(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)

            def forward(self, x):
                if x.sum() > 0:  # depends on the data: a network file cannot hold it
                    return self.fc(x)
                return self.fc(-x)

        with self.assertRaises(ValueError) as e:
            trainsim.from_torch(Branchy(), torch.zeros(2, 4))
        self.assertIn("torch.fx cannot trace Branchy", str(e.exception))

        class Hard(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)

            def forward(self, x):
                return nn.functional.hardswish(self.fc(x))

        with self.assertRaises(ValueError) as e:
            trainsim.from_torch(Hard(), torch.zeros(2, 4))
        self.assertIn("HardSwish", str(e.exception))
        self.assertIn("not supported", str(e.exception))
        with tempfile.TemporaryDirectory() as tmp:
            keep = os.path.join(tmp, "mine.yaml")
            with open(keep, "w") as f:
                f.write("keep me\n")
            with self.assertRaises(ValueError) as e:
                trainsim.from_torch(nn.Sequential(nn.Linear(4, 2)), torch.zeros(2, 4), path=keep)
            self.assertIn("exists", str(e.exception))
            with open(keep) as f:
                self.assertEqual(f.read(), "keep me\n")
        with self.assertRaises(ValueError):
            trainsim.from_torch(nn.Linear(4, 2), torch.zeros(4))


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]], verbosity=2)
