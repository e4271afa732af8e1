#!/usr/bin/env python3
"""Tests of tools/adagp_accuracy.py on small real runs (seed MLP, 640 MNIST digits).

Run: python3 tools/test_adagp_accuracy.py [path/to/trainsim]   (exit 0 when all pass)
"""

import csv
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "adagp_accuracy.py")
TRAINSIM = os.path.join(os.path.dirname(HERE), "build", "trainsim")
SMALL = ["--networks", "seed_mlp", "--datasets", "mnist", "--seeds", "1,2", "--epochs", "2",
         "--warmup", "1", "--set", "dataset.train_limit=640", "--set", "dataset.test_limit=200"]


def run_tool(*args):
    return subprocess.run([sys.executable, TOOL, "--trainsim", TRAINSIM] + SMALL + list(args),
                          capture_output=True, text=True)


class AdagpAccuracyTest(unittest.TestCase):
    def test_every_kind_table_csv_and_runs(self):
        with tempfile.TemporaryDirectory() as tmp:
            out, table = os.path.join(tmp, "runs"), os.path.join(tmp, "cells.csv")
            r = run_tool("--kinds", "bp,adagp,skip,zero,mean,pseudo", "--out", out,
                         "--csv", table, "--adagp", "predictor: {lr: 0.001}",
                         "--set", "training.optimizer.momentum=0")
            self.assertEqual(r.returncode, 0, r.stderr)
            # One progress line per run, numbered: 2 seeds x 6 kinds.
            self.assertIn("adagp_accuracy: [1/12] ", r.stderr)
            self.assertIn("adagp_accuracy: [12/12] ", r.stderr)
            self.assertIn("ETA 0:00", r.stderr.splitlines()[-1])
            # Re-running into the same --out replaces its runs.
            again = run_tool("--kinds", "bp,adagp", "--out", out)
            self.assertEqual(again.returncode, 0, again.stderr)
            for label in ("bp", "ADA-GP", "skip GP", "zero GP", "mean GP", "pseudo GP",
                          "ADA-GP - mean GP", "predictor cosine"):
                self.assertIn(label, r.stdout)
            with open(table) as f:
                rows = list(csv.DictReader(f))
            self.assertEqual([r["seed"] for r in rows], ["1", "2"])
            for row in rows:
                for k in ("bp", "adagp", "skip", "zero", "mean", "pseudo"):
                    self.assertTrue(0 <= float(row[k]) <= 100, row)
                self.assertNotEqual(row["adagp_cosine"], "")
                # Without momentum a zero gradient is no step: zero trains exactly like skip.
                self.assertEqual(row["zero"], row["skip"])
            # Each run got its technique; --adagp reached the ADA-GP runs only.
            with open(os.path.join(out, "seed_mlp_mnist_s1_mean", "config.resolved.yaml")) as f:
                text = f.read()
            self.assertIn("phase_gp: mean", text)
            self.assertIn("lr: 0.001", text)
            with open(os.path.join(out, "seed_mlp_mnist_s1_bp", "config.resolved.yaml")) as f:
                self.assertIn("technique: bp", f.read())

    def test_unknown_kind_is_an_error(self):
        r = run_tool("--kinds", "bp,adagp,oracle")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("unknown kind(s) oracle", r.stderr)

    def test_failing_run_names_the_command(self):
        r = run_tool("--adagp", "predictor: {size: 0}")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("failed", r.stderr)
        self.assertIn("technique.predictor.size: must be in [1, 256], got 0", r.stderr)


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        TRAINSIM = os.path.abspath(sys.argv.pop(1))
    unittest.main()
