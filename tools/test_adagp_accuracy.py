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
            kinds = "adagp,raw,mean,pseudo,oracle:1:1,oracle:0.5:0.5:p"
            r = run_tool("--kinds", kinds, "--out", out, "--csv", table,
                         "--adagp", "predictor: {lr: 0.001}",
                         "--set", "training.optimizer.momentum=0")
            self.assertEqual(r.returncode, 0, r.stderr)
            # One progress line per run, numbered: 2 seeds x 9 kinds (bp, skip, zero always).
            self.assertIn("adagp_accuracy: [1/18] ", r.stderr)
            self.assertIn("adagp_accuracy: [18/18] ", r.stderr)
            self.assertIn("ETA 0:00", r.stderr.splitlines()[-1])
            # The tables again from the CSV, without training: the same text.
            tab = run_tool("--from-csv", table, "--set", "training.optimizer.momentum=0")
            self.assertEqual(tab.returncode, 0, tab.stderr)
            self.assertEqual(tab.stdout, r.stdout)
            # --reuse keeps the runs of the same command and trains the new ones only.
            more = run_tool("--kinds", kinds + ",oracle:0.5:0.5", "--out", out, "--reuse",
                            "--adagp", "predictor: {lr: 0.001}",
                            "--set", "training.optimizer.momentum=0")
            self.assertEqual(more.returncode, 0, more.stderr)
            self.assertEqual(more.stderr.count("(reused)"), 18, more.stderr)
            self.assertIn("oracle:0.5:0.5: ", more.stderr)
            # Re-running into the same --out without --reuse replaces its runs.
            again = run_tool("--kinds", "bp,adagp", "--out", out)
            self.assertEqual(again.returncode, 0, again.stderr)
            self.assertNotIn("(reused)", again.stderr)
            for text in ("| bp (ceiling vs skip) |", "| ADA-GP raw |", "| pseudo |",
                         "| oracle cos 0.5 mag 0.5 persistent |", "gap recovered", "±",
                         "Diagnostics", "Phase GP cosine"):
                self.assertIn(text, r.stdout)
            with open(table) as f:
                rows = list(csv.DictReader(f))
            self.assertEqual(len(rows), 18)
            cell = {(row["seed"], row["kind"]): row for row in rows}
            for seed in ("1", "2"):
                for row in (cell[(seed, k)] for k in ("bp", "adagp", "skip", "zero")):
                    self.assertTrue(0 <= float(row["test_accuracy"]) <= 100, row)
                    self.assertGreater(float(row["test_loss"]), 0, row)
                # Without momentum a zero gradient is no step: zero trains exactly like skip.
                self.assertEqual(cell[(seed, "zero")]["test_loss"], cell[(seed, "skip")]["test_loss"])
                # The perfect oracle is backprop, to the last digit.
                self.assertEqual(cell[(seed, "oracle:1:1")]["test_loss"], cell[(seed, "bp")]["test_loss"])
                # Diagnostics ran for ADA-GP: a cosine in [-1, 1].
                self.assertTrue(-1 <= float(cell[(seed, "adagp")]["gp_cosine"]) <= 1)
                self.assertEqual(cell[(seed, "skip")]["gp_cosine"], "")
            # Each run got its technique; --adagp reached the ADA-GP runs only.
            with open(os.path.join(out, "seed_mlp_mnist_s1_mean", "config.resolved.yaml")) as f:
                text = f.read()
            self.assertIn("phase_gp: mean", text)
            self.assertIn("lr: 0.001", text)
            with open(os.path.join(out, "seed_mlp_mnist_s1_oracle_0.5_0.5_p",
                                   "config.resolved.yaml")) as f:
                text = f.read()
            self.assertIn("phase_gp: oracle", text)
            self.assertIn("persistent: true", text)
            with open(os.path.join(out, "seed_mlp_mnist_s1_bp", "config.resolved.yaml")) as f:
                self.assertIn("technique: bp", f.read())

    def test_unknown_kind_is_an_error(self):
        for kind in ("oracle", "oracle:x:1", "oracle:1:1:q", "guess"):
            r = run_tool("--kinds", "bp,adagp," + kind)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("unknown kind(s) " + kind, r.stderr)

    def test_failing_run_names_the_command(self):
        r = run_tool("--adagp", "predictor: {size: 0}")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("failed", r.stderr)
        self.assertIn("technique.predictor.size: must be in [1, 256], got 0", r.stderr)


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        TRAINSIM = os.path.abspath(sys.argv.pop(1))
    unittest.main()
