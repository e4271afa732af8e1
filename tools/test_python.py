#!/usr/bin/env python3
"""CTest: the trainsim Python module (build/python) runs the quickstart and returns the same
cycles as the CLI, times an op as `trainsim layer` does, and raises ValueError on bad input.
  tools/test_python.py BUILD_DIR"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

BUILD = os.path.abspath(sys.argv.pop(1))
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(BUILD, "python"))
import trainsim  # noqa: E402

QUICKSTART = os.path.join(REPO, "configs", "experiments", "quickstart.yaml")


class PythonModule(unittest.TestCase):
    def test_run_matches_the_cli(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = trainsim.run(QUICKSTART, out=os.path.join(tmp, "py"))
            summary = os.path.join(tmp, "cli.json")
            subprocess.run([os.path.join(BUILD, "trainsim"), "run", QUICKSTART, "--out",
                            os.path.join(tmp, "cli"), "--quiet", "--summary", summary],
                           check=True, stdout=subprocess.DEVNULL)
            with open(summary) as f:
                cli = json.load(f)
            self.assertEqual(r["cycles"], cli["cycles"])
            self.assertEqual(r["test_accuracy"], cli["test_accuracy"])
            self.assertAlmostEqual(r["energy"], cli["energy"], delta=1e-9 * cli["energy"])
            self.assertEqual(len(r["epochs"]), 1)
            self.assertTrue(os.path.isfile(os.path.join(tmp, "py", "stats.json")))

    def test_layer_matches_the_cli(self):
        d = trainsim.layer("adagp_ws180", gemm=[96, 64, 80])
        out = subprocess.run([os.path.join(BUILD, "trainsim"), "layer", "--accel", "adagp_ws180",
                              "--gemm", "96,64,80", "--json"], check=True, capture_output=True,
                             text=True).stdout
        self.assertEqual(d["cycles"], json.loads(out)["stats"]["cycles"])
        c = trainsim.layer("eyeriss_like", conv=[27, 27, 96, 256, 5, 5, 1, 2])
        self.assertGreater(c["macs"], 0)
        self.assertEqual(c["energy_unit"], "pJ")

    def test_compare_and_config(self):
        with tempfile.TemporaryDirectory() as tmp:
            rs = trainsim.compare(QUICKSTART, [["dataflow=ws"], ["dataflow=os"]],
                                  overrides=["dataset.train_limit=300", "dataset.test_limit=50"],
                                  out=tmp)
        self.assertEqual(len(rs), 2)
        self.assertNotEqual(rs[0]["cycles"], rs[1]["cycles"])
        self.assertIn("dataflow: rs", trainsim.resolved_config(QUICKSTART, ["dataflow=rs"]))

    def test_errors_are_value_errors(self):
        with self.assertRaises(ValueError) as e:
            trainsim.resolved_config(QUICKSTART, ["training.epochz=3"])
        self.assertIn("epochz", str(e.exception))
        with self.assertRaises(ValueError):
            trainsim.layer("adagp_ws180")


if __name__ == "__main__":
    unittest.main()
