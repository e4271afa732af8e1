#!/usr/bin/env python3
"""Tests of tools/torch_fixtures.py that need no PyTorch: the committed fixtures in
tests/data/torch hold the cases the tool makes now (a case added to the tool without
regenerating them fails here), and without PyTorch the tool says how to install it.

Run: python3 tools/test_torch_fixtures.py   (exit status 0 when all tests pass)
"""

import importlib.util
import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "torch_fixtures.py")
FIXTURES = os.path.join(os.path.dirname(HERE), "tests", "data", "torch")


def load_tool():
    spec = importlib.util.spec_from_file_location("torch_fixtures", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as f:
        return json.load(f)


class FixturesMatchTheTool(unittest.TestCase):
    def test_layer_cases(self):
        tool = load_tool()
        cases = read("layers.json")["cases"]
        self.assertEqual([c["name"] for c in cases], [c[0] for c in tool.layer_cases()],
                         "tests/data/torch/layers.json is older than tools/torch_fixtures.py: "
                         "regenerate it")
        for case, (_, kind, batch, in_shape, spec, _) in zip(cases, tool.layer_cases()):
            # `inputs` and `mode` are stored beside the layer's keys.
            keys = {k: v for k, v in spec.items() if k not in ("inputs", "mode")}
            self.assertEqual((case["type"], case["batch"], case["in"], case["spec"],
                              case.get("inputs"), case.get("mode")),
                             (kind, batch, in_shape, keys, spec.get("inputs"), spec.get("mode")))

    def test_training_runs(self):
        tool = load_tool()
        training = read("training.json")
        self.assertEqual(training["image_count"], tool.POOL)
        self.assertEqual(len(training["labels"]), tool.POOL)
        self.assertEqual([r["network"] for r in training["runs"]], ["lenet5.yaml", "seed_mlp.yaml",
                                                                       "resnet8_fashion.yaml"])
        for run in training["runs"]:
            self.assertEqual(len(run["mean_losses"]), tool.STEPS)
            self.assertEqual(len(run["initial"]), len(run["final"]))


class WithoutTorch(unittest.TestCase):
    def run_tool(self, *args):
        # torch made unimportable, and no second try under Debian's python.
        code = ("import runpy, sys; sys.modules['torch'] = None; sys.argv = sys.argv[1:]; "
                "runpy.run_path(sys.argv[0], run_name='__main__')")
        env = dict(os.environ, TRAINSIM_TORCH_REEXEC="1")
        return subprocess.run([sys.executable, "-c", code, TOOL] + list(args), env=env,
                              capture_output=True, text=True, check=False)

    def test_help(self):
        r = self.run_tool("--help")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("tests/data/torch", r.stdout)

    def test_says_how_to_install(self):
        r = self.run_tool("--out", os.path.join(FIXTURES, "never-written"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("apt-get install python3-torch", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(FIXTURES, "never-written")))


if __name__ == "__main__":
    unittest.main()
